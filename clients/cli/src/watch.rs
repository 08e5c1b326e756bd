//! `tabletop watch`: a match live, redrawn on every change. The stream
//! resumes where it stopped — on the same server when it was cut for
//! reading too slowly, on the next address when its server is gone — from
//! the last event received, so nothing is shown twice or missed.

use std::io::Write;

use tabletop_proto::v1 as pb;
use tabletop_proto::v1::watch_client::WatchClient;
use tokio_stream::StreamExt;

use crate::error::CliResult;
use crate::failover::{Servers, server_gone};
use crate::render;
use crate::render::print_json;

const CLEAR_SCREEN: &str = "\x1b[2J\x1b[H";

/// Watches the match until it ends.
pub async fn run(
    servers: &Servers,
    match_id: String,
    token: String,
    from_version: Option<u64>,
    json: bool,
) -> CliResult {
    let mut request = pb::WatchMatchRequest {
        match_id,
        seat_token: token,
        from_version,
        after_seq: None,
        omit_views: false,
    };
    let mut outage = None;
    let mut moved = 0;
    loop {
        let (at, conn) = servers.conn(&mut outage).await?;
        let opened = WatchClient::new(conn).watch_match(request.clone()).await;
        let mut stream = match opened {
            Ok(stream) => stream.into_inner(),
            Err(status) if servers.several() && server_gone(&status) => {
                servers.move_on(at, &mut outage, status.into()).await?;
                continue;
            }
            Err(status) => return Err(status.into()),
        };
        loop {
            let status = match stream.next().await {
                None => return Ok(()),
                Some(Ok(message)) => {
                    outage = None;
                    moved = 0;
                    resume_after(&mut request, &message);
                    show(message, json)?;
                    continue;
                }
                Some(Err(status)) => status,
            };
            if let Some(after_seq) = crate::resume::after_fell_behind(&status, "after_seq") {
                // Cut for reading too slowly (a paused terminal): every
                // event queued before the cut arrived, so watch on after
                // the last of them, on the same server.
                request.after_seq = Some(after_seq);
                request.from_version = None;
                break;
            }
            if crate::resume::match_moved(&status) && moved < MOVED_RETRIES {
                // Another host of the server's database serves the match
                // now: every event sent was stored, so watch on after the
                // last, through the same server, which relays it.
                moved += 1;
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                break;
            }
            if servers.several() && server_gone(&status) {
                servers.move_on(at, &mut outage, status.into()).await?;
                break;
            }
            return Err(status.into());
        }
    }
}

/// How many times in a row a watch resumes after MATCH_MOVED (every 200 ms).
const MOVED_RETRIES: u32 = 50;

/// Moves the request's resume point past `message`: after its event, or
/// after the version a snapshot showed.
fn resume_after(request: &mut pb::WatchMatchRequest, message: &pb::WatchEvent) {
    if message.seq > 0 {
        request.after_seq = Some(message.seq);
        request.from_version = None;
    } else if request.after_seq.is_none() {
        request.from_version = Some(message.version);
    }
}

/// Prints one message of the stream.
fn show(message: pb::WatchEvent, json: bool) -> CliResult {
    let (event, view) = match message.kind {
        Some(pb::watch_event::Kind::Snapshot(view)) => (None, Some(view)),
        Some(pb::watch_event::Kind::Transition(t)) => (Some(t.event_json), t.view),
        Some(pb::watch_event::Kind::SeatActed(a)) => {
            if json {
                print_json(&serde_json::json!({
                    "version": message.version, "seat_acted": a.seat,
                }));
            } else {
                outln!("seat {} has acted", a.seat);
            }
            return Ok(());
        }
        None => return Ok(()),
    };
    if json {
        print_json(&serde_json::json!({
            "version": message.version,
            "event": event.and_then(|e| serde_json::from_str::<serde_json::Value>(&e).ok()),
            "view": view.as_ref().map(render::view_json),
        }));
    } else if let Some(view) = view {
        out!("{CLEAR_SCREEN}{}", render::view_text(&view));
        if let Some(event) = event {
            outln!("last: {event}");
        }
        std::io::stdout().flush()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resumed_watch_starts_after_the_last_event_or_the_snapshots_version() {
        let mut request = pb::WatchMatchRequest::default();
        let snapshot = pb::WatchEvent {
            version: 4,
            seq: 0,
            ..Default::default()
        };
        resume_after(&mut request, &snapshot);
        assert_eq!((request.from_version, request.after_seq), (Some(4), None));
        let event = pb::WatchEvent {
            version: 5,
            seq: 9,
            ..Default::default()
        };
        resume_after(&mut request, &event);
        assert_eq!((request.from_version, request.after_seq), (None, Some(9)));
    }
}
