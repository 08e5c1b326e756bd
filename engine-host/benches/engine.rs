//! The host core's cost without gRPC, per game: one action through
//! `Engine::legal_actions` + `Engine::submit` with the in-memory store (new
//! matches are created as old ones end, so creation is amortised in), on a
//! fresh engine and again once it holds [`HELD_MATCHES`] idle matches; and the
//! cost of a view as JSON and as text, through the loaded plugin and through
//! `Engine::view` (which builds both plus the seat list).
//!
//! Subtract a game's per-ply playout time (`cargo bench -p <game>`, plugin
//! path) from the per-action figure here to get what the host adds per action.
//!
//! Run: `cargo build --release -p focus -p lanza -p lanzeloth -p war` (the
//! plugins must sit in target/release), then `cargo bench -p engine-host`.

use std::collections::{BTreeMap, VecDeque};
use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use engine_host::engine::{ActionRef, Caller, Engine, NewMatch};
use engine_host::store::MemoryStore;
use rand_xoshiro::SplitMix64;
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use tabletop_core::legal::LegalDetail;
use tabletop_core::{Lifecycle, ViewDetail};
use tabletop_sdk::{DynGame, Move, Status, Viewer, chance};

/// target/<profile>: the bench binary lives in target/<profile>/deps.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the bench binary knows its path");
    exe.parent()
        .and_then(|deps| deps.parent())
        .expect("the bench binary lives in target/<profile>/deps")
        .to_path_buf()
}

/// Idle matches an engine holds in the "held" benchmarks. A server that has
/// run for a while holds many (finished matches stay queryable), and every
/// request finds its own among them: the per-action cost must not grow with
/// their number.
const HELD_MATCHES: usize = 100_000;

fn engine() -> Engine {
    let cache = std::env::temp_dir().join(format!("engine-host-bench-{}", std::process::id()));
    let engine = Engine::new(Arc::new(MemoryStore::default()), "bench-admin", cache);
    let dir = profile_dir();
    engine.load_plugin_dir(&dir);
    assert!(
        !engine.list_games().is_empty(),
        "no game plugins in {}: build them first (cargo build --release -p focus -p lanza \
         -p lanzeloth -p war)",
        dir.display()
    );
    engine
}

/// A stream of random legal actions through the engine, match after match.
struct Player<'a> {
    engine: &'a Engine,
    game: String,
    players: u32,
    rng: SplitMix64,
    match_id: String,
    tokens: Vec<String>,
    to_move: VecDeque<u32>,
}

impl Player<'_> {
    fn new_match(&mut self) {
        let created = self
            .engine
            .create_match(
                &Caller::Anonymous,
                NewMatch {
                    game: self.game.clone(),
                    players: self.players,
                    seed: Some(self.rng.next_u64()),
                    ..Default::default()
                },
            )
            .expect("create");
        self.match_id = created.match_id;
        self.tokens = vec![String::new(); self.players as usize];
        for (seat, token) in created.tokens {
            self.tokens[seat as usize] = token;
        }
        self.to_move = created.view.to_move.into_iter().collect();
    }

    /// Legal actions and one submit (a new match first when needed).
    fn act(&mut self) {
        let seat = loop {
            match self.to_move.pop_front() {
                Some(seat) => break seat,
                None => self.new_match(),
            }
        };
        let token = &self.tokens[seat as usize];
        let (version, _, legal, _) = self
            .engine
            .legal_actions(&self.match_id, token, LegalDetail::Full)
            .expect("legal actions");
        if legal.is_empty() {
            return;
        }
        let (id, _) = legal[(self.rng.next_u64() % legal.len() as u64) as usize];
        let (view, pending) = self
            .engine
            .submit(
                &self.match_id,
                token,
                &ActionRef::Id(id),
                Some(version),
                ViewDetail::Full,
            )
            .expect("submit");
        if view.lifecycle == Lifecycle::Finished {
            self.to_move.clear();
        } else if !pending || self.to_move.is_empty() {
            self.to_move = view.to_move.into_iter().collect();
        }
    }
}

/// A state some random plies into a game, for the view benchmarks.
fn mid_game(game: &dyn DynGame, players: u32, plies: usize) -> Box<dyn tabletop_sdk::DynState> {
    let mut state = game
        .new_state(players, &BTreeMap::new(), None)
        .expect("start");
    let mut rng = SplitMix64::seed_from_u64(7);
    let mut legal = Vec::new();
    let mut chance_index = 0;
    let mut applied = 0;
    while applied < plies {
        match state.status().expect("status") {
            Status::Terminal => break,
            Status::Chance => {
                let node = state.chance().expect("chance");
                let outcome = chance::draw(&node, 7, chance_index).expect("draw");
                chance_index += 1;
                state.apply_chance(outcome).expect("apply chance");
            }
            Status::ToMove(movers) => {
                let moves: Vec<Move> = movers
                    .iter()
                    .map(|player| {
                        state.legal_actions(player, &mut legal).expect("legal");
                        let action = legal[(rng.next_u64() % legal.len() as u64) as usize];
                        Move { player, action }
                    })
                    .collect();
                state.apply(&moves).expect("apply");
                applied += 1;
            }
        }
    }
    state
}

fn bench(c: &mut Criterion) {
    // The engine that lists the games is dropped here: a temporary in the
    // `for` expression would live through the loop beside each game's own,
    // on the same plugin cache directory.
    let games = engine().list_games();
    for entry in games {
        // A fresh engine per game, so that no game's figures depend on the
        // matches the games before it left behind.
        let engine = engine();
        let name = entry.manifest.name.clone();
        let players = entry.manifest.min_players;
        let mut group = c.benchmark_group(format!("engine {name} {players}p"));
        group.measurement_time(Duration::from_secs(5));
        group.throughput(Throughput::Elements(1));
        let mut player = Player {
            engine: &engine,
            game: name.clone(),
            players,
            rng: SplitMix64::seed_from_u64(1),
            match_id: String::new(),
            tokens: Vec::new(),
            to_move: VecDeque::new(),
        };
        group.bench_function("action (legal + submit)", |b| b.iter(|| player.act()));
        for _ in 0..HELD_MATCHES {
            engine
                .create_match(
                    &Caller::Anonymous,
                    NewMatch {
                        game: name.clone(),
                        players,
                        ..Default::default()
                    },
                )
                .expect("create an idle match");
        }
        group.bench_function(
            format!("action (legal + submit), {HELD_MATCHES} matches held"),
            |b| b.iter(|| player.act()),
        );

        let plugin = engine.registry().get(&name, None).expect("loaded");
        let state = mid_game(plugin.as_ref(), players, 20);
        group.bench_function("view json (plugin)", |b| {
            b.iter(|| black_box(state.view(Viewer::Seat(0)).expect("view")))
        });
        group.bench_function("view text (plugin)", |b| {
            b.iter(|| black_box(state.render_text(Viewer::Seat(0)).expect("text")))
        });
        // Engine::view of a running match: JSON + text + seats, under the lock.
        player.new_match();
        for _ in 0..20 {
            player.act();
        }
        let (match_id, token) = (player.match_id.clone(), player.tokens[0].clone());
        group.bench_function("Engine::view (json + text)", |b| {
            b.iter(|| {
                black_box(
                    engine
                        .view(&match_id, &token, ViewDetail::Full)
                        .expect("view"),
                )
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
