//! The engine's calls for a tournament director (organizers and the
//! admin): the controls over one match, and the lifecycle feed of every
//! match. And a match's quarantine: the host's own control over a match
//! whose plugin's worker died in one of its calls, and the admin's lifting
//! of it.

use tabletop_core::{HostError, HostResult, MatchView, PluginBuild, ViewDetail, now_ms};
use tabletop_sdk::{DynGame, Viewer};

use super::access::{Caller, Need};
use super::live::{LiveMatch, lock};
use super::table::Slot;
use super::{Control, Engine, dormant};
use crate::store::{Commit, LifecycleRow};

impl Engine {
    /// Applies a director's control to a match (organizers and the
    /// admin); stored, and told to watchers and the lifecycle feed, before
    /// this returns the spectator's view after it.
    pub fn direct(
        &self,
        caller: &Caller,
        match_id: &str,
        control: Control,
    ) -> HostResult<MatchView> {
        const WHAT: &str = "a director's control";
        caller.require(Need::Organizer, WHAT)?;
        let slot = match (self.slot(match_id), &control) {
            // A match not live here (its plugin absent, its replay faulted,
            // the host died in it) can still be ended.
            (Err(HostError::MatchUnavailable { .. }), Control::Abort { reason }) => {
                caller.require_tenant(Need::Organizer, WHAT, &self.dormant_tenant(match_id)?)?;
                return self.abort_dormant(match_id, reason);
            }
            (slot, _) => slot?,
        };
        let mut m = lock(&slot);
        caller.require_tenant(Need::Organizer, WHAT, &m.setup().tenant)?;
        let before = m.version();
        let now = now_ms();
        match control {
            Control::Abort { reason } => m.abort(&reason, now)?,
            Control::Adjudicate { results } => m.adjudicate(results, now)?,
            Control::Pause => m.pause(now)?,
            Control::Resume => m.resume(now)?,
            Control::AddTime { seat, ms } => m.add_time(seat, ms, now)?,
        }
        let commit = self.persist(&mut m, before)?;
        m.refresh_kept_legal_actions();
        // The director holds the admin token: the spectator delay is not
        // for them, and a control's answer must show what it did.
        let view = m.undelayed_view(Viewer::Spectator, ViewDetail::Full);
        drop(m);
        self.settle(match_id, commit)?;
        tracing::info!(match_id, version = before + 1, "director's control applied");
        view
    }

    /// Quarantines the match `match_id` for `reason` (the host does, when
    /// the plugin's worker died in one of the match's calls): see
    /// `Match::quarantine`. Stored, and told to watchers and the lifecycle
    /// feed, before this returns. Refused for a match already quarantined
    /// or finished.
    pub fn quarantine(&self, match_id: &str, reason: &str) -> HostResult<()> {
        let slot = self.slot(match_id)?;
        let mut m = lock(&slot);
        let commit = self.quarantine_locked(&mut m, reason)?;
        drop(m);
        self.settle(match_id, commit)
    }

    /// [`Engine::quarantine`] of a match whose lock the caller holds (the
    /// call that found the fault): the write is queued, and the caller
    /// waits for the commit once it has released the lock.
    pub fn quarantine_locked(&self, m: &mut LiveMatch, reason: &str) -> HostResult<Commit> {
        let before = m.version();
        m.quarantine(reason, now_ms())?;
        let commit = self.persist(m, before)?;
        tracing::warn!(
            match_id = %m.setup().match_id,
            reason = m.quarantine_reason().unwrap_or_default(),
            "match quarantined: nothing calls its plugin for it until a director ends it \
             or the admin lifts the quarantine"
        );
        Ok(commit)
    }

    /// Lifts a match's quarantine (the admin only): play goes on where it
    /// stopped — with `plugin_version`, through that loaded build of its
    /// game (a fixed one), which first replays the match's whole log; a
    /// match held back at the start (the host died in one of its calls) is
    /// made live through it. Stored, and told to watchers and the
    /// lifecycle feed, before this returns the spectator's view after it,
    /// which calls the plugin again.
    pub fn lift_quarantine(
        &self,
        caller: &Caller,
        match_id: &str,
        plugin_version: Option<&str>,
    ) -> HostResult<MatchView> {
        caller.require(Need::Admin, "lifting a quarantine")?;
        let slot = match plugin_version {
            None => self.slot(match_id)?,
            Some(version) => self.move_to_build(match_id, version)?,
        };
        let mut m = lock(&slot);
        let before = m.version();
        match plugin_version {
            None => m.release(now_ms())?,
            Some(version) => {
                let plugin = self.catalog.for_new_match(&m.setup().game, Some(version))?;
                let build = PluginBuild {
                    version: plugin.manifest().version.clone(),
                    sha256: Some(plugin.sha256().to_string()),
                };
                m.release_to(plugin, build, now_ms())?;
                let trust = self
                    .inline
                    .trust_for(&m.setup().game, &m.setup().plugin_version);
                m.set_trust(trust);
            }
        }
        let commit = self.persist(&mut m, before)?;
        m.refresh_kept_legal_actions();
        // The admin holds the admin token: the spectator delay is not for
        // them, and the answer shows the match as it now is.
        let view = m.undelayed_view(Viewer::Spectator, ViewDetail::Full);
        drop(m);
        self.settle(match_id, commit)?;
        tracing::info!(match_id, version = before + 1, "quarantine lifted");
        view
    }

    /// The slot of the quarantined match `match_id`, to be moved to
    /// `version` of its game: a match held back at the start is made live
    /// through that build (its log replayed through it; it stays
    /// quarantined until the release).
    fn move_to_build(&self, match_id: &str, version: &str) -> HostResult<Slot> {
        let reason = match self.slot(match_id) {
            Err(HostError::MatchUnavailable { reason, .. }) => reason,
            slot => return slot,
        };
        let Some(mut stored) = self.store.load(match_id)? else {
            return self.slot(match_id);
        };
        if dormant::quarantined_in(&stored.log).is_none() {
            return Err(HostError::ControlRefused(format!(
                "the match is not quarantined but unavailable: {reason}"
            )));
        }
        let plugin = self
            .catalog
            .for_new_match(&stored.setup.game, Some(version))?;
        stored.setup.plugin_version = plugin.manifest().version.clone();
        stored.setup.plugin_sha256 = Some(plugin.sha256().to_string());
        let m = self.catalog.restore(&stored).map_err(|reason| {
            HostError::ControlRefused(format!(
                "version {version} of {} does not replay the match: {reason}",
                stored.setup.game
            ))
        })?;
        self.unavailable.remove(match_id);
        Ok(self.install_stored(m, stored))
    }

    /// The tenant of a match not live here: as listed unavailable, or as
    /// stored (the admin's when its data does not read back).
    fn dormant_tenant(&self, match_id: &str) -> HostResult<String> {
        if let Some(tenant) = self.unavailable.tenant(match_id) {
            return Ok(tenant);
        }
        Ok(self
            .store
            .load(match_id)?
            .map(|stored| stored.setup.tenant)
            .unwrap_or_default())
    }

    /// Checks that `caller` may follow the lifecycle feed.
    pub fn check_feed_access(&self, caller: &Caller) -> HostResult<()> {
        caller.require(Need::Organizer, "following the lifecycle feed")
    }

    /// Gives a taken seat a new token (its player lost theirs); the old
    /// one stops working at once, and the streams it opened are told to
    /// end. Organizers and the admin.
    pub fn reissue_seat_token(
        &self,
        caller: &Caller,
        match_id: &str,
        seat: u32,
    ) -> HostResult<String> {
        const WHAT: &str = "re-issuing a seat token";
        caller.require(Need::Organizer, WHAT)?;
        let slot = self.slot(match_id)?;
        let mut m = lock(&slot);
        caller.require_tenant(Need::Organizer, WHAT, &m.setup().tenant)?;
        let token = tabletop_core::tokens::new_token();
        let hash = tabletop_core::tokens::hash_token(&token);
        let previous = m.reissue_token(seat, hash)?;
        if let Err(e) = self.store.reissue_token(match_id, seat, hash) {
            // Not stored: the old token stays the valid one.
            m.reissue_token(seat, previous)?;
            return Err(e);
        }
        drop(m);
        self.withdrawals.tell(super::Withdrawn::SeatToken {
            match_id: match_id.to_string(),
            seat,
        });
        tracing::info!(match_id, seat, "seat token re-issued");
        Ok(token)
    }

    /// Up to `limit` lifecycle rows after `after`, each durable (the store
    /// may have committed later ones that are not yet).
    pub fn lifecycle_page(&self, after: u64, limit: usize) -> HostResult<Vec<LifecycleRow>> {
        let durable = *self.store.lifecycle_tail().borrow();
        let mut rows = self.store.lifecycle_after(after, limit)?;
        rows.retain(|row| row.seq <= durable);
        Ok(rows)
    }

    /// The number of the last durable lifecycle row, changing as more
    /// become durable.
    pub fn lifecycle_tail(&self) -> tokio::sync::watch::Receiver<u64> {
        self.store.lifecycle_tail()
    }

    /// Whether the store reaches its database, changing as that does
    /// ([`crate::store::Store::reachable`]); the health service follows it.
    pub fn store_reachable(&self) -> tokio::sync::watch::Receiver<bool> {
        self.store.reachable()
    }
}
