//! Why a seat's attempt is refused, in the game's words, and how a message
//! names a seat.
//!
//! A game refuses an action or a notation with a short message. A game that
//! offers the explain-refusal extension is then asked why, which gives a
//! specific reason code (`RED_LINE`) and a sentence citing the rule; the
//! question is asked only after a refusal, so an accepted action never pays
//! for it.

use tabletop_sdk::{Attempt, DynState, ErrorKind, GameError, Player, seat_label};

use crate::Match;
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

impl Match {
    /// The game's name of `seat`, if the game names its seats.
    pub fn seat_name(&self, seat: Player) -> Option<String> {
        self.game
            .seat_names(self.setup.players)
            .ok()?
            .into_iter()
            .nth(seat as usize)
    }

    /// `seat 1 (B)`: how every message names `seat`.
    pub fn seat_label(&self, seat: Player) -> String {
        seat_label(seat, self.seat_name(seat).as_deref())
    }
}
