//! Random playouts per second for 2 and 6 players, in-process and through the
//! loaded cdylib (the shared loop of `tabletop-bench-support`, in CPU time).

use criterion::{Criterion, criterion_group, criterion_main};
use lanzeloth::Lanzeloth;
use tabletop_bench_support::{Case, ThreadCpuTime, compare_playouts};

fn bench(c: &mut Criterion<ThreadCpuTime>) {
    compare_playouts(
        c,
        "lanzeloth",
        Lanzeloth,
        &[Case::players(2), Case::players(6)],
    );
}

criterion_group! {
    name = benches;
    config = tabletop_bench_support::criterion();
    targets = bench
}
criterion_main!(benches);
