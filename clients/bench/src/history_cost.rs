//! `history-cost`: what a match's past costs to read. It starts engine-host
//! on the SQLite store (or `--store postgres://…`) with a short `--finished-retention`, plays matches of
//! each game to the end with random legal actions, waits until the host has
//! let go of them, and then, match by match, over gRPC on an otherwise idle
//! host:
//!
//! - the first read of the unloaded match (a spectator's GetView: the store
//!   reads its rows and the host replays its log) and a second read of the
//!   same match, now in memory; their difference is the cost of loading it;
//! - the whole history from version 0, in memory: a Watch stream with views
//!   (a spectator joining late), the same without views, and ListEvents in
//!   pages of 1 000 without views. A call's fixed cost is measured apart (a
//!   stream or a page after the match's last event: no event, the same
//!   round trips) and taken off, so a figure per event is what one more
//!   event of history costs, whatever the match's length.
//!
//! Times are wall time seen by this tool, so they include gRPC both ways.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use tabletop_proto::v1 as pb;
use tabletop_proto::v1::matches_client::MatchesClient;
use tabletop_proto::v1::watch_client::WatchClient;
use tokio_stream::StreamExt;
use tonic::transport::Channel;

use crate::load::{self, Player};
use crate::stats::Live;
use crate::{Machine, machine, proc};

#[derive(Debug, Clone, clap::Args)]
pub struct HistoryCostArgs {
    /// The engine-host binary to start on a free port with a scratch data
    /// directory; stopped at the end.
    #[arg(long, value_name = "PATH")]
    spawn_server: PathBuf,
    /// The spawned host's store: `sqlite`, or a PostgreSQL database's URL
    /// (`postgres://…`, an empty database per run).
    #[arg(long, default_value = "sqlite")]
    store: String,
    /// An extra argument for the spawned server (repeatable).
    #[arg(long = "server-arg", allow_hyphen_values = true, value_name = "ARG")]
    server_args: Vec<String>,
    /// A game name, or `all` for every game the server offers.
    #[arg(long, default_value = "all")]
    game: String,
    /// Matches to play and measure per game.
    #[arg(long, default_value_t = 20)]
    matches: usize,
    /// The host's `--finished-retention` in seconds: the measurements of one
    /// match must end within it, or the match leaves memory in between.
    #[arg(long, default_value_t = 5)]
    retention: u64,
    /// Seed of the matches and the players' choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print machine-readable JSON on stdout.
    #[arg(long)]
    json: bool,
}

/// The figures for one game.
#[derive(Debug, Serialize)]
pub struct GameCost {
    game: String,
    seats: u32,
    matches: usize,
    /// Events per match (mean): what a stream from version 0 delivers.
    events_per_match: f64,
    /// Median first read of an unloaded match, ms.
    first_read_ms: f64,
    /// Median read of the same match in memory, ms.
    loaded_read_ms: f64,
    /// Median of (first − loaded) per match: loading it, ms.
    load_ms: f64,
    /// Median time of a Watch stream that has no event to send (resumed
    /// after the last one), ms: the fixed cost taken off below.
    watch_fixed_ms: f64,
    /// Watch from version 0 with views, µs per event beyond the fixed cost.
    watch_views_us_per_event: f64,
    /// The same without views.
    watch_bare_us_per_event: f64,
    /// Median time of an empty ListEvents page, ms.
    list_fixed_ms: f64,
    /// ListEvents from 0, pages of 1 000, without views, µs per event
    /// beyond the fixed cost of each page.
    list_us_per_event: f64,
}

#[derive(Debug, Serialize)]
struct CostReport {
    machine: Machine,
    retention_s: u64,
    games: Vec<GameCost>,
}

/// Runs `tabletop-bench history-cost`.
pub async fn history_cost(args: HistoryCostArgs) -> Result<(), String> {
    // One piece: the measurement in the order its figures are taken (start
    // the server, play the matches, wait out the retention, then read each
    // history back); the server lives in this scope until the report is out.
    if args.matches == 0 {
        return Err("--matches must be at least 1".into());
    }
    let mut server_args = vec![
        "--store".to_string(),
        args.store.clone(),
        "--finished-retention".to_string(),
        args.retention.to_string(),
    ];
    server_args.extend(args.server_args.iter().cloned());
    let server = proc::spawn(&args.spawn_server, &server_args, true).await?;
    let channel = load::connect(&server.url, 1).await?.remove(0);
    let mut games = load::games(channel.clone()).await?;
    if args.game != "all" {
        games.retain(|g| g.name == args.game);
    }
    if games.is_empty() {
        return Err(format!("the server has no game `{}`", args.game));
    }
    let live = Arc::new(Live::default());
    let far = Instant::now() + Duration::from_secs(3600);
    let mut played: Vec<(String, u32, Vec<String>)> = Vec::new();
    for game in &games {
        let seats = game.min_players.max(1);
        let mut player = Player::new(channel.clone(), args.seed, true, true);
        let mut ids = Vec::new();
        let mut tries = 0;
        while ids.len() < args.matches && tries < args.matches * 3 {
            tries += 1;
            if let Some(created) = player.create(&game.name, seats, &live).await {
                let id = created.match_id.clone();
                if player.play(created, &live, far).await {
                    ids.push(id);
                }
            }
        }
        if ids.is_empty() {
            return Err(format!("no match of {} was played to its end", game.name));
        }
        eprintln!("[history-cost] {}: {} matches played", game.name, ids.len());
        played.push((game.name.clone(), seats, ids));
    }
    // The host lets go of finished matches once a second after retention.
    tokio::time::sleep(Duration::from_secs(args.retention + 3)).await;

    let mut report = CostReport {
        machine: machine(),
        retention_s: args.retention,
        games: Vec::new(),
    };
    let mut matches = MatchesClient::new(channel.clone()).max_decoding_message_size(64 << 20);
    let mut watch = WatchClient::new(channel.clone()).max_decoding_message_size(64 << 20);
    for (game, seats, ids) in played {
        let mut first = Vec::new();
        let mut loaded = Vec::new();
        let mut load = Vec::new();
        let mut watch_fixed = Vec::new();
        let mut list_fixed = Vec::new();
        let (mut events, mut pages) = (0u64, 0u64);
        let (mut watch_views, mut watch_bare, mut list) = (0.0, 0.0, 0.0);
        for id in &ids {
            let measured = Instant::now();
            let a = timed(get_view(&mut matches, id)).await?;
            let b = timed(get_view(&mut matches, id)).await?;
            first.push(a.0);
            loaded.push(b.0);
            load.push(a.0 - b.0);
            let (t, n) = timed(watch_after(&mut watch, id, 0, false)).await?;
            events += n;
            watch_views += t;
            let (t, m) = timed(watch_after(&mut watch, id, 0, true)).await?;
            watch_bare += t;
            let (t, (l, p, last_seq)) = timed(list_after(&mut watch, id, 0)).await?;
            list += t;
            pages += p;
            if m != n || l != n {
                return Err(format!(
                    "{game} {id}: {n} events with views, {m} without, {l} listed"
                ));
            }
            for _ in 0..3 {
                watch_fixed.push(timed(watch_after(&mut watch, id, last_seq, true)).await?.0);
                list_fixed.push(timed(list_after(&mut watch, id, last_seq)).await?.0);
            }
            if measured.elapsed() >= Duration::from_secs(args.retention) {
                return Err(format!(
                    "{game} {id}: measuring took longer than the retention; pass a larger --retention"
                ));
            }
        }
        let watch_fixed = median(&mut watch_fixed);
        let list_fixed = median(&mut list_fixed);
        let streams = ids.len() as f64;
        let per_event =
            |total_s: f64, fixed_s: f64| (total_s - fixed_s) * 1e6 / events.max(1) as f64;
        report.games.push(GameCost {
            game,
            seats,
            matches: ids.len(),
            events_per_match: events as f64 / streams,
            first_read_ms: median(&mut first) * 1e3,
            loaded_read_ms: median(&mut loaded) * 1e3,
            load_ms: median(&mut load) * 1e3,
            watch_fixed_ms: watch_fixed * 1e3,
            watch_views_us_per_event: per_event(watch_views, streams * watch_fixed),
            watch_bare_us_per_event: per_event(watch_bare, streams * watch_fixed),
            list_fixed_ms: list_fixed * 1e3,
            list_us_per_event: per_event(list, pages as f64 * list_fixed),
        });
    }
    drop(server);
    crate::emit(&report, args.json, print_table)?;
    Ok(())
}

/// The report as a table, with what its columns mean.
fn print_table(report: &CostReport) {
    println!(
        "{:<10} {:>7} {:>8} {:>7} {:>7} {:>7} {:>8} {:>10} {:>10} {:>8} {:>10}",
        "game",
        "matches",
        "ev/match",
        "1st ms",
        "2nd ms",
        "load ms",
        "watch ms",
        "views µs/ev",
        "bare µs/ev",
        "list ms",
        "list µs/ev",
    );
    for g in &report.games {
        println!(
            "{:<10} {:>7} {:>8.0} {:>7.2} {:>7.2} {:>7.2} {:>8.2} {:>11.2} {:>10.2} {:>8.2} {:>10.2}",
            g.game,
            g.matches,
            g.events_per_match,
            g.first_read_ms,
            g.loaded_read_ms,
            g.load_ms,
            g.watch_fixed_ms,
            g.watch_views_us_per_event,
            g.watch_bare_us_per_event,
            g.list_fixed_ms,
            g.list_us_per_event,
        );
    }
    println!(
        "1st/2nd: a spectator's GetView of an unloaded match and again in memory; load = their difference (medians). \
         watch/list ms: a call with no event to send; µs/ev: from version 0, beyond that fixed cost."
    );
}

/// Runs `f`, returning its wall time in seconds with its value.
async fn timed<T>(
    f: impl std::future::Future<Output = Result<T, String>>,
) -> Result<(f64, T), String> {
    let start = Instant::now();
    let value = f.await?;
    Ok((start.elapsed().as_secs_f64(), value))
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

async fn get_view(client: &mut MatchesClient<Channel>, id: &str) -> Result<(), String> {
    client
        .get_view(pb::GetViewRequest {
            match_id: id.to_string(),
            seat_token: String::new(),
            at_version: None,
            svg: false,
        })
        .await
        .map(drop)
        .map_err(|e| format!("GetView {id}: {e}"))
}

/// Watches finished match `id` after event `after_seq` (0: from the first)
/// to its end; returns the events received.
async fn watch_after(
    client: &mut WatchClient<Channel>,
    id: &str,
    after_seq: u64,
    omit_views: bool,
) -> Result<u64, String> {
    let mut stream = client
        .watch_match(pb::WatchMatchRequest {
            match_id: id.to_string(),
            after_seq: Some(after_seq),
            omit_views,
            ..Default::default()
        })
        .await
        .map_err(|e| format!("WatchMatch {id}: {e}"))?
        .into_inner();
    let mut events = 0;
    while let Some(event) = stream.next().await {
        event.map_err(|e| format!("WatchMatch {id}: {e}"))?;
        events += 1;
    }
    Ok(events)
}

/// Lists the events of `id` after `after_seq` in pages of 1 000; returns
/// how many, the pages asked for and the match's last sequence number.
async fn list_after(
    client: &mut WatchClient<Channel>,
    id: &str,
    after_seq: u64,
) -> Result<(u64, u64, u64), String> {
    let mut after = after_seq;
    let (mut events, mut pages) = (0, 0);
    loop {
        pages += 1;
        let page = client
            .list_events(pb::ListEventsRequest {
                match_id: id.to_string(),
                after_seq: after,
                page_size: 1000,
                ..Default::default()
            })
            .await
            .map_err(|e| format!("ListEvents {id}: {e}"))?
            .into_inner();
        events += page.events.len() as u64;
        match page.events.last() {
            Some(last) if last.seq < page.last_seq => after = last.seq,
            _ => return Ok((events, pages, page.last_seq)),
        }
    }
}
