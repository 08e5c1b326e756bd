//! The JSON view and the 80-column text rendering. Focus hides nothing, so
//! every viewer sees the same.

use std::fmt::Write as _;

use tabletop_sdk::serde_json::{Map, Value, json};

use crate::board::Square;
use crate::position::{EndReason, Position};
use crate::setup::{Mirror, Side};
use crate::tower::Colour;

/// Colour letters for text: player 1 R, 2 G (the rule text's names), 3 B, 4 Y.
pub const LETTERS: [char; 4] = ['R', 'G', 'B', 'Y'];

fn reason_name(reason: EndReason) -> &'static str {
    match reason {
        EndReason::LastStanding => "last_standing",
        EndReason::Domination => "three_player_win",
        EndReason::TurnLimit => "turn_limit",
        EndReason::SymmetryRule => "symmetry_rule",
    }
}

/// The JSON view. Seats are 0-based here as everywhere in the API; towers
/// list seats bottom to top.
pub fn view(pos: &Position) -> Value {
    let n = pos.players();
    let seats = 0..n as Colour;
    let mut towers = Map::new();
    for s in Square::all() {
        let pieces: Vec<Colour> = pos.tower(s).pieces().collect();
        towers.insert(s.to_string(), json!(pieces));
    }
    let captures: Vec<Vec<u32>> = seats
        .clone()
        .map(|p| seats.clone().map(|c| pos.captured(p, c)).collect())
        .collect();
    let lost: Vec<u32> = seats
        .clone()
        .map(|c| seats.clone().map(|p| pos.captured(p, c)).sum())
        .collect();
    let rules = pos.rules();
    let side = match pos.side() {
        Side::Swap => "opening_swap",
        Side::ToMove(_) => "move",
        Side::Over => "over",
    };
    let result = pos.outcome().map(|o| {
        json!({
            "winners": seats.clone().filter(|&c| o.is_winner(c)).collect::<Vec<_>>(),
            "reason": reason_name(o.reason),
        })
    });
    let teams: Vec<Vec<Colour>> = if n == 4 {
        vec![vec![0, 1], vec![2, 3]]
    } else {
        seats.clone().map(|c| vec![c]).collect()
    };
    json!({
        "players": n,
        "towers": Value::Object(towers),
        "reserves": seats.clone().map(|c| pos.reserve(c)).collect::<Vec<_>>(),
        "captures": captures,
        "captured_of_colour": lost,
        "removed": seats.clone().map(|c| pos.removed(c)).collect::<Vec<_>>(),
        "out": pos.out_order(),
        "phase": side,
        "to_move": pos.to_move(),
        "moves": pos.moves(),
        "turn_order": rules.turn_order(),
        "teams": teams,
        "mirror": match pos.mirror() {
            Mirror::Untested => Value::Null,
            Mirror::Holding => json!(true),
            Mirror::Broken => json!(false),
        },
        "options": {
            "max_turns": rules.max_turns(),
            "symmetry_rule": rules.symmetry_rule(),
            "opening_swap": rules.opening_swap().name(),
            "team_talk": rules.team_talk(),
        },
        "result": result,
    })
}

/// One cell: `height:pieces`, lower pieces in lowercase and the top (owner)
/// in uppercase, e.g. `3:rgR`.
fn cell(pos: &Position, s: Square) -> String {
    let t = pos.tower(s);
    if t.is_empty() {
        return ".".to_string();
    }
    let h = t.height();
    let mut text = format!("{h}:");
    for (i, c) in t.pieces().enumerate() {
        let letter = LETTERS[usize::from(c)];
        text.push(if i + 1 == h {
            letter
        } else {
            letter.to_ascii_lowercase()
        });
    }
    text
}

fn name(c: Colour) -> String {
    format!("{} (player {})", LETTERS[usize::from(c)], c + 1)
}

/// The text rendering: a board of 8-column cells (at most 67 columns wide)
/// and a few status lines.
pub fn text(pos: &Position) -> String {
    let n = pos.players() as Colour;
    let mut out = String::new();
    let status = match pos.side() {
        Side::Swap => "opening swap (ruling F9) pending".to_string(),
        Side::ToMove(p) => format!("{} to move", name(p)),
        Side::Over => match pos.outcome() {
            Some(o) => {
                let winners: Vec<String> = (0..n).filter(|&c| o.is_winner(c)).map(name).collect();
                let how = match o.reason {
                    EndReason::LastStanding => "last standing",
                    EndReason::Domination => "three-player win",
                    EndReason::TurnLimit => "turn limit, shared",
                    EndReason::SymmetryRule => "symmetry rule",
                };
                format!("game over: {} ({how})", winners.join(", "))
            }
            None => "game over".to_string(),
        },
    };
    let _ = writeln!(
        out,
        "Focus, {} players, move {} of {}: {status}",
        n,
        pos.moves(),
        pos.rules().max_turns()
    );
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
                    let _ = write!(out, " {:<7}", cell(pos, s));
                }
                None => out.push_str("        "),
            }
        }
        let trimmed = out.trim_end_matches(' ').len();
        out.truncate(trimmed);
        out.push('\n');
    }
    let reserves: Vec<String> = (0..n)
        .map(|c| format!("{} {}", LETTERS[usize::from(c)], pos.reserve(c)))
        .collect();
    let _ = writeln!(out, "Reserves: {}", reserves.join("  "));
    let captures: Vec<String> = (0..n)
        .map(|p| {
            let got: Vec<String> = (0..n)
                .filter(|&c| c != p)
                .map(|c| format!("{}{}", pos.captured(p, c), LETTERS[usize::from(c)]))
                .collect();
            format!("{}: {}", LETTERS[usize::from(p)], got.join(" "))
        })
        .collect();
    let _ = writeln!(out, "Captured: {}", captures.join("  "));
    if n == 3 {
        let removed: Vec<String> = (0..n)
            .map(|c| format!("{} {}", LETTERS[usize::from(c)], pos.removed(c)))
            .collect();
        let _ = writeln!(out, "Removed (F8, 10 wins): {}", removed.join("  "));
    }
    if !pos.out_order().is_empty() {
        let out_names: Vec<String> = pos.out_order().iter().map(|&c| name(c)).collect();
        let _ = writeln!(out, "Out: {}", out_names.join(", "));
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
            assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
            assert!(text.contains("1:R"), "{text}");
        }
    }
}
