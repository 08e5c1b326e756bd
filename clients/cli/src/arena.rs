//! `tabletop arena`: a round robin of bots on a host, with each pairing's
//! score, its 95% interval and the Elo difference it implies.
//!
//! Each pair of entrants (A, B) plays `--matches` matches: A sits in one
//! seat, rotating through them match by match, and B in every other seat.
//! Match `m` of a pairing has seed `--seed + m` (the same seeds for every
//! pairing), so the chance outcomes repeat across pairings. A server-side
//! bot is seated by its spec (`CreateMatchRequest.bots`); an external bot
//! is a program the arena starts for its seat (see [`spawn_external`]).
//! Without `--server` the arena starts its own host: the `engine-host`
//! next to this program, with its plugins, its matches kept in memory, and
//! a bot thread per match played at once (`--parallel`). A time budget is
//! wall-clock time: matches played at once on fewer cores than searches
//! give each search less of a core.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use tabletop_mcts::stats::{Interval, elo, interval, seat_score};
use tabletop_proto::v1 as pb;
use tabletop_proto::v1::matches_client::MatchesClient;

use crate::connection::{Conn, Tls};
use crate::error::{CliError, CliResult};

/// How long one match may take before the arena gives up on it.
const MATCH_PATIENCE: Duration = Duration::from_secs(3600);

/// `tabletop arena`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct ArenaArgs {
    /// The game.
    #[arg(long)]
    pub game: String,
    /// Server-side bots by spec, comma-separated: `random,mcts:100ms,mcts:2000`.
    #[arg(long, value_delimiter = ',', value_name = "SPEC,…")]
    pub bots: Vec<String>,
    /// An external bot, `NAME=COMMAND` (repeatable): the command is run by
    /// `sh -c` for each seat it plays, with `MATCH_ID --token TOKEN --server
    /// HOST:PORT` appended and the same in TABLETOP_MATCH_ID, TABLETOP_TOKEN
    /// and TABLETOP_SERVER.
    #[arg(long = "external", value_name = "NAME=COMMAND")]
    pub externals: Vec<String>,
    /// Matches per pairing.
    #[arg(long, default_value_t = 20)]
    pub matches: u64,
    /// Seats per match.
    #[arg(long, default_value_t = 2)]
    pub players: u32,
    /// A game option, `name=value` (repeatable).
    #[arg(long = "option", short = 'o', value_name = "NAME=VALUE")]
    pub options: Vec<String>,
    /// The first match's seed; match m of a pairing has `seed + m`.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Matches of a pairing played at once (1–64); records are written as
    /// matches finish.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub parallel: u32,
    /// Write every match's record as one JSON line to this file.
    #[arg(long, value_name = "FILE.jsonl")]
    pub out: Option<PathBuf>,
}

/// One entrant of the round robin.
#[derive(Debug, Clone)]
enum Entrant {
    /// The server's bot, by spec.
    Server(String),
    /// A program that plays a seat given its token.
    External { name: String, command: String },
}

impl Entrant {
    fn name(&self) -> &str {
        match self {
            Entrant::Server(spec) => spec,
            Entrant::External { name, .. } => name,
        }
    }
}

/// A host the arena started, stopped when dropped.
struct SpawnedHost {
    child: Child,
    data_dir: PathBuf,
}

impl Drop for SpawnedHost {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.data_dir);
    }
}

/// Starts the `engine-host` next to this program on a free port; returns it
/// with its address and admin token.
fn spawn_host(bot_threads: u32) -> Result<(SpawnedHost, String, String), CliError> {
    let exe = std::env::current_exe()?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    let binary = dir.join(format!("engine-host{}", std::env::consts::EXE_SUFFIX));
    if !binary.is_file() {
        return Err(CliError::Usage(format!(
            "no engine-host next to this program ({}): give --server ADDR",
            binary.display()
        )));
    }
    let data_dir = std::env::temp_dir().join(format!("tabletop-arena-{}", std::process::id()));
    let admin_token = tabletop_core::tokens::new_token();
    let mut child = Command::new(&binary)
        .args(["--listen", "127.0.0.1:0", "--store", "memory"])
        // In the environment: a process's arguments are readable by every
        // user of the machine.
        .env("TABLETOP_ADMIN_TOKEN", &admin_token)
        .arg("--data-dir")
        .arg(&data_dir)
        .arg("--bot-threads")
        .arg(bot_threads.to_string())
        // Every match is the admin's: one creator, whose searches may fill
        // every slot.
        .arg("--bot-searches-per-creator")
        .arg(bot_threads.max(1).to_string())
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let stdout = child.stdout.take().ok_or_else(|| {
        CliError::Usage("the engine-host started without a standard output".into())
    })?;
    let mut lines = BufReader::new(stdout).lines();
    let first = lines.next().transpose()?.unwrap_or_default();
    // Keep reading so the host never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    let host = SpawnedHost { child, data_dir };
    let address = first.strip_prefix("listening on ").ok_or_else(|| {
        CliError::Usage(format!("the engine-host did not start (it said `{first}`)"))
    })?;
    Ok((host, format!("http://{address}"), admin_token))
}

/// Reads the entrants: the server bots (checked here, so a typo fails
/// before any match) and the external bots.
fn entrants(args: &ArenaArgs) -> Result<Vec<Entrant>, CliError> {
    let mut all = Vec::new();
    for spec in args.bots.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        let bot = tabletop_mcts::Bot::from_spec(spec)
            .map_err(|e| CliError::Usage(format!("--bots: {e}")))?;
        all.push(Entrant::Server(bot.spec()));
    }
    for given in &args.externals {
        let (name, command) = given
            .split_once('=')
            .ok_or_else(|| CliError::Usage(format!("--external `{given}`: give NAME=COMMAND")))?;
        all.push(Entrant::External {
            name: name.trim().to_string(),
            command: command.to_string(),
        });
    }
    if all.len() < 2 {
        return Err(CliError::Usage(
            "an arena needs two entrants or more (--bots, --external)".into(),
        ));
    }
    Ok(all)
}

/// Starts an external bot for one seat: `sh -c 'COMMAND "$@"'` with
/// `MATCH_ID --token TOKEN --server HOST:PORT` as its arguments (the form
/// the Python and TypeScript example bots read), and the same in the
/// environment.
fn spawn_external(
    command: &str,
    server: &str,
    match_id: &str,
    token: &str,
) -> std::io::Result<Child> {
    let host_port = server
        .trim_start_matches("http://")
        .trim_start_matches("https://");
    Command::new("sh")
        .arg("-c")
        .arg(format!("{command} \"$@\""))
        .arg("sh")
        .args([match_id, "--token", token, "--server", host_port])
        .env("TABLETOP_SERVER", host_port)
        .env("TABLETOP_MATCH_ID", match_id)
        .env("TABLETOP_TOKEN", token)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
}

/// One pairing's results, for A.
#[derive(Debug, Default)]
struct Tally {
    scores: Vec<f64>,
}

/// Runs the arena.
pub async fn run(args: ArenaArgs, server: Option<&str>, credential: &str, tls: &Tls) -> CliResult {
    let entrants = entrants(&args)?;
    if args.matches == 0 || args.players < 2 {
        return Err(CliError::Usage(
            "an arena plays one match or more of two players or more".into(),
        ));
    }
    let options = crate::listing::pairs("option", &args.options)?;
    let (_spawned, server, credential) = match server {
        Some(server) => (None, server.to_string(), credential.to_string()),
        None => {
            let (host, url, token) = spawn_host(args.parallel)?;
            (Some(host), url, token)
        }
    };
    // Of several addresses, the first that answers plays every match.
    let channel = crate::failover::Servers::new(&server, &credential, tls)?
        .first_answering()
        .await?;
    let matches = MatchesClient::new(channel);
    let mut out = match &args.out {
        Some(path) => Some(std::fs::File::create(path)?),
        None => None,
    };
    outln!(
        "{}, {} players, options {:?}, {} matches per pairing, seeds from {}, host {}",
        args.game,
        args.players,
        options,
        args.matches,
        args.seed,
        server
    );
    let mut table = Vec::new();
    for i in 0..entrants.len() {
        for j in i + 1..entrants.len() {
            let (a, b) = (&entrants[i], &entrants[j]);
            let mut tally = Tally::default();
            let mut played = futures_util::stream::iter(0..args.matches)
                .map(|m| {
                    let mut matches = matches.clone();
                    let (server, args, options) = (&server, &args, &options);
                    async move {
                        let seed = args.seed.wrapping_add(m);
                        let a_seat = (m % u64::from(args.players)) as u32;
                        let seats: Vec<&Entrant> = (0..args.players)
                            .map(|s| if s == a_seat { a } else { b })
                            .collect();
                        play_match(&mut matches, server, args, options, &seats, seed)
                            .await
                            .map(|played| (a_seat, played))
                    }
                })
                .buffer_unordered(args.parallel as usize);
            while let Some(played) = played.next().await {
                let (a_seat, (record, ranks)) = played?;
                tally.scores.push(seat_score(&ranks, a_seat as usize));
                if let Some(file) = out.as_mut() {
                    writeln!(file, "{record}")?;
                }
            }
            table.push((format!("{} vs {}", a.name(), b.name()), tally));
        }
    }
    print_table(&table);
    Ok(())
}

/// Plays one match with `seats` (an entrant per seat); returns its JSON
/// line and the ranks.
async fn play_match(
    matches: &mut MatchesClient<Conn>,
    server: &str,
    args: &ArenaArgs,
    options: &std::collections::HashMap<String, String>,
    seats: &[&Entrant],
    seed: u64,
) -> Result<(serde_json::Value, Vec<u32>), CliError> {
    let bots = seats
        .iter()
        .enumerate()
        .filter_map(|(seat, e)| match e {
            Entrant::Server(spec) => Some(pb::SeatBot {
                seat: seat as u32,
                spec: spec.clone(),
            }),
            Entrant::External { .. } => None,
        })
        .collect();
    let request = pb::CreateMatchRequest {
        game: args.game.clone(),
        players: args.players,
        options: options.clone(),
        seed: Some(seed),
        bots,
        labels: [("arena".to_string(), "1".to_string())].into(),
        ..Default::default()
    };
    let created = create_seeded(matches, request).await?;
    let match_id = created.match_id.clone();
    let mut children = Vec::new();
    for token in &created.seats {
        if let Entrant::External { command, .. } = seats[token.seat as usize] {
            children.push(spawn_external(command, server, &match_id, &token.token)?);
        }
    }
    let view = wait_until_finished(matches, &match_id).await?;
    stop_external_bots(children).await?;
    let mut ranks = vec![0; args.players as usize];
    for result in &view.results {
        if let Some(rank) = ranks.get_mut(result.seat as usize) {
            *rank = result.rank;
        }
    }
    let record = matches
        .export_record(pb::ExportRecordRequest {
            match_id: match_id.clone(),
            admin_token: String::new(),
        })
        .await?
        .into_inner()
        .record_json;
    let record: serde_json::Value = serde_json::from_str(&record)
        .map_err(|e| CliError::Usage(format!("the record of {match_id} is not JSON: {e}")))?;
    let names: Vec<&str> = seats.iter().map(|e| e.name()).collect();
    let line = serde_json::json!({
        "match_id": match_id,
        "game": args.game,
        "players": args.players,
        "seats": names,
        "seed": record["seed"],
        "ranks": ranks,
        "record": record,
    });
    Ok((line, ranks))
}

/// Creates the match with its seed; without an organizer credential, which
/// choosing a seed needs, with a random seed, which its record still shows.
async fn create_seeded(
    matches: &mut MatchesClient<Conn>,
    request: pb::CreateMatchRequest,
) -> Result<pb::CreateMatchResponse, CliError> {
    match matches.create_match(request.clone()).await {
        Ok(created) => Ok(created.into_inner()),
        Err(status)
            if status.code() == tonic::Code::PermissionDenied
                || status.code() == tonic::Code::Unauthenticated =>
        {
            let request = pb::CreateMatchRequest {
                seed: None,
                ..request
            };
            Ok(matches.create_match(request).await?.into_inner())
        }
        Err(status) => Err(status.into()),
    }
}

/// Polls the match's view (as a spectator) until it is finished, for at
/// most [`MATCH_PATIENCE`].
async fn wait_until_finished(
    matches: &mut MatchesClient<Conn>,
    match_id: &str,
) -> Result<pb::MatchView, CliError> {
    let started = Instant::now();
    loop {
        let view = matches
            .get_view(pb::GetViewRequest {
                match_id: match_id.to_string(),
                seat_token: String::new(),
                at_version: None,
                svg: false,
            })
            .await?
            .into_inner();
        if view.state == pb::MatchState::Finished as i32 {
            return Ok(view);
        }
        if started.elapsed() > MATCH_PATIENCE {
            return Err(CliError::Usage(format!(
                "match {match_id} did not finish within {} s",
                MATCH_PATIENCE.as_secs()
            )));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits for each external bot to end with its match, and stops one that
/// has not within 10 s.
async fn stop_external_bots(children: Vec<std::process::Child>) -> Result<(), CliError> {
    for mut child in children {
        let deadline = Instant::now() + Duration::from_secs(10);
        while child.try_wait()?.is_none() && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let _ = child.kill();
        let _ = child.wait();
    }
    Ok(())
}

/// Prints one row per pairing: games, wins/draws/losses, score with its 95%
/// interval, and the Elo difference with its interval.
fn print_table(table: &[(String, Tally)]) {
    outln!(
        "{:<34} {:>5} {:>4} {:>4} {:>4} {:>6} {:>13} {:>5} {:>11}",
        "A vs B",
        "games",
        "W",
        "D",
        "L",
        "score",
        "95% interval",
        "Elo",
        "95% interval"
    );
    for (pairing, tally) in table {
        let scores = &tally.scores;
        let Interval { mean, low, high } = interval(scores);
        let count = |keep: fn(f64) -> bool| scores.iter().filter(|&&s| keep(s)).count();
        outln!(
            "{:<34} {:>5} {:>4} {:>4} {:>4} {:>5.1}% {:>5.1}–{:>5.1}% {:>+5.0} {:>+5.0}–{:>+5.0}",
            pairing,
            scores.len(),
            count(|s| s >= 1.0),
            count(|s| s > 0.0 && s < 1.0),
            count(|s| s <= 0.0),
            100.0 * mean,
            100.0 * low,
            100.0 * high,
            elo(mean),
            elo(low),
            elo(high),
        );
    }
}

/// Every entrant's name as the table shows it, for a test of the
/// arguments.
#[cfg(test)]
fn names(args: &ArenaArgs) -> Result<Vec<String>, CliError> {
    Ok(entrants(args)?
        .iter()
        .map(|e| e.name().to_string())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(bots: &[&str], externals: &[&str]) -> ArenaArgs {
        ArenaArgs {
            game: "focus".into(),
            bots: bots.iter().map(|s| s.to_string()).collect(),
            externals: externals.iter().map(|s| s.to_string()).collect(),
            matches: 1,
            players: 2,
            options: Vec::new(),
            seed: 1,
            out: None,
            parallel: 1,
        }
    }

    #[test]
    fn entrants_are_server_bots_by_spec_and_named_programs() {
        let named = names(&args(&["random", "mcts:1000ms"], &["py=python3 bot.py"])).unwrap();
        assert_eq!(named, ["random", "mcts:1s", "py"]);
        assert!(entrants(&args(&["random"], &[])).is_err(), "one entrant");
        assert!(entrants(&args(&["random", "mcts:fast"], &[])).is_err());
        assert!(entrants(&args(&["random"], &["no-command"])).is_err());
    }
}
