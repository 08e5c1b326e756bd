//! Random playouts per second, in-process and through the loaded cdylib: the
//! identical loop on both paths (legal actions, pick, apply, every ply; chance
//! drawn with `tabletop_sdk::chance::draw`), written against `&dyn DynGame`.

use std::collections::BTreeMap;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use engine_host::plugin::Plugin;
use lanzeloth::Lanzeloth;
use tabletop_sdk::conformance::built_plugin_path;
use tabletop_sdk::{DynGame, InProcess, Move, Status, chance};

/// One random match with default options; returns the plies played.
fn playout(game: &dyn DynGame, players: u32, seed: u64) -> u64 {
    let mut state = game
        .new_state(players, &BTreeMap::new(), None)
        .expect("new state");
    let mut legal = Vec::new();
    let mut pick = seed | 1;
    let mut chance_index = 0;
    let mut plies = 0;
    loop {
        match state.status().expect("status") {
            Status::Terminal => return plies,
            Status::Chance => {
                let node = state.chance().expect("chance");
                let outcome = chance::draw(&node, seed, chance_index).expect("draw");
                chance_index += 1;
                state.apply_chance(outcome).expect("apply_chance");
            }
            Status::ToMove(movers) => {
                let player = movers.iter().next().expect("a mover");
                state.legal_actions(player, &mut legal).expect("legal");
                // xorshift64: cheap, and identical on both paths.
                pick ^= pick << 13;
                pick ^= pick >> 7;
                pick ^= pick << 17;
                let action = legal[(pick % legal.len() as u64) as usize];
                state.apply(&[Move { player, action }]).expect("apply");
                plies += 1;
            }
        }
    }
}

fn bench(c: &mut Criterion) {
    let in_process = InProcess::new(Lanzeloth);
    let plugin = Plugin::load(&built_plugin_path("lanzeloth")).expect("the built plugin loads");
    let paths: [(&str, &dyn DynGame); 2] =
        [("in-process", &in_process), ("plugin", plugin.as_ref())];
    let mut group = c.benchmark_group("playouts");
    group.throughput(Throughput::Elements(1));
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(6));
    for players in [2, 6] {
        for (name, game) in paths {
            let mut seed = 0u64;
            group.bench_function(format!("{name}/{players}p"), |b| {
                b.iter(|| {
                    seed += 1;
                    playout(game, players, seed)
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
