//! What the host counts for its operator, and the Prometheus text it is
//! scraped as (`--metrics-listen`, served by [`http`]).
//!
//! One process-wide set ([`metrics`]), recorded where things happen: the
//! gRPC layer (calls, codes, latency, refusals, watchers), the engine
//! (actions, matches, plugin calls, moves to the blocking pool) and the
//! SQLite store (commit and fsync latency). Recording is a few relaxed
//! atomic adds, and a read-locked map lookup for a labelled series, so it
//! stays on whether or not anyone scrapes. Every metric is listed in the
//! README; [`Metrics::render`] writes them all.

mod histogram;
pub mod http;

use std::collections::HashMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, OnceLock, RwLock};
use std::time::{Duration, Instant};

pub use histogram::Histogram;

/// The host's metrics.
pub fn metrics() -> &'static Metrics {
    static METRICS: LazyLock<Metrics> = LazyLock::new(Metrics::default);
    &METRICS
}

/// The gRPC status codes, in code order, as Prometheus labels name them.
const CODE_NAMES: [&str; 17] = [
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
];

/// Which limit refused a call (`tabletop_limit_refusals_total{limit}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitKind {
    /// The server's calls in flight (load shedding).
    ServerCalls,
    /// One credential's calls in flight.
    CredentialCalls,
    /// One credential's calls per second.
    CredentialRate,
    /// One credential's matches created per minute.
    CreatesPerMinute,
    /// The live matches the server holds.
    LiveMatches,
    /// The request timeout.
    Timeout,
}

impl LimitKind {
    const ALL: [LimitKind; 6] = [
        LimitKind::ServerCalls,
        LimitKind::CredentialCalls,
        LimitKind::CredentialRate,
        LimitKind::CreatesPerMinute,
        LimitKind::LiveMatches,
        LimitKind::Timeout,
    ];

    /// The label value.
    pub fn name(self) -> &'static str {
        match self {
            LimitKind::ServerCalls => "server_calls_in_flight",
            LimitKind::CredentialCalls => "credential_calls_in_flight",
            LimitKind::CredentialRate => "credential_rate",
            LimitKind::CreatesPerMinute => "credential_creates_per_minute",
            LimitKind::LiveMatches => "live_matches",
            LimitKind::Timeout => "request_timeout",
        }
    }
}

/// The engine calls that run a game's plugin, timed per game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PluginCall {
    /// Creating a match (the plugin's start state and first view).
    Create,
    /// A submit: the action, its chance outcomes, the answer's view.
    Submit,
    /// A seat's legal actions.
    LegalActions,
    /// A view.
    View,
}

impl PluginCall {
    const ALL: [PluginCall; 4] = [
        PluginCall::Create,
        PluginCall::Submit,
        PluginCall::LegalActions,
        PluginCall::View,
    ];

    fn name(self) -> &'static str {
        match self {
            PluginCall::Create => "create",
            PluginCall::Submit => "submit",
            PluginCall::LegalActions => "legal_actions",
            PluginCall::View => "view",
        }
    }
}

/// One gRPC method's calls.
#[derive(Debug, Default)]
pub struct RpcStats {
    codes: [AtomicU64; CODE_NAMES.len()],
    duration: Histogram,
}

impl RpcStats {
    /// Records a finished call: its status code and how long it took.
    pub fn finished(&self, code: i32, duration: Duration) {
        let index = usize::try_from(code)
            .ok()
            .filter(|&c| c < CODE_NAMES.len())
            .unwrap_or(2);
        self.codes[index].fetch_add(1, Ordering::Relaxed);
        self.duration.observe(duration);
    }
}

/// One game's play.
#[derive(Debug, Default)]
pub struct GameStats {
    actions: AtomicU64,
    created: AtomicU64,
    finished: AtomicU64,
    calls: [Histogram; PluginCall::ALL.len()],
}

/// Times an engine call into a game's plugin until it is dropped.
#[derive(Debug)]
pub struct CallTimer {
    game: Arc<GameStats>,
    call: PluginCall,
    started: Instant,
}

impl Drop for CallTimer {
    fn drop(&mut self) {
        self.game.calls[self.call as usize].observe(self.started.elapsed());
    }
}

/// Matches the engine holds, counted when scraped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MatchCounts {
    /// Waiting or running.
    pub live: u64,
    /// Finished and still in memory.
    pub finished: u64,
    /// Stored, but their plugin version is not loaded.
    pub unavailable: u64,
}

type MatchCounter = Box<dyn Fn() -> MatchCounts + Send + Sync>;

/// A set of series keyed by one label value (a method, a game), created on
/// first use. The keys are bounded by what the host serves: the gRPC layer
/// names only known methods, and games come from loaded plugins.
#[derive(Debug)]
struct Family<V> {
    series: RwLock<HashMap<String, Arc<V>>>,
}

impl<V> Default for Family<V> {
    fn default() -> Self {
        Family {
            series: RwLock::new(HashMap::new()),
        }
    }
}

impl<V: Default> Family<V> {
    fn get(&self, key: &str) -> Arc<V> {
        if let Some(series) = self
            .series
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
        {
            return Arc::clone(series);
        }
        Arc::clone(
            self.series
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .entry(key.to_string())
                .or_default(),
        )
    }

    /// Every series, by key.
    fn sorted(&self) -> Vec<(String, Arc<V>)> {
        let mut all: Vec<(String, Arc<V>)> = self
            .series
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|(k, v)| (k.clone(), Arc::clone(v)))
            .collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all
    }
}

/// Every metric of the host.
#[derive(Default)]
pub struct Metrics {
    rpcs: Family<RpcStats>,
    in_flight: AtomicI64,
    refusals: [AtomicU64; LimitKind::ALL.len()],
    games: Family<GameStats>,
    unloaded: AtomicU64,
    read_back: AtomicU64,
    watch_streams: AtomicI64,
    lifecycle_streams: AtomicI64,
    store_commit: Histogram,
    store_fsync: Histogram,
    demotions: AtomicU64,
    pool_calls: AtomicU64,
    bot_searches: Histogram,
    bot_iterations: AtomicU64,
    match_counter: OnceLock<MatchCounter>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

/// An open stream counted in a gauge until it is dropped.
#[derive(Debug)]
pub struct StreamGauge(&'static AtomicI64);

impl Drop for StreamGauge {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Metrics {
    /// The series of one gRPC method (`service/method`, or `unknown`).
    pub fn rpc(&self, method: &str) -> Arc<RpcStats> {
        self.rpcs.get(method)
    }

    /// Calls in flight: one more (`+1`) or one fewer (`-1`).
    pub fn add_in_flight(&self, delta: i64) {
        self.in_flight.fetch_add(delta, Ordering::Relaxed);
    }

    /// A call refused by `limit`.
    pub fn refused(&self, limit: LimitKind) {
        self.refusals[limit as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// How many calls `limit` refused so far.
    pub fn refusals(&self, limit: LimitKind) -> u64 {
        self.refusals[limit as usize].load(Ordering::Relaxed)
    }

    /// `count` actions accepted in a match of `game`.
    pub fn actions(&self, game: &str, count: u64) {
        self.games
            .get(game)
            .actions
            .fetch_add(count, Ordering::Relaxed);
    }

    /// A match of `game` created.
    pub fn match_created(&self, game: &str) {
        self.games.get(game).created.fetch_add(1, Ordering::Relaxed);
    }

    /// A match of `game` finished.
    pub fn match_finished(&self, game: &str) {
        self.games
            .get(game)
            .finished
            .fetch_add(1, Ordering::Relaxed);
    }

    /// Times a call into `game`'s plugin until the timer drops.
    pub fn plugin_call(&self, game: &str, call: PluginCall) -> CallTimer {
        CallTimer {
            game: self.games.get(game),
            call,
            started: Instant::now(),
        }
    }

    /// `count` finished matches left memory.
    pub fn unloaded(&self, count: u64) {
        self.unloaded.fetch_add(count, Ordering::Relaxed);
    }

    /// A match read back from the store into memory.
    pub fn read_back(&self) {
        self.read_back.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts an open Watch stream until the guard drops.
    pub fn watch_stream(&'static self) -> StreamGauge {
        self.watch_streams.fetch_add(1, Ordering::Relaxed);
        StreamGauge(&self.watch_streams)
    }

    /// Counts an open lifecycle feed until the guard drops.
    pub fn lifecycle_stream(&'static self) -> StreamGauge {
        self.lifecycle_streams.fetch_add(1, Ordering::Relaxed);
        StreamGauge(&self.lifecycle_streams)
    }

    /// One store commit (a batch of writes in one transaction).
    pub fn store_commit(&self, took: Duration) {
        self.store_commit.observe(took);
    }

    /// One fsync of the store's WAL.
    pub fn store_fsync(&self, took: Duration) {
        self.store_fsync.observe(took);
    }

    /// A plugin version moved to the blocking pool for good.
    pub fn demoted(&self) {
        self.demotions.fetch_add(1, Ordering::Relaxed);
    }

    /// A bot searched for `took` and ran `iterations` playouts.
    pub fn bot_search(&self, took: Duration, iterations: u64) {
        self.bot_searches.observe(took);
        self.bot_iterations.fetch_add(iterations, Ordering::Relaxed);
    }

    /// A core call run on the blocking pool.
    pub fn pool_call(&self) {
        self.pool_calls.fetch_add(1, Ordering::Relaxed);
    }

    /// Where the match gauges are read from when scraped (the first call
    /// wins: one engine per process).
    pub fn count_matches_with(&self, counter: impl Fn() -> MatchCounts + Send + Sync + 'static) {
        let _ = self.match_counter.set(Box::new(counter));
    }

    /// Every metric in the Prometheus text format (version 0.0.4).
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(16 * 1024);
        self.render_rpcs(&mut out);
        self.render_matches(&mut out);
        header(
            &mut out,
            "tabletop_watch_streams",
            "gauge",
            "Open Watch streams (WatchMatch).",
        );
        gauge_line(&mut out, "tabletop_watch_streams", &self.watch_streams);
        header(
            &mut out,
            "tabletop_lifecycle_streams",
            "gauge",
            "Open lifecycle feeds (FollowLifecycle).",
        );
        gauge_line(
            &mut out,
            "tabletop_lifecycle_streams",
            &self.lifecycle_streams,
        );
        header(
            &mut out,
            "tabletop_store_commit_seconds",
            "histogram",
            "Time to commit one batch of store writes (SQLite store).",
        );
        self.store_commit
            .render(&mut out, "tabletop_store_commit_seconds", "");
        header(
            &mut out,
            "tabletop_store_fsync_seconds",
            "histogram",
            "Time of one fsync of the store's WAL (SQLite store).",
        );
        self.store_fsync
            .render(&mut out, "tabletop_store_fsync_seconds", "");
        header(
            &mut out,
            "tabletop_plugin_demotions_total",
            "counter",
            "Plugin versions moved to the blocking pool for good after a call overran --inline-limit-ms.",
        );
        counter_line(
            &mut out,
            "tabletop_plugin_demotions_total",
            "",
            &self.demotions,
        );
        header(
            &mut out,
            "tabletop_blocking_pool_calls_total",
            "counter",
            "Core calls run on the blocking pool instead of the async worker that received them.",
        );
        counter_line(
            &mut out,
            "tabletop_blocking_pool_calls_total",
            "",
            &self.pool_calls,
        );
        header(
            &mut out,
            "tabletop_bot_search_seconds",
            "histogram",
            "Time of one server-side bot's search for a move.",
        );
        self.bot_searches
            .render(&mut out, "tabletop_bot_search_seconds", "");
        header(
            &mut out,
            "tabletop_bot_search_iterations_total",
            "counter",
            "Search iterations (playouts) run by server-side bots.",
        );
        counter_line(
            &mut out,
            "tabletop_bot_search_iterations_total",
            "",
            &self.bot_iterations,
        );
        out
    }

    fn render_rpcs(&self, out: &mut String) {
        let rpcs = self.rpcs.sorted();
        header(
            out,
            "tabletop_rpcs_total",
            "counter",
            "gRPC calls finished, by method and status code.",
        );
        for (method, stats) in &rpcs {
            let (service, name) = method.split_once('/').unwrap_or(("", method));
            for (code, count) in CODE_NAMES.iter().zip(&stats.codes) {
                let count = count.load(Ordering::Relaxed);
                if count > 0 {
                    let _ = writeln!(
                        out,
                        "tabletop_rpcs_total{{service=\"{}\",method=\"{}\",code=\"{code}\"}} {count}",
                        escape(service),
                        escape(name)
                    );
                }
            }
        }
        header(
            out,
            "tabletop_rpc_duration_seconds",
            "histogram",
            "gRPC call latency by method, from the request's arrival to the end of the reply (a stream's whole life).",
        );
        for (method, stats) in &rpcs {
            let (service, name) = method.split_once('/').unwrap_or(("", method));
            let labels = format!(
                "service=\"{}\",method=\"{}\"",
                escape(service),
                escape(name)
            );
            stats
                .duration
                .render(out, "tabletop_rpc_duration_seconds", &labels);
        }
        header(
            out,
            "tabletop_rpcs_in_flight",
            "gauge",
            "gRPC calls being served now.",
        );
        gauge_line(out, "tabletop_rpcs_in_flight", &self.in_flight);
        header(
            out,
            "tabletop_limit_refusals_total",
            "counter",
            "Calls refused by a limit, by limit.",
        );
        for (limit, count) in LimitKind::ALL.iter().zip(&self.refusals) {
            counter_line(
                out,
                "tabletop_limit_refusals_total",
                &format!("limit=\"{}\"", limit.name()),
                count,
            );
        }
    }

    fn render_matches(&self, out: &mut String) {
        let games = self.games.sorted();
        let per_game = |out: &mut String, name: &str, help: &str, pick: fn(&GameStats) -> u64| {
            header(out, name, "counter", help);
            for (game, stats) in &games {
                let _ = writeln!(out, "{name}{{game=\"{}\"}} {}", escape(game), pick(stats));
            }
        };
        per_game(
            out,
            "tabletop_actions_total",
            "Actions accepted, by game (each step of a shorthand counts).",
            |g| g.actions.load(Ordering::Relaxed),
        );
        per_game(
            out,
            "tabletop_matches_created_total",
            "Matches created or imported, by game.",
            |g| g.created.load(Ordering::Relaxed),
        );
        per_game(
            out,
            "tabletop_matches_finished_total",
            "Matches that finished while this host ran, by game.",
            |g| g.finished.load(Ordering::Relaxed),
        );
        header(
            out,
            "tabletop_plugin_call_seconds",
            "histogram",
            "Engine calls into a game's plugin, by game and call, timed under the match's lock.",
        );
        for (game, stats) in &games {
            for (call, histogram) in PluginCall::ALL.iter().zip(&stats.calls) {
                if histogram.count() > 0 {
                    let labels = format!("game=\"{}\",call=\"{}\"", escape(game), call.name());
                    histogram.render(out, "tabletop_plugin_call_seconds", &labels);
                }
            }
        }
        header(
            out,
            "tabletop_matches",
            "gauge",
            "Matches the host holds, by state: live (waiting or running), finished (in memory), unavailable (plugin version not loaded).",
        );
        let counts = self
            .match_counter
            .get()
            .map(|count| count())
            .unwrap_or_default();
        for (state, n) in [
            ("live", counts.live),
            ("finished", counts.finished),
            ("unavailable", counts.unavailable),
        ] {
            let _ = writeln!(out, "tabletop_matches{{state=\"{state}\"}} {n}");
        }
        header(
            out,
            "tabletop_matches_unloaded_total",
            "counter",
            "Finished matches that left memory (--finished-retention); the store keeps them.",
        );
        counter_line(out, "tabletop_matches_unloaded_total", "", &self.unloaded);
        header(
            out,
            "tabletop_matches_read_back_total",
            "counter",
            "Matches read back from the store into memory when asked for.",
        );
        counter_line(out, "tabletop_matches_read_back_total", "", &self.read_back);
    }
}

fn header(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

fn counter_line(out: &mut String, name: &str, labels: &str, value: &AtomicU64) {
    let value = value.load(Ordering::Relaxed);
    if labels.is_empty() {
        let _ = writeln!(out, "{name} {value}");
    } else {
        let _ = writeln!(out, "{name}{{{labels}}} {value}");
    }
}

fn gauge_line(out: &mut String, name: &str, value: &AtomicI64) {
    let _ = writeln!(out, "{name} {}", value.load(Ordering::Relaxed).max(0));
}

/// A label value as the text format needs it.
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_is_declared_and_counted_once() {
        let m = Metrics::default();
        m.rpc("tabletop.v1.Matches/SubmitAction")
            .finished(0, Duration::from_micros(80));
        m.rpc("tabletop.v1.Matches/SubmitAction")
            .finished(9, Duration::from_micros(80));
        m.actions("war", 3);
        m.match_created("war");
        drop(m.plugin_call("war", PluginCall::Submit));
        m.refused(LimitKind::CreatesPerMinute);
        m.count_matches_with(|| MatchCounts {
            live: 2,
            finished: 1,
            unavailable: 0,
        });
        let text = m.render();
        for line in [
            "tabletop_rpcs_total{service=\"tabletop.v1.Matches\",method=\"SubmitAction\",code=\"OK\"} 1",
            "tabletop_rpcs_total{service=\"tabletop.v1.Matches\",method=\"SubmitAction\",code=\"FAILED_PRECONDITION\"} 1",
            "tabletop_rpc_duration_seconds_count{service=\"tabletop.v1.Matches\",method=\"SubmitAction\"} 2",
            "tabletop_actions_total{game=\"war\"} 3",
            "tabletop_matches_created_total{game=\"war\"} 1",
            "tabletop_plugin_call_seconds_count{game=\"war\",call=\"submit\"} 1",
            "tabletop_limit_refusals_total{limit=\"credential_creates_per_minute\"} 1",
            "tabletop_matches{state=\"live\"} 2",
            "tabletop_matches{state=\"finished\"} 1",
        ] {
            assert!(
                text.lines().any(|l| l == line),
                "missing `{line}` in\n{text}"
            );
        }
        let types: Vec<&str> = text.lines().filter(|l| l.starts_with("# TYPE")).collect();
        let mut unique = types.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(types.len(), unique.len(), "a family declared twice");
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
