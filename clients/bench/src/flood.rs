//! `flood`: whether one credential flooding the host slows down another
//! credential's play. A calm organizer's players create matches and play
//! them (SubmitAction latency recorded) alone, then while a flooding
//! organizer's tasks send calls back to back, ignoring every refusal and
//! its retry delay; the two take turns, round by round. The host runs with
//! its default limits (or the `--server-arg`s given), so the flood meets
//! them.
//!
//! The flood sends CreateMatch (it meets its creations-per-minute quota
//! and its rate; the verdict is the calm players' SubmitAction p99 under
//! the flood ÷ alone, target ≤ 2), or with `--reads` the heaviest reads
//! there are, in turn: a finished War match's 1,000 events with views, a
//! page of 1,000 matches, and that match's board as SVG (it meets the rate
//! weighed by cost; the verdict is the calm players' SubmitAction p99 under
//! the flood, target ≤ 50 ms).

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
use tabletop_proto::v1::watch_client::WatchClient;
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
    /// Flood heavy reads instead of CreateMatch: ListEvents of 1,000
    /// events with views, ListMatches of 1,000 and a War board as SVG, in
    /// turn (the host needs the War plugin).
    #[arg(long)]
    reads: bool,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// What the flooding credential sends.
#[derive(Debug, Clone)]
enum Flood {
    /// CreateMatch of the calm players' game.
    Creates { game: String },
    /// Heavy reads of this finished War match and of the match list.
    Reads { war: String },
}

/// Matches the host holds before a `--reads` flood, so a page of
/// ListMatches is full.
const LISTED_MATCHES: usize = 1000;

/// What the flood did.
#[derive(Debug, Default, Serialize)]
struct FloodReport {
    /// Calls the flood sent.
    calls: u64,
    /// Of them, answered (with a match, for CreateMatch).
    created: u64,
    /// Of them, refused, by status code.
    refused: BTreeMap<String, u64>,
}

#[derive(Debug, Serialize)]
struct Report {
    game: String,
    /// `creates` or `reads`.
    flood_calls: &'static str,
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

/// The admin's bearer metadata.
fn admin<T>(message: T) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    if let Ok(value) = format!("Bearer {ADMIN_TOKEN}").parse() {
        request.metadata_mut().insert("authorization", value);
    }
    request
}

/// What a `--reads` flood reads: a War match two random bots played to
/// its end (its id), among [`LISTED_MATCHES`] Focus matches.
async fn heavy_reads_setup(channel: Channel) -> Result<String, String> {
    let mut matches = MatchesClient::new(channel);
    let war = matches
        .create_match(admin(pb::CreateMatchRequest {
            game: "war".into(),
            players: 2,
            seed: Some(1),
            bots: vec![
                pb::SeatBot {
                    seat: 0,
                    spec: "random".into(),
                },
                pb::SeatBot {
                    seat: 1,
                    spec: "random".into(),
                },
            ],
            view_detail: pb::ViewDetail::Summary as i32,
            ..Default::default()
        }))
        .await
        .map_err(|e| format!("cannot create a War match of bots: {e}"))?
        .into_inner()
        .match_id;
    for _ in 0..LISTED_MATCHES {
        matches
            .create_match(admin(pb::CreateMatchRequest {
                game: "focus".into(),
                players: 2,
                view_detail: pb::ViewDetail::Summary as i32,
                ..Default::default()
            }))
            .await
            .map_err(|e| format!("cannot create the matches to list: {e}"))?;
    }
    let patience = Instant::now() + Duration::from_secs(120);
    loop {
        let view = matches
            .get_view(pb::GetViewRequest {
                match_id: war.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| format!("cannot read the War match: {e}"))?
            .into_inner();
        if view.state == pb::MatchState::Finished as i32 {
            return Ok(war);
        }
        if Instant::now() > patience {
            return Err("the War match of bots did not finish in 120 s".into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// One heavy read of `war` (`turn` picks which), as `bearer`.
async fn heavy_read(
    channel: &Channel,
    war: &str,
    turn: usize,
    bearer: &tonic::metadata::MetadataValue<tonic::metadata::Ascii>,
) -> Result<(), tonic::Status> {
    fn with<T>(
        message: T,
        bearer: &tonic::metadata::MetadataValue<tonic::metadata::Ascii>,
    ) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        request
            .metadata_mut()
            .insert("authorization", bearer.clone());
        request
    }
    match turn % 3 {
        0 => {
            WatchClient::new(channel.clone())
                .list_events(with(
                    pb::ListEventsRequest {
                        match_id: war.into(),
                        from_version: Some(0),
                        page_size: 1000,
                        include_views: true,
                        ..Default::default()
                    },
                    bearer,
                ))
                .await?;
        }
        1 => {
            MatchesClient::new(channel.clone())
                .list_matches(with(
                    pb::ListMatchesRequest {
                        page_size: 1000,
                        ..Default::default()
                    },
                    bearer,
                ))
                .await?;
        }
        _ => {
            MatchesClient::new(channel.clone())
                .get_view(with(
                    pb::GetViewRequest {
                        match_id: war.into(),
                        svg: true,
                        ..Default::default()
                    },
                    bearer,
                ))
                .await?;
        }
    }
    Ok(())
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

/// `flooders` tasks on `channels` sending the `calls` as `secret` until
/// `deadline`, each as soon as the last answer came.
async fn flood(
    channels: &[Channel],
    secret: &str,
    calls: &Flood,
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
        let channel = channels[task % channels.len()].clone();
        let (bearer, counts, calls) = (bearer.clone(), Arc::clone(counts), calls.clone());
        tasks.spawn(async move {
            let mut turn = task;
            while Instant::now() < deadline {
                counts.calls.fetch_add(1, Ordering::Relaxed);
                let answered = match &calls {
                    Flood::Creates { game } => {
                        let mut request = tonic::Request::new(pb::CreateMatchRequest {
                            game: game.clone(),
                            players: 2,
                            view_detail: pb::ViewDetail::Summary as i32,
                            ..Default::default()
                        });
                        request
                            .metadata_mut()
                            .insert("authorization", bearer.clone());
                        MatchesClient::new(channel.clone())
                            .create_match(request)
                            .await
                            .map(drop)
                    }
                    Flood::Reads { war } => heavy_read(&channel, war, turn, &bearer).await,
                };
                turn += 1;
                match answered {
                    Ok(()) => {
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
    let calls = if args.reads {
        Flood::Reads {
            war: heavy_reads_setup(calm_channels[0].clone()).await?,
        }
    } else {
        Flood::Creates {
            game: args.game.clone(),
        }
    };
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
            &calls,
            args.flooders,
            deadline,
            &warmup,
        )
        .await;
        if !args.json {
            eprintln!(
                "warm-up: {} flood calls, {} answered",
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
                &calls,
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
        flood_calls: if args.reads { "reads" } else { "creates" },
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
    let what = match report.flood_calls {
        "reads" => "heavy reads",
        _ => "CreateMatch calls",
    };
    println!(
        "flood: {} {what} ({:.0}/s), {} answered, refused {:?}",
        report.flood.calls,
        report.flood.calls as f64 / seconds,
        report.flood.created,
        report.flood.refused
    );
    if report.flood_calls == "reads" {
        println!(
            "calm SubmitAction p99 under the flood: {:.1} ms (target ≤ 50 ms); alone {:.1} ms",
            report.flooded.submit_latency_us.p99 as f64 / 1000.0,
            report.alone.submit_latency_us.p99 as f64 / 1000.0
        );
    } else {
        println!(
            "calm SubmitAction p99 under the flood ÷ alone: {:.2} (target ≤ 2)",
            report.p99_ratio
        );
    }
}
