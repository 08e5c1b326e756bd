//! The events (see `src/events.rs`): the public steps of an action, the same
//! for every viewer, with no face-down tile's number (Z11).

use lanzeloth::{Lanzeloth, Position};
use serde_json::{Value, json};
use tabletop_sdk::{Game, Move, Transition};

use crate::scenarios::{forced, start};
use crate::support::{scenario, viewers};

/// Plays `text` for the player on turn and returns the event every viewer
/// is told, checking that it is the same for each.
fn play_event(position: &mut Position, text: &str) -> Value {
    let player = position.turn().expect("someone is on turn");
    let action = Lanzeloth.parse_action(position, player, text).unwrap();
    let before = position.clone();
    let moves = vec![Move { player, action }];
    Lanzeloth.apply(position, &moves).unwrap();
    let transition = Transition::Moves(moves);
    let players = position.rules().players;
    let told: Vec<Value> = viewers(players)
        .into_iter()
        .map(|v| Lanzeloth.event(&before, &transition, position, v))
        .collect();
    assert!(told.windows(2).all(|w| w[0] == w[1]), "{told:?}");
    told[0].clone()
}

#[test]
fn z8_a_turnover_tells_the_pile_that_became_the_face_down_stack() {
    // P1's open pile is 3 (bottom), 8, 5 (top): public, so it may be told.
    let text = format!("{} | - / 3,8,5 | - / 9 | middle - | removed -", start(1));
    let mut p = scenario(forced(2), &text, 1);
    let event = play_event(&mut p, "flip");
    assert_eq!(
        event["steps"][0],
        json!({ "step": "turn-over", "player": 0, "tiles": 3, "pile": [3, 8, 5] })
    );
    assert_eq!(
        event["steps"][1],
        json!({ "step": "reveal", "player": 0, "tile": 3 })
    );
}

#[test]
fn z4_a_new_middle_stack_is_told_with_the_index_it_gets() {
    // One middle stack (1-4) exists: P1's 1 starts the second, index 1.
    let text = format!("{} | 9,1 / - | - / 5 | middle 4 | removed -", start(1));
    let mut p = scenario(forced(2), &text, 1);
    let event = play_event(&mut p, "flip");
    assert_eq!(event["type"], "move");
    assert_eq!(event["action"], "flip");
    assert_eq!(
        event["steps"][1]["to"],
        json!({ "kind": "new-middle", "index": 1 })
    );
    assert_eq!(event["steps"][1]["notation"], "place new");
}
