//! Listing matches, records out and in, and watching.

use std::sync::Arc;

use tabletop_core::{
    History, HostError, HostResult, Lifecycle, Match, Record, ViewDetail, ViewerEvent,
};
use tabletop_sdk::DynGame;

use super::{Created, Engine, MatchSummary, Resume, WatchStart, issue_tokens, lock, new_match_id};
use crate::store::MatchQuery;

impl Engine {
    /// Lists matches, oldest first: every match the store has, with what
    /// the host holds of the ones in memory (their version and stage as of
    /// now) and the reason of the ones it cannot play.
    pub fn list_matches(
        &self,
        game: Option<&str>,
        lifecycle: Option<Option<Lifecycle>>,
    ) -> HostResult<Vec<MatchSummary>> {
        let unavailable = self.unavailable.read().unwrap_or_else(|e| e.into_inner());
        if lifecycle == Some(None) {
            let mut out: Vec<MatchSummary> = unavailable
                .values()
                .filter(|u| game.is_none_or(|g| u.setup.game == g))
                .map(|u| MatchSummary {
                    match_id: u.setup.match_id.clone(),
                    game: u.setup.game.clone(),
                    plugin_version: u.setup.plugin_version.clone(),
                    players: u.setup.players,
                    lifecycle: None,
                    version: u.version,
                    open_seats: Vec::new(),
                    created_at_ms: u.setup.created_at_ms,
                    unavailable_reason: u.reason.clone(),
                })
                .collect();
            out.sort_by(|a, b| (a.created_at_ms, &a.match_id).cmp(&(b.created_at_ms, &b.match_id)));
            return Ok(out);
        }
        let query = MatchQuery {
            game: game.map(str::to_string),
            state: lifecycle.flatten(),
            ..MatchQuery::default()
        };
        let stored = self.store.list(&query)?;
        let live = self.matches.read().unwrap_or_else(|e| e.into_inner());
        let mut out = Vec::with_capacity(stored.len());
        for summary in stored {
            let id = &summary.setup.match_id;
            let mut listed = MatchSummary {
                match_id: id.clone(),
                game: summary.setup.game.clone(),
                plugin_version: summary.setup.plugin_version.clone(),
                players: summary.setup.players,
                lifecycle: Some(summary.state),
                version: summary.final_version.unwrap_or(0),
                open_seats: summary.open_seats,
                created_at_ms: summary.setup.created_at_ms,
                unavailable_reason: String::new(),
            };
            if let Some(u) = unavailable.get(id) {
                listed.lifecycle = None;
                listed.version = u.version;
                listed.unavailable_reason = u.reason.clone();
                if lifecycle.is_some() {
                    continue;
                }
            } else if let Some(slot) = live.get(id) {
                let m = lock(slot);
                listed.lifecycle = Some(m.lifecycle());
                listed.version = m.version();
            }
            out.push(listed);
        }
        Ok(out)
    }

    /// The record of a match: admin only while it runs.
    pub fn export(&self, match_id: &str, admin_token: &str) -> HostResult<String> {
        let slot = self.slot(match_id)?;
        let m = lock(&slot);
        if m.lifecycle() != Lifecycle::Finished {
            self.check_admin(admin_token).map_err(|e| match e {
                HostError::TokenRequired { .. } => HostError::ExportNeedsAdmin,
                other => other,
            })?;
        }
        Ok(Record::of(&m)?.to_json())
    }

    /// Replays and verifies a record and stores it as a new match (admin only).
    pub fn import(&self, record_json: &str, admin_token: &str) -> HostResult<Created> {
        self.check_admin(admin_token)?;
        let record = Record::parse(record_json)?;
        let plugin = self
            .registry
            .get(&record.game, Some(&record.plugin_version))
            .ok_or_else(|| HostError::GameNotLoaded {
                game: record.game.clone(),
                version: record.plugin_version.clone(),
            })?;
        let (tokens, hashes) = issue_tokens(record.players, &[]);
        let setup = record.setup(new_match_id());
        let game: Arc<dyn DynGame> = plugin;
        let m = Match::replay(game, setup, hashes.clone(), &record.actions)?;
        record.verify(&m)?;
        let (created, commit) = self.store_new(m, hashes, tokens, ViewDetail::Full)?;
        if let Err(e) = commit.wait() {
            self.discard(&created.match_id);
            return Err(e);
        }
        Ok(created)
    }

    /// Starts watching a match: subscribes to its live events and takes
    /// its history up to them, under the match's lock, so that together
    /// they miss nothing and repeat nothing.
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
        let subscription = m.subscribe(with_views);
        let snapshot = match resume {
            Resume::Live => Some(m.view(viewer)?),
            Resume::AfterSeq(_) | Resume::FromVersion(_) => None,
        };
        let finished = m.lifecycle() == Lifecycle::Finished;
        let history = Arc::new(m.history());
        drop(m);
        let after_seq = match resume {
            Resume::Live => history.last_seq(),
            other => after_seq(&history, other)?,
        };
        Ok(WatchStart {
            viewer,
            snapshot,
            after_seq,
            history,
            subscription,
            finished,
        })
    }

    /// A match's history as of now, for a watcher that fell behind the live
    /// feed and catches up from the log.
    pub fn history(&self, match_id: &str) -> HostResult<Arc<History>> {
        let slot = self.slot(match_id)?;
        let m = lock(&slot);
        Ok(Arc::new(m.history()))
    }

    /// A page of past events (ListEvents): up to `limit` after `resume`,
    /// as the viewer whose token is `token` was told them; and the
    /// sequence number of the match's latest event.
    pub fn list_events(
        &self,
        match_id: &str,
        token: &str,
        resume: Resume,
        limit: usize,
        with_views: bool,
    ) -> HostResult<(Vec<ViewerEvent>, u64)> {
        let slot = self.slot(match_id)?;
        let (viewer, history) = {
            let m = lock(&slot);
            (m.viewer_of(token)?, m.history())
        };
        let after = after_seq(&history, resume)?;
        let events = history.events(viewer, after, limit, with_views)?;
        Ok((events, history.last_seq()))
    }
}

/// The sequence number a resume point stands for.
fn after_seq(history: &History, resume: Resume) -> HostResult<u64> {
    match resume {
        Resume::Live => Ok(history.last_seq()),
        Resume::AfterSeq(seq) if seq > history.last_seq() => {
            Err(HostError::InvalidRequest(format!(
                "event {seq} has not happened: the match's latest event is {}",
                history.last_seq()
            )))
        }
        Resume::AfterSeq(seq) => Ok(seq),
        Resume::FromVersion(version) => history.seq_of_version(version),
    }
}
