//! The one error type a game returns, with a kind the host maps to a gRPC status.

use std::fmt;

use crate::abi;

/// What went wrong, coarsely: the host maps each kind to one gRPC status code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum ErrorKind {
    /// An option is unknown, has the wrong type, is out of range, or does not
    /// combine with the others or with the player count.
    InvalidOption = crate::abi::CODE_INVALID_OPTION,
    /// A position text does not parse or describes an impossible position.
    InvalidPosition = crate::abi::CODE_INVALID_POSITION,
    /// An action text does not parse.
    InvalidNotation = crate::abi::CODE_INVALID_NOTATION,
    /// The action is not legal in this state for this player.
    IllegalAction = crate::abi::CODE_ILLEGAL_ACTION,
    /// The player is not to move (or the state is a chance node or over).
    NotYourTurn = crate::abi::CODE_NOT_YOUR_TURN,
    // Code 6 is left unused: it meant "buffer too small" in ABI 1, and a
    // code keeps its meaning across ABI versions.
    /// The plugin panicked; the message says where. Always a bug in the plugin.
    Panic = crate::abi::CODE_PANIC,
    /// A state handle was used after an earlier call on it panicked.
    Poisoned = crate::abi::CODE_POISONED,
    /// Any other fault inside the plugin or the ABI.
    Internal = crate::abi::CODE_INTERNAL,
    /// The game does not offer this operation (removing a player from a game
    /// whose manifest says `removable_players: false`).
    Unsupported = crate::abi::CODE_UNSUPPORTED,
    /// The process that ran the plugin (a worker of an isolated plugin)
    /// died or was killed during this call: a crash, an overrun deadline or
    /// memory cap. Always a bug in the plugin. The host's own: no plugin
    /// returns it, and no ABI code stands for it.
    ProcessDied = 100,
    /// The call was cut short when the plugin's worker died while another
    /// call was in it: nothing changed, and the same call may succeed in a
    /// fresh worker. The host's own, like [`ErrorKind::ProcessDied`].
    Interrupted = 101,
}

impl ErrorKind {
    /// Decodes an ABI status code; unknown codes are [`ErrorKind::Internal`].
    pub fn from_code(code: i32) -> ErrorKind {
        match code {
            abi::CODE_INVALID_OPTION => ErrorKind::InvalidOption,
            abi::CODE_INVALID_POSITION => ErrorKind::InvalidPosition,
            abi::CODE_INVALID_NOTATION => ErrorKind::InvalidNotation,
            abi::CODE_ILLEGAL_ACTION => ErrorKind::IllegalAction,
            abi::CODE_NOT_YOUR_TURN => ErrorKind::NotYourTurn,
            abi::CODE_PANIC => ErrorKind::Panic,
            abi::CODE_POISONED => ErrorKind::Poisoned,
            abi::CODE_UNSUPPORTED => ErrorKind::Unsupported,
            _ => ErrorKind::Internal,
        }
    }

    /// Whether this kind reports a fault of the plugin rather than bad input.
    pub fn is_fault(self) -> bool {
        matches!(
            self,
            ErrorKind::Panic | ErrorKind::Poisoned | ErrorKind::Internal | ErrorKind::ProcessDied
        )
    }
}

/// An error from a game: a kind and a message for the person who caused it.
///
/// Messages must not reveal hidden information (a face-down tile, another
/// player's pending order): the conformance kit compares them across resampled
/// states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameError {
    /// The kind, which decides the gRPC status.
    pub kind: ErrorKind,
    /// One line for a human.
    pub message: String,
}

impl GameError {
    /// An error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> GameError {
        GameError {
            kind,
            message: message.into(),
        }
    }

    /// [`ErrorKind::InvalidOption`].
    pub fn invalid_option(message: impl Into<String>) -> GameError {
        GameError::new(ErrorKind::InvalidOption, message)
    }

    /// [`ErrorKind::InvalidPosition`].
    pub fn invalid_position(message: impl Into<String>) -> GameError {
        GameError::new(ErrorKind::InvalidPosition, message)
    }

    /// [`ErrorKind::InvalidNotation`].
    pub fn invalid_notation(message: impl Into<String>) -> GameError {
        GameError::new(ErrorKind::InvalidNotation, message)
    }

    /// [`ErrorKind::IllegalAction`].
    pub fn illegal(message: impl Into<String>) -> GameError {
        GameError::new(ErrorKind::IllegalAction, message)
    }

    /// [`ErrorKind::NotYourTurn`].
    pub fn not_your_turn(message: impl Into<String>) -> GameError {
        GameError::new(ErrorKind::NotYourTurn, message)
    }

    /// [`ErrorKind::Unsupported`].
    pub fn unsupported(message: impl Into<String>) -> GameError {
        GameError::new(ErrorKind::Unsupported, message)
    }

    /// [`ErrorKind::Internal`].
    pub fn internal(message: impl Into<String>) -> GameError {
        GameError::new(ErrorKind::Internal, message)
    }
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for GameError {}
