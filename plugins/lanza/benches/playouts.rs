//! Adjudicated turns per second and random playouts per second, in-process
//! and through the loaded cdylib. Both paths run the identical code against
//! `&dyn DynGame`.
//!
//! Run: `cargo bench -p lanza` (builds the cdylib first via the lib target).

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use engine_host::plugin::Plugin;
use lanza::Lanza;
use tabletop_sdk::{DynGame, DynState, InProcess, Move, Status, chance};

/// The cdylib beside the bench binary (target/<profile>/liblanza.so).
fn plugin_path() -> PathBuf {
    let exe = std::env::current_exe().expect("bench binary path");
    let dir = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("target/<profile>/deps");
    let path = dir.join(format!(
        "{}lanza{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    assert!(
        path.is_file(),
        "build the plugin first: cargo build --release -p lanza ({})",
        path.display()
    );
    path
}

/// xorshift64*: the pick of a legal action, the same on both paths.
fn next(state: &mut u64) -> u64 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    state.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

/// One random playout: legal actions, pick, apply, every ply; chance drawn
/// with the SDK's `chance::draw`. Returns the number of adjudicated turns.
fn playout(game: &dyn DynGame, players: u32, seed: u64) -> u64 {
    let mut state = game.new_state(players, &BTreeMap::new(), None).unwrap();
    let mut legal = Vec::new();
    let mut moves = Vec::new();
    let mut rng = seed | 1;
    let mut chance_index = 0;
    let mut turns = 0;
    loop {
        match state.status().unwrap() {
            Status::Terminal => return turns,
            Status::Chance => {
                let node = state.chance().unwrap();
                let outcome = chance::draw(&node, seed, chance_index).unwrap();
                chance_index += 1;
                state.apply_chance(outcome).unwrap();
            }
            Status::ToMove(movers) => {
                moves.clear();
                for p in movers.iter() {
                    state.legal_actions(p, &mut legal).unwrap();
                    let action = legal[(next(&mut rng) % legal.len() as u64) as usize];
                    moves.push(Move { player: p, action });
                }
                if moves.len() > 1 {
                    turns += 1;
                }
                state.apply(&moves).unwrap();
            }
        }
    }
}

/// Positions in the orders phase with a joint action each, collected from
/// random play (as position text, so each path builds its own states).
fn turn_samples(players: u32, count: usize) -> Vec<(String, Vec<Move>)> {
    let game = InProcess::new(Lanza);
    let mut out = Vec::new();
    let mut seed = 1;
    while out.len() < count {
        let mut state = game.new_state(players, &BTreeMap::new(), None).unwrap();
        let mut legal = Vec::new();
        let mut rng = seed;
        let mut index = 0;
        loop {
            match state.status().unwrap() {
                Status::Terminal => break,
                Status::Chance => {
                    let node = state.chance().unwrap();
                    state
                        .apply_chance(chance::draw(&node, seed, index).unwrap())
                        .unwrap();
                    index += 1;
                }
                Status::ToMove(movers) => {
                    let moves: Vec<Move> = movers
                        .iter()
                        .map(|p| {
                            state.legal_actions(p, &mut legal).unwrap();
                            Move {
                                player: p,
                                action: legal[(next(&mut rng) % legal.len() as u64) as usize],
                            }
                        })
                        .collect();
                    if moves.len() > 1 && out.len() < count {
                        out.push((state.position().unwrap(), moves.clone()));
                    }
                    state.apply(&moves).unwrap();
                }
            }
        }
        seed += 1;
    }
    out
}

/// Applies every sample's joint action to a fresh clone: one adjudicated turn each.
fn turns(states: &[(Box<dyn DynState>, Vec<Move>)]) {
    for (state, moves) in states {
        let mut s = state.clone_state().unwrap();
        s.apply(moves).unwrap();
        black_box(&s);
    }
}

fn benches(c: &mut Criterion) {
    let local = InProcess::new(Lanza);
    let plugin = Plugin::load(&plugin_path()).unwrap();
    let paths: [(&str, &dyn DynGame); 2] = [("in_process", &local), ("plugin", plugin.as_ref())];

    let samples = turn_samples(4, 256);
    let mut group = c.benchmark_group("adjudicated_turns_4p");
    group.throughput(Throughput::Elements(samples.len() as u64));
    for (name, game) in paths {
        let states: Vec<(Box<dyn DynState>, Vec<Move>)> = samples
            .iter()
            .map(|(text, moves)| {
                (
                    game.new_state(4, &BTreeMap::new(), Some(text)).unwrap(),
                    moves.clone(),
                )
            })
            .collect();
        group.bench_function(name, |b| b.iter(|| turns(&states)));
    }
    group.finish();

    for players in [2u32, 4] {
        let mut group = c.benchmark_group(format!("playouts_{players}p"));
        group.throughput(Throughput::Elements(1));
        group.sample_size(20);
        for (name, game) in paths {
            let mut seed = 0;
            group.bench_function(name, |b| {
                b.iter(|| {
                    seed += 1;
                    black_box(playout(game, players, seed))
                })
            });
        }
        group.finish();
    }
}

criterion_group!(lanza_benches, benches);
criterion_main!(lanza_benches);
