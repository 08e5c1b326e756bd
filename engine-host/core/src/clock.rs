//! Clocks: per-move limits, banks with increments, and what running out does
//! (the seat loses, or leaves the game while the others play on).
//!
//! A seat's clock runs while it is to move (every mover's at once in a
//! simultaneous turn) and stops when it acts. Times are milliseconds since
//! the Unix epoch, passed in by the caller, so replay charges exactly what
//! was charged live.

use serde::{Deserialize, Serialize};
use tabletop_sdk::{Player, PlayerSet};

/// What a seat's clock running out does, by the match's time control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnTimeout {
    /// The match ends with the seat last, every other seat sharing first.
    #[default]
    Lose,
    /// The seat leaves the game and the others play on; the game ends as the
    /// plugin's rules say when too few are left. Only for games whose
    /// manifest says `removable_players` and matches of three or more seats.
    Out,
}

impl OnTimeout {
    fn is_lose(&self) -> bool {
        *self == OnTimeout::Lose
    }
}

/// A match's time control, in milliseconds (0 = not used). A seat's clock
/// runs while it is to move (all movers' clocks at once in simultaneous
/// turns) and stops when it acts. `per_move_ms` limits each move; `bank_ms`
/// is the seat's total time, to which `increment_ms` is added after each of
/// its actions. The seat whose time runs out first loses, or with
/// [`OnTimeout::Out`] leaves the game while the others play on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TimeControl {
    /// Longest time for one move (0: no limit per move).
    pub per_move_ms: i64,
    /// Each seat's total time (0: no bank).
    pub bank_ms: i64,
    /// Added to the bank after each action.
    pub increment_ms: i64,
    /// What running out does. Left out of records when it is `lose`, so
    /// records of matches without the choice stay as they were.
    #[serde(default, skip_serializing_if = "OnTimeout::is_lose")]
    pub on_timeout: OnTimeout,
}

/// The largest value of each of a time control's fields: 30 days, in ms.
/// Far beyond any real game's clock, and small enough that no sum a match
/// makes of them (a bank that collects increments for years of moves)
/// comes near `i64::MAX`; the clock's arithmetic saturates all the same.
pub const MAX_TIME_CONTROL_MS: i64 = 30 * 24 * 60 * 60 * 1000;

impl TimeControl {
    /// Refuses a time control that cannot be played.
    pub fn validate(&self) -> Result<(), String> {
        if self.per_move_ms < 0 || self.bank_ms < 0 || self.increment_ms < 0 {
            return Err("time control values must not be negative".into());
        }
        for (field, value) in [
            ("per_move_ms", self.per_move_ms),
            ("bank_ms", self.bank_ms),
            ("increment_ms", self.increment_ms),
        ] {
            if value > MAX_TIME_CONTROL_MS {
                return Err(format!(
                    "{field} is at most {MAX_TIME_CONTROL_MS} (30 days), not {value}"
                ));
            }
        }
        if self.per_move_ms == 0 && self.bank_ms == 0 {
            return Err("a time control needs per_move_ms or bank_ms".into());
        }
        if self.increment_ms > 0 && self.bank_ms == 0 {
            return Err("increment_ms needs a bank (bank_ms)".into());
        }
        Ok(())
    }
}

/// The seats' clocks, if the match has a time control: each seat's bank
/// and since when its clock runs. Times are passed in, never read here.
#[derive(Debug, Clone)]
pub(crate) struct Clocks {
    /// None: the match has no clock, and every other field is empty.
    control: Option<TimeControl>,
    /// Remaining bank per seat.
    bank: Vec<i64>,
    /// Since when each seat's clock runs (None: stopped).
    since: Vec<Option<i64>>,
}

/// Why time could not be added to a seat's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AddRefused {
    /// The match has no clock.
    NoClock,
    /// The match has time per move only, and the seat is not to move.
    NotToMove,
}

impl Clocks {
    /// The clocks of `seats` seats under `control` (None: no clock), all
    /// stopped, every bank full.
    pub(crate) fn new(control: Option<TimeControl>, seats: usize) -> Clocks {
        let Some(control) = control else {
            return Clocks {
                control: None,
                bank: Vec::new(),
                since: Vec::new(),
            };
        };
        Clocks {
            control: Some(control),
            bank: vec![control.bank_ms; seats],
            since: vec![None; seats],
        }
    }

    /// Whether the match has a clock.
    pub(crate) fn exist(&self) -> bool {
        self.control.is_some()
    }

    /// What running out does, if the match has a clock.
    pub(crate) fn on_timeout(&self) -> Option<OnTimeout> {
        self.control.map(|c| c.on_timeout)
    }

    /// Charges `seat` for the time since its clock started, and stops it.
    pub(crate) fn charge(&mut self, seat: Player, at: i64) {
        let Some(control) = self.control else {
            return;
        };
        let Some(slot) = self.since.get_mut(seat as usize) else {
            return;
        };
        if let Some(started) = slot.take()
            && control.bank_ms > 0
        {
            let bank = &mut self.bank[seat as usize];
            let used = at.saturating_sub(started).max(0);
            *bank = bank
                .saturating_sub(used)
                .saturating_add(control.increment_ms);
        }
    }

    /// Starts at `at` the clocks of the `waiting` seats that are not
    /// running; stops every other.
    pub(crate) fn run(&mut self, at: i64, waiting: PlayerSet) {
        for (seat, since) in self.since.iter_mut().enumerate() {
            if !waiting.contains(seat as Player) {
                *since = None;
            } else if since.is_none() {
                *since = Some(at);
            }
        }
    }

    /// Stops every clock.
    pub(crate) fn stop(&mut self) {
        self.since.iter_mut().for_each(|s| *s = None);
    }

    /// Every running clock starts `by` ms later: a pause that long is not
    /// charged.
    pub(crate) fn delay_running(&mut self, by: i64) {
        for since in self.since.iter_mut().flatten() {
            *since = since.saturating_add(by);
        }
    }

    /// Every running clock restarts at `now`.
    pub(crate) fn restart_running(&mut self, now: i64) {
        for since in self.since.iter_mut().flatten() {
            *since = now;
        }
    }

    /// When the first running clock runs out, and whose it is.
    pub(crate) fn deadline(&self) -> Option<(i64, Player)> {
        let control = self.control?;
        self.since
            .iter()
            .enumerate()
            .filter_map(|(seat, since)| {
                let started = (*since)?;
                let mut deadline = i64::MAX;
                if control.per_move_ms > 0 {
                    deadline = deadline.min(started.saturating_add(control.per_move_ms));
                }
                if control.bank_ms > 0 {
                    deadline = deadline.min(started.saturating_add(self.bank[seat]));
                }
                Some((deadline, seat as Player))
            })
            .min()
    }

    /// Time left for `seat` at `now`.
    pub(crate) fn remaining(&self, seat: Player, now: i64) -> Option<i64> {
        let control = self.control?;
        let bank = self.bank[seat as usize];
        let remaining = match self.since[seat as usize] {
            Some(started) => {
                let used = now.saturating_sub(started);
                let mut left = i64::MAX;
                if control.per_move_ms > 0 {
                    left = left.min(control.per_move_ms.saturating_sub(used));
                }
                if control.bank_ms > 0 {
                    left = left.min(bank.saturating_sub(used));
                }
                left
            }
            None if control.bank_ms > 0 => bank,
            None => control.per_move_ms,
        };
        Some(remaining.max(0))
    }

    /// `seat`'s bank is spent (its time ran out).
    pub(crate) fn empty_bank(&mut self, seat: Player) {
        if let Some(bank) = self.bank.get_mut(seat as usize) {
            *bank = 0;
        }
    }

    /// Stops `seat`'s clock for good, its bank emptied: it left the game.
    pub(crate) fn retire(&mut self, seat: Player) {
        if let (Some(bank), Some(since)) = (
            self.bank.get_mut(seat as usize),
            self.since.get_mut(seat as usize),
        ) {
            *bank = 0;
            *since = None;
        }
    }

    /// Gives `seat` `ms` more: on its bank, or on its current move when the
    /// match has no bank.
    pub(crate) fn add(&mut self, seat: Player, ms: i64) -> Result<(), AddRefused> {
        let Some(control) = self.control else {
            return Err(AddRefused::NoClock);
        };
        let index = seat as usize;
        if control.bank_ms > 0 {
            self.bank[index] = self.bank[index].saturating_add(ms);
            return Ok(());
        }
        match &mut self.since[index] {
            // Per-move time only: this move's clock starts later.
            Some(since) => {
                *since = since.saturating_add(ms);
                Ok(())
            }
            None => Err(AddRefused::NotToMove),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Times from a hostile record (the extremes of `i64`) and a bank that
    /// collected increments for ever neither panic nor overflow: the
    /// arithmetic saturates.
    #[test]
    fn clocks_at_the_extremes_saturate_instead_of_overflowing() {
        let longest = TimeControl {
            per_move_ms: MAX_TIME_CONTROL_MS,
            bank_ms: MAX_TIME_CONTROL_MS,
            increment_ms: MAX_TIME_CONTROL_MS,
            on_timeout: OnTimeout::Lose,
        };
        let mut clocks = Clocks::new(Some(longest), 2);
        let seat_0 = PlayerSet::single(0);
        clocks.run(i64::MIN, seat_0);
        clocks.charge(0, i64::MAX);
        clocks.run(i64::MAX, seat_0);
        assert!(clocks.remaining(0, i64::MIN).is_some());
        assert!(clocks.deadline().is_some());
        // Increments pile up without bound over a long match: saturated.
        clocks.charge(0, i64::MAX);
        assert_eq!(clocks.add(0, i64::MAX), Ok(()));
        clocks.run(i64::MIN, seat_0);
        clocks.charge(0, i64::MIN);
        assert!(clocks.remaining(0, 0).is_some_and(|left| left > 0));
    }

    #[test]
    fn a_match_without_a_time_control_has_no_clock_to_run_or_add_to() {
        let mut clocks = Clocks::new(None, 2);
        clocks.run(0, PlayerSet::single(0));
        clocks.charge(0, 10);
        assert!(!clocks.exist());
        assert_eq!(clocks.deadline(), None);
        assert_eq!(clocks.remaining(0, 10), None);
        assert_eq!(clocks.add(0, 5), Err(AddRefused::NoClock));
    }
}
