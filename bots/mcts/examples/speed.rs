//! Iterations per second of the search in every game, through the built
//! plugins as the host loads them: for each game and player count, a
//! position a few moves into a match, searched for a fixed time by the seat
//! to move.
//!
//! ```text
//! cargo build --release -p focus -p lanza -p lanzeloth -p war
//! cargo run --release -p tabletop-mcts --example speed [-- MILLISECONDS]
//! ```

use std::collections::BTreeMap;

use clap::Parser;
use tabletop_mcts::Bot;
use tabletop_sdk::conformance::built_plugin_path;
use tabletop_sdk::import::ImportedGame;
use tabletop_sdk::{Chance, DynGame, DynState, Move, Status};

const GAMES: [&str; 4] = ["focus", "lanza", "lanzeloth", "war"];

/// Plays `plies` transitions, taking varied legal actions and the first
/// listed chance outcome (or 7 for a sampled node), then on until the first
/// seat to move has a choice; returns that seat.
fn advance(state: &mut dyn DynState, plies: u32) -> Option<u32> {
    let mut played = 0;
    let mut legal = Vec::new();
    loop {
        let status = state.status().expect("status");
        if played >= plies
            && let Status::ToMove(movers) = status
        {
            let seat = movers.first().expect("a mover");
            state.legal_actions(seat, &mut legal).expect("legal");
            if legal.len() >= 2 {
                return Some(seat);
            }
        }
        match status {
            Status::Terminal => return None,
            Status::Chance => {
                let outcome = match state.chance().expect("chance") {
                    Chance::Explicit(outcomes) => outcomes[0].0,
                    Chance::Sampled => 7,
                };
                state.apply_chance(outcome).expect("outcome");
            }
            Status::ToMove(movers) => {
                let moves: Vec<Move> = movers
                    .iter()
                    .map(|player| {
                        state.legal_actions(player, &mut legal).expect("legal");
                        Move {
                            player,
                            action: legal[played as usize % legal.len()],
                        }
                    })
                    .collect();
                state.apply(&moves).expect("apply");
            }
        }
        played += 1;
    }
}

/// Iterations per second of the search in every game.
#[derive(Debug, Parser)]
#[command(name = "speed")]
struct Args {
    /// How long each search runs.
    #[arg(value_name = "MILLISECONDS", default_value_t = 1000)]
    millis: u64,
}

fn main() {
    let millis = Args::parse().millis;
    let bot = Bot::from_spec(&format!("mcts:{millis}ms")).expect("a spec");
    println!("{bot}, playouts cut off after 20 transitions, one position per row");
    println!(
        "{:<10} {:>7} {:>12} {:>10} {:>8}",
        "game", "players", "iterations", "per second", "nodes"
    );
    for name in GAMES {
        let game = ImportedGame::open(&built_plugin_path(name))
            .unwrap_or_else(|e| panic!("the built plugin of {name} does not load: {e}"));
        let manifest = game.manifest().clone();
        let mut counts = vec![manifest.min_players, manifest.max_players];
        counts.dedup();
        for players in counts {
            let mut state = game
                .new_state(players, &BTreeMap::new(), None)
                .expect("a new match");
            let Some(seat) = advance(state.as_mut(), 12) else {
                continue;
            };
            let choice = bot
                .think(state.as_ref(), players, seat, 1)
                .expect("a choice");
            let rate = choice.iterations as f64 / choice.elapsed.as_secs_f64();
            println!(
                "{name:<10} {players:>7} {:>12} {rate:>10.0} {:>8}",
                choice.iterations, choice.nodes
            );
        }
    }
}
