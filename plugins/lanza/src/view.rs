//! What clients see: the JSON view and the terminal rendering of the hex
//! board (the events are in [`crate::events`]).
//!
//! Lanza's states hold nothing secret (pending orders live in the host until
//! every order of a turn is in), so every viewer gets the same view.

use std::fmt::Write;

use serde::Serialize;
use serde::ser::Serializer;
use tabletop_sdk::{Game, Status};

use crate::board::{Board, Column, Field};
use crate::game::Lanza;
use crate::piece::{PieceId, seat_label};
use crate::position::{Phase, Position};

/// The phase's name in views and events.
pub(crate) fn phase_name(phase: &Phase) -> &'static str {
    match phase {
        Phase::Setup => "setup",
        Phase::Orders => "orders",
        Phase::Reentry(_) => "reentry",
        Phase::Place(_) => "place",
        Phase::Over => "over",
    }
}

/// The JSON view: typed data serialised straight to text (building a
/// `serde_json::Value` tree first, every field of the board an object, would
/// cost most of a full view). Fields are in alphabetical order, as clients
/// that compare views as `Value` objects print them.
#[derive(Debug, Serialize)]
pub struct View<'a> {
    board: BoardView<'a>,
    chips: Vec<u32>,
    game: &'static str,
    max_turns: u32,
    phase: &'static str,
    pieces: Vec<PieceView<'a>>,
    players: u32,
    position: String,
    ranks: Option<Vec<u32>>,
    reentry: Vec<PieceName>,
    to_move: Vec<u32>,
    turns_played: u32,
    winner: Option<u32>,
}

#[derive(Debug, Serialize)]
struct BoardView<'a> {
    fields: Vec<FieldView<'a>>,
    size: usize,
}

#[derive(Debug, Serialize)]
struct FieldView<'a> {
    edge: bool,
    name: &'a str,
    q: i8,
    r: i8,
    start: bool,
}

#[derive(Debug, Serialize)]
struct PieceView<'a> {
    field: Option<&'a str>,
    piece: PieceName,
    player: u32,
    rank: char,
}

/// A piece as its notation (`AK`), written without a String of its own.
#[derive(Debug)]
struct PieceName(PieceId);

impl Serialize for PieceName {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0)
    }
}

/// The JSON view of `state` for `viewer` (see [`View`]).
pub fn view<'a>(game: &Lanza, state: &'a Position, viewer: tabletop_sdk::Viewer) -> View<'a> {
    let _ = viewer;
    let board = state.board();
    let fields = board
        .fields()
        .map(|f| {
            let (q, r) = board.coords(f);
            FieldView {
                edge: board.is_edge(f),
                name: board.name(f),
                q,
                r,
                start: board.is_start(f),
            }
        })
        .collect();
    let pieces = state
        .pieces()
        .map(|p| PieceView {
            field: state.field_of(p).map(|f| board.name(f)),
            piece: PieceName(p),
            player: p.player(),
            rank: p.rank().letter(),
        })
        .collect();
    let to_move = match game.status(state) {
        Status::ToMove(movers) => movers.iter().collect(),
        _ => Vec::new(),
    };
    let reentry = match state.phase() {
        Phase::Reentry(pieces) | Phase::Place(pieces) => {
            pieces.iter().copied().map(PieceName).collect()
        }
        _ => Vec::new(),
    };
    let over = state.phase() == &Phase::Over;
    View {
        board: BoardView {
            fields,
            size: board.len(),
        },
        chips: (0..state.players()).map(|p| state.chips(p)).collect(),
        game: "lanza",
        max_turns: state.max_turns(),
        phase: phase_name(state.phase()),
        pieces,
        players: state.players(),
        position: crate::notation::position_to_string(state),
        ranks: over.then(|| state.ranks()),
        reentry,
        to_move,
        turns_played: state.turns(),
        winner: over.then(|| state.sole_leader()).flatten(),
    }
}

/// The board as text: flat-topped hexes in columns, each column half a row
/// below the one to its west. A piece shows as its seat and rank (`AK` is
/// seat A's King); an empty field shows its own name, so re-entry fields can
/// be read off the picture.
pub fn board_picture(state: &Position) -> String {
    let mut out = String::with_capacity(TEXT_CAPACITY);
    write_board_picture(&mut out, state);
    out
}

/// The field of `column` drawn on picture row `row` (= 2r + q), if any.
fn field_on_row(board: &Board, column: &Column, row: i32) -> Option<Field> {
    let first = board.field(usize::from(column.first))?;
    let from_q = row - i32::from(column.q);
    if from_q % 2 != 0 {
        return None;
    }
    let place = from_q / 2 - i32::from(board.coords(first).1);
    let place = u8::try_from(place).ok().filter(|&p| p < column.len)?;
    board.field(usize::from(column.first) + usize::from(place))
}

fn write_board_picture(out: &mut String, state: &Position) {
    let board = state.board();
    // Row = 2r + q puts neighbours one column over half a row up or down.
    let rows = board.fields().map(|f| {
        let (q, r) = board.coords(f);
        2 * i32::from(r) + i32::from(q)
    });
    let (top, bottom) = rows.fold((i32::MAX, i32::MIN), |(lo, hi), row| {
        (lo.min(row), hi.max(row))
    });
    for row in top..=bottom {
        let line_start = out.len();
        for (column_index, column) in board.columns().iter().enumerate() {
            let Some(field) = field_on_row(board, column, row) else {
                continue;
            };
            // Every label is ASCII, so bytes are columns.
            let x = line_start + 5 * column_index + 1;
            out.extend(std::iter::repeat_n(' ', x.saturating_sub(out.len())));
            let _ = match state.piece_on(field) {
                Some(p) => write!(out, " {p} "),
                None => write!(out, "{:^4}", board.name(field)),
            };
        }
        let trimmed = out.trim_end_matches(' ').len().max(line_start);
        out.truncate(trimmed);
        out.push('\n');
    }
}

/// Writes the pieces' notations separated by `, `.
fn write_names(out: &mut String, pieces: &[PieceId]) {
    for (i, p) in pieces.iter().enumerate() {
        let separator = if i == 0 { "" } else { ", " };
        let _ = write!(out, "{separator}{p}");
    }
}

/// Bytes the rendering of the largest board takes, so it is written into one
/// allocation.
const TEXT_CAPACITY: usize = 1024;

/// The terminal rendering (identical for every viewer).
pub fn text(game: &Lanza, state: &Position, viewer: tabletop_sdk::Viewer) -> String {
    let _ = viewer;
    let mut out = String::with_capacity(TEXT_CAPACITY);
    let _ = write!(
        out,
        "Lanza, {} players, {} fields. Turn {} (limit {}).\n\n",
        state.players(),
        state.board().len(),
        state.turns() + 1,
        state.max_turns()
    );
    write_board_picture(&mut out, state);
    out.push_str(
        "(AK = the King of seat 0 (A), BQ = the Queen of seat 1 (B), ...;\n \
         empty fields show their names)\n\n",
    );
    for p in 0..state.players() {
        let chips = state.chips(p);
        let _ = write!(
            out,
            "{}: {chips} chip{}",
            seat_label(p),
            if chips == 1 { "" } else { "s" }
        );
        if state.is_out(p) {
            out.push_str(", taken out of the game");
        }
        out.push('\n');
    }
    match (state.phase(), game.status(state)) {
        (Phase::Setup, _) => out.push_str("Next: the pieces are shuffled onto the start fields."),
        (Phase::Orders, Status::ToMove(movers)) => {
            out.push_str("Next: orders from ");
            for (i, p) in movers.iter().enumerate() {
                let separator = if i == 0 { "" } else { ", " };
                let _ = write!(out, "{separator}{}", seat_label(p));
            }
            out.push_str(
                ",\na different card per piece, like `K2 Q5 J1`.\n\
                 Cards: 1=N 2=NE 3=SE 4=S 5=SW 6=NW; a step off the board bounces back.",
            );
        }
        (Phase::Reentry(pending), _) => {
            out.push_str("Next: the re-entry order of ");
            write_names(&mut out, pending);
            out.push_str(" is drawn.");
        }
        (Phase::Place(queue), _) => {
            if let Some(first) = queue.first() {
                let _ = write!(
                    out,
                    "Next: {} places {first} on an empty edge field, like `{}@{}`.\nThen: ",
                    seat_label(first.player()),
                    first.rank().letter(),
                    state
                        .empty_edge_fields()
                        .next()
                        .map_or("a1", |f| state.board().name(f))
                );
            }
            match queue.get(1..) {
                Some(rest) if !rest.is_empty() => write_names(&mut out, rest),
                _ => out.push_str("orders"),
            }
            out.push('.');
        }
        (Phase::Over, _) => match state.sole_leader() {
            Some(p) => {
                let _ = write!(out, "Game over: {} wins.", seat_label(p));
            }
            None => out.push_str("Game over: the leaders share first place."),
        },
        _ => {}
    }
    out.push('\n');
    out
}
