//! Controls over a stored match that is not live here: one the host cannot
//! replay (its plugin is absent, its replay faulted) or must not (the host
//! died in one of its trusted plugin's calls). Such a match can still be
//! quarantined, aborted and adjudicated: the control's log entry is
//! appended to what the store holds, with its lifecycle row, and no plugin
//! is called.

use tabletop_core::director::MAX_ABORT_REASON;
use tabletop_core::{
    HostError, HostResult, Lifecycle, LogEntry, LogKind, MatchView, SeatResult, now_ms,
};

use super::Engine;
use crate::store::{Change, LifecycleEvent, LifecycleKind, StoredMatch};

/// Why a stored match stands quarantined, if its log says so: the reason of
/// its last quarantine, when no release followed.
pub(super) fn quarantined_in(log: &[LogEntry]) -> Option<&str> {
    for entry in log.iter().rev() {
        match &entry.kind {
            LogKind::Quarantine { reason } => return Some(reason),
            LogKind::Release { .. } => return None,
            _ => {}
        }
    }
    None
}

impl Engine {
    /// Appends `kind` to the stored match `stored` (not live here) with the
    /// lifecycle row `event`; `results` end it (an abort ends it with none
    /// when `ends`). Returns the stored match as it is after.
    pub(super) fn append_dormant(
        &self,
        mut stored: StoredMatch,
        kind: LogKind,
        event: LifecycleKind,
        ends: Option<Vec<SeatResult>>,
    ) -> HostResult<StoredMatch> {
        let at_ms = now_ms();
        let entry = LogEntry {
            version: stored.log.len() as u64 + 1,
            at_ms,
            kind,
        };
        stored.log.push(entry.clone());
        let setup = &stored.setup;
        let row = LifecycleEvent {
            match_id: setup.match_id.clone(),
            at_ms,
            game: setup.game.clone(),
            labels: setup.labels.clone(),
            tenant: setup.tenant.clone(),
            kind: event,
        };
        let results = ends.clone().unwrap_or_default();
        let change = Change {
            entries: std::slice::from_ref(&entry),
            pending: ends.as_ref().map(|_| &[][..]),
            results: &results,
            lifecycle: std::slice::from_ref(&row),
            finished_log: ends.as_ref().map(|_| stored.log.as_slice()),
        };
        self.store.append(&setup.match_id, &change)?.wait()?;
        if let Some(results) = ends {
            stored.results = results;
            stored.pending.clear();
        }
        Ok(stored)
    }

    /// Quarantines the stored match `match_id` without replaying it: the
    /// host died in one of its calls (see [`crate::crash_note`]). Recovery
    /// then lists it as unavailable, quarantined, and never calls its plugin.
    /// Answers the match as the store holds it now (a control applied to it
    /// later adds the next entry).
    pub(super) fn quarantine_dormant(
        &self,
        match_id: &str,
        reason: &str,
    ) -> HostResult<StoredMatch> {
        let Some(stored) = self.store.load(match_id)? else {
            return Err(HostError::UnknownMatch {
                match_id: match_id.to_string(),
            });
        };
        if !stored.results.is_empty() || quarantined_in(&stored.log).is_some() {
            return Ok(stored);
        }
        self.append_dormant(
            stored,
            LogKind::Quarantine {
                reason: reason.to_string(),
            },
            LifecycleKind::Quarantined {
                reason: reason.to_string(),
            },
            None,
        )
    }
}

impl Engine {
    /// Aborts a stored match that is not live here (unavailable, or held
    /// back after the host died in it): the abort is added to what the
    /// store holds, and no plugin is called. Answers the view a person can
    /// be given without the plugin: the host's part of the match.
    pub(super) fn abort_dormant(&self, match_id: &str, reason: &str) -> HostResult<MatchView> {
        if reason.len() > MAX_ABORT_REASON {
            return Err(HostError::InvalidRequest(format!(
                "an abort's reason is at most {MAX_ABORT_REASON} bytes, not {}",
                reason.len()
            )));
        }
        let stored = match self.unavailable.take(match_id) {
            Some(Some(stored)) => stored,
            Some(None) => {
                return Err(HostError::MatchUnavailable {
                    match_id: match_id.to_string(),
                    reason: "its stored data does not read back".into(),
                });
            }
            None => self
                .store
                .load(match_id)?
                .ok_or_else(|| HostError::UnknownMatch {
                    match_id: match_id.to_string(),
                })?,
        };
        let stored = self.append_dormant(
            stored,
            LogKind::Abort {
                reason: reason.to_string(),
            },
            LifecycleKind::Aborted {
                reason: reason.to_string(),
            },
            Some(Vec::new()),
        )?;
        tracing::info!(match_id, "a match not live here aborted");
        let setup = &stored.setup;
        Ok(MatchView {
            match_id: setup.match_id.clone(),
            game: setup.game.clone(),
            plugin_version: setup.plugin_version.clone(),
            plugin_sha256: setup.plugin_sha256.clone().unwrap_or_default(),
            version: stored.log.len() as u64,
            lifecycle: Lifecycle::Finished,
            viewer_seat: None,
            view_json: String::new(),
            text: format!("aborted: {reason}"),
            to_move: Vec::new(),
            seats: Vec::new(),
            results: Vec::new(),
            pending_action: None,
            labels: setup.labels.clone(),
            paused: false,
            quarantine_reason: None,
            abort_reason: Some(reason.to_string()),
            adjudicated: false,
            open_seat_deadline_ms: None,
            spectator_delay: None,
            delayed: false,
            position: None,
            svg: None,
        })
    }
}
