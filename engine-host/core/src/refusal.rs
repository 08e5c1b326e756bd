//! Why a seat's attempt is refused, in the game's words.
//!
//! A game refuses an action or a notation with a short message. A game that
//! offers the explain-refusal extension is then asked why, which gives a
//! specific reason code (`RED_LINE`) and a sentence citing the rule; the
//! question is asked only after a refusal, so an accepted action never pays
//! for it.

use tabletop_sdk::{Attempt, DynState, ErrorKind, GameError, Player};

use crate::error::HostError;

/// The host's error for `error`, the game's refusal of `seat`'s `attempt`
/// in `state`: explained when the game can say why, else as it came.
pub(crate) fn explained(
    state: &dyn DynState,
    seat: Player,
    attempt: Attempt<'_>,
    error: GameError,
) -> HostError {
    if !matches!(
        error.kind,
        ErrorKind::IllegalAction | ErrorKind::InvalidNotation
    ) {
        return error.into();
    }
    match state.explain_refusal(seat, attempt) {
        Ok(Some(refusal)) => HostError::Refused(refusal),
        // Legal by the explanation, yet refused: the refusal as it came is
        // the truth the caller needs; a faulty explanation likewise.
        Ok(None) | Err(_) => error.into(),
    }
}
