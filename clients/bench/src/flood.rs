//! `flood`: whether one credential flooding CreateMatch slows down another
//! credential's play. A calm organizer's players create matches and play
//! them (SubmitAction latency recorded) alone, then while a flooding
//! organizer's tasks send CreateMatch back to back, ignoring every
//! refusal and its retry delay; the two take turns, round by round. The
//! host runs with its default limits (or the `--server-arg`s given), so
//! the flood meets its creations-per-minute quota and its rate.
//!
//! The verdict is the calm players' SubmitAction p99 under the flood ÷
//! alone (target ≤ 2).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clap::Parser;
use serde::Serialize;
use tabletop_proto::v1 as pb;
use tabletop_proto::v1::admin_client::AdminClient;
use tabletop_proto::v1::matches_client::MatchesClient;
use tonic::transport::Channel;

use crate::load::{self, Drive};
use crate::proc;
use crate::stats::{Live, Phase};

/// The admin token the spawned host is started with.
const ADMIN_TOKEN: &str = "tabletop-bench-admin";

/// Arguments of `tabletop-bench flood`.
#[derive(Debug, Clone, clap::Args)]
pub struct FloodArgs {
    /// The engine-host binary to start (on a free port, with a scratch
    /// data directory and the host's default limits).
    #[arg(long, value_name = "PATH")]
    spawn_server: PathBuf,
    /// An extra argument for the server (repeatable), e.g.
    /// `--server-arg=--creates-per-minute --server-arg=600`.
    #[arg(long = "server-arg", allow_hyphen_values = true, value_name = "ARG")]
    server_args: Vec<String>,
    /// The game the calm players play.
    #[arg(long, default_value = "focus")]
    game: String,
    /// The calm credential's players (= its requests in flight).
    #[arg(long, default_value_t = 4)]
    players: usize,
    /// The flooding credential's tasks, each with one CreateMatch in flight.
    #[arg(long, default_value_t = 32)]
    flooders: usize,
    /// Seconds per phase per round.
    #[arg(long, default_value_t = 4.0)]
    duration: f64,
    /// Rounds: each runs the calm players alone, then under the flood.
    #[arg(long, default_value_t = 3)]
    rounds: u32,
    /// Seconds of flood before the rounds, unmeasured: the flood's
    /// creation quota starts full (a minute's worth may come at once), and
    /// the rounds measure a flood that has used it up.
    #[arg(long, default_value_t = 15.0)]
    warmup: f64,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// What the flood did.
#[derive(Debug, Default, Serialize)]
struct FloodReport {
    /// CreateMatch calls the flood sent.
    calls: u64,
    /// Of them, answered with a match.
    created: u64,
    /// Of them, refused, by status code.
    refused: BTreeMap<String, u64>,
}

#[derive(Debug, Serialize)]
struct Report {
    game: String,
    players: usize,
    flooders: usize,
    server_args: Vec<String>,
    /// The calm players alone.
    alone: Phase,
    /// The calm players under the flood.
    flooded: Phase,
    flood: FloodReport,
    /// flooded SubmitAction p99 ÷ alone.
    p99_ratio: f64,
}

/// The host's default limits, passed after the load tool's own (which
/// turn the per-credential limits off) so the flood meets them.
pub(crate) fn default_limits() -> Vec<String> {
    let defaults = engine_host::config::Config::parse_from(["engine-host"]);
    vec![
        "--credential-rate".into(),
        defaults.credential_rate.to_string(),
        "--creates-per-minute".into(),
        defaults.creates_per_minute.to_string(),
        "--credential-calls-in-flight".into(),
        defaults.credential_calls_in_flight.to_string(),
    ]
}

async fn issue(channel: Channel, name: &str) -> Result<String, String> {
    let mut request = tonic::Request::new(pb::IssueCredentialRequest {
        name: name.into(),
        ..Default::default()
    });
    request.metadata_mut().insert(
        "authorization",
        format!("Bearer {ADMIN_TOKEN}")
            .parse()
            .map_err(|_| "an ASCII token")?,
    );
    Ok(AdminClient::new(channel)
        .issue_credential(request)
        .await
        .map_err(|e| format!("cannot issue a credential: {e}"))?
        .into_inner()
        .secret)
}

/// Counts of the flood's calls, shared by its tasks.
#[derive(Debug, Default)]
struct FloodCounts {
    calls: AtomicU64,
    created: AtomicU64,
    refused: std::sync::Mutex<BTreeMap<String, u64>>,
}

/// `flooders` tasks on `channels` sending CreateMatch as `secret` until
/// `deadline`, each as soon as the last answer came.
async fn flood(
    channels: &[Channel],
    secret: &str,
    game: &str,
    flooders: usize,
    deadline: Instant,
    counts: &Arc<FloodCounts>,
) {
    let bearer: tonic::metadata::MetadataValue<tonic::metadata::Ascii> =
        match format!("Bearer {secret}").parse() {
            Ok(value) => value,
            Err(_) => return,
        };
    let mut tasks = tokio::task::JoinSet::new();
    for task in 0..flooders {
        let mut client = MatchesClient::new(channels[task % channels.len()].clone());
        let (bearer, counts, game) = (bearer.clone(), Arc::clone(counts), game.to_string());
        tasks.spawn(async move {
            while Instant::now() < deadline {
                let mut request = tonic::Request::new(pb::CreateMatchRequest {
                    game: game.clone(),
                    players: 2,
                    view_detail: pb::ViewDetail::Summary as i32,
                    ..Default::default()
                });
                request
                    .metadata_mut()
                    .insert("authorization", bearer.clone());
                counts.calls.fetch_add(1, Ordering::Relaxed);
                match client.create_match(request).await {
                    Ok(_) => {
                        counts.created.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(status) => {
                        *counts
                            .refused
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .entry(format!("{:?}", status.code()))
                            .or_default() += 1;
                    }
                }
            }
        });
    }
    while tasks.join_next().await.is_some() {}
}

/// Runs the flood comparison.
pub async fn flood_command(args: FloodArgs) -> Result<(), String> {
    // One piece: the measurement in the order its figures are taken (start
    // the server, warm up, then alternate calm and flooded rounds, then the
    // report); the server lives in this scope until the report is out.
    if args.players == 0 || args.rounds == 0 || args.duration.is_nan() || args.duration <= 0.0 {
        return Err("--players, --rounds and --duration must be positive".into());
    }
    let mut server_args = vec!["--admin-token".to_string(), ADMIN_TOKEN.to_string()];
    server_args.extend(default_limits());
    server_args.extend(args.server_args.iter().cloned());
    let server = proc::spawn(&args.spawn_server, &server_args, true).await?;
    let calm_channels = load::connect(&server.url, 2).await?;
    let flood_channels = load::connect(&server.url, 2).await?;
    let calm = issue(calm_channels[0].clone(), "calm").await?;
    let flooder = issue(calm_channels[0].clone(), "flood").await?;
    let seats = load::games(calm_channels[0].clone())
        .await?
        .iter()
        .find(|g| g.name == args.game)
        .map(|g| g.min_players.max(1))
        .ok_or_else(|| format!("the server has no game named `{}`", args.game))?;
    let alone = Arc::new(Live::default());
    let flooded = Arc::new(Live::default());
    let counts = Arc::new(FloodCounts::default());
    let phase = Duration::from_secs_f64(args.duration);
    if args.warmup > 0.0 {
        let warmup = Arc::new(FloodCounts::default());
        let deadline = Instant::now() + Duration::from_secs_f64(args.warmup);
        flood(
            &flood_channels,
            &flooder,
            &args.game,
            args.flooders,
            deadline,
            &warmup,
        )
        .await;
        if !args.json {
            eprintln!(
                "warm-up: {} flood calls, {} created",
                warmup.calls.load(Ordering::Relaxed),
                warmup.created.load(Ordering::Relaxed)
            );
        }
    }
    let (mut alone_time, mut flooded_time) = (Duration::ZERO, Duration::ZERO);
    for round in 0..args.rounds {
        let drive = Drive {
            players: args.players,
            channels: calm_channels.clone(),
            duration: phase,
            seed: u64::from(round) * 2 * args.players as u64,
            summary_views: true,
            ids_only: true,
            credential: Some(calm.clone()),
            pace: None,
        };
        let started = Instant::now();
        load::run(&args.game, seats, &drive, Arc::clone(&alone)).await;
        alone_time += started.elapsed();
        if !args.json {
            eprintln!(
                "[round {round}] alone: {:.1} s",
                started.elapsed().as_secs_f64()
            );
        }
        let drive = Drive {
            seed: drive.seed + args.players as u64,
            ..drive
        };
        let started = Instant::now();
        let deadline = started + phase;
        let (_, ()) = tokio::join!(
            load::run(&args.game, seats, &drive, Arc::clone(&flooded)),
            flood(
                &flood_channels,
                &flooder,
                &args.game,
                args.flooders,
                deadline,
                &counts
            ),
        );
        flooded_time += started.elapsed();
        if !args.json {
            eprintln!(
                "[round {round}] flooded: {:.1} s, flood calls so far {}",
                started.elapsed().as_secs_f64(),
                counts.calls.load(Ordering::Relaxed)
            );
        }
    }
    let alone = alone.summary("calm, alone", alone_time);
    let flooded = flooded.summary("calm, under the flood", flooded_time);
    let p99_ratio =
        flooded.submit_latency_us.p99 as f64 / alone.submit_latency_us.p99.max(1) as f64;
    let report = Report {
        game: args.game.clone(),
        players: args.players,
        flooders: args.flooders,
        server_args,
        alone,
        flooded,
        flood: FloodReport {
            calls: counts.calls.load(Ordering::Relaxed),
            created: counts.created.load(Ordering::Relaxed),
            refused: counts
                .refused
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
        },
        p99_ratio,
    };
    crate::emit(&report, args.json, print_report)?;
    drop(server);
    Ok(())
}

fn print_report(report: &Report) {
    println!(
        "{} calm players of {} against {} flooding tasks",
        report.players, report.game, report.flooders
    );
    println!(
        "{:<24} {:>10} {:>7} {:>7} {:>7} {:>8} {:>7}",
        "phase", "actions/s", "p50µs", "p90µs", "p99µs", "p99.9µs", "errors"
    );
    for p in [&report.alone, &report.flooded] {
        println!(
            "{:<24} {:>10.0} {:>7} {:>7} {:>7} {:>8} {:>7}",
            p.name,
            p.actions_per_s,
            p.submit_latency_us.p50,
            p.submit_latency_us.p90,
            p.submit_latency_us.p99,
            p.submit_latency_us.p999,
            p.errors.values().sum::<u64>()
        );
    }
    let seconds = report.flooded.seconds.max(1e-9);
    println!(
        "flood: {} CreateMatch calls ({:.0}/s), {} created, refused {:?}",
        report.flood.calls,
        report.flood.calls as f64 / seconds,
        report.flood.created,
        report.flood.refused
    );
    println!(
        "calm SubmitAction p99 under the flood ÷ alone: {:.2} (target ≤ 2)",
        report.p99_ratio
    );
}
