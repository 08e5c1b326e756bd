//! Leaving: a seat resigns, its clock runs out, or the host takes it out of
//! a game that plays on. Each touches the seats, the stage, the clocks,
//! the held turn, the log and the feed, so it is coordinated here through
//! their APIs.
//!
//! Resignation: in a running match of three or more seats whose game can
//! take a player out of a running game, only that seat leaves
//! ([`LogKind::ResignOut`]): the plugin takes it out (`remove_player`) and
//! the others play on, as after a clock's `out`. When that leaves one seat
//! (or one team) in, the game ends as its rules say, ranking the seats that
//! left by when they left; the host's own ending would put every seat but
//! the resigning one first, seats that had already left included.
//! Otherwise (two seats, a game that cannot remove players, a match still
//! waiting for players) the match ends ([`LogKind::Resign`]): the seat is
//! last and every other seat shares first place.
//!
//! The log says which of the two happened, and a replay does what the entry
//! says without deciding again, so a log replays the same whatever the
//! plugin or the rule for choosing becomes.

use tabletop_sdk::{Player, Status};

use super::Match;
use crate::clock::OnTimeout;
use crate::error::{HostError, HostResult};
use crate::fanout::HostEvent;
use crate::log::LogKind;
use crate::out::OutReason;
use crate::seat::SeatResult;
use crate::setup::now_ms;

/// Every seat first but `seat`, which is last: how a match ends when a seat
/// resigns or loses on time and nobody plays on.
fn all_but_one_first(players: u32, seat: Player, resigned: bool) -> Vec<SeatResult> {
    (0..players)
        .map(|p| SeatResult {
            seat: p,
            rank: if p == seat { players } else { 1 },
            score: 0.0,
            resigned: resigned && p == seat,
        })
        .collect()
}

impl Match {
    /// `seat` resigns now.
    pub fn resign(&mut self, seat: Player) -> HostResult<()> {
        self.resign_at(seat, now_ms())
    }

    /// `seat` resigns at `at_ms`: it leaves a match that plays on without
    /// it, or the match ends. Refused for a finished match, for a
    /// quarantined one (ending it is a director's; leaving it would call
    /// its plugin), for a seat already out of the game (it has nothing left
    /// to give up), and, while a director has paused the match, for one
    /// the seat would leave alone.
    pub(crate) fn resign_at(&mut self, seat: Player, at_ms: i64) -> HostResult<()> {
        if self.stage.is_finished() {
            return Err(HostError::MatchOver {
                clock_ran_out: false,
            });
        }
        if self.is_quarantined() {
            return Err(self.quarantined());
        }
        let players = self.setup.players;
        if seat >= players {
            return Err(HostError::UnknownSeat { seat, players });
        }
        let out = self.out_reasons()?;
        if out[seat as usize].is_some() {
            return Err(HostError::NotToMove(format!(
                "{} is out of the game already: it cannot resign",
                self.seat_label(seat)
            )));
        }
        let others_in = out.iter().filter(|reason| reason.is_none()).count() - 1;
        let leaves_alone = self.stage.is_running()
            && players >= 3
            && others_in >= 1
            && self.game.manifest().removable_players;
        if leaves_alone {
            if self.director.is_paused() {
                // Taking the seat out starts the next mover's clock, which a
                // pause has stopped: like an action, it waits for the resume.
                return Err(HostError::MatchPaused);
            }
            match self.state.remove_player(seat) {
                Ok(()) => {
                    self.seats.resign(seat);
                    return self.went_out(seat, OutReason::Resigned, at_ms);
                }
                // The manifest says the game removes players, so a refusal
                // is a plugin fault. The state is unchanged; the match ends
                // as a resignation always may.
                Err(e) => tracing::error!(
                    match_id = %self.setup.match_id,
                    seat,
                    error = %e,
                    "the plugin refused to remove a resigning seat; the match ends instead"
                ),
            }
        }
        self.end_by_resignation(seat, at_ms)
    }

    /// `seat` resigned at `at_ms` and the match ends ([`LogKind::Resign`]):
    /// logged, the seat last and every other seat first (for two players:
    /// the opponent wins), watchers told. What a replay of the entry does.
    pub(crate) fn end_by_resignation(&mut self, seat: Player, at_ms: i64) -> HostResult<()> {
        self.log.push(at_ms, LogKind::Resign { seat });
        // Resigned, not out: "out" is a seat that left a game the others
        // played on, and here nobody plays on.
        self.seats.resign(seat);
        self.end(all_but_one_first(self.setup.players, seat, true));
        self.publish_host_event(&HostEvent::Resigned { seat }, at_ms)
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
        if self.clocks.on_timeout() == Some(OnTimeout::Out) {
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
    /// is over, `seat` last and every other seat sharing first place (for
    /// two players: the opponent wins); the log records it and watchers
    /// are told.
    pub(crate) fn lose_on_time(&mut self, seat: Player, at_ms: i64) -> HostResult<()> {
        self.clocks.empty_bank(seat);
        self.log.push(at_ms, LogKind::Timeout { seat });
        self.end(all_but_one_first(self.setup.players, seat, false));
        self.publish_host_event(&HostEvent::Timeout { seat }, at_ms)
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
        self.held.drop_seat(seat);
        self.mark_out(seat, reason);
        let (kind, event) = match reason {
            OutReason::Resigned => (LogKind::ResignOut { seat }, HostEvent::ResignedOut { seat }),
            _ => (LogKind::Out { seat }, HostEvent::Out { seat }),
        };
        self.log.push(at_ms, kind);
        if self.state.status()? == Status::Terminal {
            // Too few left to play on: the game ends as the plugin says, and
            // the event below carries the finished view.
            self.finish_normally()?;
            self.held.clear();
            self.clocks.stop();
        }
        self.publish_host_event(&event, at_ms)?;
        if !self.stage.is_finished() {
            // Held actions of seats no longer to move are dropped.
            let movers = self.movers()?;
            self.held.keep_movers(movers);
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
        if self.stage.is_finished() {
            return Ok(());
        }
        let movers = self.movers()?;
        if !movers.is_empty() && self.held.len() == movers.len() {
            return self.apply_turn(None, now);
        }
        self.resolve_chance_and_end()?;
        self.start_clocks(now)
    }
}
