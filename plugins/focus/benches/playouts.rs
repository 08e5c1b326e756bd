//! Random playouts per second from the 2- and 4-player starts, in-process
//! (rlib) and through the built plugin (cdylib via engine-host's loader): the
//! shared loop of `tabletop-bench-support`, in CPU time.
//!
//! Build the plugin first: `cargo build --release -p focus`.

use criterion::{Criterion, criterion_group, criterion_main};
use focus::Focus;
use tabletop_bench_support::{Case, ThreadCpuTime, compare_playouts};
use tabletop_sdk::InProcess;

fn bench(c: &mut Criterion<ThreadCpuTime>) {
    let game = InProcess::new(Focus);
    compare_playouts(c, "focus", &game, &[Case::players(2), Case::players(4)]);
}

criterion_group! {
    name = benches;
    config = tabletop_bench_support::criterion();
    targets = bench
}
criterion_main!(benches);
