//! Moves (ruling F5, plus F9's opening swap), their integer action ids and
//! their notation (ruling F11).
//!
//! Action ids: a tower move is `from * 20 + direction * 5 + (k - 1)` (below
//! 1280), a drop `1280 + square`, a swap `2048 + r_square * 64 + g_square`.
//! Generating by ascending square, direction and `k` yields ascending ids.

use std::fmt;

use crate::board::{Direction, Square};
use crate::illegal::IllegalMove;
use crate::move_text::{self, NotationError, Written};

/// One action of a player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Move {
    /// The top `k` pieces of the tower on `from` move `k` squares in
    /// `direction` (ruling F5).
    Shift {
        /// Where the tower stands.
        from: Square,
        /// Which way it moves.
        direction: Direction,
        /// Pieces moved, which is also the distance: 1 to 5.
        k: usize,
    },
    /// A piece from the mover's reserve onto `square` (ruling F5).
    Drop(Square),
    /// Ruling F9, `opening_swap = chosen`: the R piece on `r` and the G piece
    /// on `g` exchange places.
    Swap {
        /// Square of the R (player 1) piece.
        r: Square,
        /// Square of the G (player 2) piece.
        g: Square,
    },
}

/// First drop id.
pub const DROP_BASE: u64 = 1280;
/// First swap id.
pub const SWAP_BASE: u64 = 2048;
/// The action space of a match without the chosen opening swap: every
/// shift and drop id is below it (the last square, f8, has index 61).
pub const SHIFTS_AND_DROPS: u64 = DROP_BASE + 62;
/// The action space of a match with the chosen opening swap (F9): every
/// id is below it, the last being the swap f8<>f8.
pub const WITH_SWAPS: u64 = SWAP_BASE + 61 * 64 + 62;

impl Move {
    /// The move's action id.
    pub fn id(self) -> u64 {
        match self {
            Move::Shift { from, direction, k } => shift_id(from, direction, k),
            Move::Drop(s) => DROP_BASE + s.index() as u64,
            Move::Swap { r, g } => SWAP_BASE + swap_code(r, g),
        }
    }

    /// The move with action id `id`, if the id is well formed (squares that
    /// exist, `k` in 1..=5). Legality is checked elsewhere.
    pub fn from_id(id: u64) -> Option<Move> {
        if id < DROP_BASE {
            let from = Square::from_index((id / 20) as u8)?;
            let direction = Direction::from_index(((id % 20) / 5) as usize)?;
            let k = (id % 5) as usize + 1;
            Some(Move::Shift { from, direction, k })
        } else if id < DROP_BASE + 64 {
            Square::from_index((id - DROP_BASE) as u8).map(Move::Drop)
        } else if (SWAP_BASE..SWAP_BASE + 64 * 64).contains(&id) {
            let (r, g) = swap_squares(id - SWAP_BASE)?;
            Some(Move::Swap { r, g })
        } else {
            None
        }
    }

    /// The move with action id `id`, or why the id is none: not a Focus
    /// action id at all, or naming a corner square the board lacks (F1).
    /// An id of a shift off the board decodes; [`crate::Position::check`]
    /// refuses it.
    pub fn decode(id: u64) -> Result<Move, IllegalMove> {
        let missing = |index: u64| IllegalMove::MissingSquare {
            action: id,
            square: format!(
                "{}{}",
                char::from(b'a' + (index % 8) as u8),
                char::from(b'1' + (index / 8 % 8) as u8)
            ),
        };
        let on_board = |index: u64| Square::from_index(index as u8).ok_or_else(|| missing(index));
        if id < DROP_BASE {
            let from = on_board(id / 20)?;
            let direction = Direction::from_index(((id % 20) / 5) as usize)
                .ok_or(IllegalMove::UnknownAction(id))?;
            Ok(Move::Shift {
                from,
                direction,
                k: (id % 5) as usize + 1,
            })
        } else if id < DROP_BASE + 64 {
            Ok(Move::Drop(on_board(id - DROP_BASE)?))
        } else if (SWAP_BASE..SWAP_BASE + 64 * 64).contains(&id) {
            let code = id - SWAP_BASE;
            Ok(Move::Swap {
                r: on_board(code / 64)?,
                g: on_board(code % 64)?,
            })
        } else {
            Err(IllegalMove::UnknownAction(id))
        }
    }

    /// The destination of a shift (if it is on the board).
    pub fn destination(self) -> Option<Square> {
        match self {
            Move::Shift { from, direction, k } => from.offset(direction, k),
            Move::Drop(s) => Some(s),
            Move::Swap { .. } => None,
        }
    }

    /// Reads `c3-e3`, `*d4` or `c3<>d5` (ruling F11), in either case and
    /// with blanks around the text and its separators. Only the form is
    /// checked here; a shift must be along a file or rank, 1 to 5 squares.
    pub fn parse(text: &str) -> Result<Move, NotationError> {
        match move_text::read(text)? {
            Written::Move(m) => Ok(m),
            Written::Beyond { from, distance, .. } => Err(NotationError::TooFar { from, distance }),
        }
    }
}

fn shift_id(from: Square, direction: Direction, k: usize) -> u64 {
    from.index() as u64 * 20 + direction as u64 * 5 + (k as u64 - 1)
}

/// A chance outcome / swap code for the pair: `r * 64 + g`.
pub fn swap_code(r: Square, g: Square) -> u64 {
    r.index() as u64 * 64 + g.index() as u64
}

/// The pair a swap code names, if both squares exist.
pub fn swap_squares(code: u64) -> Option<(Square, Square)> {
    if code >= 64 * 64 {
        return None;
    }
    Some((
        Square::from_index((code / 64) as u8)?,
        Square::from_index((code % 64) as u8)?,
    ))
}

impl Move {
    /// The move as text (ruling F11), what `Display` writes, built without
    /// `core::fmt`: a ListLegalActions with notation writes dozens of them.
    pub fn notation(self) -> String {
        let mut text = String::with_capacity(6);
        match self {
            Move::Shift { from, direction, k } => {
                text.extend(from.name_chars());
                text.push('-');
                match from.offset(direction, k) {
                    Some(to) => text.extend(to.name_chars()),
                    // Never legal; written so that debugging output stays readable.
                    None => text.push_str(&format!("{direction:?}{k}")),
                }
            }
            Move::Drop(s) => {
                text.push('*');
                text.extend(s.name_chars());
            }
            Move::Swap { r, g } => {
                text.extend(r.name_chars());
                text.push_str("<>");
                text.extend(g.name_chars());
            }
        }
        text
    }
}

impl fmt::Display for Move {
    /// Ruling F11: `c3-e3` (the distance is the number of pieces), `*d4`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.notation())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation_is_the_display_form_of_every_move_and_reads_back() {
        let mut count = 0;
        for id in 0..SWAP_BASE + 64 * 64 + 10 {
            if let Some(m) = Move::from_id(id) {
                assert_eq!(m.notation(), m.to_string(), "{m:?}");
                // A shift off the board has no notation to read back.
                let on_board = !matches!(m, Move::Shift { from, direction, k }
                    if from.offset(direction, k).is_none());
                if on_board {
                    assert_eq!(Move::parse(&m.notation()), Ok(m), "{m:?}");
                }
                count += 1;
            }
        }
        assert_eq!(count, 52 * 20 + 52 + 52 * 52);
    }

    #[test]
    fn ids_round_trip_for_every_well_formed_move() {
        let mut count = 0;
        for id in 0..SWAP_BASE + 64 * 64 + 10 {
            if let Some(m) = Move::from_id(id) {
                assert_eq!(m.id(), id);
                count += 1;
            }
        }
        // 52 squares × 4 directions × 5 distances, 52 drops, 52 × 52 swaps.
        assert_eq!(count, 52 * 20 + 52 + 52 * 52);
    }

    #[test]
    fn notation_ruling_f11() {
        let m = Move::parse("c3-e3").unwrap();
        assert_eq!(
            m,
            Move::Shift {
                from: "c3".parse().unwrap(),
                direction: Direction::East,
                k: 2
            }
        );
        assert_eq!(m.to_string(), "c3-e3");
        assert_eq!(Move::parse("*d4").unwrap().to_string(), "*d4");
        assert_eq!(Move::parse("c3<>d5").unwrap().to_string(), "c3<>d5");
        assert!(Move::parse("c3-d4").is_err(), "not on a line");
        assert!(Move::parse("c1-c7").is_err(), "six squares");
        assert!(Move::parse("a1-a2").is_err(), "no such square");
        assert!(Move::parse("*").is_err());
        assert!(Move::parse("").is_err());
        assert!(Move::parse("c3").is_err());
    }
}
