//! Random playouts per second from a random setup, in-process and through the
//! loaded cdylib: the identical loop, written against `&dyn DynGame`.
//!
//! Build the plugin first (`cargo build --release -p war`); `cargo bench -p war`
//! does, since the bench links the crate's lib, which is also the cdylib.

use std::collections::BTreeMap;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use engine_host::plugin::Plugin;
use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use tabletop_sdk::{DynGame, InProcess, Move, Status, chance};

/// One random game from the empty board: random placements (W3), then random
/// moves to the end. Returns the number of transitions.
fn playout(game: &dyn DynGame, seed: u64) -> u64 {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut state = game.new_state(2, &BTreeMap::new(), None).unwrap();
    let mut legal = Vec::new();
    let mut steps = 0u64;
    loop {
        match state.status().unwrap() {
            Status::Terminal => return steps,
            Status::Chance => {
                let node = state.chance().unwrap();
                state
                    .apply_chance(chance::draw(&node, seed, steps).unwrap())
                    .unwrap();
            }
            Status::ToMove(movers) => {
                let mut moves = Vec::new();
                for p in movers.iter() {
                    state.legal_actions(p, &mut legal).unwrap();
                    moves.push(Move {
                        player: p,
                        action: *legal.choose(&mut rng).unwrap(),
                    });
                }
                state.apply(&moves).unwrap();
            }
        }
        steps += 1;
    }
}

fn bench(c: &mut Criterion) {
    let in_process = InProcess::new(war::War);
    let path = tabletop_sdk::conformance::built_plugin_path("war");
    let plugin = Plugin::load(&path).unwrap();
    let games: [(&str, &dyn DynGame); 2] =
        [("in_process", &in_process), ("plugin", plugin.as_ref())];
    let mut group = c.benchmark_group("war_random_playout");
    group.throughput(Throughput::Elements(1));
    group.measurement_time(Duration::from_secs(10));
    group.sample_size(20);
    for (name, game) in games {
        let mut seed = 0;
        group.bench_function(name, |b| {
            b.iter(|| {
                seed += 1;
                playout(game, seed)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
