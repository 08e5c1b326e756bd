//! The events (see `src/events.rs`): what a move tells every viewer, for
//! each kind of move and what it sets off (W6, W7, W9, W10, W11).

use serde_json::{Value, json};
use tabletop_sdk::{DynState, Move, Transition, Viewer};

use crate::support::{FILLERS, position, position_with, seat};

/// Plays `text` for the side to move and returns the event every viewer is
/// told, checking that it is the same for each.
fn play_event(state: &mut Box<dyn DynState>, text: &str) -> Value {
    let p = seat(state.as_ref());
    let action = state.parse_action(p, text).unwrap();
    let before = state.clone_state().unwrap();
    let moves = vec![Move { player: p, action }];
    state.apply(&moves).unwrap();
    let transition = Transition::Moves(moves);
    let told = |viewer| {
        let text = state.event(before.as_ref(), &transition, viewer).unwrap();
        serde_json::from_str::<Value>(&text).unwrap()
    };
    let event = told(Viewer::Spectator);
    for viewer in [Viewer::Seat(0), Viewer::Seat(1)] {
        assert_eq!(told(viewer), event, "War hides nothing");
    }
    event
}

#[test]
fn w4_a_move_names_the_unit_and_its_points() {
    let mut state = position("south", "C@d4 i@a9");
    let event = play_event(&mut state, "d4-d6");
    assert_eq!(event["type"], "moves");
    assert_eq!(event["moves"], json!([{ "player": 0, "action": "d4-d6" }]));
    assert_eq!(
        (&event["side"], &event["kind"], &event["unit"]),
        (&json!("south"), &json!("move"), &json!("cavalry"))
    );
    assert_eq!((&event["from"], &event["to"]), (&json!("d4"), &json!("d6")));
    assert_eq!(event["captures"], json!([]));
    assert_eq!(event["result"], Value::Null);
}

#[test]
fn w6_a_jump_names_the_unit_it_captured() {
    let mut state = position("south", "I@d4 i@d5");
    let event = play_event(&mut state, "d4xd6");
    assert_eq!(
        (&event["kind"], &event["unit"]),
        (&json!("jump"), &json!("infantry"))
    );
    assert_eq!((&event["from"], &event["to"]), (&json!("d4"), &json!("d6")));
    assert_eq!(
        event["captures"],
        json!([{ "point": "d5", "unit": "infantry", "side": "north" }])
    );
}

#[test]
fn w7_a_shot_lists_its_victims_in_the_order_it_reached_them() {
    let mut state = position("south", "A@d2 i@d4 c@d6 i@d8 i@d9");
    let event = play_event(&mut state, "d2!N");
    assert_eq!(
        (&event["kind"], &event["unit"]),
        (&json!("fire"), &json!("cannon"))
    );
    assert_eq!(
        (&event["from"], &event["to"], &event["direction"]),
        (&json!("d2"), &Value::Null, &json!("N"))
    );
    assert_eq!(
        event["captures"],
        json!([
            { "point": "d4", "unit": "infantry", "side": "north" },
            { "point": "d6", "unit": "cavalry", "side": "north" },
        ])
    );
}

#[test]
fn w9_a_seizure_and_the_seized_cannons_removal_are_told() {
    let mut state = position("south", "I@d4 a@d6 i@a9 I@g2");
    let seizing = play_event(&mut state, "d4-d5");
    assert_eq!(seizing["seized"], json!(["d6"]));
    assert_eq!(seizing["cannons_removed"], json!([]));
    // The seized cannon fires on North's turn and goes as the turn ends.
    let firing = play_event(&mut state, "d6!S");
    assert_eq!(
        firing["captures"],
        json!([{ "point": "d5", "unit": "infantry", "side": "south" }])
    );
    assert_eq!(firing["seized"], json!([]));
    assert_eq!(firing["cannons_removed"], json!(["d6"]));
}

#[test]
fn w10_tiles_placed_taken_back_and_changing_owner_are_told() {
    let mut state = position("south", "I@d4 i@a9");
    let placed = play_event(&mut state, "#d4-d5");
    assert_eq!(placed["kind"], "place_tile");
    assert_eq!(
        placed["tile"],
        json!({ "segment": "d4-d5", "kind": "entrenchment", "owner": "south" })
    );
    assert_eq!(
        (&placed["unit"], &placed["from"], &placed["to"]),
        (&Value::Null, &Value::Null, &Value::Null)
    );
    play_event(&mut state, "a9-a8");
    let removed = play_event(&mut state, "-d4-d5");
    assert_eq!(removed["kind"], "remove_tile");
    assert_eq!(removed["tile"]["segment"], "d4-d5");

    let mut state = position_with(
        "south",
        &format!("I@d3 I@d6 i@a9 {FILLERS}"),
        "tiles =d4-d5:north\nhand south 1 3 north 1 2",
    );
    let one_end = play_event(&mut state, "d3-d4");
    assert_eq!(one_end["tiles_changed_owner"], json!([]));
    play_event(&mut state, "a9-a8");
    let both_ends = play_event(&mut state, "d6-d5");
    assert_eq!(
        both_ends["tiles_changed_owner"],
        json!([{ "segment": "d4-d5", "kind": "railway", "owner": "south" }])
    );
}

#[test]
fn w11_the_move_that_ends_the_game_says_how() {
    let mut state = position_with("south", "I@c12 I@d12 I@e11 I@c1 I@d1 i@a9 i@b9 i@g9", "");
    let event = play_event(&mut state, "e11-e12");
    assert_eq!(
        event["result"],
        json!({ "winner": "south", "reason": "fortress" })
    );
}

#[test]
fn w3_a_placement_names_the_start_point() {
    let game = crate::support::game();
    let mut state = tabletop_sdk::DynGame::new_state(&game, 2, &Default::default(), None).unwrap();
    let event = play_event(&mut state, "A@1");
    assert_eq!(
        (&event["kind"], &event["unit"], &event["to"]),
        (&json!("place"), &json!("cannon"), &json!("c1"))
    );
}
