//! `bots`: whether server-side bots searching slow down the human seats. The
//! host's maximum is measured first (closed-loop players, each with one
//! action in flight); then paced players offer half of it, a fixed number of
//! actions a second, alone and while bot matches search, the two taking
//! turns round by round. The bot matches (every seat a bot) are created
//! once and paused through the Director while the players are alone, so the
//! same bots search in every "with bots" round.
//!
//! The verdict is the players' SubmitAction p99 with the bots searching ÷
//! alone (target ≤ 1.5).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use tabletop_proto::v1 as pb;
use tabletop_proto::v1::director_client::DirectorClient;
use tabletop_proto::v1::matches_client::MatchesClient;
use tonic::transport::Channel;

use crate::load::{self, Drive};
use crate::proc;
use crate::stats::{Live, Phase};

/// The admin token the spawned host is started with.
const ADMIN_TOKEN: &str = "tabletop-bench-admin";

/// Arguments of `tabletop-bench bots`.
#[derive(Debug, Clone, clap::Args)]
pub struct BotsArgs {
    /// The engine-host binary to start (on a free port, with a scratch
    /// data directory).
    #[arg(long, value_name = "PATH")]
    spawn_server: PathBuf,
    /// An extra argument for the server (repeatable), e.g.
    /// `--server-arg=--store --server-arg=memory`.
    #[arg(long = "server-arg", allow_hyphen_values = true, value_name = "ARG")]
    server_args: Vec<String>,
    /// The game the players and the bots play.
    #[arg(long, default_value = "focus")]
    game: String,
    /// Players measuring the maximum (each with one action in flight).
    #[arg(long, default_value_t = 32)]
    max_players: usize,
    /// Paced players offering half the maximum.
    #[arg(long, default_value_t = 16)]
    players: usize,
    /// Bots searching in the "with bots" rounds (every seat of a bot match
    /// is a bot).
    #[arg(long, default_value_t = 50)]
    bots: usize,
    /// The bots' spec.
    #[arg(long, default_value = "mcts:200ms")]
    bot_spec: String,
    /// Seconds per phase per round (and for the maximum).
    #[arg(long, default_value_t = 5.0)]
    duration: f64,
    /// Rounds: each runs the players alone, then with the bots searching.
    #[arg(long, default_value_t = 3)]
    rounds: u32,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Serialize)]
struct Report {
    game: String,
    server_args: Vec<String>,
    bots: usize,
    bot_spec: String,
    /// The closed-loop maximum.
    max: Phase,
    /// Actions a second the paced players offered.
    offered_per_s: f64,
    /// The paced players alone.
    alone: Phase,
    /// The paced players while the bots searched.
    with_bots: Phase,
    /// Moves the bots made in the "with bots" rounds, a second.
    bot_moves_per_s: f64,
    /// with_bots SubmitAction p99 ÷ alone.
    p99_ratio: f64,
}

fn admin<T>(message: T) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    if let Ok(value) = format!("Bearer {ADMIN_TOKEN}").parse() {
        request.metadata_mut().insert("authorization", value);
    }
    request
}

/// Creates the bot matches: `bots` bots in matches of `seats` seats (every
/// seat a bot), paused. Returns their ids.
async fn create_bot_matches(
    channel: Channel,
    game: &pb::GameInfo,
    seats: u32,
    bots: usize,
    spec: &str,
) -> Result<Vec<String>, String> {
    let mut matches = MatchesClient::new(channel.clone());
    let mut director = DirectorClient::new(channel);
    // A long game: the bots search through every round without finishing.
    let options: std::collections::HashMap<String, String> =
        if game.options.iter().any(|o| o.name == "max_turns") {
            [("max_turns".to_string(), "100000".to_string())].into()
        } else {
            Default::default()
        };
    let mut ids = Vec::new();
    for _ in 0..bots.div_ceil(seats as usize) {
        let created = matches
            .create_match(admin(pb::CreateMatchRequest {
                game: game.name.clone(),
                players: seats,
                options: options.clone(),
                bots: (0..seats)
                    .map(|seat| pb::SeatBot {
                        seat,
                        spec: spec.to_string(),
                    })
                    .collect(),
                view_detail: pb::ViewDetail::Summary as i32,
                ..Default::default()
            }))
            .await
            .map_err(|e| format!("cannot create a bot match: {e}"))?
            .into_inner();
        director
            .pause_match(admin(pb::PauseMatchRequest {
                admin_token: ADMIN_TOKEN.into(),
                match_id: created.match_id.clone(),
            }))
            .await
            .map_err(|e| format!("cannot pause a bot match: {e}"))?;
        ids.push(created.match_id);
    }
    Ok(ids)
}

/// Pauses or resumes every bot match.
async fn set_paused(channel: Channel, ids: &[String], paused: bool) -> Result<(), String> {
    let mut director = DirectorClient::new(channel);
    for id in ids {
        let answer = if paused {
            director
                .pause_match(admin(pb::PauseMatchRequest {
                    admin_token: ADMIN_TOKEN.into(),
                    match_id: id.clone(),
                }))
                .await
        } else {
            director
                .resume_match(admin(pb::ResumeMatchRequest {
                    admin_token: ADMIN_TOKEN.into(),
                    match_id: id.clone(),
                }))
                .await
        };
        answer.map_err(|e| format!("cannot pause or resume bot match {id}: {e}"))?;
    }
    Ok(())
}

/// The sum of the bot matches' versions: how many moves they made.
async fn bot_progress(channel: Channel, ids: &[String]) -> Result<u64, String> {
    let mut matches = MatchesClient::new(channel);
    let mut total = 0;
    for id in ids {
        total += matches
            .get_view(pb::GetViewRequest {
                match_id: id.clone(),
                seat_token: String::new(),
                at_version: None,
                svg: false,
            })
            .await
            .map_err(|e| format!("cannot view bot match {id}: {e}"))?
            .into_inner()
            .version;
    }
    Ok(total)
}

/// Runs the bots comparison.
pub async fn bots_command(args: BotsArgs) -> Result<(), String> {
    if args.players == 0 || args.rounds == 0 || args.duration.is_nan() || args.duration <= 0.0 {
        return Err("--players, --rounds and --duration must be positive".into());
    }
    let mut server_args = vec!["--admin-token".to_string(), ADMIN_TOKEN.to_string()];
    server_args.extend(args.server_args.iter().cloned());
    let server = proc::spawn(&args.spawn_server, &server_args, true).await?;
    let channels = load::connect(&server.url, 4).await?;
    let control = load::connect(&server.url, 1).await?.remove(0);
    let game = load::games(channels[0].clone())
        .await?
        .into_iter()
        .find(|g| g.name == args.game)
        .ok_or_else(|| format!("the server has no game named `{}`", args.game))?;
    let seats = game.min_players.max(1);
    let phase = Duration::from_secs_f64(args.duration);
    let drive = Drive {
        players: args.max_players,
        channels: channels.clone(),
        duration: phase,
        seed: 1,
        summary_views: true,
        ids_only: true,
        credential: None,
        pace: None,
    };
    let max_live = Arc::new(Live::default());
    let started = Instant::now();
    load::run(&args.game, seats, &drive, Arc::clone(&max_live)).await;
    let max = max_live.summary("maximum (closed loop)", started.elapsed());
    let offered_per_s = max.actions_per_s / 2.0;
    if !args.json {
        eprintln!(
            "maximum: {:.0} actions/s; offering {offered_per_s:.0}/s",
            max.actions_per_s
        );
    }
    let pace = Duration::from_secs_f64(args.players as f64 / offered_per_s.max(1.0));
    let ids = create_bot_matches(control.clone(), &game, seats, args.bots, &args.bot_spec).await?;
    let alone = Arc::new(Live::default());
    let with_bots = Arc::new(Live::default());
    let (mut alone_time, mut bots_time) = (Duration::ZERO, Duration::ZERO);
    let mut bot_moves = 0;
    for round in 0..args.rounds {
        let drive = Drive {
            players: args.players,
            seed: 1000 + u64::from(round) * 2 * args.players as u64,
            pace: Some(pace),
            ..drive.clone()
        };
        let started = Instant::now();
        load::run(&args.game, seats, &drive, Arc::clone(&alone)).await;
        alone_time += started.elapsed();
        set_paused(control.clone(), &ids, false).await?;
        let before = bot_progress(control.clone(), &ids).await?;
        let drive = Drive {
            seed: drive.seed + args.players as u64,
            ..drive
        };
        let started = Instant::now();
        load::run(&args.game, seats, &drive, Arc::clone(&with_bots)).await;
        bots_time += started.elapsed();
        // Counted before pausing: a pause is a log entry too.
        let moved = bot_progress(control.clone(), &ids).await? - before;
        set_paused(control.clone(), &ids, true).await?;
        bot_moves += moved;
        if !args.json {
            eprintln!("[round {round}] done; the bots made {moved} moves");
        }
    }
    let alone = alone.summary("players alone", alone_time);
    let with_bots = with_bots.summary("players, bots searching", bots_time);
    let p99_ratio =
        with_bots.submit_latency_us.p99 as f64 / alone.submit_latency_us.p99.max(1) as f64;
    let report = Report {
        game: args.game.clone(),
        server_args,
        bots: ids.len() * seats as usize,
        bot_spec: args.bot_spec.clone(),
        max,
        offered_per_s,
        alone,
        bot_moves_per_s: bot_moves as f64 / bots_time.as_secs_f64().max(1e-9),
        with_bots,
        p99_ratio,
    };
    crate::emit(&report, args.json, print_report)?;
    drop(server);
    Ok(())
}

fn print_report(report: &Report) {
    println!(
        "{}: {} bots ({}) against paced players offering {:.0} actions/s (half of {:.0})",
        report.game, report.bots, report.bot_spec, report.offered_per_s, report.max.actions_per_s
    );
    println!(
        "{:<26} {:>10} {:>7} {:>7} {:>7} {:>8} {:>7}",
        "phase", "actions/s", "p50µs", "p90µs", "p99µs", "p99.9µs", "errors"
    );
    for p in [&report.max, &report.alone, &report.with_bots] {
        println!(
            "{:<26} {:>10.0} {:>7} {:>7} {:>7} {:>8} {:>7}",
            p.name,
            p.actions_per_s,
            p.submit_latency_us.p50,
            p.submit_latency_us.p90,
            p.submit_latency_us.p99,
            p.submit_latency_us.p999,
            p.errors.values().sum::<u64>()
        );
    }
    println!("bot moves while searching: {:.1}/s", report.bot_moves_per_s);
    println!(
        "players' SubmitAction p99 with the bots searching ÷ alone: {:.2} (target ≤ 1.5)",
        report.p99_ratio
    );
}
