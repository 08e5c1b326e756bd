//! A tournament director's controls over a match: abort it without a
//! result, adjudicate its result, pause and resume its clocks, add time to
//! a seat, and the deadline by which its open seats must be taken.
//!
//! Each control is a log entry, applied by one function (`Match::direct`)
//! both when it happens and when the log is replayed, so a control is part
//! of the match's history, its record and its restart like any move.
//!
//! `Director` keeps what the controls leave on a match: since when it is
//! paused, why it was aborted, whether its result was decided. The checks
//! of a control's arguments live here too; what a control does to the
//! seats, clocks and stage is the match's to coordinate.

use serde::{Deserialize, Serialize};

use crate::error::{HostError, HostResult};
use crate::seat::SeatResult;

/// Most time one `Match::add_time` adds: a day.
pub const MAX_ADDED_MS: i64 = 86_400_000;

/// Longest reason an abort carries, in bytes.
pub const MAX_ABORT_REASON: usize = 256;

/// The open-seat deadline's longest wait after creation: 30 days.
pub const MAX_OPEN_SEAT_WAIT_MS: i64 = 30 * 86_400_000;

/// What an open-seat deadline does to a match whose seats are not all
/// taken in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnDeadline {
    /// The match ends without a result.
    #[default]
    Abort,
    /// The match starts with the absent seats out: a two-seat match is won
    /// by the seat that is there; a game that can remove a player goes on
    /// without them.
    StartWithout,
}

/// The time by which a match's open seats must be taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenSeatDeadline {
    /// When, ms since the Unix epoch.
    pub at_ms: i64,
    /// What happens then to seats still open.
    #[serde(default)]
    pub on_deadline: OnDeadline,
}

/// Why a director's control was refused.
pub(crate) fn refused(why: impl Into<String>) -> HostError {
    HostError::ControlRefused(why.into())
}

/// Refuses an abort's reason longer than [`MAX_ABORT_REASON`].
pub(crate) fn check_abort_reason(reason: &str) -> HostResult<()> {
    if reason.len() > MAX_ABORT_REASON {
        return Err(HostError::InvalidRequest(format!(
            "an abort's reason is at most {MAX_ABORT_REASON} bytes, not {}",
            reason.len()
        )));
    }
    Ok(())
}

/// Refuses added time outside 1 ms to [`MAX_ADDED_MS`].
pub(crate) fn check_added_ms(ms: i64) -> HostResult<()> {
    if !(1..=MAX_ADDED_MS).contains(&ms) {
        return Err(HostError::InvalidRequest(format!(
            "added time is 1 ms to {MAX_ADDED_MS} ms (a day), not {ms}"
        )));
    }
    Ok(())
}

/// Checks an adjudication of a match of `players` seats: one result per
/// seat (sorted by seat), ranks 1 to the seat count, finite scores.
pub(crate) fn check_results(results: &[SeatResult], players: u32) -> HostResult<()> {
    if results.len() != players as usize {
        return Err(HostError::InvalidRequest(format!(
            "an adjudication gives one result per seat: {players} seats, {} results",
            results.len()
        )));
    }
    for (expected, result) in results.iter().enumerate() {
        if result.seat != expected as u32 {
            return Err(HostError::InvalidRequest(format!(
                "an adjudication gives one result per seat: seat {expected} has {}",
                if result.seat < players {
                    "none (another seat has two)"
                } else {
                    "none (a result names a seat the match does not have)"
                }
            )));
        }
        if result.rank == 0 || result.rank > players {
            return Err(HostError::InvalidRequest(format!(
                "seat {}: a rank is 1 to {players}, not {}",
                result.seat, result.rank
            )));
        }
        if !result.score.is_finite() {
            return Err(HostError::InvalidRequest(format!(
                "seat {}: a score must be a finite number",
                result.seat
            )));
        }
    }
    Ok(())
}

/// What a director's controls left on a match.
#[derive(Debug, Default)]
pub(crate) struct Director {
    /// Since when the match is paused.
    paused_at: Option<i64>,
    /// Why it was aborted.
    aborted: Option<String>,
    /// Whether a director decided its result.
    adjudicated: bool,
}

impl Director {
    /// Whether the match is paused.
    pub(crate) fn is_paused(&self) -> bool {
        self.paused_at.is_some()
    }

    /// Why the match was aborted, if it was.
    pub(crate) fn abort_reason(&self) -> Option<&str> {
        self.aborted.as_deref()
    }

    /// Whether a director decided the match's result.
    pub(crate) fn is_adjudicated(&self) -> bool {
        self.adjudicated
    }

    /// The match is paused at `at_ms`; refused when it is already.
    pub(crate) fn pause(&mut self, at_ms: i64) -> HostResult<()> {
        if self.paused_at.is_some() {
            return Err(refused("the match is already paused"));
        }
        self.paused_at = Some(at_ms);
        Ok(())
    }

    /// The pause ends; returns since when it lasted. Refused when the match
    /// is not paused.
    pub(crate) fn resume(&mut self) -> HostResult<i64> {
        self.paused_at
            .take()
            .ok_or_else(|| refused("the match is not paused"))
    }

    /// The match was aborted for `reason`; any pause ends with it.
    pub(crate) fn note_abort(&mut self, reason: &str) {
        self.paused_at = None;
        self.aborted = Some(reason.to_owned());
    }

    /// A director decided the match's result; any pause ends with it.
    pub(crate) fn note_adjudication(&mut self) {
        self.paused_at = None;
        self.adjudicated = true;
    }

    /// After a restart, a pause still on counts from `now`.
    pub(crate) fn restart_pause(&mut self, now: i64) {
        if let Some(paused_at) = &mut self.paused_at {
            *paused_at = now;
        }
    }

    /// The time the clocks read at `now`: stopped where a pause began.
    pub(crate) fn clock_time(&self, now: i64) -> i64 {
        self.paused_at.map_or(now, |paused| now.min(paused))
    }
}
