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
//! locks the server's threads take too (see `SearchThread`).

use std::collections::{HashSet, VecDeque};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use sha2::{Digest, Sha256};
use tabletop_core::{BotTurn, HostError, HostResult};
use tabletop_mcts::Bot;
use tabletop_sdk::ActionId;

use super::{Engine, LiveMatch, lock};
use crate::metrics::{PluginCall, metrics};
use crate::store::Commit;

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
    fn next(&self) -> Option<String> {
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
    fn try_next(&self) -> Option<String> {
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

impl Engine {
    /// The queue of matches that may need a bot.
    pub fn bot_queue(&self) -> &Arc<BotQueue> {
        &self.bots
    }

    /// Queues `m` for the bot pool if one of its bots must act now.
    pub(super) fn poke_bots(&self, m: &LiveMatch) {
        if m.has_bots && m.bot_seats_to_act().is_ok_and(|seats| !seats.is_empty()) {
            self.bots.poke(&m.setup().match_id);
        }
    }

    /// Starts `threads` bot threads, each with its search thread, making the
    /// queued matches' bot moves until [`BotQueue::stop`].
    pub fn spawn_bot_threads(self: &Arc<Self>, threads: usize) {
        for index in 0..threads {
            let engine = Arc::clone(self);
            let spawned = SearchThread::spawn(format!("bot-search-{index}")).and_then(|search| {
                let searcher = Searcher::Thread(search);
                std::thread::Builder::new()
                    .name(format!("bot-{index}"))
                    .spawn(move || {
                        while let Some(match_id) = engine.bots.next() {
                            engine.bot_move_logged(&match_id, &searcher);
                        }
                    })
            });
            if let Err(e) = spawned {
                tracing::error!(error = %e, "cannot start a bot thread");
            }
        }
    }

    /// Makes the queued matches' bot moves on this thread until the queue is
    /// empty (for a host without bot threads, and tests); returns how many
    /// moves were played.
    pub fn play_queued_bot_moves(&self) -> usize {
        let mut played = 0;
        while let Some(match_id) = self.bots.try_next() {
            if self.bot_move_logged(&match_id, &Searcher::Inline) == BotMove::Played {
                played += 1;
            }
        }
        played
    }

    fn bot_move_logged(&self, match_id: &str, searcher: &Searcher) -> BotMove {
        match self.bot_move(match_id, searcher) {
            Ok(done) => done,
            Err(e) => {
                tracing::warn!(match_id, error = %e, "a bot could not move");
                BotMove::Idle
            }
        }
    }

    /// One bot move in `match_id`, if a bot must act there, its search run
    /// by `searcher`.
    fn bot_move(&self, match_id: &str, searcher: &Searcher) -> HostResult<BotMove> {
        let slot = self.slot(match_id)?;
        let turn = {
            let m = lock(&slot);
            let Some(&seat) = m.bot_seats_to_act()?.first() else {
                return Ok(BotMove::Idle);
            };
            m.bot_turn(seat, search_seed(match_id, m.version(), seat))?
        };
        let Some(turn) = turn else {
            return Ok(BotMove::Idle);
        };
        let (turn, action) = self.think(match_id, turn, searcher)?;
        let mut commit = Commit::done();
        let submitted = {
            let mut m = lock(&slot);
            self.submit_bot_action(&mut m, &turn, action, &mut commit)
        };
        commit.wait()?;
        match submitted {
            Ok(()) => Ok(BotMove::Played),
            Err(
                HostError::StaleVersion { .. }
                | HostError::NotYourTurn { .. }
                | HostError::AlreadyActed { .. }
                | HostError::MatchPaused,
            ) => {
                self.bots.poke(match_id);
                Ok(BotMove::Replan)
            }
            Err(HostError::MatchOver { .. }) => Ok(BotMove::Idle),
            Err(e) => Err(e),
        }
    }

    /// The bot's action for `turn`, searched off the match's lock by
    /// `searcher`; the turn comes back with it for the submit.
    fn think(
        &self,
        match_id: &str,
        turn: BotTurn,
        searcher: &Searcher,
    ) -> HostResult<(BotTurn, ActionId)> {
        let bot = parse_spec(turn.seat, &turn.spec)?;
        let limit = think_limit(turn.clock_remaining_ms, self.bot_max_think);
        let seed = search_seed(match_id, turn.version, turn.seat) ^ 0x5EA5_C4ED;
        let (turn, choice) = searcher.run(move || {
            let choice = bot.think_within(
                turn.state.as_ref(),
                turn.players,
                turn.seat,
                seed,
                Some(limit),
            );
            (turn, choice)
        })?;
        let choice = choice.map_err(HostError::from)?;
        metrics().bot_search(choice.elapsed, choice.iterations);
        tracing::debug!(
            match_id,
            seat = turn.seat,
            bot = %turn.spec,
            iterations = choice.iterations,
            elapsed_ms = choice.elapsed.as_millis() as u64,
            "bot chose"
        );
        Ok((turn, choice.action))
    }

    /// Submits the bot's `action` for `turn` as a client's action is
    /// submitted (the clock, the expected version, the store), under the
    /// match's lock.
    fn submit_bot_action(
        &self,
        m: &mut LiveMatch,
        turn: &BotTurn,
        action: ActionId,
        commit: &mut Commit,
    ) -> HostResult<()> {
        let _timed = metrics().plugin_call(&m.setup().game, PluginCall::Submit);
        if self.expire_locked(m, commit)? {
            return Err(HostError::MatchOver {
                clock_ran_out: true,
            });
        }
        let before = m.version();
        m.submit(turn.seat, action, Some(turn.version))?;
        metrics().actions(&m.setup().game, 1);
        commit.add(self.persist(m, before)?);
        m.refresh_kept_legal_actions();
        Ok(())
    }
}

/// Where a bot thread's searches run.
enum Searcher {
    /// On the calling thread, at its priority: [`Engine::play_queued_bot_moves`].
    Inline,
    /// On the bot thread's search thread.
    Thread(SearchThread),
}

impl Searcher {
    /// Runs `search` and waits for its result. A panic in it is an error
    /// of this one move: the thread that ran it goes on to the next.
    fn run<T: Send + 'static>(&self, search: impl FnOnce() -> T + Send + 'static) -> HostResult<T> {
        let searched = match self {
            Searcher::Inline => catch_unwind(AssertUnwindSafe(search)).ok(),
            Searcher::Thread(thread) => thread.run(search),
        };
        searched.ok_or_else(|| HostError::Internal("a bot's search panicked".into()))
    }
}

/// A search to run, with where its result goes.
type SearchJob = Box<dyn FnOnce() + Send>;

/// A thread that runs one bot thread's searches under `SCHED_IDLE` while the
/// bot thread waits for each.
///
/// The split is about locks, not CPU. Taking a turn and submitting lock the
/// match, the map of matches and (in memory) the store, which the server's
/// threads lock too. A thread under `SCHED_IDLE` is preempted the moment a
/// server thread wakes on its core; preempted while it holds one of those
/// locks, it leaves a server thread waiting until a core goes idle, on a busy
/// host for milliseconds. So those short steps stay on the bot thread at
/// normal priority, and only the search, which takes none of them, runs
/// idle.
struct SearchThread {
    jobs: mpsc::Sender<SearchJob>,
}

impl SearchThread {
    /// Starts the thread; it ends when this is dropped.
    fn spawn(name: String) -> std::io::Result<SearchThread> {
        let (jobs, queued) = mpsc::channel::<SearchJob>();
        std::thread::Builder::new().name(name).spawn(move || {
            lower_thread_priority();
            for job in queued {
                job();
            }
        })?;
        Ok(SearchThread { jobs })
    }

    /// Runs `search` on the thread and waits for it; `None` if it panicked.
    fn run<T: Send + 'static>(&self, search: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        let (reply, result) = mpsc::sync_channel(1);
        let job: SearchJob = Box::new(move || {
            if let Ok(found) = catch_unwind(AssertUnwindSafe(search)) {
                // The bot thread waits on `result` until this sends or drops.
                let _ = reply.send(found);
            }
        });
        self.jobs.send(job).ok()?;
        result.recv().ok()
    }
}

/// The nice value a search thread falls back to where idle-only scheduling is
/// refused (a seccomp filter, say).
const BOT_NICE: libc::c_int = 19;

/// Runs the calling thread under `SCHED_IDLE`, so a search takes only the
/// cores the server's own threads leave idle: a woken server thread
/// preempts it at once, where a nice-19 search still holds the core for
/// part of its slice and shows in the players' tail latency. On a machine
/// that is busy with other work a search still runs, slowly; its clock is
/// wall time, so it plays weaker rather than later. Where `SCHED_IDLE` is
/// refused the thread runs at [`BOT_NICE`]. A thread cannot raise its
/// priority again without privilege, hence a thread of its own for the
/// searches ([`SearchThread`]).
#[cfg(target_os = "linux")]
fn lower_thread_priority() {
    let idle = libc::sched_param { sched_priority: 0 };
    // SAFETY: pid 0 names the calling thread; `idle` is a valid
    // sched_param that outlives the call, which only reads it.
    if unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &idle) } == 0 {
        return;
    }
    // SAFETY: gettid has no preconditions; setpriority with PRIO_PROCESS and
    // a thread id changes only that thread's nice value on Linux, and takes
    // no pointers.
    let changed = unsafe {
        let tid = libc::gettid();
        libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, BOT_NICE)
    };
    if changed != 0 {
        tracing::debug!("could not lower a bot thread's priority");
    }
}

/// Elsewhere bot threads run at the server's priority.
#[cfg(not(target_os = "linux"))]
fn lower_thread_priority() {}

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
    fn a_search_thread_runs_idle_and_outlives_a_panicking_search() {
        // SAFETY: sched_getscheduler(0) only reads the calling thread's policy.
        #[cfg(target_os = "linux")]
        let policy_before = unsafe { libc::sched_getscheduler(0) };
        let thread = SearchThread::spawn("test-search".into()).expect("a thread");
        assert_eq!(thread.run(|| 2 + 2), Some(4));
        assert_eq!(thread.run(|| -> u32 { panic!("a bug in a search") }), None);
        let name = thread.run(|| std::thread::current().name().map(String::from));
        assert_eq!(name, Some(Some("test-search".to_string())));
        #[cfg(target_os = "linux")]
        {
            // SAFETY: sched_getscheduler(0) and getpriority on the calling
            // thread's id only read its scheduling settings.
            let (policy, nice) = thread
                .run(|| unsafe {
                    let tid = libc::gettid() as libc::id_t;
                    (
                        libc::sched_getscheduler(0),
                        libc::getpriority(libc::PRIO_PROCESS, tid),
                    )
                })
                .expect("the thread searches on");
            assert!(
                policy == libc::SCHED_IDLE || nice == BOT_NICE,
                "policy {policy}, nice {nice}"
            );
        }
        // SAFETY: as above, for this thread, which keeps its policy.
        #[cfg(target_os = "linux")]
        assert_eq!(unsafe { libc::sched_getscheduler(0) }, policy_before);
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
