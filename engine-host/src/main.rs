//! The `engine-host` binary: configuration, logging, plugin discovery, serving
//! and graceful shutdown; and, as `engine-host vet-plugin`, the child
//! process that checks a plugin file before the host loads it.

#![forbid(unsafe_code)]

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use engine_host::config::{
    AnonymousCreate, Config, LogFormat, StoreKind, VET_SUBCOMMAND, VetArgs, WORKER_SUBCOMMAND,
    WorkerArgs,
};
use engine_host::engine::{Engine, Offered};
use engine_host::logging::LineFormat;
use engine_host::store::postgres::PostgresStore;
use engine_host::store::sqlite::{STORE_FILE, SqliteStore};
use engine_host::store::{MemoryStore, Store, migrate};
use engine_host::{crash_note, malloc, shutdown, witness};
use tabletop_loader::Vetter;
use tabletop_loader::isolation::{FaultWindow, Isolation, TrustList, WorkerSpec};
use tracing_subscriber::EnvFilter;

/// Logs to stderr: text, coloured only when stderr is a terminal (a file
/// or a pipe gets no escape codes), or one JSON object per line with the
/// event's fields at the top level and the call's span (`span`: method,
/// match id, credential) beside them.
fn init_logging(format: LogFormat) {
    use std::io::IsTerminal;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .event_format(match format {
            LogFormat::Text => LineFormat::Text,
            LogFormat::Json => LineFormat::Json,
        })
        .init();
}

/// The name under which a shared store keeps the admin token's SHA-256.
const ADMIN_TOKEN_HASH: &str = "admin-token-sha256";

/// The hash of the admin token every host on the store accepts. A store
/// only this host opens takes this host's token: the configured one (given,
/// or in the --admin-token-file), or the one in DATA_DIR/admin-token, or a
/// new one written there (readable only by the owner). A store several
/// hosts share (PostgreSQL) keeps the first host's: a later host with no
/// token of its own takes it (and writes no file: the first host's holds
/// it), and one with another token is refused, so one token serves them
/// all.
fn admin_token_hash(config: &Config, store: &dyn Store) -> Result<[u8; 32], String> {
    let own = configured_admin_token(config)?;
    let candidate = own.clone().unwrap_or_else(tabletop_core::tokens::new_token);
    let proposed = tabletop_core::tokens::hash_token(&candidate);
    // A new token is written before the store may keep its hash: a token
    // nobody holds must never become the store's.
    let file = config.data_dir.join("admin-token");
    if own.is_none() {
        write_private(&file, &candidate)
            .map_err(|e| format!("cannot write the admin token to {}: {e}", file.display()))?;
    }
    let shared = store
        .shared_key(ADMIN_TOKEN_HASH, proposed)
        .map_err(|e| format!("cannot read the store's admin token: {e}"))?;
    if shared == proposed {
        if own.is_none() {
            tracing::info!(file = %file.display(), "generated an admin token");
        }
        return Ok(shared);
    }
    if own.is_none() {
        let _ = std::fs::remove_file(&file);
    } else {
        return Err(
            "this host's admin token is not the one the other hosts on its store accept (the \
             first host's, in its DATA_DIR/admin-token unless it was given): give that token, \
             or none (and no DATA_DIR/admin-token) and this host takes it"
                .into(),
        );
    }
    tracing::info!(
        "the admin token is the one the first host on this store made (in its \
         DATA_DIR/admin-token unless it was given): this host keeps no copy"
    );
    Ok(shared)
}

/// This host's own admin token, if it has one: given, in the
/// --admin-token-file, or in DATA_DIR/admin-token. A token file other users
/// can read is refused: whoever reads it can load native code into the
/// host. An empty token counts as none.
fn configured_admin_token(config: &Config) -> Result<Option<String>, String> {
    let given = config.admin_token.as_deref().filter(|t| !t.is_empty());
    match (given, &config.admin_token_file) {
        (Some(_), Some(_)) => {
            return Err(
                "the admin token is given twice: --admin-token-file, and --admin-token or \
                 TABLETOP_ADMIN_TOKEN"
                    .into(),
            );
        }
        (Some(token), None) => {
            if std::env::args().any(|a| a == "--admin-token" || a.starts_with("--admin-token=")) {
                tracing::warn!(
                    "--admin-token shows the token to every user of this machine (in the \
                     process's arguments): pass it with TABLETOP_ADMIN_TOKEN or \
                     --admin-token-file"
                );
            }
            return Ok(Some(token.to_string()));
        }
        (None, Some(file)) => {
            let token = std::fs::read_to_string(file)
                .map_err(|e| format!("cannot read the admin token file {}: {e}", file.display()))?;
            refuse_if_shared(file)?;
            let token = token.lines().next().unwrap_or_default().trim();
            if token.is_empty() {
                return Err(format!("the admin token file {} is empty", file.display()));
            }
            return Ok(Some(token.to_string()));
        }
        (None, None) => {}
    }
    let file = config.data_dir.join("admin-token");
    if let Ok(token) = std::fs::read_to_string(&file)
        && !token.trim().is_empty()
    {
        refuse_if_shared(&file)?;
        return Ok(Some(token.trim().to_string()));
    }
    Ok(None)
}

/// Refuses a secret file that users other than its owner may read or write.
#[cfg(unix)]
fn refuse_if_shared(file: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?
        .permissions()
        .mode();
    if mode & 0o077 != 0 {
        return Err(format!(
            "{} is open to other users (mode {:03o}); it holds the admin token: \
             `chmod 600 {}` and start again",
            file.display(),
            mode & 0o777,
            file.display()
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn refuse_if_shared(_file: &Path) -> Result<(), String> {
    Ok(())
}

/// Creates the data directory for its owner alone (0700), and takes the
/// group's and others' access away from one that exists with it: it holds
/// the admin token, every match's seed and every seat's token hash.
fn private_data_dir(dir: &Path) -> Result<(), String> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(dir)
        .map_err(|e| format!("cannot create the data directory {}: {e}", dir.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir)
            .map_err(|e| format!("cannot read the data directory {}: {e}", dir.display()))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(|e| {
                format!(
                    "cannot make the data directory {} private: {e}",
                    dir.display()
                )
            })?;
            tracing::warn!(
                dir = %dir.display(),
                was = format!("{:03o}", mode & 0o777),
                "the data directory was open to other users; it is 0700 now"
            );
        }
    }
    Ok(())
}

/// Warns when the data directory was an earlier host's (it holds the
/// files a host writes at its first start) but its match store is missing
/// or empty: the host starts with no matches, and someone should know.
fn warn_if_store_lost(data_dir: &Path, store: &Path) {
    let has_store = std::fs::metadata(store).is_ok_and(|m| m.len() > 0);
    let used_before = ["admin-token", migrate::REQUEST_KEY]
        .iter()
        .any(|file| data_dir.join(file).exists());
    if used_before && !has_store {
        tracing::warn!(
            store = %store.display(),
            "the data directory was used by an earlier host, but its match store is missing \
             or empty: starting with no matches (a backup put at that path brings them back)"
        );
    }
}

/// Makes every file and directory the process creates its owner's alone
/// (the store, its WAL, plugin copies, backups), whatever the caller's
/// umask.
#[cfg(unix)]
fn private_files() {
    nix::sys::stat::umask(nix::sys::stat::Mode::from_bits_truncate(0o077));
}

#[cfg(not(unix))]
fn private_files() {}

/// Raises the soft limit on open files to the hard limit: every client
/// connection, every store file and every plugin worker's pipes is a file
/// descriptor, and the usual soft default (1024) refuses connections long
/// before a large arena (thousands of players, spectators and watch streams)
/// is seated. The hard limit stays the operator's to set.
#[cfg(unix)]
fn raise_open_file_limit() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    match getrlimit(Resource::RLIMIT_NOFILE) {
        Ok((soft, hard)) if soft < hard => {
            if let Err(e) = setrlimit(Resource::RLIMIT_NOFILE, hard, hard) {
                tracing::warn!(soft, hard, error = %e, "cannot raise the open-file limit");
            }
        }
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "cannot read the open-file limit"),
    }
}

#[cfg(not(unix))]
fn raise_open_file_limit() {}

/// The key the tokens of idempotent creations are derived from, kept in
/// DATA_DIR/request-key (owner-only) so a retry after a restart gets the
/// same tokens; a new one is written when there is none.
fn request_key(config: &Config) -> std::io::Result<[u8; 32]> {
    if let Some(key) = migrate::request_key(&config.data_dir) {
        return Ok(key);
    }
    let file = config.data_dir.join(migrate::REQUEST_KEY);
    let key: [u8; 32] = rand::random();
    write_private(&file, &hex::encode(key))?;
    Ok(key)
}

fn write_private(file: &Path, content: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(file)?.write_all(content.as_bytes())
}

/// Ends matches whose clock ran out, without waiting for a request: one
/// thread checks the matches that have a clock every 20 ms (a match ends at
/// most that late; a move that arrives after the deadline is refused anyway).
/// Once a second it also lets go of the finished matches kept longer than
/// `retention` (the store has them) and hands the memory they freed back to
/// the kernel, which can make a clock run out a few ms later still.
fn spawn_clock(engine: Arc<Engine>, retention: Duration) {
    let spawned = std::thread::Builder::new()
        .name("clocks".into())
        .spawn(move || {
            let mut last_sweep = std::time::Instant::now();
            loop {
                std::thread::sleep(Duration::from_millis(20));
                engine.expire_clocks();
                if last_sweep.elapsed() >= Duration::from_secs(1) {
                    last_sweep = std::time::Instant::now();
                    let unloaded = engine.unload_finished(retention);
                    engine.stop_retired_workers();
                    if unloaded > 0 {
                        tracing::debug!(unloaded, "finished matches left memory");
                        malloc::release_freed_memory();
                    }
                }
            }
        });
    if let Err(e) = spawned {
        tracing::error!(error = %e, "cannot start the clock thread: clocks will not expire");
    }
}

fn main() -> ExitCode {
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == VET_SUBCOMMAND)
    {
        return vet_plugin(VetArgs::parse_from(std::env::args_os().skip(1)));
    }
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == WORKER_SUBCOMMAND)
    {
        return plugin_worker(WorkerArgs::parse_from(std::env::args_os().skip(1)));
    }
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == witness::WITNESS_SUBCOMMAND)
    {
        return witness::run();
    }
    let config = Config::parse();
    init_logging(config.log_format);
    tabletop_loader::file::set_max_plugin_bytes(config.max_plugin_bytes);
    private_files();
    raise_open_file_limit();
    // Before any thread starts: see `shutdown::listen`.
    let stop = match shutdown::listen() {
        Ok(stop) => stop,
        Err(e) => {
            eprintln!("engine-host: cannot listen for stop signals: {e}");
            return ExitCode::FAILURE;
        }
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    malloc::limit_arenas(cores);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.runtime_threads(cores))
        .max_blocking_threads(config.blocking_threads(cores))
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("engine-host: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let served = runtime.block_on(run(config, stop));
    // Dropping the runtime would wait for every blocking-pool thread, and a
    // thread stuck in a plugin call or a file read never returns.
    runtime.shutdown_timeout(RUNTIME_STOP);
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "engine-host stopped");
            eprintln!("engine-host: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The name of the key hosts on one database prove forwarded calls with.
const CLUSTER_KEY: &str = "cluster-key";

/// The gRPC listener.
async fn bind(address: std::net::SocketAddr) -> Result<tokio::net::TcpListener, String> {
    tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| format!("cannot listen on {address}: {e}"))
}

/// Where the other hosts of a shared store reach this one: `--advertise`,
/// or the bound address (loopback for an unspecified IP); `https://` before
/// it when this host serves TLS.
fn advertised(config: &Config, bound: std::net::SocketAddr) -> String {
    let address = match &config.advertise {
        Some(address) => address.clone(),
        None => {
            let ip = if bound.ip().is_unspecified() {
                std::net::IpAddr::from([127, 0, 0, 1])
            } else {
                bound.ip()
            };
            std::net::SocketAddr::new(ip, bound.port()).to_string()
        }
    };
    // The scheme says how the others reach it: TLS only when it serves
    // TLS, so a cluster can turn TLS on one host at a time.
    match (config.tls_cert.is_some(), address.strip_prefix("https://")) {
        (true, None) => format!("https://{address}"),
        (false, Some(bare)) => bare.to_string(),
        _ => address,
    }
}

/// How long the stopped server's runtime waits for its threads to finish:
/// the calls still running then are stuck (the grace period is over).
const RUNTIME_STOP: Duration = Duration::from_secs(1);

/// The checking process for one plugin file (`engine-host vet-plugin`), run
/// by the host before it loads the file: nothing of the server starts.
fn vet_plugin(args: VetArgs) -> ExitCode {
    // Warnings (a plugin's own among them) go to stderr, where the host
    // quotes the last lines if the check crashes.
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(std::io::stderr)
        .init();
    if let Some(max) = args.max_plugin_bytes {
        tabletop_loader::file::set_max_plugin_bytes(max);
    }
    let limits = tabletop_loader::vet::ChildLimits {
        watchdog: args.timeout_ms.map(Duration::from_millis),
        budget: Duration::from_millis(args.budget_ms),
        memory_mib: args.memory_mib,
    };
    let code = tabletop_loader::vet::run_child(&args.file, &args.cache, limits);
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// A plugin worker process (`engine-host plugin-worker`), started by the
/// host for each plugin it does not trust: nothing of the server starts.
fn plugin_worker(args: WorkerArgs) -> ExitCode {
    // Its log lines (a plugin's own among them) go to stderr, which the
    // host reads and logs as the plugin's.
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::new("info"))
        .with_ansi(false)
        .without_time()
        .with_target(false)
        .with_writer(std::io::stderr)
        .init();
    let code = tabletop_loader::isolation::run_worker(&args.file, args.memory_mib);
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// Where plugins run: in worker processes (this executable, run as
/// `engine-host plugin-worker`) but for the builds the operator trusts.
fn isolation(config: &Config) -> Result<Isolation, String> {
    let window = FaultWindow {
        faults: config.plugin_faults,
        within: Duration::from_secs(config.plugin_fault_window_s),
    };
    if config.trust_all_plugins {
        return Ok(Isolation {
            window,
            ..Isolation::in_host()
        });
    }
    let mut trust = TrustList::none();
    for (name, sha256) in &config.trust_plugin {
        trust = trust.with_build(name, sha256);
    }
    for dir in &config.trusted_plugin_dir {
        trust = trust.with_dir(dir).map_err(|e| {
            format!(
                "cannot read the trusted plugin directory {}: {e}",
                dir.display()
            )
        })?;
    }
    let program = std::env::current_exe()
        .map_err(|e| format!("cannot find this executable to run plugin workers with: {e}"))?;
    Ok(Isolation {
        spec: Some(WorkerSpec {
            program,
            args: vec![WORKER_SUBCOMMAND.into()],
            memory_mib: Some(config.plugin_worker_memory_mib),
            call_deadline: Duration::from_millis(config.plugin_call_deadline_ms),
            socket_dir: std::env::temp_dir()
                .join(format!("tabletop-workers-{}", nix::unistd::getuid())),
            output_lines_per_second: config.plugin_output_lines_per_second,
        }),
        trust,
        window,
        sink: None,
    })
}

/// The vetter every plugin file passes before it is loaded: this executable,
/// run as `engine-host vet-plugin`.
fn vetter(config: &Config) -> std::io::Result<Vetter> {
    let program = std::env::current_exe()?;
    Ok(Vetter::new(
        program,
        vec![
            VET_SUBCOMMAND.into(),
            "--max-plugin-bytes".into(),
            config.max_plugin_bytes.to_string().into(),
        ],
        Duration::from_millis(config.plugin_vet_timeout_ms),
    )
    .with_budget(
        Duration::from_millis(config.plugin_check_budget_ms),
        config.plugin_check_memory_mib,
    )
    .with_verdict_cache(
        config
            .plugin_check_cache
            .clone()
            .unwrap_or_else(|| config.data_dir.join("plugin-checks")),
    ))
}

async fn run(
    config: Config,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let fresh_dir = !config.data_dir.exists();
    private_data_dir(&config.data_dir)?;
    if fresh_dir {
        tracing::info!(dir = %config.data_dir.display(), "a fresh data directory: created");
    }
    let mut listener = None;
    // The store first: a host refused its store (another host has it)
    // stops before it writes anything, such as a new admin token.
    let store: Arc<dyn Store> = match &config.store {
        StoreKind::Sqlite => {
            let path = config.data_dir.join(STORE_FILE);
            warn_if_store_lost(&config.data_dir, &path);
            let store = SqliteStore::open(&path).map_err(|e| e.to_string())?;
            tracing::info!(file = %path.display(), "match store: sqlite");
            Arc::new(store)
        }
        StoreKind::Memory => {
            tracing::info!("match store: memory (nothing survives a restart)");
            Arc::new(MemoryStore::with_finished_cap(config.memory_finished_cap))
        }
        StoreKind::Postgres(url) => {
            let store = PostgresStore::open(url).map_err(|e| e.to_string())?;
            tracing::info!(server = %store.server(), "match store: postgres");
            // Bound before recovery, which claims matches in this host's
            // name: other hosts forward calls to the address it advertises.
            let bound = bind(config.listen).await?;
            let address = advertised(&config, bound.local_addr()?);
            store
                .join(&address, Duration::from_millis(config.lease_ms))
                .map_err(|e| format!("cannot join the hosts of the match store: {e}"))?;
            // The others learn of this host's death at once from its
            // witness, not after its lease.
            match witness::start(url, Duration::from_millis(config.lease_ms)) {
                Ok(()) => store.on_new_host_id(Box::new(witness::tell)),
                Err(e) => tracing::warn!(
                    error = %e,
                    "cannot start this host's witness: if it dies, the others take its matches \
                     only after its lease"
                ),
            }
            listener = Some(bound);
            Arc::new(store)
        }
    };
    let admin_token_hash = admin_token_hash(&config, store.as_ref())?;
    let own_key = request_key(&config)?;
    let request_key = store
        .shared_key(migrate::REQUEST_KEY, own_key)
        .map_err(|e| format!("cannot read the store's request key: {e}"))?;
    if request_key != own_key {
        tracing::info!(
            "the request key is the one the store holds, shared by every host on it \
             (DATA_DIR/request-key is not used)"
        );
    }
    // Hosts on one database forward calls to each other with the key they
    // all hold.
    let cluster = match &config.store {
        StoreKind::Postgres(_) => Some(engine_host::grpc::forward::Cluster {
            key: store
                .shared_key(CLUSTER_KEY, rand::random())
                .map_err(|e| format!("cannot read the store's cluster key: {e}"))?,
            lease: Duration::from_millis(config.lease_ms),
            peer_tls: engine_host::grpc::tls::peer_config(config.peer_ca.as_deref())?,
        }),
        _ => None,
    };
    let mut guards = config.guards();
    guards.cluster_key = cluster.as_ref().map(|cluster| cluster.key);
    let inline_limit =
        (config.inline_limit_ms > 0).then(|| Duration::from_millis(config.inline_limit_ms));
    let vetter = vetter(&config)
        .map_err(|e| format!("cannot find this executable to check plugin files with: {e}"))?;
    let engine = Arc::new(
        Engine::with_admin_token_hash(
            store,
            admin_token_hash,
            config.data_dir.join("plugin-cache"),
        )
        .with_inline_limit(inline_limit)
        .with_vetter(vetter)
        .with_isolation(isolation(&config)?)
        .with_request_key(request_key)
        .with_anonymous_create(config.anonymous_create == AnonymousCreate::Allow)
        .with_anonymous_wait(
            (config.anonymous_open_seat_wait_s > 0)
                .then(|| Duration::from_secs(config.anonymous_open_seat_wait_s)),
        )
        .with_bot_max_think(Duration::from_millis(config.bot_max_think_ms))
        .with_anonymous_bot_max_think(Duration::from_millis(config.anonymous_bot_max_think_ms))
        .with_bot_searches_per_creator(config.bot_searches_per_creator as usize),
    );
    // A host that died inside a trusted plugin's call left a note: quarantine
    // that match before recovery replays it into the same crash.
    if let Some((crumb, how)) = crash_note::take_last(&config.data_dir) {
        tracing::error!(
            plugin = %crumb.plugin,
            match_id = %crumb.match_id,
            call = %crumb.call,
            how = %how,
            "the last run of this host died inside a trusted plugin's call"
        );
        // It waits for the store's commit: off the async runtime.
        let quarantining = Arc::clone(&engine);
        tokio::task::spawn_blocking(move || quarantining.quarantine_after_crash(&crumb, &how))
            .await
            .map_err(|e| format!("quarantine after a crash failed: {e}"))?;
    }
    if let Err(e) = crash_note::install(&config.data_dir) {
        tracing::warn!(error = %e, "cannot arm the crash note: a crash in a trusted plugin will not be named at the next start");
    }
    // Read now, so a damaged credentials table stops the start, not a call.
    let credentials = engine.load_credentials().map_err(|e| e.to_string())?;
    tracing::info!(credentials, "organizer credentials loaded");
    engine.clear_vet_scratch();
    let plugin_dir = config.plugin_dir();
    let loaded = engine.load_plugin_dir(&plugin_dir);
    // Recovery waits for the store's commits (an unavailable match is
    // recorded in the feed): off the async runtime, which may not block.
    let recovering = Arc::clone(&engine);
    let recovered = tokio::task::spawn_blocking(move || recovering.recover())
        .await
        .map_err(|e| format!("recovery failed: {e}"))?
        .map_err(|e| e.to_string())?;
    tracing::info!(
        restored = recovered.restored,
        unavailable = recovered.unavailable.len(),
        "matches recovered"
    );
    // Recovery queued the restored matches whose bots must move.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let bot_threads = config.bot_threads(cores);
    if bot_threads == 0 {
        tracing::warn!("--bot-threads 0: no bot moves on this host; bot seats wait");
    }
    if let StoreKind::Postgres(_) = &config.store {
        engine.spawn_cluster_threads(Duration::from_millis(config.lease_ms));
    }
    engine.spawn_quarantine_thread();
    engine.spawn_bot_threads(bot_threads);
    spawn_clock(
        Arc::clone(&engine),
        Duration::from_secs(config.finished_retention),
    );
    if config.plugin_poll_ms > 0 {
        let watched = Arc::clone(&engine);
        tabletop_loader::watcher::spawn(
            plugin_dir.clone(),
            Duration::from_millis(config.plugin_poll_ms),
            move |files| {
                watched.load_plugin_files(files, Offered::HotAdded);
            },
        );
    }
    let games: Vec<String> = engine
        .list_games()
        .iter()
        .map(|g| format!("{} {}", g.manifest.name, g.manifest.version))
        .collect();
    tracing::info!(dir = %plugin_dir.display(), loaded, games = ?games, "plugins");
    let tls = config
        .tls()
        .map(|files| files.server_config())
        .transpose()?;
    if tls.is_none() && !config.listen.ip().is_loopback() {
        tracing::warn!(
            address = %config.listen,
            "serving plaintext gRPC on a non-loopback address: credentials and seat tokens \
             cross the network readable; give --tls-cert and --tls-key"
        );
    }
    {
        let engine = Arc::clone(&engine);
        engine_host::metrics::metrics().count_matches_with(move || engine.match_counts());
    }
    {
        let engine = Arc::clone(&engine);
        engine_host::metrics::metrics().count_workers_with(move || engine.worker_counts());
    }
    let metrics_listener = match config.metrics_listen {
        Some(address) => Some(
            tokio::net::TcpListener::bind(address)
                .await
                .map_err(|e| format!("cannot listen for metrics on {address}: {e}"))?,
        ),
        None => None,
    };
    let listener = match listener {
        Some(bound) => bound,
        None => bind(config.listen).await?,
    };
    // Tests and scripts read the bound address (the port may be 0) from here.
    println!("listening on {}", listener.local_addr()?);
    if let Some(metrics_listener) = metrics_listener {
        let bound = metrics_listener.local_addr()?;
        tracing::info!(address = %bound, "metrics at http://{bound}/metrics");
        // The line after the gRPC address, for the same readers.
        println!("metrics on {bound}");
        tokio::spawn(engine_host::metrics::http::serve(metrics_listener));
    }
    let web_listener = match config.web_listen {
        Some(address) => {
            let listener = tokio::net::TcpListener::bind(address)
                .await
                .map_err(|e| format!("cannot listen for the web page on {address}: {e}"))?;
            let bound = listener.local_addr()?;
            if tls.is_none() && !address.ip().is_loopback() {
                tracing::warn!(
                    address = %address,
                    "serving the web page and gRPC-web in plaintext on a non-loopback address: \
                     seat tokens and credentials cross the network readable; give --tls-cert \
                     and --tls-key"
                );
            }
            let scheme = if tls.is_some() { "https" } else { "http" };
            tracing::info!(address = %bound, "the web page: {scheme}://{bound}/");
            // After the gRPC (and metrics) address, for the same readers.
            println!("web on {bound}");
            Some(listener)
        }
        None => None,
    };
    let bots = Arc::clone(engine.bot_queue());
    let leaving = Arc::clone(&engine);
    let served = engine_host::grpc::serve(
        engine,
        listener,
        web_listener,
        engine_host::grpc::ServeOptions {
            deadline: Duration::from_millis(config.call_deadline_ms),
            limiter: engine_host::grpc::limits::Limiter::new(config.limits()),
            guards,
            max_reply_bytes: usize::try_from(config.max_reply_bytes).unwrap_or(usize::MAX),
            tls,
            stream_caps: config.stream_caps(),
            stream_budget: config.stream_budget(),
            pool_calls_per_caller: config
                .pool_calls_per_caller(std::thread::available_parallelism().map_or(1, |n| n.get())),
            cluster,
        },
        stop,
    )
    .await;
    // No bot starts another move once the server has stopped.
    bots.stop();
    // Calls in flight have finished: the other hosts of a shared store
    // take this one's matches at once.
    tokio::task::spawn_blocking(move || leaving.leave_hosts())
        .await
        .map_err(|e| format!("cannot leave the hosts: {e}"))?;
    served
}
