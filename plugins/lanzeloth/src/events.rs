//! The events: what a viewer is told happened in a transition, as JSON for
//! clients to animate a turn without a view before and after.
//!
//! An action is replayed on a copy of the position before, which gives its
//! [`Step`]s: reveals, placements, turnovers (Z8), the Esel penalty and its
//! gifts (Z7), the win (Z9) and the turn passing. Each step holds only what
//! everybody saw: a tile's number appears once it is face up, never while
//! it is face down (Z11). Nobody, the owner included, sees a face-down tile,
//! so every viewer is told the same. `events.schema.json` beside this
//! crate's `Cargo.toml` describes the JSON.

use serde_json::{Value, json};
use tabletop_sdk::{Player, Transition};

use crate::actions::Action;
use crate::fit::Place;
use crate::notation::action_to_text;
use crate::position::{Phase, Position};
use crate::turn::Step;
use crate::view::source_name;

/// What happened in `transition` (which took `before` to `after`), the same
/// for every viewer.
pub fn event(before: &Position, transition: &Transition, after: &Position) -> Value {
    match transition {
        Transition::Chance(_) => match before.phase() {
            Phase::Deal => json!({
                "type": "deal",
                "tiles_each": after.rules().tiles_each(),
                "removed": after.rules().removed_count(),
                "first_player": after.turn(),
            }),
            _ => json!({ "type": "first-player", "player": after.turn() }),
        },
        Transition::Moves(moves) => {
            let Some(m) = moves.first() else {
                return json!({ "type": "invalid" });
            };
            let mut replay = before.clone();
            match replay.play_logged(m.player, m.action) {
                Ok(steps) => json!({
                    "type": "move",
                    "player": m.player,
                    "action": Action::from_id(m.action).map(|a| action_to_text(a, m.player)),
                    "steps": steps_json(before, &steps),
                }),
                // No move the game applied lands here: the others are refused.
                Err(_) => json!({ "type": "invalid" }),
            }
        }
    }
}

/// A place as JSON; a new middle stack with the index it gets.
fn place_json(place: Place, holder: Player, new_index: usize) -> Value {
    match place {
        Place::NewMiddle => json!({ "kind": "new-middle", "index": new_index }),
        Place::Middle(i) => json!({ "kind": "middle", "index": i }),
        Place::Pile(q) if q == holder => json!({ "kind": "own-pile", "seat": q }),
        Place::Pile(q) => json!({ "kind": "pile", "seat": q }),
    }
}

/// The JSON of the steps of one action played from `before` (all public,
/// see [`Step`]).
fn steps_json(before: &Position, steps: &[Step]) -> Vec<Value> {
    // Middle stacks are never removed: a new one gets the next index.
    let mut middle_stacks = before.middle.len();
    steps
        .iter()
        .map(|step| match *step {
            // Z8 comes first in a turn, so the pile turned over is the open
            // pile before the action: public, every tile of it face up.
            Step::TurnOver { player, tiles } => json!({
                "step": "turn-over",
                "player": player,
                "tiles": tiles,
                "pile": before.open(player),
            }),
            Step::Reveal { player, tile } => {
                json!({ "step": "reveal", "player": player, "tile": tile })
            }
            Step::TakeOpen { player, tile } => {
                json!({ "step": "take-open", "player": player, "tile": tile })
            }
            Step::Put {
                player,
                tile,
                place,
                correct,
            } => {
                let to = place_json(place, player, middle_stacks);
                if place == Place::NewMiddle {
                    middle_stacks += 1;
                }
                json!({
                    "step": "put",
                    "player": player,
                    "tile": tile,
                    "to": to,
                    // The action that makes this placement, which reads back.
                    "notation": action_to_text(Action::Place(place), player),
                    "correct": correct,
                })
            }
            Step::Esel { player, from } => {
                json!({ "step": "esel", "player": player, "donkey_from": from })
            }
            // A gift from a face-down stack stays face down: its number is
            // told to nobody.
            Step::Gift {
                from,
                to,
                source,
                tile,
            } => json!({
                "step": "gift",
                "from": from,
                "to": to,
                "source": source_name(source),
                "tile": tile,
            }),
            Step::Win { player } => json!({ "step": "win", "player": player }),
            Step::TurnPasses { player } => json!({ "step": "turn", "player": player }),
            Step::TurnLimit => json!({ "step": "turn-limit" }),
        })
        .collect()
}
