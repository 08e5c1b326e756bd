//! Where a match is in its life (waiting for players, running, finished)
//! and how it ended. The results are set once, when the match finishes,
//! and never before: a running match has none.

use serde::{Deserialize, Serialize};

use crate::seat::SeatResult;

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

/// A match's life stage and, once it is over, its results.
#[derive(Debug)]
pub(crate) struct Stage {
    lifecycle: Lifecycle,
    results: Vec<SeatResult>,
}

impl Stage {
    /// A new match's stage: waiting while any seat is open, else running.
    pub(crate) fn new(seats_open: bool) -> Stage {
        Stage {
            lifecycle: if seats_open {
                Lifecycle::Waiting
            } else {
                Lifecycle::Running
            },
            results: Vec::new(),
        }
    }

    /// Where the match is in its life.
    pub(crate) fn lifecycle(&self) -> Lifecycle {
        self.lifecycle
    }

    /// The final results; empty until the match is over (and for an
    /// aborted one).
    pub(crate) fn results(&self) -> &[SeatResult] {
        &self.results
    }

    pub(crate) fn is_waiting(&self) -> bool {
        self.lifecycle == Lifecycle::Waiting
    }

    pub(crate) fn is_running(&self) -> bool {
        self.lifecycle == Lifecycle::Running
    }

    pub(crate) fn is_finished(&self) -> bool {
        self.lifecycle == Lifecycle::Finished
    }

    /// Play starts: every seat is taken, or the open-seat deadline let the
    /// match start without the absent ones.
    pub(crate) fn start(&mut self) {
        self.lifecycle = Lifecycle::Running;
    }

    /// The match is over with `results` (none: aborted).
    pub(crate) fn finish(&mut self, results: Vec<SeatResult>) {
        self.results = results;
        self.lifecycle = Lifecycle::Finished;
    }
}
