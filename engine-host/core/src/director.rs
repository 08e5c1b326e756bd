//! A tournament director's controls over a match: abort it without a
//! result, adjudicate its result, pause and resume its clocks, add time to
//! a seat, and the deadline by which its open seats must be taken.
//!
//! Each control is a log entry, applied by one function (`Match::direct`)
//! both when it happens and when the log is replayed, so a control is part
//! of the match's history, its record and its restart like any move.
//!
//! The host's own control is here too: it quarantines a match whose
//! plugin's worker died in one of the match's calls, and the admin lifts
//! the quarantine. A quarantine is logged and replayed like a director's
//! control, so a restarted or read-back match is quarantined again.
//!
//! `Director` keeps what the controls leave on a match: whether it is
//! paused, whether it is quarantined and why, since when its clocks are
//! stopped (by either), why it was aborted, whether its result was
//! decided. The checks of a control's arguments live here too; what a
//! control does to the seats, clocks and stage is the match's to
//! coordinate.

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

/// A quarantine's reason cut to at most [`MAX_ABORT_REASON`] bytes, on a
/// character boundary, ending `…` when cut. Cut rather than refused: the
/// host quarantines a match whatever its fault's message says.
pub(crate) fn capped_reason(reason: &str) -> String {
    if reason.len() <= MAX_ABORT_REASON {
        return reason.to_owned();
    }
    let ellipsis = '…';
    let mut end = MAX_ABORT_REASON - ellipsis.len_utf8();
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{ellipsis}", &reason[..end])
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

/// What a director's controls, and the host's quarantine, left on a
/// match.
///
/// A pause and a quarantine both stop the clocks, and share the time they
/// stopped at: the clocks run again only once neither holds them (a
/// release of a paused match, or a resume of a quarantined one, leaves
/// them stopped), and then restart where they stopped.
#[derive(Debug, Default)]
pub(crate) struct Director {
    /// Whether a director paused the match.
    paused: bool,
    /// Why the host quarantined the match, while it is, and after a
    /// director ended it quarantined.
    quarantine: Option<String>,
    /// Since when the clocks are stopped, while a pause or a quarantine
    /// holds them.
    stopped_at: Option<i64>,
    /// Why it was aborted.
    aborted: Option<String>,
    /// Whether a director decided its result.
    adjudicated: bool,
}

impl Director {
    /// Whether the match is paused.
    pub(crate) fn is_paused(&self) -> bool {
        self.paused
    }

    /// Why the match is quarantined, or was when it ended.
    pub(crate) fn quarantine_reason(&self) -> Option<&str> {
        self.quarantine.as_deref()
    }

    /// Whether a pause or a quarantine holds the clocks.
    pub(crate) fn clocks_stopped(&self) -> bool {
        self.stopped_at.is_some()
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
        if self.paused {
            return Err(refused("the match is already paused"));
        }
        self.paused = true;
        self.stopped_at.get_or_insert(at_ms);
        Ok(())
    }

    /// The pause ends. Returns since when the clocks were stopped, if they
    /// run again now (not while a quarantine still holds them). Refused
    /// when the match is not paused.
    pub(crate) fn resume(&mut self) -> HostResult<Option<i64>> {
        if !self.paused {
            return Err(refused("the match is not paused"));
        }
        self.paused = false;
        Ok(self.restart_unless_held())
    }

    /// The match is quarantined at `at_ms` for `reason`; refused when it is
    /// already.
    pub(crate) fn quarantine(&mut self, reason: &str, at_ms: i64) -> HostResult<()> {
        if let Some(why) = &self.quarantine {
            return Err(refused(format!("the match is already quarantined ({why})")));
        }
        self.quarantine = Some(reason.to_owned());
        self.stopped_at.get_or_insert(at_ms);
        Ok(())
    }

    /// The quarantine is lifted. Returns since when the clocks were
    /// stopped, if they run again now (not while a pause still holds
    /// them). Refused when the match is not quarantined.
    pub(crate) fn release(&mut self) -> HostResult<Option<i64>> {
        if self.quarantine.take().is_none() {
            return Err(refused("the match is not quarantined"));
        }
        Ok(self.restart_unless_held())
    }

    /// The clocks' stop ends unless a pause or a quarantine still holds
    /// them: since when they were stopped, if they run again.
    fn restart_unless_held(&mut self) -> Option<i64> {
        if self.paused || self.quarantine.is_some() {
            return None;
        }
        self.stopped_at.take()
    }

    /// The match was aborted for `reason`; any pause ends with it, and the
    /// clocks stop for good. A quarantine's reason stays: the match ended
    /// quarantined, and its plugin is not called for it again.
    pub(crate) fn note_abort(&mut self, reason: &str) {
        self.end_pause();
        self.aborted = Some(reason.to_owned());
    }

    /// A director decided the match's result; as for an abort, any pause
    /// ends with it and a quarantine's reason stays.
    pub(crate) fn note_adjudication(&mut self) {
        self.end_pause();
        self.adjudicated = true;
    }

    fn end_pause(&mut self) {
        self.paused = false;
        self.stopped_at = None;
    }

    /// After a restart, clocks still stopped count their stop from `now`.
    pub(crate) fn restart_stop(&mut self, now: i64) {
        if let Some(stopped_at) = &mut self.stopped_at {
            *stopped_at = now;
        }
    }

    /// The time the clocks read at `now`: where they stopped, while they
    /// are stopped.
    pub(crate) fn clock_time(&self, now: i64) -> i64 {
        self.stopped_at.map_or(now, |stopped| now.min(stopped))
    }
}
