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

/// Why a move is not legal for the player to move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IllegalMove {
    /// The game is over.
    GameOver,
    /// Another player (or chance) is to act.
    NotYourTurn,
    /// The opening swap (F9) must come first.
    SwapPending,
    /// A swap outside the opening.
    NoSwapNow,
    /// The action id means nothing.
    UnknownAction(u64),
    /// No tower of the mover's on the square (F5).
    NotYourTower(String),
    /// `k` exceeds the tower's height (F5).
    TooFew {
        /// The square.
        from: String,
        /// Pieces asked for.
        k: usize,
        /// The tower's height.
        height: usize,
    },
    /// The destination is off the board (F1, F5).
    OffBoard {
        /// The square.
        from: String,
        /// Pieces (= squares) moved.
        k: usize,
    },
    /// A drop with nothing in reserve (F5).
    EmptyReserve,
    /// A swap pair that is not allowed (F9).
    BadSwap(String),
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalMove::GameOver => f.write_str("the game is over"),
            IllegalMove::NotYourTurn => f.write_str("it is not your turn"),
            IllegalMove::SwapPending => {
                f.write_str("the opening swap (ruling F9) comes before the first move")
            }
            IllegalMove::NoSwapNow => f.write_str("there is no opening swap to make now"),
            IllegalMove::UnknownAction(id) => write!(f, "{id} is not a focus action"),
            IllegalMove::NotYourTower(sq) => write!(f, "you have no tower on {sq}"),
            IllegalMove::TooFew { from, k, height } => write!(
                f,
                "the tower on {from} has {height} piece(s); it cannot move {k} (ruling F5)"
            ),
            IllegalMove::OffBoard { from, k } => write!(
                f,
                "moving {k} square(s) from {from} in that direction leaves the board (ruling F1)"
            ),
            IllegalMove::EmptyReserve => f.write_str("you have no piece in reserve to drop"),
            IllegalMove::BadSwap(why) => write!(f, "not an allowed opening swap: {why}"),
        }
    }
}

impl std::error::Error for IllegalMove {}

impl From<IllegalMove> for GameError {
    fn from(e: IllegalMove) -> GameError {
        match e {
            IllegalMove::GameOver | IllegalMove::NotYourTurn => {
                GameError::not_your_turn(e.to_string())
            }
            _ => GameError::illegal(e.to_string()),
        }
    }
}

/// A move text that does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotationError(pub String);

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (write moves like `c3-e3`, drops like `*d4`, swaps like `c3<>d5`)",
            self.0
        )
    }
}

impl std::error::Error for NotationError {}

impl From<NotationError> for GameError {
    fn from(e: NotationError) -> GameError {
        GameError::invalid_notation(e.to_string())
    }
}
