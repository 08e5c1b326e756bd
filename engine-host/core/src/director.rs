//! A tournament director's controls over a match: abort it without a
//! result, adjudicate its result, pause and resume its clocks, add time to
//! a seat, and the deadline by which its open seats must be taken.
//!
//! Each control is a log entry, applied by one function (`Match::direct`) both when it
//! happens and when the log is replayed, so a control is part of the
//! match's history, its record and its restart like any move.

use serde::{Deserialize, Serialize};
use tabletop_sdk::{Player, Status};

use crate::Match;
use crate::error::{HostError, HostResult};
use crate::fanout::HostEvent;
use crate::log::LogKind;
use crate::out::OutReason;
use crate::seat::SeatResult;
use crate::setup::Lifecycle;

/// Most time one [`Match::add_time`] adds: a day.
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
fn refused(why: impl Into<String>) -> HostError {
    HostError::ControlRefused(why.into())
}

impl Match {
    /// Whether a director has paused the match.
    pub fn is_paused(&self) -> bool {
        self.paused_at.is_some()
    }

    /// Why the match was aborted, if it was.
    pub fn abort_reason(&self) -> Option<&str> {
        self.aborted.as_deref()
    }

    /// Whether a director decided the match's result.
    pub fn is_adjudicated(&self) -> bool {
        self.adjudicated
    }

    /// Ends the match at `at_ms` without a result.
    pub fn abort(&mut self, reason: &str, at_ms: i64) -> HostResult<()> {
        if reason.len() > MAX_ABORT_REASON {
            return Err(HostError::InvalidRequest(format!(
                "an abort's reason is at most {MAX_ABORT_REASON} bytes, not {}",
                reason.len()
            )));
        }
        self.control(
            LogKind::Abort {
                reason: reason.to_string(),
            },
            at_ms,
        )
    }

    /// Ends the running match at `at_ms` with `results`: one per seat, ranks
    /// from 1 (equal ranks share a place).
    pub fn adjudicate(&mut self, mut results: Vec<SeatResult>, at_ms: i64) -> HostResult<()> {
        results.sort_by_key(|r| r.seat);
        self.control(LogKind::Adjudicate { results }, at_ms)
    }

    /// Stops the running match's clocks at `at_ms`; actions are refused
    /// until [`Match::resume`].
    pub fn pause(&mut self, at_ms: i64) -> HostResult<()> {
        self.control(LogKind::Pause, at_ms)
    }

    /// Restarts the paused match's clocks at `at_ms`, each where it stopped.
    pub fn resume(&mut self, at_ms: i64) -> HostResult<()> {
        self.control(LogKind::Resume, at_ms)
    }

    /// Gives `seat` `ms` more time at `at_ms`: on its bank, or on its
    /// current move when the match has no bank.
    pub fn add_time(&mut self, seat: Player, ms: i64, at_ms: i64) -> HostResult<()> {
        // Checked here rather than where a log's AddTime is applied, so a
        // log written before the rule-out was noted still replays.
        if self.rule_outs.iter().any(|r| r.seat == seat) {
            return Err(refused(format!(
                "{} is out of the game by its rules",
                self.seat_label(seat)
            )));
        }
        self.control(LogKind::AddTime { seat, ms }, at_ms)
    }

    /// Applies the open-seat deadline if it has passed by `now` with seats
    /// still open; returns whether it did.
    pub(crate) fn expire_open_seats(&mut self, now: i64) -> HostResult<bool> {
        let Some(deadline) = self.setup.open_seat_deadline else {
            return Ok(false);
        };
        if self.lifecycle != Lifecycle::Waiting || now < deadline.at_ms {
            return Ok(false);
        }
        let absent: Vec<u32> = self
            .seats
            .iter()
            .enumerate()
            .filter(|(_, s)| s.token_hash.is_none())
            .map(|(seat, _)| seat as u32)
            .collect();
        let present = self.setup.players as usize - absent.len();
        let kind = match deadline.on_deadline {
            OnDeadline::StartWithout if present > 0 => LogKind::Absent { seats: absent },
            _ => LogKind::Abort {
                reason: "the open seats were not taken by the deadline".into(),
            },
        };
        self.control(kind, deadline.at_ms)?;
        Ok(true)
    }

    /// Applies a control live: checked and applied, logged, told to
    /// watchers.
    fn control(&mut self, kind: LogKind, at_ms: i64) -> HostResult<()> {
        let event = self.direct(&kind, at_ms)?;
        self.push_log(at_ms, kind);
        self.publish_host_event(&event, at_ms)
    }

    /// Checks a director's control against the match and applies it (not
    /// its log entry): the one place a control changes a match, live or
    /// replayed. Returns what watchers are told.
    pub(crate) fn direct(&mut self, kind: &LogKind, at_ms: i64) -> HostResult<HostEvent> {
        if self.lifecycle == Lifecycle::Finished {
            return Err(HostError::MatchOver {
                clock_ran_out: false,
            });
        }
        match kind {
            LogKind::Abort { reason } => {
                self.paused_at = None;
                self.end(Vec::new());
                self.aborted = Some(reason.clone());
                Ok(HostEvent::Aborted {
                    reason: reason.clone(),
                })
            }
            LogKind::Adjudicate { results } => {
                self.check_running("adjudicate")?;
                self.check_results(results)?;
                self.paused_at = None;
                let results: Vec<SeatResult> = results
                    .iter()
                    .map(|r| SeatResult {
                        resigned: self.seats[r.seat as usize].resigned,
                        ..*r
                    })
                    .collect();
                self.end(results.clone());
                self.adjudicated = true;
                Ok(HostEvent::Adjudicated { results })
            }
            LogKind::Pause => {
                self.check_running("pause")?;
                if self.paused_at.is_some() {
                    return Err(refused("the match is already paused"));
                }
                self.paused_at = Some(at_ms);
                Ok(HostEvent::Paused)
            }
            LogKind::Resume => {
                let Some(paused_at) = self.paused_at.take() else {
                    return Err(refused("the match is not paused"));
                };
                // Each running clock restarts where it stopped: its start
                // moves on by the pause.
                if let Some(clocks) = &mut self.clocks {
                    let pause = (at_ms - paused_at).max(0);
                    for since in clocks.since.iter_mut().flatten() {
                        *since = since.saturating_add(pause);
                    }
                }
                Ok(HostEvent::Resumed)
            }
            LogKind::AddTime { seat, ms } => {
                self.check_running("add time to")?;
                self.add_to_clock(*seat, *ms)?;
                Ok(HostEvent::TimeAdded {
                    seat: *seat,
                    ms: *ms,
                })
            }
            LogKind::Absent { seats } => self.start_without(seats, at_ms),
            LogKind::Moves { .. }
            | LogKind::Chance { .. }
            | LogKind::Resign { .. }
            | LogKind::ResignOut { .. }
            | LogKind::Timeout { .. }
            | LogKind::Out { .. } => Err(HostError::Internal(
                "a move, chance or seat change is not a director's control".into(),
            )),
        }
    }

    fn check_running(&self, what: &str) -> HostResult<()> {
        match self.lifecycle {
            Lifecycle::Running => Ok(()),
            Lifecycle::Waiting => Err(refused(format!(
                "cannot {what} a match that waits for players (abort it instead)"
            ))),
            Lifecycle::Finished => Err(HostError::MatchOver {
                clock_ran_out: false,
            }),
        }
    }

    /// One result per seat (sorted by seat), ranks 1 to the seat count,
    /// finite scores.
    fn check_results(&self, results: &[SeatResult]) -> HostResult<()> {
        let players = self.setup.players;
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

    fn add_to_clock(&mut self, seat: Player, ms: i64) -> HostResult<()> {
        if !(1..=MAX_ADDED_MS).contains(&ms) {
            return Err(HostError::InvalidRequest(format!(
                "added time is 1 ms to {MAX_ADDED_MS} ms (a day), not {ms}"
            )));
        }
        let players = self.setup.players;
        if seat >= players {
            return Err(HostError::UnknownSeat { seat, players });
        }
        let label = self.seat_label(seat);
        if self.seats[seat as usize].out.is_some() {
            return Err(refused(format!("{label} is out of the game")));
        }
        let Some(clocks) = &mut self.clocks else {
            return Err(refused("the match has no clock"));
        };
        let index = seat as usize;
        if clocks.control.bank_ms > 0 {
            clocks.bank[index] = clocks.bank[index].saturating_add(ms);
            return Ok(());
        }
        match &mut clocks.since[index] {
            // Per-move time only: this move's clock starts later.
            Some(since) => {
                *since = since.saturating_add(ms);
                Ok(())
            }
            None => Err(refused(format!(
                "the match has time per move only, and {label} is not to move"
            ))),
        }
    }

    /// Ends the match with `results` (none: aborted).
    fn end(&mut self, results: Vec<SeatResult>) {
        self.results = results;
        self.pending.clear();
        self.lifecycle = Lifecycle::Finished;
        self.stop_clocks();
    }

    /// The open-seat deadline passed with `absent` seats open: a game that
    /// can remove players and keeps two plays on without them; otherwise
    /// the seats there share first place and the absent ones share last.
    fn start_without(&mut self, absent: &[u32], at_ms: i64) -> HostResult<HostEvent> {
        let players = self.setup.players;
        let open: Vec<u32> = self
            .seats
            .iter()
            .enumerate()
            .filter(|(_, s)| s.token_hash.is_none())
            .map(|(seat, _)| seat as u32)
            .collect();
        // An imported record gives every seat a token, so the match it
        // replays runs from its start: the absent seats are then the ones
        // the record names, before anything but chance has happened.
        let imported_start = self.lifecycle == Lifecycle::Running
            && self
                .log
                .iter()
                .all(|e| matches!(e.kind, LogKind::Chance { .. }));
        let fits = match self.lifecycle {
            Lifecycle::Waiting => open.as_slice() == absent,
            _ => imported_start && absent.iter().all(|&seat| seat < players),
        };
        if !fits || absent.is_empty() || absent.len() >= players as usize {
            return Err(HostError::InvalidRecord(format!(
                "absent seats {absent:?} are not the open seats {open:?} of a match that \
                 waits for players"
            )));
        }
        for &seat in absent {
            self.mark_out(seat, OutReason::Absent);
        }
        let present = players as usize - absent.len();
        if self.game.manifest().removable_players && present >= 2 {
            for &seat in absent {
                self.state.remove_player(seat)?;
            }
            self.lifecycle = Lifecycle::Running;
            if self.state.status()? == Status::Terminal {
                self.finish_normally()?;
                self.stop_clocks();
            } else {
                self.start_clocks(at_ms)?;
            }
        } else {
            let last = present as u32 + 1;
            let results = (0..players)
                .map(|seat| SeatResult {
                    seat,
                    rank: if absent.contains(&seat) { last } else { 1 },
                    score: 0.0,
                    resigned: false,
                })
                .collect();
            self.end(results);
        }
        Ok(HostEvent::Absent {
            seats: absent.to_vec(),
        })
    }
}
