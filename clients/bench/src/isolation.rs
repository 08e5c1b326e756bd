//! `isolation`: what a plugin worker's death costs. It starts engine-host
//! in memory with its default isolation (every plugin in a worker process)
//! and, for each game, over gRPC:
//!
//! - **worker start**: kills the game's worker (SIGKILL; its pid from Admin
//!   ListPlugins) while no call is in it, waits until the host has seen it
//!   end, and times the next GetView of a match with no moves: the call
//!   that starts a fresh worker and makes the match's state again in it.
//!   A second GetView, the worker running, is timed beside it;
//! - **rebuild by replay**: plays matches with random legal actions to a
//!   number of plies (state changes: turns and chance outcomes, each a step
//!   the worker replays) or their end, kills the worker, starts a fresh one
//!   with the match of no moves, and times each match's first GetView (its
//!   state is made again by replaying its moves) and the next three; the
//!   first less the median of the next, per 100 plies, is the replay;
//! - **a worker that held many matches** (one game, Focus by default):
//!   creates thousands of matches with a few moves each, kills their
//!   worker, and times from the kill until every one has answered a
//!   GetView again, several in flight.
//!
//! The worker is killed between calls, as a crash the host did not cause:
//! no match is blamed for it, so the runs must leave every plugin without
//! a fault, which the report shows. Times are wall time seen by this tool,
//! gRPC included; the host's own time to spawn each worker is read from
//! its log (`start_us`).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use tabletop_proto::v1 as pb;
use tabletop_proto::v1::admin_client::AdminClient;
use tabletop_proto::v1::matches_client::MatchesClient;
use tonic::transport::Channel;

use crate::load::{self, Player};
use crate::proc::{self, HostLog};
use crate::stats::Live;
use crate::{Machine, machine};

/// The admin token the spawned host is started with.
const ADMIN_TOKEN: &str = "tabletop-bench-admin";

/// The host starts at most this many workers of one plugin within
/// [`RESTART_WINDOW`] and refuses the next call (engine-host's loader,
/// `isolation/remote.rs`); kills are spaced to stay under it.
const MAX_RESTARTS: usize = 10;

/// See [`MAX_RESTARTS`]; a little longer than the host's 10 s.
const RESTART_WINDOW: Duration = Duration::from_millis(10_500);

/// How long the host may take to see a killed worker's end.
const DEATH_NOTICED_WITHIN: Duration = Duration::from_secs(10);

/// GetViews of a rebuilt match after its first, whose median is taken off
/// the first.
const WARM_VIEWS: usize = 3;

/// Tries of one CreateMatch or GetView of the held matches.
const VIEW_TRIES: usize = 5;

/// Arguments of `tabletop-bench isolation`.
#[derive(Debug, Clone, clap::Args)]
pub struct IsolationArgs {
    /// The engine-host binary to start on a free port with a scratch data
    /// directory, the in-memory store and its default isolation; stopped
    /// at the end.
    #[arg(long, value_name = "PATH")]
    spawn_server: PathBuf,
    /// An extra argument for the spawned server (repeatable).
    #[arg(long = "server-arg", allow_hyphen_values = true, value_name = "ARG")]
    server_args: Vec<String>,
    /// A game name, or `all` for every game the server offers.
    #[arg(long, default_value = "all")]
    game: String,
    /// Seats of every match (within each game's range).
    #[arg(long, default_value_t = 2)]
    seats: u32,
    /// Worker starts timed per game.
    #[arg(long, default_value_t = 7)]
    starts: usize,
    /// Matches per game played and rebuilt by replay.
    #[arg(long, default_value_t = 20)]
    matches: usize,
    /// Plies each of them is played to (fewer if it ends sooner).
    #[arg(long, default_value_t = 100)]
    plies: u64,
    /// The game whose worker holds many matches when it is killed.
    #[arg(long, default_value = "focus")]
    held_game: String,
    /// Matches that worker holds (0: skip this part).
    #[arg(long, default_value_t = 5_000)]
    held: usize,
    /// Plies played in each of them.
    #[arg(long, default_value_t = 4)]
    held_plies: u64,
    /// Calls in flight while they are created and rebuilt.
    #[arg(long, default_value_t = 64)]
    concurrency: usize,
    /// Seed of the players' choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print machine-readable JSON on stdout.
    #[arg(long)]
    json: bool,
}

/// A figure over several runs.
#[derive(Debug, Clone, Serialize)]
pub struct Spread {
    /// Values.
    runs: usize,
    median: f64,
    min: f64,
    max: f64,
}

impl Spread {
    /// `None` without values.
    fn of(values: &[f64]) -> Option<Spread> {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        Some(Spread {
            runs: sorted.len(),
            median: median(&sorted)?,
            min: *sorted.first()?,
            max: *sorted.last()?,
        })
    }
}

/// The median of sorted `values` (the mean of the middle two for an even
/// count).
fn median(sorted: &[f64]) -> Option<f64> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

/// A fresh worker's start, timed as a client sees it.
#[derive(Debug, Serialize)]
struct WorkerStart {
    /// The GetView of a match with no moves that starts the fresh worker
    /// and makes the match's state in it, ms.
    first_view_ms: Spread,
    /// The same GetView again, the worker running, ms.
    warm_view_ms: Spread,
    /// Of the first, the host's spawning of the worker process (its log's
    /// `start_us`), ms; absent if the log did not say.
    host_spawn_ms: Option<Spread>,
}

/// Matches rebuilt by replay in a fresh worker.
#[derive(Debug, Serialize)]
struct Rebuild {
    /// Matches timed.
    matches: usize,
    /// Their plies (state changes, each a step replayed).
    plies: Spread,
    /// Each match's first GetView after the kill (its replay), ms.
    first_view_ms: Spread,
    /// Its next GetViews (the median of three), ms.
    warm_view_ms: Spread,
    /// (first − next) × 100 ÷ plies, per match, ms.
    ms_per_100_plies: Spread,
}

/// The figures of one game.
#[derive(Debug, Serialize)]
struct GameFigures {
    game: String,
    seats: u32,
    worker_start: WorkerStart,
    rebuild: Rebuild,
}

/// A worker that held many matches, killed.
#[derive(Debug, Serialize)]
struct Held {
    game: String,
    /// Matches created for this part.
    matches: usize,
    /// Their plies, median.
    plies_median: f64,
    /// Matches of the game the worker held besides (the other parts').
    others: usize,
    /// GetView calls in flight.
    concurrency: usize,
    /// From the kill until every match had answered a GetView, s.
    seconds: f64,
    /// From the first GetView until then, s.
    seconds_from_first_call: f64,
    /// Failed GetViews (each tried again, up to 5 times), by code.
    errors: BTreeMap<String, u64>,
}

/// What the host says of a plugin at the end.
#[derive(Debug, Serialize)]
struct PluginAfter {
    game: String,
    trusted: bool,
    /// Workers started since the host started (the first included).
    worker_starts: u64,
    /// Workers killed by this tool.
    kills: u64,
    /// Calls in which a worker died: none is expected.
    faults: u64,
    /// Quarantined matches: none is expected.
    quarantined: usize,
}

#[derive(Debug, Serialize)]
struct Report {
    machine: Machine,
    server_args: Vec<String>,
    games: Vec<GameFigures>,
    held: Option<Held>,
    plugins: Vec<PluginAfter>,
    /// Calls of the players that failed, by code.
    play_errors: BTreeMap<String, u64>,
    /// The host's log lines at WARN or ERROR.
    log_problems: Vec<String>,
}

/// Runs `tabletop-bench isolation`.
pub async fn isolation(args: IsolationArgs) -> Result<(), String> {
    // One piece: the measurement in the order its figures are taken (start
    // the server, per game its worker starts and rebuilds, then the held
    // matches, then what the host says); the server lives in this scope
    // until the report is out.
    if args.starts == 0 || args.matches == 0 || args.plies == 0 || args.concurrency == 0 {
        return Err("--starts, --matches, --plies and --concurrency must be positive".into());
    }
    let mut server_args = vec![
        "--store".to_string(),
        "memory".to_string(),
        "--admin-token".to_string(),
        ADMIN_TOKEN.to_string(),
        "--log-format".to_string(),
        "json".to_string(),
    ];
    server_args.extend(args.server_args.iter().cloned());
    let (server, log) = proc::spawn_logged(&args.spawn_server, &server_args).await?;
    let channels = load::connect(&server.url, 4).await?;
    let channel = channels[0].clone();
    let served = load::games(channel.clone()).await?;
    let mut games = served.clone();
    if args.game != "all" {
        games.retain(|g| g.name == args.game);
    }
    if games.is_empty() {
        return Err(format!("the server has no game `{}`", args.game));
    }
    let held_game = served.iter().find(|g| g.name == args.held_game);
    if args.held > 0 && held_game.is_none() {
        return Err(format!("the server has no game `{}`", args.held_game));
    }
    let mut admin = Admin::new(channel.clone(), log.clone())?;
    for game in games.iter().chain(held_game) {
        if admin.plugin(&game.name).await?.trusted {
            return Err(format!(
                "the host trusts {}: it runs in the host, with no worker to kill",
                game.name
            ));
        }
    }
    let live = Arc::new(Live::default());
    let mut views = MatchesClient::new(channel.clone()).max_decoding_message_size(64 << 20);
    let mut report = Report {
        machine: machine(),
        server_args: server_args.clone(),
        games: Vec::new(),
        held: None,
        plugins: Vec::new(),
        play_errors: BTreeMap::new(),
        log_problems: Vec::new(),
    };
    let mut held_others = 0;
    for (index, game) in games.iter().enumerate() {
        let seats = args
            .seats
            .clamp(game.min_players.max(1), game.max_players.max(1));
        let seed = args.seed.wrapping_add(index as u64 * 1_000);
        let mut player = Player::new(channel.clone(), seed, true, true);
        let idle = player
            .create(&game.name, seats, &live)
            .await
            .ok_or_else(|| format!("cannot create a match of {}", game.name))?
            .match_id;
        get_view(&mut views, &idle).await?;
        let worker_start =
            time_starts(&mut admin, &mut views, &game.name, &idle, args.starts).await?;
        eprintln!(
            "[isolation] {}: a worker start takes {:.1} ms (median of {})",
            game.name, worker_start.first_view_ms.median, worker_start.first_view_ms.runs
        );
        let rebuild = time_rebuild(
            &mut admin,
            &mut views,
            &live,
            Played {
                channel: channel.clone(),
                game: &game.name,
                seats,
                seed: seed + 1,
                matches: args.matches,
                plies: args.plies,
            },
            &idle,
        )
        .await?;
        eprintln!(
            "[isolation] {}: replay {:.2} ms per 100 plies (median of {})",
            game.name, rebuild.ms_per_100_plies.median, rebuild.matches
        );
        if game.name == args.held_game {
            // The match of no moves and the replayed ones.
            held_others = 1 + args.matches;
        }
        report.games.push(GameFigures {
            game: game.name.clone(),
            seats,
            worker_start,
            rebuild,
        });
    }
    if let Some(game) = held_game.filter(|_| args.held > 0) {
        let seats = args
            .seats
            .clamp(game.min_players.max(1), game.max_players.max(1));
        let mut held = time_held(
            &mut admin,
            &channels,
            &live,
            HeldRun {
                game: &game.name,
                seats,
                seed: args.seed.wrapping_add(1_000_000),
                matches: args.held,
                plies: args.held_plies,
                concurrency: args.concurrency,
            },
        )
        .await?;
        held.others = held_others;
        eprintln!(
            "[isolation] {} matches of {} answered again {:.2} s after their worker's kill",
            held.matches, held.game, held.seconds
        );
        report.held = Some(held);
    }
    let mut killed: Vec<(String, u64)> = admin.kills.clone().into_iter().collect();
    killed.sort();
    for (game, kills) in killed {
        let info = admin.plugin(&game).await?;
        report.plugins.push(PluginAfter {
            game,
            trusted: info.trusted,
            worker_starts: info.worker_starts,
            kills,
            faults: info.faults,
            quarantined: info.quarantined_match_ids.len(),
        });
    }
    report.play_errors = live.summary("players", Duration::from_secs(1)).errors;
    report.log_problems = log_problems(&log);
    drop(server);
    crate::emit(&report, args.json, print_table)?;
    Ok(())
}

/// Times `starts` fresh workers of `game`, each started by a GetView of
/// `idle`, a match with no moves.
async fn time_starts(
    admin: &mut Admin,
    views: &mut MatchesClient<Channel>,
    game: &str,
    idle: &str,
    starts: usize,
) -> Result<WorkerStart, String> {
    let (mut first, mut warm, mut spawn) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..starts {
        let killed = admin.kill_worker(game).await?;
        first.push(timed_view(views, idle).await?.0 * 1e3);
        warm.push(timed_view(views, idle).await?.0 * 1e3);
        let pid = admin.restarted(game, &killed).await?;
        if let Some(us) = start_us(&admin.log, pid) {
            spawn.push(us as f64 / 1e3);
        }
    }
    Ok(WorkerStart {
        first_view_ms: Spread::of(&first).ok_or("no start timed")?,
        warm_view_ms: Spread::of(&warm).ok_or("no start timed")?,
        host_spawn_ms: Spread::of(&spawn),
    })
}

/// The matches a rebuild plays.
struct Played<'a> {
    channel: Channel,
    game: &'a str,
    seats: u32,
    seed: u64,
    matches: usize,
    plies: u64,
}

/// Plays the matches, kills their worker, starts a fresh one with `idle`,
/// and times each match's first GetView and the next ones.
async fn time_rebuild(
    admin: &mut Admin,
    views: &mut MatchesClient<Channel>,
    live: &Live,
    played: Played<'_>,
    idle: &str,
) -> Result<Rebuild, String> {
    let mut player =
        Player::new(played.channel, played.seed, true, true).stopping_at_version(played.plies);
    let far = Instant::now() + Duration::from_secs(3600);
    let mut ids = Vec::with_capacity(played.matches);
    while ids.len() < played.matches {
        let created = player
            .create(played.game, played.seats, live)
            .await
            .ok_or_else(|| format!("cannot create a match of {}", played.game))?;
        let id = created.match_id.clone();
        player.play(created, live, far).await;
        ids.push(id);
    }
    let killed = admin.kill_worker(played.game).await?;
    get_view(views, idle).await?;
    admin.restarted(played.game, &killed).await?;
    let (mut plies, mut first, mut warm, mut per_100) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for id in &ids {
        let (cold, view) = timed_view(views, id).await?;
        // The median of a few: one call's noise is of the replay's size.
        let mut later = Vec::with_capacity(WARM_VIEWS);
        for _ in 0..WARM_VIEWS {
            later.push(timed_view(views, id).await?.0);
        }
        later.sort_by(f64::total_cmp);
        let again = median(&later).unwrap_or(0.0);
        if view.version == 0 {
            continue;
        }
        plies.push(view.version as f64);
        first.push(cold * 1e3);
        warm.push(again * 1e3);
        per_100.push((cold - again) * 1e3 * 100.0 / view.version as f64);
    }
    // Every match answered without a second start.
    let after = admin.plugin(played.game).await?;
    if after.worker_starts != killed.starts + 1 {
        return Err(format!(
            "{}: {} workers started while its matches were rebuilt, not 1",
            played.game,
            after.worker_starts - killed.starts
        ));
    }
    let none = || format!("{}: no match was played", played.game);
    Ok(Rebuild {
        matches: plies.len(),
        plies: Spread::of(&plies).ok_or_else(none)?,
        first_view_ms: Spread::of(&first).ok_or_else(none)?,
        warm_view_ms: Spread::of(&warm).ok_or_else(none)?,
        ms_per_100_plies: Spread::of(&per_100).ok_or_else(none)?,
    })
}

/// The held matches' part.
struct HeldRun<'a> {
    game: &'a str,
    seats: u32,
    seed: u64,
    matches: usize,
    plies: u64,
    concurrency: usize,
}

/// Creates the held matches, kills their worker and times until each has
/// answered a GetView again.
async fn time_held(
    admin: &mut Admin,
    channels: &[Channel],
    live: &Arc<Live>,
    run: HeldRun<'_>,
) -> Result<Held, String> {
    let next = Arc::new(AtomicUsize::new(0));
    let made = Arc::new(Mutex::new(Vec::with_capacity(run.matches)));
    let mut tasks = tokio::task::JoinSet::new();
    for task in 0..run.concurrency {
        let channel = channels[task % channels.len()].clone();
        let mut player = Player::new(channel, run.seed.wrapping_add(task as u64), true, true)
            .stopping_at_version(run.plies);
        let (next, made, live) = (Arc::clone(&next), Arc::clone(&made), Arc::clone(live));
        let (game, seats, matches) = (run.game.to_string(), run.seats, run.matches);
        tasks.spawn(async move {
            let far = Instant::now() + Duration::from_secs(3600);
            while next.fetch_add(1, Ordering::Relaxed) < matches {
                // A refused creation is tried again; the count is checked
                // below.
                for _ in 0..VIEW_TRIES {
                    if let Some(created) = player.create(&game, seats, &live).await {
                        let id = created.match_id.clone();
                        player.play(created, &live, far).await;
                        made.lock().unwrap_or_else(|e| e.into_inner()).push(id);
                        break;
                    }
                }
            }
        });
    }
    while tasks.join_next().await.is_some() {}
    let ids: Vec<String> = std::mem::take(&mut *made.lock().unwrap_or_else(|e| e.into_inner()));
    if ids.len() < run.matches {
        return Err(format!(
            "only {} of {} matches of {} were created",
            ids.len(),
            run.matches,
            run.game
        ));
    }
    let mut plies = Vec::with_capacity(ids.len());
    let mut views = MatchesClient::new(channels[0].clone());
    for id in ids.iter().step_by((ids.len() / 100).max(1)) {
        plies.push(get_view(&mut views, id).await?.version as f64);
    }
    plies.sort_by(f64::total_cmp);
    eprintln!(
        "[isolation] {} matches of {} created; killing their worker",
        ids.len(),
        run.game
    );
    let killed = admin.kill_worker(run.game).await?;
    let first_call = Instant::now();
    let ids = Arc::new(ids);
    let next = Arc::new(AtomicUsize::new(0));
    let errors = Arc::new(Mutex::new(BTreeMap::<String, u64>::new()));
    let mut tasks = tokio::task::JoinSet::new();
    for task in 0..run.concurrency {
        let mut client = MatchesClient::new(channels[task % channels.len()].clone())
            .max_decoding_message_size(64 << 20);
        let (ids, next, errors) = (Arc::clone(&ids), Arc::clone(&next), Arc::clone(&errors));
        tasks.spawn(async move {
            loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(id) = ids.get(index) else {
                    return Ok(());
                };
                let mut tries = 0;
                loop {
                    tries += 1;
                    match view(&mut client, id).await {
                        Ok(_) => break,
                        Err(status) => {
                            *errors
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .entry(format!("{:?}", status.code()))
                                .or_default() += 1;
                            if tries == VIEW_TRIES {
                                return Err(format!(
                                    "GetView {id} failed {VIEW_TRIES} times: {status}"
                                ));
                            }
                        }
                    }
                }
            }
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.map_err(|e| format!("a GetView task failed: {e}"))??;
    }
    let done = Instant::now();
    admin.restarted(run.game, &killed).await?;
    let errors = errors.lock().unwrap_or_else(|e| e.into_inner()).clone();
    Ok(Held {
        game: run.game.to_string(),
        matches: ids.len(),
        plies_median: median(&plies).unwrap_or(0.0),
        others: 0,
        concurrency: run.concurrency,
        seconds: done.duration_since(killed.at).as_secs_f64(),
        seconds_from_first_call: done.duration_since(first_call).as_secs_f64(),
        errors,
    })
}

/// A worker this tool killed.
#[derive(Debug)]
struct Killed {
    at: Instant,
    pid: u32,
    /// The plugin's worker starts before the kill.
    starts: u64,
}

/// Admin calls, and the workers killed.
struct Admin {
    client: AdminClient<Channel>,
    bearer: tonic::metadata::MetadataValue<tonic::metadata::Ascii>,
    log: HostLog,
    /// When each game's workers were killed, for the host's cap on restarts.
    killed_at: HashMap<String, VecDeque<Instant>>,
    /// Kills per game.
    kills: HashMap<String, u64>,
}

impl Admin {
    fn new(channel: Channel, log: HostLog) -> Result<Admin, String> {
        Ok(Admin {
            client: AdminClient::new(channel),
            bearer: format!("Bearer {ADMIN_TOKEN}")
                .parse()
                .map_err(|_| "an ASCII token")?,
            log,
            killed_at: HashMap::new(),
            kills: HashMap::new(),
        })
    }

    /// What ListPlugins says of `game`'s plugin (its one version).
    async fn plugin(&mut self, game: &str) -> Result<pb::PluginInfo, String> {
        let mut request = tonic::Request::new(pb::ListPluginsRequest::default());
        request
            .metadata_mut()
            .insert("authorization", self.bearer.clone());
        self.client
            .list_plugins(request)
            .await
            .map_err(|e| format!("ListPlugins failed: {e}"))?
            .into_inner()
            .plugins
            .into_iter()
            .find(|p| p.game == game && !p.retired)
            .ok_or_else(|| format!("ListPlugins does not list {game}"))
    }

    /// Kills `game`'s worker (SIGKILL) and waits until the host has seen
    /// it end, so the next call starts a fresh one rather than meeting the
    /// dying one.
    async fn kill_worker(&mut self, game: &str) -> Result<Killed, String> {
        let before = self.plugin(game).await?;
        if before.worker_pid == 0 {
            return Err(format!("{game} has no worker running to kill"));
        }
        self.pace(game).await;
        proc::kill(before.worker_pid)?;
        let at = Instant::now();
        *self.kills.entry(game.to_string()).or_default() += 1;
        loop {
            let now = self.plugin(game).await?;
            if now.worker_pid != before.worker_pid {
                break;
            }
            if at.elapsed() > DEATH_NOTICED_WITHIN {
                return Err(format!(
                    "the host still lists {game}'s killed worker {} after {} s",
                    before.worker_pid,
                    DEATH_NOTICED_WITHIN.as_secs()
                ));
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        Ok(Killed {
            at,
            pid: before.worker_pid,
            starts: before.worker_starts,
        })
    }

    /// Waits, if need be, until another start of `game`'s worker stays
    /// within the host's cap on restarts, and counts it.
    async fn pace(&mut self, game: &str) {
        let killed = self.killed_at.entry(game.to_string()).or_default();
        while killed
            .front()
            .is_some_and(|at| at.elapsed() > RESTART_WINDOW)
        {
            killed.pop_front();
        }
        if killed.len() + 1 >= MAX_RESTARTS
            && let Some(&oldest) = killed.front()
        {
            tokio::time::sleep_until((oldest + RESTART_WINDOW).into()).await;
            killed.pop_front();
        }
        killed.push_back(Instant::now());
    }

    /// Checks that exactly one fresh worker of `game` serves since
    /// `killed`; returns its pid.
    async fn restarted(&mut self, game: &str, killed: &Killed) -> Result<u32, String> {
        let now = self.plugin(game).await?;
        if now.worker_pid == 0 || now.worker_pid == killed.pid {
            return Err(format!(
                "{game}: no fresh worker serves after worker {} was killed",
                killed.pid
            ));
        }
        if now.worker_starts != killed.starts + 1 {
            return Err(format!(
                "{game}: {} workers started after one kill",
                now.worker_starts - killed.starts
            ));
        }
        Ok(now.worker_pid)
    }
}

/// The host's `start_us` for the worker it started as process `pid`.
fn start_us(log: &HostLog, pid: u32) -> Option<u64> {
    log.lines().iter().rev().find_map(|line| {
        let event: serde_json::Value = serde_json::from_str(line).ok()?;
        let started = event["message"]
            .as_str()?
            .starts_with("a fresh plugin worker started");
        if started && event["pid"].as_u64()? == u64::from(pid) {
            event["start_us"].as_u64()
        } else {
            None
        }
    })
}

/// The host's log lines at WARN or ERROR (the first 20), and lines that
/// are not JSON (a panic's message).
fn log_problems(log: &HostLog) -> Vec<String> {
    log.lines()
        .into_iter()
        .filter(
            |line| match serde_json::from_str::<serde_json::Value>(line) {
                Ok(event) => matches!(event["level"].as_str(), Some("WARN" | "ERROR")),
                Err(_) => !line.trim().is_empty(),
            },
        )
        .take(20)
        .collect()
}

async fn view(
    client: &mut MatchesClient<Channel>,
    id: &str,
) -> Result<pb::MatchView, tonic::Status> {
    client
        .get_view(pb::GetViewRequest {
            match_id: id.to_string(),
            ..Default::default()
        })
        .await
        .map(tonic::Response::into_inner)
}

async fn get_view(client: &mut MatchesClient<Channel>, id: &str) -> Result<pb::MatchView, String> {
    view(client, id)
        .await
        .map_err(|e| format!("GetView {id}: {e}"))
}

/// A spectator's GetView of `id`: its wall time in seconds, and the view.
async fn timed_view(
    client: &mut MatchesClient<Channel>,
    id: &str,
) -> Result<(f64, pb::MatchView), String> {
    let start = Instant::now();
    let view = get_view(client, id).await?;
    Ok((start.elapsed().as_secs_f64(), view))
}

/// The report as tables, with what their columns mean.
fn print_table(report: &Report) {
    println!(
        "{:<10} {:>5} {:>8} {:>15} {:>8} {:>8} {:>7} {:>6} {:>8} {:>18}",
        "game",
        "seats",
        "starts",
        "start ms",
        "warm ms",
        "spawn ms",
        "matches",
        "plies",
        "1st ms",
        "replay ms/100 plies",
    );
    let range = |s: &Spread, digits: usize| {
        format!("{:.d$} ({:.d$}–{:.d$})", s.median, s.min, s.max, d = digits)
    };
    for g in &report.games {
        println!(
            "{:<10} {:>5} {:>8} {:>15} {:>8.2} {:>8} {:>7} {:>6.0} {:>8.2} {:>18}",
            g.game,
            g.seats,
            g.worker_start.first_view_ms.runs,
            range(&g.worker_start.first_view_ms, 1),
            g.worker_start.warm_view_ms.median,
            g.worker_start
                .host_spawn_ms
                .as_ref()
                .map_or("-".to_string(), |s| format!("{:.1}", s.median)),
            g.rebuild.matches,
            g.rebuild.plies.median,
            g.rebuild.first_view_ms.median,
            range(&g.rebuild.ms_per_100_plies, 2),
        );
    }
    println!(
        "start: GetView of a match with no moves right after its worker was killed (median, min–max); \
         warm: the same GetView again; spawn: the host's spawning of the worker (its log). \
         replay: a match's first GetView after the kill less its next ones', per 100 plies."
    );
    if let Some(h) = &report.held {
        println!(
            "{} matches of {} ({} plies each, {} more held) answered a GetView again {:.2} s after their worker's kill \
             ({:.2} s from the first call, {} in flight); failed calls: {:?}",
            h.matches,
            h.game,
            h.plies_median,
            h.others,
            h.seconds,
            h.seconds_from_first_call,
            h.concurrency,
            h.errors
        );
    }
    for p in &report.plugins {
        println!(
            "{}: {} workers started, {} killed by this tool, {} faults, {} quarantined matches",
            p.game, p.worker_starts, p.kills, p.faults, p.quarantined
        );
    }
    if !report.play_errors.is_empty() {
        println!("players' failed calls: {:?}", report.play_errors);
    }
    for line in &report.log_problems {
        println!("host log: {line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spread_has_the_median_and_the_range() {
        let s = Spread::of(&[3.0, 1.0, 2.0]).expect("values");
        assert_eq!((s.runs, s.median, s.min, s.max), (3, 2.0, 1.0, 3.0));
        let even = Spread::of(&[4.0, 1.0, 2.0, 3.0]).expect("values");
        assert_eq!(even.median, 2.5);
        assert!(Spread::of(&[]).is_none());
    }

    #[test]
    fn the_log_gives_a_workers_start_time_by_its_pid() {
        let log = HostLog::default();
        for line in [
            r#"{"level":"INFO","message":"a fresh plugin worker started; its matches are rebuilt by replay as they are used","plugin":"focus@1.0.0","pid":41,"start_us":900}"#,
            r#"{"level":"INFO","message":"a fresh plugin worker started; its matches are rebuilt by replay as they are used","plugin":"war@1.0.0","pid":42,"start_us":1200}"#,
            r#"{"level":"WARN","message":"something"}"#,
            "thread 'main' panicked",
        ] {
            log.push(line.to_string());
        }
        assert_eq!(start_us(&log, 42), Some(1200));
        assert_eq!(start_us(&log, 41), Some(900));
        assert_eq!(start_us(&log, 7), None);
        assert_eq!(log_problems(&log).len(), 2);
    }
}
