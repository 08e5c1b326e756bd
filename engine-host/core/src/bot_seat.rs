//! Seats played by the host's bots: which seats they are, which of them
//! must act now, and what a bot may search from — the match as its seat sees
//! it, never the state itself.
//!
//! A bot gets a *determinization* of the current state for its seat: the
//! game's resampler ([`DynState::resample`]) deals everything the seat
//! cannot see anew, consistently with everything it can. Whatever the bot
//! then does with that state, it cannot learn a hidden tile or a pending
//! order the seat could not. A game without hidden information resamples
//! to a copy.

use tabletop_sdk::{DynState, Player};

/// What a bot seat needs to choose its action: the match as the seat sees
/// it, at a version.
pub struct BotTurn {
    /// The seat to act.
    pub seat: Player,
    /// The bot's spec, as the seat's player says.
    pub spec: String,
    /// The match's version: the bot submits with it, so a choice made for
    /// a match that has moved on is refused, not applied.
    pub version: u64,
    /// Seats in the match.
    pub players: u32,
    /// The current state resampled for the seat (see the module docs).
    pub state: Box<dyn DynState>,
    /// Time left on the seat's clock, if the match has one.
    pub clock_remaining_ms: Option<i64>,
}

impl std::fmt::Debug for BotTurn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BotTurn")
            .field("seat", &self.seat)
            .field("spec", &self.spec)
            .field("version", &self.version)
            .field("players", &self.players)
            .field("clock_remaining_ms", &self.clock_remaining_ms)
            .finish_non_exhaustive()
    }
}
