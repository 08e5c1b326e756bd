//! Plugin calls on the caller's thread, and the watchdog that takes a plugin
//! off that path when one of its calls runs long.
//!
//! The gRPC adapter could run every core call on tokio's blocking pool, so a
//! stuck plugin holds a pool thread rather than an async worker. That hop
//! costs two thread wake-ups per call, which measured as the largest part of
//! the server's CPU per action (BENCHMARKS.md). So a call that can be served
//! without waiting — the match's lock is free and its plugin is trusted —
//! runs where it arrives, registered here; a watchdog thread calls
//! [`InlineCalls::demote_overdue`] often, and a call found running longer
//! than the limit moves its plugin version to the blocking pool. What that
//! leaves exposed: the one call that overran, and any other call of the
//! same plugin already running, keep their threads until they return.
//!
//! A call stuck on a worker can also stall the workers that are free: tokio
//! lets one parked worker at a time wait on the I/O driver, and the others
//! sleep until woken. When the worker that picked up a request leaves that
//! wait and never comes back, the sleeping ones are not woken to take it
//! over, and no socket is read any more. So the watchdog, when it demotes a
//! plugin, also wakes a worker (it spawns an empty task on the runtime the
//! call came from), which then takes over the driver.
//!
//! A demoted plugin earns its way back ([`InlineCalls::observe_pool_call`]):
//! after [`FAST_CALLS_TO_RETURN`] calls in a row on the pool that each took
//! at most half the limit, its calls run inline again. Each demotion
//! doubles the run it needs next time (up to 64 times), so a plugin that
//! is sometimes slow settles on the pool instead of moving back and forth;
//! and one burst of slow calls (a loaded machine) does not keep every
//! plugin on the pool, and its threads busy, for the rest of the host's
//! life.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

/// The limit engine-host uses unless told otherwise: far above any game's
/// move (War's full view, the slowest call measured, takes under 1 ms) and
/// far below a deadline anyone would notice.
pub const DEFAULT_INLINE_LIMIT: Duration = Duration::from_millis(20);

/// How many fast calls in a row on the pool bring a plugin demoted once
/// back inline; each further demotion doubles it.
pub const FAST_CALLS_TO_RETURN: u32 = 100;

/// The most doublings of [`FAST_CALLS_TO_RETURN`]: a plugin demoted often
/// needs 6 400 fast calls in a row.
const MAX_DOUBLINGS: u32 = 6;

/// Whether one plugin version may still run on the caller's thread.
#[derive(Debug)]
pub struct Trust {
    /// `game@version`, for the log.
    label: String,
    inline: AtomicBool,
    /// Calls in a row on the pool that took at most half the limit.
    fast_streak: AtomicU32,
    /// How often the plugin was moved to the pool.
    demotions: AtomicU32,
}

impl Trust {
    /// Whether calls of this plugin may run on the caller's thread.
    pub fn allows_inline(&self) -> bool {
        self.inline.load(Ordering::Relaxed)
    }

    /// How many fast calls in a row bring it back inline now.
    fn fast_calls_needed(&self) -> u32 {
        let doublings = self
            .demotions
            .load(Ordering::Relaxed)
            .saturating_sub(1)
            .min(MAX_DOUBLINGS);
        FAST_CALLS_TO_RETURN << doublings
    }
}

#[derive(Debug)]
struct Running {
    since: Instant,
    trust: Arc<Trust>,
}

/// The calls running on callers' threads, and each plugin version's trust.
#[derive(Debug)]
pub struct InlineCalls {
    /// The longest a call may run before its plugin is moved off; `None`:
    /// no call runs inline.
    limit: Option<Duration>,
    trust: Mutex<HashMap<String, Arc<Trust>>>,
    running: Mutex<HashMap<u64, Running>>,
    next_id: AtomicU64,
    /// Started with the first inline call (whether it could start); it
    /// ends when these calls are dropped.
    watchdog: OnceLock<bool>,
    /// The runtime the inline calls run on (the first one's), whose
    /// workers a stuck call may leave asleep.
    runtime: OnceLock<tokio::runtime::Handle>,
}

impl InlineCalls {
    /// Calls may run inline for up to `limit` (`None`: never).
    pub fn new(limit: Option<Duration>) -> InlineCalls {
        InlineCalls {
            limit,
            trust: Mutex::new(HashMap::new()),
            running: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(0),
            watchdog: OnceLock::new(),
            runtime: OnceLock::new(),
        }
    }

    /// The limit, if calls may run inline at all.
    pub fn limit(&self) -> Option<Duration> {
        self.limit
    }

    /// The shared trust of `game` at `version` (every match of that plugin
    /// version holds the same one).
    pub fn trust_for(&self, game: &str, version: &str) -> Arc<Trust> {
        let label = format!("{game}@{version}");
        let mut trust = self.trust.lock().unwrap_or_else(|e| e.into_inner());
        Arc::clone(trust.entry(label.clone()).or_insert_with(|| {
            Arc::new(Trust {
                label,
                inline: AtomicBool::new(true),
                fast_streak: AtomicU32::new(0),
                demotions: AtomicU32::new(0),
            })
        }))
    }

    /// Registers a call of the plugin behind `trust` that is about to run on
    /// the caller's thread; `None` if it must not (inline calls are off, or
    /// the plugin has overrun before). The call counts as running until the
    /// guard drops.
    pub fn begin(self: &Arc<Self>, trust: &Arc<Trust>) -> Option<InlineGuard<'_>> {
        let limit = self.limit?;
        if !trust.allows_inline() {
            return None;
        }
        if !*self.watchdog.get_or_init(|| self.start_watchdog(limit)) {
            return None;
        }
        if self.runtime.get().is_none()
            && let Ok(handle) = tokio::runtime::Handle::try_current()
        {
            let _ = self.runtime.set(handle);
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(
                id,
                Running {
                    since: Instant::now(),
                    trust: Arc::clone(trust),
                },
            );
        Some(InlineGuard { calls: self, id })
    }

    /// A thread that looks for overrunning calls four times per limit, until
    /// these calls are dropped. If it cannot start, nothing runs inline.
    fn start_watchdog(self: &Arc<Self>, limit: Duration) -> bool {
        let calls: Weak<InlineCalls> = Arc::downgrade(self);
        let tick = (limit / 4).clamp(Duration::from_millis(1), Duration::from_millis(50));
        let started = std::thread::Builder::new()
            .name("inline-watchdog".into())
            .spawn(move || {
                while let Some(calls) = calls.upgrade() {
                    calls.demote_overdue();
                    drop(calls);
                    std::thread::sleep(tick);
                }
            });
        match started {
            Ok(_) => true,
            Err(e) => {
                tracing::error!(
                    error = %e,
                    "cannot start the inline watchdog: every call goes to the blocking pool"
                );
                false
            }
        }
    }

    /// Moves every plugin with a call running longer than the limit off the
    /// callers' threads; returns the labels of the plugins moved now.
    pub fn demote_overdue(&self) -> Vec<String> {
        let Some(limit) = self.limit else {
            return Vec::new();
        };
        let running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        let mut demoted = Vec::new();
        for call in running.values() {
            if call.since.elapsed() > limit && call.trust.inline.swap(false, Ordering::Relaxed) {
                call.trust.fast_streak.store(0, Ordering::Relaxed);
                let demotions = call.trust.demotions.fetch_add(1, Ordering::Relaxed) + 1;
                tracing::warn!(
                    plugin = %call.trust.label,
                    ?limit,
                    demotions,
                    fast_calls_to_return = call.trust.fast_calls_needed(),
                    "a plugin call ran longer than the inline limit; this plugin's calls run \
                     on the blocking pool, with the call deadline, until they are fast again"
                );
                crate::metrics::metrics().demoted();
                demoted.push(call.trust.label.clone());
            }
        }
        drop(running);
        if !demoted.is_empty()
            && let Some(runtime) = self.runtime.get()
        {
            // Wakes a sleeping worker to take over the I/O driver (see the
            // module's docs); the task itself does nothing.
            drop(runtime.spawn(async {}));
        }
        demoted
    }

    /// Tells the watchdog that a call of the plugin behind `trust` took
    /// `took` on the blocking pool. A demoted plugin whose calls have been
    /// fast (at most half the limit) [`FAST_CALLS_TO_RETURN`] times in a
    /// row (doubled for each demotion after the first) runs inline again; a slower call starts the count over.
    /// Returns whether this call brought it back.
    pub fn observe_pool_call(&self, trust: &Trust, took: Duration) -> bool {
        let Some(limit) = self.limit else {
            return false;
        };
        if trust.allows_inline() {
            return false;
        }
        if took > limit / 2 {
            trust.fast_streak.store(0, Ordering::Relaxed);
            return false;
        }
        let streak = trust.fast_streak.fetch_add(1, Ordering::Relaxed) + 1;
        if streak < trust.fast_calls_needed()
            || trust
                .inline
                .compare_exchange(false, true, Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            return false;
        }
        trust.fast_streak.store(0, Ordering::Relaxed);
        tracing::info!(
            plugin = %trust.label,
            fast_calls = streak,
            "a plugin's calls were fast again on the blocking pool; they run inline again"
        );
        true
    }

    /// How many calls run inline right now.
    pub fn running(&self) -> usize {
        self.running.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

/// An inline call in progress; dropping it ends the call.
#[derive(Debug)]
pub struct InlineGuard<'a> {
    calls: &'a InlineCalls,
    id: u64,
}

impl Drop for InlineGuard<'_> {
    fn drop(&mut self) {
        self.calls
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_overrunning_call_moves_its_plugin_off_and_only_that_plugin() {
        let calls = Arc::new(InlineCalls::new(Some(Duration::from_millis(5))));
        let slow = calls.trust_for("war", "1.0.0");
        let other = calls.trust_for("focus", "1.0.0");
        assert!(Arc::ptr_eq(&slow, &calls.trust_for("war", "1.0.0")));
        let quick = calls.begin(&other).expect("a trusted plugin runs inline");
        drop(quick);
        let stuck = calls.begin(&slow).expect("trusted until it overruns");
        assert_eq!(calls.running(), 1);
        assert!(calls.demote_overdue().is_empty(), "not overdue yet");
        // The watchdog thread, started by the first call, finds it.
        let waited = Instant::now();
        while slow.allows_inline() {
            assert!(waited.elapsed() < Duration::from_secs(10), "never demoted");
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(calls.demote_overdue().is_empty(), "demoted once");
        drop(stuck);
        assert_eq!(calls.running(), 0);
        assert!(calls.begin(&slow).is_none(), "war now goes to the pool");
        assert!(
            !calls.observe_pool_call(&slow, Duration::from_millis(1)),
            "one fast call is not enough to come back"
        );
        assert!(
            calls.trust_for("war", "2.0.0").allows_inline(),
            "another version is trusted on its own"
        );
        assert!(calls.begin(&other).is_some(), "focus is unaffected");
    }

    /// Demoted, a plugin comes back after a run of fast calls on the pool;
    /// a slow call starts the run over, and each demotion doubles it.
    #[test]
    fn a_demoted_plugin_comes_back_inline_after_a_run_of_fast_calls() {
        let limit = Duration::from_millis(20);
        let calls = Arc::new(InlineCalls::new(Some(limit)));
        let trust = calls.trust_for("counter", "1.0.0");
        let fast = Duration::from_millis(1);
        let slow = Duration::from_millis(15);
        assert!(!calls.observe_pool_call(&trust, fast), "trusted already");
        let demote = |calls: &InlineCalls| {
            let id = 0;
            calls.running.lock().unwrap().insert(
                id,
                Running {
                    since: Instant::now() - limit * 2,
                    trust: Arc::clone(&trust),
                },
            );
            assert_eq!(calls.demote_overdue().len(), 1);
            calls.running.lock().unwrap().remove(&id);
        };
        demote(&calls);
        for _ in 1..FAST_CALLS_TO_RETURN {
            assert!(!calls.observe_pool_call(&trust, fast));
        }
        // Over half the limit: the run starts over.
        assert!(!calls.observe_pool_call(&trust, slow));
        for _ in 1..FAST_CALLS_TO_RETURN {
            assert!(!calls.observe_pool_call(&trust, fast));
        }
        assert!(!trust.allows_inline());
        assert!(calls.observe_pool_call(&trust, fast), "back after the run");
        assert!(trust.allows_inline());
        demote(&calls);
        for _ in 0..FAST_CALLS_TO_RETURN * 2 - 1 {
            assert!(!calls.observe_pool_call(&trust, fast));
        }
        assert!(calls.observe_pool_call(&trust, fast), "twice the run");
    }

    #[test]
    fn a_call_within_the_limit_is_never_demoted() {
        let calls = Arc::new(InlineCalls::new(Some(Duration::from_secs(3600))));
        let trust = calls.trust_for("lanza", "1.0.0");
        let _running = calls.begin(&trust).expect("trusted");
        // An hour's limit: nothing is overdue, however often it looks.
        assert!(calls.demote_overdue().is_empty());
        assert!(trust.allows_inline());
    }

    #[test]
    fn no_call_runs_inline_without_a_limit() {
        let calls = Arc::new(InlineCalls::new(None));
        let trust = calls.trust_for("focus", "1.0.0");
        assert!(calls.begin(&trust).is_none());
        assert!(calls.demote_overdue().is_empty());
    }
}
