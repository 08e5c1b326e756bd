//! `paging`: what a platform pays to page through a large host. It starts
//! engine-host on the SQLite store, creates `--matches` matches of one game
//! (each labelled with a tournament, a round of ten and a table; all but
//! every twentieth resigned at once, so most are finished and, after the
//! retention, out of memory), and then pages through them with ListMatches:
//!
//! - every match, no filter;
//! - one round (a label, a tenth of the matches);
//! - one state (the running twentieth);
//! - a window of creation times (the middle half of the run).
//!
//! Each listing must see every match it selects exactly once, in creation
//! order; the tool fails otherwise. It reports the time per page
//! (percentiles), the whole listing's time and the largest reply, which
//! must stay far below the 4 MiB message limit.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use prost::Message;
use serde::Serialize;
use tabletop_proto::v1 as pb;
use tabletop_proto::v1::matches_client::MatchesClient;
use tonic::transport::Channel;

use crate::stats::{self, Latency};
use crate::{Machine, load, machine, proc};

/// The default message limit of tonic and of most gRPC clients.
const MESSAGE_LIMIT: usize = 4 << 20;

/// Rounds the matches are spread over (`round` = index mod this).
const ROUNDS: usize = 10;

/// Every this-many-th match is left running.
const LEFT_RUNNING_EVERY: usize = 20;

#[derive(Debug, Clone, clap::Args)]
pub struct PagingArgs {
    /// The engine-host binary to start on a free port with a scratch data
    /// directory and the SQLite store; stopped at the end.
    #[arg(long, value_name = "PATH")]
    spawn_server: PathBuf,
    /// An extra argument for the spawned server (repeatable).
    #[arg(long = "server-arg", allow_hyphen_values = true, value_name = "ARG")]
    server_args: Vec<String>,
    /// The game to create matches of.
    #[arg(long, default_value = "lanza")]
    game: String,
    /// Matches to create.
    #[arg(long, default_value_t = 200_000)]
    matches: usize,
    /// ListMatches page size (the host caps it at 1 000).
    #[arg(long, default_value_t = 1000)]
    page_size: u32,
    /// CreateMatch calls in flight while filling the host.
    #[arg(long, default_value_t = 32)]
    concurrency: usize,
    /// Print machine-readable JSON on stdout (progress goes to stderr).
    #[arg(long)]
    json: bool,
}

/// One listing: a filter paged to its end.
#[derive(Debug, Serialize)]
pub struct Listing {
    name: String,
    /// Matches the filter selects (known from how they were created).
    expected: usize,
    /// Matches listed (each once, or the tool fails).
    listed: usize,
    pages: usize,
    seconds: f64,
    /// Time per ListMatches call, µs.
    page_latency_us: Latency,
    /// The largest encoded reply, bytes.
    largest_reply_bytes: usize,
}

#[derive(Debug, Serialize)]
struct PagingReport {
    machine: Machine,
    game: String,
    matches: usize,
    page_size: u32,
    create_seconds: f64,
    creates_per_s: f64,
    listings: Vec<Listing>,
    /// The largest reply of any listing ÷ the 4 MiB message limit.
    largest_reply_fraction_of_limit: f64,
    server_rss_bytes: Option<u64>,
}

/// A created match: what the listings are checked against.
#[derive(Debug, Clone)]
struct Made {
    id: String,
    round: usize,
    running: bool,
}

/// Runs `tabletop-bench paging`.
pub async fn paging(args: PagingArgs) -> Result<(), String> {
    // One piece: the measurement in the order its figures are taken (start
    // the server, fill it, then one listing per filter, then the report);
    // the server lives in this scope until the report is out.
    if args.matches == 0 || args.concurrency == 0 || args.page_size == 0 {
        return Err("--matches, --concurrency and --page-size must be at least 1".into());
    }
    let mut server_args = vec![
        "--store".to_string(),
        "sqlite".to_string(),
        "--finished-retention".to_string(),
        "1".to_string(),
    ];
    server_args.extend(args.server_args.iter().cloned());
    let server = proc::spawn(&args.spawn_server, &server_args, true).await?;
    let channels = load::connect(&server.url, 4).await?;
    let games = load::games(channels[0].clone()).await?;
    let game = games
        .iter()
        .find(|g| g.name == args.game)
        .ok_or_else(|| format!("the server has no game `{}`", args.game))?;
    let seats = game.min_players.max(1);

    let started = Instant::now();
    let made = fill(&channels, &args, seats).await?;
    let create_seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "[paging] {} matches created in {create_seconds:.1} s",
        made.len()
    );
    // Let the finished ones leave memory, so the listings read the store.
    tokio::time::sleep(Duration::from_secs(3)).await;

    let mut client = MatchesClient::new(channels[0].clone());
    let mut listings = Vec::new();
    let all: Vec<&Made> = made.iter().collect();
    let (every, created_at) = list(
        &mut client,
        "every match",
        base(&args),
        &all,
        args.page_size,
    )
    .await?;
    listings.push(every);
    let round = 3 % ROUNDS;
    let mut by_round = base(&args);
    by_round
        .labels
        .insert("round".to_string(), round.to_string());
    let selected: Vec<&Made> = made.iter().filter(|m| m.round == round).collect();
    listings.push(
        list(
            &mut client,
            "one round (label)",
            by_round,
            &selected,
            args.page_size,
        )
        .await?
        .0,
    );
    let mut running = base(&args);
    running.state = pb::MatchState::Running as i32;
    let selected: Vec<&Made> = made.iter().filter(|m| m.running).collect();
    listings.push(
        list(
            &mut client,
            "running (state)",
            running,
            &selected,
            args.page_size,
        )
        .await?
        .0,
    );
    // Creation times are the host's: take them from the full listing.
    let mut times: Vec<i64> = created_at.values().copied().collect();
    times.sort_unstable();
    let (from, before) = (times[times.len() / 4], times[times.len() * 3 / 4]);
    let mut window = base(&args);
    window.created_from_ms = Some(from);
    window.created_before_ms = Some(before);
    let selected: Vec<&Made> = made
        .iter()
        .filter(|m| {
            created_at
                .get(&m.id)
                .is_some_and(|&at| at >= from && at < before)
        })
        .collect();
    listings.push(
        list(
            &mut client,
            "middle half (creation time)",
            window,
            &selected,
            args.page_size,
        )
        .await?
        .0,
    );

    let largest = listings
        .iter()
        .map(|l| l.largest_reply_bytes)
        .max()
        .unwrap_or(0);
    let report = PagingReport {
        machine: machine(),
        game: args.game.clone(),
        matches: made.len(),
        page_size: args.page_size,
        create_seconds,
        creates_per_s: made.len() as f64 / create_seconds.max(1e-9),
        largest_reply_fraction_of_limit: largest as f64 / MESSAGE_LIMIT as f64,
        listings,
        server_rss_bytes: proc::rss_bytes(server.pid),
    };
    crate::emit(&report, args.json, print_table)?;
    if report.largest_reply_fraction_of_limit > 0.5 {
        return Err(format!(
            "a ListMatches reply took {largest} bytes, over half the message limit"
        ));
    }
    Ok(())
}

/// The filter every listing starts from: this run's tournament label, so a
/// host with other matches does not disturb the counts.
fn base(args: &PagingArgs) -> pb::ListMatchesRequest {
    pb::ListMatchesRequest {
        game: args.game.clone(),
        page_size: args.page_size,
        labels: [("tournament".to_string(), "paging-bench".to_string())]
            .into_iter()
            .collect(),
        ..Default::default()
    }
}

/// Creates the matches, `args.concurrency` at a time, and resigns all but
/// every twentieth.
async fn fill(channels: &[Channel], args: &PagingArgs, seats: u32) -> Result<Vec<Made>, String> {
    let next = Arc::new(AtomicUsize::new(0));
    let errors = Arc::new(AtomicU64::new(0));
    let mut workers = Vec::new();
    for worker in 0..args.concurrency {
        let mut client = MatchesClient::new(channels[worker % channels.len()].clone());
        let (next, errors, game, total) = (
            Arc::clone(&next),
            Arc::clone(&errors),
            args.game.clone(),
            args.matches,
        );
        workers.push(tokio::spawn(async move {
            let mut made = Vec::new();
            loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                if index >= total {
                    return made;
                }
                if index > 0 && index.is_multiple_of(20_000) {
                    eprintln!("[paging] {index} matches created");
                }
                match create(&mut client, &game, seats, index).await {
                    Ok(m) => made.push(m),
                    Err(e) => {
                        if errors.fetch_add(1, Ordering::Relaxed) < 5 {
                            eprintln!("[paging] match {index}: {e}");
                        }
                    }
                }
            }
        }));
    }
    let mut made = Vec::with_capacity(args.matches);
    for worker in workers {
        made.extend(worker.await.map_err(|e| format!("a creator failed: {e}"))?);
    }
    let errors = errors.load(Ordering::Relaxed);
    if errors > 0 {
        return Err(format!("{errors} matches could not be created or resigned"));
    }
    Ok(made)
}

async fn create(
    client: &mut MatchesClient<Channel>,
    game: &str,
    seats: u32,
    index: usize,
) -> Result<Made, tonic::Status> {
    let round = index % ROUNDS;
    let created = client
        .create_match(pb::CreateMatchRequest {
            game: game.to_string(),
            players: seats,
            view_detail: pb::ViewDetail::Summary as i32,
            labels: [
                ("tournament", "paging-bench".to_string()),
                ("round", round.to_string()),
                ("table", index.to_string()),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
            ..Default::default()
        })
        .await?
        .into_inner();
    let running = index.is_multiple_of(LEFT_RUNNING_EVERY);
    if !running {
        let token = created
            .seats
            .first()
            .map(|s| s.token.clone())
            .unwrap_or_default();
        client
            .resign(pb::ResignRequest {
                match_id: created.match_id.clone(),
                seat_token: token,
            })
            .await?;
    }
    Ok(Made {
        id: created.match_id,
        round,
        running,
    })
}

/// Pages through `request` to its end and checks the listing against
/// `expected`: each once, none missing, in creation order. Returns the
/// figures and each listed match's creation time.
async fn list(
    client: &mut MatchesClient<Channel>,
    name: &str,
    mut request: pb::ListMatchesRequest,
    expected: &[&Made],
    page_size: u32,
) -> Result<(Listing, HashMap<String, i64>), String> {
    let mut histogram = stats::new_histogram();
    let mut seen: HashMap<String, i64> = HashMap::with_capacity(expected.len());
    let (mut pages, mut largest, mut last_key) = (0usize, 0usize, None::<(i64, String)>);
    let started = Instant::now();
    loop {
        let call = Instant::now();
        let reply = client
            .list_matches(request.clone())
            .await
            .map_err(|e| format!("{name}: ListMatches failed: {}", e.message()))?
            .into_inner();
        stats::record(&mut histogram, call.elapsed());
        pages += 1;
        largest = largest.max(reply.encoded_len());
        if reply.matches.len() > page_size as usize {
            return Err(format!(
                "{name}: a page of {} matches, over the page size {page_size}",
                reply.matches.len()
            ));
        }
        for summary in &reply.matches {
            let key = (summary.created_at_ms, summary.match_id.clone());
            if last_key.as_ref().is_some_and(|last| *last >= key) {
                return Err(format!("{name}: {} is out of creation order", key.1));
            }
            last_key = Some(key);
            if seen
                .insert(summary.match_id.clone(), summary.created_at_ms)
                .is_some()
            {
                return Err(format!("{name}: {} listed twice", summary.match_id));
            }
        }
        if reply.next_page_token.is_empty() {
            break;
        }
        request.page_token = reply.next_page_token;
    }
    let seconds = started.elapsed().as_secs_f64();
    let missing = expected
        .iter()
        .filter(|m| !seen.contains_key(&m.id))
        .count();
    if missing > 0 || seen.len() != expected.len() {
        return Err(format!(
            "{name}: listed {} matches, expected {} ({missing} missing)",
            seen.len(),
            expected.len()
        ));
    }
    eprintln!(
        "[paging] {name}: {} matches in {pages} pages, {seconds:.2} s",
        seen.len()
    );
    let listing = Listing {
        name: name.to_string(),
        expected: expected.len(),
        listed: seen.len(),
        pages,
        seconds,
        page_latency_us: Latency::of(&histogram),
        largest_reply_bytes: largest,
    };
    Ok((listing, seen))
}

fn print_table(report: &PagingReport) {
    println!(
        "{} matches of {} created in {:.1} s ({:.0}/s); pages of {}",
        report.matches, report.game, report.create_seconds, report.creates_per_s, report.page_size
    );
    println!(
        "{:<28} {:>8} {:>6} {:>8} {:>10} {:>10} {:>10} {:>12}",
        "listing", "matches", "pages", "total s", "p50 ms", "p99 ms", "max ms", "largest KiB"
    );
    for l in &report.listings {
        println!(
            "{:<28} {:>8} {:>6} {:>8.2} {:>10.2} {:>10.2} {:>10.2} {:>12.1}",
            l.name,
            l.listed,
            l.pages,
            l.seconds,
            l.page_latency_us.p50 as f64 / 1000.0,
            l.page_latency_us.p99 as f64 / 1000.0,
            l.page_latency_us.max as f64 / 1000.0,
            l.largest_reply_bytes as f64 / 1024.0
        );
    }
}
