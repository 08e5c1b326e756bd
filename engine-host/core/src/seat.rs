//! Seats: who holds them (a token hash), what everyone may know about them,
//! their results; and the match's answers to "whose token is this" and
//! "take an open seat".

use serde::{Deserialize, Serialize};
use tabletop_sdk::{Player, Viewer};

use crate::Match;
use crate::error::{Credential, HostError, HostResult};
use crate::fanout::HostEvent;
use crate::history::SeatJoin;
use crate::out::OutReason;
use crate::setup::{Lifecycle, now_ms};
use crate::tokens::{hash_token, hashes_equal};

/// One seat's final result.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SeatResult {
    /// The seat.
    pub seat: u32,
    /// 1 = first; shared places share a rank.
    pub rank: u32,
    /// The game's score.
    pub score: f64,
    /// Whether the seat resigned.
    pub resigned: bool,
}

/// What everyone may know about a seat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatInfo {
    /// The seat.
    pub seat: u32,
    /// Held by a player.
    pub filled: bool,
    /// To move now.
    pub to_move: bool,
    /// Has submitted its part of a simultaneous turn.
    pub has_acted: bool,
    /// Resigned.
    pub resigned: bool,
    /// Why the seat is out of the game (it never moves again): the game's
    /// rules, its clock, its resignation, its absence at the open-seat
    /// deadline. `None` while it plays.
    pub out: Option<OutReason>,
    /// Time left on the seat's clock (None: no clock).
    pub clock_remaining_ms: Option<i64>,
    /// Who holds it.
    pub player: crate::SeatPlayer,
    /// The game's name of the seat (`B`), if it names its seats.
    pub name: Option<String>,
}

/// A seat.
#[derive(Debug, Clone)]
pub struct Seat {
    /// Hash of the seat's token; None while the seat is open.
    pub token_hash: Option<[u8; 32]>,
    /// Resigned.
    pub resigned: bool,
    /// Why the host took the seat out of the game (its clock, its
    /// resignation, its absence); set by the match (live or replayed), never
    /// by the caller. A seat the game's rules put out is not recorded here
    /// but read from the plugin ([`Match::out_reasons`]).
    pub out: Option<OutReason>,
}

impl Match {
    /// The seat whose token is `token`.
    pub fn seat_of(&self, token: &str) -> HostResult<Player> {
        if token.is_empty() {
            return Err(HostError::TokenRequired {
                credential: Credential::Seat,
            });
        }
        let hash = hash_token(token);
        self.seats
            .iter()
            .position(|s| s.token_hash.is_some_and(|h| hashes_equal(&h, &hash)))
            .map(|p| p as Player)
            .ok_or(HostError::BadToken {
                credential: Credential::Seat,
            })
    }

    /// The viewer for an optional token: empty = spectator.
    pub fn viewer_of(&self, token: &str) -> HostResult<Viewer> {
        if token.is_empty() {
            Ok(Viewer::Spectator)
        } else {
            self.seat_of(token).map(Viewer::Seat)
        }
    }

    /// Gives the taken `seat` the token hashed `token_hash`; returns the
    /// hash it replaces, so a caller whose store refused the change can
    /// put it back.
    pub fn reissue_token(&mut self, seat: Player, token_hash: [u8; 32]) -> HostResult<[u8; 32]> {
        let players = self.setup.players;
        let slot = self
            .seats
            .get_mut(seat as usize)
            .ok_or(HostError::UnknownSeat { seat, players })?;
        match slot.token_hash.replace(token_hash) {
            Some(previous) => Ok(previous),
            None => {
                slot.token_hash = None;
                Err(HostError::InvalidRequest(format!(
                    "{} is open: it has no token to re-issue",
                    self.seat_label(seat)
                )))
            }
        }
    }

    /// Takes an open seat (`seat`, or the lowest open one) for `player`
    /// (whose `seat` is ignored).
    pub fn join(
        &mut self,
        seat: Option<Player>,
        token_hash: [u8; 32],
        player: &crate::SeatPlayer,
    ) -> HostResult<Player> {
        if self.lifecycle != Lifecycle::Waiting {
            return Err(HostError::NoOpenSeat);
        }
        let seat = match seat {
            Some(s) => {
                let Some(slot) = self.seats.get(s as usize) else {
                    return Err(HostError::UnknownSeat {
                        seat: s,
                        players: self.setup.players,
                    });
                };
                if slot.token_hash.is_some() {
                    return Err(HostError::SeatTaken {
                        seat: s,
                        name: self.seat_name(s),
                    });
                }
                s
            }
            None => self
                .seats
                .iter()
                .position(|s| s.token_hash.is_none())
                .map(|p| p as Player)
                .ok_or(HostError::NoOpenSeat)?,
        };
        player.check().map_err(HostError::InvalidRequest)?;
        let join = SeatJoin {
            seat,
            at_ms: now_ms(),
            display_name: player.display_name.clone(),
            external_id: player.external_id.clone(),
            bot: player.bot.clone(),
        };
        self.take_seat(join, token_hash)?;
        Ok(seat)
    }

    /// `join.seat` (open) is taken: the match starts once no seat is
    /// open, and watchers are told.
    pub(crate) fn take_seat(&mut self, join: SeatJoin, token_hash: [u8; 32]) -> HostResult<()> {
        let (seat, at_ms) = (join.seat, join.at_ms);
        self.seats[seat as usize].token_hash = Some(token_hash);
        self.joins.push(join);
        if self.seats.iter().all(|s| s.token_hash.is_some()) {
            self.lifecycle = Lifecycle::Running;
            self.start_clocks(at_ms)?;
        }
        self.publish_host_event(&HostEvent::Joined { seat }, at_ms)
    }
}
