//! `tabletop events`: a match's past events, page by page.

use tabletop_proto::v1 as pb;
use tabletop_proto::v1::watch_client::WatchClient;

use crate::error::CliResult;
use crate::failover::{Retry, Servers};

/// Events asked for per call.
const PAGE: u32 = 200;

/// Prints every event after `from` as the token's holder (or a spectator)
/// was told it: one line each, or one JSON object per line with `--json`.
pub async fn list(
    servers: &Servers,
    match_id: String,
    token: String,
    from: u64,
    json: bool,
) -> CliResult {
    let mut after = from;
    loop {
        let request = pb::ListEventsRequest {
            match_id: match_id.clone(),
            seat_token: token.clone(),
            after_seq: after,
            from_version: None,
            page_size: PAGE,
            include_views: false,
        };
        let page = servers
            .call(Retry::Safe, request, |c, r| async move {
                WatchClient::new(c).list_events(r).await
            })
            .await?;
        for event in &page.events {
            print_event(event, json);
            after = event.seq;
        }
        if page.events.is_empty() || after >= page.last_seq {
            return Ok(());
        }
    }
}

fn print_event(event: &pb::WatchEvent, json: bool) {
    let (what, described) = match &event.kind {
        Some(pb::watch_event::Kind::Transition(t)) => (
            serde_json::from_str(&t.event_json).unwrap_or(serde_json::Value::Null),
            t.event_json.clone(),
        ),
        Some(pb::watch_event::Kind::SeatActed(a)) => (
            serde_json::json!({ "type": "seat_acted", "seat": a.seat }),
            format!("seat {} has acted", a.seat),
        ),
        Some(pb::watch_event::Kind::Snapshot(_)) | None => return,
    };
    if json {
        let line = serde_json::json!({
            "seq": event.seq,
            "version": event.version,
            "at_ms": event.at_ms,
            "event": what,
        });
        outln!("{line}");
    } else {
        outln!("#{} v{} {}", event.seq, event.version, described);
    }
}
