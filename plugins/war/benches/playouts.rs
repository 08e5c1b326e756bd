//! Random playouts per second from a random setup (random placements, ruling
//! W3, then random moves to the end), in-process and through the loaded
//! cdylib: the shared loop of `tabletop-bench-support`, in CPU time.

use criterion::{Criterion, criterion_group, criterion_main};
use tabletop_bench_support::{Case, ThreadCpuTime, compare_playouts};

fn bench(c: &mut Criterion<ThreadCpuTime>) {
    compare_playouts(c, "war", war::War, &[Case::players(2)]);
}

criterion_group! {
    name = benches;
    config = tabletop_bench_support::criterion();
    targets = bench
}
criterion_main!(benches);
