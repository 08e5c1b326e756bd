//! The playout benchmark every game plugin runs: the identical random-playout
//! loop (status, legal actions, pick, apply, every ply; chance drawn with
//! [`tabletop_sdk::chance::draw`]) on the game linked in-process and on the
//! cdylib the same build made ([`open_built_plugin`]), opened through the
//! SDK's import side, side by side.
//!
//! Time is the benchmark thread's CPU time ([`ThreadCpuTime`]), not wall time:
//! the machine this runs on has 2 cores shared with builds and other
//! benchmarks, and wall time there measures the neighbours as much as the
//! code. CPU time still includes cache and frequency effects.
//!
//! A game's `benches/playouts.rs` (the crate `my-game`, its game `MyGame`):
//!
//! ```ignore
//! use tabletop_bench_support::{Case, ThreadCpuTime, compare_playouts};
//!
//! fn bench(c: &mut criterion::Criterion<ThreadCpuTime>) {
//!     compare_playouts(c, "my-game", my_game::MyGame, &[Case::players(2), Case::players(4)]);
//! }
//!
//! criterion::criterion_group! {
//!     name = benches;
//!     config = tabletop_bench_support::criterion();
//!     targets = bench
//! }
//! criterion::criterion_main!(benches);
//! ```

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{Criterion, Throughput};
use tabletop_sdk::fingerprint::BuildFingerprint;
use tabletop_sdk::import::ImportedGame;
use tabletop_sdk::{ActionId, DynGame, Extended, InProcess, Move, Status, chance};

/// A criterion configured for playouts: CPU time, 20 samples of 5 s.
pub fn criterion() -> Criterion<ThreadCpuTime> {
    Criterion::default()
        .with_measurement(ThreadCpuTime)
        .sample_size(20)
        .measurement_time(Duration::from_secs(5))
}

/// One benchmark case: a player count and options.
#[derive(Debug, Clone)]
pub struct Case {
    /// Shown in the benchmark's name (`2p`, `4p teams`).
    pub label: String,
    /// Seats.
    pub players: u32,
    /// Raw options, as a client would send them.
    pub options: BTreeMap<String, String>,
}

impl Case {
    /// Default options for `players` seats.
    pub fn players(players: u32) -> Case {
        Case {
            label: format!("{players}p"),
            players,
            options: BTreeMap::new(),
        }
    }
}

/// Benchmarks random playouts of every case of `game` in-process and
/// through the plugin of crate `name` that the benchmark's own build made
/// ([`open_built_plugin`]; `cargo bench` builds the cdylib with the
/// benchmark). Groups are named `NAME playouts CASE`, with `in-process` and
/// `plugin` side by side.
pub fn compare_playouts<G: Extended>(
    c: &mut Criterion<ThreadCpuTime>,
    name: &str,
    game: G,
    cases: &[Case],
) {
    let in_process = InProcess::new(game);
    let plugin = open_built_plugin::<G>(name);
    let paths: [(&str, &dyn DynGame); 2] = [("in-process", &in_process), ("plugin", &plugin)];
    for case in cases {
        let mut group = c.benchmark_group(format!("{name} playouts {}", case.label));
        group.throughput(Throughput::Elements(SEEDS_PER_ITERATION));
        for (path, game) in paths {
            group.bench_function(path, |b| {
                b.iter(|| {
                    (1..=SEEDS_PER_ITERATION)
                        .map(|seed| {
                            black_box(random_playout(game, case.players, &case.options, seed))
                        })
                        .sum::<u64>()
                })
            });
        }
        group.finish();
    }
}

/// Playouts per measured iteration, always the same seeds: random games
/// differ in length by an order of magnitude, so both paths must play the
/// identical set of games, or the ratio measures the seeds.
pub const SEEDS_PER_ITERATION: u64 = 16;

/// Plays one random match to the end and returns the number of plies (joint
/// actions). On a simultaneous turn every mover picks, so the loop serves
/// every game. The picks come from a xorshift seeded by `seed`, identical on
/// both paths.
///
/// Each ply is one [`DynState::apply_and_lend_legal`](tabletop_sdk::DynState::apply_and_lend_legal):
/// it reports the new status and lends the first mover's legal actions, from
/// which that mover picks at once; further movers of a simultaneous turn, and
/// the first mover after a new state or a chance node, borrow theirs with
/// [`DynState::lend_legal_actions`](tabletop_sdk::DynState::lend_legal_actions).
/// Nothing is copied. Through a plugin (ABI 2.4; since 2.5 the answer comes
/// back in registers) that is one crossing per ply for a single mover;
/// in-process the same methods are the default apply, status and lend, so
/// both paths do the same work.
///
/// # Panics
/// If the game refuses a state, a legal action or a drawn chance outcome: a
/// benchmark has no better way to report a broken game.
pub fn random_playout(
    game: &dyn DynGame,
    players: u32,
    options: &BTreeMap<String, String>,
    seed: u64,
) -> u64 {
    let mut state = game.new_state(players, options, None).expect("a new state");
    let mut status = state.status().expect("status");
    let mut joint = Vec::with_capacity(players as usize);
    let mut pick = seed | 1;
    // The first mover's action, picked from the list the last ply lent.
    let mut first: Option<Move> = None;
    let mut chance_index = 0;
    let mut plies = 0;
    loop {
        match status {
            Status::Terminal => return plies,
            Status::Chance => {
                let node = state.chance().expect("chance");
                let outcome = chance::draw(&node, seed, chance_index).expect("a draw");
                chance_index += 1;
                state.apply_chance(outcome).expect("apply_chance");
                status = state.status().expect("status");
            }
            Status::ToMove(movers) => {
                joint.clear();
                for player in movers.iter() {
                    let action = match first.take() {
                        Some(picked) => picked.action,
                        None => {
                            pick_from(&mut pick, state.lend_legal_actions(player).expect("legal"))
                        }
                    };
                    joint.push(Move { player, action });
                }
                let (next, legal) = state.apply_and_lend_legal(&joint, None).expect("apply");
                if let Status::ToMove(movers) = next {
                    let player = movers.first().expect("a mover");
                    first = Some(Move {
                        player,
                        action: pick_from(&mut pick, legal),
                    });
                }
                status = next;
                plies += 1;
            }
        }
    }
}

/// The next xorshift draw of `pick` (nonzero, or it stays zero), as an
/// index into `legal`, which must not be empty: the playouts' random pick,
/// also used by tests that play seeded random matches.
#[inline]
pub fn pick_from(pick: &mut u64, legal: &[ActionId]) -> ActionId {
    *pick ^= *pick << 13;
    *pick ^= *pick >> 7;
    *pick ^= *pick << 17;
    legal[(*pick % legal.len() as u64) as usize]
}

/// The calling thread's CPU time, in nanoseconds (`CLOCK_THREAD_CPUTIME_ID`).
#[derive(Debug, Clone, Copy, Default)]
pub struct ThreadCpuTime;

fn thread_cpu_ns() -> u64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable timespec; the clock id is a constant
    // every Linux and macOS libc defines.
    let result = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    assert_eq!(result, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    now.tv_sec as u64 * 1_000_000_000 + now.tv_nsec as u64
}

impl Measurement for ThreadCpuTime {
    type Intermediate = u64;
    type Value = u64;

    fn start(&self) -> u64 {
        thread_cpu_ns()
    }

    fn end(&self, start: u64) -> u64 {
        thread_cpu_ns().saturating_sub(start)
    }

    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }

    fn zero(&self) -> u64 {
        0
    }

    fn to_f64(&self, value: &u64) -> f64 {
        *value as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        &CpuTimeFormatter
    }
}

/// Formats nanoseconds of CPU time like criterion's wall time.
struct CpuTimeFormatter;

impl ValueFormatter for CpuTimeFormatter {
    fn scale_values(&self, typical: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = if typical < 1e3 {
            (1.0, "ns")
        } else if typical < 1e6 {
            (1e-3, "µs")
        } else if typical < 1e9 {
            (1e-6, "ms")
        } else {
            (1e-9, "s")
        };
        values.iter_mut().for_each(|v| *v *= factor);
        unit
    }

    fn scale_throughputs(
        &self,
        typical: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        let per = match *throughput {
            Throughput::Elements(n) | Throughput::Bytes(n) | Throughput::BytesDecimal(n) => {
                n as f64
            }
        };
        // values are ns per iteration; turn them into elements per CPU second.
        values.iter_mut().for_each(|v| *v = per * 1e9 / *v);
        let typical = per * 1e9 / typical;
        let (factor, unit) = if typical < 1e3 {
            (1.0, "elem/cpu-s")
        } else if typical < 1e6 {
            (1e-3, "Kelem/cpu-s")
        } else {
            (1e-6, "Melem/cpu-s")
        };
        values.iter_mut().for_each(|v| *v *= factor);
        unit
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

/// The `main` of each game's `examples/GAME_playout_count.rs`: runs the bench loop
/// ([`random_playout`] over seeds 1..=[`SEEDS_PER_ITERATION`]) once, on one
/// path, for counting instructions with callgrind, which is exact and
/// repeatable on a shared, noisy machine (CPU time is not):
///
/// ```text
/// cargo build --release -p lanza --examples
/// valgrind --tool=callgrind --callgrind-out-file=/dev/null \
///     target/release/examples/lanza_playout_count 2 plugin
/// ```
///
/// Arguments: players, then `in-process` or `plugin`. A case's instruction
/// ratio is the in-process total divided by the plugin total (callgrind's
/// "Collected"); both include the same process start, and the plugin path
/// also its load, which are small next to 16 playouts.
///
/// # Panics
/// On bad arguments, or if the built plugin does not load.
pub fn playout_count_main<G: Extended>(name: &str, game: G) {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [players, path] = args.as_slice() else {
        panic!("usage: GAME_playout_count PLAYERS in-process|plugin");
    };
    let players: u32 = players.parse().expect("PLAYERS is a number");
    let in_process;
    let plugin;
    let game: &dyn DynGame = match path.as_str() {
        "in-process" => {
            in_process = InProcess::new(game);
            &in_process
        }
        "plugin" => {
            plugin = open_built_plugin::<G>(name);
            &plugin
        }
        other => panic!("unknown path {other}: in-process or plugin"),
    };
    let plies: u64 = (1..=SEEDS_PER_ITERATION)
        .map(|seed| random_playout(game, players, &BTreeMap::new(), seed))
        .sum();
    println!("{name} {players}p {path}: {plies} plies");
}

/// The plugin of crate `name` that the running program's own build made,
/// whose game is `G`: see [`tabletop_sdk::conformance::open_built_plugin`].
///
/// # Panics
/// When there is none, with the reason.
pub fn open_built_plugin<G: Extended>(name: &str) -> ImportedGame {
    tabletop_sdk::conformance::open_built_plugin(name, &BuildFingerprint::of::<G>())
        .unwrap_or_else(|e| panic!("{e}"))
}
