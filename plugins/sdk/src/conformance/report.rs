//! What a run of the kit reports: each failed check with what reproduces it
//! (the match's seat count, options, seed and the actions played from the
//! start), and the progress a watcher follows while it runs.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Summary;
use crate::types::{ActionId, Player};

/// The name of every check the kit runs, with what it checks: a
/// [`Failure`] names one of them in [`Failure::check`].
pub const CHECKS: &[(&str, &str)] = &[
    (
        "play",
        "a random match plays: every call that must succeed does, a player to move has legal \
         actions (ascending, unique), others have none",
    ),
    (
        "seat-names",
        "each seat is named once, briefly and distinctly",
    ),
    (
        "position-round-trip",
        "the position text reads back to a state that looks the same",
    ),
    ("clone", "a clone looks the same as its original"),
    ("views", "every viewer's view is a JSON document"),
    (
        "hidden-information",
        "a viewer cannot tell a state from the states resampled for them (views, text, legal \
         actions, errors, board, targets), and resampling reads nothing hidden",
    ),
    (
        "events",
        "the events of a transition tell each viewer nothing hidden from them",
    ),
    (
        "svg-board",
        "every viewer's SVG board is well-formed, bounded and the same when drawn again",
    ),
    (
        "action-targets",
        "every target of a legal action is an element id of the mover's board",
    ),
    (
        "evaluate",
        "an evaluation gives every seat one finite value in 0..=1, the same when asked again",
    ),
    ("notation", "every legal action's text parses back to it"),
    (
        "refusals-explained",
        "every id of the action space that is not legal is explained with a specific reason, \
         a legal one is not",
    ),
    (
        "illegal-refused",
        "illegal ids, malformed joint actions, unlisted chance outcomes and chance calls while \
         players are to move (NOT_YOUR_TURN) are refused without a fault and without changing \
         the state",
    ),
    (
        "apply-and-lend",
        "the one-call ply agrees with apply, then status and legal actions",
    ),
    (
        "determinism",
        "applying the same transition to equal states gives equal states; replaying a match's \
         log gives the same match",
    ),
    (
        "results",
        "a finished match ranks every seat, someone first, and nobody may act",
    ),
    (
        "match-length",
        "every match ends within the configured number of transitions",
    ),
    (
        "manifest-claims",
        "the manifest's chance, simultaneous and hidden-information claims match what the \
         game does",
    ),
    (
        "removals",
        "a game that can take players out stays consistent when random seats are removed",
    ),
];

/// One step of a match as the kit played it from the start position: what
/// reproduces a failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Played {
    /// A player's action (several in one step: a simultaneous turn).
    Move {
        /// The transition's index from the start (0 is the first).
        step: u64,
        /// The player.
        player: Player,
        /// The action's id.
        action: ActionId,
        /// Its text, as the game writes it (empty if the game could not).
        text: String,
    },
    /// A chance outcome.
    Chance {
        /// The transition's index from the start.
        step: u64,
        /// The outcome.
        outcome: u64,
    },
    /// A seat taken out with `remove_player`.
    Remove {
        /// The step's index from the start.
        step: u64,
        /// The seat.
        player: Player,
    },
}

/// A failed check: which check, what went wrong, and the match that shows it
/// (seat count, options, seed, step and the actions from the start).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// The check's name, one of [`CHECKS`] (`agreement` and `readme` for
    /// [`agree`](super::agree) and [`check_readme_positions`](super::check_readme_positions)).
    pub check: String,
    /// Human-readable location and problem.
    pub message: String,
    /// The match's seat count; 0 when no single match shows the failure
    /// (then `seed`, `step` and `actions` say nothing).
    pub players: u32,
    /// The match's options (raw `name = text`).
    pub options: BTreeMap<String, String>,
    /// The match's seed (chance outcomes and the kit's choices follow it).
    pub seed: u64,
    /// The transition at which the check failed.
    pub step: u64,
    /// The actions played from the start position up to the failure.
    pub actions: Vec<Played>,
}

impl Failure {
    /// A failure of `check` that no single match shows.
    pub fn new(check: &str, message: impl Into<String>) -> Failure {
        Failure {
            check: check.to_string(),
            message: message.into(),
            players: 0,
            options: BTreeMap::new(),
            seed: 0,
            step: 0,
            actions: Vec::new(),
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// What a whole run found: the coverage, and the first failure of each
/// check that failed (in the order they happened).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// What the run covered.
    pub summary: Summary,
    /// The failures, at most one per check.
    pub failures: Vec<Failure>,
}

/// What a run is doing, as it happens: a watcher that outlives a crash of the
/// game (a parent process reading a child's output) knows from the last
/// events which check was running and the actions that led there.
#[derive(Debug, Clone, Copy)]
pub enum Progress<'a> {
    /// A match starts from the start position.
    Match {
        /// Seat count.
        players: u32,
        /// Options.
        options: &'a BTreeMap<String, String>,
        /// Seed.
        seed: u64,
        /// Whether seats are removed at random in it.
        removals: bool,
    },
    /// A check starts (until the next event, calls are made for it).
    Check(&'static str),
    /// A step was played.
    Played(&'a Played),
    /// A check failed.
    Failed(&'a Failure),
}

/// Collects a run's failures and tells the watcher what happens.
pub(super) struct Recorder<'o> {
    /// The check whose calls are being made.
    pub(super) check: Cell<&'static str>,
    failures: RefCell<Vec<Failure>>,
    watcher: &'o dyn Fn(&Progress<'_>),
    /// Whether the first failure ends the run.
    pub(super) stop_at_first: bool,
}

impl<'o> Recorder<'o> {
    pub(super) fn new(watcher: &'o dyn Fn(&Progress<'_>), stop_at_first: bool) -> Recorder<'o> {
        Recorder {
            check: Cell::new("play"),
            failures: RefCell::new(Vec::new()),
            watcher,
            stop_at_first,
        }
    }

    pub(super) fn tell(&self, progress: &Progress<'_>) {
        (self.watcher)(progress);
    }

    /// Makes `check` the running check (and says so); returns the one before.
    pub(super) fn enter(&self, check: &'static str) -> &'static str {
        (self.watcher)(&Progress::Check(check));
        self.check.replace(check)
    }

    pub(super) fn has_failed(&self, check: &str) -> bool {
        self.failures.borrow().iter().any(|f| f.check == check)
    }

    pub(super) fn any_failed(&self) -> bool {
        !self.failures.borrow().is_empty()
    }

    /// Keeps `failure` if it is its check's first.
    pub(super) fn record(&self, failure: Failure) {
        if self.has_failed(&failure.check) {
            return;
        }
        (self.watcher)(&Progress::Failed(&failure));
        self.failures.borrow_mut().push(failure);
    }

    pub(super) fn into_failures(self) -> Vec<Failure> {
        self.failures.into_inner()
    }
}
