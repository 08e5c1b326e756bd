//! The host's bots: seats a bot plays, searched on the bot pool and
//! submitted like any seat's action.
//!
//! A match with a bot seat is *poked* whenever it may need a bot (it was
//! installed, a seat was taken, a change was persisted): its id joins the
//! bot queue, at most once. A bot thread takes the next id and makes one
//! move: under the match's lock it takes a [`BotTurn`] (the match as the
//! bot's seat sees it, resampled; see [`tabletop_core::bot_seat`]), lets go
//! of the lock, searches with `tabletop-mcts`, then submits through
//! [`Match::submit`](tabletop_core::Match::submit) with the version it
//! searched at, so a choice for a match that moved on meanwhile is refused
//! and the match queued again to re-plan. The submit persists like a
//! client's, which pokes the match again if another bot is to act: one move
//! per turn of the queue keeps a long bot-only match from holding a thread.
//!
//! No RPC waits for a bot: calls only poke. The pool has `--bot-threads`
//! threads, which is also the most searches that run at once; the rest wait
//! in the queue. Each bot thread hands its searches to a search thread of
//! its own that runs under `SCHED_IDLE` (nice 19 where that is refused), so
//! a busy machine slows bots before it slows clients; taking the turn and
//! submitting stay on the bot thread, at normal priority, because they take
//! locks the server's threads take too (see `search_thread`).

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use sha2::{Digest, Sha256};
use tabletop_core::{BotTurn, HostError, HostResult, Match};
use tabletop_mcts::Bot;
use tabletop_sdk::ActionId;

use super::live::LiveMatch;
use super::search_thread::Searcher;
use crate::metrics::metrics;
use tabletop_loader::isolation::RemoteState;

/// The longest a bot thinks about one move unless the host is told
/// otherwise (`--bot-max-think-ms`).
pub const DEFAULT_MAX_THINK: Duration = Duration::from_secs(10);

/// The matches that may need a bot move, each at most once, in the order
/// they were poked.
#[derive(Debug, Default)]
pub struct BotQueue {
    state: Mutex<Queued>,
    ready: Condvar,
}

#[derive(Debug, Default)]
struct Queued {
    order: VecDeque<String>,
    members: HashSet<String>,
    stopped: bool,
}

impl Queued {
    /// Takes the first queued match, which may then be poked again.
    fn pop(&mut self) -> Option<String> {
        let id = self.order.pop_front()?;
        self.members.remove(&id);
        Some(id)
    }
}

impl BotQueue {
    /// Queues `match_id` unless it is queued already.
    pub fn poke(&self, match_id: &str) {
        let mut q = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if q.members.insert(match_id.to_string()) {
            q.order.push_back(match_id.to_string());
            self.ready.notify_one();
        }
    }

    /// The next match, waiting for one; `None` once stopped.
    pub(super) fn next(&self) -> Option<String> {
        let mut q = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if q.stopped {
                return None;
            }
            if let Some(id) = q.pop() {
                return Some(id);
            }
            q = self.ready.wait(q).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The next match if one is queued, without waiting.
    pub(super) fn try_next(&self) -> Option<String> {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).pop()
    }

    /// Matches waiting for a bot thread.
    pub fn len(&self) -> usize {
        self.state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .order
            .len()
    }

    /// Whether no match waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Lets the bot threads end once their current search is done.
    pub fn stop(&self) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).stopped = true;
        self.ready.notify_all();
    }
}

/// How long a bot may think with `remaining` on its seat's clock: three
/// quarters of it less 50 ms (the submit's own time and the clock thread's
/// granularity), at least 1 ms, and never more than `max_think`.
pub fn think_limit(remaining_ms: Option<i64>, max_think: Duration) -> Duration {
    match remaining_ms {
        Some(ms) => {
            let usable = (ms.max(0) * 3 / 4).saturating_sub(50).max(1);
            max_think.min(Duration::from_millis(usable as u64))
        }
        None => max_think,
    }
}

/// A seed for one search: the same for the same match, version and seat,
/// and unrelated to the match's own (secret) seed.
fn search_seed(match_id: &str, version: u64, seat: u32) -> u64 {
    let mut hasher = Sha256::new();
    hasher.update(match_id.as_bytes());
    hasher.update(version.to_le_bytes());
    hasher.update(seat.to_le_bytes());
    let digest = hasher.finalize();
    u64::from_le_bytes(digest[..8].try_into().unwrap_or_default())
}

/// Reads a bot spec as a request gives it: a refusal says which seat and
/// what a spec looks like.
pub fn parse_spec(seat: u32, spec: &str) -> HostResult<Bot> {
    Bot::from_spec(spec).map_err(|e| HostError::InvalidSetup(format!("bot for seat {seat}: {e}")))
}

/// What one bot move did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BotMove {
    /// No bot of the match had to act.
    Idle,
    /// A bot's action was accepted.
    Played,
    /// The match moved on during the search: queued again to re-plan.
    Replan,
}

/// The host's bots: the queue of matches that may need a move, and how
/// long a bot may think.
#[derive(Debug)]
pub struct Bots {
    queue: Arc<BotQueue>,
    /// The longest a bot thinks about one move.
    max_think: Duration,
}

impl Default for Bots {
    /// An empty queue; bots think at most [`DEFAULT_MAX_THINK`].
    fn default() -> Bots {
        Bots {
            queue: Arc::default(),
            max_think: DEFAULT_MAX_THINK,
        }
    }
}

impl Bots {
    /// No bot thinks longer than `limit` about one move, whatever its spec
    /// says.
    pub fn with_max_think(self, limit: Duration) -> Bots {
        Bots {
            max_think: limit,
            ..self
        }
    }

    /// The queue of matches that may need a bot.
    pub fn queue(&self) -> &Arc<BotQueue> {
        &self.queue
    }

    /// Queues `m` if one of its bots must act now.
    pub(super) fn poke_if_due(&self, m: &LiveMatch) {
        if m.plays_bots() && bots_to_act(m) {
            self.queue.poke(&m.setup().match_id);
        }
    }

    /// The turn of the first bot of `m` that must act, if one must: the
    /// match as its seat sees it, resampled.
    pub(super) fn turn(&self, m: &Match) -> HostResult<Option<BotTurn>> {
        let Some(&seat) = m.bot_seats_to_act()?.first() else {
            return Ok(None);
        };
        let match_id = &m.setup().match_id;
        m.bot_turn(seat, search_seed(match_id, m.version(), seat))
    }

    /// The bot's action for `turn`, searched off the match's lock by
    /// `searcher`; the turn comes back with it for the submit.
    pub(super) fn think(
        &self,
        match_id: &str,
        turn: BotTurn,
        searcher: &Searcher,
    ) -> HostResult<(BotTurn, ActionId)> {
        let bot = parse_spec(turn.seat, &turn.spec)?;
        let limit = think_limit(turn.clock_remaining_ms, self.max_think);
        let seed = search_seed(match_id, turn.version, turn.seat) ^ 0x5EA5_C4ED;
        // A game in a worker searches there: a search crosses the plugin
        // boundary at every node, which a process boundary would make slow.
        let spec = bot.spec();
        let (turn, choice) = searcher.run(move || {
            let choice = match turn.state.as_any().downcast_ref::<RemoteState>() {
                Some(remote) => remote.think(&spec, turn.players, turn.seat, seed, limit),
                None => bot
                    .think_within(
                        turn.state.as_ref(),
                        turn.players,
                        turn.seat,
                        seed,
                        Some(limit),
                    )
                    .map(|c| (c.action, c.iterations, c.elapsed)),
            };
            (turn, choice)
        })?;
        let (action, iterations, elapsed) = choice.map_err(HostError::from)?;
        metrics().bot_search(elapsed, iterations);
        tracing::debug!(
            match_id,
            seat = turn.seat,
            bot = %turn.spec,
            iterations,
            elapsed_ms = elapsed.as_millis() as u64,
            "bot chose"
        );
        Ok((turn, action))
    }
}

/// Whether a bot of `m` must act now (for a match with bots).
pub fn bots_to_act(m: &Match) -> bool {
    m.bot_seats_to_act().is_ok_and(|seats| !seats.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bot_thinks_within_its_clock_and_the_host_cap() {
        let cap = Duration::from_secs(10);
        assert_eq!(think_limit(None, cap), cap);
        assert_eq!(think_limit(Some(60_000), cap), cap);
        assert_eq!(think_limit(Some(1_000), cap), Duration::from_millis(700));
        assert_eq!(think_limit(Some(40), cap), Duration::from_millis(1));
        assert_eq!(think_limit(Some(-5), cap), Duration::from_millis(1));
    }

    #[test]
    fn a_match_is_queued_once_until_a_thread_takes_it() {
        let queue = BotQueue::default();
        queue.poke("a");
        queue.poke("b");
        queue.poke("a");
        assert_eq!(queue.len(), 2);
        assert_eq!(queue.try_next().as_deref(), Some("a"));
        queue.poke("a");
        assert_eq!(queue.try_next().as_deref(), Some("b"));
        assert_eq!(queue.try_next().as_deref(), Some("a"));
        assert!(queue.is_empty());
        queue.stop();
        assert_eq!(queue.next(), None);
    }

    #[test]
    fn a_bad_spec_names_the_seat_and_the_forms() {
        let refused = parse_spec(1, "mcts:fast").unwrap_err().to_string();
        assert!(refused.contains("seat 1"), "{refused}");
        assert!(refused.contains("a bot is `random`"), "{refused}");
        assert!(parse_spec(0, "mcts:20").is_ok());
    }
}
