//! The bench loop once on one path, for callgrind: see
//! `tabletop_bench_support::playout_count_main`.
//!
//! `cargo build --release -p lanzeloth --examples`, then
//! `valgrind --tool=callgrind target/release/examples/lanzeloth_playout_count PLAYERS in-process|plugin`.

fn main() {
    tabletop_bench_support::playout_count_main("lanzeloth", lanzeloth::Lanzeloth);
}
