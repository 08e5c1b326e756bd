//! The table as SVG (the svg-board extension) and the table elements each
//! action involves (the action-targets extension).
//!
//! Face-down stacks are drawn as tile backs with their size only, for
//! every viewer, their owner included (Z11): the drawing shows exactly what
//! the view shows. The viewer's own row is marked "you".
//!
//! Element ids, stable from position to position: each player's face-down
//! stack `stack-p<k>` and open pile `open-p<k>` (`open-p2`, the rules'
//! player numbers), the middle stacks `middle-m<k>` (oldest first) and the
//! place for a new one `middle-new`, and the tile in hand `hand`.

use std::fmt::Write as _;

use tabletop_sdk::{ActionId, Player, Viewer};

use crate::actions::Action;
use crate::fit::Place;
use crate::position::{Phase, Position, Source};
use crate::seats::seat_name;

/// The drawing's width.
const WIDTH: i32 = 780;
/// The height of the status line.
const HEADER: i32 = 40;
/// A tile's size.
const TILE_W: i32 = 34;
const TILE_H: i32 = 46;
/// Middle stacks per row.
const MIDDLE_PER_ROW: usize = 14;
/// The height of one player's row.
const ROW: i32 = 70;
/// Open-pile tiles shown, the top ones (the view has the whole pile).
const OPEN_SHOWN: usize = 10;

/// The table elements action `id` of `player` involves, in click order:
/// a reveal the own face-down stack, playing the open top the own open
/// pile, a placement the tile in hand then where it goes.
pub fn action_targets(player: Player, id: ActionId) -> Vec<String> {
    match Action::from_id(id) {
        Some(Action::Flip) => vec![stack_id(player)],
        Some(Action::PlayOpen) => vec![open_id(player)],
        Some(Action::Place(place)) => vec!["hand".to_owned(), place_id(place)],
        None => Vec::new(),
    }
}

fn stack_id(player: Player) -> String {
    format!("stack-p{}", player + 1)
}

fn open_id(player: Player) -> String {
    format!("open-p{}", player + 1)
}

fn place_id(place: Place) -> String {
    match place {
        Place::NewMiddle => "middle-new".to_owned(),
        Place::Middle(i) => format!("middle-m{}", i + 1),
        Place::Pile(p) => open_id(p),
    }
}

/// One face-up tile with its number.
fn write_tile(out: &mut String, x: i32, y: i32, number: u8, class: &str) {
    let _ = write!(
        out,
        "<g class='{class}'><rect x='{x}' y='{y}' width='{TILE_W}' height='{TILE_H}' rx='4' \
         fill='#fffdf5' stroke='#5d4037'/><text x='{}' y='{}' font-size='17' font-weight='bold' \
         text-anchor='middle' fill='#3e2723'>{number}</text></g>",
        x + TILE_W / 2,
        y + TILE_H / 2 + 6
    );
}

/// An empty place, outlined.
fn write_slot(out: &mut String, x: i32, y: i32, label: &str) {
    let _ = write!(
        out,
        "<rect x='{x}' y='{y}' width='{TILE_W}' height='{TILE_H}' rx='4' fill='none' \
         stroke='#8d6e63' stroke-dasharray='4 3'/><text x='{}' y='{}' font-size='10' \
         text-anchor='middle' fill='#8d6e63'>{label}</text>",
        x + TILE_W / 2,
        y + TILE_H / 2 + 4
    );
}

/// The table as an SVG document for `viewer`: the status line; the middle
/// stacks (each as its top, `1–top`) and the place for a new one; the tile
/// in hand; and each player's row: name, the donkey tile, the face-down
/// stack as tile backs with its size, the open pile's top tiles (the top
/// one last), and after the end the scores.
pub fn svg(pos: &Position, viewer: Viewer) -> String {
    let players = pos.rules().players;
    let middle = pos.middle();
    let middle_rows = (middle.len() + 1).div_ceil(MIDDLE_PER_ROW).max(1) as i32;
    let middle_top = HEADER + 24;
    let rows_top = middle_top + middle_rows * (TILE_H + 12) + 24;
    let height = rows_top + ROW * players as i32 + 10;
    let mut out = String::with_capacity(12 * 1024);
    let _ = write!(
        out,
        "<svg xmlns='http://www.w3.org/2000/svg' class='board lanzeloth' width='{WIDTH}' \
         height='{height}' viewBox='0 0 {WIDTH} {height}' font-family='sans-serif'>\
         <rect width='{WIDTH}' height='{height}' fill='#e8f0f5'/>\
         <text id='status' class='status' x='12' y='26' font-size='16'>{}</text>\
         <text x='12' y='{}' font-size='12' fill='#555'>middle</text>",
        status_line(pos),
        middle_top - 6
    );
    for (i, &top) in middle.iter().enumerate() {
        let (x, y) = middle_place(i, middle_top);
        let complete = top == pos.rules().max_number;
        let _ = write!(
            out,
            "<g id='middle-m{}' class='middle{}'>",
            i + 1,
            if complete { " complete" } else { "" }
        );
        write_tile(&mut out, x, y, top, "tile");
        let _ = write!(
            out,
            "<text x='{}' y='{}' font-size='9' text-anchor='middle' fill='#555'>m{} 1–{top}</text></g>",
            x + TILE_W / 2,
            y + TILE_H + 10,
            i + 1
        );
    }
    let (x, y) = middle_place(middle.len(), middle_top);
    out.push_str("<g id='middle-new' class='middle new'>");
    write_slot(&mut out, x, y, "new");
    out.push_str("</g>");
    if let Some((tile, from)) = pos.hand() {
        let x = WIDTH - TILE_W - 20;
        let _ = write!(
            out,
            "<text x='{}' y='{}' font-size='12' text-anchor='end' fill='#555'>in hand ({})</text>\
             <g id='hand' class='hand'>",
            x - 6,
            middle_top + 26,
            match from {
                Source::FaceDown => "revealed",
                Source::Open => "from the open pile",
            }
        );
        write_tile(&mut out, x, middle_top, tile, "tile");
        out.push_str("</g>");
    }
    for p in 0..players {
        write_player(pos, viewer, p, rows_top + ROW * p as i32, &mut out);
    }
    out.push_str("</svg>");
    out
}

/// Where middle place `i` goes (stacks first, then the new one).
fn middle_place(i: usize, top: i32) -> (i32, i32) {
    let (col, row) = ((i % MIDDLE_PER_ROW) as i32, (i / MIDDLE_PER_ROW) as i32);
    (12 + col * (TILE_W + 8), top + row * (TILE_H + 12))
}

/// One player's row.
fn write_player(pos: &Position, viewer: Viewer, p: Player, y: i32, out: &mut String) {
    let on_turn = pos.turn() == Some(p);
    let mut classes = format!("player p{}", p + 1);
    if on_turn {
        classes.push_str(" to-move");
    }
    if pos.is_out(p) {
        classes.push_str(" out");
    }
    let mut name = seat_name(p);
    if viewer == Viewer::Seat(p) {
        name.push_str(" (you)");
    }
    let mut notes = Vec::new();
    if on_turn {
        notes.push("◀ on turn".to_owned());
    }
    if pos.donkey() == Some(p) {
        notes.push("donkey".to_owned());
    }
    if pos.is_out(p) {
        notes.push("out".to_owned());
    }
    if matches!(pos.phase(), Phase::Over { .. }) {
        notes.push(format!("score {}", pos.score(p)));
    }
    let _ = write!(
        out,
        "<g class='{classes}'><rect x='6' y='{}' width='{}' height='{}' rx='6' fill='{}'/>\
         <text x='14' y='{}' font-size='15' font-weight='bold'>{name}</text>\
         <text x='14' y='{}' font-size='11' fill='#444'>{}</text>",
        y,
        WIDTH - 12,
        ROW - 6,
        if on_turn { "#fff3c4" } else { "#f7fafc" },
        y + 22,
        y + 40,
        notes.join(" · ")
    );
    // The face-down stack: up to four backs, offset, and the size.
    let size = pos.face_down_len(p);
    let (sx, sy) = (150, y + 8);
    let _ = write!(out, "<g id='{}' class='face-down'>", stack_id(p));
    if size == 0 {
        write_slot(out, sx, sy, "empty");
    }
    for i in 0..size.min(4) as i32 {
        let _ = write!(
            out,
            "<rect x='{}' y='{}' width='{TILE_W}' height='{TILE_H}' rx='4' fill='#5c6bc0' \
             stroke='#1a237e'/>",
            sx + 3 * i,
            sy - 2 * i
        );
    }
    let _ = write!(
        out,
        "<text x='{}' y='{}' font-size='13' fill='#1a237e'>{size}</text></g>",
        sx + TILE_W + 16,
        sy + TILE_H / 2 + 5
    );
    // The open pile: its top tiles left to right, the top one last.
    let open = pos.open(p);
    let (ox, oy) = (240, y + 8);
    let _ = write!(
        out,
        "<g id='{}' class='open'><text x='{ox}' y='{}' font-size='9' fill='#555'>open {}</text>",
        open_id(p),
        oy - 1,
        open.len()
    );
    if open.is_empty() {
        write_slot(out, ox, oy + 2, "empty");
    }
    let shown = &open[open.len().saturating_sub(OPEN_SHOWN)..];
    for (i, &tile) in shown.iter().enumerate() {
        let class = if i + 1 == shown.len() {
            "tile top"
        } else {
            "tile"
        };
        write_tile(out, ox + i as i32 * (TILE_W + 4), oy + 2, tile, class);
    }
    out.push_str("</g></g>");
}

/// Whose turn, or how the game ended.
fn status_line(pos: &Position) -> String {
    let reveals = format!("reveals {} of {}", pos.reveals(), pos.rules().max_turns);
    match pos.phase() {
        Phase::Deal => "Waiting for the deal".to_owned(),
        Phase::FirstPlayer => "Drawing the starting player".to_owned(),
        Phase::Play { turn, .. } => format!("{} on turn · {reveals}", seat_name(turn)),
        Phase::Over { winner } => match winner {
            Some(w) => format!("{} wins · {reveals}", seat_name(w)),
            None => format!("Over without a winner · {reveals}"),
        },
    }
}
