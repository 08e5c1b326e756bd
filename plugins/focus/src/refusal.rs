//! Refusals that say why (the explain-refusal extension): an action id or a
//! move text of a player is read and checked here, and every way it can
//! fail has its own reason code ([`NotationError`] for a text that does not
//! read, [`IllegalMove`] for one that reads, or an id, that is not legal
//! now). `apply`, `parse_action` and `explain_refusal` all go through these
//! functions, so a refusal and its explanation never disagree. Focus hides
//! nothing, so no explanation can reveal anything.

use tabletop_sdk::{ActionId, Attempt, GameError, Player, Refusal};

use crate::illegal::IllegalMove;
use crate::move_text::{self, NotationError, Written};
use crate::moves::{Move, SHIFTS_AND_DROPS, WITH_SWAPS};
use crate::position::Position;
use crate::rules::OpeningSwap;
use crate::tower::Colour;

/// Why an attempt is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// The text does not read.
    Notation(NotationError),
    /// The id, or the text read, is not legal now.
    Illegal(IllegalMove),
}

impl Refused {
    /// The explanation: code and sentence.
    pub fn refusal(&self) -> Refusal {
        match self {
            Refused::Notation(e) => e.refusal(),
            Refused::Illegal(e) => e.refusal(),
        }
    }
}

impl From<NotationError> for Refused {
    fn from(e: NotationError) -> Refused {
        Refused::Notation(e)
    }
}

impl From<IllegalMove> for Refused {
    fn from(e: IllegalMove) -> Refused {
        Refused::Illegal(e)
    }
}

impl From<Refused> for GameError {
    fn from(refused: Refused) -> GameError {
        match refused {
            Refused::Notation(e) => e.into(),
            Refused::Illegal(e) => e.into(),
        }
    }
}

/// The seat of `player`, if the match has it.
pub fn seat(pos: &Position, player: Player) -> Result<Colour, IllegalMove> {
    u8::try_from(player)
        .ok()
        .filter(|&p| usize::from(p) < pos.players())
        .ok_or(IllegalMove::NoSuchSeat {
            seat: player,
            players: pos.players(),
        })
}

/// The move of id `action` if it is legal for `player` now.
pub fn check_id(pos: &Position, player: Player, action: ActionId) -> Result<Move, IllegalMove> {
    let mv = Move::decode(action)?;
    pos.check(seat(pos, player)?, mv)?;
    Ok(mv)
}

/// The id of the move `text` names, if it reads and is legal for `player`
/// now.
pub fn read_action(pos: &Position, player: Player, text: &str) -> Result<ActionId, Refused> {
    let written = move_text::read(text)?;
    let seat = seat(pos, player)?;
    match written {
        Written::Move(mv) => {
            pos.check(seat, mv)?;
            Ok(mv.id())
        }
        Written::Beyond {
            from,
            direction,
            distance,
        } => {
            // Checked as the one-square move of the same tower first, so
            // that the turn and the tower's owner come before its height,
            // as for any move. The squares between two squares of a file
            // or rank all exist (F1), so that move stays on the board.
            pos.check(
                seat,
                Move::Shift {
                    from,
                    direction,
                    k: 1,
                },
            )?;
            pos.check_tower(seat, from, distance)?;
            // No tower is higher than 5 (F6): never reached.
            Err(IllegalMove::TooFar {
                from,
                k: distance,
                height: pos.tower(from).height(),
            }
            .into())
        }
    }
}

/// Why `attempt` is not legal for `player` now, or `None` when it is.
pub fn explain(pos: &Position, player: Player, attempt: Attempt<'_>) -> Option<Refusal> {
    match attempt {
        Attempt::Id(action) => check_id(pos, player, action).err().map(|e| e.refusal()),
        Attempt::Text(text) => read_action(pos, player, text).err().map(|e| e.refusal()),
    }
}

/// Every action id a match of `pos` can use is below this: shifts and drops,
/// and the opening swaps when player 1 chooses one (F9).
pub fn action_space(pos: &Position) -> u64 {
    if pos.rules().opening_swap() == OpeningSwap::Chosen {
        WITH_SWAPS
    } else {
        SHIFTS_AND_DROPS
    }
}
