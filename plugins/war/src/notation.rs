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

use crate::board::{Board, Direction, parse_start_number, start_number_name};
use crate::moves::Action;
use crate::position::Position;
use crate::side::{TileKind, UnitKind};

/// Why a text is not an action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotationError(pub String);

impl std::fmt::Display for NotationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotationError {}

/// Reads a point: a label (`d4`) or a start number (`17`, `XVII`).
pub fn parse_point(board: &Board, text: &str) -> Option<u8> {
    board
        .point_by_id(text)
        .or_else(|| parse_start_number(text).map(|(side, n)| board.start_point(side, n)))
}

fn segment_text(board: &Board, segment: u16) -> String {
    let s = board.segments()[segment as usize];
    format!("{}-{}", board.label(s.a), board.label(s.b))
}

fn parse_segment(board: &Board, text: &str) -> Result<u16, NotationError> {
    // Labels hold no `-`, so the split is unambiguous.
    let (a, b) = text
        .split_once('-')
        .ok_or_else(|| NotationError(format!("`{text}` is not a segment like `d5-d6`")))?;
    let pa = parse_point(board, a).ok_or_else(|| NotationError(format!("unknown point `{a}`")))?;
    let pb = parse_point(board, b).ok_or_else(|| NotationError(format!("unknown point `{b}`")))?;
    board
        .segment_between(pa, pb)
        .ok_or_else(|| NotationError(format!("there is no segment {a}-{b}")))
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

/// Reads an action's text (no legality check beyond the form: the caller
/// checks the result against the legal actions).
pub fn parse_action(position: &Position, text: &str) -> Result<Action, NotationError> {
    let board = position.board();
    let text = text.trim();
    let bad = || {
        NotationError(format!(
            "`{text}` is not War notation (d4-d5, b3xb5, c2!N, =d5-d6, #d5-d6, -d5-d6, I@17)"
        ))
    };
    if text.is_empty() || !text.is_ascii() {
        return Err(bad());
    }
    if let Some(rest) = text.strip_prefix('=') {
        return Ok(Action::PlaceTile {
            segment: parse_segment(board, rest)?,
            kind: TileKind::Railway,
        });
    }
    if let Some(rest) = text.strip_prefix('#') {
        return Ok(Action::PlaceTile {
            segment: parse_segment(board, rest)?,
            kind: TileKind::Entrenchment,
        });
    }
    if let Some(rest) = text.strip_prefix('-') {
        return Ok(Action::RemoveTile {
            segment: parse_segment(board, rest)?,
        });
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
            _ => {
                return Err(NotationError(format!(
                    "`{unit}` is not a unit letter (I, C, A)"
                )));
            }
        };
        let expected = position
            .next_start()
            .map(|n| board.start_point(position.to_move(), n))
            .ok_or_else(|| NotationError("placements are over".to_string()))?;
        let point = if at.is_empty() {
            expected
        } else {
            parse_point(board, at).ok_or_else(|| NotationError(format!("unknown point `{at}`")))?
        };
        if point != expected {
            return Err(NotationError(format!(
                "units are placed on the next empty start point, {}",
                start_number_name(position.to_move(), position.next_start().unwrap_or(1))
            )));
        }
        return Ok(Action::Place(kind));
    }
    if let Some((from, dir)) = text.split_once('!') {
        let from = parse_point(board, from)
            .ok_or_else(|| NotationError(format!("unknown point `{from}`")))?;
        let dir = Direction::parse(dir).ok_or_else(|| {
            NotationError(format!(
                "`{dir}` is not a direction (N, NE, E, SE, S, SW, W, NW)"
            ))
        })?;
        return Ok(Action::Fire { from, dir });
    }
    if let Some((from, to)) = text.split_once('-') {
        let from = parse_point(board, from)
            .ok_or_else(|| NotationError(format!("unknown point `{from}`")))?;
        let to =
            parse_point(board, to).ok_or_else(|| NotationError(format!("unknown point `{to}`")))?;
        return Ok(Action::Move { from, to });
    }
    // Labels may contain `x`, so try every split.
    for (i, _) in text.match_indices('x') {
        if let (Some(from), Some(to)) = (
            parse_point(board, &text[..i]),
            parse_point(board, &text[i + 1..]),
        ) {
            return Ok(Action::Jump { from, to });
        }
    }
    Err(bad())
}
