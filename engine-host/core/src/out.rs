//! Seats out of the game, and why: taken out by the host (the clock, a
//! resignation, the open-seat deadline) or put out by the game's own rules
//! (which the plugin reports through its seats-out extension).
//!
//! The host records the seats it takes out itself ([`Seat::out`]); a seat
//! the rules put out is read from the plugin's state whenever it is asked
//! for, so a replay needs nothing logged for it. In a match of three or more
//! seats the match also notes, after each turn, which seats the rules have
//! just put out ([`RuleOut`]), so the lifecycle feed can say so with the
//! turn; with two seats a rule that puts one out ends the match, which the
//! feed reports as finished, and the turn costs no extra plugin call.

use serde::{Deserialize, Serialize};
use tabletop_sdk::{Player, Status};

use crate::Match;
use crate::error::HostResult;
use crate::fanout::HostEvent;
use crate::log::LogKind;
use crate::seat::Seat;
use crate::setup::Lifecycle;

/// Why a seat is out of the game: it never moves again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutReason {
    /// The game's rules put it out (Focus's F7), as the plugin says.
    Rule,
    /// Its clock ran out under [`OnTimeout::Out`](crate::OnTimeout::Out).
    /// ([`OnTimeout::Lose`](crate::OnTimeout::Lose) ends the match instead:
    /// nobody plays on, so nobody is out.)
    Clock,
    /// It resigned and the others play on (a resignation that ends the
    /// match leaves the seat `resigned`, not out).
    Resigned,
    /// It was never taken, by the open-seat deadline.
    Absent,
}

/// A seat the game's rules put out of a match of three or more seats while
/// the others played on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleOut {
    /// The version of the turn that put it out.
    pub version: u64,
    /// The seat.
    pub seat: Player,
}

impl Match {
    /// The seats the game's rules put out while the others played on, in
    /// the order it happened (matches of three or more seats).
    pub fn rule_outs(&self) -> &[RuleOut] {
        &self.rule_outs
    }

    /// Notes the seats the turn just logged put out by the game's rules
    /// (none the host took out itself, none noted before).
    pub(crate) fn note_rule_outs(&mut self) -> HostResult<()> {
        if self.setup.players < 3 {
            return Ok(());
        }
        let version = self.version();
        for out in self.state.seats_out()? {
            let host_took_it = self
                .seats
                .get(out.seat as usize)
                .is_none_or(|s| s.out.is_some());
            let noted = self.rule_outs.iter().any(|r| r.seat == out.seat);
            if !host_took_it && !noted {
                self.rule_outs.push(RuleOut {
                    version,
                    seat: out.seat,
                });
            }
        }
        Ok(())
    }

    /// Why each seat is out of the game, by seat (`None`: still in). The
    /// host's own reason comes first; a seat the plugin reports out beside
    /// those is out by the game's rules.
    pub fn out_reasons(&self) -> HostResult<Vec<Option<OutReason>>> {
        let mut reasons: Vec<Option<OutReason>> = self.seats.iter().map(|s| s.out).collect();
        for out in self.state.seats_out()? {
            if let Some(reason @ None) = reasons.get_mut(out.seat as usize) {
                *reason = Some(OutReason::Rule);
            }
        }
        Ok(reasons)
    }

    /// `seat` is out at `at_ms`: the host has just taken it out of the
    /// plugin's state (`remove_player`) for `reason` ([`OutReason::Clock`]
    /// or [`OutReason::Resigned`]). Logged, told to watchers; a match with
    /// too few left to play on ends. This is the part a replay makes too
    /// (the rest is in the log's next entries).
    pub(crate) fn take_out(
        &mut self,
        seat: Player,
        reason: OutReason,
        at_ms: i64,
    ) -> HostResult<()> {
        self.pending.retain(|h| h.seat != seat);
        self.mark_out(seat, reason);
        let (kind, event) = match reason {
            OutReason::Resigned => (LogKind::ResignOut { seat }, HostEvent::ResignedOut { seat }),
            _ => (LogKind::Out { seat }, HostEvent::Out { seat }),
        };
        self.push_log(at_ms, kind);
        if self.state.status()? == Status::Terminal {
            // Too few left to play on: the game ends as the plugin says, and
            // the event below carries the finished view.
            self.finish_normally()?;
            self.pending.clear();
            self.stop_clocks();
        }
        self.publish_host_event(&event, at_ms)?;
        if self.lifecycle != Lifecycle::Finished {
            // Held actions of seats no longer to move are dropped.
            let movers = self.movers()?;
            self.pending.retain(|h| movers.contains(h.seat));
        }
        Ok(())
    }

    /// [`Match::take_out`] live: then, if the seats still to move had all
    /// submitted their part of a simultaneous turn, the turn is complete
    /// without `seat` and is applied now; otherwise play goes on (the other
    /// clocks keep running) or the match finishes if the plugin's state is
    /// terminal.
    pub(crate) fn went_out(&mut self, seat: Player, reason: OutReason, now: i64) -> HostResult<()> {
        self.take_out(seat, reason, now)?;
        if self.lifecycle == Lifecycle::Finished {
            return Ok(());
        }
        let movers = self.movers()?;
        if !movers.is_empty() && self.pending.len() == movers.len() {
            return self.apply_turn(None, now);
        }
        self.resolve_chance_and_end()?;
        self.start_clocks(now)
    }

    /// Records `seat` as out for `reason` (the first reason stays) and stops
    /// its clock for good, its bank emptied.
    pub(crate) fn mark_out(&mut self, seat: Player, reason: OutReason) {
        if let Some(Seat {
            out: out @ None, ..
        }) = self.seats.get_mut(seat as usize)
        {
            *out = Some(reason);
        }
        if let Some(clocks) = &mut self.clocks
            && let (Some(bank), Some(since)) = (
                clocks.bank.get_mut(seat as usize),
                clocks.since.get_mut(seat as usize),
            )
        {
            *bank = 0;
            *since = None;
        }
    }
}
