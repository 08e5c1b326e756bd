//! One scenario per ruling, on hand-built positions (see `support::scenario`).

mod ending;
mod esel;
mod fitting;
mod refusals;
mod setup;
mod turn;

use lanzeloth::{EselMode, Rules};

use crate::support::small_rules;

/// A position header: `turn` (1-based) to start its turn.
pub fn start(turn: u32) -> String {
    format!("phase=play turn=p{turn} stage=start donkey=- reveals=0 winner=-")
}

pub fn forced(players: u32) -> Rules {
    small_rules(players, EselMode::Forced)
}

pub fn penalty(players: u32) -> Rules {
    small_rules(players, EselMode::Penalty)
}
