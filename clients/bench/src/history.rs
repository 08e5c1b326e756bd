//! `history`: whether the host's memory stays flat while matches pile up in
//! its store. It starts engine-host on the SQLite store with a short
//! `--finished-retention`, plays bot matches to the end (the players of
//! `run`) until both a match count and an action count are reached, and
//! keeps Watch streams open the whole time: most watchers follow a running
//! match live; one in `--late-every` joins late from version 0, alternately
//! on a running match (the history so far, then the live feed) and on a
//! finished one that has usually left memory (read back from the store and
//! replayed to its end). Every tenth of the match count it reads the host's
//! RSS; the verdict compares the RSS at the last tenth-mark with the RSS at
//! a fifth of the matches.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use tabletop_proto::v1 as pb;
use tabletop_proto::v1::watch_client::WatchClient;
use tokio_stream::StreamExt;
use tonic::transport::Channel;

use crate::load::{self, Player};
use crate::stats::{Latency, Live};
use crate::{Machine, machine, proc};

/// Largest allowed growth of the host's RSS from a fifth of the matches to
/// all of them.
const MAX_GROWTH: f64 = 1.10;

#[derive(Debug, Clone, clap::Args)]
pub struct HistoryArgs {
    /// The engine-host binary to start on a free port with a scratch data
    /// directory and the SQLite store; stopped at the end.
    #[arg(long, value_name = "PATH")]
    spawn_server: PathBuf,
    /// An extra argument for the spawned server (repeatable).
    #[arg(long = "server-arg", allow_hyphen_values = true, value_name = "ARG")]
    server_args: Vec<String>,
    /// Seconds a finished match stays in the host's memory once nobody
    /// watches it (the host's `--finished-retention`).
    #[arg(long, default_value_t = 2)]
    retention: u64,
    /// Games to play, comma-separated: player i plays the i-th in turn.
    #[arg(long, value_delimiter = ',', default_value = "lanza")]
    game: Vec<String>,
    /// Matches to finish. The RSS is read every tenth of them; the verdict
    /// compares the reading at all of them with the one at a fifth.
    #[arg(long, default_value_t = 100_000)]
    matches: u64,
    /// Actions to play at least: the run goes on past `--matches` (reading
    /// the RSS every tenth as before) until it has played them.
    #[arg(long, default_value_t = 1_000_000)]
    min_actions: u64,
    /// Simulated players (= matches running at once).
    #[arg(long, short = 'n', default_value_t = 128)]
    players: usize,
    /// HTTP/2 connections the players share (the watchers have as many of
    /// their own).
    #[arg(long, short = 'm', default_value_t = 4)]
    connections: usize,
    /// Watch streams to keep open.
    #[arg(long, default_value_t = 1000)]
    watchers: usize,
    /// One watcher in this many joins late, from version 0 (0: none).
    #[arg(long, default_value_t = 4)]
    late_every: usize,
    /// Watchers leave each transition's view out (`omit_views`); the default
    /// is a spectator's stream, with views.
    #[arg(long)]
    omit_views: bool,
    /// Stop after this many seconds whatever was reached (the verdict then
    /// says so).
    #[arg(long, default_value_t = 3600)]
    max_seconds: u64,
    /// Seed of the players' and watchers' random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print machine-readable JSON on stdout (progress still goes to stderr).
    #[arg(long)]
    json: bool,
    /// No progress lines.
    #[arg(long)]
    quiet: bool,
}

/// One reading of the host's memory.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Sample {
    /// The tenth-mark it was taken for.
    pub mark: u64,
    /// Matches finished when it was read.
    pub matches: u64,
    /// Actions played by then.
    pub actions: u64,
    /// Seconds since the start.
    pub seconds: f64,
    /// The host's VmRSS, bytes.
    pub rss_bytes: u64,
    /// Watch streams open at that moment.
    pub watch_streams_open: u64,
}

/// What the watchers did.
#[derive(Debug, Default, Serialize)]
pub struct WatchReport {
    /// Watchers kept busy.
    pub watchers: usize,
    /// Of them, those that join late from version 0.
    pub late_watchers: usize,
    /// Whether the streams carried views.
    pub views: bool,
    /// Streams opened in all.
    pub streams: u64,
    /// Streams from version 0 on a running match.
    pub late_streams: u64,
    /// Streams from version 0 on a finished match (a replay to its end,
    /// usually of a match read back from the store).
    pub finished_replays: u64,
    /// Events received.
    pub events: u64,
    /// Events received on streams from version 0.
    pub events_from_zero: u64,
    /// Fewest and mean streams open at the RSS readings.
    pub open_min: u64,
    pub open_mean: f64,
    /// Failed Watch calls and streams, by status code.
    pub errors: BTreeMap<String, u64>,
}

/// The whole run, as `--json` prints it.
#[derive(Debug, Serialize)]
pub struct HistoryReport {
    machine: Machine,
    games: Vec<String>,
    players: usize,
    connections: usize,
    retention_s: u64,
    server_args: Vec<String>,
    seconds: f64,
    actions: u64,
    matches: u64,
    actions_per_s: f64,
    matches_per_s: f64,
    submit_latency_us: Latency,
    /// Failed player RPCs by status code.
    errors: BTreeMap<String, u64>,
    watch: WatchReport,
    samples: Vec<Sample>,
    /// The reading at a fifth of `--matches`, and at all of them.
    baseline: Option<Sample>,
    last: Option<Sample>,
    /// last ÷ baseline RSS.
    rss_ratio: Option<f64>,
    /// Both targets reached and the ratio at most 1.10.
    pass: bool,
    /// Whether the match and action counts were reached in time.
    completed: bool,
    server_cpu_s: Option<f64>,
    server_peak_rss_bytes: Option<u64>,
}

/// The matches the watchers choose from.
#[derive(Debug)]
struct Board {
    /// Each player's current match.
    running: Vec<Mutex<Option<String>>>,
    /// Every match finished so far.
    finished: Mutex<Vec<String>>,
}

impl Board {
    fn any_running(&self, rng: &mut StdRng) -> Option<String> {
        // A player between matches has none: look at a few.
        (0..8).find_map(|_| {
            let slot = &self.running[rng.random_range(0..self.running.len())];
            slot.lock().unwrap_or_else(|e| e.into_inner()).clone()
        })
    }

    fn any_finished(&self, rng: &mut StdRng) -> Option<String> {
        let finished = self.finished.lock().unwrap_or_else(|e| e.into_inner());
        (!finished.is_empty()).then(|| finished[rng.random_range(0..finished.len())].clone())
    }
}

#[derive(Debug, Default)]
struct WatchCounters {
    open: AtomicU64,
    streams: AtomicU64,
    late_streams: AtomicU64,
    finished_replays: AtomicU64,
    events: AtomicU64,
    events_from_zero: AtomicU64,
    /// Only its error counts are used.
    errors: Live,
}

/// Runs `tabletop-bench history`.
pub async fn history(args: HistoryArgs) -> Result<(), String> {
    if args.players == 0 || args.matches < 10 || args.game.is_empty() {
        return Err("--players must be at least 1, --matches at least 10, and a game named".into());
    }
    let mut server_args = vec![
        "--store".to_string(),
        "sqlite".to_string(),
        "--finished-retention".to_string(),
        args.retention.to_string(),
    ];
    server_args.extend(args.server_args.iter().cloned());
    let server = proc::spawn(&args.spawn_server, &server_args, true).await?;
    let channels = load::connect(&server.url, args.connections).await?;
    let watch_channels = load::connect(&server.url, args.connections).await?;
    let seats = seats_per_game(&args.game, &load::games(channels[0].clone()).await?)?;

    let live = Arc::new(Live::default());
    let stop = Arc::new(AtomicBool::new(false));
    let board = Arc::new(Board {
        running: (0..args.players).map(|_| Mutex::new(None)).collect(),
        finished: Mutex::new(Vec::new()),
    });
    let counters = Arc::new(WatchCounters::default());
    let start = Instant::now();
    let deadline = start + Duration::from_secs(args.max_seconds);
    let server_cpu0 = proc::cpu_seconds(server.pid);

    let mut players = start_players(
        &args,
        &channels,
        &seats,
        Shared {
            live: live.clone(),
            stop: stop.clone(),
            board: board.clone(),
        },
        deadline,
    );

    let mut watchers = start_watchers(&args, &watch_channels, &stop, &board, &counters);

    let every = args.matches / 10;
    let samples = sample_until_done(&args, server.pid, &live, &counters, start, deadline).await?;
    let seconds = start.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    // Players finish the match in hand; the watchers' streams end with them.
    while players.join_next().await.is_some() {}
    let server_cpu_s = match (server_cpu0, proc::cpu_seconds(server.pid)) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    let server_peak_rss_bytes = proc::peak_rss_bytes(server.pid);
    let _ = tokio::time::timeout(Duration::from_secs(30), async {
        while watchers.join_next().await.is_some() {}
    })
    .await;
    watchers.abort_all();

    let actions = live.actions.load(Ordering::Relaxed);
    let matches = live.matches.load(Ordering::Relaxed);
    let phase = live.summary("history", Duration::from_secs_f64(seconds));
    let at = |mark: u64| samples.iter().find(|s| s.mark == mark).copied();
    let baseline = at(2 * every);
    let last = at(10 * every);
    let rss_ratio = match (baseline, last) {
        (Some(b), Some(l)) if b.rss_bytes > 0 => Some(l.rss_bytes as f64 / b.rss_bytes as f64),
        _ => None,
    };
    let completed = matches >= args.matches && actions >= args.min_actions;
    let watch = watch_report(&args, &counters, &samples);
    let report = HistoryReport {
        machine: machine(),
        games: args.game.clone(),
        players: args.players,
        connections: args.connections,
        retention_s: args.retention,
        server_args,
        seconds,
        actions,
        matches,
        actions_per_s: phase.actions_per_s,
        matches_per_s: phase.matches_per_s,
        submit_latency_us: phase.submit_latency_us,
        errors: phase.errors,
        watch,
        samples,
        baseline,
        last,
        rss_ratio,
        pass: completed && rss_ratio.is_some_and(|r| r <= MAX_GROWTH),
        completed,
        server_cpu_s,
        server_peak_rss_bytes,
    };
    drop(server);
    crate::emit(&report, args.json, print_report)?;
    Ok(())
}

/// The seats of a match of each game: the game's fewest.
fn seats_per_game(games: &[String], offered: &[pb::GameInfo]) -> Result<Vec<u32>, String> {
    games
        .iter()
        .map(|name| {
            let game = offered
                .iter()
                .find(|g| &g.name == name)
                .ok_or_else(|| format!("the server has no game named `{name}`"))?;
            Ok(game.min_players.max(1))
        })
        .collect()
}

/// What the players share: the counters, the stop flag and the matches in
/// play and finished.
#[derive(Clone)]
struct Shared {
    live: Arc<Live>,
    stop: Arc<AtomicBool>,
    board: Arc<Board>,
}

/// Starts the players, each creating and playing matches of its game until
/// stopped or `deadline`.
fn start_players(
    args: &HistoryArgs,
    channels: &[Channel],
    seats: &[u32],
    shared: Shared,
    deadline: Instant,
) -> tokio::task::JoinSet<()> {
    let mut players = tokio::task::JoinSet::new();
    for i in 0..args.players {
        let game = args.game[i % args.game.len()].clone();
        let seats = seats[i % seats.len()];
        let mut player = Player::new(
            channels[i % channels.len()].clone(),
            args.seed.wrapping_add(i as u64),
            true,
            true,
        );
        let Shared { live, stop, board } = shared.clone();
        players.spawn(async move {
            while !stop.load(Ordering::Relaxed) && Instant::now() < deadline {
                let Some(created) = player.create(&game, seats, &live).await else {
                    continue;
                };
                let id = created.match_id.clone();
                *board.running[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(id.clone());
                let finished = player.play(created, &live, deadline).await;
                *board.running[i].lock().unwrap_or_else(|e| e.into_inner()) = None;
                if finished {
                    board
                        .finished
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(id);
                    live.matches.fetch_add(1, Ordering::Relaxed);
                }
            }
            live.merge(player.histogram());
        });
    }
    players
}

/// Starts the watchers, every `--late-every`th one late.
fn start_watchers(
    args: &HistoryArgs,
    watch_channels: &[Channel],
    stop: &Arc<AtomicBool>,
    board: &Arc<Board>,
    counters: &Arc<WatchCounters>,
) -> tokio::task::JoinSet<()> {
    let mut watchers = tokio::task::JoinSet::new();
    for w in 0..args.watchers {
        let late = args.late_every != 0 && w % args.late_every == 0;
        let channel = watch_channels[w % watch_channels.len()].clone();
        let (stop, board, counters) = (Arc::clone(stop), Arc::clone(board), Arc::clone(counters));
        let seed = args.seed.wrapping_add(1_000_000 + w as u64);
        let omit_views = args.omit_views;
        watchers.spawn(async move {
            watch_loop(channel, board, counters, stop, late, omit_views, seed).await;
        });
    }
    watchers
}

/// Samples the server's RSS at every tenth of `--matches` until the run has
/// its matches and actions or `deadline` passes, printing progress.
async fn sample_until_done(
    args: &HistoryArgs,
    server_pid: u32,
    live: &Live,
    counters: &WatchCounters,
    start: Instant,
    deadline: Instant,
) -> Result<Vec<Sample>, String> {
    let every = args.matches / 10;
    let mut samples: Vec<Sample> = Vec::new();
    let mut next_mark = every;
    let mut last_progress = Instant::now();
    loop {
        tokio::time::sleep(Duration::from_millis(20)).await;
        let matches = live.matches.load(Ordering::Relaxed);
        let actions = live.actions.load(Ordering::Relaxed);
        if matches >= next_mark {
            let rss_bytes =
                proc::rss_bytes(server_pid).ok_or("cannot read the server's VmRSS from /proc")?;
            let sample = Sample {
                mark: next_mark,
                matches,
                actions,
                seconds: start.elapsed().as_secs_f64(),
                rss_bytes,
                watch_streams_open: counters.open.load(Ordering::Relaxed),
            };
            if !args.quiet {
                eprintln!(
                    "[history] {:>6.0}s  matches {:>7}  actions {:>9}  RSS {:>7.1} MB  streams open {}",
                    sample.seconds,
                    matches,
                    actions,
                    mb(rss_bytes),
                    sample.watch_streams_open
                );
            }
            samples.push(sample);
            next_mark += every;
        }
        if matches >= args.matches && actions >= args.min_actions {
            return Ok(samples);
        }
        if Instant::now() >= deadline {
            return Ok(samples);
        }
        if !args.quiet && last_progress.elapsed() >= Duration::from_secs(10) {
            last_progress = Instant::now();
            eprintln!(
                "[history] {:>6.0}s  matches {matches:>7}  actions {actions:>9}  errors {}  streams open {}  watch events {}",
                start.elapsed().as_secs_f64(),
                live.errors.load(Ordering::Relaxed),
                counters.open.load(Ordering::Relaxed),
                counters.events.load(Ordering::Relaxed),
            );
        }
    }
}

/// The watchers' figures, with the streams open at the samples.
fn watch_report(args: &HistoryArgs, counters: &WatchCounters, samples: &[Sample]) -> WatchReport {
    let late_watchers = if args.late_every == 0 {
        0
    } else {
        args.watchers.div_ceil(args.late_every)
    };
    let open: Vec<u64> = samples.iter().map(|s| s.watch_streams_open).collect();
    WatchReport {
        watchers: args.watchers,
        late_watchers,
        views: !args.omit_views,
        streams: counters.streams.load(Ordering::Relaxed),
        late_streams: counters.late_streams.load(Ordering::Relaxed),
        finished_replays: counters.finished_replays.load(Ordering::Relaxed),
        events: counters.events.load(Ordering::Relaxed),
        events_from_zero: counters.events_from_zero.load(Ordering::Relaxed),
        open_min: open.iter().copied().min().unwrap_or(0),
        open_mean: open.iter().sum::<u64>() as f64 / open.len().max(1) as f64,
        errors: counters.errors.summary("watch", Duration::ZERO).errors,
    }
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

/// One watcher: picks a match, watches it to its end (or, from version 0
/// on a finished match, replays it), and picks another, until `stop`.
async fn watch_loop(
    channel: Channel,
    board: Arc<Board>,
    counters: Arc<WatchCounters>,
    stop: Arc<AtomicBool>,
    late: bool,
    omit_views: bool,
    seed: u64,
) {
    let mut client = WatchClient::new(channel).max_decoding_message_size(64 << 20);
    let mut rng = StdRng::seed_from_u64(seed);
    let mut turn = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let finished = late && turn % 2 == 1;
        turn += 1;
        let target = if finished {
            board.any_finished(&mut rng)
        } else {
            board.any_running(&mut rng)
        };
        let Some(match_id) = target else {
            tokio::time::sleep(Duration::from_millis(5)).await;
            continue;
        };
        let request = pb::WatchMatchRequest {
            match_id,
            from_version: late.then_some(0),
            omit_views,
            ..Default::default()
        };
        let mut stream = match client.watch_match(request).await {
            Ok(s) => s.into_inner(),
            Err(status) => {
                counters.errors.error(&status);
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        counters.streams.fetch_add(1, Ordering::Relaxed);
        match (late, finished) {
            (true, true) => counters.finished_replays.fetch_add(1, Ordering::Relaxed),
            (true, false) => counters.late_streams.fetch_add(1, Ordering::Relaxed),
            _ => 0,
        };
        counters.open.fetch_add(1, Ordering::Relaxed);
        let mut events = 0;
        while let Some(item) = stream.next().await {
            match item {
                Ok(_) => events += 1,
                Err(status) => {
                    counters.errors.error(&status);
                    break;
                }
            }
        }
        counters.open.fetch_sub(1, Ordering::Relaxed);
        counters.events.fetch_add(events, Ordering::Relaxed);
        if late {
            counters
                .events_from_zero
                .fetch_add(events, Ordering::Relaxed);
        }
    }
}

fn print_report(r: &HistoryReport) {
    println!(
        "history: {} on the SQLite store, retention {} s; {} players on {} connections; {} CPUs ({})",
        r.games.join(","),
        r.retention_s,
        r.players,
        r.connections,
        r.machine.cpus,
        r.machine.cpu_model
    );
    println!(
        "played: {} actions over {} finished matches in {:.0} s ({:.0} actions/s, {:.0} matches/s); player errors {:?}",
        r.actions, r.matches, r.seconds, r.actions_per_s, r.matches_per_s, r.errors
    );
    let w = &r.watch;
    println!(
        "watchers: {} ({} late, from version 0), views {}; {} streams ({} late on running matches, {} replays of finished), {} events ({} on streams from 0); open at readings: min {}, mean {:.0}; errors {:?}",
        w.watchers,
        w.late_watchers,
        if w.views { "on" } else { "off" },
        w.streams,
        w.late_streams,
        w.finished_replays,
        w.events,
        w.events_from_zero,
        w.open_min,
        w.open_mean,
        w.errors
    );
    println!(
        "{:>9} {:>9} {:>10} {:>8} {:>10} {:>6}",
        "mark", "matches", "actions", "seconds", "RSS MB", "open"
    );
    for s in &r.samples {
        println!(
            "{:>9} {:>9} {:>10} {:>8.0} {:>10.1} {:>6}",
            s.mark,
            s.matches,
            s.actions,
            s.seconds,
            mb(s.rss_bytes),
            s.watch_streams_open
        );
    }
    match (r.baseline, r.last, r.rss_ratio) {
        (Some(b), Some(l), Some(ratio)) => println!(
            "RSS at {} matches {:.1} MB, at {} matches {:.1} MB: ratio {:.3} (at most {MAX_GROWTH:.2}: {})",
            b.mark,
            mb(b.rss_bytes),
            l.mark,
            mb(l.rss_bytes),
            ratio,
            if r.pass { "met" } else { "missed" }
        ),
        _ => println!("the run ended before both readings (not completed)"),
    }
    if !r.completed {
        println!("the match or action count was not reached within --max-seconds");
    }
}
