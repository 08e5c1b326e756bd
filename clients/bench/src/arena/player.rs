//! One arena player: waits in the pool for a seat, watches its own seat's
//! stream, and when the stream shows it is to move, thinks (a log-normal
//! time) and answers with a random legal action (ListLegalActions, then
//! SubmitAction with the expected version). Some players drop their stream
//! mid-match and watch again from their cursor (`after_seq`); a stream cut
//! as fallen behind is resumed the same way. Every event's seq is checked
//! against the last one: a gap is an event lost, a repeat one told twice.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tabletop_proto::v1 as pb;
use tabletop_proto::v1::matches_client::MatchesClient;
use tabletop_proto::v1::watch_client::WatchClient;
use tokio::sync::{mpsc, oneshot, watch};
use tokio_stream::StreamExt;
use tonic::Streaming;
use tonic::transport::Channel;

use super::platform::{Seating, Waiting};
use super::tally::{Caller, Rpc, Tally, fell_behind};

/// A log-normal think time: `median × e^(sigma·Z)`, Z standard normal.
#[derive(Debug, Clone, Copy)]
pub struct ThinkTime {
    pub median: Duration,
    pub sigma: f64,
}

impl ThinkTime {
    /// One draw, at most a minute.
    pub fn draw(&self, rng: &mut StdRng) -> Duration {
        // Box–Muller: two uniform draws make one standard normal.
        let u1: f64 = rng.random_range(f64::MIN_POSITIVE..1.0);
        let u2: f64 = rng.random();
        let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        let secs = self.median.as_secs_f64() * (self.sigma * z).exp();
        Duration::from_secs_f64(secs.min(60.0))
    }
}

/// What every player of a host shares.
#[derive(Debug, Clone)]
pub struct PlayerSetup {
    pub pool: mpsc::UnboundedSender<Waiting>,
    pub think: ThinkTime,
    /// Chance that a player drops and resumes its stream in a match.
    pub reconnect_share: f64,
    pub tally: Arc<Tally>,
    pub stop: watch::Receiver<bool>,
}

/// Plays matches one after another until stopped.
pub async fn play(channel: Channel, setup: PlayerSetup, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut stop = setup.stop.clone();
    let mut matches = MatchesClient::new(channel.clone());
    let mut watcher = WatchClient::new(channel);
    while !*stop.borrow() {
        let (reply, seated) = oneshot::channel();
        if setup.pool.send(reply).is_err() {
            return;
        }
        let seating = tokio::select! {
            _ = stop.changed() => return,
            seating = seated => match seating {
                Ok(s) => s,
                Err(_) => return,
            },
        };
        let mut game = Game {
            seating,
            setup: &setup,
            rng: &mut rng,
            matches: &mut matches,
            watcher: &mut watcher,
            last_seq: 0,
            view: None,
            acted_at_version: None,
        };
        game.play(&mut stop).await;
    }
}

/// How many times in a row a player's stream may fail to open before it
/// leaves the match.
const OPEN_ATTEMPTS: u32 = 5;

/// One match of one player.
struct Game<'a> {
    seating: Seating,
    setup: &'a PlayerSetup,
    rng: &'a mut StdRng,
    matches: &'a mut MatchesClient<Channel>,
    watcher: &'a mut WatchClient<Channel>,
    /// The last event's seq this seat's streams told (0: none yet).
    last_seq: u64,
    /// The match as this seat last saw it.
    view: Option<pb::MatchView>,
    /// The version this seat last moved at (not to move twice at it).
    acted_at_version: Option<u64>,
}

impl Game<'_> {
    async fn play(&mut self, stop: &mut watch::Receiver<bool>) {
        let tally = self.setup.tally.clone();
        // Some players drop their stream after this many events.
        let mut reconnect_after = self
            .rng
            .random_bool(self.setup.reconnect_share.clamp(0.0, 1.0))
            .then(|| self.rng.random_range(2..12u32));
        let mut events = 0u32;
        let Some(mut stream) = self.open().await else {
            return;
        };
        let mut think_until: Option<Instant> = None;
        loop {
            let next = tokio::select! {
                _ = stop.changed() => return,
                next = stream.next() => Some(next),
                _ = sleep_until(think_until), if think_until.is_some() => None,
            };
            match next {
                None => {
                    think_until = None;
                    self.act().await;
                }
                Some(Some(Ok(event))) => {
                    self.last_seq = tally.check_seq(self.last_seq, event.seq);
                    self.take(event, &tally);
                    events += 1;
                    if reconnect_after.is_some_and(|n| events >= n) {
                        reconnect_after = None;
                        tally.reconnects.fetch_add(1, Ordering::Relaxed);
                        drop(stream);
                        let Some(again) = self.open().await else {
                            return;
                        };
                        stream = again;
                    }
                }
                Some(Some(Err(status))) => {
                    if fell_behind(&status) {
                        tally.resumed_watch.fetch_add(1, Ordering::Relaxed);
                    } else {
                        tally.error(Caller::Honest, &status);
                    }
                    let Some(again) = self.open().await else {
                        return;
                    };
                    stream = again;
                }
                // The stream ends after the match finishes.
                Some(None) => return,
            }
            if self.finished() {
                return;
            }
            if think_until.is_none() && self.to_move() {
                think_until = Some(Instant::now() + self.setup.think.draw(self.rng));
            }
        }
    }

    /// Opens this seat's stream: from the start (a snapshot first), or
    /// after the last seq told.
    async fn open(&mut self) -> Option<Streaming<pb::WatchEvent>> {
        let tally = &self.setup.tally;
        for attempt in 0..OPEN_ATTEMPTS {
            let request = pb::WatchMatchRequest {
                match_id: self.seating.match_id.clone(),
                seat_token: self.seating.token.clone(),
                after_seq: (self.last_seq > 0).then_some(self.last_seq),
                ..Default::default()
            };
            let start = Instant::now();
            let opened = self.watcher.watch_match(request).await;
            tally.rpc(Rpc::WatchMatch, start.elapsed(), tally.players());
            match opened {
                Ok(stream) => return Some(stream.into_inner()),
                Err(status) => {
                    tally.error(Caller::Honest, &status);
                    tokio::time::sleep(Duration::from_millis(100 << attempt)).await;
                }
            }
        }
        None
    }

    /// Takes in one event of the stream.
    fn take(&mut self, event: pb::WatchEvent, tally: &Tally) {
        let view = match event.kind {
            Some(pb::watch_event::Kind::Snapshot(view)) => Some(view),
            Some(pb::watch_event::Kind::Transition(t)) => {
                self.seating
                    .marks
                    .seen(event.version, self.seating.seat, tally);
                t.view
            }
            _ => None,
        };
        if let Some(view) = view
            && self.view.as_ref().is_none_or(|v| view.version >= v.version)
        {
            self.view = Some(view);
        }
    }

    fn finished(&self) -> bool {
        self.view.as_ref().is_some_and(|v| {
            v.state == pb::MatchState::Finished as i32
                || v.state == pb::MatchState::Unavailable as i32
        })
    }

    /// Whether the match, as last seen, waits for this seat at a version
    /// it has not moved at.
    fn to_move(&self) -> bool {
        self.view.as_ref().is_some_and(|v| {
            v.state == pb::MatchState::Running as i32
                && v.to_move.contains(&self.seating.seat)
                && self.acted_at_version != Some(v.version)
        })
    }

    /// Lists this seat's legal actions and submits one at random.
    async fn act(&mut self) {
        if !self.to_move() {
            return;
        }
        let tally = self.setup.tally.clone();
        let request = pb::ListLegalActionsRequest {
            match_id: self.seating.match_id.clone(),
            seat_token: self.seating.token.clone(),
            ids_only: true,
        };
        let start = Instant::now();
        let listed = self.matches.list_legal_actions(request).await;
        tally.rpc(Rpc::ListLegalActions, start.elapsed(), tally.players());
        let legal = match listed {
            Ok(r) => r.into_inner(),
            Err(status) => {
                tally.error(Caller::Honest, &status);
                return;
            }
        };
        if legal.action_ids.is_empty() {
            return;
        }
        let action_id = legal.action_ids[self.rng.random_range(0..legal.action_ids.len())];
        self.acted_at_version = Some(legal.version);
        let request = pb::SubmitActionRequest {
            match_id: self.seating.match_id.clone(),
            seat_token: self.seating.token.clone(),
            action: Some(pb::submit_action_request::Action::ActionId(action_id)),
            expected_version: Some(legal.version),
            view_detail: pb::ViewDetail::Summary as i32,
        };
        let players = tally.players();
        let start = Instant::now();
        let submitted = self.matches.submit_action(request).await;
        tally.rpc(Rpc::SubmitAction, start.elapsed(), players);
        match submitted {
            Ok(r) => {
                tally.actions.fetch_add(1, Ordering::Relaxed);
                if let Some(view) = r.into_inner().view {
                    self.seating
                        .marks
                        .acked(view.version, self.seating.seat, &tally);
                    if self.view.as_ref().is_none_or(|v| view.version > v.version) {
                        self.view = Some(view);
                    }
                }
            }
            Err(status) => {
                tally.error(Caller::Honest, &status);
                // Think again and retry at the same version.
                self.acted_at_version = None;
            }
        }
    }
}

async fn sleep_until(at: Option<Instant>) {
    if let Some(at) = at {
        tokio::time::sleep_until(at.into()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn think_times_have_the_median_asked() {
        let think = ThinkTime {
            median: Duration::from_millis(3000),
            sigma: 0.5,
        };
        let mut rng = StdRng::seed_from_u64(7);
        let mut draws: Vec<Duration> = (0..10_001).map(|_| think.draw(&mut rng)).collect();
        draws.sort();
        let median = draws[5_000].as_secs_f64();
        assert!((2.8..3.2).contains(&median), "{median}");
        assert!(draws[0] < Duration::from_secs(3) && draws[10_000] > Duration::from_secs(3));
    }
}
