//! What a load phase measured, shared by the engine-host and echo drivers:
//! live counters for progress, a latency histogram, errors by status code.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use hdrhistogram::Histogram;
use serde::Serialize;

/// Counters updated by every worker of a phase.
#[derive(Debug, Default)]
pub struct Live {
    /// Successful actions (engine) or request pairs (echo).
    pub actions: AtomicU64,
    /// Matches played to the end.
    pub matches: AtomicU64,
    /// Every RPC sent, failed or not.
    pub rpcs: AtomicU64,
    /// Failed RPCs.
    pub errors: AtomicU64,
    errors_by_code: Mutex<BTreeMap<String, u64>>,
    histogram: Mutex<Option<Histogram<u64>>>,
}

impl Live {
    /// Counts a failed RPC under its status code.
    pub fn error(&self, status: &tonic::Status) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        let code = format!("{:?}", status.code());
        *self
            .errors_by_code
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(code)
            .or_default() += 1;
    }

    /// Adds a worker's latency histogram (microseconds).
    pub fn merge(&self, h: &Histogram<u64>) {
        let mut mine = self.histogram.lock().unwrap_or_else(|e| e.into_inner());
        match mine.as_mut() {
            Some(m) => {
                // Both come from `new_histogram`, so the bounds always fit.
                let _ = m.add(h);
            }
            None => *mine = Some(h.clone()),
        }
    }

    /// The final figures of a phase that ran for `elapsed`.
    pub fn summary(&self, name: &str, elapsed: Duration) -> Phase {
        let secs = elapsed.as_secs_f64().max(1e-9);
        let actions = self.actions.load(Ordering::Relaxed);
        let matches = self.matches.load(Ordering::Relaxed);
        let rpcs = self.rpcs.load(Ordering::Relaxed);
        let histogram = self.histogram.lock().unwrap_or_else(|e| e.into_inner());
        let latency = histogram.as_ref().map(Latency::of).unwrap_or_default();
        Phase {
            name: name.to_string(),
            seconds: secs,
            actions,
            matches,
            rpcs,
            actions_per_s: actions as f64 / secs,
            matches_per_s: matches as f64 / secs,
            rpcs_per_s: rpcs as f64 / secs,
            submit_latency_us: latency,
            errors: self
                .errors_by_code
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
            ..Phase::default()
        }
    }
}

impl Phase {
    /// Records the CPU both processes used during the phase, and the
    /// figures derived from it.
    pub fn set_cpu(&mut self, server_cpu_s: Option<f64>, client_cpu_s: Option<f64>) {
        self.server_cpu_s = server_cpu_s;
        self.client_cpu_s = client_cpu_s;
        let per_action = |cpu_s: Option<f64>| {
            cpu_s
                .filter(|_| self.actions > 0)
                .map(|s| s * 1e6 / self.actions as f64)
        };
        self.server_cpu_us_per_action = per_action(server_cpu_s);
        self.client_cpu_us_per_action = per_action(client_cpu_s);
        self.cores_busy = match (server_cpu_s, client_cpu_s) {
            (Some(server), Some(client)) if self.seconds > 0.0 => {
                Some((server + client) / self.seconds)
            }
            _ => None,
        };
    }

    /// Records the CPU the server's child processes (its plugin workers)
    /// used during the phase: already part of the server's CPU, shown apart.
    pub fn set_children_cpu(&mut self, children_cpu_s: Option<f64>) {
        self.server_children_cpu_s = children_cpu_s;
        self.server_children_cpu_us_per_action = children_cpu_s
            .filter(|_| self.actions > 0)
            .map(|s| s * 1e6 / self.actions as f64);
    }

    /// Server and client CPU microseconds per action together, if both are known.
    pub fn total_cpu_us_per_action(&self) -> Option<f64> {
        Some(self.server_cpu_us_per_action? + self.client_cpu_us_per_action?)
    }
}

/// A histogram of latencies in microseconds, 1 µs to 60 s, 3 significant digits.
pub fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 60_000_000, 3).expect("valid static bounds")
}

/// Records one latency, clamped into the histogram's range.
pub fn record(h: &mut Histogram<u64>, latency: Duration) {
    let us = (latency.as_micros() as u64).clamp(1, 60_000_000);
    h.saturating_record(us);
}

/// Latency percentiles in microseconds.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Latency {
    /// Samples.
    pub count: u64,
    /// Median.
    pub p50: u64,
    /// 90th percentile.
    pub p90: u64,
    /// 99th percentile.
    pub p99: u64,
    /// 99.9th percentile.
    pub p999: u64,
    /// Largest.
    pub max: u64,
    /// Mean.
    pub mean: f64,
}

impl Latency {
    /// The percentiles of `h`.
    pub fn of(h: &Histogram<u64>) -> Latency {
        Latency {
            count: h.len(),
            p50: h.value_at_quantile(0.50),
            p90: h.value_at_quantile(0.90),
            p99: h.value_at_quantile(0.99),
            p999: h.value_at_quantile(0.999),
            max: h.max(),
            mean: h.mean(),
        }
    }
}

/// Average encoded sizes of the calls of one action, which the echo baseline
/// reproduces.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Sizes {
    /// ListLegalActions request bytes.
    pub legal_request: u64,
    /// ListLegalActions response bytes.
    pub legal_response: u64,
    /// SubmitAction request bytes.
    pub submit_request: u64,
    /// SubmitAction response bytes.
    pub submit_response: u64,
}

impl Sizes {
    /// The running mean after `earlier` rounds averaged to `self` and one
    /// more that averaged to `next`.
    pub fn merged(&self, next: &Sizes, earlier: u32) -> Sizes {
        let mean = |a: u64, b: u64| (a * u64::from(earlier) + b) / (u64::from(earlier) + 1);
        Sizes {
            legal_request: mean(self.legal_request, next.legal_request),
            legal_response: mean(self.legal_response, next.legal_response),
            submit_request: mean(self.submit_request, next.submit_request),
            submit_response: mean(self.submit_response, next.submit_response),
        }
    }
}

/// One measured phase (a game against engine-host, or the echo baseline).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Phase {
    /// `engine-host <game>` or `echo <game sizes>`.
    pub name: String,
    /// Wall time measured.
    pub seconds: f64,
    /// Actions submitted (echo: SubmitAction-sized round trips).
    pub actions: u64,
    /// Matches played to the end (echo: 0).
    pub matches: u64,
    /// RPCs sent.
    pub rpcs: u64,
    /// Actions per second.
    pub actions_per_s: f64,
    /// Matches per second.
    pub matches_per_s: f64,
    /// RPCs per second.
    pub rpcs_per_s: f64,
    /// SubmitAction latency (echo: the SubmitAction-sized call).
    pub submit_latency_us: Latency,
    /// Failed RPCs by status code.
    pub errors: BTreeMap<String, u64>,
    /// Average payload sizes.
    pub sizes: Sizes,
    /// The server's peak resident memory (VmHWM), if known.
    pub server_peak_rss_bytes: Option<u64>,
    /// CPU seconds the server used during the phase, if known, its child
    /// processes (engine-host's plugin workers) included.
    pub server_cpu_s: Option<f64>,
    /// Of `server_cpu_s`, the server's child processes'.
    pub server_children_cpu_s: Option<f64>,
    /// CPU seconds this tool used during the phase.
    pub client_cpu_s: Option<f64>,
    /// Server CPU microseconds per action: unlike throughput, this does not
    /// depend on how much CPU a shared machine handed out.
    pub server_cpu_us_per_action: Option<f64>,
    /// Of `server_cpu_us_per_action`, the server's child processes'.
    pub server_children_cpu_us_per_action: Option<f64>,
    /// This tool's CPU microseconds per action: the players' side of the
    /// same work (encoding requests, decoding answers, HTTP/2).
    pub client_cpu_us_per_action: Option<f64>,
    /// Server and client CPU seconds per second of the phase: on a machine
    /// running both, how much of its cores the phase kept busy. A side that
    /// waits (for a disk flush, say) leaves cores idle that the other uses.
    pub cores_busy: Option<f64>,
    /// Watch streams held open during the phase.
    pub watch_streams: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_reports_rates_percentiles_and_codes() {
        let live = Live::default();
        live.actions.store(500, Ordering::Relaxed);
        live.matches.store(5, Ordering::Relaxed);
        live.rpcs.store(1000, Ordering::Relaxed);
        live.error(&tonic::Status::failed_precondition("stale"));
        live.error(&tonic::Status::failed_precondition("stale"));
        let mut h = new_histogram();
        for us in 1..=1000 {
            record(&mut h, Duration::from_micros(us));
        }
        live.merge(&h);
        live.merge(&h);
        let phase = live.summary("x", Duration::from_secs(2));
        assert_eq!(phase.actions_per_s, 250.0);
        assert_eq!(phase.matches_per_s, 2.5);
        assert_eq!(phase.errors.get("FailedPrecondition"), Some(&2));
        assert_eq!(phase.submit_latency_us.count, 2000);
        assert!((495..=505).contains(&phase.submit_latency_us.p50));
        assert!(phase.submit_latency_us.p999 >= 995);
    }

    #[test]
    fn cpu_figures_are_per_action_and_per_second_of_the_phase() {
        let live = Live::default();
        live.actions.store(4000, Ordering::Relaxed);
        let mut phase = live.summary("x", Duration::from_secs(2));
        phase.set_cpu(Some(0.2), Some(0.1));
        assert_eq!(phase.server_cpu_us_per_action, Some(50.0));
        assert_eq!(phase.client_cpu_us_per_action, Some(25.0));
        assert_eq!(phase.total_cpu_us_per_action(), Some(75.0));
        phase.set_children_cpu(Some(0.04));
        assert_eq!(phase.server_children_cpu_us_per_action, Some(10.0));
        let busy = phase.cores_busy.unwrap();
        assert!((busy - 0.15).abs() < 1e-9, "{busy}");
        // Without the server's pid nothing adds up to a total.
        phase.set_cpu(None, Some(0.1));
        assert_eq!(phase.total_cpu_us_per_action(), None);
        assert_eq!(phase.cores_busy, None);
        // A phase without actions has no per-action figures.
        let mut idle = Live::default().summary("y", Duration::from_secs(1));
        idle.set_cpu(Some(0.5), Some(0.5));
        assert_eq!(idle.server_cpu_us_per_action, None);
        assert_eq!(idle.cores_busy, Some(1.0));
    }
}
