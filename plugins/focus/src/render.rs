//! The JSON view and the 80-column text rendering. Focus hides nothing, so
//! every viewer sees the same.

use std::fmt::Write as _;
use tabletop_sdk::text::write_joined;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use crate::board::Square;
use crate::position::{EndReason, Position};
use crate::seats::label_of;
use crate::setup::{Mirror, Side};
use crate::tower::{Colour, Tower};

/// Colour letters for text: P1 R, P2 G (the rule text's names), P3 B, P4 Y.
pub const LETTERS: [char; 4] = ['R', 'G', 'B', 'Y'];

/// The end reason's name in views and events.
pub(crate) fn reason_name(reason: EndReason) -> &'static str {
    match reason {
        EndReason::LastStanding => "last_standing",
        EndReason::Domination => "three_player_win",
        EndReason::TurnLimit => "turn_limit",
        EndReason::SymmetryRule => "symmetry_rule",
    }
}

/// The JSON view: typed data serialised straight to text (building a
/// `serde_json::Value` tree first, 52 towers each a keyed array, would cost
/// most of a full view). Seats are 0-based here as everywhere in the API;
/// towers list seats bottom to top. Fields are in alphabetical order, as
/// clients that compare views as `Value` objects print them.
#[derive(Debug, Serialize)]
pub struct View<'a> {
    captured_of_colour: Vec<u32>,
    captures: Vec<Vec<u32>>,
    mirror: Option<bool>,
    moves: u32,
    options: OptionsView,
    out: &'a [Colour],
    phase: &'static str,
    players: usize,
    removed: Vec<u32>,
    reserves: Vec<u32>,
    result: Option<ResultView>,
    teams: &'static [&'static [Colour]],
    to_move: Option<Colour>,
    towers: Towers<'a>,
    turn_order: &'static [u8],
}

#[derive(Debug, Serialize)]
struct OptionsView {
    max_turns: u32,
    opening_swap: &'static str,
    symmetry_rule: bool,
    team_talk: bool,
}

#[derive(Debug, Serialize)]
struct ResultView {
    reason: &'static str,
    winners: Vec<Colour>,
}

/// Every square's tower, keyed by square name in alphabetical order (file
/// first), as a `Value` object sorts them.
#[derive(Debug)]
struct Towers<'a>(&'a Position);

/// A tower's pieces, bottom to top.
#[derive(Debug)]
struct Pieces(Tower);

impl Serialize for Towers<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(Square::COUNT))?;
        for file in 0..8u8 {
            for rank in 0..8u8 {
                if let Some(square) = Square::new(file, rank) {
                    map.serialize_entry(square_name(square), &Pieces(self.0.tower(square)))?;
                }
            }
        }
        map.end()
    }
}

impl Serialize for Pieces {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.pieces())
    }
}

/// Square names by index (`rank * 8 + file`), two bytes each, so a view
/// borrows its keys instead of formatting 52 strings.
const SQUARE_NAMES: &str = "\
    a1b1c1d1e1f1g1h1a2b2c2d2e2f2g2h2a3b3c3d3e3f3g3h3a4b4c4d4e4f4g4h4\
    a5b5c5d5e5f5g5h5a6b6c6d6e6f6g6h6a7b7c7d7e7f7g7h7a8b8c8d8e8f8g8h8";

fn square_name(square: Square) -> &'static str {
    let at = 2 * square.index();
    SQUARE_NAMES.get(at..at + 2).unwrap_or("")
}

/// Each seat alone on its team (two or three players).
const SOLO_TEAMS: [&[Colour]; 4] = [&[0], &[1], &[2], &[3]];
/// Ruling F3: 1 and 2 against 3 and 4.
const FOUR_PLAYER_TEAMS: [&[Colour]; 2] = [&[0, 1], &[2, 3]];

/// The JSON view of `pos` (see [`View`]).
pub fn view(pos: &Position) -> View<'_> {
    let n = pos.players();
    let seats = 0..n as Colour;
    let mut capture_table = [[0u32; 4]; 4];
    let mut lost = [0u32; 4];
    let mut reserves = [0u32; 4];
    let mut removed = [0u32; 4];
    for p in seats.clone() {
        let i = usize::from(p);
        reserves[i] = pos.reserve(p);
        removed[i] = pos.removed(p);
        for c in seats.clone() {
            let got = pos.captured(p, c);
            capture_table[i][usize::from(c)] = got;
            lost[usize::from(c)] += got;
        }
    }
    let captures: Vec<Vec<u32>> = capture_table[..n]
        .iter()
        .map(|row| row[..n].to_vec())
        .collect();
    let rules = pos.rules();
    let phase = match pos.side() {
        Side::Swap => "opening_swap",
        Side::ToMove(_) => "move",
        Side::Over => "over",
    };
    let result = pos.outcome().map(|o| ResultView {
        reason: reason_name(o.reason),
        winners: seats.clone().filter(|&c| o.is_winner(c)).collect(),
    });
    let teams: &'static [&'static [Colour]] = if n == 4 {
        &FOUR_PLAYER_TEAMS
    } else {
        &SOLO_TEAMS[..n]
    };
    View {
        captured_of_colour: lost[..n].to_vec(),
        captures,
        mirror: match pos.mirror() {
            Mirror::Untested => None,
            Mirror::Holding => Some(true),
            Mirror::Broken => Some(false),
        },
        moves: pos.moves(),
        options: OptionsView {
            max_turns: rules.max_turns(),
            opening_swap: rules.opening_swap().name(),
            symmetry_rule: rules.symmetry_rule(),
            team_talk: rules.team_talk(),
        },
        out: pos.out_order(),
        phase,
        players: n,
        removed: removed[..n].to_vec(),
        reserves: reserves[..n].to_vec(),
        result,
        teams,
        to_move: pos.to_move(),
        towers: Towers(pos),
        turn_order: rules.turn_order(),
    }
}

/// One cell, `height:pieces` with lower pieces in lowercase and the top
/// (owner) in uppercase, e.g. `3:rgR`, left-aligned in `width` columns.
fn write_cell(out: &mut String, pos: &Position, s: Square, width: usize) {
    let t = pos.tower(s);
    let start = out.len();
    if t.is_empty() {
        out.push('.');
    } else {
        let h = t.height();
        let _ = write!(out, "{h}:");
        for (i, c) in t.pieces().enumerate() {
            let letter = LETTERS[usize::from(c)];
            out.push(if i + 1 == h {
                letter
            } else {
                letter.to_ascii_lowercase()
            });
        }
    }
    // Cells are ASCII, so bytes are columns.
    let written = out.len() - start;
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(written)));
}

fn write_name(out: &mut String, c: Colour) {
    out.push_str(&label_of(c));
}

/// Bytes a rendering of up to four players takes, so it is written into
/// one allocation.
const TEXT_CAPACITY: usize = 1024;

/// The text rendering: a board of 8-column cells (at most 67 columns wide)
/// and a few status lines, which name seats as `seat 0 (P1)` and give each
/// seat's colour letter.
pub fn text(pos: &Position) -> String {
    let n = pos.players() as Colour;
    let mut out = String::with_capacity(TEXT_CAPACITY);
    let _ = write!(
        out,
        "Focus, {} players, move {} of {}: ",
        n,
        pos.moves(),
        pos.rules().max_turns()
    );
    match pos.side() {
        Side::Swap => out.push_str("opening swap (ruling F9) pending"),
        Side::ToMove(p) => {
            write_name(&mut out, p);
            out.push_str(" to move");
        }
        Side::Over => match pos.outcome() {
            Some(o) => {
                out.push_str("game over: ");
                write_joined(
                    &mut out,
                    (0..n).filter(|&c| o.is_winner(c)),
                    ", ",
                    write_name,
                );
                out.push_str(match o.reason {
                    EndReason::LastStanding => " (last standing)",
                    EndReason::Domination => " (three-player win)",
                    EndReason::TurnLimit => " (turn limit, shared)",
                    EndReason::SymmetryRule => " (symmetry rule)",
                });
            }
            None => out.push_str("game over"),
        },
    }
    out.push('\n');
    out.push_str("   ");
    for f in b'a'..=b'h' {
        let _ = write!(out, "   {}    ", char::from(f));
    }
    out.push('\n');
    for rank in (0..8u8).rev() {
        let _ = write!(out, " {} ", rank + 1);
        for file in 0..8u8 {
            match Square::new(file, rank) {
                Some(s) => {
                    out.push(' ');
                    write_cell(&mut out, pos, s, 7);
                }
                None => out.push_str("        "),
            }
        }
        let trimmed = out.trim_end_matches(' ').len();
        out.truncate(trimmed);
        out.push('\n');
    }
    out.push_str("Colours: ");
    write_joined(&mut out, 0..n, ", ", |out, c| {
        out.push(LETTERS[usize::from(c)]);
        out.push(' ');
        write_name(out, c);
    });
    out.push('\n');
    out.push_str("Reserves: ");
    write_joined(&mut out, 0..n, "  ", |out, c| {
        let _ = write!(out, "{} {}", LETTERS[usize::from(c)], pos.reserve(c));
    });
    out.push_str("\nCaptured: ");
    write_joined(&mut out, 0..n, "  ", |out, p| {
        let _ = write!(out, "{}: ", LETTERS[usize::from(p)]);
        write_joined(out, (0..n).filter(|&c| c != p), " ", |out, c| {
            let _ = write!(out, "{}{}", pos.captured(p, c), LETTERS[usize::from(c)]);
        });
    });
    out.push('\n');
    if n == 3 {
        out.push_str("Removed (F8, 10 wins): ");
        write_joined(&mut out, 0..n, "  ", |out, c| {
            let _ = write!(out, "{} {}", LETTERS[usize::from(c)], pos.removed(c));
        });
        out.push('\n');
    }
    if !pos.out_order().is_empty() {
        out.push_str("Out: ");
        write_joined(&mut out, pos.out_order().iter().copied(), ", ", write_name);
        out.push('\n');
    }
    if n == 4 {
        out.push_str("Teams: R+G against B+Y; turn order R, B, G, Y\n");
    }
    out.push_str("Cells: height:pieces bottom to top, the owner on top in capitals\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    #[test]
    fn text_fits_80_columns_and_shows_towers() {
        for players in 2..=4 {
            let pos = Position::start(Rules::standard(players).unwrap());
            let text = text(&pos);
            assert!(text.lines().all(|l| l.chars().count() <= 67), "{text}");
            assert!(text.contains("1:R"), "{text}");
            assert!(
                text.contains("move 0 of 1000: seat 0 (P1) to move"),
                "{text}"
            );
        }
        let four = text(&Position::start(Rules::standard(4).unwrap()));
        assert!(
            four.contains("Colours: R seat 0 (P1), G seat 1 (P2), B seat 2 (P3), Y seat 3 (P4)\n"),
            "{four}"
        );
    }
}
