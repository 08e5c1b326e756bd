//! The bench loop once on one path, for callgrind: see
//! `tabletop_bench_support::playout_count_main`.
//!
//! `cargo build --release -p lanza --examples`, then
//! `valgrind --tool=callgrind target/release/examples/lanza_playout_count PLAYERS in-process|plugin`.

fn main() {
    tabletop_bench_support::playout_count_main("lanza", lanza::Lanza);
}
