//! Command-line flags and environment variables of `engine-host`.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Parser, ValueEnum};

/// The Tabletop game server: loads every game plugin in a directory and
/// serves matches over gRPC.
#[derive(Debug, Clone, Parser)]
#[command(name = "engine-host", version, about)]
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
    /// generated and written to DATA_DIR/admin-token.
    #[arg(long, env = "TABLETOP_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<String>,

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
    /// DATA_DIR/matches.sqlite3, restored on restart) or `memory` (nothing
    /// survives a restart).
    #[arg(long, env = "TABLETOP_STORE", value_enum, default_value_t = StoreKind::Sqlite)]
    pub store: StoreKind,

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

    /// Log format.
    #[arg(long, env = "TABLETOP_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

/// The hidden subcommand the host runs in a child process to check one
/// plugin file (`tabletop_loader::vet`): `engine-host vet-plugin --cache DIR
/// [--timeout-ms N] -- FILE`. It prints one verdict line on stdout. It is
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

    /// The plugin file.
    pub file: PathBuf,
}

/// The match store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StoreKind {
    /// An SQLite file under the data directory (durable).
    Sqlite,
    /// Memory only (for experiments and tests that need no durability).
    Memory,
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
    /// The plugin directory, resolving the default.
    pub fn plugin_dir(&self) -> PathBuf {
        self.plugin_dir.clone().unwrap_or_else(|| {
            std::env::current_exe()
                .ok()
                .and_then(|exe| exe.parent().map(PathBuf::from))
                .unwrap_or_else(|| PathBuf::from("."))
        })
    }
}
