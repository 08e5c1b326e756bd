//! Resignation: a seat gives up. In a running match of three or more seats
//! whose game can take a player out of a running game, only that seat
//! leaves ([`LogKind::ResignOut`]): the plugin takes it out
//! (`remove_player`) and the others play on, as after a clock's `out`.
//! When that leaves one seat (or one team) in, the game ends as its rules
//! say, ranking the seats that left by when they left; the host's own
//! ending would put every seat but the resigning one first, seats that
//! had already left included. Otherwise (two seats, a game that cannot
//! remove players, a match still waiting for players) the match ends
//! ([`LogKind::Resign`]): the seat is last and every other seat shares
//! first place.
//!
//! The log says which of the two happened, and a replay does what the entry
//! says without deciding again, so a log replays the same whatever the
//! plugin or the rule for choosing becomes.

use tabletop_sdk::Player;

use crate::Match;
use crate::error::{HostError, HostResult};
use crate::fanout::HostEvent;
use crate::log::LogKind;
use crate::out::OutReason;
use crate::seat::SeatResult;
use crate::setup::{Lifecycle, now_ms};

impl Match {
    /// `seat` resigns now.
    pub fn resign(&mut self, seat: Player) -> HostResult<()> {
        self.resign_at(seat, now_ms())
    }

    /// `seat` resigns at `at_ms`: it leaves a match that plays on without
    /// it, or the match ends. Refused for a finished match, for a seat
    /// already out of the game (it has nothing left to give up), and, while
    /// a director has paused the match, for one the seat would leave alone.
    pub(crate) fn resign_at(&mut self, seat: Player, at_ms: i64) -> HostResult<()> {
        if self.lifecycle == Lifecycle::Finished {
            return Err(HostError::MatchOver {
                clock_ran_out: false,
            });
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
        let leaves_alone = self.lifecycle == Lifecycle::Running
            && players >= 3
            && others_in >= 1
            && self.game.manifest().removable_players;
        if leaves_alone {
            if self.paused_at.is_some() {
                // Taking the seat out starts the next mover's clock, which a
                // pause has stopped: like an action, it waits for the resume.
                return Err(HostError::MatchPaused);
            }
            match self.state.remove_player(seat) {
                Ok(()) => {
                    self.seats[seat as usize].resigned = true;
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
        self.push_log(at_ms, LogKind::Resign { seat });
        let players = self.setup.players;
        // Resigned, not out: "out" is a seat that left a game the others
        // played on, and here nobody plays on.
        if let Some(s) = self.seats.get_mut(seat as usize) {
            s.resigned = true;
        }
        self.results = (0..players)
            .map(|p| SeatResult {
                seat: p,
                rank: if p == seat { players } else { 1 },
                score: 0.0,
                resigned: p == seat,
            })
            .collect();
        self.pending.clear();
        self.lifecycle = Lifecycle::Finished;
        self.stop_clocks();
        self.publish_host_event(&HostEvent::Resigned { seat }, at_ms)
    }
}
