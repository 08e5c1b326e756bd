//! Small error types, one per way outside input can be wrong. Each becomes a
//! [`tabletop_sdk::GameError`] of the matching kind at the plugin boundary.

use std::fmt;

use tabletop_sdk::GameError;

/// Options that do not fit together or the player count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionError {
    /// Focus is for 2 to 4 players.
    Players(u32),
    /// `max_turns` out of range.
    MaxTurns(i64),
    /// An `opening_swap` word the SDK should already have refused.
    UnknownSwap(String),
    /// A ruling-F9 option set with 3 or 4 players.
    TwoPlayersOnly {
        /// The option's name.
        option: &'static str,
        /// The match's player count.
        players: u8,
    },
    /// `team_talk` set with 2 or 3 players.
    FourPlayersOnly {
        /// The match's player count.
        players: u8,
    },
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionError::Players(n) => write!(f, "focus is played by 2 to 4 players, not {n}"),
            OptionError::MaxTurns(n) => write!(f, "option `max_turns` must be at least 1, got {n}"),
            OptionError::UnknownSwap(w) => write!(
                f,
                "option `opening_swap` must be one of none, random, chosen, got `{w}`"
            ),
            OptionError::TwoPlayersOnly { option, players } => write!(
                f,
                "option `{option}` applies only to two-player games (ruling F9), not to \
                 {players} players"
            ),
            OptionError::FourPlayersOnly { players } => write!(
                f,
                "option `team_talk` applies only to four-player team games (ruling F3), not \
                 to {players} players"
            ),
        }
    }
}

impl std::error::Error for OptionError {}

impl From<OptionError> for GameError {
    fn from(e: OptionError) -> GameError {
        GameError::invalid_option(e.to_string())
    }
}

/// A position text that does not parse or describes an impossible position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionError(pub String);

impl PositionError {
    pub(crate) fn new(message: impl Into<String>) -> PositionError {
        PositionError(message.into())
    }
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid focus position: {}", self.0)
    }
}

impl std::error::Error for PositionError {}

impl From<PositionError> for GameError {
    fn from(e: PositionError) -> GameError {
        GameError::invalid_position(e.to_string())
    }
}
