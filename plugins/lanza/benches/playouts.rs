//! Adjudicated turns per second and random playouts per second, in-process
//! and through the loaded cdylib, in CPU time. Both paths run the identical
//! code against `&dyn DynGame`; the playouts are the shared loop of
//! `tabletop-bench-support`.

use std::collections::BTreeMap;
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use lanza::Lanza;
use tabletop_bench_support::{Case, ThreadCpuTime, compare_playouts, open_built_plugin};
use tabletop_sdk::{DynGame, DynState, InProcess, Move, Status, chance};

/// xorshift64*: the pick of a legal action when collecting samples.
fn next(state: &mut u64) -> u64 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    state.wrapping_mul(0x2545_F491_4F6C_DD1D)
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

fn benches(c: &mut Criterion<ThreadCpuTime>) {
    let local = InProcess::new(Lanza);
    let plugin = open_built_plugin::<Lanza>("lanza");
    let paths: [(&str, &dyn DynGame); 2] = [("in-process", &local), ("plugin", &plugin)];

    let samples = turn_samples(4, 256);
    let mut group = c.benchmark_group("lanza adjudicated turns 4p");
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

    compare_playouts(
        c,
        "lanza",
        Lanza,
        &[Case::players(2), Case::players(3), Case::players(4)],
    );
}

criterion_group! {
    name = lanza_benches;
    config = tabletop_bench_support::criterion();
    targets = benches
}
criterion_main!(lanza_benches);
