//! A latency histogram with fixed buckets, recorded with atomics only: an
//! observation on the hot path is one bucket search and two relaxed adds,
//! with no lock, so calls on different cores never wait for each other.
//!
//! `prometheus_client`'s own histogram takes a write lock per observation,
//! so this one stays; it is encoded through `prometheus_client` like any
//! other metric ([`EncodeMetric`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use prometheus_client::encoding::{EncodeMetric, MetricEncoder, NoLabelSet};
use prometheus_client::metrics::{MetricType, TypedMetric};

/// Upper bounds of the buckets, in seconds: 50 µs to 10 s, the range from
/// an inline submit to a call at its deadline.
pub const BOUNDS_SECONDS: [f64; 17] = [
    0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
    1.0, 2.5, 5.0, 10.0,
];

/// The bounds in nanoseconds, for the comparison an observation makes.
const BOUNDS_NANOS: [u64; 17] = [
    50_000,
    100_000,
    250_000,
    500_000,
    1_000_000,
    2_500_000,
    5_000_000,
    10_000_000,
    25_000_000,
    50_000_000,
    100_000_000,
    250_000_000,
    500_000_000,
    1_000_000_000,
    2_500_000_000,
    5_000_000_000,
    10_000_000_000,
];

/// Durations in fixed buckets, their count and their sum. Clones share the
/// same counts (one held where things are timed, one by the registry).
#[derive(Debug, Default, Clone)]
pub struct Histogram {
    counts: Arc<Counts>,
}

#[derive(Debug, Default)]
struct Counts {
    /// Observations per bucket (not cumulative); the last is above every
    /// bound.
    buckets: [AtomicU64; BOUNDS_NANOS.len() + 1],
    sum_nanos: AtomicU64,
}

impl Histogram {
    /// Records one duration.
    pub fn observe(&self, duration: Duration) {
        let nanos = u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX);
        let bucket = BOUNDS_NANOS
            .iter()
            .position(|&bound| nanos <= bound)
            .unwrap_or(BOUNDS_NANOS.len());
        self.counts.buckets[bucket].fetch_add(1, Ordering::Relaxed);
        self.counts.sum_nanos.fetch_add(nanos, Ordering::Relaxed);
    }

    /// How many durations were recorded.
    pub fn count(&self) -> u64 {
        self.counts
            .buckets
            .iter()
            .map(|b| b.load(Ordering::Relaxed))
            .sum()
    }
}

impl TypedMetric for Histogram {
    const TYPE: MetricType = MetricType::Histogram;
}

impl EncodeMetric for Histogram {
    fn encode(&self, mut encoder: MetricEncoder<'_>) -> Result<(), std::fmt::Error> {
        // Each bucket loaded once, so the count is the buckets' total.
        let mut bounded = [(0.0, 0); BOUNDS_SECONDS.len()];
        for ((slot, bound), bucket) in bounded
            .iter_mut()
            .zip(BOUNDS_SECONDS)
            .zip(&self.counts.buckets)
        {
            *slot = (bound, bucket.load(Ordering::Relaxed));
        }
        let above = self.counts.buckets[BOUNDS_NANOS.len()].load(Ordering::Relaxed);
        let count = bounded.iter().map(|&(_, n)| n).sum::<u64>() + above;
        let sum = self.counts.sum_nanos.load(Ordering::Relaxed) as f64 / 1e9;
        encoder.encode_histogram::<NoLabelSet>(sum, count, &bounded, None)
    }

    fn metric_type(&self) -> MetricType {
        MetricType::Histogram
    }
}

#[cfg(test)]
mod tests {
    use prometheus_client::encoding::prometheus_text;
    use prometheus_client::registry::Registry;

    use super::*;

    fn text(name: &str, histogram: &Histogram) -> String {
        let mut registry = Registry::default();
        registry.register(name, "Test", histogram.clone());
        let mut out = String::new();
        prometheus_text::encode(&mut out, &registry).unwrap();
        out
    }

    #[test]
    fn buckets_are_cumulative_and_the_count_and_sum_add_up() {
        let h = Histogram::default();
        h.observe(Duration::from_micros(10));
        h.observe(Duration::from_micros(50));
        h.observe(Duration::from_millis(3));
        h.observe(Duration::from_secs(60));
        assert_eq!(h.count(), 4);
        let out = text("t_seconds", &h);
        for line in [
            "# TYPE t_seconds histogram",
            "t_seconds_bucket{le=\"5e-05\"} 2",
            "t_seconds_bucket{le=\"0.0025\"} 2",
            "t_seconds_bucket{le=\"0.005\"} 3",
            "t_seconds_bucket{le=\"10\"} 3",
            "t_seconds_bucket{le=\"+Inf\"} 4",
            "t_seconds_count 4",
            "t_seconds_sum 60.00306",
        ] {
            assert!(out.lines().any(|l| l == line), "no `{line}` in\n{out}");
        }
    }

    #[test]
    fn a_clone_counts_into_the_same_buckets() {
        let h = Histogram::default();
        h.clone().observe(Duration::from_millis(1));
        assert_eq!(h.count(), 1);
        assert!(
            text("x", &h).contains("x_bucket{le=\"0.001\"} 1\n"),
            "{}",
            text("x", &h)
        );
    }
}
