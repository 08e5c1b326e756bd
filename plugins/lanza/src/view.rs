//! What clients see: the JSON view, the terminal rendering of the hex board
//! and the events that describe each transition.
//!
//! Lanza's states hold nothing secret (pending orders live in the host until
//! every order of a turn is in), so every viewer gets the same view.

use std::fmt::Write;

use tabletop_sdk::serde_json::{Value, json};
use tabletop_sdk::{Game, Status, Transition};

use crate::adjudicate::Fate;
use crate::game::Lanza;
use crate::orders::Orders;
use crate::piece::{PieceId, player_letter};
use crate::position::{Phase, Position};

fn phase_name(phase: &Phase) -> &'static str {
    match phase {
        Phase::Setup => "setup",
        Phase::Orders => "orders",
        Phase::Reentry(_) => "reentry",
        Phase::Place(_) => "place",
        Phase::Over => "over",
    }
}

fn names(pieces: &[PieceId]) -> Vec<String> {
    pieces.iter().map(ToString::to_string).collect()
}

/// The JSON view (identical for every viewer).
pub fn json(game: &Lanza, state: &Position, viewer: tabletop_sdk::Viewer) -> Value {
    let _ = viewer;
    let board = state.board();
    let fields: Vec<Value> = board
        .fields()
        .map(|f| {
            let (q, r) = board.coords(f);
            json!({
                "name": board.name(f),
                "q": q,
                "r": r,
                "edge": board.is_edge(f),
                "start": board.is_start(f),
            })
        })
        .collect();
    let pieces: Vec<Value> = state
        .pieces()
        .map(|p| {
            json!({
                "piece": p.to_string(),
                "player": p.player(),
                "rank": p.rank().letter().to_string(),
                "field": state.field_of(p).map(|f| board.name(f)),
            })
        })
        .collect();
    let to_move: Vec<u32> = match game.status(state) {
        Status::ToMove(movers) => movers.iter().collect(),
        _ => Vec::new(),
    };
    let queue = match state.phase() {
        Phase::Reentry(pieces) | Phase::Place(pieces) => names(pieces),
        _ => Vec::new(),
    };
    let chips: Vec<u32> = (0..state.players()).map(|p| state.chips(p)).collect();
    json!({
        "game": "lanza",
        "players": state.players(),
        "board": { "size": board.len(), "fields": fields },
        "pieces": pieces,
        "chips": chips,
        "turns_played": state.turns(),
        "max_turns": state.max_turns(),
        "phase": phase_name(state.phase()),
        "to_move": to_move,
        "reentry": queue,
        "winner": (state.phase() == &Phase::Over).then(|| state.sole_leader()).flatten(),
        "ranks": (state.phase() == &Phase::Over).then(|| state.ranks()),
        "position": crate::notation::position_to_string(state),
    })
}

/// The board as text: flat-topped hexes in columns, each column half a row
/// below the one to its west. A piece shows as its seat and rank (`AK` is
/// seat A's King); an empty field shows its own name, so re-entry fields can
/// be read off the picture.
pub fn board_picture(state: &Position) -> String {
    let board = state.board();
    // Row = 2r + q puts neighbours one column over half a row up or down.
    let rows: Vec<i32> = board
        .fields()
        .map(|f| {
            let (q, r) = board.coords(f);
            2 * i32::from(r) + i32::from(q)
        })
        .collect();
    let top = rows.iter().copied().min().unwrap_or(0);
    let bottom = rows.iter().copied().max().unwrap_or(0);
    let height = (bottom - top + 1) as usize;
    let width = 5 * board.columns().len() + 2;
    let mut grid = vec![vec![' '; width]; height];
    for (column_index, column) in board.columns().iter().enumerate() {
        for i in 0..column.len {
            let Some(field) = board.field(usize::from(column.first + i)) else {
                continue;
            };
            let label = match state.piece_on(field) {
                Some(p) => p.to_string(),
                None => board.name(field),
            };
            let row = (rows[field.index()] - top) as usize;
            let x = 5 * column_index + 1;
            let framed = format!("{:^4}", label);
            for (k, c) in framed.chars().enumerate() {
                if let Some(cell) = grid[row].get_mut(x + k) {
                    *cell = c;
                }
            }
        }
    }
    let mut out = String::new();
    for line in grid {
        let line: String = line.into_iter().collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The terminal rendering (identical for every viewer).
pub fn text(game: &Lanza, state: &Position, viewer: tabletop_sdk::Viewer) -> String {
    let _ = viewer;
    let mut out = format!(
        "Lanza, {} players, {} fields. Turn {} (limit {}).\n\n",
        state.players(),
        state.board().len(),
        state.turns() + 1,
        state.max_turns()
    );
    out.push_str(&board_picture(state));
    out.push_str(
        "(AK = seat A's King, BQ = seat B's Queen, ...; empty fields show their names)\n\n",
    );
    for p in 0..state.players() {
        let chips = state.chips(p);
        let _ = writeln!(
            out,
            "Seat {}: {chips} chip{}",
            player_letter(p),
            if chips == 1 { "" } else { "s" }
        );
    }
    let line = match (state.phase(), game.status(state)) {
        (Phase::Setup, _) => "Next: the pieces are shuffled onto the start fields.".to_string(),
        (Phase::Orders, Status::ToMove(movers)) => format!(
            "Next: orders from {}, a different card per piece, like `K2 Q5 J1`.\n\
             Cards: 1=N 2=NE 3=SE 4=S 5=SW 6=NW; a step off the board bounces back.",
            movers
                .iter()
                .map(|p| player_letter(p).to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        (Phase::Reentry(pending), _) => format!(
            "Next: the re-entry order of {} is drawn.",
            names(pending).join(", ")
        ),
        (Phase::Place(queue), _) => format!(
            "Next: seat {} places {} on an empty edge field (then: {}).",
            queue.first().map_or('?', |p| player_letter(p.player())),
            queue.first().map_or_else(String::new, ToString::to_string),
            if queue.len() > 1 {
                names(&queue[1..]).join(", ")
            } else {
                "orders".to_string()
            }
        ),
        (Phase::Over, _) => match state.sole_leader() {
            Some(p) => format!("Game over: seat {} wins.", player_letter(p)),
            None => "Game over: the leaders share first place.".to_string(),
        },
        _ => String::new(),
    };
    out.push_str(&line);
    out.push('\n');
    out
}

/// What happened in a transition, for every viewer alike.
pub fn event(game: &Lanza, before: &Position, transition: &Transition, after: &Position) -> Value {
    let board = before.board();
    let chips: Vec<u32> = (0..after.players()).map(|p| after.chips(p)).collect();
    match (before.phase(), transition) {
        (Phase::Orders, Transition::Moves(moves)) => {
            let mut orders: Vec<Option<Orders>> = vec![None; before.players() as usize];
            for m in moves {
                if let (Some(slot), Ok(o)) =
                    (orders.get_mut(m.player as usize), Orders::from_id(m.action))
                {
                    *slot = Some(o);
                }
            }
            let Some(orders) = orders.into_iter().collect::<Option<Vec<Orders>>>() else {
                return json!({ "type": "invalid" });
            };
            let Ok(result) = before.adjudicate(&orders) else {
                return json!({ "type": "invalid" });
            };
            let pieces: Vec<Value> = result
                .resolutions()
                .iter()
                .map(|r| {
                    let (outcome, reason, by) = match r.fate {
                        Fate::Moved => ("moved", None, None),
                        Fate::Stopped(why) => ("stopped", Some(why.name()), None),
                        Fate::Captured { by } => ("captured", None, Some(by.to_string())),
                    };
                    json!({
                        "piece": r.piece.to_string(),
                        "player": r.piece.player(),
                        "rank": r.piece.rank().letter().to_string(),
                        "order": r.card.card(),
                        "from": board.name(r.origin),
                        "target": board.name(r.target),
                        "bounced": r.bounced,
                        "result": outcome,
                        "reason": reason,
                        "captured_by": by,
                        "to": r.end().map(|f| board.name(f)),
                        "step": r.step as u8,
                    })
                })
                .collect();
            let captures: Vec<Value> = result
                .captures()
                .map(|(by, victim)| json!({ "by": by.to_string(), "piece": victim.to_string(), "chip": by.player() != victim.player() }))
                .collect();
            let order_texts: Vec<String> = orders.iter().map(ToString::to_string).collect();
            json!({
                "type": "turn",
                "turn": after.turns(),
                "orders": order_texts,
                "pieces": pieces,
                "captures": captures,
                "chips_won": &result.chips()[..before.players() as usize],
                "chips": chips,
                "phase": phase_name(after.phase()),
                "game_over": after.phase() == &Phase::Over,
            })
        }
        (Phase::Place(queue), Transition::Moves(moves)) => {
            let field = moves
                .first()
                .and_then(|m| game.action_to_string(before, m.player, m.action).ok());
            json!({
                "type": "place",
                "player": queue.first().map(|p| p.player()),
                "piece": queue.first().map(ToString::to_string),
                "action": field,
                "field": queue.first().and_then(|&p| after.field_of(p)).map(|f| board.name(f)),
            })
        }
        (Phase::Setup, Transition::Chance(_)) => {
            let pieces: Vec<Value> = after
                .pieces()
                .map(|p| json!({ "piece": p.to_string(), "field": after.field_of(p).map(|f| board.name(f)) }))
                .collect();
            json!({ "type": "setup", "pieces": pieces })
        }
        (Phase::Reentry(_), Transition::Chance(_)) => {
            let order = match after.phase() {
                Phase::Place(queue) => names(queue),
                _ => Vec::new(),
            };
            json!({ "type": "reentry_order", "order": order })
        }
        _ => json!({ "type": "invalid" }),
    }
}
