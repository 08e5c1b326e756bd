//! Match records: a self-contained JSON document from which a match replays
//! exactly, on any host that has the same plugin version.
//!
//! ```json
//! {
//!   "format": "tabletop-record/1",
//!   "match_id": "…", "game": "focus", "plugin_version": "0.1.0",
//!   "plugin_sha256": "9f86d081…",
//!   "players": 2, "options": {"max_turns": "300"}, "seed": 42,
//!   "start_position": null, "created_at_ms": 1767225600000,
//!   "actions": [
//!     {"version": 1, "at_ms": …, "type": "chance", "outcome": 1234},
//!     {"version": 2, "at_ms": …, "type": "moves",
//!      "moves": [{"seat": 0, "action": 17, "notation": "c3-e3", "at_ms": …}]},
//!     {"version": 3, "at_ms": …, "type": "resign", "seat": 1}
//!   ],
//!   "time_control": {"per_move_ms": 0, "bank_ms": 60000, "increment_ms": 1000},
//!   "state": "finished",
//!   "results": [{"seat": 0, "rank": 1, "score": 0.0, "resigned": false}],
//!   "final_position": "…"
//! }
//! ```
//! Replay uses the action ids and chance outcomes; notation and times are for
//! people. A `timeout` entry (`{"type": "timeout", "seat": 1}`) records a seat
//! whose clock ran out and ended the match with that seat last; `time_control`
//! is present only for matches with a clock. An `out` entry
//! (`{"type": "out", "seat": 2}`) records a seat whose clock ran out under
//! `"time_control": {…, "on_timeout": "out"}`: the host took the seat out of
//! the game with the plugin's `remove_player` and the match went on. Replay
//! calls `remove_player` again at that point (the plugin must accept it as it
//! did live), so the entries after it replay as they were played.
//! `seat_players` (`[{"seat": 0, "display_name": "Ana", "external_id": "p-17"}]`)
//! names who played each seat, as the creator or the joining player said
//! (a seat the host's bot played carries its spec: `"bot": "mcts:500ms"`);
//! it is absent when nobody said.
//! `on_timeout` is written only when it is `out`; a record without it means
//! `lose`, so records of earlier versions read as they did. `final_position`
//! and `results` let an importer verify the replay.
//! A `quarantine` entry (`{"type": "quarantine", "reason": "…"}`) records
//! that the host quarantined the match (its plugin's worker died in one of
//! its calls) and a `release` entry that the admin lifted it; a match
//! replayed from a record with a quarantine not released is quarantined
//! again. The final position of a match quarantined at export, or ended
//! while it was, is empty: it would be the plugin's to write, and the
//! plugin is not called for such a match.

use serde::{Deserialize, Serialize};
use tabletop_sdk::text::quote;

use crate::clock::TimeControl;
use crate::delay::SpectatorDelay;
use crate::director::OpenSeatDeadline;
use crate::error::{HostError, HostResult};
use crate::game_match::Match;
use crate::identity::SeatPlayer;
use crate::log::LogEntry;
use crate::seat::SeatResult;
use crate::setup::MatchSetup;
use crate::stage::Lifecycle;

/// The format tag of version 1 records.
pub const RECORD_FORMAT: &str = "tabletop-record/1";

/// A match record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Always [`RECORD_FORMAT`].
    pub format: String,
    /// The match id it was exported from.
    pub match_id: String,
    /// The game.
    pub game: String,
    /// The plugin version it was played with.
    pub plugin_version: String,
    /// The hex SHA-256 of the plugin file it was played with (absent when
    /// the match recorded none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin_sha256: Option<String>,
    /// Seats.
    pub players: u32,
    /// Options as given at creation.
    pub options: std::collections::BTreeMap<String, String>,
    /// The seed of the chance stream.
    pub seed: u64,
    /// The start position if not the game's start.
    pub start_position: Option<String>,
    /// Creation time, ms since the Unix epoch.
    pub created_at_ms: i64,
    /// The time control, if the match had a clock (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<TimeControl>,
    /// The match's labels (absent when it has none).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub labels: std::collections::BTreeMap<String, String>,
    /// The open-seat deadline, if the match had one (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_seat_deadline: Option<OpenSeatDeadline>,
    /// The spectator delay, if the match had one (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spectator_delay: Option<SpectatorDelay>,
    /// Who played each seat (absent when nobody said).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seat_players: Vec<SeatPlayer>,
    /// Every state change in order.
    pub actions: Vec<LogEntry>,
    /// Life stage at export.
    pub state: Lifecycle,
    /// Final results (empty while running).
    pub results: Vec<SeatResult>,
    /// The position after the last action (hidden information included);
    /// empty for a match quarantined at export or ended while it was
    /// (`Match::is_sealed`).
    pub final_position: String,
}

impl Record {
    /// The record of `m`.
    pub fn of(m: &Match) -> HostResult<Record> {
        Ok(Record {
            format: RECORD_FORMAT.to_string(),
            match_id: m.setup().match_id.clone(),
            game: m.setup().game.clone(),
            plugin_version: m.setup().plugin_version.clone(),
            plugin_sha256: m.setup().plugin_sha256.clone(),
            players: m.setup().players,
            options: m.setup().options.clone(),
            seed: m.setup().seed,
            start_position: m.setup().start_position.clone(),
            created_at_ms: m.setup().created_at_ms,
            time_control: m.setup().time_control,
            labels: m.setup().labels.clone(),
            open_seat_deadline: m.setup().open_seat_deadline,
            spectator_delay: m.setup().spectator_delay,
            seat_players: (0..m.setup().players)
                .map(|seat| m.player(seat))
                .filter(|p| !p.is_anonymous())
                .collect(),
            actions: m.log().to_vec(),
            state: m.lifecycle(),
            results: m.results().to_vec(),
            final_position: if m.is_sealed() {
                String::new()
            } else {
                m.position()?
            },
        })
    }

    /// The setup to replay the record with, under a new match id.
    pub fn setup(&self, match_id: String) -> MatchSetup {
        MatchSetup {
            match_id,
            game: self.game.clone(),
            plugin_version: self.plugin_version.clone(),
            plugin_sha256: self.plugin_sha256.clone(),
            players: self.players,
            options: self.options.clone(),
            seed: self.seed,
            start_position: self.start_position.clone(),
            created_at_ms: self.created_at_ms,
            time_control: self.time_control,
            labels: self.labels.clone(),
            open_seat_deadline: self.open_seat_deadline,
            spectator_delay: self.spectator_delay,
            tenant: String::new(),
            creator: String::new(),
            seat_players: self.seat_players.clone(),
        }
    }

    /// Reads a record, refusing malformed JSON or another format.
    pub fn parse(json: &str) -> HostResult<Record> {
        let record: Record = serde_json::from_str(json).map_err(|e| {
            // serde's message may quote a whole field of the input.
            HostError::InvalidRecord(format!(
                "malformed record at line {} column {}: {}",
                e.line(),
                e.column(),
                quote(&e.to_string())
            ))
        })?;
        if record.format != RECORD_FORMAT {
            return Err(HostError::InvalidRecord(format!(
                "unknown record format `{}` (expected `{RECORD_FORMAT}`)",
                quote(&record.format)
            )));
        }
        Ok(record)
    }

    /// Checks a replayed match against what the record says it ended as.
    /// The final position of a match that replays quarantined is not asked
    /// of its plugin: the record states none.
    pub fn verify(&self, replayed: &Match) -> HostResult<()> {
        let position = if replayed.is_sealed() {
            String::new()
        } else {
            replayed.position()?
        };
        if position != self.final_position {
            return Err(HostError::InvalidRecord(format!(
                "the record replays to another final position than it states \
                 (after action {}): the record was altered",
                self.actions.len()
            )));
        }
        if replayed.lifecycle() == Lifecycle::Finished && replayed.results() != self.results {
            return Err(HostError::InvalidRecord(
                "the record's results differ from its replay: the record was altered".into(),
            ));
        }
        Ok(())
    }

    /// Serialises the record (pretty, for people too).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("records serialise")
    }
}
