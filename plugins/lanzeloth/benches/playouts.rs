//! Random playouts per second for 2 and 6 players, in-process and through the
//! loaded cdylib (the shared loop of `tabletop-bench-support`, in CPU time).
//! Build the plugin first: `cargo build --release -p lanzeloth`.

use criterion::{Criterion, criterion_group, criterion_main};
use lanzeloth::Lanzeloth;
use tabletop_bench_support::{Case, ThreadCpuTime, compare_playouts};
use tabletop_sdk::InProcess;

fn bench(c: &mut Criterion<ThreadCpuTime>) {
    let game = InProcess::new(Lanzeloth);
    compare_playouts(c, "lanzeloth", &game, &[Case::players(2), Case::players(6)]);
}

criterion_group! {
    name = benches;
    config = tabletop_bench_support::criterion();
    targets = bench
}
criterion_main!(benches);
