//! The streams' metrics: Watch streams and lifecycle feeds open, the bytes
//! queued for their clients, and the streams cut or refused.

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use super::Metrics;

/// The streams' series.
#[derive(Debug, Default)]
pub(super) struct StreamMetrics {
    watch: Gauge,
    lifecycle: Gauge,
    buffered_bytes: Gauge,
    cut: Counter,
    refused: Counter,
}

impl StreamMetrics {
    /// Registers the series in `r`.
    pub(super) fn register(&self, r: &mut Registry) {
        r.register(
            "tabletop_watch_streams",
            "Open Watch streams (WatchMatch)",
            self.watch.clone(),
        );
        r.register(
            "tabletop_lifecycle_streams",
            "Open lifecycle feeds (FollowLifecycle)",
            self.lifecycle.clone(),
        );
        r.register(
            "tabletop_stream_buffered_bytes",
            "Bytes of messages queued for streams' clients (each stream at most --stream-buffer-bytes)",
            self.buffered_bytes.clone(),
        );
        r.register(
            "tabletop_streams_cut",
            "Streams cut because their client fell behind (STREAM_FELL_BEHIND)",
            self.cut.clone(),
        );
        r.register(
            "tabletop_streams_refused",
            "Streams refused by a stream cap (STREAM_LIMIT)",
            self.refused.clone(),
        );
    }
}

/// An open stream counted in a gauge until it is dropped.
#[derive(Debug)]
pub struct StreamGauge(&'static Gauge);

impl Drop for StreamGauge {
    fn drop(&mut self) {
        self.0.dec();
    }
}

impl Metrics {
    /// Counts an open Watch stream until the guard drops.
    pub fn watch_stream(&'static self) -> StreamGauge {
        self.streams.watch.inc();
        StreamGauge(&self.streams.watch)
    }

    /// Counts an open lifecycle feed until the guard drops.
    pub fn lifecycle_stream(&'static self) -> StreamGauge {
        self.streams.lifecycle.inc();
        StreamGauge(&self.streams.lifecycle)
    }

    /// `bytes` more (or, negative, fewer) queued for streams' clients.
    pub fn stream_buffered(&self, bytes: i64) {
        self.streams.buffered_bytes.inc_by(bytes);
    }

    /// A stream cut because its client fell behind.
    pub fn stream_cut(&self) {
        self.streams.cut.inc();
    }

    /// A stream refused by a cap.
    pub fn stream_refused(&self) {
        self.streams.refused.inc();
    }
}
