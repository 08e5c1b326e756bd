//! Action notation (ruling W12).
//!
//! | action | notation | example |
//! |---|---|---|
//! | placement (W3) | unit letter `@` start number (or the letter alone) | `I@17`, `A@XXIV`, `C` |
//! | layout (W3, input only) | several placements, expanded by [`crate::layout`] | `IIICCA`, `I@1 C@2` |
//! | move (W4) | from `-` to | `d4-d5` |
//! | jump capture (W6) | from `x` to | `b3xb5` |
//! | cannon fire (W7) | cannon `!` direction | `c2!N` |
//! | railway tile (W10) | `=` segment | `=d5-d6` |
//! | entrenchment (W10) | `#` segment | `#d5-d6` |
//! | tile removal (W10) | `-` segment | `-d5-d6` |
//!
//! Points are written by label; on input a start number (`17`, `XVII`) also
//! names its point. A segment is written with its ends ordered by rank, then
//! file; on input either order is accepted. Unit letters: `I` infantry, `C`
//! cavalry, `A` artillery (cannon).
//!
//! Reading is forgiving where nothing is ambiguous: blanks anywhere in a
//! single action are ignored (` c2 - c1 `: a single action holds no blank),
//! and point labels, directions, unit letters and the jump's `x` read in
//! either case (`D4XD6`, `c2!n`, `i@17`). Start numbers are read as printed
//! (`XVII`): Roman numerals hold the jump's `x`, so `XIXXXX` could be two
//! different jumps if they were read in either case.

use tabletop_sdk::Refusal;
use tabletop_sdk::text::quote;

use crate::board::{Board, Direction, parse_start_number, start_number_name};
use crate::moves::Action;
use crate::position::Position;
use crate::reasons;
use crate::side::{TileKind, UnitKind};

/// Reads a point: a label (`d4`, or `D4`) or a start number as printed
/// (`17`, `XVII`).
pub fn parse_point(board: &Board, text: &str) -> Option<u8> {
    board
        .point_by_id(text)
        .or_else(|| parse_start_number(text).map(|(side, n)| board.start_point(side, n)))
        .or_else(|| label_point(board, text))
}

/// Reads a point's label in either case, not a start number.
fn label_point(board: &Board, text: &str) -> Option<u8> {
    board.point_by_id(&text.to_ascii_lowercase())
}

/// [`parse_point`], refusing an unknown point with its reason.
pub(crate) fn read_point(board: &Board, text: &str) -> Result<u8, Refusal> {
    parse_point(board, text).ok_or_else(|| unknown_point(text))
}

/// The refusal of a text that names no point.
pub(crate) fn unknown_point(text: &str) -> Refusal {
    Refusal::notation(
        reasons::UNKNOWN_POINT,
        format!(
            "`{}` names no point of the board: a point is written like d4, or by its start \
             number like 17 or XVII (W12)",
            quote(text)
        ),
    )
}

/// The refusal of a letter that is not a unit letter.
pub(crate) fn unknown_unit_letter(text: &str) -> Refusal {
    Refusal::notation(
        reasons::UNKNOWN_UNIT_LETTER,
        format!(
            "`{}` is not a unit letter: I infantry, C cavalry, A cannon (W12)",
            quote(text)
        ),
    )
}

pub(crate) fn segment_text(board: &Board, segment: u16) -> String {
    let s = board.segments()[segment as usize];
    format!("{}-{}", board.label(s.a), board.label(s.b))
}

fn parse_segment(board: &Board, text: &str) -> Result<u16, Refusal> {
    // Labels hold no `-`, so the split is unambiguous.
    let (a, b) = text.split_once('-').ok_or_else(|| {
        Refusal::notation(
            reasons::NOT_A_SEGMENT,
            format!(
                "`{}` is not a segment: a tile's segment is written like d5-d6 (W12)",
                quote(text)
            ),
        )
    })?;
    let (pa, pb) = (read_point(board, a)?, read_point(board, b)?);
    board.segment_between(pa, pb).ok_or_else(|| {
        Refusal::notation(
            reasons::NO_SEGMENT,
            format!(
                "no segment joins {} and {}: a tile lies on the line between two neighbouring \
                 points (W10)",
                board.label(pa),
                board.label(pb)
            ),
        )
    })
}

/// Writes `action` as played by the side to move in `position`.
pub fn action_to_string(position: &Position, action: Action) -> String {
    let board = position.board();
    match action {
        Action::Place(kind) => {
            let side = position.to_move();
            match position.next_start() {
                Some(n) => format!("{}@{}", kind.letter(), start_number_name(side, n)),
                None => kind.letter().to_string(),
            }
        }
        Action::Move { from, to } => format!("{}-{}", board.label(from), board.label(to)),
        Action::Jump { from, to } => format!("{}x{}", board.label(from), board.label(to)),
        Action::Fire { from, dir } => format!("{}!{}", board.label(from), dir.name()),
        Action::PlaceTile { segment, kind } => {
            format!("{}{}", kind.symbol(), segment_text(board, segment))
        }
        Action::RemoveTile { segment } => format!("-{}", segment_text(board, segment)),
    }
}

/// What a text names, before any question of legality.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// A placement (W3): the unit type and the point written after `@`,
    /// if any (it must be the next empty start point).
    Place {
        /// The unit type.
        kind: UnitKind,
        /// The point named, if the text names one.
        at: Option<u8>,
    },
    /// Any other action.
    Action(Action),
}

/// Reads an action's text, refusing one that is not War notation with its
/// reason (the caller judges legality).
pub fn read(board: &Board, text: &str) -> Result<Reading, Refusal> {
    let input = text.trim();
    // A single action holds no blank: blanks anywhere are ignored.
    let text: String = input.chars().filter(|c| !c.is_whitespace()).collect();
    let text = text.as_str();
    let bad = || {
        Refusal::notation(
            reasons::UNKNOWN_FORM,
            format!(
                "`{}` is not War notation: d4-d5 (move), b3xb5 (jump), c2!N (fire), =d5-d6 or \
                 #d5-d6 (tile), -d5-d6 (take a tile back), I@17 (placement) (W12)",
                quote(input)
            ),
        )
    };
    if text.is_empty() || !text.is_ascii() {
        return Err(bad());
    }
    if let Some(rest) = text.strip_prefix('=') {
        return Ok(Reading::Action(Action::PlaceTile {
            segment: parse_segment(board, rest)?,
            kind: TileKind::Railway,
        }));
    }
    if let Some(rest) = text.strip_prefix('#') {
        return Ok(Reading::Action(Action::PlaceTile {
            segment: parse_segment(board, rest)?,
            kind: TileKind::Entrenchment,
        }));
    }
    if let Some(rest) = text.strip_prefix('-') {
        return Ok(Reading::Action(Action::RemoveTile {
            segment: parse_segment(board, rest)?,
        }));
    }
    // A unit letter alone places on the next empty start point.
    let placement = match text.split_once('@') {
        Some(parts) => Some(parts),
        None if text.len() == 1 => Some((text, "")),
        None => None,
    };
    if let Some((unit, at)) = placement {
        let mut chars = unit.chars();
        let kind = match (chars.next().and_then(UnitKind::from_letter), chars.next()) {
            (Some(kind), None) => kind,
            _ => return Err(unknown_unit_letter(unit)),
        };
        let at = match at {
            "" => None,
            at => Some(read_point(board, at)?),
        };
        return Ok(Reading::Place { kind, at });
    }
    if let Some((from, dir)) = text.split_once('!') {
        let from = read_point(board, from)?;
        let dir = Direction::parse(&dir.to_ascii_uppercase()).ok_or_else(|| {
            Refusal::notation(
                reasons::UNKNOWN_DIRECTION,
                format!(
                    "`{}` is not a direction: N, NE, E, SE, S, SW, W or NW (W12)",
                    quote(dir)
                ),
            )
        })?;
        return Ok(Reading::Action(Action::Fire { from, dir }));
    }
    if let Some((from, to)) = text.split_once('-') {
        let from = read_point(board, from)?;
        let to = read_point(board, to)?;
        return Ok(Reading::Action(Action::Move { from, to }));
    }
    // Labels may contain `x`, so try every split. Roman start numbers hold
    // `X`, so an upper-case `X` splits only between two labels (`D4XD6`).
    let splits: Vec<usize> = text.match_indices(['x', 'X']).map(|(i, _)| i).collect();
    for &i in &splits {
        let (from, to) = (&text[..i], &text[i + 1..]);
        let points = if text.as_bytes()[i] == b'x' {
            (parse_point(board, from), parse_point(board, to))
        } else {
            (label_point(board, from), label_point(board, to))
        };
        if let (Some(from), Some(to)) = points {
            return Ok(Reading::Action(Action::Jump { from, to }));
        }
    }
    if let [i] = splits[..]
        && i > 0
        && i + 1 < text.len()
    {
        // One `x` between two texts: a jump with an unknown point.
        read_point(board, &text[..i])?;
        read_point(board, &text[i + 1..])?;
    }
    Err(bad())
}
