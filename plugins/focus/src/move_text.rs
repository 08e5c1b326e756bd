//! Reading a move text (ruling F11): `c3-e3`, `*d4`, `b2<>d2`.
//!
//! The notation policy: letters in either case (`C3-E3`), blanks around the
//! text and around its separators ignored (` c3 - e3 `, `* d4`,
//! `b2 <> d2`), and every text the plugin writes (legal lists, events,
//! records) reads back to its action. A text that does not read gets a
//! [`NotationError`] with its own reason code; a text that reads but names
//! a shift no tower can make (more than 5 squares) reads as
//! [`Written::Beyond`], which the rules refuse as too far (F5), not as
//! notation.

use std::fmt;

use tabletop_sdk::text::quote;
use tabletop_sdk::{GameError, Refusal};

use crate::board::{Direction, Square, exists};
use crate::moves::Move;

/// What a text names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// A move of the action space.
    Move(Move),
    /// A shift along a file or rank of 6 or 7 squares: the notation reads,
    /// but the top k pieces move exactly k squares and no tower is higher
    /// than 5 (F5, F6).
    Beyond {
        /// Where the tower stands.
        from: Square,
        /// Which way.
        direction: Direction,
        /// Squares, and so pieces.
        distance: usize,
    },
}

/// Why a move text does not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotationError {
    /// `NOT_A_MOVE`: none of the forms of F11.
    NotAMove(String),
    /// `NOT_A_SQUARE`: not a file a–h and a rank 1–8.
    NotASquare(String),
    /// `NO_SUCH_SQUARE`: one of the corner squares the board lacks (F1).
    NoSuchSquare(String),
    /// `SAME_SQUARE`: a shift from a square to itself (F5).
    SameSquare(Square),
    /// `NOT_IN_LINE`: a shift that is not along a file or rank (F5).
    NotInLine {
        /// Where the tower stands.
        from: Square,
        /// Where it was sent.
        to: Square,
    },
    /// `TOO_FAR`: [`Move::parse`] only, for a [`Written::Beyond`] text,
    /// which is no [`Move`].
    TooFar {
        /// Where the tower stands.
        from: Square,
        /// Squares asked for.
        distance: usize,
    },
}

impl NotationError {
    /// Every reason code of a text that does not read, with its ruling.
    pub const CODES: [(&'static str, &'static str); 5] = [
        ("NOT_A_MOVE", "F11"),
        ("NOT_A_SQUARE", "F11"),
        ("NO_SUCH_SQUARE", "F1"),
        ("SAME_SQUARE", "F5"),
        ("NOT_IN_LINE", "F5"),
    ];

    /// The reason code.
    pub fn code(&self) -> &'static str {
        match self {
            NotationError::NotAMove(_) => "NOT_A_MOVE",
            NotationError::NotASquare(_) => "NOT_A_SQUARE",
            NotationError::NoSuchSquare(_) => "NO_SUCH_SQUARE",
            NotationError::SameSquare(_) => "SAME_SQUARE",
            NotationError::NotInLine { .. } => "NOT_IN_LINE",
            NotationError::TooFar { .. } => "TOO_FAR",
        }
    }

    /// The explanation the explain-refusal extension gives.
    pub fn refusal(&self) -> Refusal {
        Refusal::notation(self.code(), self.to_string())
    }
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotationError::NotAMove(text) => write!(
                f,
                "`{}` is not a Focus move: write moves like `c3-e3`, drops like `*d4` and \
                 opening swaps like `b2<>d2` (F11)",
                quote(text)
            ),
            NotationError::NotASquare(text) => write!(
                f,
                "`{}` is not a square: a file a to h and a rank 1 to 8, like `c3` (F11)",
                quote(text)
            ),
            NotationError::NoSuchSquare(name) => write!(
                f,
                "{name} is a corner square the Focus board does not have (F1)"
            ),
            NotationError::SameSquare(square) => write!(
                f,
                "`{square}-{square}` goes nowhere: a tower moves 1 to 5 squares (F5)"
            ),
            NotationError::NotInLine { from, to } => write!(
                f,
                "`{from}-{to}`: a tower moves north, south, east or west, along its file or \
                 rank (F5)"
            ),
            NotationError::TooFar { from, distance } => write!(
                f,
                "a move of {distance} squares from {from}: a tower moves at most 5 (F5, F6)"
            ),
        }
    }
}

impl std::error::Error for NotationError {}

impl From<NotationError> for GameError {
    fn from(e: NotationError) -> GameError {
        GameError::invalid_notation(e.to_string())
    }
}

/// Reads one square name, in either case.
fn square(text: &str) -> Result<Square, NotationError> {
    let bytes = text.as_bytes();
    let named = match bytes {
        [file, rank] => {
            let file = file.to_ascii_lowercase().wrapping_sub(b'a');
            let rank = rank.wrapping_sub(b'1');
            (file < 8 && rank < 8).then_some((file, rank))
        }
        _ => None,
    };
    let Some((file, rank)) = named else {
        return Err(NotationError::NotASquare(text.to_string()));
    };
    if !exists(i32::from(file), i32::from(rank)) {
        let name = format!("{}{}", char::from(b'a' + file), char::from(b'1' + rank));
        return Err(NotationError::NoSuchSquare(name));
    }
    Square::new(file, rank).ok_or_else(|| NotationError::NotASquare(text.to_string()))
}

/// Reads a move text (see the module's policy).
pub fn read(text: &str) -> Result<Written, NotationError> {
    let text = text.trim();
    if let Some(rest) = text.strip_prefix('*') {
        return Ok(Written::Move(Move::Drop(square(rest.trim())?)));
    }
    if let Some((a, b)) = text.split_once("<>") {
        return Ok(Written::Move(Move::Swap {
            r: square(a.trim())?,
            g: square(b.trim())?,
        }));
    }
    let Some((a, b)) = text.split_once('-') else {
        return Err(NotationError::NotAMove(text.to_string()));
    };
    let (from, to) = (square(a.trim())?, square(b.trim())?);
    let df = i32::from(to.file()) - i32::from(from.file());
    let dr = i32::from(to.rank()) - i32::from(from.rank());
    let (direction, distance) = match (df, dr) {
        (0, 0) => return Err(NotationError::SameSquare(from)),
        (0, d) if d > 0 => (Direction::North, d),
        (0, d) => (Direction::South, -d),
        (d, 0) if d > 0 => (Direction::East, d),
        (d, 0) => (Direction::West, -d),
        _ => return Err(NotationError::NotInLine { from, to }),
    };
    let distance = distance.unsigned_abs() as usize;
    if distance > 5 {
        return Ok(Written::Beyond {
            from,
            direction,
            distance,
        });
    }
    Ok(Written::Move(Move::Shift {
        from,
        direction,
        k: distance,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_and_blanks_do_not_matter() {
        for (text, written) in [
            ("C2-C1", "c2-c1"),
            (" c2 - c1 ", "c2-c1"),
            ("\tc2-  C1\n", "c2-c1"),
            ("*D4", "*d4"),
            (" * d4 ", "*d4"),
            ("B2 <> d2", "b2<>d2"),
        ] {
            let Ok(Written::Move(m)) = read(text) else {
                panic!("`{text}` does not read");
            };
            assert_eq!(m.notation(), written, "`{text}`");
        }
    }

    #[test]
    fn each_kind_of_bad_text_has_its_code() {
        for (text, code) in [
            ("", "NOT_A_MOVE"),
            ("c3", "NOT_A_MOVE"),
            ("zz99-zz99", "NOT_A_SQUARE"),
            ("*", "NOT_A_SQUARE"),
            ("c3-", "NOT_A_SQUARE"),
            ("c3-i3", "NOT_A_SQUARE"),
            ("c1-a1", "NO_SUCH_SQUARE"),
            ("*h8", "NO_SUCH_SQUARE"),
            ("c3-c3", "SAME_SQUARE"),
            ("c3-d4", "NOT_IN_LINE"),
        ] {
            let e = read(text).unwrap_err();
            assert_eq!(e.code(), code, "`{text}`: {e}");
        }
        assert!(matches!(
            read("c1-c7"),
            Ok(Written::Beyond { distance: 6, .. })
        ));
    }

    #[test]
    fn a_long_text_is_quoted_in_part() {
        let e = read(&"x".repeat(5000)).unwrap_err();
        assert!(e.to_string().len() < 300, "{e}");
    }
}
