//! Seats: who holds each (a token hash), who plays it (as its creation or
//! its join said), whether it resigned, whether it is out of the game and
//! why; with the results a seat ends with and what everyone may know
//! about a seat.
//!
//! `Seats` owns that state for one match. It answers "whose token is
//! this", takes an open seat, and records what happened to a seat; whether
//! the match may let it happen (its stage, its turn) is the match's to
//! decide.

use serde::{Deserialize, Serialize};
use tabletop_sdk::Player;

use crate::error::{Credential, HostError, HostResult};
use crate::identity::SeatPlayer;
use crate::out::{OutReason, RuleOut};
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
    pub player: SeatPlayer,
    /// The game's name of the seat (`B`), if it names its seats.
    pub name: Option<String>,
}

/// A seat, as the match's owner reads it.
#[derive(Debug, Clone)]
pub struct Seat {
    /// Hash of the seat's token; None while the seat is open.
    pub token_hash: Option<[u8; 32]>,
    /// Resigned.
    pub resigned: bool,
    /// Why the host took the seat out of the game (its clock, its
    /// resignation, its absence); set by the match (live or replayed), never
    /// by the caller. A seat the game's rules put out is not recorded here
    /// but read from the plugin ([`Match::out_reasons`](crate::Match::out_reasons)).
    pub out: Option<OutReason>,
}

/// A seat taken after the match was created.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatJoin {
    /// The seat.
    pub seat: u32,
    /// When, ms since the Unix epoch.
    pub at_ms: i64,
    /// The name the joining player gave.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub display_name: String,
    /// The platform's id the joining player gave.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub external_id: String,
    /// The spec of the host's bot that took the seat; empty for a client.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub bot: String,
}

/// The seats of one match: their holders, the seats taken after creation
/// (in the order they were taken), and the seats the game's rules put out
/// while the others played on (in the order it happened).
#[derive(Debug)]
pub(crate) struct Seats {
    seats: Vec<Seat>,
    joins: Vec<SeatJoin>,
    rule_outs: Vec<RuleOut>,
}

impl Seats {
    /// Seats held by `token_hashes` (None: open); nobody has resigned or
    /// left yet.
    pub(crate) fn new(token_hashes: Vec<Option<[u8; 32]>>) -> Seats {
        Seats {
            seats: token_hashes
                .into_iter()
                .map(|token_hash| Seat {
                    token_hash,
                    resigned: false,
                    out: None,
                })
                .collect(),
            joins: Vec::new(),
            rule_outs: Vec::new(),
        }
    }

    /// The seats, in order.
    pub(crate) fn all(&self) -> &[Seat] {
        &self.seats
    }

    /// The seats taken after creation, in the order they were taken.
    pub(crate) fn joins(&self) -> &[SeatJoin] {
        &self.joins
    }

    /// The seats the game's rules put out while the others played on.
    pub(crate) fn rule_outs(&self) -> &[RuleOut] {
        &self.rule_outs
    }

    /// Every seat's token hash (None: open).
    pub(crate) fn token_hashes(&self) -> Vec<Option<[u8; 32]>> {
        self.seats.iter().map(|s| s.token_hash).collect()
    }

    /// Whether any seat is open.
    pub(crate) fn any_open(&self) -> bool {
        self.seats.iter().any(|s| s.token_hash.is_none())
    }

    /// The open seats, in order.
    pub(crate) fn open(&self) -> Vec<u32> {
        self.seats
            .iter()
            .enumerate()
            .filter(|(_, s)| s.token_hash.is_none())
            .map(|(seat, _)| seat as u32)
            .collect()
    }

    /// Whether `seat` is open; `None` when the match has no such seat.
    pub(crate) fn is_open(&self, seat: Player) -> Option<bool> {
        self.seats
            .get(seat as usize)
            .map(|s| s.token_hash.is_none())
    }

    /// The lowest open seat.
    pub(crate) fn first_open(&self) -> Option<Player> {
        self.seats
            .iter()
            .position(|s| s.token_hash.is_none())
            .map(|p| p as Player)
    }

    /// Whether `seat` holds a token (is taken).
    pub(crate) fn is_taken(&self, seat: Player) -> bool {
        self.is_open(seat) == Some(false)
    }

    /// The seat whose token is `token`.
    pub(crate) fn holder_of(&self, token: &str) -> HostResult<Player> {
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

    /// Gives the taken `seat` the token hashed `token_hash` and returns the
    /// hash it replaces; `None` (and no change) when the seat is open.
    pub(crate) fn reissue(
        &mut self,
        seat: Player,
        token_hash: [u8; 32],
    ) -> HostResult<Option<[u8; 32]>> {
        let players = self.seats.len() as u32;
        let slot = self
            .seats
            .get_mut(seat as usize)
            .ok_or(HostError::UnknownSeat { seat, players })?;
        if slot.token_hash.is_none() {
            return Ok(None);
        }
        Ok(slot.token_hash.replace(token_hash))
    }

    /// `join.seat` is taken by the holder of `token_hash`; returns whether
    /// every seat is taken now.
    pub(crate) fn take(&mut self, join: SeatJoin, token_hash: [u8; 32]) -> bool {
        self.seats[join.seat as usize].token_hash = Some(token_hash);
        self.joins.push(join);
        !self.any_open()
    }

    /// `seat` resigned.
    pub(crate) fn resign(&mut self, seat: Player) {
        if let Some(s) = self.seats.get_mut(seat as usize) {
            s.resigned = true;
        }
    }

    /// Whether `seat` resigned.
    pub(crate) fn has_resigned(&self, seat: Player) -> bool {
        self.seats.get(seat as usize).is_some_and(|s| s.resigned)
    }

    /// Records `seat` as taken out by the host for `reason` (the first
    /// reason stays).
    pub(crate) fn take_out(&mut self, seat: Player, reason: OutReason) {
        if let Some(Seat {
            out: out @ None, ..
        }) = self.seats.get_mut(seat as usize)
        {
            *out = Some(reason);
        }
    }

    /// Whether the host took `seat` out of the game (a seat the match does
    /// not have counts as out).
    pub(crate) fn is_taken_out(&self, seat: Player) -> bool {
        self.seats
            .get(seat as usize)
            .is_none_or(|s| s.out.is_some())
    }

    /// Why each seat is out, by seat: the host's reason first, else
    /// [`OutReason::Rule`] for the seats in `out_by_rules` (what the plugin
    /// reports), else `None`.
    pub(crate) fn out_reasons(
        &self,
        out_by_rules: impl IntoIterator<Item = Player>,
    ) -> Vec<Option<OutReason>> {
        let mut reasons: Vec<Option<OutReason>> = self.seats.iter().map(|s| s.out).collect();
        for seat in out_by_rules {
            if let Some(reason @ None) = reasons.get_mut(seat as usize) {
                *reason = Some(OutReason::Rule);
            }
        }
        reasons
    }

    /// Notes that the game's rules put `seat` out at `version`, unless the
    /// host took it out or it was noted before.
    pub(crate) fn note_rule_out(&mut self, version: u64, seat: Player) {
        if !self.is_taken_out(seat) && !self.is_ruled_out(seat) {
            self.rule_outs.push(RuleOut { version, seat });
        }
    }

    /// Whether the game's rules were noted to put `seat` out.
    pub(crate) fn is_ruled_out(&self, seat: Player) -> bool {
        self.rule_outs.iter().any(|r| r.seat == seat)
    }

    /// Who holds `seat`: as its last join said, or as the creation said
    /// (`named_at_creation`); an anonymous player if nobody said.
    pub(crate) fn player(&self, seat: u32, named_at_creation: &[SeatPlayer]) -> SeatPlayer {
        if let Some(join) = self.joins.iter().rev().find(|j| j.seat == seat) {
            return SeatPlayer {
                seat,
                display_name: join.display_name.clone(),
                external_id: join.external_id.clone(),
                bot: join.bot.clone(),
            };
        }
        named_at_creation
            .iter()
            .find(|p| p.seat == seat)
            .cloned()
            .unwrap_or(SeatPlayer {
                seat,
                ..SeatPlayer::default()
            })
    }
}
