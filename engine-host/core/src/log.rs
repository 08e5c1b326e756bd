//! The match log: every state change in order, the single source of truth
//! from which a match replays (records, restart recovery).

use compact_str::CompactString;
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;
use tabletop_sdk::ActionId;

use crate::seat::SeatResult;

/// One entry of a match's log: a state change, a resignation, or a
/// director's control.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LogKind {
    /// A joint action of the seats to move (one entry for sequential games).
    Moves {
        /// Who did what: one move, inline, for a sequential game.
        moves: LoggedMoves,
    },
    /// A chance outcome drawn from the match's seed.
    Chance {
        /// The outcome passed to the plugin.
        outcome: u64,
    },
    /// A seat resigned and the match ended.
    Resign {
        /// The seat.
        seat: u32,
    },
    /// A seat's clock ran out; the match ended with that seat last.
    Timeout {
        /// The seat.
        seat: u32,
    },
    /// A seat's clock ran out under [`OnTimeout::Out`](crate::OnTimeout::Out): the plugin took the
    /// seat out of the game (`remove_player`) and the others play on.
    Out {
        /// The seat.
        seat: u32,
    },
    /// A seat resigned in a match that plays on without it: the plugin took
    /// the seat out of the game (`remove_player`), as for [`LogKind::Out`].
    ResignOut {
        /// The seat.
        seat: u32,
    },
    /// A director ended the match without a result.
    Abort {
        /// Why.
        reason: String,
    },
    /// A director ended the match with these results.
    Adjudicate {
        /// Every seat's result, by seat.
        results: Vec<SeatResult>,
    },
    /// A director stopped the clocks; actions wait for [`LogKind::Resume`].
    Pause,
    /// A director restarted the clocks.
    Resume,
    /// A director gave a seat more time.
    AddTime {
        /// The seat.
        seat: u32,
        /// How much, in ms.
        ms: i64,
    },
    /// The open-seat deadline passed: these seats, never taken, are out and
    /// the match starts (or ends) without them.
    Absent {
        /// The seats.
        seats: Vec<u32>,
    },
    /// The host quarantined the match: its plugin's worker died in a call
    /// on the match's game state. Nothing calls the plugin for the match
    /// until [`LogKind::Release`]; its clocks stop like a pause's.
    Quarantine {
        /// Why, for a person (at most [`MAX_ABORT_REASON`](crate::director::MAX_ABORT_REASON) bytes).
        reason: String,
    },
    /// The admin lifted the quarantine: play goes on where it stopped.
    Release {
        /// The build of the game the match plays on with from here (a
        /// fixed one), its whole log replayed through it; none: the build
        /// it had. A replay takes the last build a release names for every
        /// entry, from the first.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        build: Option<PluginBuild>,
    },
}

/// A build of a match's game: its version and, when known, the hex SHA-256
/// of its file (see [`MatchSetup::plugin_sha256`](crate::MatchSetup::plugin_sha256)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PluginBuild {
    /// The plugin version.
    pub version: String,
    /// The file's hex SHA-256.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// The moves of one log entry. A match keeps its whole log in memory, so an
/// entry holds its one move (every turn of a sequential game) inline rather
/// than in an allocation of its own: a played action cost ~320 bytes of the
/// server's memory with a `Vec` and a `String` per entry (BENCHMARKS.md,
/// "Memory of a played match").
pub type LoggedMoves = SmallVec<[LoggedMove; 1]>;

/// One seat's action in the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoggedMove {
    /// The seat.
    pub seat: u32,
    /// The action id.
    pub action: ActionId,
    /// Its notation at the time (for people; replay uses the id). Inline up
    /// to 24 bytes, which every shipped game's notation of one move fits.
    pub notation: CompactString,
    /// When the seat submitted it, ms since the Unix epoch.
    pub at_ms: i64,
    /// Set when the move was held for a simultaneous turn (the others had
    /// still to act): how many entries (seats taken out) the log gained
    /// between its submission and the entry before this one. Watchers were
    /// told then that the seat acted, so a replayed history tells them at
    /// the same place. `None`: the move completed the turn, or the game is
    /// sequential. It fits in the padding after `seat`, so a move costs no
    /// more memory for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held: Option<u8>,
}

/// A log entry with its version and time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogEntry {
    /// The match version after this entry.
    pub version: u64,
    /// When it was applied, ms since the Unix epoch.
    pub at_ms: i64,
    /// What happened.
    #[serde(flatten)]
    pub kind: LogKind,
}

/// A match's log, with the count of chance outcomes drawn so far (the
/// index of the next draw from the match's seed). Entries are numbered
/// 1, 2, 3, … as they are pushed, so the log's length is the match's
/// version.
#[derive(Debug, Default)]
pub(crate) struct Log {
    entries: Vec<LogEntry>,
    chance_draws: u64,
}

impl Log {
    /// Every entry so far, in order.
    pub(crate) fn entries(&self) -> &[LogEntry] {
        &self.entries
    }

    /// The match's version: the number of entries.
    pub(crate) fn version(&self) -> u64 {
        self.entries.len() as u64
    }

    /// How many chance outcomes were drawn: the index of the next draw.
    pub(crate) fn chance_draws(&self) -> u64 {
        self.chance_draws
    }

    /// Logs `kind` at `at_ms` as the next version.
    pub(crate) fn push(&mut self, at_ms: i64, kind: LogKind) {
        if matches!(kind, LogKind::Chance { .. }) {
            self.chance_draws += 1;
        }
        let version = self.version() + 1;
        self.entries.push(LogEntry {
            version,
            at_ms,
            kind,
        });
    }

    /// Whether nothing but chance has been logged (what a match logs as it
    /// is created).
    pub(crate) fn is_chance_only(&self) -> bool {
        self.entries
            .iter()
            .all(|e| matches!(e.kind, LogKind::Chance { .. }))
    }
}

/// How many entries of `log` a match logged as it was created: the chance
/// outcomes drawn at its start, before anything else.
pub(crate) fn creation_entries(log: &[LogEntry]) -> usize {
    log.iter()
        .take_while(|e| matches!(e.kind, LogKind::Chance { .. }))
        .count()
}

/// How many moves of `log` were held for a simultaneous turn at a version
/// before `version`: the events told between the entries up to it.
pub(crate) fn held_before(log: &[LogEntry], version: u64) -> u64 {
    // A move is held at most `u8::MAX` entries before the one that logs it.
    let reach = (version as usize)
        .saturating_add(usize::from(u8::MAX) + 1)
        .min(log.len());
    log[..reach]
        .iter()
        .filter_map(|entry| match &entry.kind {
            LogKind::Moves { moves } => Some((entry.version, moves)),
            _ => None,
        })
        .flat_map(|(at, moves)| {
            moves.iter().filter_map(move |m| {
                m.held
                    .map(|between| at.saturating_sub(1 + u64::from(between)))
            })
        })
        .filter(|&held_at| held_at < version)
        .count() as u64
}

/// The sequence number of the event that produced `version` of a match
/// with `log` and `joins` seats taken after creation (0 for version 0),
/// counted without replaying: one event per entry, the seats taken after
/// creation (told after the chance outcomes drawn at creation), and one per
/// move held for a simultaneous turn (told at the version it was submitted
/// at).
pub(crate) fn seq_of_version(log: &[LogEntry], joins: usize, version: u64) -> u64 {
    if version == 0 {
        return 0;
    }
    let joins = if version > creation_entries(log) as u64 {
        joins as u64
    } else {
        0
    };
    version + joins + held_before(log, version)
}
