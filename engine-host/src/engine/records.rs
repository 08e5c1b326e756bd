//! Listing matches, records out and in, and watching.

use std::sync::{Arc, Mutex};

use tabletop_core::{HostError, HostResult, Lifecycle, Match, MatchView, Record, ViewDetail};
use tabletop_sdk::{DynGame, Viewer};

use super::{
    Created, Engine, LiveMatch, MatchSummary, WatchStart, issue_tokens, lock, new_match_id,
};

impl Engine {
    /// Lists matches, oldest first.
    pub fn list_matches(
        &self,
        game: Option<&str>,
        lifecycle: Option<Option<Lifecycle>>,
    ) -> Vec<MatchSummary> {
        let mut out = Vec::new();
        let live: Vec<Arc<Mutex<LiveMatch>>> = self
            .matches
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect();
        for slot in live {
            let m = lock(&slot);
            out.push(MatchSummary {
                match_id: m.setup().match_id.clone(),
                game: m.setup().game.clone(),
                plugin_version: m.setup().plugin_version.clone(),
                players: m.setup().players,
                lifecycle: Some(m.lifecycle()),
                version: m.version(),
                open_seats: m
                    .seats()
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| s.token_hash.is_none())
                    .map(|(i, _)| i as u32)
                    .collect(),
                created_at_ms: m.setup().created_at_ms,
                unavailable_reason: String::new(),
            });
        }
        for u in self
            .unavailable
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
        {
            out.push(MatchSummary {
                match_id: u.setup.match_id.clone(),
                game: u.setup.game.clone(),
                plugin_version: u.setup.plugin_version.clone(),
                players: u.setup.players,
                lifecycle: None,
                version: u.version,
                open_seats: Vec::new(),
                created_at_ms: u.setup.created_at_ms,
                unavailable_reason: u.reason.clone(),
            });
        }
        out.retain(|s| {
            game.is_none_or(|g| s.game == g) && lifecycle.is_none_or(|l| s.lifecycle == l)
        });
        out.sort_by(|a, b| a.match_id.cmp(&b.match_id));
        out
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

    /// Starts watching a match.
    pub fn watch(
        &self,
        match_id: &str,
        token: &str,
        from_version: Option<u64>,
    ) -> HostResult<WatchStart> {
        let slot = self.slot(match_id)?;
        let mut m = lock(&slot);
        let viewer = m.viewer_of(token)?;
        let (receiver, replay) = m.subscribe(from_version);
        let (snapshot, replay) = match replay {
            Some(events) => (None, events),
            None => (Some(m.view(viewer)?), Vec::new()),
        };
        Ok(WatchStart {
            viewer,
            snapshot,
            replay,
            receiver,
            finished: m.lifecycle() == Lifecycle::Finished,
        })
    }

    /// A fresh view for a watcher that fell behind.
    pub fn resync(&self, match_id: &str, viewer: Viewer) -> HostResult<(MatchView, bool)> {
        let slot = self.slot(match_id)?;
        let m = lock(&slot);
        Ok((m.view(viewer)?, m.lifecycle() == Lifecycle::Finished))
    }
}
