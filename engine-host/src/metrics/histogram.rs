//! A latency histogram with fixed buckets, recorded with atomics only: an
//! observation on the hot path is one bucket search and three relaxed adds,
//! with no lock, so calls on different cores never wait for each other.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

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

/// Durations in fixed buckets, their count and their sum.
#[derive(Debug, Default)]
pub struct Histogram {
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
        self.buckets[bucket].fetch_add(1, Ordering::Relaxed);
        self.sum_nanos.fetch_add(nanos, Ordering::Relaxed);
    }

    /// How many durations were recorded.
    pub fn count(&self) -> u64 {
        self.buckets.iter().map(|b| b.load(Ordering::Relaxed)).sum()
    }

    /// Writes the histogram's `_bucket`, `_sum` and `_count` lines for
    /// `name` with `labels` (already formatted, `key="value",…`, or empty).
    pub fn render(&self, out: &mut String, name: &str, labels: &str) {
        let separator = if labels.is_empty() { "" } else { "," };
        let mut cumulative = 0;
        for (bound, bucket) in BOUNDS_SECONDS.iter().zip(&self.buckets) {
            cumulative += bucket.load(Ordering::Relaxed);
            let _ = writeln!(
                out,
                "{name}_bucket{{{labels}{separator}le=\"{bound}\"}} {cumulative}"
            );
        }
        cumulative += self.buckets[BOUNDS_NANOS.len()].load(Ordering::Relaxed);
        let _ = writeln!(
            out,
            "{name}_bucket{{{labels}{separator}le=\"+Inf\"}} {cumulative}"
        );
        let sum = self.sum_nanos.load(Ordering::Relaxed) as f64 / 1e9;
        let braces = if labels.is_empty() {
            String::new()
        } else {
            format!("{{{labels}}}")
        };
        let _ = writeln!(out, "{name}_sum{braces} {sum}");
        let _ = writeln!(out, "{name}_count{braces} {cumulative}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_cumulative_and_the_count_and_sum_add_up() {
        let h = Histogram::default();
        h.observe(Duration::from_micros(10));
        h.observe(Duration::from_micros(50));
        h.observe(Duration::from_millis(3));
        h.observe(Duration::from_secs(60));
        assert_eq!(h.count(), 4);
        let mut out = String::new();
        h.render(&mut out, "t_seconds", "method=\"M\"");
        assert!(
            out.contains("t_seconds_bucket{method=\"M\",le=\"0.00005\"} 2\n"),
            "{out}"
        );
        assert!(
            out.contains("t_seconds_bucket{method=\"M\",le=\"0.0025\"} 2\n"),
            "{out}"
        );
        assert!(
            out.contains("t_seconds_bucket{method=\"M\",le=\"0.005\"} 3\n"),
            "{out}"
        );
        assert!(
            out.contains("t_seconds_bucket{method=\"M\",le=\"10\"} 3\n"),
            "{out}"
        );
        assert!(
            out.contains("t_seconds_bucket{method=\"M\",le=\"+Inf\"} 4\n"),
            "{out}"
        );
        assert!(out.contains("t_seconds_count{method=\"M\"} 4\n"), "{out}");
        assert!(
            out.contains("t_seconds_sum{method=\"M\"} 60.00306\n"),
            "{out}"
        );
    }

    #[test]
    fn a_histogram_without_labels_renders_bare_names() {
        let h = Histogram::default();
        h.observe(Duration::from_millis(1));
        let mut out = String::new();
        h.render(&mut out, "x", "");
        assert!(out.contains("x_bucket{le=\"0.001\"} 1\n"), "{out}");
        assert!(out.contains("x_count 1\n"), "{out}");
    }
}
