//! The stored matches this host cannot play (their plugin version is not
//! loaded, their log no longer replays, their row is damaged), with why:
//! found at start, and retried when a plugin version is added.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::RwLock;

use tabletop_core::MatchSetup;

use super::listing::MatchSummary;
use crate::store::{ListedState, MatchQuery, StoredMatch};

/// A stored match that cannot be played here.
#[derive(Debug, Clone)]
struct Unavailable {
    setup: MatchSetup,
    version: u64,
    reason: String,
    /// What the store holds, to retry when its plugin version is added
    /// (`None`: its stored data does not read back, so no plugin helps).
    stored: Option<StoredMatch>,
}

/// The unavailable matches by id.
#[derive(Debug, Default)]
pub struct UnavailableMatches {
    by_id: RwLock<BTreeMap<String, Unavailable>>,
    /// Matches never to replay while the host runs: it died in one of their
    /// plugin's calls (see `crate::crash_note`).
    held_back: RwLock<BTreeSet<String>>,
}

impl UnavailableMatches {
    /// Lists the match `setup` describes as unavailable for `reason`, at
    /// `version`, with what the store holds of it, if it reads back.
    pub fn insert(
        &self,
        setup: MatchSetup,
        version: u64,
        reason: String,
        stored: Option<StoredMatch>,
    ) {
        self.by_id
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(
                setup.match_id.clone(),
                Unavailable {
                    setup,
                    version,
                    reason,
                    stored,
                },
            );
    }

    /// Keeps `match_id` from being replayed while the host runs.
    pub fn hold_back(&self, match_id: &str) {
        self.held_back
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(match_id.to_string());
    }

    /// Whether `match_id` must not be replayed.
    pub fn is_held_back(&self, match_id: &str) -> bool {
        self.held_back
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .contains(match_id)
    }

    /// Takes `match_id` off the list with what the store holds of it (if it
    /// reads back): a control is being applied to it.
    pub fn take(&self, match_id: &str) -> Option<Option<StoredMatch>> {
        self.by_id
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(match_id)
            .map(|u| u.stored)
    }

    /// The tenant of `match_id`, if it is listed (the admin's for a match
    /// whose stored data does not read back).
    pub fn tenant(&self, match_id: &str) -> Option<String> {
        self.by_id
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(match_id)
            .map(|u| u.setup.tenant.clone())
    }

    /// Takes `match_id` off the list, held back or not: it plays again.
    pub fn remove(&self, match_id: &str) {
        self.by_id
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(match_id);
        self.held_back
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(match_id);
    }

    /// Why `match_id` cannot be played, if it is listed.
    pub fn reason(&self, match_id: &str) -> Option<String> {
        self.by_id
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(match_id)
            .map(|u| u.reason.clone())
    }

    /// The version `match_id` stands at and why it cannot be played, if it
    /// is listed.
    pub fn version_and_reason(&self, match_id: &str) -> Option<(u64, String)> {
        self.by_id
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(match_id)
            .map(|u| (u.version, u.reason.clone()))
    }

    /// What the store holds of the listed matches of `game` at `version`
    /// that read back: the ones a newly added plugin may make playable.
    pub fn stored_of(&self, game: &str, version: &str) -> Vec<StoredMatch> {
        self.by_id
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .filter(|u| u.setup.game == game && u.setup.plugin_version == version)
            .filter_map(|u| u.stored.clone())
            .collect()
    }

    /// How many are listed.
    pub fn count(&self) -> usize {
        self.by_id.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// The listed matches `query` selects, in no order (an unavailable
    /// match has no stage: give `query` none).
    pub fn summaries(&self, query: &MatchQuery) -> Vec<MatchSummary> {
        self.by_id
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .filter(|u| query.selects(&u.setup, ListedState::Running))
            .map(|u| MatchSummary {
                match_id: u.setup.match_id.clone(),
                game: u.setup.game.clone(),
                plugin_version: u.setup.plugin_version.clone(),
                players: u.setup.players,
                state: None,
                version: u.version,
                open_seats: Vec::new(),
                created_at_ms: u.setup.created_at_ms,
                unavailable_reason: u.reason.clone(),
                labels: u.setup.labels.clone(),
            })
            .collect()
    }
}
