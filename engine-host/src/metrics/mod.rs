//! What the host counts for its operator, and the Prometheus text it is
//! scraped as (`--metrics-listen`, served by [`http`]).
//!
//! One process-wide set ([`metrics`]), recorded where things happen: the
//! gRPC layer (calls, codes, latency, refusals, watchers), the engine
//! (actions, matches, plugin calls, moves to the blocking pool) and the
//! SQLite store (commit and fsync latency). Every metric is registered in a
//! `prometheus_client` registry, which writes the text format (version
//! 0.0.4). Recording is a few relaxed atomic adds, and a read-locked map
//! lookup by `&str` for a labelled series (no allocation), so it stays on
//! whether or not anyone scrapes. Every metric is listed in the README;
//! [`Metrics::render`] writes them all (a labelled family from its first
//! series on: before the first call, `tabletop_rpcs_total` is not listed).

mod bots;
mod histogram;
pub mod http;
mod streams;

pub use streams::StreamGauge;

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, OnceLock, RwLock};
use std::time::{Duration, Instant};

use prometheus_client::encoding::{EncodeLabelSet, EncodeMetric, MetricEncoder, prometheus_text};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::{MetricType, TypedMetric};
use prometheus_client::registry::Registry;

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
    /// One tenant's matches created per minute, by all its credentials.
    TenantCreatesPerMinute,
    /// The live matches one tenant holds.
    TenantLiveMatches,
    /// The request timeout.
    Timeout,
}

impl LimitKind {
    const ALL: [LimitKind; 8] = [
        LimitKind::ServerCalls,
        LimitKind::CredentialCalls,
        LimitKind::CredentialRate,
        LimitKind::CreatesPerMinute,
        LimitKind::LiveMatches,
        LimitKind::TenantCreatesPerMinute,
        LimitKind::TenantLiveMatches,
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
            LimitKind::TenantCreatesPerMinute => "tenant_creates_per_minute",
            LimitKind::TenantLiveMatches => "tenant_live_matches",
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

/// `service` and `method` of a gRPC method named `service/method`.
fn service_and_method(method: &str) -> (String, String) {
    let (service, name) = method.split_once('/').unwrap_or(("", method));
    (service.to_string(), name.to_string())
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct RpcLabels {
    service: String,
    method: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct RpcCodeLabels {
    service: String,
    method: String,
    code: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct LimitLabels {
    limit: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct GameLabels {
    game: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct PluginCallLabels {
    game: String,
    call: &'static str,
}

/// One gRPC method's calls. A code's series is registered on its first
/// call, so a scrape lists only the codes the method answered with.
#[derive(Debug)]
pub struct RpcStats {
    labels: RpcLabels,
    codes: [OnceLock<Counter>; CODE_NAMES.len()],
    codes_family: Family<RpcCodeLabels, Counter>,
    duration: Histogram,
}

impl RpcStats {
    /// Records a finished call: its status code and how long it took.
    pub fn finished(&self, code: i32, duration: Duration) {
        let index = usize::try_from(code)
            .ok()
            .filter(|&c| c < CODE_NAMES.len())
            .unwrap_or(2);
        self.codes[index]
            .get_or_init(|| {
                self.codes_family.get_or_create_owned(&RpcCodeLabels {
                    service: self.labels.service.clone(),
                    method: self.labels.method.clone(),
                    code: CODE_NAMES[index],
                })
            })
            .inc();
        self.duration.observe(duration);
    }
}

/// One game's play. A plugin call's histogram is registered on its first
/// call, so a scrape lists only the calls made.
#[derive(Debug)]
pub struct GameStats {
    game: String,
    actions: Counter,
    created: Counter,
    finished: Counter,
    calls: [OnceLock<Histogram>; PluginCall::ALL.len()],
    calls_family: Family<PluginCallLabels, Histogram>,
}

impl GameStats {
    fn call(&self, call: PluginCall) -> &Histogram {
        self.calls[call as usize].get_or_init(|| {
            self.calls_family.get_or_create_owned(&PluginCallLabels {
                game: self.game.clone(),
                call: call.name(),
            })
        })
    }
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
        self.game.call(self.call).observe(self.started.elapsed());
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

/// Plugin workers, counted when scraped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorkerCounts {
    /// Worker processes serving now.
    pub running: u64,
    /// Worker processes started since the host started (first starts and
    /// restarts after a fault).
    pub started: u64,
}

type WorkerCounter = Box<dyn Fn() -> WorkerCounts + Send + Sync>;

/// The `tabletop_plugin_workers` gauge: read from the engine when scraped.
#[derive(Clone, Default)]
struct WorkerGauge {
    counter: Arc<OnceLock<WorkerCounter>>,
}

impl std::fmt::Debug for WorkerGauge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkerGauge").finish_non_exhaustive()
    }
}

impl EncodeMetric for WorkerGauge {
    fn encode(&self, mut encoder: MetricEncoder<'_>) -> Result<(), std::fmt::Error> {
        let counts = self.counter.get().map(|count| count()).unwrap_or_default();
        for (state, n) in [("running", counts.running), ("started", counts.started)] {
            encoder
                .encode_family(&[("count", state)])?
                .encode_gauge(&n)?;
        }
        Ok(())
    }

    fn metric_type(&self) -> MetricType {
        MetricType::Gauge
    }
}

impl TypedMetric for WorkerGauge {
    const TYPE: MetricType = MetricType::Gauge;
}

/// The `tabletop_matches` gauge: read from the engine when scraped.
#[derive(Clone, Default)]
struct MatchGauge {
    counter: Arc<OnceLock<MatchCounter>>,
}

impl std::fmt::Debug for MatchGauge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MatchGauge").finish_non_exhaustive()
    }
}

impl EncodeMetric for MatchGauge {
    fn encode(&self, mut encoder: MetricEncoder<'_>) -> Result<(), std::fmt::Error> {
        let counts = self.counter.get().map(|count| count()).unwrap_or_default();
        for (state, n) in [
            ("live", counts.live),
            ("finished", counts.finished),
            ("unavailable", counts.unavailable),
        ] {
            encoder
                .encode_family(&[("state", state)])?
                .encode_gauge(&n)?;
        }
        Ok(())
    }

    fn metric_type(&self) -> MetricType {
        MetricType::Gauge
    }
}

impl TypedMetric for MatchGauge {
    const TYPE: MetricType = MetricType::Gauge;
}

/// The series of one label value (a method, a game), made on first use
/// and then found by `&str`, without allocating. The keys are bounded by
/// what the host serves: the gRPC layer names only known methods, and
/// games come from loaded plugins.
#[derive(Debug)]
struct Series<V> {
    by_key: RwLock<HashMap<String, Arc<V>>>,
}

impl<V> Default for Series<V> {
    fn default() -> Self {
        Series {
            by_key: RwLock::new(HashMap::new()),
        }
    }
}

impl<V> Series<V> {
    fn get(&self, key: &str, make: impl FnOnce(&str) -> V) -> Arc<V> {
        if let Some(series) = self
            .by_key
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
        {
            return Arc::clone(series);
        }
        Arc::clone(
            self.by_key
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .entry(key.to_string())
                .or_insert_with(|| Arc::new(make(key))),
        )
    }
}

/// Every metric of the host, and the registry that writes them out. The
/// handles here and the registry's share their counts.
pub struct Metrics {
    registry: Registry,
    rpcs: Series<RpcStats>,
    rpc_codes: Family<RpcCodeLabels, Counter>,
    rpc_durations: Family<RpcLabels, Histogram>,
    in_flight: Gauge,
    refusals: [Counter; LimitKind::ALL.len()],
    games: Series<GameStats>,
    actions: Family<GameLabels, Counter>,
    created: Family<GameLabels, Counter>,
    finished: Family<GameLabels, Counter>,
    plugin_calls: Family<PluginCallLabels, Histogram>,
    match_counter: Arc<OnceLock<MatchCounter>>,
    unloaded: Counter,
    read_back: Counter,
    streams: streams::StreamMetrics,
    store_commit: Histogram,
    store_fsync: Histogram,
    store_round_trips: Counter,
    demotions: Counter,
    pool_calls: Counter,
    bot_searches: Histogram,
    bot_iterations: Counter,
    bots: bots::BotMetrics,
    plugin_faults: Family<GameLabels, Counter>,
    quarantines: Family<GameLabels, Counter>,
    worker_counter: Arc<OnceLock<WorkerCounter>>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Default for Metrics {
    /// Every metric at zero, registered in the order a scrape lists them.
    /// A help text is a sentence without its full stop, and a counter's
    /// name has no `_total`: the registry adds both.
    fn default() -> Self {
        let limits: Family<LimitLabels, Counter> = Family::default();
        let metrics = Metrics {
            registry: Registry::default(),
            rpcs: Series::default(),
            rpc_codes: Family::default(),
            rpc_durations: Family::default(),
            in_flight: Gauge::default(),
            refusals: LimitKind::ALL.map(|limit| {
                limits.get_or_create_owned(&LimitLabels {
                    limit: limit.name(),
                })
            }),
            games: Series::default(),
            actions: Family::default(),
            created: Family::default(),
            finished: Family::default(),
            plugin_calls: Family::default(),
            match_counter: Arc::default(),
            unloaded: Counter::default(),
            read_back: Counter::default(),
            streams: streams::StreamMetrics::default(),
            store_commit: Histogram::default(),
            store_fsync: Histogram::default(),
            store_round_trips: Counter::default(),
            demotions: Counter::default(),
            pool_calls: Counter::default(),
            bot_searches: Histogram::default(),
            bot_iterations: Counter::default(),
            bots: bots::BotMetrics::default(),
            plugin_faults: Family::default(),
            quarantines: Family::default(),
            worker_counter: Arc::default(),
        };
        let mut r = Registry::default();
        let m = &metrics;
        r.register(
            "tabletop_rpcs",
            "gRPC calls finished, by method and status code",
            m.rpc_codes.clone(),
        );
        r.register(
            "tabletop_rpc_duration_seconds",
            "gRPC call latency by method, from the request's arrival to the end of the reply (a stream's whole life)",
            m.rpc_durations.clone(),
        );
        r.register(
            "tabletop_rpcs_in_flight",
            "gRPC calls being served now",
            m.in_flight.clone(),
        );
        r.register(
            "tabletop_limit_refusals",
            "Calls refused by a limit, by limit",
            limits,
        );
        r.register(
            "tabletop_actions",
            "Actions accepted, by game (each step of a shorthand counts)",
            m.actions.clone(),
        );
        r.register(
            "tabletop_matches_created",
            "Matches created or imported, by game",
            m.created.clone(),
        );
        r.register(
            "tabletop_matches_finished",
            "Matches that finished while this host ran, by game",
            m.finished.clone(),
        );
        r.register(
            "tabletop_plugin_call_seconds",
            "Engine calls into a game's plugin, by game and call, timed under the match's lock",
            m.plugin_calls.clone(),
        );
        r.register(
            "tabletop_matches",
            "Matches the host holds, by state: live (waiting or running), finished (in memory), unavailable (plugin version not loaded)",
            MatchGauge {
                counter: Arc::clone(&m.match_counter),
            },
        );
        r.register(
            "tabletop_matches_unloaded",
            "Finished matches that left memory (--finished-retention); the store keeps them",
            m.unloaded.clone(),
        );
        r.register(
            "tabletop_matches_read_back",
            "Matches read back from the store into memory when asked for",
            m.read_back.clone(),
        );
        m.streams.register(&mut r);
        r.register(
            "tabletop_store_commit_seconds",
            "Time to commit one batch of store writes (SQLite and PostgreSQL stores)",
            m.store_commit.clone(),
        );
        r.register(
            "tabletop_store_fsync_seconds",
            "Time of one fsync of the store's WAL (SQLite store)",
            m.store_fsync.clone(),
        );
        r.register(
            "tabletop_store_round_trips",
            "Requests the PostgreSQL store sent its server and waited on: statements, preparations, BEGIN, COMMIT and savepoints",
            m.store_round_trips.clone(),
        );
        r.register(
            "tabletop_plugin_demotions",
            "Plugin versions moved to the blocking pool for good after a call overran --inline-limit-ms",
            m.demotions.clone(),
        );
        r.register(
            "tabletop_blocking_pool_calls",
            "Core calls run on the blocking pool instead of the async worker that received them",
            m.pool_calls.clone(),
        );
        r.register(
            "tabletop_plugin_faults",
            "Calls in which a plugin's worker died (a crash, an overrun deadline or memory cap), by game",
            m.plugin_faults.clone(),
        );
        r.register(
            "tabletop_matches_quarantined",
            "Matches quarantined because their plugin's worker died in one of their calls, by game",
            m.quarantines.clone(),
        );
        r.register(
            "tabletop_plugin_workers",
            "Plugin worker processes: running now, and started since the host started (restarts included)",
            WorkerGauge {
                counter: Arc::clone(&m.worker_counter),
            },
        );
        r.register(
            "tabletop_bot_search_seconds",
            "Time of one server-side bot's search for a move",
            m.bot_searches.clone(),
        );
        r.register(
            "tabletop_bot_search_iterations",
            "Search iterations (playouts) run by server-side bots",
            m.bot_iterations.clone(),
        );
        m.bots.register(&mut r);
        Metrics {
            registry: r,
            ..metrics
        }
    }
}

impl Metrics {
    /// The series of one gRPC method (`service/method`, or `unknown`).
    pub fn rpc(&self, method: &str) -> Arc<RpcStats> {
        self.rpcs.get(method, |method| {
            let (service, method) = service_and_method(method);
            let labels = RpcLabels { service, method };
            RpcStats {
                duration: self.rpc_durations.get_or_create_owned(&labels),
                labels,
                codes: Default::default(),
                codes_family: self.rpc_codes.clone(),
            }
        })
    }

    fn game(&self, game: &str) -> Arc<GameStats> {
        self.games.get(game, |game| {
            let labels = GameLabels {
                game: game.to_string(),
            };
            GameStats {
                game: game.to_string(),
                actions: self.actions.get_or_create_owned(&labels),
                created: self.created.get_or_create_owned(&labels),
                finished: self.finished.get_or_create_owned(&labels),
                calls: Default::default(),
                calls_family: self.plugin_calls.clone(),
            }
        })
    }

    /// Calls in flight: one more (`+1`) or one fewer (`-1`).
    pub fn add_in_flight(&self, delta: i64) {
        self.in_flight.inc_by(delta);
    }

    /// A call refused by `limit`.
    pub fn refused(&self, limit: LimitKind) {
        self.refusals[limit as usize].inc();
    }

    /// How many calls `limit` refused so far.
    pub fn refusals(&self, limit: LimitKind) -> u64 {
        self.refusals[limit as usize].get()
    }

    /// `count` actions accepted in a match of `game`.
    pub fn actions(&self, game: &str, count: u64) {
        self.game(game).actions.inc_by(count);
    }

    /// A match of `game` created.
    pub fn match_created(&self, game: &str) {
        self.game(game).created.inc();
    }

    /// A match of `game` finished.
    pub fn match_finished(&self, game: &str) {
        self.game(game).finished.inc();
    }

    /// Times a call into `game`'s plugin until the timer drops.
    pub fn plugin_call(&self, game: &str, call: PluginCall) -> CallTimer {
        CallTimer {
            game: self.game(game),
            call,
            started: Instant::now(),
        }
    }

    /// `count` finished matches left memory.
    pub fn unloaded(&self, count: u64) {
        self.unloaded.inc_by(count);
    }

    /// A match read back from the store into memory.
    pub fn read_back(&self) {
        self.read_back.inc();
    }

    /// One store commit (a batch of writes in one transaction).
    pub fn store_commit(&self, took: Duration) {
        self.store_commit.observe(took);
    }

    /// `count` requests the PostgreSQL store sent its server and waited on.
    pub fn store_round_trips(&self, count: u64) {
        self.store_round_trips.inc_by(count);
    }

    /// One fsync of the store's WAL.
    pub fn store_fsync(&self, took: Duration) {
        self.store_fsync.observe(took);
    }

    /// A plugin version moved to the blocking pool for good.
    pub fn demoted(&self) {
        self.demotions.inc();
    }

    /// A bot searched for `took` and ran `iterations` playouts.
    pub fn bot_search(&self, took: Duration, iterations: u64) {
        self.bot_searches.observe(took);
        self.bot_iterations.inc_by(iterations);
    }

    /// A worker of `game`'s plugin died in a call.
    pub fn plugin_fault(&self, game: &str) {
        self.plugin_faults
            .get_or_create(&GameLabels {
                game: game.to_string(),
            })
            .inc();
    }

    /// A match of `game` was quarantined.
    pub fn quarantined(&self, game: &str) {
        self.quarantines
            .get_or_create(&GameLabels {
                game: game.to_string(),
            })
            .inc();
    }

    /// Where the worker gauge is read from when scraped (the first call
    /// wins).
    pub fn count_workers_with(&self, counter: impl Fn() -> WorkerCounts + Send + Sync + 'static) {
        let _ = self.worker_counter.set(Box::new(counter));
    }

    /// A core call run on the blocking pool.
    pub fn pool_call(&self) {
        self.pool_calls.inc();
    }

    /// Where the match gauges are read from when scraped (the first call
    /// wins: one engine per process).
    pub fn count_matches_with(&self, counter: impl Fn() -> MatchCounts + Send + Sync + 'static) {
        let _ = self.match_counter.set(Box::new(counter));
    }

    /// Every metric in the Prometheus text format (version 0.0.4).
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(16 * 1024);
        // Writing to a `String` does not fail, and no metric here fails
        // to encode.
        let _ = prometheus_text::encode(&mut out, &self.registry);
        out
    }
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
        m.plugin_fault("faulty");
        m.quarantined("faulty");
        m.count_workers_with(|| WorkerCounts {
            running: 3,
            started: 5,
        });
        let text = m.render();
        for line in [
            "# HELP tabletop_rpcs_total gRPC calls finished, by method and status code.",
            "# TYPE tabletop_rpcs_total counter",
            "tabletop_rpcs_total{service=\"tabletop.v1.Matches\",method=\"SubmitAction\",code=\"OK\"} 1",
            "tabletop_rpcs_total{service=\"tabletop.v1.Matches\",method=\"SubmitAction\",code=\"FAILED_PRECONDITION\"} 1",
            "# TYPE tabletop_rpc_duration_seconds histogram",
            "tabletop_rpc_duration_seconds_count{service=\"tabletop.v1.Matches\",method=\"SubmitAction\"} 2",
            "tabletop_actions_total{game=\"war\"} 3",
            "tabletop_matches_created_total{game=\"war\"} 1",
            "tabletop_matches_finished_total{game=\"war\"} 0",
            "tabletop_plugin_call_seconds_count{game=\"war\",call=\"submit\"} 1",
            "tabletop_limit_refusals_total{limit=\"credential_creates_per_minute\"} 1",
            "tabletop_limit_refusals_total{limit=\"live_matches\"} 0",
            "tabletop_limit_refusals_total{limit=\"tenant_live_matches\"} 0",
            "# TYPE tabletop_matches gauge",
            "tabletop_matches{state=\"live\"} 2",
            "tabletop_matches{state=\"finished\"} 1",
            "tabletop_watch_streams 0",
            "tabletop_bot_search_iterations_total 0",
            "tabletop_bot_searches_queued 0",
            "tabletop_store_commit_seconds_count 0",
            "tabletop_store_round_trips_total 0",
            "tabletop_plugin_faults_total{game=\"faulty\"} 1",
            "tabletop_matches_quarantined_total{game=\"faulty\"} 1",
            "# TYPE tabletop_plugin_workers gauge",
            "tabletop_plugin_workers{count=\"running\"} 3",
            "tabletop_plugin_workers{count=\"started\"} 5",
        ] {
            assert!(
                text.lines().any(|l| l == line),
                "missing `{line}` in\n{text}"
            );
        }
        assert!(
            !text.contains("code=\"INTERNAL\""),
            "a code never answered has no series"
        );
        assert!(
            !text.contains("call=\"view\""),
            "a plugin call never made has no series"
        );
        assert!(!text.contains(".."), "a help text ends in one full stop");
        let types: Vec<&str> = text.lines().filter(|l| l.starts_with("# TYPE")).collect();
        assert_eq!(types.len(), 28, "{text}");
        let mut unique = types.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(types.len(), unique.len(), "a family declared twice");
    }

    #[test]
    fn label_values_are_escaped() {
        let m = Metrics::default();
        m.actions("a\"b\\c\nd", 1);
        let text = m.render();
        assert!(
            text.contains("tabletop_actions_total{game=\"a\\\"b\\\\c\\nd\"} 1"),
            "{text}"
        );
    }
}
