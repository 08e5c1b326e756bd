//! Clocks: per-move limits, banks with increments, and what running out does
//! (the seat loses, or leaves the game while the others play on).
//!
//! A seat's clock runs while it is to move (every mover's at once in a
//! simultaneous turn) and stops when it acts. Times are milliseconds since
//! the Unix epoch, passed in by the caller, so replay charges exactly what
//! was charged live.

use serde::{Deserialize, Serialize};
use tabletop_sdk::Player;

use crate::Match;
use crate::error::HostResult;
use crate::fanout::HostEvent;
use crate::log::LogKind;
use crate::out::OutReason;
use crate::seat::SeatResult;
use crate::setup::{Lifecycle, MatchSetup};

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

impl Clocks {
    pub(crate) fn new(setup: &MatchSetup) -> Option<Clocks> {
        let control = setup.time_control?;
        let seats = setup.players as usize;
        Some(Clocks {
            control,
            bank: vec![control.bank_ms; seats],
            since: vec![None; seats],
        })
    }
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

/// The seats' clocks.
#[derive(Debug, Clone)]
pub(crate) struct Clocks {
    pub(crate) control: TimeControl,
    /// Remaining bank per seat.
    pub(crate) bank: Vec<i64>,
    /// Since when each seat's clock runs (None: stopped).
    pub(crate) since: Vec<Option<i64>>,
}

impl Match {
    /// After a restart: running clocks restart now (the time the host was
    /// down is not charged to anyone).
    pub fn resume_clocks(&mut self, now: i64) {
        if let Some(paused_at) = &mut self.paused_at {
            // Still paused: the pause, too, counts from now.
            *paused_at = now;
        }
        if let Some(clocks) = &mut self.clocks {
            for since in clocks.since.iter_mut().flatten() {
                *since = now;
            }
        }
    }

    /// Whether the match has a deadline to watch: a clock while it is not
    /// over, or an open-seat deadline while it waits for players.
    pub fn has_deadline(&self) -> bool {
        match self.lifecycle {
            Lifecycle::Finished => false,
            Lifecycle::Waiting => self.clocks.is_some() || self.setup.open_seat_deadline.is_some(),
            Lifecycle::Running => self.clocks.is_some(),
        }
    }

    /// Charges `seat` for the time since its clock started, and stops it.
    pub(crate) fn charge(&mut self, seat: Player, at: i64) {
        let Some(clocks) = &mut self.clocks else {
            return;
        };
        let Some(slot) = clocks.since.get_mut(seat as usize) else {
            return;
        };
        if let Some(started) = slot.take()
            && clocks.control.bank_ms > 0
        {
            let bank = &mut clocks.bank[seat as usize];
            let used = at.saturating_sub(started).max(0);
            *bank = bank
                .saturating_sub(used)
                .saturating_add(clocks.control.increment_ms);
        }
    }

    /// Starts the clocks of the seats to move now that are not running (and
    /// have not acted this turn); stops the others.
    pub(crate) fn start_clocks(&mut self, at: i64) -> HostResult<()> {
        if self.clocks.is_none() {
            return Ok(());
        }
        let movers = self.movers()?;
        let pending: Vec<Player> = self.pending.iter().map(|h| h.seat).collect();
        if let Some(clocks) = &mut self.clocks {
            for (seat, since) in clocks.since.iter_mut().enumerate() {
                let seat = seat as Player;
                if !movers.contains(seat) || pending.contains(&seat) {
                    *since = None;
                } else if since.is_none() {
                    *since = Some(at);
                }
            }
        }
        Ok(())
    }

    /// When the first running clock runs out, and whose it is.
    pub fn clock_deadline(&self) -> Option<(i64, Player)> {
        let clocks = self.clocks.as_ref()?;
        if self.lifecycle != Lifecycle::Running || self.paused_at.is_some() {
            return None;
        }
        clocks
            .since
            .iter()
            .enumerate()
            .filter_map(|(seat, since)| {
                let started = (*since)?;
                let mut deadline = i64::MAX;
                if clocks.control.per_move_ms > 0 {
                    deadline = deadline.min(started.saturating_add(clocks.control.per_move_ms));
                }
                if clocks.control.bank_ms > 0 {
                    deadline = deadline.min(started.saturating_add(clocks.bank[seat]));
                }
                Some((deadline, seat as Player))
            })
            .min()
    }

    /// Time left for `seat` at `now`.
    pub(crate) fn clock_remaining(&self, seat: Player, now: i64) -> Option<i64> {
        let clocks = self.clocks.as_ref()?;
        let control = clocks.control;
        let bank = clocks.bank[seat as usize];
        // A paused clock shows what it had left when the pause began.
        let now = self.paused_at.map_or(now, |paused| now.min(paused));
        let remaining = match clocks.since[seat as usize] {
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

    /// Ends the match if a clock has run out by `now`, or applies its
    /// open-seat deadline if that has passed; returns whether either did.
    pub fn expire_clock(&mut self, now: i64) -> HostResult<bool> {
        if self.expire_open_seats(now)? {
            return Ok(true);
        }
        let Some((deadline, seat)) = self.clock_deadline() else {
            return Ok(false);
        };
        if deadline > now {
            return Ok(false);
        }
        if self.clocks.as_ref().map(|c| c.control.on_timeout) == Some(OnTimeout::Out) {
            match self.state.remove_player(seat) {
                Ok(()) => {
                    self.went_out(seat, OutReason::Clock, now)?;
                    return Ok(true);
                }
                // CreateMatch only allows `out` for games that declare
                // `removable_players`, so a refusal is a plugin fault. The
                // state is unchanged; the seat loses instead (the `lose`
                // rule), so the clock does not stay expired for ever.
                Err(e) => tracing::error!(
                    match_id = %self.setup.match_id,
                    seat,
                    error = %e,
                    "the plugin refused to remove a timed-out seat; the seat loses instead"
                ),
            }
        }
        self.lose_on_time(seat, now)?;
        Ok(true)
    }

    /// [`OnTimeout::Lose`]: `seat`'s time ran out at `at_ms` and the match
    /// is over; the log records it and watchers are told.
    pub(crate) fn lose_on_time(&mut self, seat: Player, at_ms: i64) -> HostResult<()> {
        if let Some(bank) = self
            .clocks
            .as_mut()
            .and_then(|clocks| clocks.bank.get_mut(seat as usize))
        {
            *bank = 0;
        }
        self.push_log(at_ms, LogKind::Timeout { seat });
        self.finish_by_timeout(seat);
        self.publish_host_event(&HostEvent::Timeout { seat }, at_ms)
    }

    /// A seat's time ran out: it is last, every other seat shares first place
    /// (for two players: the opponent wins). This is [`OnTimeout::Lose`], so
    /// with more players the match ends too.
    pub(crate) fn finish_by_timeout(&mut self, seat: Player) {
        let players = self.setup.players;
        self.results = (0..players)
            .map(|p| SeatResult {
                seat: p,
                rank: if p == seat { players } else { 1 },
                score: 0.0,
                resigned: false,
            })
            .collect();
        self.pending.clear();
        self.lifecycle = Lifecycle::Finished;
        self.stop_clocks();
    }

    pub(crate) fn stop_clocks(&mut self) {
        if let Some(clocks) = &mut self.clocks {
            clocks.since.iter_mut().for_each(|s| *s = None);
        }
    }
}
