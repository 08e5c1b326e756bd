//! The host's domain errors. The gRPC layer maps each variant to one status code
//! in one place (`grpc::status`).

use std::fmt;

use tabletop_sdk::{ErrorKind, GameError};

/// Why a request to the core failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostError {
    /// The request is malformed, or the action/option/position is invalid.
    InvalidArgument(String),
    /// No such game, version, match or seat.
    NotFound(String),
    /// The request is well-formed but the match is not in a state to accept it:
    /// not your turn, stale version, match over, seat taken.
    FailedPrecondition(String),
    /// No credential where one is needed (seat or admin token).
    Unauthenticated(String),
    /// A credential that does not grant this.
    PermissionDenied(String),
    /// The match cannot be played here (plugin version missing).
    Unavailable(String),
    /// A fault of the host or of a plugin; never caused by the caller's input.
    Internal(String),
}

impl HostError {
    /// The message for the caller.
    pub fn message(&self) -> &str {
        match self {
            HostError::InvalidArgument(m)
            | HostError::NotFound(m)
            | HostError::FailedPrecondition(m)
            | HostError::Unauthenticated(m)
            | HostError::PermissionDenied(m)
            | HostError::Unavailable(m)
            | HostError::Internal(m) => m,
        }
    }
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for HostError {}

impl From<GameError> for HostError {
    fn from(e: GameError) -> HostError {
        match e.kind {
            ErrorKind::InvalidOption
            | ErrorKind::InvalidPosition
            | ErrorKind::InvalidNotation
            | ErrorKind::IllegalAction => HostError::InvalidArgument(e.message),
            ErrorKind::NotYourTurn | ErrorKind::Unsupported => {
                HostError::FailedPrecondition(e.message)
            }
            ErrorKind::Panic | ErrorKind::Poisoned | ErrorKind::Internal => {
                HostError::Internal(format!("plugin fault: {}", e.message))
            }
        }
    }
}

/// Shorthand for core results.
pub type HostResult<T> = Result<T, HostError>;
