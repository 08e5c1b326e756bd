//! `tabletop-bench`: the load tool for engine-host.
//!
//! - `run`: N simulated players on M connections create matches of a game (or
//!   every game) over real gRPC and play them to the end with random legal
//!   actions; then the same load against a tonic echo service with the same
//!   payload sizes, so each throughput is also a ratio to tonic alone.
//! - `echo-server`: the echo service (`run` starts it itself).
//! - `memory`: bytes per idle match per game, through the host's core.
//! - `history`: the host's RSS while 100 000 matches (1 000 000 actions)
//!   pile up in the SQLite store under 1 000 watchers (history.rs).
//! - `history-cost`: what reading a match's past costs: loading an unloaded
//!   match, and each event of a replay from version 0 (history_cost.rs).
//! - `paging`: ListMatches paged through 200 000 matches, with and without
//!   filters (paging.rs).
//! - `flood`: one credential floods CreateMatch while another plays; the
//!   player's SubmitAction p99 alone and under the flood (flood.rs).
//! - `bots`: paced players at half the host's maximum; their SubmitAction
//!   p99 alone and while server-side bots search (bots.rs).
//! - `isolation`: what a plugin worker's death costs: a fresh worker's
//!   start, a match rebuilt by replay, and thousands of matches rebuilt
//!   after one kill (isolation.rs).
//! - `arena`: a tournament platform's arena: thousands of players who think,
//!   watch their seat's stream and reconnect, spectators, stalled clients,
//!   a pairing loop and the lifecycle feed (arena.rs, arena/).
//!
//! See BENCHMARKS.md at the repository root for how the figures are used.

mod arena;
mod bots;
mod echo;
mod flood;
mod history;
mod history_cost;
mod isolation;
mod load;
mod memory;
mod paging;
mod proc;
mod stats;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use serde::Serialize;

use crate::load::Drive;
use crate::stats::{Live, Phase, Sizes};

/// Load tool and benchmarks for engine-host.
#[derive(Debug, Parser)]
#[command(name = "tabletop-bench", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Drive engine-host (and the echo baseline) and report throughput,
    /// latency, errors and the server's peak memory.
    Run(RunArgs),
    /// Serve the echo baseline (prints `listening on ADDR`).
    EchoServer {
        /// Address to listen on; port 0 picks a free port.
        #[arg(long, default_value = "127.0.0.1:0")]
        listen: SocketAddr,
    },
    /// Bytes per idle match for each game (in-process, through the host core).
    Memory {
        /// Directory of the built plugins; default: this executable's directory.
        #[arg(long)]
        plugin_dir: Option<PathBuf>,
        /// Only this game.
        #[arg(long)]
        game: Option<String>,
        /// Matches to create per game.
        #[arg(long, default_value_t = 100_000)]
        matches: usize,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// The host's RSS while finished matches pile up in the SQLite store
    /// under Watch streams, some replaying from version 0.
    History(history::HistoryArgs),
    /// The cost of loading an unloaded match and of each replayed event.
    HistoryCost(history_cost::HistoryCostArgs),
    /// ListMatches paged through a host with many matches.
    Paging(paging::PagingArgs),
    /// One credential floods CreateMatch while another plays: the
    /// player's SubmitAction latency alone and under the flood.
    Flood(flood::FloodArgs),
    /// Paced players at half the host's maximum, alone and while
    /// server-side bots search: their SubmitAction latency in each.
    Bots(bots::BotsArgs),
    /// What a plugin worker's death costs: a fresh worker's start, the
    /// replay that rebuilds a match, and many matches rebuilt at once.
    Isolation(isolation::IsolationArgs),
    /// A platform's arena: players who think, watch and reconnect,
    /// spectators, stalled clients, a pairing loop and the lifecycle feed;
    /// latency per RPC and per ramp step, the host's CPU and memory.
    Arena(arena::ArenaArgs),
}

#[derive(Debug, Clone, clap::Args)]
struct RunArgs {
    /// The engine-host to drive, e.g. http://127.0.0.1:50051.
    #[arg(long, conflicts_with = "spawn_server")]
    addr: Option<String>,
    /// Start this engine-host binary on a free port with a scratch data
    /// directory, drive it, and stop it at the end.
    #[arg(long, value_name = "PATH")]
    spawn_server: Option<PathBuf>,
    /// An extra argument for the spawned server (repeatable), e.g.
    /// `--server-arg=--store --server-arg=memory`.
    #[arg(long = "server-arg", allow_hyphen_values = true, value_name = "ARG")]
    server_args: Vec<String>,
    /// The pid of the server given with --addr, to report its peak RSS and CPU.
    #[arg(long)]
    server_pid: Option<u32>,
    /// A game name, or `all` for every game the server offers, one after another.
    #[arg(long, default_value = "all")]
    game: String,
    /// Simulated players (= requests in flight).
    #[arg(long, short = 'n', default_value_t = 64)]
    players: usize,
    /// HTTP/2 connections the players share.
    #[arg(long, short = 'm', default_value_t = 4)]
    connections: usize,
    /// Seconds to measure per game (and as long again for its baseline).
    #[arg(long, default_value_t = 10.0)]
    duration: f64,
    /// Rounds the measurement is cut into: engine and echo take turns, each
    /// for DURATION / ROUNDS per round, so a change in the machine's load
    /// (other processes, neighbours on a shared host) falls on both sides of
    /// the ratio instead of on whichever ran second.
    #[arg(long, default_value_t = 3)]
    rounds: u32,
    /// Seed of the players' random choices and the matches' seeds.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Spectator Watch streams to hold open (over idle matches) while measuring.
    #[arg(long, default_value_t = 0)]
    watchers: usize,
    /// Ask SubmitAction for summary responses (no game view or text), as a
    /// bot that picks from ListLegalActions would; the default is full views,
    /// as a client that redraws the board after each action gets.
    #[arg(long)]
    summary_views: bool,
    /// Ask ListLegalActions for ids only (`ids_only`), as a bot that picks
    /// by id would; the default lists every action's notation too.
    #[arg(long)]
    ids_only: bool,
    /// Skip the echo baseline.
    #[arg(long)]
    no_baseline: bool,
    /// Print machine-readable JSON on stdout (progress still goes to stderr).
    #[arg(long)]
    json: bool,
    /// No progress lines.
    #[arg(long)]
    quiet: bool,
}

/// The whole run, as `--json` prints it.
#[derive(Debug, Serialize)]
struct Report {
    machine: Machine,
    players: usize,
    connections: usize,
    summary_views: bool,
    ids_only: bool,
    server_args: Vec<String>,
    /// Rounds engine and echo alternated in.
    rounds: u32,
    games: Vec<GameReport>,
}

#[derive(Debug, Serialize)]
struct Machine {
    cpus: usize,
    cpu_model: String,
}

#[derive(Debug, Serialize)]
struct GameReport {
    game: String,
    seats: u32,
    engine: Phase,
    baseline: Option<Phase>,
    /// engine actions/s ÷ echo actions/s (two sized round trips each).
    throughput_ratio: Option<f64>,
    /// echo server CPU per action ÷ engine server CPU per action: the
    /// throughput ratio the server's CPU would allow on an idle machine.
    cpu_ratio: Option<f64>,
    /// echo server+client CPU per action ÷ engine server+client CPU per
    /// action: the throughput ratio if both sides kept the machine's cores
    /// equally busy. With server and tool on the same cores the measured
    /// ratio matches it when both sides use every core (in-memory runs);
    /// below it, the engine left cores idle (`cores_busy`) while it waited.
    total_cpu_ratio: Option<f64>,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("tabletop-bench: cannot start the runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        match cli.command {
            Command::Run(args) => run(args).await,
            Command::EchoServer { listen } => {
                let listener = tokio::net::TcpListener::bind(listen)
                    .await
                    .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
                let addr = listener.local_addr().map_err(|e| e.to_string())?;
                println!("listening on {addr}");
                echo::serve(listener).await
            }
            Command::Memory {
                plugin_dir,
                game,
                matches,
                json,
            } => memory_command(plugin_dir, game, matches, json),
            Command::History(args) => history::history(args).await,
            Command::HistoryCost(args) => history_cost::history_cost(args).await,
            Command::Paging(args) => paging::paging(args).await,
            Command::Flood(args) => flood::flood_command(args).await,
            Command::Bots(args) => bots::bots_command(args).await,
            Command::Isolation(args) => isolation::isolation(args).await,
            Command::Arena(args) => arena::arena(args).await,
        }
    });
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tabletop-bench: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn memory_command(
    plugin_dir: Option<PathBuf>,
    game: Option<String>,
    matches: usize,
    json: bool,
) -> Result<(), String> {
    let dir = match plugin_dir {
        Some(d) => d,
        None => std::env::current_exe()
            .ok()
            .and_then(|e| e.parent().map(PathBuf::from))
            .ok_or("cannot find this executable's directory; pass --plugin-dir")?,
    };
    let results = memory::measure(&dir, game.as_deref(), matches.max(1))?;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&results).map_err(|e| e.to_string())?
        );
    } else {
        println!(
            "{:<10} {:>7} {:>9} {:>14} {:>14} {:>14}",
            "game", "players", "matches", "B/match", "B/game state", "B/host part"
        );
        for r in results {
            println!(
                "{:<10} {:>7} {:>9} {:>14.0} {:>14.0} {:>14.0}",
                r.game,
                r.players,
                r.matches,
                r.bytes_per_match,
                r.bytes_per_state,
                r.host_bytes_per_match
            );
        }
    }
    Ok(())
}

fn machine() -> Machine {
    Machine {
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        cpu_model: proc::cpu_model().unwrap_or_default(),
    }
}

async fn run(args: RunArgs) -> Result<(), String> {
    // One piece: the measurement in the order its figures are taken (check
    // the arguments, start the servers, then per game its rounds on the host
    // and on the echo baseline, then the ratios); the spawned processes live
    // in this scope until the report is out.
    if args.players == 0 {
        return Err("--players must be at least 1".into());
    }
    if !(args.duration > 0.0 && args.duration.is_finite()) {
        return Err("--duration must be a positive number of seconds".into());
    }
    if args.rounds == 0 {
        return Err("--rounds must be at least 1".into());
    }
    let spawned = match &args.spawn_server {
        Some(path) => Some(proc::spawn(path, &args.server_args, true).await?),
        None => None,
    };
    let (url, server_pid) = match (&spawned, &args.addr) {
        (Some(s), _) => (s.url.clone(), Some(s.pid)),
        (None, Some(addr)) => (addr.clone(), args.server_pid),
        (None, None) => return Err("give --addr URL or --spawn-server PATH".into()),
    };
    let channels = load::connect(&url, args.connections).await?;
    let mut games = load::games(channels[0].clone()).await?;
    if args.game != "all" {
        games.retain(|g| g.name == args.game);
        if games.is_empty() {
            return Err(format!("the server has no game named `{}`", args.game));
        }
    }
    if games.is_empty() {
        return Err("the server offers no games".into());
    }
    let echo_server = if args.no_baseline {
        None
    } else {
        let exe = std::env::current_exe().map_err(|e| format!("cannot find myself: {e}"))?;
        Some(proc::spawn(&exe, &["echo-server".to_string()], false).await?)
    };
    let echo_channels = match &echo_server {
        Some(s) => Some(load::connect(&s.url, args.connections).await?),
        None => None,
    };
    let round_duration = Duration::from_secs_f64(args.duration / f64::from(args.rounds));
    let mut report = Report {
        machine: machine(),
        players: args.players,
        connections: args.connections,
        summary_views: args.summary_views,
        ids_only: args.ids_only,
        server_args: args.server_args.clone(),
        rounds: args.rounds,
        games: Vec::new(),
    };
    for game in &games {
        let seats = game.min_players.max(1);
        let watchers = load::open_watchers(&channels, &game.name, seats, args.watchers).await?;
        let mut engine = Meter::new(format!("engine-host {}", game.name), server_pid, args.quiet);
        let mut echo = echo_server
            .as_ref()
            .map(|s| Meter::new(format!("echo ({})", game.name), Some(s.pid), args.quiet));
        let mut sizes = Sizes::default();
        for round in 0..args.rounds {
            let drive = Drive {
                players: args.players,
                channels: channels.clone(),
                duration: round_duration,
                // Each round plays new matches, not the first moves again.
                seed: args
                    .seed
                    .wrapping_add(u64::from(round) * args.players as u64),
                summary_views: args.summary_views,
                ids_only: args.ids_only,
                credential: None,
                pace: None,
            };
            let seen = engine
                .round(|live| {
                    let drive = drive.clone();
                    let name = game.name.clone();
                    async move { load::run(&name, seats, &drive, live).await }
                })
                .await;
            sizes = sizes.merged(&seen, round);
            if let (Some(echo), Some(echo_channels)) = (echo.as_mut(), &echo_channels) {
                let drive = Drive {
                    channels: echo_channels.clone(),
                    ..drive
                };
                echo.round(|live| async move { echo::run(sizes, &drive, live).await })
                    .await;
            }
        }
        drop(watchers);
        let mut engine = engine.finish();
        engine.watch_streams = args.watchers as u64;
        engine.sizes = sizes;
        let baseline = echo.map(|echo| {
            let mut phase = echo.finish();
            phase.sizes = sizes;
            phase
        });
        let throughput_ratio = baseline
            .as_ref()
            .filter(|b| b.actions_per_s > 0.0)
            .map(|b| engine.actions_per_s / b.actions_per_s);
        // A CPU cost per action, echo ÷ engine, when both sides have it.
        let cost_ratio = |cost: fn(&Phase) -> Option<f64>| match (
            baseline.as_ref().and_then(cost),
            cost(&engine),
        ) {
            (Some(echo), Some(host)) if host > 0.0 => Some(echo / host),
            _ => None,
        };
        let cpu_ratio = cost_ratio(|p| p.server_cpu_us_per_action);
        let total_cpu_ratio = cost_ratio(Phase::total_cpu_us_per_action);
        report.games.push(GameReport {
            game: game.name.clone(),
            seats,
            engine,
            baseline,
            throughput_ratio,
            cpu_ratio,
            total_cpu_ratio,
        });
    }
    crate::emit(&report, args.json, print_table)?;
    drop(echo_server);
    drop(spawned);
    Ok(())
}

/// Prints a mode's report: pretty JSON with `--json`, else laid out by
/// `text` for a person.
fn emit<R: Serialize>(report: &R, json: bool, text: fn(&R)) -> Result<(), String> {
    if json {
        let pretty = serde_json::to_string_pretty(report).map_err(|e| e.to_string())?;
        println!("{pretty}");
    } else {
        text(report);
    }
    Ok(())
}

/// One side of the comparison (engine or echo), measured over the rounds it
/// runs: counters and latencies accumulate in one [`Live`], and time and CPU
/// are summed over the rounds only, not the other side's turns between them.
/// The server's CPU includes its child processes': engine-host's plugin
/// workers do part of its work.
struct Meter {
    name: String,
    pid: Option<u32>,
    quiet: bool,
    live: Arc<Live>,
    elapsed: Duration,
    server_cpu_s: Option<f64>,
    children_cpu_s: Option<f64>,
    client_cpu_s: Option<f64>,
}

impl Meter {
    fn new(name: String, pid: Option<u32>, quiet: bool) -> Meter {
        Meter {
            name,
            pid,
            quiet,
            live: Arc::new(Live::default()),
            elapsed: Duration::ZERO,
            // Without a pid there is no server CPU to add up.
            server_cpu_s: pid.map(|_| 0.0),
            children_cpu_s: pid.map(|_| 0.0),
            client_cpu_s: Some(0.0),
        }
    }

    /// Runs one round with a progress line per second.
    async fn round<F, Fut, T>(&mut self, phase: F) -> T
    where
        F: FnOnce(Arc<Live>) -> Fut,
        Fut: std::future::Future<Output = T>,
    {
        let me = std::process::id();
        let client_cpu0 = proc::cpu_seconds(me);
        let server_cpu0 = self.pid.and_then(proc::tree_cpu_seconds);
        let start = Instant::now();
        let progress = (!self.quiet).then(|| {
            let live = self.live.clone();
            let name = self.name.clone();
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(Duration::from_secs(1));
                tick.tick().await;
                let mut last = live.actions.load(Ordering::Relaxed);
                loop {
                    tick.tick().await;
                    let actions = live.actions.load(Ordering::Relaxed);
                    eprintln!(
                        "[{name}] {:>4.0}s  actions {actions:>9} ({:>7}/s)  matches {:>6}  errors {}",
                        start.elapsed().as_secs_f64(),
                        actions - last,
                        live.matches.load(Ordering::Relaxed),
                        live.errors.load(Ordering::Relaxed),
                    );
                    last = actions;
                }
            })
        });
        let out = phase(self.live.clone()).await;
        self.elapsed += start.elapsed();
        if let Some(p) = progress {
            p.abort();
        }
        let add = |total: &mut Option<f64>, before: Option<f64>, after: Option<f64>| {
            *total = match (*total, before, after) {
                (Some(t), Some(a), Some(b)) => Some(t + (b - a)),
                _ => None,
            };
        };
        let server_cpu1 = self.pid.and_then(proc::tree_cpu_seconds);
        add(
            &mut self.server_cpu_s,
            server_cpu0.map(|c| c.total),
            server_cpu1.map(|c| c.total),
        );
        add(
            &mut self.children_cpu_s,
            server_cpu0.map(|c| c.children),
            server_cpu1.map(|c| c.children),
        );
        add(&mut self.client_cpu_s, client_cpu0, proc::cpu_seconds(me));
        out
    }

    /// The phase's figures over all its rounds, with the server's peak RSS.
    fn finish(self) -> Phase {
        let mut summary = self.live.summary(&self.name, self.elapsed);
        summary.server_peak_rss_bytes = self.pid.and_then(proc::peak_rss_bytes);
        summary.set_cpu(self.server_cpu_s, self.client_cpu_s);
        summary.set_children_cpu(self.children_cpu_s);
        summary
    }
}

fn print_table(report: &Report) {
    println!(
        "{} players on {} connections; {} CPUs ({})",
        report.players, report.connections, report.machine.cpus, report.machine.cpu_model
    );
    println!(
        "{:<22} {:>10} {:>9} {:>7} {:>7} {:>7} {:>8} {:>9} {:>9} {:>7} {:>6}",
        "phase",
        "actions/s",
        "matches/s",
        "p50µs",
        "p90µs",
        "p99µs",
        "p99.9µs",
        "peakRSS",
        "srvµs/act",
        "errors",
        "ratio"
    );
    for g in &report.games {
        let row = |p: &Phase, ratio: Option<f64>| {
            let errors: u64 = p.errors.values().sum();
            println!(
                "{:<22} {:>10.0} {:>9.1} {:>7} {:>7} {:>7} {:>8} {:>8.1}M {:>9.0} {:>7} {:>6}",
                p.name,
                p.actions_per_s,
                p.matches_per_s,
                p.submit_latency_us.p50,
                p.submit_latency_us.p90,
                p.submit_latency_us.p99,
                p.submit_latency_us.p999,
                p.server_peak_rss_bytes
                    .map_or(0.0, |b| b as f64 / (1 << 20) as f64),
                p.server_cpu_us_per_action.unwrap_or(0.0),
                errors,
                ratio.map_or("-".to_string(), |r| format!("{r:.2}")),
            );
        };
        row(&g.engine, g.throughput_ratio);
        if let Some(r) = g.cpu_ratio {
            println!("    server CPU per action, echo ÷ engine: {r:.2}");
        }
        if let Some(us) = g
            .engine
            .server_children_cpu_us_per_action
            .filter(|&us| us > 0.0)
        {
            println!("    of the server's CPU per action, its plugin workers': {us:.0} µs");
        }
        if let (Some(r), Some(busy)) = (g.total_cpu_ratio, g.engine.cores_busy) {
            let echo_busy = g
                .baseline
                .as_ref()
                .and_then(|b| b.cores_busy)
                .map_or("-".to_string(), |b| format!("{b:.2}"));
            println!(
                "    server+client CPU per action, echo ÷ engine: {r:.2}; cores busy: engine {busy:.2}, echo {echo_busy}"
            );
        }
        if let Some(b) = &g.baseline {
            row(b, None);
        }
        for (code, n) in &g.engine.errors {
            println!("    {}: {code} × {n}", g.engine.name);
        }
        println!(
            "    payload bytes: legal {}→{}, submit {}→{}",
            g.engine.sizes.legal_request,
            g.engine.sizes.legal_response,
            g.engine.sizes.submit_request,
            g.engine.sizes.submit_response
        );
    }
}
