//! The events: what every viewer is told happened in a transition, as JSON
//! for clients to animate a turn without a view before and after.
//!
//! Lanza hides nothing once a turn's orders are all in (ruling L5), so every
//! viewer is told the same. An event is built from the position before, the
//! transition and the position after alone: a turn is adjudicated again from
//! the position before and the orders, which gives every piece's story.
//! `events.schema.json` beside this crate's `Cargo.toml` describes the JSON.

use tabletop_sdk::serde_json::{Value, json};
use tabletop_sdk::{Game, Move, Transition};

use crate::adjudicate::{Adjudication, Fate, Resolution, Stood};
use crate::board::Board;
use crate::game::Lanza;
use crate::position::{Phase, Position};
use crate::view::phase_name;

/// What happened in `transition` (which took `before` to `after`), the same
/// for every viewer.
pub fn event(game: &Lanza, before: &Position, transition: &Transition, after: &Position) -> Value {
    let board = before.board();
    match (before.phase(), transition) {
        (Phase::Orders, Transition::Moves(moves)) => turn(game, before, moves, after),
        (Phase::Place(queue), Transition::Moves(moves)) => {
            let action = moves
                .first()
                .and_then(|m| game.action_to_string(before, m.player, m.action).ok());
            json!({
                "type": "place",
                "player": queue.first().map(|p| p.player()),
                "piece": queue.first().map(ToString::to_string),
                "action": action,
                "field": queue.first().and_then(|&p| after.field_of(p)).map(|f| board.name(f)),
            })
        }
        (Phase::Setup, Transition::Chance(_)) => {
            let pieces: Vec<Value> = after
                .pieces()
                .map(|p| {
                    json!({
                        "piece": p.to_string(),
                        "field": after.field_of(p).map(|f| board.name(f)),
                    })
                })
                .collect();
            json!({ "type": "setup", "pieces": pieces })
        }
        (Phase::Reentry(_), Transition::Chance(_)) => {
            let order: Vec<String> = match after.phase() {
                Phase::Place(queue) => queue.iter().map(ToString::to_string).collect(),
                _ => Vec::new(),
            };
            json!({ "type": "reentry_order", "order": order })
        }
        // No transition the game applied lands here: the others are refused.
        _ => json!({ "type": "invalid" }),
    }
}

/// An adjudicated turn (rulings L5–L9): everyone's orders, every piece's
/// story, the captures and the chips.
fn turn(game: &Lanza, before: &Position, moves: &[Move], after: &Position) -> Value {
    // The orders as the turn was played: a seat taken out orders nothing,
    // and the adjudication reads only pieces on the board.
    let Ok(orders) = game.joint_orders(before, moves) else {
        return json!({ "type": "invalid" });
    };
    let Ok(result) = before.adjudicate(&orders) else {
        return json!({ "type": "invalid" });
    };
    let board = before.board();
    let pieces: Vec<Value> = result
        .resolutions()
        .iter()
        .map(|r| piece(board, r))
        .collect();
    let order_texts: Vec<String> = orders.iter().map(ToString::to_string).collect();
    let players = before.players() as usize;
    json!({
        "type": "turn",
        "turn": after.turns(),
        "orders": order_texts,
        "pieces": pieces,
        "captures": captures(board, &result),
        "chips_won": &result.chips()[..players],
        "chips": (0..after.players()).map(|p| after.chips(p)).collect::<Vec<u32>>(),
        "phase": phase_name(after.phase()),
        "game_over": after.phase() == &Phase::Over,
    })
}

/// One piece's story in a turn: its card, where it aimed, what became of it
/// and at which step of ruling L7.
fn piece(board: &Board, r: &Resolution) -> Value {
    let (result, reason, by, at, stood) = match r.fate {
        Fate::Moved => ("moved", None, None, None, None),
        Fate::Stopped(why) => ("stopped", Some(why), None, None, None),
        Fate::Captured { by, at, stood } => {
            // A piece captured where it stood keeps the reason it stopped.
            let (reason, before) = match stood {
                Some(Stood::Stopped(why)) => (Some(why), Some("stopped")),
                Some(Stood::HeadOnWinner) => (None, Some("moved")),
                None => (None, None),
            };
            ("captured", reason, Some(by.to_string()), Some(at), before)
        }
    };
    json!({
        "piece": r.piece.to_string(),
        "player": r.piece.player(),
        "rank": r.piece.rank().letter().to_string(),
        "order": r.card.card(),
        "from": board.name(r.origin),
        "target": board.name(r.target),
        "bounced": r.bounced,
        "result": result,
        "reason": reason.map(|why| why.name()),
        "captured_by": by,
        "captured_at": at.map(|f| board.name(f)),
        "before_capture": stood,
        "to": r.end().map(|f| board.name(f)),
        "step": r.step as u8,
    })
}

/// Every capture of the turn, ordered by the captured piece, with where and
/// at which step it happened and whether it earned a chip (rulings L8, L9).
fn captures(board: &Board, result: &Adjudication) -> Vec<Value> {
    result
        .resolutions()
        .iter()
        .filter_map(|r| match r.fate {
            Fate::Captured { by, at, .. } => Some(json!({
                "by": by.to_string(),
                "piece": r.piece.to_string(),
                "at": board.name(at),
                "step": r.step as u8,
                "chip": by.player() != r.piece.player(),
            })),
            _ => None,
        })
        .collect()
}
