//! The host's bots: seats a bot plays, searched in a search slot and
//! submitted like any seat's action.
//!
//! A match with a bot seat is *poked* whenever it may need a bot (it was
//! installed, a seat was taken, a change was persisted): its id joins its
//! creator's queue in the [`BotQueue`], at most once. A bot thread takes the
//! next match the queue serves and makes one move: under the match's lock
//! it takes a [`BotTurn`] (the match as the bot's seat sees it, resampled;
//! see [`tabletop_core::bot_seat`]), lets go of the lock, searches with
//! `tabletop-mcts`, then submits through
//! [`Match::submit`](tabletop_core::Match::submit) with the version it
//! searched at, so a choice for a match that moved on meanwhile is refused
//! and the match queued again to re-plan. The submit persists like a
//! client's, which pokes the match again if another bot is to act: one move
//! per turn of the queue keeps a long bot-only match from holding a slot.
//!
//! No RPC waits for a bot: calls only poke. The pool has `--bot-threads`
//! threads, which is also the most searches that run at once, and one
//! creator runs at most `--bot-searches-per-creator` of them; the rest wait
//! in their creator's queue, served round-robin (see `bot_queue`).
//! Each bot thread hands its searches to a search thread of its own that
//! runs under `SCHED_IDLE` (nice 19 where that is refused): the searches
//! running at once share the cores the server leaves idle, and each ends at
//! its own wall-clock limit however many run beside it. Taking the turn and
//! submitting stay on the bot thread, at normal priority, because they take
//! locks the server's threads take too (see `search_thread`). A game in a
//! plugin worker searches in the worker while the bot thread waits for its
//! answer, so the same slots and limits bound those searches.
//!
//! A bot thinks at most the least of its spec's budget, three quarters of
//! its seat's clock, the host's cap (`--bot-max-think-ms`) and its
//! creator's: every anonymous caller's match shares the anonymous cap
//! (`--anonymous-bot-max-think-ms`); a credential's and the admin's matches
//! have the host's.

use std::sync::Arc;
use std::time::Duration;

use sha2::{Digest, Sha256};
use tabletop_core::{BotTurn, HostError, HostResult, Match, MatchSetup};
use tabletop_mcts::{Bot, Budget};
use tabletop_sdk::ActionId;

use super::access::{ADMIN_CREATOR, ANONYMOUS_CREATOR};
pub use super::bot_queue::{BotQueue, DEFAULT_SEARCHES_PER_CREATOR};
use super::live::LiveMatch;
use super::search_thread::Searcher;
use crate::metrics::metrics;
use tabletop_loader::isolation::RemoteState;

/// The longest a bot thinks about one move unless the host is told
/// otherwise (`--bot-max-think-ms`).
pub const DEFAULT_MAX_THINK: Duration = Duration::from_secs(10);

/// The longest the bot of an anonymous caller's match thinks about one
/// move unless the host is told otherwise (`--anonymous-bot-max-think-ms`).
pub const DEFAULT_ANONYMOUS_MAX_THINK: Duration = Duration::from_secs(1);

/// The key a match's bots are budgeted and queued by: the creator it
/// recorded, or for a match that recorded none (stored before creators were
/// kept) its tenant's organizers', or for the admin's tenant one shared key
/// with the host's cap.
pub fn creator_of(setup: &MatchSetup) -> String {
    match (setup.creator.as_str(), setup.tenant.as_str()) {
        ("", "") => "unrecorded".to_string(),
        ("", tenant) => format!("tenant:{tenant}"),
        (creator, _) => creator.to_string(),
    }
}

/// What kind of creator `key` names, for a metric's label: `anonymous`,
/// `admin`, `credential`, or `unrecorded` (a match from before creators
/// were kept).
pub fn creator_kind(key: &str) -> &'static str {
    match key {
        ANONYMOUS_CREATOR => "anonymous",
        ADMIN_CREATOR => "admin",
        key if key.starts_with("credential:") => "credential",
        _ => "unrecorded",
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
    /// A bot's action was accepted, after this search.
    Played(Thought),
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
    /// The longest the bot of an anonymous caller's match thinks.
    anonymous_max_think: Duration,
}

impl Default for Bots {
    /// An empty queue with [`DEFAULT_SEARCHES_PER_CREATOR`]; bots think at
    /// most [`DEFAULT_MAX_THINK`], anonymous callers' at most
    /// [`DEFAULT_ANONYMOUS_MAX_THINK`].
    fn default() -> Bots {
        Bots {
            queue: Arc::default(),
            max_think: DEFAULT_MAX_THINK,
            anonymous_max_think: DEFAULT_ANONYMOUS_MAX_THINK,
        }
    }
}

/// One search's outcome: the action and what the search took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thought {
    /// The action chosen.
    pub action: ActionId,
    /// The longest the search was allowed.
    pub limit: Duration,
    /// How long it took, as the search measured it.
    pub elapsed: Duration,
    /// Its iterations (playouts).
    pub iterations: u64,
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

    /// No bot of an anonymous caller's match thinks longer than `limit`
    /// about one move (nor longer than the host's cap).
    pub fn with_anonymous_max_think(self, limit: Duration) -> Bots {
        Bots {
            anonymous_max_think: limit,
            ..self
        }
    }

    /// One creator runs at most `searches` bot searches at once. A new
    /// queue: set before any match is poked.
    pub fn with_searches_per_creator(self, searches: usize) -> Bots {
        Bots {
            queue: Arc::new(BotQueue::new(searches)),
            ..self
        }
    }

    /// The longest a bot of a match `creator` made thinks about one move,
    /// whatever its spec and clock allow.
    pub fn cap_of(&self, creator: &str) -> Duration {
        if creator == ANONYMOUS_CREATOR {
            self.max_think.min(self.anonymous_max_think)
        } else {
            self.max_think
        }
    }

    /// The queue of matches that may need a bot.
    pub fn queue(&self) -> &Arc<BotQueue> {
        &self.queue
    }

    /// Queues `m` if one of its bots must act now.
    pub(super) fn poke_if_due(&self, m: &LiveMatch) {
        if m.plays_bots() && bots_to_act(m) {
            self.queue.poke(&creator_of(m.setup()), &m.setup().match_id);
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

    /// The bot's action for `turn` in a match `creator` made, searched off
    /// the match's lock by `searcher`; the turn comes back with it for the
    /// submit.
    pub(super) fn think(
        &self,
        match_id: &str,
        creator: &str,
        turn: BotTurn,
        searcher: &Searcher,
    ) -> HostResult<(BotTurn, Thought)> {
        let bot = parse_spec(turn.seat, &turn.spec)?;
        let limit = think_limit(turn.clock_remaining_ms, self.cap_of(creator));
        let limit = match &bot {
            Bot::Mcts(config) => match config.budget {
                Budget::Time(budget) => limit.min(budget),
                Budget::Iterations(_) => limit,
            },
            Bot::Random => limit,
        };
        let seed = search_seed(match_id, turn.version, turn.seat) ^ 0x5EA5_C4ED;
        // A game in a worker searches there: a search crosses the plugin
        // boundary at every node, which a process boundary would make slow.
        // The worker ends it at the same limit, and this slot is held
        // while it runs.
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
            creator = creator_kind(creator),
            iterations,
            limit_ms = limit.as_millis() as u64,
            elapsed_ms = elapsed.as_millis() as u64,
            "bot chose"
        );
        Ok((
            turn,
            Thought {
                action,
                limit,
                elapsed,
                iterations,
            },
        ))
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
    fn an_anonymous_creators_bots_share_the_anonymous_cap_within_the_hosts() {
        let bots = Bots::default();
        assert_eq!(bots.cap_of(ANONYMOUS_CREATOR), DEFAULT_ANONYMOUS_MAX_THINK);
        assert_eq!(bots.cap_of(ADMIN_CREATOR), DEFAULT_MAX_THINK);
        assert_eq!(bots.cap_of("credential:c1"), DEFAULT_MAX_THINK);
        assert_eq!(bots.cap_of("unrecorded"), DEFAULT_MAX_THINK);
        let bots = bots
            .with_max_think(Duration::from_millis(500))
            .with_anonymous_max_think(Duration::from_secs(2));
        assert_eq!(
            bots.cap_of(ANONYMOUS_CREATOR),
            Duration::from_millis(500),
            "the host's cap holds for everyone"
        );
    }

    #[test]
    fn a_match_is_keyed_by_its_creator_or_else_its_tenant() {
        let mut setup = MatchSetup {
            match_id: "m".into(),
            game: "g".into(),
            plugin_version: "1".into(),
            plugin_sha256: None,
            players: 2,
            options: Default::default(),
            seed: 0,
            start_position: None,
            created_at_ms: 0,
            time_control: None,
            labels: Default::default(),
            open_seat_deadline: None,
            spectator_delay: None,
            seat_players: Vec::new(),
            tenant: String::new(),
            creator: String::new(),
        };
        assert_eq!(creator_kind(&creator_of(&setup)), "unrecorded");
        setup.tenant = "t".into();
        assert_eq!(creator_of(&setup), "tenant:t");
        setup.creator = ANONYMOUS_CREATOR.into();
        assert_eq!(creator_of(&setup), ANONYMOUS_CREATOR);
        assert_eq!(creator_kind("credential:c1"), "credential");
    }

    #[test]
    fn a_bad_spec_names_the_seat_and_the_forms() {
        let refused = parse_spec(1, "mcts:fast").unwrap_err().to_string();
        assert!(refused.contains("seat 1"), "{refused}");
        assert!(refused.contains("a bot is `random`"), "{refused}");
        assert!(parse_spec(0, "mcts:20").is_ok());
    }
}
