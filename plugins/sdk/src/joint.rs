//! The shape every joint action must have: exactly one move from each player
//! to move. [`Game::apply`](crate::Game::apply) starts with this check, so
//! every game refuses a malformed joint action with the same message.

use std::fmt::Write as _;

use crate::error::GameError;
use crate::types::{Move, Player, PlayerSet};

/// Checks that `moves` hold exactly one move from each player in `movers`
/// (the current [`Status::ToMove`](crate::Status::ToMove) set), in any order,
/// and none from anyone else. Whether each action is legal is left to the
/// game.
///
/// Any other shape (a move by a player not to move, a mover missing or named
/// twice, no moves at all) is refused with [`ErrorKind::NotYourTurn`] and one
/// message that names the seats to move, 0-based as the API numbers them,
/// and the seats the moves named:
/// `seat 1 is to move: a joint action is exactly one move by seat 1; this
/// one names seat 0`. Who is to move is public, so the message reveals
/// nothing hidden.
///
/// [`ErrorKind::NotYourTurn`]: crate::ErrorKind::NotYourTurn
///
/// ```
/// use tabletop_sdk::{Move, PlayerSet, check_joint_action};
///
/// let movers = PlayerSet::single(1);
/// assert!(check_joint_action(movers, &[Move { player: 1, action: 7 }]).is_ok());
/// let error = check_joint_action(movers, &[Move { player: 0, action: 7 }]).unwrap_err();
/// assert_eq!(
///     error.message,
///     "seat 1 is to move: a joint action is exactly one move by seat 1; this one names seat 0"
/// );
/// ```
pub fn check_joint_action(movers: PlayerSet, moves: &[Move]) -> Result<(), GameError> {
    // One pass over the moves; the message is built only for a refusal.
    let mut named = PlayerSet::EMPTY;
    for m in moves {
        if !movers.contains(m.player) || named.contains(m.player) {
            return Err(malformed(movers, moves));
        }
        named = named.with(m.player);
    }
    if named != movers || movers.is_empty() {
        return Err(malformed(movers, moves));
    }
    Ok(())
}

/// [`check_joint_action`] for a turn with one seat to move, `mover`: the
/// one move, or the same refusal. A game whose turns are always one seat's
/// calls this on every ply, so it is one comparison inlined into `apply`,
/// and the move comes back without a bounds check of its own.
///
/// ```
/// use tabletop_sdk::{Move, check_single_move};
///
/// let only = Move { player: 1, action: 7 };
/// assert_eq!(check_single_move(1, &[only]), Ok(only));
/// assert!(check_single_move(0, &[only]).is_err());
/// assert!(check_single_move(1, &[only, only]).is_err());
/// ```
#[inline]
pub fn check_single_move(mover: Player, moves: &[Move]) -> Result<Move, GameError> {
    match moves {
        [only] if only.player == mover => Ok(*only),
        _ => Err(malformed(PlayerSet::single(mover), moves)),
    }
}

#[cold]
fn malformed(movers: PlayerSet, moves: &[Move]) -> GameError {
    let to_move: Vec<Player> = movers.iter().collect();
    let named: Vec<Player> = moves.iter().map(|m| m.player).collect();
    let message = match to_move.as_slice() {
        [] => format!(
            "no seat is to move; this joint action names {}",
            seats(&named)
        ),
        [one] => format!(
            "seat {one} is to move: a joint action is exactly one move by seat {one}; this one \
             names {}",
            seats(&named)
        ),
        several => format!(
            "{} are to move: a joint action is exactly one move by each of them; this one \
             names {}",
            seats(several),
            seats(&named)
        ),
    };
    GameError::not_your_turn(message)
}

/// `no seat`, `seat 2`, `seats 0 and 2`, `seats 0, 1 and 3`, in the order given.
fn seats(list: &[Player]) -> String {
    let mut text = String::new();
    match list {
        [] => text.push_str("no seat"),
        [one] => {
            let _ = write!(text, "seat {one}");
        }
        [init @ .., last] => {
            text.push_str("seats ");
            for (i, seat) in init.iter().enumerate() {
                if i > 0 {
                    text.push_str(", ");
                }
                let _ = write!(text, "{seat}");
            }
            let _ = write!(text, " and {last}");
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    fn moves(players: &[Player]) -> Vec<Move> {
        players
            .iter()
            .map(|&player| Move { player, action: 0 })
            .collect()
    }

    fn refusal(movers: &[Player], named: &[Player]) -> String {
        let movers: PlayerSet = movers.iter().copied().collect();
        let error = check_joint_action(movers, &moves(named)).unwrap_err();
        assert_eq!(error.kind, ErrorKind::NotYourTurn);
        error.message
    }

    #[test]
    fn one_move_from_each_mover_in_any_order_passes() {
        let movers: PlayerSet = [0, 2, 3].into_iter().collect();
        assert!(check_joint_action(movers, &moves(&[3, 0, 2])).is_ok());
        assert!(check_joint_action(PlayerSet::single(1), &moves(&[1])).is_ok());
    }

    #[test]
    fn every_malformed_joint_action_gets_the_one_message() {
        let single = "seat 1 is to move: a joint action is exactly one move by seat 1; this one";
        assert_eq!(refusal(&[1], &[0]), format!("{single} names seat 0"));
        assert_eq!(refusal(&[1], &[]), format!("{single} names no seat"));
        assert_eq!(
            refusal(&[1], &[1, 1]),
            format!("{single} names seats 1 and 1")
        );
        let several = "seats 0, 2 and 3 are to move: a joint action is exactly one move by each \
                       of them; this one";
        assert_eq!(
            refusal(&[0, 2, 3], &[0, 2]),
            format!("{several} names seats 0 and 2")
        );
        assert_eq!(
            refusal(&[0, 2, 3], &[0, 2, 3, 1]),
            format!("{several} names seats 0, 2, 3 and 1")
        );
        assert_eq!(
            refusal(&[0, 2, 3], &[0, 2, 2]),
            format!("{several} names seats 0, 2 and 2")
        );
        assert_eq!(
            refusal(&[], &[0]),
            "no seat is to move; this joint action names seat 0"
        );
    }

    #[test]
    fn seats_beyond_the_largest_table_are_refused_not_a_panic() {
        let message = refusal(&[0], &[u32::MAX]);
        assert!(message.ends_with("names seat 4294967295"), "{message}");
        refusal(&[0], &[PlayerSet::MAX_PLAYERS]);
    }
}
