//! Random playouts per second from the 2- and 4-player starts, in-process
//! (rlib) and through the built plugin (cdylib via engine-host's loader).
//! Both paths run the identical loop, written against `&dyn DynGame`.
//!
//! Run with `cargo bench -p focus` (release); needs the cdylib built by
//! `cargo build --release -p focus` first, which `cargo bench` does.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use engine_host::plugin::Plugin;
use focus::Focus;
use tabletop_sdk::{DynGame, InProcess, Move, Status, chance, conformance};

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// One random game to the end (default options: at most 1000 moves);
/// returns the number of transitions.
fn playout(game: &dyn DynGame, players: u32, seed: u64) -> u64 {
    let mut state = game
        .new_state(players, &BTreeMap::new(), None)
        .expect("start");
    let mut rng = seed;
    let mut legal = Vec::with_capacity(256);
    let mut chance_index = 0;
    let mut steps = 0;
    loop {
        match state.status().expect("status") {
            Status::Terminal => return steps,
            Status::Chance => {
                let node = state.chance().expect("chance");
                let outcome = chance::draw(&node, seed, chance_index).expect("draw");
                chance_index += 1;
                state.apply_chance(outcome).expect("apply_chance");
            }
            Status::ToMove(movers) => {
                let player = movers.iter().next().expect("a mover");
                state.legal_actions(player, &mut legal).expect("legal");
                let action = legal[(splitmix(&mut rng) % legal.len() as u64) as usize];
                state.apply(&[Move { player, action }]).expect("apply");
            }
        }
        steps += 1;
    }
}

fn bench(c: &mut Criterion) {
    let plugin = Plugin::load(&conformance::built_plugin_path("focus")).expect("plugin loads");
    let local = InProcess::new(Focus);
    let paths: [(&str, &dyn DynGame); 2] = [("in-process", &local), ("plugin", plugin.as_ref())];
    for players in [2u32, 4] {
        let mut group = c.benchmark_group(format!("focus playouts {players}p"));
        group.throughput(Throughput::Elements(1));
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(5));
        for (name, game) in paths {
            let mut seed = 0u64;
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

criterion_group!(benches, bench);
criterion_main!(benches);
