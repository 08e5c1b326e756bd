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

use tabletop_mcts::Bot;
use tabletop_mcts::stats::{elo, interval, seat_score};
use tabletop_sdk::conformance::built_plugin_path;
use tabletop_sdk::serde_json::{Value, json};
use tabletop_sdk::{DynGame, Move, Status, chance};

struct Args {
    game: String,
    bots: Vec<Bot>,
    matches: u64,
    players: u32,
    options: BTreeMap<String, String>,
    seed: u64,
    records: Option<PathBuf>,
}

const USAGE: &str = "arena --game NAME --bots SPEC,SPEC[,…] --matches N --players P \
                     [-o NAME=VALUE]… [--seed S] [--records FILE]";

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        game: String::new(),
        bots: Vec::new(),
        matches: 20,
        players: 2,
        options: BTreeMap::new(),
        seed: 1,
        records: None,
    };
    let mut words = std::env::args().skip(1);
    while let Some(flag) = words.next() {
        let mut value = || words.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--game" => args.game = value()?,
            "--bots" => {
                args.bots = value()?
                    .split(',')
                    .map(Bot::from_spec)
                    .collect::<Result<_, _>>()
                    .map_err(|e| e.to_string())?;
            }
            "--matches" => args.matches = value()?.parse().map_err(|_| "--matches N")?,
            "--players" => args.players = value()?.parse().map_err(|_| "--players P")?,
            "--seed" => args.seed = value()?.parse().map_err(|_| "--seed S")?,
            "--records" => args.records = Some(value()?.into()),
            "-o" => {
                let pair = value()?;
                let (name, v) = pair.split_once('=').ok_or("-o NAME=VALUE")?;
                args.options.insert(name.to_string(), v.to_string());
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if args.game.is_empty() || args.bots.len() < 2 || args.matches == 0 || args.players == 0 {
        return Err("give a game, two bots or more, one match or more, one player or more".into());
    }
    Ok(args)
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
    let args = parse_args().unwrap_or_else(|e| {
        eprintln!("arena: {e}\nusage: {USAGE}");
        std::process::exit(2);
    });
    let game = tabletop_loader::Plugin::load(&built_plugin_path(&args.game))
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
                let played = play(&*game, &args, (a, b), a_seat, seed, &mut spent)
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
