//! The engine's calls at restart and on the clock thread: recovery from
//! the store, and clocks that run out with no request.

use tabletop_core::{HostError, HostResult, now_ms};

use super::live::lock;
use super::{Engine, Recovered, cluster, dormant, lifecycle};
use crate::store::{Change, Commit};

impl Engine {
    /// Restart recovery: rebuilds every stored match not finished (a
    /// finished one is read back when asked for) by replaying its log
    /// through the plugin version it was created with. A match whose version
    /// is not loaded, whose log no longer replays, or whose stored data does
    /// not read back (a damaged row) is listed as unavailable with the
    /// reason, and logged with its id; the others load regardless.
    pub fn recover(&self) -> HostResult<Recovered> {
        let mut report = Recovered::default();
        for loaded in self.store.load_unfinished()? {
            // On a store several hosts share, a live host may hold it.
            // (A match its holders kept dying in is held back: quarantined,
            // not replayed.)
            let loaded = match loaded {
                Ok(stored) => match self.claim(&stored.setup.match_id) {
                    Ok(cluster::Suspect::No) => Ok(stored),
                    Ok(cluster::Suspect::Quarantined {
                        stored: quarantined,
                        ..
                    }) => Ok(quarantined.map_or(stored, |quarantined| *quarantined)),
                    Err(HostError::MatchMoved { .. }) => continue,
                    Err(e) => return Err(e),
                },
                Err(damaged) => Err(damaged),
            };
            let (setup, version, reason, stored) = match loaded {
                // The host died in one of its plugin's calls: not replayed.
                Ok(stored) if self.unavailable.is_held_back(&stored.setup.match_id) => (
                    stored.setup.clone(),
                    stored.log.len() as u64,
                    format!(
                        "quarantined: {}",
                        dormant::quarantined_in(&stored.log).unwrap_or("the host died in it")
                    ),
                    Some(stored),
                ),
                Ok(stored) => match self.catalog.restore(&stored) {
                    Ok(m) => {
                        self.install_stored(m, stored);
                        report.restored += 1;
                        continue;
                    }
                    Err(reason) => (
                        stored.setup.clone(),
                        stored.log.len() as u64,
                        reason,
                        Some(stored),
                    ),
                },
                Err(damaged) => (damaged.setup(), 0, damaged.reason, None),
            };
            let id = setup.match_id.clone();
            tracing::warn!(match_id = %id, %reason, "match unavailable");
            // The feed says so at every start that finds it so.
            let row = lifecycle::unavailable(&setup, &reason, now_ms());
            let change = Change {
                lifecycle: std::slice::from_ref(&row),
                ..Change::default()
            };
            if let Err(e) = self.store.append(&id, &change).and_then(Commit::wait) {
                tracing::error!(match_id = %id, error = %e, "cannot record the match as unavailable");
            }
            // Another host with the plugin build may play it.
            self.release(&id);
            report.unavailable.push((id, reason.clone()));
            self.unavailable.insert(setup, version, reason, stored);
        }
        Ok(report)
    }

    /// Retries the unavailable matches of a game version just added: each
    /// that now restores is made live.
    pub(super) fn retry_unavailable(&self, game: &str, version: &str) {
        for stored in self.unavailable.stored_of(game, version) {
            if self.unavailable.is_held_back(&stored.setup.match_id) {
                continue;
            }
            if let Ok(m) = self.catalog.restore(&stored) {
                let id = stored.setup.match_id.clone();
                self.install_stored(m, stored);
                self.unavailable.remove(&id);
                tracing::info!(match_id = %id, "match available again");
            }
        }
    }

    /// Ends every match whose clock has run out (stored before it returns);
    /// returns how many ended. The host calls it on a timer, so a match ends
    /// when its time is up without waiting for a request.
    pub fn expire_clocks(&self) -> usize {
        let mut ended = 0;
        for id in self.table.clocked() {
            let Ok(slot) = self.slot(&id) else {
                self.table.stop_clock(&id);
                continue;
            };
            let mut m = lock(&slot);
            let mut commit = Commit::done();
            let expired = self.expire_locked(&mut m, &mut commit);
            if !m.has_deadline() {
                self.table.stop_clock(&id);
            }
            drop(m);
            match expired.and_then(|expired| commit.wait().map(|()| expired)) {
                Ok(true) => ended += 1,
                Ok(false) => {}
                Err(e) => tracing::error!(match_id = %id, error = %e, "clock expiry failed"),
            }
        }
        ended
    }
}
