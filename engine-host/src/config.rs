//! Command-line flags and environment variables of `engine-host`.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Parser, ValueEnum};

/// The Tabletop game server: loads every game plugin in a directory and
/// serves matches over gRPC.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "engine-host",
    version,
    about,
    args_override_self = true,
    after_help = "Each plugin file is checked before it is loaded by `engine-host vet-plugin \
                  --cache DIR -- FILE`, which runs the conformance kit on it and prints one \
                  verdict line; `tabletop plugin check FILE` runs the whole kit with a report."
)]
pub struct Config {
    /// Address to listen on; port 0 picks a free port (the bound address is
    /// printed on stdout as `listening on ADDR`).
    #[arg(long, env = "TABLETOP_LISTEN", default_value = "127.0.0.1:50051")]
    pub listen: SocketAddr,

    /// Directory of game plugins (shared libraries). Default: the directory of
    /// this executable, where `cargo build` puts the workspace's plugins.
    #[arg(long, env = "TABLETOP_PLUGIN_DIR")]
    pub plugin_dir: Option<PathBuf>,

    /// Directory for the server's data (the admin token file, private plugin
    /// copies, the match store).
    #[arg(long, env = "TABLETOP_DATA_DIR", default_value = "data")]
    pub data_dir: PathBuf,

    /// Admin token for Admin calls and running-match exports. If unset, one is
    /// generated and written to DATA_DIR/admin-token. Every user of the
    /// machine can read a process's arguments: pass it in the environment
    /// (TABLETOP_ADMIN_TOKEN) or in a file (--admin-token-file) instead.
    #[arg(long, env = "TABLETOP_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<String>,

    /// A file holding the admin token (its first line), readable by its
    /// owner alone.
    #[arg(long, env = "TABLETOP_ADMIN_TOKEN_FILE")]
    pub admin_token_file: Option<PathBuf>,

    /// Longest a single plugin call may take before the request fails.
    #[arg(long, env = "TABLETOP_CALL_DEADLINE_MS", default_value_t = 10_000)]
    pub call_deadline_ms: u64,

    /// Longest a plugin call may run on the async worker that received it
    /// before that plugin version's calls move to the blocking pool (where
    /// the call deadline applies), in ms; 0 sends every call to the pool.
    /// Submits, legal-action lists and views of a free match run on the
    /// worker: the hop to the pool and back cost more than the call.
    #[arg(long, env = "TABLETOP_INLINE_LIMIT_MS", default_value_t = 20)]
    pub inline_limit_ms: u64,

    /// Where matches are kept: `sqlite` (default; the file
    /// DATA_DIR/matches.sqlite3, restored on restart), `memory` (nothing
    /// survives a restart), or a PostgreSQL database by its URL,
    /// `postgres://USER:PASSWORD@HOST:PORT/DATABASE` (or `postgresql://…`;
    /// the schema is made or brought up to date at start; while the server
    /// is down, calls that store anything answer UNAVAILABLE and the health
    /// service NOT_SERVING, until it is back).
    #[arg(
        long,
        env = "TABLETOP_STORE",
        value_name = "sqlite|memory|postgres://…",
        default_value = "sqlite",
        // The URL may hold a password: `--help` does not show it.
        hide_env_values = true,
        value_parser = parse_store
    )]
    pub store: StoreKind,

    /// On a PostgreSQL store, where the other hosts of the database reach
    /// this host's gRPC API (`HOST:PORT`), to forward it the calls of the
    /// matches it holds. Default: the bound listen address, with
    /// 127.0.0.1 for an unspecified IP (hosts on one machine). With
    /// `--tls-cert` the others reach it over TLS and check its certificate
    /// against HOST.
    #[arg(long, env = "TABLETOP_ADVERTISE")]
    pub advertise: Option<String>,

    /// On a PostgreSQL store, the CA (PEM) that signs the certificates of
    /// the other hosts, checked when this host forwards a call to one that
    /// serves TLS. Default: the system's trusted roots.
    #[arg(long, env = "TABLETOP_PEER_CA")]
    pub peer_ca: Option<PathBuf>,

    /// On a PostgreSQL store, how long this host's leases of its matches
    /// last past its last heartbeat (renewed every third of it): when the
    /// host dies, another takes its matches over within about this long.
    #[arg(long, env = "TABLETOP_LEASE_MS", default_value_t = 5000, value_parser = clap::value_parser!(u64).range(300..=600_000))]
    pub lease_ms: u64,

    /// How long a finished match stays in memory, in seconds, once nobody
    /// watches it; then it is read back from the store when asked for (the
    /// same answers, after one replay of its log).
    #[arg(long, env = "TABLETOP_FINISHED_RETENTION", default_value_t = 300)]
    pub finished_retention: u64,

    /// With `--store memory`: how many finished matches are kept; beyond
    /// it the oldest finished are dropped, and asking for one answers
    /// NOT_FOUND (reason MATCH_EXPIRED). A running match is never dropped.
    #[arg(long, env = "TABLETOP_MEMORY_FINISHED_CAP", default_value_t = 10_000)]
    pub memory_finished_cap: usize,

    /// How often the plugin directory is checked for new plugin files, in ms
    /// (0 turns hot-adding off). A file is loaded once its size and mtime are
    /// the same at two checks in a row, so a half-copied file is never loaded.
    #[arg(long, env = "TABLETOP_PLUGIN_POLL_MS", default_value_t = 250)]
    pub plugin_poll_ms: u64,

    /// Longest the check of one plugin file may take, in ms. Every plugin
    /// file is opened and played a little in a child process before the host
    /// loads it; a check that gives no verdict in time is killed and the file
    /// refused as hung.
    #[arg(
        long,
        env = "TABLETOP_PLUGIN_VET_TIMEOUT_MS",
        default_value_t = 10_000,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub plugin_vet_timeout_ms: u64,

    /// Time the conformance kit may spend starting matches when it checks a
    /// plugin file before loading, in ms (each player count plays one match
    /// whatever the budget). The check runs in the checking child process;
    /// a pass is cached by the file's content (see --plugin-check-cache).
    #[arg(
        long,
        env = "TABLETOP_PLUGIN_CHECK_BUDGET_MS",
        default_value_t = tabletop_loader::vet::DEFAULT_BUDGET_MS
    )]
    pub plugin_check_budget_ms: u64,

    /// The checking child process's address space cap, in MiB: a plugin
    /// that allocates without bound fails its check.
    #[arg(
        long,
        env = "TABLETOP_PLUGIN_CHECK_MEMORY_MIB",
        default_value_t = tabletop_loader::vet::DEFAULT_MEMORY_MIB,
        value_parser = clap::value_parser!(u64).range(64..)
    )]
    pub plugin_check_memory_mib: u64,

    /// Trusts one plugin build to run inside the host, as `NAME=SHA256` (the
    /// game's name and the hex SHA-256 of its file; repeat for more). Every
    /// other plugin runs in a worker process of its own. A file that claims
    /// the name with other content is not trusted.
    #[arg(long = "trust-plugin", value_name = "NAME=SHA256", value_parser = parse_trusted_build)]
    pub trust_plugin: Vec<(String, String)>,

    /// Trusts every file whose content is that of a file in DIR (as DIR is
    /// at the start) to run inside the host. Repeat for more directories.
    #[arg(long = "trusted-plugin-dir", value_name = "DIR")]
    pub trusted_plugin_dir: Vec<PathBuf>,

    /// Runs every plugin inside the host, none in worker processes: a fault
    /// in any plugin then takes the host down.
    #[arg(long)]
    pub trust_all_plugins: bool,

    /// Each plugin worker's address-space cap, in MiB.
    #[arg(
        long,
        env = "TABLETOP_PLUGIN_WORKER_MEMORY_MIB",
        default_value_t = 2_048,
        value_parser = clap::value_parser!(u64).range(64..)
    )]
    pub plugin_worker_memory_mib: u64,

    /// The longest one call into a plugin worker may take, in ms; a worker
    /// that overruns it is killed (a bot's search may take its own think
    /// time on top).
    #[arg(
        long,
        env = "TABLETOP_PLUGIN_CALL_DEADLINE_MS",
        default_value_t = 10_000,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub plugin_call_deadline_ms: u64,

    /// A plugin whose workers died this many times within
    /// --plugin-fault-window-s takes no new matches until the faults age
    /// out.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub plugin_faults: u32,

    /// The window of --plugin-faults, in seconds.
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..))]
    pub plugin_fault_window_s: u64,

    /// Lines of a plugin worker's stdout and stderr logged per second, each
    /// stream; the rest are counted and dropped.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    pub plugin_output_lines_per_second: u32,

    /// Directory of passing plugin checks, keyed by the file's SHA-256, the
    /// kit's version and the budget: a file that passed is not checked
    /// again. Default: DATA_DIR/plugin-checks.
    #[arg(long, env = "TABLETOP_PLUGIN_CHECK_CACHE")]
    pub plugin_check_cache: Option<PathBuf>,

    /// Largest plugin file the host reads, in bytes (LoadPlugin, the plugin
    /// directory). Only regular files are read at all: a FIFO, a device or
    /// a directory is refused before it is opened.
    #[arg(
        long,
        env = "TABLETOP_MAX_PLUGIN_BYTES",
        default_value_t = tabletop_loader::file::DEFAULT_MAX_PLUGIN_BYTES,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub max_plugin_bytes: u64,

    /// Most threads the blocking pool runs at once (the pool serves core
    /// calls that may wait on a plugin or the store: Watch pages, reads of
    /// unloaded matches, calls of demoted plugins). Default: 8 per core, at
    /// least 16 and at most 64. Calls beyond it wait in line; a call stuck
    /// in a plugin holds its thread until the plugin returns.
    #[arg(
        long,
        env = "TABLETOP_BLOCKING_THREADS",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub blocking_threads: Option<u32>,

    /// The async runtime's worker threads, which serve every gRPC call and
    /// run a plugin's quick calls inline. Default: one per core when every
    /// plugin is trusted (`--trust-all-plugins`), otherwise
    /// [`RUNTIME_THREADS_PER_CORE_ISOLATED`] per core.
    #[arg(
        long,
        env = "TABLETOP_RUNTIME_THREADS",
        value_parser = clap::value_parser!(u32).range(1..=1024)
    )]
    pub runtime_threads: Option<u32>,

    /// Most of one caller's calls on the blocking pool at once (a seat for
    /// a seat token's call; a credential; the anonymous key); the rest wait
    /// without a thread. Default: a quarter of the pool. 0: no limit.
    #[arg(long, env = "TABLETOP_POOL_CALLS_PER_CALLER")]
    pub pool_calls_per_caller: Option<u32>,

    /// Threads that run the server-side bots' searches, which is also the
    /// most searches that run at once (in this process and in plugin
    /// workers together); the matches whose bots must move beyond that
    /// wait in their creator's queue, served in turn (no RPC waits for a
    /// bot). The searches run at the lowest CPU priority and share the
    /// cores the server leaves idle, each ending at its own time limit.
    /// Default: four per core. 0 runs no bot at all: bot seats wait (their
    /// clocks run) until a host with bot threads serves their matches, the
    /// operator's way to serve every other match while a bot's search takes
    /// the host down.
    #[arg(long, env = "TABLETOP_BOT_THREADS")]
    pub bot_threads: Option<u32>,

    /// The most bot searches the matches of one creator run at once: one
    /// organizer credential, the admin, or all anonymous callers together.
    /// Its other matches wait for one of its own searches to end, so a
    /// creator with many long-thinking bots holds no more of the
    /// `--bot-threads` slots than this.
    #[arg(
        long,
        env = "TABLETOP_BOT_SEARCHES_PER_CREATOR",
        default_value_t = 2,
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub bot_searches_per_creator: u32,

    /// The longest a server-side bot thinks about one move, in ms, whatever
    /// its spec asks for (a bot with a clock also keeps within three
    /// quarters of the time its seat has left).
    #[arg(
        long,
        env = "TABLETOP_BOT_MAX_THINK_MS",
        default_value_t = 10_000,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub bot_max_think_ms: u64,

    /// The longest a bot of a match an anonymous caller created thinks
    /// about one move, in ms (within `--bot-max-think-ms`). All anonymous
    /// callers share it, as they share one rate bucket; an organizer
    /// credential's and the admin's matches have `--bot-max-think-ms`.
    #[arg(
        long,
        env = "TABLETOP_ANONYMOUS_BOT_MAX_THINK_MS",
        default_value_t = 1_000,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub anonymous_bot_max_think_ms: u64,

    /// Whether a caller without a credential may create matches (never
    /// with a seed or a hidden-information start position: those need an
    /// organizer credential or the admin token). `deny` leaves creating to
    /// organizers and the admin, for a host a platform runs.
    #[arg(
        long,
        env = "TABLETOP_ANONYMOUS_CREATE",
        value_enum,
        default_value_t = AnonymousCreate::Allow
    )]
    pub anonymous_create: AnonymousCreate,

    /// An anonymous caller's match whose open seats are not all taken this
    /// many seconds after creation is aborted (a shorter deadline of its
    /// own stands); 0: no bound. Organizers' matches wait as they say.
    #[arg(
        long,
        env = "TABLETOP_ANONYMOUS_OPEN_SEAT_WAIT_S",
        default_value_t = 3_600,
        value_parser = clap::value_parser!(u64).range(0..=2_592_000)
    )]
    pub anonymous_open_seat_wait_s: u64,

    /// Log format: `text` (coloured only when stderr is a terminal) or
    /// `json`, one object per line (fields in the README).
    #[arg(long, env = "TABLETOP_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Serve Prometheus metrics on `http://ADDR/metrics` (plain HTTP; keep
    /// it on a private address). Off unless given.
    #[arg(long, env = "TABLETOP_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,

    /// Serve the web page on `http://ADDR/` (its assets are in the binary),
    /// with the whole API over gRPC-web on the same address for it: HTTP/1.1
    /// and HTTP/2, TLS when the gRPC listener has it, and the same limits.
    /// Off unless given (`scripts/serve` gives 127.0.0.1:8080).
    #[arg(long, env = "TABLETOP_WEB_LISTEN")]
    pub web_listen: Option<SocketAddr>,

    /// The listener's TLS certificate chain (PEM); with `--tls-key`, the
    /// gRPC listener speaks TLS only. Without both it is plaintext.
    #[arg(long, env = "TABLETOP_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// The private key of `--tls-cert` (PEM).
    #[arg(long, env = "TABLETOP_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    /// A CA (PEM) whose client certificates the Admin service requires:
    /// Admin calls on a connection without a certificate it signed are
    /// refused (UNAUTHENTICATED). Other services need none.
    #[arg(long, env = "TABLETOP_TLS_CLIENT_CA", requires = "tls_cert")]
    pub tls_client_ca: Option<PathBuf>,

    /// Most calls the server serves at once; a call beyond it is shed at
    /// once (UNAVAILABLE, reason SERVER_BUSY). 0: no limit.
    #[arg(long, env = "TABLETOP_MAX_CALLS_IN_FLIGHT", default_value_t = 4096)]
    pub max_calls_in_flight: usize,

    /// Most calls one credential (or all anonymous callers together) has in
    /// flight at once (RESOURCE_EXHAUSTED, reason TOO_MANY_CALLS_IN_FLIGHT).
    /// 0: no limit.
    #[arg(
        long,
        env = "TABLETOP_CREDENTIAL_CALLS_IN_FLIGHT",
        default_value_t = 1024
    )]
    pub credential_calls_in_flight: usize,

    /// Most calls per second of one credential (or of all anonymous callers
    /// together); a second's worth may come at once (RESOURCE_EXHAUSTED,
    /// reason RATE_LIMITED). 0: no limit.
    #[arg(long, env = "TABLETOP_CREDENTIAL_RATE", default_value_t = 20_000)]
    pub credential_rate: u32,

    /// Most matches one credential (or all anonymous callers together)
    /// creates or imports per minute; a minute's worth may come at once
    /// (RESOURCE_EXHAUSTED, reason CREATION_QUOTA). 0: no limit.
    #[arg(long, env = "TABLETOP_CREATES_PER_MINUTE", default_value_t = 6_000)]
    pub creates_per_minute: u32,

    /// Most live (waiting or running) matches; a creation beyond it is
    /// refused (RESOURCE_EXHAUSTED, reason LIVE_MATCH_LIMIT). 0: no limit.
    #[arg(long, env = "TABLETOP_MAX_LIVE_MATCHES", default_value_t = 1_000_000)]
    pub max_live_matches: usize,

    /// Most live (waiting or running) matches of one tenant; an
    /// organizer's creation beyond it is refused (RESOURCE_EXHAUSTED,
    /// reason LIVE_MATCH_LIMIT, metadata `tenant`). The admin and anonymous
    /// callers are not bound. 0: no limit, the default: a fair share
    /// depends on how many tenants share the server, which only its
    /// operator knows, and a server of one tenant needs none.
    #[arg(long, env = "TABLETOP_TENANT_MAX_LIVE_MATCHES", default_value_t = 0)]
    pub tenant_max_live_matches: usize,

    /// Most matches one tenant's credentials together create or import per
    /// minute; a minute's worth may come at once (RESOURCE_EXHAUSTED,
    /// reason CREATION_QUOTA, metadata `tenant`). The admin and anonymous
    /// callers are not bound. 0: no limit, the default, for the reason
    /// `--tenant-max-live-matches` has.
    #[arg(long, env = "TABLETOP_TENANT_CREATES_PER_MINUTE", default_value_t = 0)]
    pub tenant_creates_per_minute: u32,

    /// Longest a call may take to answer, in ms (a Watch or lifecycle
    /// stream: to start; Backup is not cut); then it fails with
    /// DEADLINE_EXCEEDED (reason REQUEST_TIMEOUT). 0: no limit.
    #[arg(long, env = "TABLETOP_REQUEST_TIMEOUT_MS", default_value_t = 60_000)]
    pub request_timeout_ms: u64,

    /// Largest reply message, in bytes; a larger one fails with
    /// RESOURCE_EXHAUSTED (reason REPLY_TOO_LARGE). gRPC clients refuse
    /// replies over 4 MiB unless told otherwise.
    #[arg(
        long,
        env = "TABLETOP_MAX_REPLY_BYTES",
        default_value_t = 16 << 20,
        value_parser = clap::value_parser!(u64).range(1024..)
    )]
    pub max_reply_bytes: u64,

    /// Most bytes of messages one Watch stream or lifecycle feed queues for
    /// its client; more waits until the client reads.
    #[arg(
        long,
        env = "TABLETOP_STREAM_BUFFER_BYTES",
        default_value_t = 64 * 1024,
        value_parser = clap::value_parser!(u64).range(1024..=(1 << 30))
    )]
    pub stream_buffer_bytes: u64,

    /// How long a stream's queue may stay full before the stream is cut
    /// (UNAVAILABLE, reason STREAM_FELL_BEHIND, with the position to resume
    /// after), in ms.
    #[arg(
        long,
        env = "TABLETOP_STREAM_PATIENCE_MS",
        default_value_t = 10_000,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub stream_patience_ms: u64,

    /// Most Watch streams and lifecycle feeds open on the server at once
    /// (RESOURCE_EXHAUSTED, reason STREAM_LIMIT).
    #[arg(long, env = "TABLETOP_MAX_STREAMS", default_value_t = 20_000)]
    pub max_streams: usize,

    /// Most streams one organizer credential (or all callers without a
    /// credential or seat together: spectators) holds open.
    #[arg(long, env = "TABLETOP_MAX_STREAMS_PER_CALLER", default_value_t = 4_096)]
    pub max_streams_per_caller: usize,

    /// Most streams one seat holds open.
    #[arg(long, env = "TABLETOP_MAX_STREAMS_PER_SEAT", default_value_t = 16)]
    pub max_streams_per_seat: usize,
}

/// Blocking-pool threads per core unless `--blocking-threads` says. The
/// pool's work is CPU-bound (replaying logs through plugins, building views)
/// or waits briefly on the store, so a few threads per core keep the cores
/// busy. More only time-slice the same work while each thread keeps its own
/// cache of freed blocks in malloc (glibc's tcache), which fills slowly:
/// with tokio's default (512), 1 000 Watch streams on 2 cores kept ~250
/// pool threads alive, and the memory malloc counted in use grew by ~10 MB
/// over 16 000 finished matches with no more matches held (BENCHMARKS.md,
/// "History and memory").
pub const BLOCKING_THREADS_PER_CORE: usize = 8;

/// Runtime worker threads per core when some plugin may run in a worker
/// process, unless `--runtime-threads` says. A call inline on a runtime
/// worker to an isolated plugin sleeps in the kernel until the plugin's
/// process answers; with one worker per core, the core it left idles
/// while other calls wait to be read. A second worker per core takes them
/// (BENCHMARKS.md, "Isolation"). With every plugin
/// in the host nothing on a worker sleeps, and more workers than cores
/// only time-slice the same work.
pub const RUNTIME_THREADS_PER_CORE_ISOLATED: usize = 2;

/// Bot threads (search slots) per core unless `--bot-threads` says. The
/// searches run under `SCHED_IDLE` and end at their own wall-clock limits,
/// so more slots than cores costs the server nothing and lets a short
/// bot's search start while long ones run; each running search holds a
/// tree of at most the spec's node cap, which bounds their memory. Four per
/// core lets two creators at `--bot-searches-per-creator`'s default search
/// beside each other on one core.
pub const BOT_THREADS_PER_CORE: usize = 4;

/// The blocking pool's default size on a machine with few cores, so a few
/// calls stuck in a plugin still leave room for the rest.
pub const MIN_BLOCKING_THREADS: usize = 16;

/// The blocking pool's largest default size, however many cores: a burst
/// of calls to a slow plugin never leaves the host with hundreds of
/// threads (more only wait in line for the same plugin).
pub const MAX_DEFAULT_BLOCKING_THREADS: usize = 64;

/// The subcommand the host runs in a child process to check one plugin file
/// (`tabletop_loader::vet`): `engine-host vet-plugin --cache DIR
/// [--timeout-ms N] [--budget-ms N] [--memory-mib N] -- FILE`. It prints one verdict line on stdout. It is
/// read before [`Config`], so the host's own flags and environment variables
/// play no part in it.
pub const VET_SUBCOMMAND: &str = "vet-plugin";

/// The arguments of [`VET_SUBCOMMAND`].
#[derive(Debug, Clone, Parser)]
#[command(name = "engine-host vet-plugin")]
pub struct VetArgs {
    /// Directory for the private copy of the file.
    #[arg(long)]
    pub cache: PathBuf,

    /// Ends the check after this many ms, whatever it is doing.
    #[arg(long)]
    pub timeout_ms: Option<u64>,

    /// The conformance kit's time budget, in ms.
    #[arg(long, default_value_t = tabletop_loader::vet::DEFAULT_BUDGET_MS)]
    pub budget_ms: u64,

    /// Caps the process's address space, in MiB.
    #[arg(long)]
    pub memory_mib: Option<u64>,

    /// The largest plugin file to read (the host's `--max-plugin-bytes`).
    #[arg(long)]
    pub max_plugin_bytes: Option<u64>,

    /// The plugin file.
    pub file: PathBuf,
}

/// The hidden subcommand of a plugin worker process.
pub const WORKER_SUBCOMMAND: &str = "plugin-worker";

/// The arguments of [`WORKER_SUBCOMMAND`].
#[derive(Debug, Clone, Parser)]
#[command(name = "engine-host plugin-worker")]
pub struct WorkerArgs {
    /// Caps the process's address space, in MiB.
    #[arg(long)]
    pub memory_mib: Option<u64>,

    /// The plugin file (a private copy).
    pub file: PathBuf,
}

/// `NAME=SHA256` of `--trust-plugin`.
fn parse_trusted_build(text: &str) -> Result<(String, String), String> {
    let (name, sha256) = text
        .split_once('=')
        .ok_or_else(|| format!("{text:?} is not NAME=SHA256"))?;
    if name.is_empty() || sha256.len() != 64 || !sha256.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!(
            "{text:?} is not NAME=SHA256 (a game name, then 64 hex digits)"
        ));
    }
    Ok((name.to_string(), sha256.to_ascii_lowercase()))
}

/// The match store.
#[derive(Clone, PartialEq, Eq)]
pub enum StoreKind {
    /// An SQLite file under the data directory (durable).
    Sqlite,
    /// Memory only (for experiments and tests that need no durability).
    Memory,
    /// A PostgreSQL database, by its URL (durable, on the server).
    Postgres(String),
}

impl std::fmt::Debug for StoreKind {
    /// The URL's password is not written: configurations are logged.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreKind::Sqlite => f.write_str("Sqlite"),
            StoreKind::Memory => f.write_str("Memory"),
            StoreKind::Postgres(url) => write!(f, "Postgres({})", without_password(url)),
        }
    }
}

/// `url` with the password of its `user:password@` part replaced by `***`.
fn without_password(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return url.to_string();
    };
    let rest = &url[scheme_end..];
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => match rest[..at].find(':') {
            Some(colon) => format!(
                "{}{}:***{}",
                &url[..scheme_end],
                &rest[..colon],
                &rest[at..]
            ),
            None => url.to_string(),
        },
        None => url.to_string(),
    }
}

/// `--store`: `sqlite`, `memory`, or a `postgres://` / `postgresql://` URL.
fn parse_store(text: &str) -> Result<StoreKind, String> {
    match text {
        "sqlite" => Ok(StoreKind::Sqlite),
        "memory" => Ok(StoreKind::Memory),
        url if crate::store::postgres::is_postgres_url(url) => Ok(StoreKind::Postgres(url.into())),
        other => Err(format!(
            "{other:?} is not a store: say sqlite, memory, or a PostgreSQL URL \
             (postgres://USER:PASSWORD@HOST:PORT/DATABASE)"
        )),
    }
}

/// `--anonymous-create`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AnonymousCreate {
    /// Anyone may create a match.
    Allow,
    /// Only organizers and the admin may.
    Deny,
}

/// How logs are written (to stderr).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// For people.
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

impl Config {
    /// How many streams may be open.
    pub fn stream_caps(&self) -> crate::grpc::StreamCaps {
        crate::grpc::StreamCaps {
            server: self.max_streams,
            per_caller: self.max_streams_per_caller,
            per_seat: self.max_streams_per_seat,
        }
    }

    /// How much one stream queues, and for how long.
    pub fn stream_budget(&self) -> crate::grpc::StreamBudget {
        crate::grpc::StreamBudget {
            bytes: usize::try_from(self.stream_buffer_bytes).unwrap_or(usize::MAX),
            patience: std::time::Duration::from_millis(self.stream_patience_ms),
        }
    }

    /// The limits every call passes.
    pub fn limits(&self) -> crate::grpc::limits::LimitConfig {
        crate::grpc::limits::LimitConfig {
            server_calls: self.max_calls_in_flight,
            credential_calls: self.credential_calls_in_flight,
            credential_rate: self.credential_rate,
            creates_per_minute: self.creates_per_minute,
            live_matches: self.max_live_matches,
            tenant_live_matches: self.tenant_max_live_matches,
            tenant_creates_per_minute: self.tenant_creates_per_minute,
        }
    }

    /// The request timeout and whether Admin calls need a client
    /// certificate.
    pub fn guards(&self) -> crate::grpc::layer::Guards {
        crate::grpc::layer::Guards {
            timeout: (self.request_timeout_ms > 0)
                .then(|| std::time::Duration::from_millis(self.request_timeout_ms)),
            admin_client_cert: self.tls_client_ca.is_some(),
            cluster_key: None,
        }
    }

    /// The listener's TLS files, if TLS is on.
    pub fn tls(&self) -> Option<crate::grpc::tls::TlsFiles> {
        Some(crate::grpc::tls::TlsFiles {
            cert: self.tls_cert.clone()?,
            key: self.tls_key.clone()?,
            client_ca: self.tls_client_ca.clone(),
        })
    }

    /// The plugin directory, resolving the default.
    pub fn plugin_dir(&self) -> PathBuf {
        self.plugin_dir.clone().unwrap_or_else(|| {
            std::env::current_exe()
                .ok()
                .and_then(|exe| exe.parent().map(PathBuf::from))
                .unwrap_or_else(|| PathBuf::from("."))
        })
    }

    /// The bot pool's size: `--bot-threads`, or [`BOT_THREADS_PER_CORE`]
    /// per core (at least 1 core counted).
    pub fn bot_threads(&self, cores: usize) -> usize {
        match self.bot_threads {
            Some(n) => n as usize,
            None => cores.max(1) * BOT_THREADS_PER_CORE,
        }
    }

    /// One caller's share of the blocking pool: `--pool-calls-per-caller`,
    /// or a quarter of the pool on `cores` cores (at least 1).
    pub fn pool_calls_per_caller(&self, cores: usize) -> usize {
        match self.pool_calls_per_caller {
            Some(n) => n as usize,
            None => (self.blocking_threads(cores) / 4).max(1),
        }
    }

    /// The async runtime's worker threads on `cores` cores: see
    /// [`Config::runtime_threads`](Config#structfield.runtime_threads).
    pub fn runtime_threads(&self, cores: usize) -> usize {
        match self.runtime_threads {
            Some(n) => n as usize,
            None if self.trust_all_plugins => cores.max(1),
            None => cores.max(1) * RUNTIME_THREADS_PER_CORE_ISOLATED,
        }
    }

    /// The blocking pool's size: `--blocking-threads`, or
    /// [`BLOCKING_THREADS_PER_CORE`] per core (at least
    /// [`MIN_BLOCKING_THREADS`], at most [`MAX_DEFAULT_BLOCKING_THREADS`]).
    pub fn blocking_threads(&self, cores: usize) -> usize {
        match self.blocking_threads {
            Some(n) => n as usize,
            None => (cores * BLOCKING_THREADS_PER_CORE)
                .clamp(MIN_BLOCKING_THREADS, MAX_DEFAULT_BLOCKING_THREADS),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_workers_double_only_when_a_plugin_may_run_isolated() {
        let config = |args: &[&str]| {
            Config::try_parse_from(std::iter::once("engine-host").chain(args.iter().copied()))
                .unwrap()
        };
        assert_eq!(config(&[]).runtime_threads(2), 4);
        assert_eq!(config(&["--trust-all-plugins"]).runtime_threads(2), 2);
        assert_eq!(config(&["--runtime-threads", "3"]).runtime_threads(2), 3);
        assert!(Config::try_parse_from(["engine-host", "--runtime-threads", "0"]).is_err());
    }

    #[test]
    fn the_store_is_sqlite_unless_told_memory_or_a_postgres_url() {
        assert_eq!(Config::parse_from(["engine-host"]).store, StoreKind::Sqlite);
        let store = |value: &str| Config::try_parse_from(["engine-host", "--store", value]);
        assert_eq!(store("memory").unwrap().store, StoreKind::Memory);
        assert_eq!(store("sqlite").unwrap().store, StoreKind::Sqlite);
        for url in [
            "postgres://u:pw@db:5432/tabletop",
            "postgresql://db/tabletop",
        ] {
            assert_eq!(
                store(url).unwrap().store,
                StoreKind::Postgres(url.to_string())
            );
        }
        let refused = store("mysql://db").unwrap_err().to_string();
        assert!(refused.contains("PostgreSQL URL"), "{refused}");
        assert_eq!(
            format!("{:?}", StoreKind::Postgres("postgres://u:pw@db:5/t".into())),
            "Postgres(postgres://u:***@db:5/t)"
        );
        assert_eq!(
            format!("{:?}", StoreKind::Postgres("postgres://db/t".into())),
            "Postgres(postgres://db/t)"
        );
    }

    #[test]
    fn the_blocking_pool_has_a_few_threads_per_core_unless_told() {
        let config = Config::parse_from(["engine-host"]);
        assert_eq!(config.blocking_threads(1), MIN_BLOCKING_THREADS);
        assert_eq!(config.blocking_threads(8), 8 * BLOCKING_THREADS_PER_CORE);
        assert_eq!(config.blocking_threads(48), MAX_DEFAULT_BLOCKING_THREADS);
        let config = Config::parse_from(["engine-host", "--blocking-threads", "3"]);
        assert_eq!(config.blocking_threads(8), 3);
        assert!(Config::try_parse_from(["engine-host", "--blocking-threads", "0"]).is_err());
    }

    #[test]
    fn the_bot_pool_has_a_few_slots_per_core_unless_told_and_may_be_empty() {
        let config = Config::parse_from(["engine-host"]);
        assert_eq!(config.bot_threads(0), BOT_THREADS_PER_CORE);
        assert_eq!(config.bot_threads(2), 2 * BOT_THREADS_PER_CORE);
        assert_eq!(config.bot_searches_per_creator, 2);
        assert_eq!(config.anonymous_bot_max_think_ms, 1_000);
        assert!(
            Config::try_parse_from(["engine-host", "--bot-searches-per-creator", "0"]).is_err()
        );
        let config = Config::parse_from(["engine-host", "--bot-threads", "3"]);
        assert_eq!(config.bot_threads(2), 3);
        let config = Config::parse_from(["engine-host", "--bot-threads", "0"]);
        assert_eq!(
            config.bot_threads(8),
            0,
            "0 is no bot threads, not the default"
        );
    }

    #[test]
    fn a_flag_given_twice_takes_the_last_value() {
        // Tools that start the host pass their defaults first and the
        // user's flags after them.
        let config = Config::parse_from([
            "engine-host",
            "--credential-rate",
            "0",
            "--credential-rate",
            "5",
        ]);
        assert_eq!(config.limits().credential_rate, 5);
    }

    #[test]
    fn tls_needs_a_certificate_and_a_key_together() {
        assert!(Config::try_parse_from(["engine-host", "--tls-cert", "c.pem"]).is_err());
        assert!(Config::try_parse_from(["engine-host", "--tls-key", "k.pem"]).is_err());
        assert!(Config::try_parse_from(["engine-host", "--tls-client-ca", "ca.pem"]).is_err());
        let config =
            Config::parse_from(["engine-host", "--tls-cert", "c.pem", "--tls-key", "k.pem"]);
        assert!(config.tls().is_some_and(|t| t.client_ca.is_none()));
        assert!(!config.guards().admin_client_cert);
        assert!(Config::parse_from(["engine-host"]).tls().is_none());
    }
}
