//! Helpers the bot tests share: random play to reach positions in the
//! middle of a match, and whole matches of bots.
//!
//! Each test file links one game: every game crate exports the plugin entry
//! symbol, so two cannot link into one binary.

#![allow(dead_code)]

use std::collections::BTreeMap;

use rand_xoshiro::SplitMix64;
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use tabletop_mcts::Bot;
use tabletop_sdk::{ActionId, Chance, DynGame, DynState, Move, Status};

pub fn options(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A small deterministic generator (SplitMix64) for the tests' own random
/// play.
pub struct Dice(SplitMix64);

impl Dice {
    pub fn new(seed: u64) -> Dice {
        Dice(SplitMix64::seed_from_u64(seed))
    }

    pub fn next(&mut self) -> u64 {
        self.0.next_u64()
    }

    pub fn pick<T: Copy>(&mut self, list: &[T]) -> T {
        list[(self.next() % list.len() as u64) as usize]
    }
}

/// One random transition of `state` (not terminal): every mover a random
/// legal action, or a chance outcome by its distribution.
pub fn step_at_random(state: &mut dyn DynState, dice: &mut Dice) {
    match state.status().unwrap() {
        Status::Terminal => panic!("the match is over"),
        Status::Chance => {
            let outcome = match state.chance().unwrap() {
                Chance::Explicit(outcomes) => {
                    let listed: Vec<u64> = outcomes.iter().map(|o| o.0).collect();
                    dice.pick(&listed)
                }
                Chance::Sampled => dice.next(),
            };
            state.apply_chance(outcome).unwrap();
        }
        Status::ToMove(movers) => {
            let moves: Vec<Move> = movers
                .iter()
                .map(|player| Move {
                    player,
                    action: dice.pick(&legal(state, player)),
                })
                .collect();
            state.apply(&moves).unwrap();
        }
    }
}

pub fn legal(state: &dyn DynState, player: u32) -> Vec<ActionId> {
    let mut out = Vec::new();
    state.legal_actions(player, &mut out).unwrap();
    out
}

/// A position `plies` random transitions into a match of `game` with
/// `players` seats and `options`, then on until a seat to move has a choice
/// (two legal actions or more); with that seat.
pub fn midgame(
    game: &dyn DynGame,
    players: u32,
    options: &[(&str, &str)],
    plies: u32,
    seed: u64,
) -> (Box<dyn DynState>, u32) {
    let mut state = game
        .new_state(players, &self::options(options), None)
        .unwrap();
    let mut dice = Dice::new(seed);
    let mut played = 0;
    loop {
        match state.status().unwrap() {
            Status::ToMove(movers)
                if played >= plies
                    && let Some(seat) = movers
                        .iter()
                        .find(|&seat| legal(state.as_ref(), seat).len() >= 2) =>
            {
                return (state, seat);
            }
            Status::Terminal => panic!("the match ended after {played} transitions"),
            _ => step_at_random(state.as_mut(), &mut dice),
        }
        played += 1;
    }
}

/// Plays a match of `game` with `players` seats and `options` until it ends,
/// seat 0 a small search and the others random; returns the transitions
/// played.
pub fn play_to_the_end(
    game: &dyn DynGame,
    players: u32,
    options: &[(&str, &str)],
    seed: u64,
) -> u32 {
    let search = Bot::from_spec("mcts:40:depth=8").unwrap();
    let mut state = game
        .new_state(players, &self::options(options), None)
        .unwrap();
    let mut dice = Dice::new(seed);
    let mut transitions = 0;
    loop {
        match state.status().unwrap() {
            Status::Terminal => return transitions,
            Status::Chance => step_at_random(state.as_mut(), &mut dice),
            Status::ToMove(movers) => {
                let moves: Vec<Move> = movers
                    .iter()
                    .map(|seat| {
                        let bot = if seat == 0 { &search } else { &Bot::Random };
                        let action = bot
                            .choose(state.as_ref(), players, seat, dice.next())
                            .unwrap();
                        assert!(legal(state.as_ref(), seat).contains(&action));
                        Move {
                            player: seat,
                            action,
                        }
                    })
                    .collect();
                state.apply(&moves).unwrap();
            }
        }
        transitions += 1;
        assert!(transitions < 100_000, "the match does not end");
    }
}

/// Asks `spec` twice with the same seed from a position a few moves into a
/// match: the same action and the same tree.
pub fn assert_reproducible(game: &dyn DynGame, players: u32, spec: &str) {
    let (state, seat) = midgame(game, players, &[], 8, 3);
    let bot = Bot::from_spec(spec).unwrap();
    let first = bot.think(state.as_ref(), players, seat, 11).unwrap();
    let again = bot.think(state.as_ref(), players, seat, 11).unwrap();
    assert!(first.iterations > 0, "the seat has a choice to search");
    assert_eq!(first.action, again.action);
    assert_eq!(first.nodes, again.nodes, "the same tree");
    assert!(legal(state.as_ref(), seat).contains(&first.action));
}
