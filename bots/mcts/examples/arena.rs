//! Plays bots against each other in-process through a built plugin and
//! prints, for each pairing, the score of the first bot with a 95% interval
//! and the Elo difference it implies.
//!
//! ```text
//! cargo build --release -p focus
//! cargo run --release -p tabletop-mcts --example arena -- \
//!     --game focus --bots random,mcts:200ms --matches 200 --players 2 \
//!     [-o max_turns=300] [--seed 1] [--records matches.jsonl]
//! ```
//!
//! Each pair of bots (A, B) plays `--matches` matches. A sits in one seat,
//! rotating through them match by match, and B in every other seat. A's
//! score in a match is the fraction of its opponents it finished ahead of, a
//! shared place counting half (1, 0.5, 0 for a win, draw, loss with two
//! players); with more players its fair share is 50% of that score and
//! 1/players of the first places (column `firsts`). Chance outcomes are
//! drawn as the host draws them, from match seed `seed + match`; each bot's
//! seed for a move is derived from the match seed, the move and the seat.
//! `--records` writes one JSON line per match: seats, seed, every transition
//! and the ranks.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};
use tabletop_mcts::Bot;
use tabletop_mcts::stats::{elo, interval, seat_score};
use tabletop_sdk::conformance::built_plugin_path;
use tabletop_sdk::import::ImportedGame;
use tabletop_sdk::serde_json::{Value, json};
use tabletop_sdk::{DynGame, Move, Status, chance};

/// Plays bots against each other through a built plugin.
#[derive(Debug, Parser)]
#[command(name = "arena")]
struct Args {
    /// The game, whose plugin is built.
    #[arg(long)]
    game: String,
    /// The bots, two or more: `random`, `mcts:200ms`, `mcts:2000` …
    #[arg(long, value_name = "SPEC,SPEC[,…]", value_delimiter = ',', value_parser = Bot::from_spec)]
    bots: Vec<Bot>,
    /// Matches per pairing.
    #[arg(long, value_name = "N", default_value_t = 20)]
    matches: u64,
    /// Seats per match.
    #[arg(long, value_name = "P", default_value_t = 2)]
    players: u32,
    /// A game option (repeatable).
    #[arg(short = 'o', value_name = "NAME=VALUE", value_parser = option)]
    option: Vec<(String, String)>,
    /// The `-o` options by name, a later one winning.
    #[arg(skip)]
    options: BTreeMap<String, String>,
    /// The first match's seed; match `m` has seed `S + m`.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Write one JSON line per match to this file.
    #[arg(long, value_name = "FILE")]
    records: Option<PathBuf>,
}

/// `-o NAME=VALUE`.
fn option(pair: &str) -> Result<(String, String), String> {
    let (name, value) = pair.split_once('=').ok_or("-o NAME=VALUE")?;
    Ok((name.to_string(), value.to_string()))
}

/// The arguments, checked: a game, two bots or more, one match or more, one
/// player or more.
fn parse_args() -> Args {
    let mut args = Args::parse();
    if args.game.is_empty() || args.bots.len() < 2 || args.matches == 0 || args.players == 0 {
        Args::command()
            .error(
                ErrorKind::ValueValidation,
                "give a game, two bots or more, one match or more, one player or more",
            )
            .exit();
    }
    args.options = args.option.iter().cloned().collect();
    args
}

/// One match's outcome for bot A.
struct Played {
    score: f64,
    first: bool,
    record: Value,
}

/// What a bot's searches cost, for iterations per second.
#[derive(Default)]
struct Effort {
    iterations: u64,
    elapsed: Duration,
}

/// Plays one match: `a` in seat `a_seat`, `b` in the others.
fn play(
    game: &dyn DynGame,
    args: &Args,
    (a, b): (&Bot, &Bot),
    a_seat: u32,
    seed: u64,
    effort: &mut [Effort; 2],
) -> Result<Played, String> {
    let mut state = game
        .new_state(args.players, &args.options, None)
        .map_err(|e| e.message)?;
    let mut log = Vec::new();
    let mut chance_index = 0;
    for ply in 0u64.. {
        match state.status().map_err(|e| e.message)? {
            Status::Terminal => break,
            Status::Chance => {
                let node = state.chance().map_err(|e| e.message)?;
                let outcome = chance::draw(&node, seed, chance_index).map_err(|e| e.message)?;
                chance_index += 1;
                state.apply_chance(outcome).map_err(|e| e.message)?;
                log.push(json!({ "chance": outcome }));
            }
            Status::ToMove(movers) => {
                let mut moves = Vec::new();
                for seat in movers.iter() {
                    let (bot, side) = if seat == a_seat { (a, 0) } else { (b, 1) };
                    let bot_seed = seed ^ ((ply << 8) | u64::from(seat)).wrapping_mul(0x9E37_79B9);
                    let choice = bot
                        .think(state.as_ref(), args.players, seat, bot_seed)
                        .map_err(|e| e.message)?;
                    effort[side].iterations += choice.iterations;
                    effort[side].elapsed += choice.elapsed;
                    moves.push(Move {
                        player: seat,
                        action: choice.action,
                    });
                }
                state.apply(&moves).map_err(|e| e.message)?;
                let pairs: Vec<[u64; 2]> = moves
                    .iter()
                    .map(|m| [u64::from(m.player), m.action])
                    .collect();
                log.push(json!(pairs));
            }
        }
    }
    let ranks: Vec<u32> = state
        .results()
        .map_err(|e| e.message)?
        .iter()
        .map(|r| r.rank)
        .collect();
    let mine = ranks[a_seat as usize];
    let seats: Vec<String> = (0..args.players)
        .map(|s| if s == a_seat { a.spec() } else { b.spec() })
        .collect();
    Ok(Played {
        score: seat_score(&ranks, a_seat as usize),
        first: mine == 1,
        record: json!({
            "game": args.game, "players": args.players, "options": args.options,
            "seats": seats, "seed": seed, "transitions": log, "ranks": ranks,
        }),
    })
}

fn main() {
    let args = parse_args();
    let game = ImportedGame::open(&built_plugin_path(&args.game))
        .unwrap_or_else(|e| panic!("the built plugin of {} does not load: {e}", args.game));
    let mut records = args.records.as_ref().map(|path| {
        std::fs::File::create(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    });
    println!(
        "{}, {} players, options {:?}, {} matches per pairing, seeds from {}",
        args.game, args.players, args.options, args.matches, args.seed
    );
    println!(
        "{:<32} {:>5} {:>4} {:>4} {:>4} {:>6} {:>13} {:>5} {:>11} {:>6}",
        "A vs B", "games", "W", "D", "L", "score", "95% interval", "Elo", "95% interval", "firsts"
    );
    let mut effort: BTreeMap<String, Effort> = BTreeMap::new();
    for i in 0..args.bots.len() {
        for j in i + 1..args.bots.len() {
            let (a, b) = (&args.bots[i], &args.bots[j]);
            let mut scores = Vec::new();
            let mut firsts = 0u32;
            let mut spent = [Effort::default(), Effort::default()];
            for m in 0..args.matches {
                let seed = args.seed.wrapping_add(m);
                let a_seat = (m % u64::from(args.players)) as u32;
                let played = play(&game, &args, (a, b), a_seat, seed, &mut spent)
                    .unwrap_or_else(|e| panic!("match {m} of {a} vs {b}: {e}"));
                scores.push(played.score);
                firsts += u32::from(played.first);
                if let Some(file) = records.as_mut() {
                    writeln!(file, "{}", played.record).expect("the records file is writable");
                }
            }
            for (bot, spent) in [a, b].into_iter().zip(spent) {
                let total = effort.entry(bot.spec()).or_default();
                total.iterations += spent.iterations;
                total.elapsed += spent.elapsed;
            }
            let tabletop_mcts::stats::Interval { mean, low, high } = interval(&scores);
            let count = |keep: fn(f64) -> bool| scores.iter().filter(|&&s| keep(s)).count();
            println!(
                "{:<32} {:>5} {:>4} {:>4} {:>4} {:>5.1}% {:>5.1}–{:>5.1}% {:>+5.0} {:>+5.0}–{:>+5.0} {:>5.1}%",
                format!("{a} vs {b}"),
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
                100.0 * f64::from(firsts) / scores.len() as f64,
            );
        }
    }
    for (spec, spent) in effort {
        if spent.iterations > 0 {
            println!(
                "{spec}: {:.0} iterations per second",
                spent.iterations as f64 / spent.elapsed.as_secs_f64()
            );
        }
    }
}
