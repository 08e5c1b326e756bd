//! The board as SVG (the svg-board extension) and the board elements each
//! action involves (the action-targets extension). Focus hides nothing, so
//! every viewer gets the same drawing.
//!
//! Element ids, stable from position to position: every square is a group
//! `sq-<name>` (`sq-c3`) holding its tower, drawn bottom to top; each
//! player's reserve `reserve-p<n>` (`reserve-p1`, the rules' player
//! numbers) in the panel beside the board.

use std::fmt::Write as _;

use crate::board::Square;
use crate::moves::Move;
use crate::position::Position;
use crate::render::reason_name;
use crate::seats::names;
use crate::setup::Side;
use crate::tower::Colour;

/// Pixels per square.
const CELL: i32 = 56;
/// Margin around the board (file and rank names).
const MARGIN: i32 = 24;
/// The height of the status line above the board.
const HEADER: i32 = 36;
/// The width of the panel right of the board.
const PANEL: i32 = 230;
/// Piece colours for P1–P4 (R, G, B, Y) and the ink on them.
const COLOURS: [(&str, &str); 4] = [
    ("#d32f2f", "#fff"),
    ("#388e3c", "#fff"),
    ("#1976d2", "#fff"),
    ("#fbc02d", "#000"),
];

/// The board elements action `id` involves, in click order: a tower move's
/// square and its destination, a drop's reserve and square, a swap's R
/// square then G square.
pub fn action_targets(seat: Colour, id: u64) -> Vec<String> {
    match Move::from_id(id) {
        Some(Move::Shift { from, direction, k }) => match from.offset(direction, k) {
            Some(to) => vec![square_id(from), square_id(to)],
            None => vec![square_id(from)],
        },
        Some(Move::Drop(to)) => vec![reserve_id(seat), square_id(to)],
        Some(Move::Swap { r, g }) => vec![square_id(r), square_id(g)],
        None => Vec::new(),
    }
}

fn square_id(square: Square) -> String {
    format!("sq-{square}")
}

fn reserve_id(seat: Colour) -> String {
    format!("reserve-p{}", seat + 1)
}

/// The board as an SVG document: the status line, the 52 squares with
/// their towers (pieces bottom to top in the players' colours, the height
/// written beside a tower of two or more), file and rank names, and a
/// panel with each player's colour, reserve, captures and whether they are
/// out, the player to move marked.
pub fn svg(pos: &Position) -> String {
    let width = 2 * MARGIN + 8 * CELL + PANEL;
    let height = HEADER + 2 * MARGIN + 8 * CELL;
    let mut out = String::with_capacity(24 * 1024);
    let _ = write!(
        out,
        "<svg xmlns='http://www.w3.org/2000/svg' class='board focus' width='{width}' \
         height='{height}' viewBox='0 0 {width} {height}' font-family='sans-serif'>\
         <rect width='{width}' height='{height}' fill='#f5f0e6'/>\
         <text id='status' class='status' x='12' y='24' font-size='16'>{}</text>",
        status_line(pos)
    );
    let x0 = MARGIN;
    let y0 = HEADER + MARGIN;
    for file in 0..8u8 {
        let x = x0 + i32::from(file) * CELL + CELL / 2;
        let letter = char::from(b'a' + file);
        let _ = write!(
            out,
            "<text x='{x}' y='{}' font-size='13' text-anchor='middle' fill='#555'>{letter}</text>",
            y0 + 8 * CELL + 17
        );
    }
    for rank in 0..8u8 {
        let y = y0 + i32::from(7 - rank) * CELL + CELL / 2 + 5;
        let _ = write!(
            out,
            "<text x='{}' y='{y}' font-size='13' text-anchor='middle' fill='#555'>{}</text>",
            MARGIN / 2,
            rank + 1
        );
    }
    for square in Square::all() {
        let x = x0 + i32::from(square.file()) * CELL;
        let y = y0 + i32::from(7 - square.rank()) * CELL;
        let tower = pos.tower(square);
        let shade = if (square.file() + square.rank()) % 2 == 0 {
            "#d9c7a3"
        } else {
            "#eadcbf"
        };
        let _ = write!(
            out,
            "<g id='sq-{square}' class='square'><rect x='{x}' y='{y}' width='{CELL}' \
             height='{CELL}' fill='{shade}' stroke='#8d7b5a'/>"
        );
        let height = tower.height();
        if height > 0 {
            let top = tower.top().unwrap_or(0);
            let _ = write!(out, "<g class='tower p{} h{height}'>", top + 1);
            for (i, colour) in tower.pieces().enumerate() {
                // Bottom piece lowest; each piece a flat disc 7 px above the one below.
                let cy = y + CELL - 14 - 7 * i as i32;
                let (fill, _) = COLOURS[usize::from(colour) % 4];
                let _ = write!(
                    out,
                    "<ellipse class='piece p{}' cx='{}' cy='{cy}' rx='18' ry='7' fill='{fill}' \
                     stroke='#222'/>",
                    colour + 1,
                    x + CELL / 2
                );
            }
            if height > 1 {
                let _ = write!(
                    out,
                    "<text x='{}' y='{}' font-size='12' font-weight='bold' text-anchor='end' \
                     fill='#222'>{height}</text>",
                    x + CELL - 3,
                    y + 13
                );
            }
            out.push_str("</g>");
        }
        out.push_str("</g>");
    }
    write_panel(pos, x0 + 8 * CELL + MARGIN, y0, &mut out);
    out.push_str("</svg>");
    out
}

/// The players' panel: colour, name, reserve (a clickable chip), captures,
/// and out or to move.
fn write_panel(pos: &Position, x: i32, y: i32, out: &mut String) {
    let names = names(pos.players() as u32);
    let to_move = pos.to_move();
    let rules = pos.rules();
    for seat in 0..pos.players() as Colour {
        let top = y + i32::from(seat) * 96;
        let (fill, ink) = COLOURS[usize::from(seat) % 4];
        let name = names.get(usize::from(seat)).map_or("", String::as_str);
        let out_of_game = pos.is_out(seat);
        let captured: u32 = (0..pos.players() as Colour)
            .map(|c| pos.captured(seat, c))
            .sum();
        let mut classes = format!("player p{}", seat + 1);
        if to_move == Some(seat) {
            classes.push_str(" to-move");
        }
        if out_of_game {
            classes.push_str(" out");
        }
        let marker = if to_move == Some(seat) {
            " ◀ to move"
        } else {
            ""
        };
        let team = if pos.players() == 4 {
            format!(" · team {}", rules.team(seat) + 1)
        } else {
            String::new()
        };
        let _ = write!(
            out,
            "<g class='{classes}'><circle cx='{}' cy='{}' r='9' fill='{fill}' stroke='#222'/>\
             <text x='{}' y='{}' font-size='15' font-weight='bold'>{name}{team}{marker}</text>\
             <text x='{}' y='{}' font-size='12'>captured {captured}{}{}</text>",
            x + 9,
            top + 9,
            x + 24,
            top + 14,
            x,
            top + 34,
            if pos.players() == 3 {
                format!(" · removed {}", pos.removed(seat))
            } else {
                String::new()
            },
            if out_of_game { " · out" } else { "" },
        );
        let _ = write!(
            out,
            "<g id='{}' class='reserve p{}'><rect x='{x}' y='{}' width='150' height='26' \
             rx='4' fill='{fill}' stroke='#222'/><text x='{}' y='{}' font-size='13' \
             fill='{ink}'>reserve {}</text></g></g>",
            reserve_id(seat),
            seat + 1,
            top + 44,
            x + 8,
            top + 62,
            pos.reserve(seat)
        );
    }
}

/// Whose turn, or how the game ended.
fn status_line(pos: &Position) -> String {
    let names = names(pos.players() as u32);
    let name = |seat: Colour| names.get(usize::from(seat)).cloned().unwrap_or_default();
    let limit = pos.rules().max_turns();
    match pos.side() {
        Side::Swap => "Opening swap".to_owned(),
        Side::ToMove(seat) => format!(
            "Move {} of {limit}: {} to move",
            pos.moves() + 1,
            name(seat)
        ),
        Side::Over => match pos.outcome() {
            Some(outcome) => {
                let winners: Vec<String> = (0..pos.players() as Colour)
                    .filter(|&s| outcome.is_winner(s))
                    .map(name)
                    .collect();
                format!(
                    "Over ({}): {} {}",
                    reason_name(outcome.reason),
                    winners.join(" and "),
                    if winners.len() == 1 {
                        "wins"
                    } else {
                        "share first place"
                    }
                )
            }
            None => "Over".to_owned(),
        },
    }
}
