//! `arena`: a tournament platform's arena against engine-host, played as
//! the platform and its players would. N players share at most M HTTP/2
//! connections; they wait in a pool, and a pairing loop creates a match
//! (with a request id and the label `arena=<run id>`, under the platform's
//! organizer credential) as soon as enough of them wait, bots taking a
//! share of the seats. Each player watches its own seat's stream and
//! answers when it is to move after a log-normal think time, with a random
//! legal action; some drop their stream mid-match and resume from their
//! cursor. Spectators watch random live matches; stalled clients open
//! streams and never read them. The platform follows the lifecycle feed to
//! see matches end. Players join in ramp steps, so the report can name the
//! number of players at which SubmitAction's p99 passed the ceiling.
//!
//! The default game is Focus: the cheapest of the four per action (its
//! SubmitAction costs least in `run`), and a random Focus match is long
//! (hundreds of plies), so at a think time of seconds a match outlives
//! the run and the arena's load is its players' moves, not its setup.
//!
//! Against a spawned host (`--server`) the host runs with its default
//! limits (the load tool's own, which turn them off, are overridden), as a
//! platform would meet them; `--server-arg`s come after and win.

mod platform;
mod player;
mod tally;
mod watchers;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde::Serialize;
use tabletop_proto::v1 as pb;
use tabletop_proto::v1::admin_client::AdminClient;
use tokio::sync::{mpsc, watch};
use tonic::metadata::{Ascii, MetadataValue};
use tonic::transport::Channel;

use crate::proc;
use crate::{load, stats};
use platform::{LiveMatches, Pairing};
use player::{PlayerSetup, ThinkTime};
use tally::{Tally, TallySummary};

/// Arguments of `tabletop-bench arena`.
#[derive(Debug, Clone, clap::Args)]
pub struct ArenaArgs {
    /// Start this engine-host binary (free port, scratch data directory,
    /// the host's default limits) and play against it.
    #[arg(long, value_name = "PATH", conflicts_with = "addr")]
    server: Option<PathBuf>,
    /// An extra argument for the spawned host (repeatable), e.g.
    /// `--server-arg=--trust-plugin --server-arg=focus=HASH`.
    #[arg(long = "server-arg", allow_hyphen_values = true, value_name = "ARG")]
    server_args: Vec<String>,
    /// A running host to play against (repeatable: the players are split
    /// evenly, each host running its own matches).
    #[arg(long, value_name = "URL")]
    addr: Vec<String>,
    /// The process id of each `--addr` host, in the same order, to measure
    /// its CPU and memory with its plugin workers'.
    #[arg(long)]
    pid: Vec<u32>,
    /// The admin token of the `--addr` hosts (it issues the platform's
    /// organizer credential).
    #[arg(long, env = "TABLETOP_ADMIN_TOKEN", hide_env_values = true)]
    admin_token: Option<String>,
    /// The game played.
    #[arg(long, default_value = "focus")]
    game: String,
    /// A game option for every match, `KEY=VALUE` (repeatable), e.g.
    /// `--option max_turns=40` so matches end and players pair again.
    #[arg(long = "option", value_name = "KEY=VALUE", value_parser = parse_option)]
    options: Vec<(String, String)>,
    /// Players (people at a client), all seated by the end of the ramp.
    #[arg(long, default_value_t = 10_000)]
    players: usize,
    /// Most HTTP/2 connections the players and spectators share (per run,
    /// split over the hosts).
    #[arg(long, default_value_t = 64)]
    connections: usize,
    /// Spectators watching random live matches without a token.
    #[arg(long, default_value_t = 1_000)]
    spectators: usize,
    /// Clients that open a Watch stream and never read it.
    #[arg(long, default_value_t = 500)]
    stalled: usize,
    /// Connections of their own (small HTTP/2 windows) for the stalled
    /// clients, per host.
    #[arg(long, default_value_t = 4)]
    stalled_connections: usize,
    /// Share of players who drop their stream once in a match and watch
    /// again from their cursor.
    #[arg(long, default_value_t = 0.05)]
    reconnect_share: f64,
    /// Share of all seats played by a server-side bot.
    #[arg(long, default_value_t = 0.1)]
    bot_share: f64,
    /// The bots' spec (cheap: `random`, or `mcts:50ms`).
    #[arg(long, default_value = "random")]
    bot_spec: String,
    /// Median think time before a move, ms (log-normal).
    #[arg(long, default_value_t = 3_000)]
    think_median_ms: u64,
    /// The think time's log-normal shape (σ of its logarithm).
    #[arg(long, default_value_t = 0.5)]
    think_sigma: f64,
    /// Seconds at full strength, after the ramp.
    #[arg(long, default_value_t = 60.0)]
    duration: f64,
    /// Players who join at each ramp step.
    #[arg(long, default_value_t = 1_000)]
    ramp_step: usize,
    /// Seconds between ramp steps.
    #[arg(long, default_value_t = 5.0)]
    ramp_every: f64,
    /// The SubmitAction p99 whose passing the report names, ms.
    #[arg(long, default_value_t = 100)]
    ceiling_ms: u64,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// No progress lines.
    #[arg(long)]
    quiet: bool,
}

/// SubmitAction samples a ramp step needs before its p99 counts.
const MIN_STEP_SAMPLES: u64 = 100;

/// How long the stalled streams are read at the end.
const SETTLE_STALLED: Duration = Duration::from_secs(2);

/// What the host processes used, plugin workers included.
#[derive(Debug, Default, Serialize)]
struct HostUse {
    /// CPU seconds of the hosts and their workers over the run.
    cpu_s: Option<f64>,
    /// Of the machine's cores, how many the hosts kept busy on average.
    cores_busy: Option<f64>,
    /// Peak of the hosts' and workers' resident memory summed, sampled
    /// every half second.
    peak_rss_bytes: Option<u64>,
    /// Each process's own peak (VmHWM), summed at the end: an upper bound.
    peak_rss_each_summed_bytes: Option<u64>,
    /// Most plugin worker processes seen at once.
    plugin_workers: u32,
}

#[derive(Debug, Serialize)]
struct Report {
    machine: crate::Machine,
    game: String,
    hosts: Vec<String>,
    server_args: Vec<String>,
    players: usize,
    connections: usize,
    spectators: usize,
    stalled: usize,
    think_median_ms: u64,
    think_sigma: f64,
    reconnect_share: f64,
    bot_share: f64,
    bot_spec: String,
    ramp_step: usize,
    ramp_every_s: f64,
    duration_s: f64,
    ceiling_ms: u64,
    /// Wall time from the first step to the stop.
    seconds: f64,
    /// Actions a second over the whole run.
    actions_per_s: f64,
    /// Actions a second once every player was seated.
    actions_per_s_full: f64,
    #[serde(flatten)]
    tally: TallySummary,
    host_use: HostUse,
    /// CPU seconds this tool used over the run: on a machine it shares with
    /// the host, what the players' side took from the host's cores.
    tool_cpu_s: Option<f64>,
    /// Of the machine's cores, how many this tool kept busy on average.
    tool_cores_busy: Option<f64>,
}

/// One host and what runs against it.
struct Host {
    url: String,
    pid: Option<u32>,
    channels: Vec<Channel>,
    stalled_channels: Vec<Channel>,
    live: Arc<LiveMatches>,
    pool: mpsc::UnboundedSender<platform::Waiting>,
}

fn bearer(secret: &str) -> Result<MetadataValue<Ascii>, String> {
    format!("Bearer {secret}")
        .parse()
        .map_err(|_| "a token or secret is printable ASCII".to_string())
}

/// Issues the platform's organizer credential on a host.
async fn organizer(channel: Channel, admin: &str, run_id: &str) -> Result<String, String> {
    let mut request = tonic::Request::new(pb::IssueCredentialRequest {
        name: format!("arena {run_id}"),
        ..Default::default()
    });
    request
        .metadata_mut()
        .insert("authorization", bearer(admin)?);
    Ok(AdminClient::new(channel)
        .issue_credential(request)
        .await
        .map_err(|e| format!("cannot issue the platform's credential: {e}"))?
        .into_inner()
        .secret)
}

fn check(args: &ArenaArgs) -> Result<(), String> {
    let positive = |x: f64| x > 0.0 && x.is_finite();
    if args.players == 0 || args.ramp_step == 0 || args.connections == 0 {
        return Err("--players, --ramp-step and --connections must be at least 1".into());
    }
    if !positive(args.duration) || !positive(args.ramp_every) {
        return Err("--duration and --ramp-every must be positive seconds".into());
    }
    let share = |x: f64| (0.0..=1.0).contains(&x);
    if !share(args.reconnect_share) || !share(args.bot_share) {
        return Err("--reconnect-share and --bot-share are between 0 and 1".into());
    }
    if !args.addr.is_empty() && !args.pid.is_empty() && args.pid.len() != args.addr.len() {
        return Err("give one --pid per --addr, in the same order".into());
    }
    Ok(())
}

/// Runs the arena and prints its report.
pub async fn arena(args: ArenaArgs) -> Result<(), String> {
    // One piece: the run in the order it happens (hosts, platform, ramp,
    // full strength, stop, report); spawned hosts live until the report.
    check(&args)?;
    let run_id = format!("{:08x}", rand::random::<u32>());
    let (spawned, targets, admin) = match (&args.server, args.addr.is_empty()) {
        (Some(path), _) => {
            let admin = format!("arena-admin-{:016x}", rand::random::<u64>());
            let mut server_args = vec!["--admin-token".to_string(), admin.clone()];
            server_args.extend(crate::flood::default_limits());
            server_args.extend(args.server_args.iter().cloned());
            let host = proc::spawn(path, &server_args, true).await?;
            let target = vec![(host.url.clone(), Some(host.pid))];
            (Some(host), target, admin)
        }
        (None, false) => {
            let admin = args.admin_token.clone().ok_or(
                "--addr needs the hosts' admin token (--admin-token or TABLETOP_ADMIN_TOKEN)",
            )?;
            let pids = args
                .pid
                .iter()
                .copied()
                .map(Some)
                .chain(std::iter::repeat(None));
            (None, args.addr.iter().cloned().zip(pids).collect(), admin)
        }
        (None, true) => return Err("give --server PATH or --addr URL".into()),
    };
    let tally = Arc::new(Tally::default());
    let (stop_tx, stop) = watch::channel(false);
    let per_host = (args.connections / targets.len()).max(1);
    let mut hosts = Vec::new();
    let mut background = tokio::task::JoinSet::new();
    for (index, (url, pid)) in targets.iter().enumerate() {
        let channels = load::connect(url, per_host).await?;
        let games = load::games(channels[0].clone()).await?;
        let game = games
            .iter()
            .find(|g| g.name == args.game)
            .ok_or_else(|| format!("{url} has no game named `{}`", args.game))?;
        let secret = organizer(channels[0].clone(), &admin, &run_id).await?;
        let live = Arc::new(LiveMatches::default());
        let (pool, waiting) = mpsc::unbounded_channel();
        let pairing = Pairing {
            game: args.game.clone(),
            seats: game.min_players.max(2),
            run_id: run_id.clone(),
            bot_share: args.bot_share,
            bot_spec: args.bot_spec.clone(),
            bearer: Some(bearer(&secret)?),
            seed: args.seed.wrapping_add(index as u64),
            options: args.options.iter().cloned().collect(),
        };
        background.spawn(platform::pairing_loop(
            channels.clone(),
            pairing,
            waiting,
            live.clone(),
            tally.clone(),
            stop.clone(),
        ));
        background.spawn(platform::follow_feed(
            channels[channels.len() - 1].clone(),
            bearer(&secret)?,
            run_id.clone(),
            live.clone(),
            tally.clone(),
            stop.clone(),
        ));
        let stalled_channels = if args.stalled > 0 {
            watchers::connect_stalled(url, args.stalled_connections).await?
        } else {
            Vec::new()
        };
        hosts.push(Host {
            url: url.clone(),
            pid: *pid,
            channels,
            stalled_channels,
            live,
            pool,
        });
    }
    let pids: Vec<u32> = hosts.iter().filter_map(|h| h.pid).collect();
    let sampler = tokio::spawn(sample_memory(pids.clone(), stop.clone()));
    let cpu_before = host_cpu(&pids);
    let tool_cpu_before = proc::cpu_seconds(std::process::id());
    let start = Instant::now();
    let think = ThinkTime {
        median: Duration::from_millis(args.think_median_ms),
        sigma: args.think_sigma,
    };
    let mut players = tokio::task::JoinSet::new();
    let mut stalled = Vec::new();
    let (mut seated, mut spectators, mut stalled_opened) = (0usize, 0usize, 0usize);
    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(args.seed);
    let progress = (!args.quiet).then(|| tokio::spawn(progress(tally.clone(), start)));
    let mut full_since = (start, 0u64);
    while seated < args.players {
        let step = args.ramp_step.min(args.players - seated);
        for n in seated..seated + step {
            let host = &hosts[n % hosts.len()];
            let setup = PlayerSetup {
                pool: host.pool.clone(),
                think,
                reconnect_share: args.reconnect_share,
                tally: tally.clone(),
                stop: stop.clone(),
            };
            let channel = host.channels[(n / hosts.len()) % host.channels.len()].clone();
            players.spawn(player::play(channel, setup, args.seed ^ ((n as u64) << 8)));
        }
        seated += step;
        tally.players_now.store(seated, Ordering::Relaxed);
        // Spectators and stalled clients come in proportion.
        let spectators_due = args.spectators * seated / args.players;
        for n in spectators..spectators_due {
            let host = &hosts[n % hosts.len()];
            let channel = host.channels[(n / hosts.len()) % host.channels.len()].clone();
            players.spawn(watchers::spectate(
                channel,
                host.live.clone(),
                tally.clone(),
                stop.clone(),
                args.seed ^ ((n as u64) << 32),
            ));
        }
        spectators = spectators_due;
        let last = seated == args.players;
        let wait = if last {
            Duration::from_secs_f64(args.duration)
        } else {
            Duration::from_secs_f64(args.ramp_every)
        };
        if last {
            full_since = (Instant::now(), tally.actions.load(Ordering::Relaxed));
        }
        // The step's matches exist after a moment: stalled clients pick
        // from them then.
        let settle = wait.min(Duration::from_secs(1));
        tokio::time::sleep(settle).await;
        let stalled_due = args.stalled * seated / args.players;
        for n in stalled_opened..stalled_due {
            let host = &hosts[n % hosts.len()];
            let channel =
                host.stalled_channels[(n / hosts.len()) % host.stalled_channels.len()].clone();
            if let Some(stream) =
                watchers::open_stalled(channel, &host.live, &tally, &mut rng).await
            {
                stalled.push(stream);
            }
        }
        stalled_opened = stalled_due;
        tokio::time::sleep(wait.saturating_sub(settle)).await;
        if !args.quiet {
            let summary = tally.summary(Duration::from_millis(args.ceiling_ms), 1);
            if let Some(step) = summary.ramp_steps.iter().find(|s| s.players == seated) {
                eprintln!(
                    "[arena] {seated} players: SubmitAction p99 {} µs over {} calls",
                    step.submit.p99, step.submit.count
                );
            }
        }
    }
    let _ = stop_tx.send(true);
    let seconds = start.elapsed().as_secs_f64();
    let full_seconds = full_since.0.elapsed().as_secs_f64();
    let full_actions = tally.actions.load(Ordering::Relaxed) - full_since.1;
    let cpu_after = host_cpu(&pids);
    let tool_cpu_s = match (tool_cpu_before, proc::cpu_seconds(std::process::id())) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    if let Some(p) = progress {
        p.abort();
    }
    watchers::settle_stalled(stalled, &tally, SETTLE_STALLED).await;
    let _ = tokio::time::timeout(Duration::from_secs(5), async {
        while players.join_next().await.is_some() {}
    })
    .await;
    players.abort_all();
    background.abort_all();
    let memory = sampler.await.unwrap_or_default();
    let summary = tally.summary(
        Duration::from_millis(args.ceiling_ms),
        MIN_STEP_SAMPLES.min((args.players as u64 / 2).max(1)),
    );
    let cpu_s = match (cpu_before, cpu_after) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    let report = Report {
        machine: crate::machine(),
        game: args.game.clone(),
        hosts: hosts.iter().map(|h| h.url.clone()).collect(),
        server_args: args.server_args.clone(),
        players: args.players,
        connections: per_host * hosts.len(),
        spectators: args.spectators,
        stalled: args.stalled,
        think_median_ms: args.think_median_ms,
        think_sigma: args.think_sigma,
        reconnect_share: args.reconnect_share,
        bot_share: args.bot_share,
        bot_spec: args.bot_spec.clone(),
        ramp_step: args.ramp_step,
        ramp_every_s: args.ramp_every,
        duration_s: args.duration,
        ceiling_ms: args.ceiling_ms,
        seconds,
        actions_per_s: summary.actions as f64 / seconds.max(1e-9),
        actions_per_s_full: full_actions as f64 / full_seconds.max(1e-9),
        tally: summary,
        host_use: HostUse {
            cpu_s,
            cores_busy: cpu_s.map(|c| c / seconds.max(1e-9)),
            peak_rss_bytes: memory.peak_sum,
            peak_rss_each_summed_bytes: pids
                .iter()
                .map(|&p| proc::tree_rss(p).map(|t| t.peaks_bytes))
                .sum(),
            plugin_workers: memory.workers,
        },
        tool_cpu_s,
        tool_cores_busy: tool_cpu_s.map(|c| c / seconds.max(1e-9)),
    };
    crate::emit(&report, args.json, print_table)?;
    drop(spawned);
    Ok(())
}

/// The CPU seconds of the hosts and their workers so far.
fn host_cpu(pids: &[u32]) -> Option<f64> {
    if pids.is_empty() {
        return None;
    }
    pids.iter()
        .map(|&p| proc::tree_cpu_seconds(p).map(|c| c.total))
        .sum()
}

/// The peak of the hosts' memory, sampled.
#[derive(Debug, Default)]
struct MemoryPeak {
    peak_sum: Option<u64>,
    workers: u32,
}

/// Samples the hosts' and their workers' resident memory every half
/// second until `stop`.
async fn sample_memory(pids: Vec<u32>, mut stop: watch::Receiver<bool>) -> MemoryPeak {
    let mut peak = MemoryPeak::default();
    if pids.is_empty() {
        return peak;
    }
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    loop {
        let trees: Option<Vec<proc::TreeRss>> = pids.iter().map(|&p| proc::tree_rss(p)).collect();
        if let Some(trees) = trees {
            let sum = trees.iter().map(|t| t.rss_bytes).sum::<u64>();
            peak.peak_sum = Some(peak.peak_sum.unwrap_or(0).max(sum));
            peak.workers = peak.workers.max(trees.iter().map(|t| t.children).sum());
        }
        tokio::select! {
            _ = stop.changed() => return peak,
            _ = tick.tick() => {}
        }
    }
}

/// A progress line every five seconds.
async fn progress(tally: Arc<Tally>, start: Instant) {
    let mut tick = tokio::time::interval(Duration::from_secs(5));
    tick.tick().await;
    let mut last = 0;
    loop {
        tick.tick().await;
        let actions = tally.actions.load(Ordering::Relaxed);
        eprintln!(
            "[arena] {:>4.0}s  players {:>6}  actions {actions:>8} ({:>6.0}/s)  matches {}  ended {}",
            start.elapsed().as_secs_f64(),
            tally.players(),
            (actions - last) as f64 / 5.0,
            tally.matches_created.load(Ordering::Relaxed),
            tally.matches_ended.load(Ordering::Relaxed),
        );
        last = actions;
    }
}

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

fn print_table(r: &Report) {
    let t = &r.tally;
    println!(
        "arena of {} on {}: {} players, {} spectators, {} stalled, {} connections; think median {} ms; {} CPUs ({})",
        r.game,
        r.hosts.join(", "),
        r.players,
        r.spectators,
        r.stalled,
        r.connections,
        r.think_median_ms,
        r.machine.cpus,
        r.machine.cpu_model
    );
    println!(
        "{:<26} {:>9} {:>10} {:>10} {:>10}",
        "latency (ms)", "count", "p50", "p99", "max"
    );
    let row = |name: &str, l: &stats::Latency| {
        println!(
            "{name:<26} {:>9} {:>10.2} {:>10.2} {:>10.2}",
            l.count,
            ms(l.p50),
            ms(l.p99),
            ms(l.max)
        );
    };
    for (name, latency) in &t.rpc_latency_us {
        row(name, latency);
    }
    row("move → opponent's stream", &t.move_to_opponent_stream_us);
    row("lifecycle feed lag", &t.feed_lag_us);
    println!(
        "actions/s {:.0} over {:.1} s ({:.0} at full strength); matches created {}, ended {}",
        r.actions_per_s, r.seconds, r.actions_per_s_full, t.matches_created, t.matches_ended
    );
    println!("SubmitAction p99 by players seated:");
    for step in &t.ramp_steps {
        println!(
            "    {:>7} players: {:>9.2} ms ({} calls)",
            step.players,
            ms(step.submit.p99),
            step.submit.count
        );
    }
    match t.submit_p99_passed_ceiling_at_players {
        Some(n) => println!("SubmitAction p99 passed {} ms at {n} players", r.ceiling_ms),
        None => println!("SubmitAction p99 passed {} ms: not reached", r.ceiling_ms),
    }
    println!(
        "streams: {} reconnects, {} resumed after a cut, {} feed resumes; {} events lost, {} duplicated; {} spectator streams",
        t.reconnects,
        t.resumed_watch_streams,
        t.resumed_feed,
        t.lost_events,
        t.duplicated_events,
        t.spectator_streams
    );
    println!(
        "stalled: {} opened, {} cut (fell behind), {} ended, {} still open",
        t.stalled.opened, t.stalled.cut_fell_behind, t.stalled.ended, t.stalled.still_open
    );
    println!("honest failures: {}", t.honest_failures);
    for (caller, table) in [
        ("honest", &t.errors.honest),
        ("stalled", &t.errors.stalled),
        ("platform", &t.errors.platform),
    ] {
        for (key, n) in table {
            println!("    {caller}: {key} × {n}");
        }
    }
    let u = &r.host_use;
    let mib = |b: Option<u64>| {
        b.map_or("-".to_string(), |b| {
            format!("{:.0} MiB", b as f64 / 1048576.0)
        })
    };
    println!(
        "hosts + plugin workers ({} workers at most): CPU {} s ({} cores busy), peak RSS {} (each's peak summed {})",
        u.plugin_workers,
        u.cpu_s.map_or("-".to_string(), |c| format!("{c:.1}")),
        u.cores_busy.map_or("-".to_string(), |c| format!("{c:.2}")),
        mib(u.peak_rss_bytes),
        mib(u.peak_rss_each_summed_bytes)
    );
    if let (Some(cpu), Some(busy)) = (r.tool_cpu_s, r.tool_cores_busy) {
        println!("this tool: CPU {cpu:.1} s ({busy:.2} cores busy)");
    }
}

/// A `KEY=VALUE` game option.
fn parse_option(text: &str) -> Result<(String, String), String> {
    text.split_once('=')
        .map(|(key, value)| (key.to_string(), value.to_string()))
        .ok_or_else(|| format!("`{text}` is not KEY=VALUE"))
}
