//! The arena's watchers without a seat: spectators, who watch a random
//! live match without a token to its end and then another (resuming from
//! their cursor when the server cuts them as fallen behind), and stalled
//! clients, who open a stream on a random live match and never read it.
//!
//! A stalled stream is held without being polled, on connections of its
//! own whose HTTP/2 windows are small: hyper's client reads a stream's
//! bytes into its buffers up to the window whether or not anyone polls,
//! so with the default windows the "stalled" client would still take
//! megabytes off the server; with small ones the server's sends really
//! stop. At the end each stalled stream is read, to learn whether the
//! server cut it (STREAM_FELL_BEHIND), ended it, or left it open.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::StdRng;
use tabletop_proto::v1 as pb;
use tabletop_proto::v1::watch_client::WatchClient;
use tokio::sync::watch;
use tokio_stream::StreamExt;
use tonic::Streaming;
use tonic::transport::Channel;

use super::platform::LiveMatches;
use super::tally::{Caller, Rpc, Tally, fell_behind};

/// The stalled clients' HTTP/2 stream window, bytes.
pub const STALLED_STREAM_WINDOW: u32 = 16 * 1024;
/// The stalled clients' HTTP/2 connection window, bytes.
pub const STALLED_CONNECTION_WINDOW: u32 = 256 * 1024;

/// Connects `count` connections whose windows are small, for stalled
/// clients.
pub async fn connect_stalled(url: &str, count: usize) -> Result<Vec<Channel>, String> {
    crate::load::connect_with(url, count, |endpoint| {
        endpoint
            .initial_stream_window_size(STALLED_STREAM_WINDOW)
            .initial_connection_window_size(STALLED_CONNECTION_WINDOW)
    })
    .await
}

/// Watches random live matches as a spectator until `stop`.
pub async fn spectate(
    channel: Channel,
    live: Arc<LiveMatches>,
    tally: Arc<Tally>,
    mut stop: watch::Receiver<bool>,
    seed: u64,
) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut client = WatchClient::new(channel);
    while !*stop.borrow() {
        let Some(match_id) = live.pick(&mut rng) else {
            tokio::select! {
                _ = stop.changed() => return,
                _ = tokio::time::sleep(Duration::from_millis(200)) => continue,
            }
        };
        let mut last_seq = 0u64;
        let mut failures = 0u32;
        // One match, resumed after each cut, until it ends.
        'watching: while failures < 5 {
            let request = pb::WatchMatchRequest {
                match_id: match_id.clone(),
                after_seq: (last_seq > 0).then_some(last_seq),
                ..Default::default()
            };
            let start = Instant::now();
            let opened = client.watch_match(request).await;
            tally.rpc(Rpc::WatchMatch, start.elapsed(), tally.players());
            let mut stream = match opened {
                Ok(s) => s.into_inner(),
                Err(status) => {
                    tally.error(Caller::Honest, &status);
                    failures += 1;
                    tokio::time::sleep(Duration::from_millis(100 << failures)).await;
                    continue;
                }
            };
            tally.spectator_streams.fetch_add(1, Ordering::Relaxed);
            loop {
                let next = tokio::select! {
                    _ = stop.changed() => return,
                    next = stream.next() => next,
                };
                match next {
                    Some(Ok(event)) => last_seq = tally.check_seq(last_seq, event.seq),
                    Some(Err(status)) if fell_behind(&status) => {
                        tally.resumed_watch.fetch_add(1, Ordering::Relaxed);
                        continue 'watching;
                    }
                    Some(Err(status)) => {
                        tally.error(Caller::Honest, &status);
                        failures += 1;
                        continue 'watching;
                    }
                    None => break 'watching,
                }
            }
        }
    }
}

/// Opens a stream on a random live match and returns it unread (`None` if
/// there was no live match or the host refused it).
pub async fn open_stalled(
    channel: Channel,
    live: &LiveMatches,
    tally: &Tally,
    rng: &mut StdRng,
) -> Option<Streaming<pb::WatchEvent>> {
    let match_id = live.pick(rng)?;
    let request = pb::WatchMatchRequest {
        match_id,
        ..Default::default()
    };
    let start = Instant::now();
    let opened = WatchClient::new(channel).watch_match(request).await;
    tally.rpc(Rpc::WatchMatch, start.elapsed(), tally.players());
    match opened {
        Ok(stream) => {
            tally.stalled_opened.fetch_add(1, Ordering::Relaxed);
            Some(stream.into_inner())
        }
        Err(status) => {
            tally.error(Caller::Stalled, &status);
            None
        }
    }
}

/// Reads every stalled stream at the end for at most `within`: counts
/// those the server cut as fallen behind, those that ended, and those
/// still open.
pub async fn settle_stalled(
    streams: Vec<Streaming<pb::WatchEvent>>,
    tally: &Arc<Tally>,
    within: Duration,
) {
    let mut tasks = tokio::task::JoinSet::new();
    let deadline = tokio::time::Instant::now() + within;
    for mut stream in streams {
        let tally = tally.clone();
        tasks.spawn(async move {
            loop {
                match tokio::time::timeout_at(deadline, stream.next()).await {
                    Ok(Some(Ok(_))) => {}
                    Ok(Some(Err(status))) => {
                        if fell_behind(&status) {
                            tally.stalled_cut.fetch_add(1, Ordering::Relaxed);
                        } else {
                            tally.error(Caller::Stalled, &status);
                        }
                        return;
                    }
                    Ok(None) => {
                        tally.stalled_ended.fetch_add(1, Ordering::Relaxed);
                        return;
                    }
                    Err(_) => {
                        tally.stalled_still_open.fetch_add(1, Ordering::Relaxed);
                        return;
                    }
                }
            }
        });
    }
    while tasks.join_next().await.is_some() {}
}
