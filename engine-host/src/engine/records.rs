//! The engine's calls that read a match's past: listings, the record out,
//! watching and pages of events.

use std::sync::Arc;

use tabletop_core::{
    History, HostError, HostResult, Lifecycle, Match, Record, SpectatorHorizon, ViewerEvent, now_ms,
};
use tabletop_sdk::Viewer;

use super::access::{Caller, Need};
use super::listing::{ListQuery, MatchSummary, Page};
use super::live::lock;
use super::{Engine, Resume, WatchStart};
use crate::store::ListedState;

impl Engine {
    /// A page of matches, oldest first (by creation time, then id): every
    /// match the store has that `query` selects, with what the host holds
    /// of the ones in memory (their version and stage as of now) and the
    /// reason of the ones it cannot play. Returns the page and the token of
    /// the next one (empty after the last).
    pub fn list_matches(&self, query: &ListQuery) -> HostResult<(Vec<MatchSummary>, String)> {
        let page = Page::of(query)?;
        if query.state == Some(None) {
            let listed = page.cut(self.unavailable.summaries(page.query()));
            let next = page.next_token(&listed);
            return Ok((listed, next));
        }
        let stored = self.store.list(page.query())?;
        let now = now_ms();
        let mut listed = Vec::with_capacity(stored.len());
        for summary in stored {
            let mut summary = MatchSummary::of_stored(summary);
            self.as_held_now(&mut summary, now);
            listed.push(summary);
        }
        let next = page.next_token(&listed);
        Ok((listed, next))
    }

    /// `summary` of a readable stored match brought up to what the host
    /// holds as of `now_ms`: unavailable here, or, in memory, its stage and
    /// the version spectators may see.
    fn as_held_now(&self, summary: &mut MatchSummary, now_ms: i64) {
        if summary.state.is_none() {
            return;
        }
        if let Some((version, reason)) = self.unavailable.version_and_reason(&summary.match_id) {
            summary.state = None;
            summary.version = version;
            summary.unavailable_reason = reason;
        } else if let Some(slot) = self.table.get(&summary.match_id) {
            let m = lock(&slot);
            summary.state = Some(ListedState::of(m.lifecycle(), m.is_quarantined()));
            // A listing is public: it shows what spectators may see.
            summary.version = m.spectator_horizon(now_ms).version;
        }
    }

    /// The record of a match: its tenant's organizers and the admin only
    /// while it runs (it holds the seed and every hidden card).
    pub fn export(&self, caller: &Caller, match_id: &str) -> HostResult<String> {
        let slot = self.slot(match_id)?;
        let m = lock(&slot);
        if m.lifecycle() != Lifecycle::Finished {
            caller
                .require_tenant(
                    Need::Organizer,
                    "exporting a running match's record",
                    &m.setup().tenant,
                )
                .map_err(|e| match e {
                    HostError::TokenRequired { .. } => HostError::ExportNeedsAdmin,
                    other => other,
                })?;
        }
        Ok(Record::of(&m)?.to_json())
    }

    /// Starts watching a match: subscribes to its live events and takes
    /// its history up to them, under the match's lock, so that together
    /// they miss nothing and repeat nothing. A spectator of a match with a
    /// spectator delay starts at what the delay shows, and is paced.
    pub fn watch(
        &self,
        match_id: &str,
        token: &str,
        resume: Resume,
        with_views: bool,
    ) -> HostResult<WatchStart> {
        let slot = self.slot(match_id)?;
        let mut m = lock(&slot);
        let viewer = m.viewer_of(token)?;
        let finished = m.lifecycle() == Lifecycle::Finished;
        let paced = viewer == Viewer::Spectator && m.spectator_delay().is_some() && !finished;
        // A paced watcher reads its events, views included, from the
        // history: the live feed only wakes it.
        let subscription = m.subscribe(with_views && !paced);
        let snapshot = match resume {
            Resume::Live => Some(m.view(viewer)?),
            Resume::AfterSeq(_) | Resume::FromVersion(_) => None,
        };
        let visible = visible_to(&m, viewer, now_ms());
        let history = Arc::new(m.history());
        drop(m);
        let after_seq = after_seq(&history, resume, &visible)?;
        Ok(WatchStart {
            viewer,
            snapshot,
            after_seq,
            history,
            subscription,
            finished,
            paced,
        })
    }

    /// What spectators may see of a match now (see
    /// [`tabletop_core::delay`]): what paces a spectator's watch stream.
    pub fn spectator_horizon(&self, match_id: &str) -> HostResult<SpectatorHorizon> {
        let slot = self.slot(match_id)?;
        let m = lock(&slot);
        Ok(m.spectator_horizon(now_ms()))
    }

    /// A match's history as of now, for a watcher that fell behind the live
    /// feed and catches up from the log.
    pub fn history(&self, match_id: &str) -> HostResult<Arc<History>> {
        let slot = self.slot(match_id)?;
        let m = lock(&slot);
        Ok(Arc::new(m.history()))
    }

    /// A page of past events (ListEvents): those after `resume` that fill
    /// `page`, as the viewer whose token is `token` was told them; and the
    /// sequence number of the match's latest event.
    pub fn list_events(
        &self,
        match_id: &str,
        token: &str,
        resume: Resume,
        page: tabletop_core::history::Page,
        with_views: bool,
    ) -> HostResult<(Vec<ViewerEvent>, u64)> {
        let slot = self.slot(match_id)?;
        let (viewer, history, visible) = {
            let m = lock(&slot);
            let viewer = m.viewer_of(token)?;
            let visible = visible_to(&m, viewer, now_ms());
            (viewer, m.history(), visible)
        };
        let after = after_seq(&history, resume, &visible)?;
        let mut events = history.page_of_events(viewer, after, page, with_views)?;
        events.retain(|event| event.seq <= visible.seq);
        Ok((events, visible.seq))
    }
}

/// What `viewer` may see of `m` at `now_ms`: a seat, everything; a
/// spectator, what the spectator delay shows.
fn visible_to(m: &Match, viewer: Viewer, now_ms: i64) -> SpectatorHorizon {
    match viewer {
        Viewer::Spectator => m.spectator_horizon(now_ms),
        Viewer::Seat(_) => SpectatorHorizon {
            version: m.version(),
            seq: m.event_seq(),
            delayed: false,
            next_at_ms: None,
        },
    }
}

/// The sequence number a resume point stands for, for a viewer who may
/// see up to `visible`.
fn after_seq(history: &History, resume: Resume, visible: &SpectatorHorizon) -> HostResult<u64> {
    match resume {
        Resume::Live => Ok(visible.seq),
        Resume::AfterSeq(seq) if seq > visible.seq => Err(HostError::InvalidRequest(format!(
            "event {seq} has not happened: the match's latest event is {}",
            visible.seq
        ))),
        Resume::AfterSeq(seq) => Ok(seq),
        Resume::FromVersion(version) => {
            visible.check_version(version)?;
            history.seq_of_version(version)
        }
    }
}
