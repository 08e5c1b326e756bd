//! Random playouts per second from the 2- and 4-player starts, in-process
//! (rlib) and through the plugin this build made (the cdylib, opened through
//! the SDK's import side): the shared loop of `tabletop-bench-support`, in
//! CPU time.

use criterion::{Criterion, criterion_group, criterion_main};
use focus::Focus;
use tabletop_bench_support::{Case, ThreadCpuTime, compare_playouts};

fn bench(c: &mut Criterion<ThreadCpuTime>) {
    compare_playouts(c, "focus", Focus, &[Case::players(2), Case::players(4)]);
}

criterion_group! {
    name = benches;
    config = tabletop_bench_support::criterion();
    targets = bench
}
criterion_main!(benches);
