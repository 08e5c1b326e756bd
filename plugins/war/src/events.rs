//! The events: what every viewer is told happened in a move, as JSON for
//! clients to animate it without a view before and after.
//!
//! War hides nothing, so every viewer is told the same. An event is built
//! from the position before, the move and the position after alone: the
//! action is read on the position before, a cannon's shot is traced again
//! there (W7), and what the move changed besides (a jump's capture, W6;
//! cannons seized and removed, W9; tiles changing owner, W10; the end, W11)
//! is the difference between the two positions. `events.schema.json`
//! beside this crate's `Cargo.toml` describes the JSON.

use serde_json::{Map, Value, json};
use tabletop_sdk::{Move, Transition};

use crate::board::Board;
use crate::moves::Action;
use crate::notation::action_to_string;
use crate::position::{Phase, Position};
use crate::side::{Side, Unit, UnitKind};

/// What happened in `transition` (which took `before` to `after`), the same
/// for every viewer. War has no chance, so a chance transition is invalid.
pub fn event(before: &Position, transition: &Transition, after: &Position) -> Value {
    let Transition::Moves(moves) = transition else {
        return json!({ "type": "invalid" });
    };
    let Some(action) = moves
        .first()
        .and_then(|m| Action::from_id(m.action, before.board()))
    else {
        return json!({ "type": "invalid" });
    };
    let named: Vec<Value> = moves.iter().map(|m| named(before, m)).collect();
    let mut fields = Map::new();
    fields.insert("type".into(), "moves".into());
    fields.insert("moves".into(), Value::Array(named));
    fields.extend(played(before, action, after));
    Value::Object(fields)
}

/// A move as the SDK's default event names it: the seat and the notation.
fn named(before: &Position, m: &Move) -> Value {
    let action = Action::from_id(m.action, before.board())
        .map_or_else(|| m.action.to_string(), |a| action_to_string(before, a));
    json!({ "player": m.player, "action": action })
}

/// What `action` of the side to move in `before` did.
fn played(before: &Position, action: Action, after: &Position) -> Map<String, Value> {
    let board = before.board();
    let side = before.to_move();
    let label = |p: u8| board.label(p).to_string();
    let kind_at = |p: u8| before.unit(p).map(|u| u.kind.name());
    let (kind, unit, from, to, direction) = match action {
        Action::Place(kind) => {
            let point = before.next_start().map(|n| board.start_point(side, n));
            ("place", Some(kind.name()), None, point, None)
        }
        Action::Move { from, to } => ("move", kind_at(from), Some(from), Some(to), None),
        Action::Jump { from, to } => ("jump", kind_at(from), Some(from), Some(to), None),
        Action::Fire { from, dir } => ("fire", kind_at(from), Some(from), None, Some(dir.name())),
        Action::PlaceTile { .. } => ("place_tile", None, None, None, None),
        Action::RemoveTile { .. } => ("remove_tile", None, None, None, None),
    };
    let mut fields = Map::new();
    fields.insert("side".into(), side.name().into());
    fields.insert("kind".into(), kind.into());
    fields.insert("unit".into(), unit.into());
    fields.insert("from".into(), from.map(label).into());
    fields.insert("to".into(), to.map(label).into());
    fields.insert("direction".into(), direction.into());
    fields.insert(
        "captures".into(),
        Value::Array(captures(before, action, after)),
    );
    fields.insert("seized".into(), seized(before, after).into());
    fields.insert(
        "cannons_removed".into(),
        cannons_removed(before, after).into(),
    );
    fields.insert("tile".into(), tile(before, action, after));
    fields.insert(
        "tiles_changed_owner".into(),
        owner_changes(before, after).into(),
    );
    fields.insert("result".into(), result(after));
    fields
}

/// The enemy units the move removed (W6, W7): a shot's in the order it
/// reached them, a jump's one.
fn captures(before: &Position, action: Action, after: &Position) -> Vec<Value> {
    let board = before.board();
    let side = before.to_move();
    let points: Vec<u8> = match action {
        Action::Fire { from, dir } => {
            let mut hits = Vec::new();
            before.shot(from, dir.index(), side, &mut hits);
            hits
        }
        // The only enemy a move removes is the one it jumped: W9 removes
        // the mover's own cannons.
        Action::Jump { .. } => (0..board.len() as u8)
            .filter(|&p| before.unit(p).is_some_and(|u| u.side != side) && after.unit(p).is_none())
            .collect(),
        _ => Vec::new(),
    };
    points
        .into_iter()
        .filter_map(|p| {
            let unit = before.unit(p)?;
            Some(json!({
                "point": board.label(p),
                "unit": unit.kind.name(),
                "side": unit.side.name(),
            }))
        })
        .collect()
}

/// The enemy cannons the unit that moved seized (W9): they may not move any
/// more and go at the start of the mover's next turn. The list the position
/// keeps is replaced only when the game goes on, so only enemy cannons in it
/// were seized by this move.
fn seized(before: &Position, after: &Position) -> Vec<String> {
    let enemy = before.to_move().opponent();
    after
        .seized()
        .iter()
        .filter(|&&p| is_cannon(after.unit(p), enemy))
        .map(|&p| after.board().label(p).to_string())
        .collect()
}

/// The mover's cannons that the enemy seized on its last move, removed as
/// this move ends (W9).
fn cannons_removed(before: &Position, after: &Position) -> Vec<String> {
    let side = before.to_move();
    before
        .seized()
        .iter()
        .filter(|&&p| is_cannon(before.unit(p), side) && after.unit(p).is_none())
        .map(|&p| before.board().label(p).to_string())
        .collect()
}

fn is_cannon(unit: Option<Unit>, side: Side) -> bool {
    unit == Some(Unit {
        side,
        kind: UnitKind::Cannon,
    })
}

/// The tile a tile action put down or took back into hand (W10), else null.
fn tile(before: &Position, action: Action, after: &Position) -> Value {
    let (segment, tile) = match action {
        Action::PlaceTile { segment, .. } => (segment, after.tile(segment)),
        Action::RemoveTile { segment } => (segment, before.tile(segment)),
        _ => return Value::Null,
    };
    match tile {
        Some(t) => json!({
            "segment": segment_name(before.board(), segment),
            "kind": t.kind.name(),
            "owner": t.owner.name(),
        }),
        None => Value::Null,
    }
}

/// The tiles that changed owner because the move left both their ends held
/// by the side that did not own them (W10), with their new owner.
fn owner_changes(before: &Position, after: &Position) -> Vec<Value> {
    let board = before.board();
    (0..board.segments().len() as u16)
        .filter_map(|s| match (before.tile(s), after.tile(s)) {
            (Some(old), Some(new)) if old.owner != new.owner => Some(json!({
                "segment": segment_name(board, s),
                "kind": new.kind.name(),
                "owner": new.owner.name(),
            })),
            _ => None,
        })
        .collect()
}

/// A segment by its end points, as positions and views write it.
fn segment_name(board: &Board, segment: u16) -> String {
    let s = board.segments()[segment as usize];
    format!("{}-{}", board.label(s.a), board.label(s.b))
}

/// How the game ended, once the move ended it (W11), else null.
fn result(after: &Position) -> Value {
    match after.phase() {
        Phase::Over(o) => json!({
            "winner": o.winner.map(Side::name),
            "reason": o.reason.name(),
        }),
        _ => Value::Null,
    }
}
