//! The bot pool's metrics: the searches running and waiting for a slot,
//! and how long each waited, by kind of creator (a label per credential
//! would grow with every credential issued; the kinds stay four).

use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use super::{Histogram, Metrics};

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct CreatorLabels {
    creator: &'static str,
}

/// The bot pool's series.
#[derive(Debug, Default)]
pub(super) struct BotMetrics {
    running: Gauge,
    queued: Gauge,
    waits: Family<CreatorLabels, Histogram>,
}

impl BotMetrics {
    /// Registers the series in `r`, after the bots' search metrics.
    pub(super) fn register(&self, r: &mut Registry) {
        r.register(
            "tabletop_bot_searches_running",
            "Bot moves being made now (searching, or waiting for a plugin worker's search), at most --bot-threads",
            self.running.clone(),
        );
        r.register(
            "tabletop_bot_searches_queued",
            "Matches whose bot must move, waiting for a search slot",
            self.queued.clone(),
        );
        r.register(
            "tabletop_bot_search_wait_seconds",
            "Time a match whose bot must move waited for a search slot, by kind of creator (anonymous, admin, credential, unrecorded)",
            self.waits.clone(),
        );
    }
}

impl Metrics {
    /// `running` bot moves are being made.
    pub fn bot_searches_running(&self, running: usize) {
        self.bots
            .running
            .set(i64::try_from(running).unwrap_or(i64::MAX));
    }

    /// `queued` matches wait for a search slot.
    pub fn bot_searches_queued(&self, queued: usize) {
        self.bots
            .queued
            .set(i64::try_from(queued).unwrap_or(i64::MAX));
    }

    /// A match of a creator of kind `creator` waited `waited` for its slot.
    pub fn bot_search_waited(&self, creator: &'static str, waited: Duration) {
        self.bots
            .waits
            .get_or_create(&CreatorLabels { creator })
            .observe(waited);
    }
}
