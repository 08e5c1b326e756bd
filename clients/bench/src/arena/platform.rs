//! The platform's side of an arena on one host: the pool where free players
//! wait, the pairing loop that creates a match (request id, labels, bots in
//! some seats) as soon as enough of them wait, the registry of live matches
//! spectators pick from, and the lifecycle feed that tells the platform
//! which matches ended (and how late it tells it).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tabletop_proto::v1 as pb;
use tabletop_proto::v1::director_client::DirectorClient;
use tabletop_proto::v1::matches_client::MatchesClient;
use tokio::sync::{mpsc, oneshot, watch};
use tokio_stream::StreamExt;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::transport::Channel;

use super::tally::{Caller, Rpc, Tally, fell_behind};

/// A seat a player was given: the match, its seat and token, and the
/// acknowledgement marks the match's players share.
#[derive(Debug)]
pub struct Seating {
    pub match_id: String,
    pub seat: u32,
    pub token: String,
    pub marks: Arc<MoveMarks>,
}

/// A player waiting in the pool, answered with a seat.
pub type Waiting = oneshot::Sender<Seating>;

/// When each version of a match was acknowledged to the seat that made it
/// and when its other seats' streams received it: both in this process,
/// so on one clock.
#[derive(Debug, Default)]
pub struct MoveMarks {
    versions: Mutex<HashMap<u64, VersionMark>>,
}

#[derive(Debug, Default)]
struct VersionMark {
    acked: Option<(u32, Instant)>,
    /// Seats whose stream received the version before it was acknowledged.
    seen_early: Vec<u32>,
    /// Seats already counted.
    counted: HashSet<u32>,
}

impl MoveMarks {
    /// `seat`'s SubmitAction producing `version` was acknowledged now.
    pub fn acked(&self, version: u64, seat: u32, tally: &Tally) {
        let now = Instant::now();
        let mut versions = self.versions.lock().unwrap_or_else(|e| e.into_inner());
        let mark = versions.entry(version).or_default();
        mark.acked = Some((seat, now));
        for early in std::mem::take(&mut mark.seen_early) {
            if early != seat && mark.counted.insert(early) {
                tally.move_to_opponent(Duration::ZERO);
            }
        }
    }

    /// `seat`'s stream received `version` now.
    pub fn seen(&self, version: u64, seat: u32, tally: &Tally) {
        let now = Instant::now();
        let mut versions = self.versions.lock().unwrap_or_else(|e| e.into_inner());
        let mark = versions.entry(version).or_default();
        match mark.acked {
            Some((mover, _)) if mover == seat => {}
            Some((_, at)) => {
                if mark.counted.insert(seat) {
                    tally.move_to_opponent(now.saturating_duration_since(at));
                }
            }
            None => mark.seen_early.push(seat),
        }
    }
}

/// The live matches of one host, for spectators and stalled clients to
/// pick from.
#[derive(Debug, Default)]
pub struct LiveMatches {
    inner: Mutex<(Vec<String>, HashMap<String, usize>)>,
}

impl LiveMatches {
    fn add(&self, id: String) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let (ids, index) = &mut *inner;
        if !index.contains_key(&id) {
            index.insert(id.clone(), ids.len());
            ids.push(id);
        }
    }

    fn remove(&self, id: &str) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let (ids, index) = &mut *inner;
        if let Some(at) = index.remove(id) {
            ids.swap_remove(at);
            if let Some(moved) = ids.get(at) {
                index.insert(moved.clone(), at);
            }
        }
    }

    /// A live match at random, if any.
    pub fn pick(&self, rng: &mut StdRng) -> Option<String> {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if inner.0.is_empty() {
            return None;
        }
        Some(inner.0[rng.random_range(0..inner.0.len())].clone())
    }
}

/// How the platform creates its matches.
#[derive(Debug, Clone)]
pub struct Pairing {
    pub game: String,
    pub seats: u32,
    /// `arena=<run id>`, on every match and the feed's filter.
    pub run_id: String,
    /// Share of seats a server-side bot plays.
    pub bot_share: f64,
    pub bot_spec: String,
    /// `Bearer SECRET` of the platform's credential; `None`: anonymous.
    pub bearer: Option<MetadataValue<Ascii>>,
    pub seed: u64,
    /// The game's options for every match (`max_turns` makes matches end
    /// and their players pair again within a run).
    pub options: std::collections::HashMap<String, String>,
}

/// Creations in flight at once: a ramp step seats its players quickly
/// without one call per player at once.
const CREATES_IN_FLIGHT: usize = 32;

/// Pairs waiting players into matches until `stop`: each match has one
/// bot seat with probability `seats × bot_share` (at most 1), so that
/// share of all seats is a bot's, and the rest are the players who waited
/// longest.
pub async fn pairing_loop(
    channels: Vec<Channel>,
    pairing: Pairing,
    mut pool: mpsc::UnboundedReceiver<Waiting>,
    live: Arc<LiveMatches>,
    tally: Arc<Tally>,
    mut stop: watch::Receiver<bool>,
) {
    let mut rng = StdRng::seed_from_u64(pairing.seed);
    let slots = Arc::new(tokio::sync::Semaphore::new(CREATES_IN_FLIGHT));
    let mut waiting: Vec<Waiting> = Vec::new();
    let bot_chance = (f64::from(pairing.seats) * pairing.bot_share).clamp(0.0, 1.0);
    let mut bot_next = rng.random_bool(bot_chance);
    let mut created = 0u64;
    let (back_tx, mut back_rx) = mpsc::unbounded_channel::<Vec<Waiting>>();
    loop {
        tokio::select! {
            _ = stop.changed() => return,
            next = pool.recv() => match next {
                Some(player) => waiting.push(player),
                None => return,
            },
            // Players of a creation that failed wait again, first in line.
            Some(back) = back_rx.recv() => {
                let rest = std::mem::take(&mut waiting);
                waiting = back;
                waiting.extend(rest);
            }
        }
        waiting.retain(|w| !w.is_closed());
        loop {
            let humans = (pairing.seats - u32::from(bot_next)).max(1) as usize;
            if waiting.len() < humans {
                break;
            }
            let players: Vec<Waiting> = waiting.drain(..humans).collect();
            let Ok(slot) = slots.clone().acquire_owned().await else {
                return;
            };
            created += 1;
            let request = pb::CreateMatchRequest {
                game: pairing.game.clone(),
                players: pairing.seats,
                labels: [("arena".to_string(), pairing.run_id.clone())].into(),
                options: pairing.options.clone(),
                request_id: format!("{}-{created}", pairing.run_id),
                view_detail: pb::ViewDetail::Summary as i32,
                bots: if bot_next {
                    vec![pb::SeatBot {
                        seat: pairing.seats - 1,
                        spec: pairing.bot_spec.clone(),
                    }]
                } else {
                    Vec::new()
                },
                ..Default::default()
            };
            let mut client =
                MatchesClient::new(channels[created as usize % channels.len()].clone());
            let (bearer, live, tally, back) = (
                pairing.bearer.clone(),
                live.clone(),
                tally.clone(),
                back_tx.clone(),
            );
            tokio::spawn(async move {
                let _slot = slot;
                if let Err(players) =
                    create(&mut client, request, bearer, players, &live, &tally).await
                {
                    // Do not spin on a host that refuses: wait, then retry.
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    let _ = back.send(players);
                }
            });
            bot_next = rng.random_bool(bot_chance);
        }
    }
}

/// Creates one match (retrying the same request id once on a transport
/// failure, as a platform would) and hands its seats to `players`; gives
/// the players back if it failed.
async fn create(
    client: &mut MatchesClient<Channel>,
    request: pb::CreateMatchRequest,
    bearer: Option<MetadataValue<Ascii>>,
    players: Vec<Waiting>,
    live: &LiveMatches,
    tally: &Tally,
) -> Result<(), Vec<Waiting>> {
    let mut last = None;
    for _attempt in 0..2 {
        let mut call = tonic::Request::new(request.clone());
        if let Some(bearer) = &bearer {
            call.metadata_mut().insert("authorization", bearer.clone());
        }
        let start = Instant::now();
        let result = client.create_match(call).await;
        tally.rpc(Rpc::CreateMatch, start.elapsed(), tally.players());
        match result {
            Ok(response) => {
                last = Some(response.into_inner());
                break;
            }
            Err(status) => {
                tally.error(Caller::Platform, &status);
                if status.code() != tonic::Code::Unavailable {
                    break;
                }
            }
        }
    }
    let Some(created) = last else {
        return Err(players);
    };
    tally.matches_created.fetch_add(1, Ordering::Relaxed);
    live.add(created.match_id.clone());
    let marks = Arc::new(MoveMarks::default());
    let mut seats = created.seats.into_iter();
    for player in players {
        let Some(seat) = seats.next() else { break };
        let _ = player.send(Seating {
            match_id: created.match_id.clone(),
            seat: seat.seat,
            token: seat.token,
            marks: marks.clone(),
        });
    }
    Ok(())
}

/// Follows the lifecycle feed of the run's matches until `stop`: a match
/// that ended leaves the live registry; every event's lag (its `at_ms` to
/// now) is recorded. A cut as fallen behind resumes from the last cursor.
pub async fn follow_feed(
    channel: Channel,
    bearer: MetadataValue<Ascii>,
    run_id: String,
    live: Arc<LiveMatches>,
    tally: Arc<Tally>,
    mut stop: watch::Receiver<bool>,
) {
    let mut director = DirectorClient::new(channel);
    let mut cursor = 0u64;
    let mut failures = 0u32;
    while !*stop.borrow() {
        let mut request = tonic::Request::new(pb::FollowLifecycleRequest {
            after_cursor: cursor,
            labels: [("arena".to_string(), run_id.clone())].into(),
            ..Default::default()
        });
        request
            .metadata_mut()
            .insert("authorization", bearer.clone());
        let start = Instant::now();
        let opened = director.follow_lifecycle(request).await;
        tally.rpc(Rpc::FollowLifecycle, start.elapsed(), tally.players());
        let mut feed = match opened {
            Ok(feed) => feed.into_inner(),
            Err(status) => {
                tally.error(Caller::Platform, &status);
                failures += 1;
                if failures > 20 {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(500)).await;
                continue;
            }
        };
        loop {
            let next = tokio::select! {
                _ = stop.changed() => return,
                next = feed.next() => next,
            };
            match next {
                Some(Ok(event)) => {
                    cursor = cursor.max(event.cursor);
                    let now_ms = SystemTime::now()
                        .duration_since(UNIX_EPOCH)
                        .map_or(0, |d| d.as_millis() as i64);
                    let lag_ms = u64::try_from(now_ms - event.at_ms).unwrap_or(0);
                    tally.feed_lag(Duration::from_millis(lag_ms));
                    use pb::lifecycle_event::Kind;
                    if matches!(
                        event.kind,
                        Some(Kind::Finished(_) | Kind::Aborted(_) | Kind::Unavailable(_))
                    ) {
                        live.remove(&event.match_id);
                        tally.matches_ended.fetch_add(1, Ordering::Relaxed);
                    }
                }
                Some(Err(status)) if fell_behind(&status) => {
                    tally.resumed_feed.fetch_add(1, Ordering::Relaxed);
                    break;
                }
                Some(Err(status)) => {
                    tally.error(Caller::Platform, &status);
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    break;
                }
                None => break,
            }
        }
    }
}
