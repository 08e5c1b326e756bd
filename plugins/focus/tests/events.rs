//! The events (see `src/events.rs`): what a move tells every viewer, the
//! pieces that moved, the overflow (F6), captures and players out (F7).

use focus::{Focus, Move, Position};
use serde_json::{Value, json};
use tabletop_sdk::{Game, Move as Joint, Transition, Viewer};

use crate::support::{board, position};

/// Plays `text` for `seat` and returns the event every viewer is told,
/// checking that it is the same for each.
fn play_event(pos: &mut Position, seat: u32, text: &str) -> Value {
    let before = pos.clone();
    let moves = vec![Joint {
        player: seat,
        action: Move::parse(text).unwrap().id(),
    }];
    Focus.apply(pos, &moves).unwrap();
    let transition = Transition::Moves(moves);
    let event = Focus.event(&before, &transition, pos, Viewer::Spectator);
    for p in 0..pos.players() as u32 {
        assert_eq!(
            Focus.event(&before, &transition, pos, Viewer::Seat(p)),
            event,
            "Focus hides nothing"
        );
    }
    event
}

#[test]
fn f5_a_shift_names_the_pieces_that_moved_and_the_tower_they_made() {
    let text = format!(
        "{} 1 reserves=0,0 captures=0,15/15,0 removed=15,15",
        board(&[("d4", "12"), ("d6", "121"), ("e5", "2")])
    );
    let mut pos = position(2, &text);
    let event = play_event(&mut pos, 0, "d6-d4");
    assert_eq!(event["moves"], json!([{ "player": 0, "action": "d6-d4" }]));
    assert_eq!(
        (&event["kind"], &event["from"], &event["to"]),
        (&json!("shift"), &json!("d6"), &json!("d4"))
    );
    assert_eq!(event["pieces"], json!([1, 0]), "the top two, bottom first");
    assert_eq!(event["tower"], json!([0, 1, 1, 0]));
    assert_eq!(event["overflow"], json!([]));
    assert_eq!(event["result"], Value::Null);
}

#[test]
fn f6_the_overflow_says_which_pieces_went_to_the_reserve_and_which_were_captured() {
    // R moves 2 onto a tower of 5 (bottom R, G, R, G, G): the bottom two go,
    // R's own piece to R's reserve, G's piece captured.
    let text = format!(
        "{} 1 reserves=0,0 captures=0,14/14,0 removed=14,14",
        board(&[("d4", "12122"), ("d6", "11"), ("e5", "2")])
    );
    let mut pos = position(2, &text);
    let event = play_event(&mut pos, 0, "d6-d4");
    assert_eq!(
        event["overflow"],
        json!([{ "colour": 0, "to": "reserve" }, { "colour": 1, "to": "captured" }])
    );
    assert_eq!(event["tower"], json!([0, 1, 1, 0, 0]));
    assert_eq!(event["captured"], json!([[0, 1], [0, 0]]));
    assert_eq!(event["reserves"], json!([1, 0]));
}

#[test]
fn f6_a_drop_is_one_piece_from_the_reserve() {
    let text = format!(
        "{} 2 reserves=0,2 captures=0,11/13,0 removed=11,13",
        board(&[("d4", "11111"), ("e5", "22222")])
    );
    let mut pos = position(2, &text);
    let event = play_event(&mut pos, 1, "*d4");
    assert_eq!(
        (
            &event["kind"],
            &event["from"],
            &event["to"],
            &event["pieces"]
        ),
        (&json!("drop"), &Value::Null, &json!("d4"), &json!([1]))
    );
    assert_eq!(
        event["overflow"],
        json!([{ "colour": 0, "to": "captured" }])
    );
    assert_eq!(event["captured"], json!([[0, 0], [1, 0]]));
}

#[test]
fn f7_the_players_out_and_the_result_are_told_with_the_move() {
    // G's only tower is e4; R covers it, and G is out when the turn passes.
    let text = format!(
        "{} 1 reserves=0,0 captures=0,17/15,0 removed=17,15 moves=10",
        board(&[("d4", "11"), ("e4", "2"), ("c6", "1")])
    );
    let mut pos = position(2, &text);
    let event = play_event(&mut pos, 0, "d4-e4");
    assert_eq!(event["out"], json!([1]));
    assert_eq!(
        event["result"],
        json!({ "reason": "last_standing", "winners": [0] })
    );
}
