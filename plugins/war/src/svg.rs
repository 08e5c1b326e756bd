//! The board as SVG (the svg-board extension) and the board elements each
//! action involves (the action-targets extension). War hides nothing, so
//! every viewer gets the same drawing.
//!
//! Element ids, stable from position to position: every point is a group
//! `pt-<label>` (`pt-d4`) holding its dot or unit; every segment a group
//! `seg-<a>-<b>` with its ends as notation writes them (`seg-d5-d6`); each
//! side's tiles in hand `hand-<side>-<kind>` (`hand-south-railway`); during
//! the setup each side's units still to place `reserve-<side>-<kind>`
//! (`reserve-north-cavalry`).

use tabletop_sdk::ActionId;

use crate::board::{SegmentKind, start_number_name};
use crate::moves::Action;
use crate::notation::segment_text;
use crate::position::{Phase, Position};
use crate::side::{Side, TileKind, UnitKind};

/// Pixels between neighbouring points.
const STEP: i32 = 40;
/// The height of the status line above the board.
const HEADER: i32 = 36;
/// The width of the panel right of the board (hands and reserves).
const PANEL: i32 = 210;

/// The board elements `action` of the side to move involves, in click
/// order: from, then to (see the module docs for the ids).
pub fn action_targets(pos: &Position, id: ActionId) -> Vec<String> {
    let board = pos.board();
    let side = pos.to_move();
    let point = |p: u8| format!("pt-{}", board.label(p));
    let segment = |s: u16| format!("seg-{}", segment_text(board, s));
    let hand = |kind: TileKind| format!("hand-{}-{}", side.name(), kind.name());
    let Some(action) = Action::from_id(id, board) else {
        return Vec::new();
    };
    match action {
        Action::Place(kind) => {
            let reserve = format!("reserve-{}-{}", side.name(), kind.name());
            match pos.next_start() {
                Some(n) => vec![reserve, point(board.start_point(side, n))],
                None => vec![reserve],
            }
        }
        Action::Move { from, to } | Action::Jump { from, to } => vec![point(from), point(to)],
        Action::Fire { from, dir } => {
            let mut hit = Vec::new();
            pos.shot(from, dir.index(), side, &mut hit);
            let mut targets = vec![point(from)];
            targets.extend(hit.first().map(|&p| point(p)));
            targets
        }
        Action::PlaceTile { segment: s, kind } => vec![hand(kind), segment(s)],
        Action::RemoveTile { segment: s } => {
            let kind = pos.tile(s).map_or(TileKind::Railway, |t| t.kind);
            vec![segment(s), hand(kind)]
        }
    }
}

/// The board as an SVG document: the status line; black lines solid, red
/// lines red and dashed, railways brown and thick, gaps absent;
/// entrenchments as a bar across the segment and railway tiles as a
/// marker, both in the owner's colour; South's units light discs, North's
/// dark, with the unit letter; seized cannons ringed in red; each side's
/// tiles in hand and, during the setup, its units still to place.
pub fn svg(pos: &Position) -> String {
    use Piece::{N, S};
    let board = pos.board();
    let (minx, maxx) = board
        .points()
        .iter()
        .fold((i32::MAX, i32::MIN), |(a, b), p| (a.min(p.x), b.max(p.x)));
    let (miny, maxy) = board
        .points()
        .iter()
        .fold((i32::MAX, i32::MIN), |(a, b), p| (a.min(p.y), b.max(p.y)));
    let px = |x: i32| (x - minx) * STEP + STEP;
    let py = |y: i32| (maxy - y) * STEP + STEP + HEADER;
    let board_w = (maxx - minx) * STEP + 2 * STEP;
    let panel_h = side_panel_height(pos);
    let (w, h) = (
        board_w + PANEL,
        ((maxy - miny) * STEP + 2 * STEP + HEADER).max(HEADER + 20 + 2 * panel_h),
    );
    let mut out = String::new();
    // About 250 bytes per segment and point: one allocation for the drawing.
    out.reserve(250 * (board.segments().len() + board.len()) + 4096);
    push(
        &mut out,
        &[
            S("<svg xmlns='http://www.w3.org/2000/svg' class='board war' width='"),
            N(w),
            S("' height='"),
            N(h),
            S("' viewBox='0 0 "),
            N(w),
            S(" "),
            N(h),
            S("' font-family='sans-serif'><rect width='"),
            N(w),
            S("' height='"),
            N(h),
            S("' fill='#f4ecd8'/><text id='status' class='status' x='12' y='24' font-size='16'>"),
            S(&status_line(pos)),
            S("</text>"),
        ],
    );
    for (i, seg) in board.segments().iter().enumerate() {
        let (p, q) = (
            &board.points()[seg.a as usize],
            &board.points()[seg.b as usize],
        );
        let (x1, y1, x2, y2) = (px(p.x), py(p.y), px(q.x), py(q.y));
        let (class, style) = match pos.effective_kind(i as u16) {
            Some(SegmentKind::Black) => ("black", "stroke='#222' stroke-width='2'"),
            Some(SegmentKind::Red) => (
                "red",
                "stroke='#c62828' stroke-width='2' stroke-dasharray='6 3'",
            ),
            Some(SegmentKind::Rail) => (
                "rail",
                "stroke='#6d4c41' stroke-width='5' stroke-dasharray='2 2'",
            ),
            None => ("gap", "stroke='none'"),
        };
        let ends = [
            N(x1),
            S("' y1='"),
            N(y1),
            S("' x2='"),
            N(x2),
            S("' y2='"),
            N(y2),
        ];
        push(
            &mut out,
            &[
                S("<g id='seg-"),
                S(board.label(seg.a)),
                S("-"),
                S(board.label(seg.b)),
                S("' class='segment "),
                S(class),
                S("'><line x1='"),
            ],
        );
        push(&mut out, &ends);
        push(&mut out, &[S("' "), S(style), S("/><line x1='")]);
        push(&mut out, &ends);
        // A wide transparent stroke: the line is easy to click.
        out.push_str("' stroke='transparent' stroke-width='10'/>");
        if let Some(t) = pos.tile(i as u16) {
            let (mx, my) = ((x1 + x2) / 2, (y1 + y2) / 2);
            let c = side_colour(t.owner);
            match t.kind {
                TileKind::Entrenchment => push(
                    &mut out,
                    &[
                        S("<rect class='tile entrenchment "),
                        S(t.owner.name()),
                        S("' x='"),
                        N(mx - 5),
                        S("' y='"),
                        N(my - 5),
                        S("' width='10' height='10' fill='"),
                        S(c),
                        S("' stroke='#000'/>"),
                    ],
                ),
                TileKind::Railway => push(
                    &mut out,
                    &[
                        S("<circle class='tile railway "),
                        S(t.owner.name()),
                        S("' cx='"),
                        N(mx),
                        S("' cy='"),
                        N(my),
                        S("' r='4' fill='"),
                        S(c),
                        S("' stroke='#000'/>"),
                    ],
                ),
            }
        }
        out.push_str("</g>");
    }
    for (i, p) in board.points().iter().enumerate() {
        let (cx, cy) = (px(p.x), py(p.y));
        push(
            &mut out,
            &[
                S("<g id='pt-"),
                S(&p.id),
                S("' class='point'><circle cx='"),
                N(cx),
                S("' cy='"),
                N(cy),
                S("' r='16' fill='transparent'/>"),
            ],
        );
        match pos.unit(i as u8) {
            None => push(
                &mut out,
                &[
                    S("<circle cx='"),
                    N(cx),
                    S("' cy='"),
                    N(cy),
                    S("' r='3' fill='#222'/>"),
                ],
            ),
            Some(u) => {
                let (fill, ink) = unit_colours(u.side);
                let seized = pos.seized().contains(&(i as u8));
                let mut letter = [0; 4];
                push(
                    &mut out,
                    &[
                        S("<circle class='unit "),
                        S(u.side.name()),
                        S(" "),
                        S(u.kind.name()),
                        S(if seized { " seized" } else { "" }),
                        S("' cx='"),
                        N(cx),
                        S("' cy='"),
                        N(cy),
                        S("' r='13' fill='"),
                        S(fill),
                        S("' stroke='"),
                        S(if seized { "#e53935" } else { "#000" }),
                        S("' stroke-width='2'/><text x='"),
                        N(cx),
                        S("' y='"),
                        N(cy + 5),
                        S("' text-anchor='middle' font-size='14' fill='"),
                        S(ink),
                        S("'>"),
                        S(u.kind.letter().encode_utf8(&mut letter)),
                        S("</text>"),
                    ],
                );
            }
        }
        out.push_str("</g>");
    }
    for (row, side) in Side::BOTH.into_iter().enumerate() {
        write_side_panel(
            pos,
            side,
            board_w,
            HEADER + 20 + row as i32 * panel_h,
            &mut out,
        );
    }
    out.push_str("</svg>");
    out
}

/// The height of one side's part of the panel: its two lines of text, a
/// row per tile kind in hand and, during the setup, a row per unit kind still
/// to place, and a gap before the next side.
fn side_panel_height(pos: &Position) -> i32 {
    let unit_rows = if pos.phase() == Phase::Setup {
        UnitKind::ALL.len() as i32
    } else {
        0
    };
    28 + (2 + unit_rows) * 30 + 22
}

/// One side's part of the panel: its name and units, its tiles in hand
/// and, during the setup, its units still to place.
fn write_side_panel(pos: &Position, side: Side, x: i32, y: i32, out: &mut String) {
    use Piece::{N, S};
    let to_move = pos.to_move() == side && !matches!(pos.phase(), Phase::Over(_));
    push(
        out,
        &[
            S("<g class='side "),
            S(side.name()),
            S(if to_move { " to-move" } else { "" }),
            S("'><text x='"),
            N(x),
            S("' y='"),
            N(y),
            S("' font-size='15' font-weight='bold' fill='"),
            S(side_colour(side)),
            S("'>"),
            S(side.seat_name()),
            S(if to_move { " ◀" } else { "" }),
            S("</text><text x='"),
            N(x),
            S("' y='"),
            N(y + 18),
            S("' font-size='12'>units on the board: "),
            N(pos.unit_count(side) as i32),
            S("</text>"),
        ],
    );
    let mut row = y + 28;
    for kind in [TileKind::Entrenchment, TileKind::Railway] {
        write_chip(
            out,
            &format!("hand-{}-{}", side.name(), kind.name()),
            &format!("hand {}", kind.name()),
            &format!("{} in hand: {}", tile_name(kind), pos.in_hand(side, kind)),
            (x, row),
            side_colour(side),
        );
        row += 30;
    }
    if pos.phase() == Phase::Setup {
        for kind in UnitKind::ALL {
            let left = kind.army_count() - pos.count_of(side, kind);
            let (fill, _) = unit_colours(side);
            write_chip(
                out,
                &format!("reserve-{}-{}", side.name(), kind.name()),
                &format!("reserve {}", kind.name()),
                &format!("{} to place: {left}", kind.plural()),
                (x, row),
                fill,
            );
            row += 30;
        }
    }
    out.push_str("</g>");
}

/// A clickable labelled box of the panel.
fn write_chip(out: &mut String, id: &str, class: &str, label: &str, at: (i32, i32), fill: &str) {
    use Piece::{N, S};
    let (x, y) = at;
    let ink = if fill == "#333" { "#fff" } else { "#000" };
    push(
        out,
        &[
            S("<g id='"),
            S(id),
            S("' class='"),
            S(class),
            S("'><rect x='"),
            N(x),
            S("' y='"),
            N(y),
            S("' width='185' height='24' rx='4' fill='"),
            S(fill),
            S("' stroke='#000'/><text x='"),
            N(x + 8),
            S("' y='"),
            N(y + 17),
            S("' font-size='13' fill='"),
            S(ink),
            S("'>"),
            S(label),
            S("</text></g>"),
        ],
    );
}

/// What the status line says: whose turn, or how the game ended.
fn status_line(pos: &Position) -> String {
    match pos.phase() {
        Phase::Setup => format!(
            "Setup: {} places on {}",
            pos.to_move().seat_name(),
            pos.next_start()
                .map_or(String::new(), |n| start_number_name(pos.to_move(), n))
        ),
        Phase::Play => format!(
            "Move {} of {}: {} to move",
            pos.moves_played() + 1,
            pos.max_turns(),
            pos.to_move().seat_name()
        ),
        Phase::Over(o) => match o.winner {
            Some(w) => format!("{} wins ({})", w.seat_name(), o.reason.name()),
            None => format!("Draw ({})", o.reason.name()),
        },
    }
}

/// A tile kind as the panel names it.
fn tile_name(kind: TileKind) -> &'static str {
    match kind {
        TileKind::Entrenchment => "entrenchments",
        TileKind::Railway => "railway tiles",
    }
}

/// A side's colour for its tiles and its name.
fn side_colour(side: Side) -> &'static str {
    match side {
        Side::South => "#1f5fbf",
        Side::North => "#bf7f1f",
    }
}

/// A side's unit fill and ink.
fn unit_colours(side: Side) -> (&'static str, &'static str) {
    match side {
        Side::South => ("#fafafa", "#000"),
        Side::North => ("#333", "#fff"),
    }
}

/// A piece of the drawing: text as it is, or a number in decimal.
enum Piece<'a> {
    S(&'a str),
    N(i32),
}

/// Appends `pieces` to `out`. A drawing has thousands of numbers, and
/// `write!` through `core::fmt` would be a third of the drawing's time.
fn push(out: &mut String, pieces: &[Piece<'_>]) {
    let mut digits = itoa::Buffer::new();
    for piece in pieces {
        out.push_str(match piece {
            Piece::S(text) => text,
            Piece::N(n) => digits.format(*n),
        });
    }
}
