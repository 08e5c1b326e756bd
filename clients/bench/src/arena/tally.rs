//! What an arena run counts, shared by every task of it: latencies per RPC
//! and per ramp step, move-to-opponent's-stream and feed lag, refusals by
//! code and `google.rpc.ErrorInfo` reason (an honest client's apart from a
//! stalled one's), resumed streams, and the cursor checks of resumed
//! streams (events lost or told twice).

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use hdrhistogram::Histogram;
use serde::Serialize;
use tonic_types::StatusExt;

use crate::stats::{self, Latency};

/// The reason of a cut a client can resume from its own cursor.
pub const FELL_BEHIND: &str = "STREAM_FELL_BEHIND";

/// Who made a call, for the error table: the target is zero failed calls
/// for players and spectators; a stalled client's cuts are expected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Caller {
    /// A player or a spectator.
    Honest,
    /// A client that never reads its stream.
    Stalled,
    /// The platform: the pairing loop and the lifecycle feed.
    Platform,
}

/// The calls timed, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rpc {
    CreateMatch,
    ListLegalActions,
    SubmitAction,
    /// Until the stream's response headers (the stream is open).
    WatchMatch,
    /// Until the feed's response headers.
    FollowLifecycle,
}

impl Rpc {
    fn name(self) -> &'static str {
        match self {
            Rpc::CreateMatch => "CreateMatch",
            Rpc::ListLegalActions => "ListLegalActions",
            Rpc::SubmitAction => "SubmitAction",
            Rpc::WatchMatch => "WatchMatch",
            Rpc::FollowLifecycle => "FollowLifecycle",
        }
    }
}

/// The code and `ErrorInfo` reason of a failed call (`-` without one).
pub fn reason_of(status: &tonic::Status) -> (String, String) {
    let code = format!("{:?}", status.code());
    match status.get_error_details().error_info() {
        Some(info) => (code, info.reason.clone()),
        None => (code, "-".to_string()),
    }
}

/// Whether `status` is a cut the client resumes from its own cursor.
pub fn fell_behind(status: &tonic::Status) -> bool {
    status.code() == tonic::Code::Unavailable
        && status
            .get_error_details()
            .error_info()
            .is_some_and(|info| info.reason == FELL_BEHIND)
}

/// Every counter of a run.
#[derive(Debug, Default)]
pub struct Tally {
    /// Players seated so far (the ramp's current step).
    pub players_now: AtomicUsize,
    /// Acknowledged SubmitActions.
    pub actions: AtomicU64,
    /// Matches created.
    pub matches_created: AtomicU64,
    /// Matches the feed reported finished or aborted.
    pub matches_ended: AtomicU64,
    /// Streams a player dropped on purpose and watched again from its cursor.
    pub reconnects: AtomicU64,
    /// Honest Watch streams cut as fallen behind and resumed.
    pub resumed_watch: AtomicU64,
    /// Lifecycle feed cuts resumed.
    pub resumed_feed: AtomicU64,
    /// Events skipped on a stream (a seq more than one past the last).
    pub lost_events: AtomicU64,
    /// Events told twice on a stream (a seq at or below the last).
    pub duplicated_events: AtomicU64,
    /// Stalled streams opened.
    pub stalled_opened: AtomicU64,
    /// Stalled streams the server cut as fallen behind.
    pub stalled_cut: AtomicU64,
    /// Stalled streams that ended normally once read at the end.
    pub stalled_ended: AtomicU64,
    /// Stalled streams still open at the end.
    pub stalled_still_open: AtomicU64,
    /// Spectator streams opened.
    pub spectator_streams: AtomicU64,
    latencies: Mutex<BTreeMap<Rpc, Histogram<u64>>>,
    submit_by_step: Mutex<BTreeMap<usize, Histogram<u64>>>,
    move_to_opponent: Mutex<Option<Histogram<u64>>>,
    feed_lag: Mutex<Option<Histogram<u64>>>,
    errors: Mutex<BTreeMap<(Caller, String), u64>>,
}

fn add_to(slot: &Mutex<Option<Histogram<u64>>>, latency: Duration) {
    let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
    stats::record(slot.get_or_insert_with(stats::new_histogram), latency);
}

impl Tally {
    /// Records a call's latency; a SubmitAction's also under the players
    /// seated when it was sent.
    pub fn rpc(&self, rpc: Rpc, latency: Duration, players_at_send: usize) {
        let mut all = self.latencies.lock().unwrap_or_else(|e| e.into_inner());
        stats::record(all.entry(rpc).or_insert_with(stats::new_histogram), latency);
        drop(all);
        if rpc == Rpc::SubmitAction {
            let mut steps = self
                .submit_by_step
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            let h = steps
                .entry(players_at_send)
                .or_insert_with(stats::new_histogram);
            stats::record(h, latency);
        }
    }

    /// The players seated now.
    pub fn players(&self) -> usize {
        self.players_now.load(Ordering::Relaxed)
    }

    /// Records the time from a move's acknowledgement to an opponent's
    /// stream receiving it.
    pub fn move_to_opponent(&self, latency: Duration) {
        add_to(&self.move_to_opponent, latency);
    }

    /// Records how long after its `at_ms` a feed event arrived.
    pub fn feed_lag(&self, latency: Duration) {
        add_to(&self.feed_lag, latency);
    }

    /// Counts a failed call of `caller`.
    pub fn error(&self, caller: Caller, status: &tonic::Status) {
        let (code, reason) = reason_of(status);
        *self
            .errors
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry((caller, format!("{code}/{reason}")))
            .or_default() += 1;
    }

    /// Checks a stream's next event against the last seq it told (0: none
    /// yet, or a snapshot): counts a gap as lost events and a repeat as a
    /// duplicate. Returns the new last seq.
    pub fn check_seq(&self, last_seq: u64, seq: u64) -> u64 {
        if seq == 0 {
            return last_seq;
        }
        if last_seq > 0 {
            if seq <= last_seq {
                self.duplicated_events.fetch_add(1, Ordering::Relaxed);
                return last_seq;
            }
            if seq > last_seq + 1 {
                self.lost_events
                    .fetch_add(seq - last_seq - 1, Ordering::Relaxed);
            }
        }
        seq
    }

    /// The figures so far.
    pub fn summary(&self, ceiling: Duration, min_samples: u64) -> TallySummary {
        let rpcs = self
            .latencies
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|(rpc, h)| (rpc.name().to_string(), Latency::of(h)))
            .collect();
        let steps: Vec<RampStep> = self
            .submit_by_step
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|(&players, h)| RampStep {
                players,
                submit: Latency::of(h),
            })
            .collect();
        let ceiling_us = ceiling.as_micros() as u64;
        let passed_at = steps
            .iter()
            .find(|s| s.submit.count >= min_samples && s.submit.p99 > ceiling_us)
            .map(|s| s.players);
        let mut errors = ErrorTable::default();
        for ((caller, key), &n) in self.errors.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            let table = match caller {
                Caller::Honest => &mut errors.honest,
                Caller::Stalled => &mut errors.stalled,
                Caller::Platform => &mut errors.platform,
            };
            table.insert(key.clone(), n);
        }
        let of = |slot: &Mutex<Option<Histogram<u64>>>| {
            slot.lock()
                .unwrap_or_else(|e| e.into_inner())
                .as_ref()
                .map(Latency::of)
                .unwrap_or_default()
        };
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
        TallySummary {
            honest_failures: errors.honest.values().sum(),
            rpc_latency_us: rpcs,
            move_to_opponent_stream_us: of(&self.move_to_opponent),
            feed_lag_us: of(&self.feed_lag),
            errors,
            ramp_steps: steps,
            submit_p99_passed_ceiling_at_players: passed_at,
            actions: load(&self.actions),
            matches_created: load(&self.matches_created),
            matches_ended: load(&self.matches_ended),
            reconnects: load(&self.reconnects),
            resumed_watch_streams: load(&self.resumed_watch),
            resumed_feed: load(&self.resumed_feed),
            lost_events: load(&self.lost_events),
            duplicated_events: load(&self.duplicated_events),
            spectator_streams: load(&self.spectator_streams),
            stalled: StalledSummary {
                opened: load(&self.stalled_opened),
                cut_fell_behind: load(&self.stalled_cut),
                ended: load(&self.stalled_ended),
                still_open: load(&self.stalled_still_open),
            },
        }
    }
}

/// Failed calls by `code/reason`, per kind of caller.
#[derive(Debug, Default, Serialize)]
pub struct ErrorTable {
    /// Players and spectators: the target is none.
    pub honest: BTreeMap<String, u64>,
    /// Clients that never read: their cuts are expected.
    pub stalled: BTreeMap<String, u64>,
    /// The pairing loop and the feed.
    pub platform: BTreeMap<String, u64>,
}

/// SubmitAction's latency while a number of players were seated.
#[derive(Debug, Serialize)]
pub struct RampStep {
    /// Players seated when the calls were sent.
    pub players: usize,
    /// Their SubmitAction latency, µs.
    pub submit: Latency,
}

/// What became of the stalled streams.
#[derive(Debug, Default, Serialize)]
pub struct StalledSummary {
    /// Opened.
    pub opened: u64,
    /// Cut by the server as fallen behind (STREAM_FELL_BEHIND).
    pub cut_fell_behind: u64,
    /// Ended normally (their match finished and everything fitted).
    pub ended: u64,
    /// Still open, neither cut nor ended, when read at the end.
    pub still_open: u64,
}

/// The counters at the end of a run.
#[derive(Debug, Serialize)]
pub struct TallySummary {
    /// Per RPC, latency in µs.
    pub rpc_latency_us: BTreeMap<String, Latency>,
    /// From a SubmitAction's acknowledgement to the opponent's stream
    /// receiving that version (0 when the stream was first), µs.
    pub move_to_opponent_stream_us: Latency,
    /// From a lifecycle event's `at_ms` to its arrival, µs (ms precision).
    pub feed_lag_us: Latency,
    /// Failed calls.
    pub errors: ErrorTable,
    /// Of them, the players' and spectators'.
    pub honest_failures: u64,
    /// SubmitAction per ramp step.
    pub ramp_steps: Vec<RampStep>,
    /// The players seated at the first step whose SubmitAction p99 passed
    /// the ceiling; `None`: not reached.
    pub submit_p99_passed_ceiling_at_players: Option<usize>,
    /// Acknowledged actions.
    pub actions: u64,
    /// Matches created.
    pub matches_created: u64,
    /// Matches the feed reported ended.
    pub matches_ended: u64,
    /// Player streams dropped on purpose and resumed from their cursor.
    pub reconnects: u64,
    /// Honest streams cut as fallen behind and resumed.
    pub resumed_watch_streams: u64,
    /// Feed cuts resumed.
    pub resumed_feed: u64,
    /// Events a stream skipped (errors).
    pub lost_events: u64,
    /// Events a stream told twice (errors).
    pub duplicated_events: u64,
    /// Spectator streams opened.
    pub spectator_streams: u64,
    /// The stalled clients.
    pub stalled: StalledSummary,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gap_counts_lost_events_and_a_repeat_a_duplicate() {
        let tally = Tally::default();
        let mut last = 0;
        for seq in [0, 5, 6, 9, 9, 7, 10] {
            last = tally.check_seq(last, seq);
        }
        assert_eq!(last, 10);
        assert_eq!(tally.lost_events.load(Ordering::Relaxed), 2);
        assert_eq!(tally.duplicated_events.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn the_ceiling_is_the_first_step_past_it_with_enough_samples() {
        let tally = Tally::default();
        for (players, ms, n) in [
            (100, 1, 200),
            (200, 500, 5),
            (300, 150, 200),
            (400, 300, 200),
        ] {
            for _ in 0..n {
                tally.rpc(Rpc::SubmitAction, Duration::from_millis(ms), players);
            }
        }
        let summary = tally.summary(Duration::from_millis(100), 100);
        assert_eq!(summary.submit_p99_passed_ceiling_at_players, Some(300));
        assert_eq!(summary.ramp_steps.len(), 4);
        assert_eq!(summary.rpc_latency_us["SubmitAction"].count, 605);
        let none = tally.summary(Duration::from_secs(1), 100);
        assert_eq!(none.submit_p99_passed_ceiling_at_players, None);
    }

    #[test]
    fn a_cut_as_fallen_behind_is_read_from_its_error_info() {
        let info = |code, reason: &str| {
            tonic::Status::with_error_details(
                code,
                "cut",
                tonic_types::ErrorDetails::with_error_info(
                    reason,
                    "tabletop",
                    [("after_seq".to_string(), "41".to_string())],
                ),
            )
        };
        let cut = info(tonic::Code::Unavailable, FELL_BEHIND);
        assert!(fell_behind(&cut));
        let (code, reason) = reason_of(&cut);
        assert_eq!(
            (code.as_str(), reason.as_str()),
            ("Unavailable", FELL_BEHIND)
        );
        assert!(!fell_behind(&info(
            tonic::Code::Unavailable,
            "SHUTTING_DOWN"
        )));
        assert!(!fell_behind(&info(
            tonic::Code::ResourceExhausted,
            FELL_BEHIND
        )));
        assert!(!fell_behind(&tonic::Status::unavailable("no details")));
    }

    #[test]
    fn an_error_is_filed_under_its_caller_code_and_reason() {
        let tally = Tally::default();
        tally.error(Caller::Stalled, &tonic::Status::unavailable("cut"));
        tally.error(Caller::Honest, &tonic::Status::not_found("gone"));
        let summary = tally.summary(Duration::from_millis(100), 1);
        assert_eq!(summary.errors.stalled.get("Unavailable/-"), Some(&1));
        assert_eq!(summary.honest_failures, 1);
    }
}
