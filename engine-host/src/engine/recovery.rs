//! Restart recovery from the store, and clocks that run out with no request.

use std::sync::Arc;

use tabletop_core::{HostResult, Match, now_ms};
use tabletop_sdk::DynGame;

use super::{Engine, LiveMatch, Recovered, Unavailable, lifecycle, lock};
use crate::store::{Change, Commit, StoredMatch};

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
            let (setup, version, reason, stored) = match loaded {
                Ok(stored) => match self.restore(&stored) {
                    Ok(m) => {
                        let holds_pending = !stored.pending.is_empty();
                        self.install(m, holds_pending, stored.join_code_hashes.clone());
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
            report.unavailable.push((id.clone(), reason.clone()));
            self.unavailable
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .insert(
                    id,
                    Unavailable {
                        setup,
                        version,
                        reason,
                        stored,
                    },
                );
        }
        Ok(report)
    }

    /// Rebuilds one stored match, or says why it cannot be played here.
    pub(super) fn restore(&self, stored: &StoredMatch) -> Result<Match, String> {
        let setup = &stored.setup;
        let plugin = self
            .registry
            .get(&setup.game, Some(&setup.plugin_version))
            .ok_or_else(|| {
                let loaded = self.registry.versions(&setup.game);
                format!(
                    "it was created with {} {}, which is not loaded (loaded versions: {}); \
                     put that plugin file in the plugin directory to resume it",
                    setup.game,
                    setup.plugin_version,
                    if loaded.is_empty() {
                        "none".to_string()
                    } else {
                        loaded.join(", ")
                    }
                )
            })?;
        let game: Arc<dyn DynGame> = plugin;
        let mut m = Match::restore(
            game,
            setup.clone(),
            stored.seat_hashes.clone(),
            &stored.joins,
            &stored.log,
            &stored.pending,
        )
        .map_err(|e| format!("its stored log does not replay: {e}"))?;
        m.resume_clocks(now_ms());
        Ok(m)
    }

    /// Ends every match whose clock has run out (stored before it returns);
    /// returns how many ended. The host calls it on a timer, so a match ends
    /// when its time is up without waiting for a request.
    pub fn expire_clocks(&self) -> usize {
        let ids: Vec<String> = self
            .clocked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .cloned()
            .collect();
        let mut ended = 0;
        for id in ids {
            let Ok(slot) = self.slot(&id) else {
                self.clocked
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&id);
                continue;
            };
            let mut m = lock(&slot);
            let mut commit = Commit::done();
            let expired = self.expire_locked(&mut m, &mut commit);
            if !m.has_deadline() {
                self.clocked
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&id);
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

    /// Ends `m` if its clock ran out, and queues the timeout's write.
    pub(super) fn expire_locked(&self, m: &mut LiveMatch, commit: &mut Commit) -> HostResult<bool> {
        let before = m.version();
        let expired = m.expire_clock(now_ms())?;
        if expired {
            tracing::info!(match_id = %m.setup().match_id, "a clock ran out");
            commit.add(self.persist(m, before)?);
        }
        Ok(expired)
    }
}
