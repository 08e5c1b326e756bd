//! The events: what every viewer is told happened in a transition, as JSON
//! for clients to animate a move without a view before and after.
//!
//! Focus hides nothing, so every viewer is told the same. An event is built
//! from the position before, the transition and the position after alone:
//! the pieces that moved and the overflow (ruling F6) are worked out again
//! from the position before, the captures and the players out (F7) from the
//! difference between the two positions. `events.schema.json` beside this
//! crate's `Cargo.toml` describes the JSON.

use tabletop_sdk::serde_json::{Map, Value, json};
use tabletop_sdk::{Game, Move as Joint, Transition};

use crate::game::Focus;
use crate::moves::{Move, swap_squares};
use crate::position::Position;
use crate::render::reason_name;
use crate::tower::{Colour, Stack};

/// What happened in `transition` (which took `before` to `after`), the same
/// for every viewer.
pub fn event(game: &Focus, before: &Position, transition: &Transition, after: &Position) -> Value {
    match transition {
        Transition::Moves(moves) => {
            let named: Vec<Value> = moves
                .iter()
                .map(|m| {
                    json!({
                        "player": m.player,
                        "action": game
                            .action_to_string(before, m.player, m.action)
                            .unwrap_or_else(|_| m.action.to_string()),
                    })
                })
                .collect();
            let mut event = json!({
                "type": "moves",
                "moves": named,
                "captured": captured(before, after),
                "out": newly_out(before, after),
                "reserves": reserves(after),
                "result": result(after),
            });
            if let (Some(fields), Some(m)) = (event.as_object_mut(), moves.first()) {
                fields.extend(played(before, m));
            }
            event
        }
        Transition::Chance(outcome) => {
            let swap = swap_squares(*outcome);
            json!({
                "type": "chance",
                "opening_swap": swap
                    .map(|(r, g)| Move::Swap { r, g }.to_string())
                    .unwrap_or_default(),
                "swap": swap.map(|(r, g)| json!({ "r": r.to_string(), "g": g.to_string() })),
            })
        }
    }
}

/// The fields that say what the move did on the board: its kind, the
/// squares, the pieces that moved (bottom to top), the pieces the overflow
/// took off (F6, bottom first, each to the mover's reserve or captured) and
/// the tower left on the destination.
fn played(before: &Position, m: &Joint) -> Map<String, Value> {
    let mover = m.player as Colour;
    let mut fields = Map::new();
    let Some(mv) = Move::from_id(m.action) else {
        return fields;
    };
    let (kind, from, to, moving) = match mv {
        Move::Shift { from, direction, k } => {
            let Some((_, moving)) = before.tower(from).split_top(k) else {
                return fields;
            };
            ("shift", Some(from), from.offset(direction, k), moving)
        }
        Move::Drop(square) => ("drop", None, Some(square), Stack::single(mover)),
        Move::Swap { r, g } => {
            fields.insert("kind".into(), "swap".into());
            fields.insert(
                "swap".into(),
                json!({ "r": r.to_string(), "g": g.to_string() }),
            );
            return fields;
        }
    };
    let Some(to) = to else {
        return fields;
    };
    let pieces: Vec<Colour> = moving.overflow(|_| {}).pieces().collect();
    let mut overflow = Vec::new();
    let tower = before
        .tower(to)
        .into_stack()
        .stacked(moving)
        .overflow(|colour| {
            let goes = if colour == mover {
                "reserve"
            } else {
                "captured"
            };
            overflow.push(json!({ "colour": colour, "to": goes }));
        });
    fields.insert("kind".into(), kind.into());
    fields.insert("from".into(), from.map(|s| s.to_string()).into());
    fields.insert("to".into(), to.to_string().into());
    fields.insert("pieces".into(), json!(pieces));
    fields.insert("overflow".into(), Value::Array(overflow));
    fields.insert("tower".into(), json!(tower.pieces().collect::<Vec<_>>()));
    fields
}

/// `captured[p][c]`: pieces of colour `c` that player `p` captured in this
/// transition (F6).
fn captured(before: &Position, after: &Position) -> Vec<Vec<u32>> {
    let n = before.players() as Colour;
    (0..n)
        .map(|p| {
            (0..n)
                .map(|c| after.captured(p, c).saturating_sub(before.captured(p, c)))
                .collect()
        })
        .collect()
}

/// The seats that went out in this transition (F7), in the order they did.
fn newly_out(before: &Position, after: &Position) -> Vec<Colour> {
    after
        .out_order()
        .iter()
        .copied()
        .filter(|&c| !before.is_out(c))
        .collect()
}

/// Every seat's reserve after the transition.
fn reserves(after: &Position) -> Vec<u32> {
    (0..after.players() as Colour)
        .map(|p| after.reserve(p))
        .collect()
}

/// The result once the transition ended the game (F7–F10), else null.
fn result(after: &Position) -> Value {
    match after.outcome() {
        Some(outcome) => {
            let winners: Vec<Colour> = (0..after.players() as Colour)
                .filter(|&c| outcome.is_winner(c))
                .collect();
            json!({ "reason": reason_name(outcome.reason), "winners": winners })
        }
        None => Value::Null,
    }
}
