//! The board as SVG (the svg-board extension) and the board elements each
//! action involves (the action-targets extension). A Lanza state holds no
//! secret (the host keeps the turn's orders until all are in), so every
//! viewer gets the same drawing.
//!
//! Element ids, stable from position to position: every hex field
//! `field-<name>` (`field-c3`), every piece `piece-<seat><rank>`
//! (`piece-AK`) wherever it is: on its field, or beside the board while it
//! waits to re-enter.

use std::fmt::Write as _;

use tabletop_sdk::{ActionId, Player};

use crate::board::{Board, Field};
use crate::game::place_id;
use crate::orders::{ORDER_IDS, Orders};
use crate::piece::{PieceId, Rank, player_letter, seat_names};
use crate::position::{Phase, Position};

/// A hex's radius (centre to corner), in pixels.
const HEX: f64 = 34.0;
/// The height of the status line above the board.
const HEADER: f64 = 40.0;
/// The width of the panel right of the board.
const PANEL: f64 = 220.0;
/// Seat colours for A–D.
const COLOURS: [&str; 4] = ["#d32f2f", "#1976d2", "#388e3c", "#f9a825"];

fn field_id(board: &Board, field: Field) -> String {
    format!("field-{}", board.name(field))
}

fn piece_id(piece: PieceId) -> String {
    format!(
        "piece-{}{}",
        player_letter(piece.player()),
        piece.rank().letter()
    )
}

/// The board elements action `id` of `player` involves, in click order:
/// for orders each piece (K, Q, J) then the field its card sends it to
/// (after the bounce, ruling L6); for a re-entry the waiting piece then its
/// field.
pub fn action_targets(pos: &Position, player: Player, id: ActionId) -> Vec<String> {
    let board = pos.board();
    if id < ORDER_IDS {
        let Ok(orders) = Orders::from_id(id) else {
            return Vec::new();
        };
        let mut targets = Vec::new();
        for rank in Rank::ALL {
            let Some(piece) = PieceId::new(player, rank) else {
                continue;
            };
            if let Some(from) = pos.field_of(piece) {
                targets.push(piece_id(piece));
                targets.push(field_id(board, board.target(from, orders.card(rank))));
            }
        }
        return targets;
    }
    let Some(field) = board.fields().find(|&f| place_id(f) == id) else {
        return Vec::new();
    };
    match pos.phase() {
        Phase::Place(queue) => queue
            .first()
            .map(|&piece| vec![piece_id(piece), field_id(board, field)])
            .unwrap_or_default(),
        _ => vec![field_id(board, field)],
    }
}

/// The pixel centre of `field`, before the board's offset: flat-topped
/// hexes in axial coordinates (ruling L1).
fn centre(board: &Board, field: Field) -> (f64, f64) {
    let (q, r) = board.coords(field);
    let (q, r) = (f64::from(q), f64::from(r));
    (1.5 * HEX * q, 3f64.sqrt() * HEX * (r + q / 2.0))
}

/// The board as an SVG document: the status line; the hex fields, edge
/// fields shaded (where pieces re-enter, ruling L10) and named; every
/// piece on the board as a disc in its seat's colour with its rank letter;
/// and a panel with each seat's chips, whether it is out or to act, and
/// the pieces waiting to re-enter.
pub fn svg(pos: &Position) -> String {
    let board = pos.board();
    let centres: Vec<(f64, f64)> = board.fields().map(|f| centre(board, f)).collect();
    let min_x = centres.iter().map(|c| c.0).fold(f64::MAX, f64::min) - HEX - 8.0;
    let max_x = centres.iter().map(|c| c.0).fold(f64::MIN, f64::max) + HEX + 8.0;
    let min_y = centres.iter().map(|c| c.1).fold(f64::MAX, f64::min) - HEX - 8.0;
    let max_y = centres.iter().map(|c| c.1).fold(f64::MIN, f64::max) + HEX + 8.0;
    let board_w = max_x - min_x;
    let width = (board_w + PANEL).ceil();
    let height = (HEADER + (max_y - min_y))
        .max(HEADER + 60.0 + 70.0 * 4.0 + 90.0)
        .ceil();
    let at = |field: Field| {
        let (x, y) = centres[field.index()];
        (x - min_x, y - min_y + HEADER)
    };
    let mut out = String::with_capacity(16 * 1024);
    let _ = write!(
        out,
        "<svg xmlns='http://www.w3.org/2000/svg' class='board lanza' width='{width}' \
         height='{height}' viewBox='0 0 {width} {height}' font-family='sans-serif'>\
         <rect width='{width}' height='{height}' fill='#eef3e8'/>\
         <text id='status' class='status' x='12' y='26' font-size='16'>{}</text>",
        status_line(pos)
    );
    for field in board.fields() {
        let (x, y) = at(field);
        let corners: Vec<String> = (0..6)
            .map(|i| {
                let angle = std::f64::consts::PI / 3.0 * f64::from(i);
                format!(
                    "{:.1},{:.1}",
                    x + (HEX - 1.5) * angle.cos(),
                    y + (HEX - 1.5) * angle.sin()
                )
            })
            .collect();
        let (class, fill) = if board.is_edge(field) {
            ("field edge", "#d7e4c8")
        } else {
            ("field", "#f7f9f2")
        };
        let _ = write!(
            out,
            "<g id='{}' class='{class}'><polygon points='{}' fill='{fill}' stroke='#6b7d5c' \
             stroke-width='1.5'/><text x='{x:.1}' y='{:.1}' font-size='10' text-anchor='middle' \
             fill='#7a8a6c'>{}</text></g>",
            field_id(board, field),
            corners.join(" "),
            y + HEX * 0.72,
            board.name(field)
        );
    }
    for piece in pos.pieces() {
        if let Some(field) = pos.field_of(piece) {
            let (x, y) = at(field);
            write_piece(&mut out, piece, x, y - 3.0);
        }
    }
    write_panel(pos, board_w, &mut out);
    out.push_str("</svg>");
    out
}

/// One piece: a disc in its seat's colour with its rank letter.
fn write_piece(out: &mut String, piece: PieceId, x: f64, y: f64) {
    let seat = piece.player();
    let colour = COLOURS[seat as usize % COLOURS.len()];
    let _ = write!(
        out,
        "<g id='{}' class='piece seat-{} {}'><circle cx='{x:.1}' cy='{y:.1}' r='17' \
         fill='{colour}' stroke='#222' stroke-width='2'/><text x='{x:.1}' y='{:.1}' \
         font-size='17' font-weight='bold' text-anchor='middle' fill='#fff'>{}</text></g>",
        piece_id(piece),
        player_letter(seat).to_ascii_lowercase(),
        piece.rank().name(),
        y + 6.0,
        piece.rank().letter()
    );
}

/// The seats' panel: colour, name, chips, out or to act; then the pieces
/// off the board that wait to re-enter (or, before the setup, every piece).
fn write_panel(pos: &Position, x: f64, out: &mut String) {
    let names = seat_names(pos.players());
    let acting = acting_seats(pos);
    for seat in 0..pos.players() {
        let y = HEADER + 30.0 + 60.0 * f64::from(seat);
        let colour = COLOURS[seat as usize % COLOURS.len()];
        let name = names.get(seat as usize).map_or("", String::as_str);
        let mut classes = format!("seat seat-{}", name.to_ascii_lowercase());
        let mut note = String::new();
        if pos.is_out(seat) {
            classes.push_str(" out");
            note.push_str(" · out");
        } else if acting.contains(&seat) {
            classes.push_str(" to-move");
            note.push_str(" ◀");
        }
        let _ = write!(
            out,
            "<g class='{classes}'><circle cx='{:.1}' cy='{:.1}' r='9' fill='{colour}' \
             stroke='#222'/><text x='{:.1}' y='{:.1}' font-size='15' font-weight='bold'>{name}: \
             {} chip{}{note}</text></g>",
            x + 9.0,
            y - 5.0,
            x + 24.0,
            y,
            pos.chips(seat),
            if pos.chips(seat) == 1 { "" } else { "s" }
        );
    }
    let waiting: Vec<PieceId> = pos
        .pieces()
        .filter(|&p| pos.field_of(p).is_none() && !pos.is_out(p.player()))
        .collect();
    if waiting.is_empty() {
        return;
    }
    let top = HEADER + 30.0 + 60.0 * f64::from(pos.players()) + 10.0;
    let _ = write!(
        out,
        "<text x='{x:.1}' y='{top:.1}' font-size='13'>{}</text>",
        if *pos.phase() == Phase::Setup {
            "to be set up"
        } else {
            "waiting to re-enter"
        }
    );
    for (i, &piece) in waiting.iter().enumerate() {
        let (col, row) = ((i % 5) as f64, (i / 5) as f64);
        write_piece(out, piece, x + 20.0 + 40.0 * col, top + 30.0 + 40.0 * row);
    }
}

/// The seats that act now: every seat still in while orders are given,
/// the owner of the next piece to re-enter while pieces are placed.
fn acting_seats(pos: &Position) -> Vec<u32> {
    match pos.phase() {
        Phase::Orders => pos.players_in().collect(),
        Phase::Place(queue) => queue.first().map(|p| p.player()).into_iter().collect(),
        _ => Vec::new(),
    }
}

/// Whose turn, or how the game ended.
fn status_line(pos: &Position) -> String {
    let names = seat_names(pos.players());
    let name = |seat: u32| names.get(seat as usize).cloned().unwrap_or_default();
    let turn = format!("Turn {} of {}", pos.turns() + 1, pos.max_turns());
    match pos.phase() {
        Phase::Setup => "Setup: the pieces are shuffled onto the start fields".to_owned(),
        Phase::Orders => format!("{turn}: every player orders their pieces"),
        Phase::Reentry(_) => format!("{turn}: the re-entry order is drawn"),
        Phase::Place(queue) => match queue.first() {
            Some(&piece) => format!(
                "{turn}: {} places {}{} on an edge field",
                name(piece.player()),
                player_letter(piece.player()),
                piece.rank().letter()
            ),
            None => turn,
        },
        Phase::Over => {
            let ranks = pos.ranks();
            let winners: Vec<String> = (0..pos.players())
                .filter(|&s| ranks.get(s as usize) == Some(&1))
                .map(name)
                .collect();
            format!(
                "Over after {} turns: {} {}",
                pos.turns(),
                winners.join(" and "),
                if winners.len() == 1 {
                    "wins"
                } else {
                    "share first place"
                }
            )
        }
    }
}
