//! Seats out of the game, and why: taken out by the host (the clock, a
//! resignation, the open-seat deadline) or put out by the game's own rules
//! (which the plugin reports through its seats-out extension).
//!
//! The host records the seats it takes out itself ([`Seat::out`](crate::Seat::out)); a seat
//! the rules put out is read from the plugin's state whenever it is asked
//! for, so a replay needs nothing logged for it. In a match of three or more
//! seats the match also notes, after each turn, which seats the rules have
//! just put out ([`RuleOut`]), so the lifecycle feed can say so with the
//! turn; with two seats a rule that puts one out ends the match, which the
//! feed reports as finished, and the turn costs no extra plugin call.

use serde::{Deserialize, Serialize};
use tabletop_sdk::Player;

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
