//! Random playouts per second from a random setup (random placements, ruling
//! W3, then random moves to the end), in-process and through the loaded
//! cdylib: the shared loop of `tabletop-bench-support`, in CPU time.
//!
//! Build the plugin first: `cargo build --release -p war`.

use criterion::{Criterion, criterion_group, criterion_main};
use tabletop_bench_support::{Case, ThreadCpuTime, compare_playouts};
use tabletop_sdk::InProcess;

fn bench(c: &mut Criterion<ThreadCpuTime>) {
    let game = InProcess::new(war::War);
    compare_playouts(c, "war", &game, &[Case::players(2)]);
}

criterion_group! {
    name = benches;
    config = tabletop_bench_support::criterion();
    targets = bench
}
criterion_main!(benches);
