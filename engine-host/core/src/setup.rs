//! What a match is created from, and where it is in its life.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::clock::TimeControl;

/// Where a match is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lifecycle {
    /// Open seats remain.
    Waiting,
    /// Being played.
    Running,
    /// Over.
    Finished,
}

/// Everything needed to create a match (also what a record starts from).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchSetup {
    /// The match id.
    pub match_id: String,
    /// The game.
    pub game: String,
    /// The plugin version.
    pub plugin_version: String,
    /// Seats.
    pub players: u32,
    /// Options as given (raw text).
    pub options: BTreeMap<String, String>,
    /// Seed of the chance stream.
    pub seed: u64,
    /// Start position, if not the game's start.
    pub start_position: Option<String>,
    /// Creation time, ms since the Unix epoch.
    pub created_at_ms: i64,
    /// The clock, if the match has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<TimeControl>,
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
