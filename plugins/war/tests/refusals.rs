//! Refusals say why: every reason code of `war::reasons` on a hand-made
//! position, with `parse_action` refusing in the very words of
//! `explain_refusal`, and ids explained as their texts are.

use std::collections::BTreeMap;

use tabletop_sdk::{Attempt, DynGame, DynState, ErrorKind, Move, Refusal};
use war::{Action, Board};

use crate::support::{FILLERS, game, position, position_with};

/// The explanation of `text` for `player`, checked against `parse_action`:
/// the same message, and the error kind the explanation says.
fn explained(state: &dyn DynState, player: u32, text: &str) -> Refusal {
    let refusal = state
        .explain_refusal(player, Attempt::Text(text))
        .unwrap()
        .unwrap_or_else(|| panic!("`{text}` is not refused"));
    assert!(refusal.is_specific(), "{refusal:?}");
    let error = state
        .parse_action(player, text)
        .expect_err("parse_action refuses what is explained");
    assert_eq!(error.message, refusal.message, "`{text}`");
    let kind = match (refusal.notation, refusal.reason.as_str()) {
        (true, _) => ErrorKind::InvalidNotation,
        (false, "NOT_YOUR_TURN" | "GAME_OVER") => ErrorKind::NotYourTurn,
        (false, _) => ErrorKind::IllegalAction,
    };
    assert_eq!(error.kind, kind, "`{text}`: {}", error.message);
    refusal
}

/// Asserts `text` is refused for `player` with `code`, and its message
/// cites a ruling; returns the message.
fn assert_refused(state: &dyn DynState, player: u32, text: &str, code: &str) -> String {
    let refusal = explained(state, player, text);
    assert_eq!(refusal.reason, code, "`{text}`: {}", refusal.message);
    assert!(
        refusal.message.contains("(W"),
        "`{text}`: no ruling cited: {}",
        refusal.message
    );
    refusal.message
}

/// The id of a move, jump or tile action on the default board.
fn id(action: Action) -> u64 {
    action.id(&Board::default_board())
}

fn point(label: &str) -> u8 {
    Board::default_board().point_by_id(label).unwrap()
}

fn fresh() -> Box<dyn DynState> {
    game().new_state(2, &BTreeMap::new(), None).unwrap()
}

fn place(state: &mut dyn DynState, text: &str) {
    let action = state.parse_action(0, text).unwrap();
    state.apply(&[Move { player: 0, action }]).unwrap();
}

#[test]
fn w12_a_text_that_is_not_notation_says_which_part_is_wrong() {
    let quiet = position("south", "I@d4");
    let cases = [
        ("hello?", "UNKNOWN_FORM"),
        ("", "UNKNOWN_FORM"),
        ("d4-z9", "UNKNOWN_POINT"),
        ("d4xz9", "UNKNOWN_POINT"),
        ("=d5", "NOT_A_SEGMENT"),
        ("=d4-d6", "NO_SEGMENT"),
        ("#b6-b7", "NO_SEGMENT"),
        ("c2!Q", "UNKNOWN_DIRECTION"),
        ("Q@1", "UNKNOWN_UNIT_LETTER"),
    ];
    for (text, code) in cases {
        let refusal = explained(quiet.as_ref(), 0, text);
        assert_eq!(refusal.reason, code, "`{text}`: {}", refusal.message);
        assert!(refusal.notation, "`{text}` is a notation refusal");
    }
    // A hostile text is quoted in part only.
    let long = "z".repeat(5000);
    let refusal = explained(quiet.as_ref(), 0, &long);
    assert!(refusal.message.len() < 400, "{}", refusal.message);
}

#[test]
fn w3_placements_are_refused_with_the_setup_rule_they_break() {
    let mut state = fresh();
    assert_refused(state.as_ref(), 0, "d4-d5", "SETUP_NOT_OVER");
    let message = assert_refused(state.as_ref(), 0, "I@5", "NOT_NEXT_START_POINT");
    assert!(
        message.contains("next empty start point, 1 (c1)"),
        "{message}"
    );
    assert_refused(state.as_ref(), 1, "I@I", "NOT_YOUR_TURN");
    place(state.as_mut(), "A");
    place(state.as_mut(), "A");
    let message = assert_refused(state.as_ref(), 0, "A", "TOO_MANY_UNITS");
    assert_eq!(message, "seat 0 (South) has placed all its 2 cannons (W3)");
    // The id says the same as the text.
    let by_id = state
        .explain_refusal(0, Attempt::Id(2))
        .unwrap()
        .expect("a third cannon is refused");
    assert_eq!(by_id.message, message);
    assert_refused(position("south", "I@d4").as_ref(), 0, "I@1", "SETUP_OVER");
}

#[test]
fn the_turn_and_the_end_of_the_game_come_first() {
    let state = position("south", "I@d4");
    let message = assert_refused(state.as_ref(), 1, "c12-c11", "NOT_YOUR_TURN");
    assert!(
        message.contains("seat 1 (North) is not to move: it is seat 0 (South)'s turn"),
        "{message}"
    );
    let over = game()
        .new_state(
            2,
            &BTreeMap::new(),
            Some("phase over south fortress\nunits I@c12 I@d12 I@e12 i@a9 i@b9 i@c9"),
        )
        .unwrap();
    assert_refused(over.as_ref(), 0, "c12-c11", "GAME_OVER");
}

#[test]
fn w12_an_id_outside_the_actions_is_refused() {
    let mut state = position("south", "I@d4");
    let space = state.action_space().unwrap();
    assert_eq!(space, id(Action::RemoveTile { segment: 250 }) + 1);
    for bad in [3, 7, space, space + 1, u64::MAX] {
        let refusal = state
            .explain_refusal(0, Attempt::Id(bad))
            .unwrap()
            .expect("refused");
        assert_eq!(refusal.reason, "NO_SUCH_ACTION", "{bad}");
        assert!(!refusal.notation);
        let error = state
            .apply(&[Move {
                player: 0,
                action: bad,
            }])
            .unwrap_err();
        assert_eq!(error.message, refusal.message);
    }
}

#[test]
fn w4_moves_are_refused_with_the_movement_rule_they_break() {
    let state = position(
        "south",
        "I@d4 I@d3 I@c6 I@b6 C@f4 I@e5 I@f5 I@g5 I@a3 I@b3 A@g2",
    );
    let cases = [
        ("d5-d6", "NO_UNIT"),
        ("c12-c11", "NOT_YOUR_UNIT"),
        ("d4-d4", "SAME_POINT"),
        ("d4-d3", "DESTINATION_OCCUPIED"),
        ("c6-d6", "RED_LINE"),
        ("b6-b7", "GAP"),
        ("a3-c3", "PATH_BLOCKED"),
        ("f4-f6", "PATH_BLOCKED"),
        ("d4-d6", "TOO_FAR"),
        ("g2-g4", "TOO_FAR"),
    ];
    for (text, code) in cases {
        assert_refused(state.as_ref(), 0, text, code);
    }
    let message = assert_refused(state.as_ref(), 0, "c6-d6", "RED_LINE");
    assert_eq!(
        message,
        "c6-d6 crosses the red line c6-d6: red lines carry no movement (W4)"
    );
    // An id is explained as its text is.
    let by_id = state
        .explain_refusal(
            0,
            Attempt::Id(id(Action::Move {
                from: point("c6"),
                to: point("d6"),
            })),
        )
        .unwrap()
        .unwrap();
    assert_eq!(by_id.message, message);
    // An entrenchment makes a gap (W10).
    let entrenched = position_with(
        "south",
        &format!("I@d5 {FILLERS}"),
        "tiles #d5-d6:south\nhand south 0 3 north 1 3",
    );
    let message = assert_refused(entrenched.as_ref(), 0, "d5-d6", "GAP");
    assert!(message.contains("entrenchment"), "{message}");
}

#[test]
fn w9_a_seized_cannon_may_not_move() {
    let state = position_with(
        "north",
        &format!("I@d5 I@d4 a@d6 i@a9 C@b5 i@b9 {FILLERS}"),
        "seized d6",
    );
    assert_refused(state.as_ref(), 1, "d6-d7", "CANNON_SEIZED");
}

#[test]
fn w8_a_possible_capture_refuses_every_other_action() {
    let state = position("south", "I@b3 i@b4 A@c2 i@c4 C@d4");
    let message = assert_refused(state.as_ref(), 0, "d4-e5", "CAPTURE_COMPULSORY");
    assert!(
        message.contains("captures are compulsory (W8)"),
        "{message}"
    );
    assert_refused(state.as_ref(), 0, "=e5-e6", "CAPTURE_COMPULSORY");
    let with_tile = position_with(
        "south",
        &format!("I@b3 i@b4 {FILLERS}"),
        "tiles #e5-e6:south\nhand south 0 3 north 1 3",
    );
    assert_refused(with_tile.as_ref(), 0, "-e5-e6", "CAPTURE_COMPULSORY");
}

#[test]
fn w5_w6_jumps_are_refused_with_the_capture_rule_they_break() {
    let state = position("south", "A@a4 i@a5 I@d4 I@d5 C@f4 i@f5 i@f6 I@b5 i@b6 I@g3");
    let cases = [
        ("a4xa6", "CANNON_CANNOT_JUMP"),
        ("d4xd7", "NOT_A_JUMP"),
        ("g3xg5", "NOTHING_TO_JUMP"),
        ("d4xd6", "JUMP_OVER_OWN_UNIT"),
        ("f4xf6", "ENEMY_DEFENDED"),
        ("b5xb7", "ENEMY_DEFENDED"),
        ("c12xc10", "NOT_YOUR_UNIT"),
    ];
    for (text, code) in cases {
        assert_refused(state.as_ref(), 0, text, code);
    }
    let message = assert_refused(state.as_ref(), 0, "b5xb7", "ENEMY_DEFENDED");
    assert!(message.contains("no line joins b6 and b7"), "{message}");
    // Captures never cross gaps (W5).
    let across = position("south", "I@b7 i@b6");
    assert_refused(across.as_ref(), 0, "b7xb5", "GAP");
}

#[test]
fn w7_shots_are_refused_with_the_firing_rule_they_break() {
    let state = position("south", "A@d4 I@a4");
    assert_refused(state.as_ref(), 0, "a4!N", "NOT_A_CANNON");
    let message = assert_refused(state.as_ref(), 0, "d4!N", "SHOT_REMOVES_NOTHING");
    assert!(message.contains("stops at d12"), "{message}");
    let message = assert_refused(state.as_ref(), 0, "d4!S", "SHOT_REMOVES_NOTHING");
    assert!(message.contains("a unit of its own side"), "{message}");
    assert_refused(state.as_ref(), 0, "e5!N", "NO_UNIT");
}

#[test]
fn w10_tile_actions_are_refused_with_the_tile_rule_they_break() {
    let state = position_with(
        "south",
        &format!("I@d4 i@f8 {FILLERS}"),
        "tiles #d5-d6:south #b8-c8:north\nhand south 0 3 north 0 3",
    );
    let cases = [
        ("#e5-e6", "NO_TILE_IN_HAND"),
        ("=a3-b3", "PRINTED_RAILWAY"),
        ("=d5-d6", "SEGMENT_HAS_TILE"),
        ("=f7-f8", "ENEMY_AT_SEGMENT_END"),
        ("-e5-e6", "NO_TILE_THERE"),
        ("-b8-c8", "NOT_YOUR_TILE"),
    ];
    for (text, code) in cases {
        assert_refused(state.as_ref(), 0, text, code);
    }
    let message = assert_refused(state.as_ref(), 0, "=a3-b3", "PRINTED_RAILWAY");
    assert!(message.contains("a3-b3 is a printed railway"), "{message}");
}

/// Every id of the action space, on positions of every kind: refused
/// exactly when not legal, with a specific code, in the words `apply`
/// uses, and a text that reads as the id is explained alike.
#[test]
fn every_id_is_explained_exactly_when_it_is_not_legal() {
    let positions = [
        fresh(),
        position("south", "I@b3 i@b4 A@c2 i@c4 C@d4"),
        position("south", "I@d4 I@d3 I@c6 I@b6 C@f4 I@e5 A@g2 I@a3 I@b3"),
        position_with(
            "north",
            &format!("I@d5 I@d4 a@d6 i@a9 C@b5 i@b9 {FILLERS}"),
            "seized d6",
        ),
        position_with(
            "south",
            &format!("I@d4 C@c3 i@d7 c@e8 a@c9 {FILLERS}"),
            "tiles #d5-d6:south =c5-d5:north\nhand south 0 3 north 1 2",
        ),
    ];
    for state in &positions {
        let seat = crate::support::seat(state.as_ref());
        let mut legal = Vec::new();
        state.legal_actions(seat, &mut legal).unwrap();
        let space = state.action_space().unwrap();
        let mut explained_ids = 0;
        for id in 0..space {
            let refusal = state.explain_refusal(seat, Attempt::Id(id)).unwrap();
            let is_legal = legal.binary_search(&id).is_ok();
            assert_eq!(refusal.is_none(), is_legal, "id {id}: {refusal:?}");
            let Some(refusal) = refusal else { continue };
            explained_ids += 1;
            assert!(refusal.is_specific() && !refusal.notation, "{refusal:?}");
            assert!(refusal.message.contains("(W"), "{refusal:?}");
            let mut copy = state.clone_state().unwrap();
            let error = copy
                .apply(&[Move {
                    player: seat,
                    action: id,
                }])
                .unwrap_err();
            assert_eq!(error.message, refusal.message, "id {id}");
            // A move, jump or tile action prints a text that reads back to
            // the same explanation (placements print the next point, which
            // holds for every type).
            if id >= 8 {
                let text = state.action_to_string(seat, id).unwrap();
                let by_text = state
                    .explain_refusal(seat, Attempt::Text(&text))
                    .unwrap()
                    .unwrap_or_else(|| panic!("`{text}` is not refused"));
                assert_eq!(by_text, refusal, "`{text}`");
            }
        }
        assert!(explained_ids > 12_000, "{explained_ids}");
    }
}
