//! The layout shorthand of ruling W3: a whole or partial setup in one text,
//! expanded into single placement actions (`ExpandNotation::expand_notation`).

use std::collections::BTreeMap;

use tabletop_sdk::conformance;
use tabletop_sdk::fingerprint::BuildFingerprint;
use tabletop_sdk::{Attempt, DynGame, DynState, ErrorKind, GameError, Move, PlayerSet, Status};

use crate::support::{game, position, unit_at, view};

/// A whole army by rank (W2 default board: 3 + 7 + 7 + 7 start points):
/// 16 infantry, 6 cavalry, 2 cannons (W3).
const LAYOUT: &str = "III/CIIIIIC/IIIIIII/CACCAIC";

fn fresh() -> Box<dyn DynState> {
    game().new_state(2, &BTreeMap::new(), None).unwrap()
}

fn expand(state: &dyn DynState, player: u32, text: &str) -> Option<Vec<String>> {
    state
        .expand_notation(player, text)
        .unwrap_or_else(|e| panic!("`{text}` refused: {}", e.message))
}

/// The refusal of a layout, which its explanation repeats word for word.
fn refused(state: &dyn DynState, player: u32, text: &str) -> GameError {
    match state.expand_notation(player, text) {
        Ok(list) => panic!("`{text}` was accepted: {list:?}"),
        Err(e) => {
            let explained = state
                .explain_refusal(player, Attempt::Text(text))
                .unwrap()
                .unwrap_or_else(|| panic!("`{text}` refused, but not explained"));
            assert_eq!(explained.message, e.message);
            assert!(explained.is_specific(), "{explained:?}");
            e
        }
    }
}

/// The reason code of a refused layout.
fn reason(state: &dyn DynState, player: u32, text: &str) -> String {
    refused(state, player, text);
    state
        .explain_refusal(player, Attempt::Text(text))
        .unwrap()
        .expect("explained")
        .reason
}

/// Plays each expanded notation as its own action, as the host does.
fn play_all(state: &mut dyn DynState, player: u32, steps: &[String]) {
    for step in steps {
        let action = state
            .parse_action(player, step)
            .unwrap_or_else(|e| panic!("`{step}` does not parse: {}", e.message));
        state.apply(&[Move { player, action }]).unwrap();
    }
}

#[test]
fn w3_a_whole_layout_expands_to_24_placements_in_start_point_order() {
    let mut state = fresh();
    let steps = expand(state.as_ref(), 0, LAYOUT).expect("a layout is a shorthand");
    assert_eq!(steps.len(), 24);
    assert_eq!(&steps[..4], ["I@1", "I@2", "I@3", "C@4"]);
    assert_eq!(steps[23], "C@24");
    let count = |letter: char| steps.iter().filter(|s| s.starts_with(letter)).count();
    assert_eq!((count('I'), count('C'), count('A')), (16, 6, 2));
    play_all(state.as_mut(), 0, &steps);
    // South is placed; North places next (W3).
    assert_eq!(
        state.status().unwrap(),
        Status::ToMove(PlayerSet::single(1))
    );
    assert_eq!(
        unit_at(state.as_ref(), "c1").as_deref(),
        Some("south infantry")
    );
    assert_eq!(
        unit_at(state.as_ref(), "a2").as_deref(),
        Some("south cavalry")
    );
    assert_eq!(
        unit_at(state.as_ref(), "b4").as_deref(),
        Some("south cannon")
    );

    // North writes the same letters (either case); its points are I … XXIV.
    let north = expand(state.as_ref(), 1, &LAYOUT.to_lowercase()).unwrap();
    assert_eq!(north[0], "I@I");
    assert_eq!(north[23], "C@XXIV");
    play_all(state.as_mut(), 1, &north);
    assert_eq!(view(state.as_ref())["status"]["phase"], "play");
    assert_eq!(
        state.status().unwrap(),
        Status::ToMove(PlayerSet::single(0))
    );
}

#[test]
fn w3_a_partial_layout_and_placement_lists_expand_too() {
    let mut state = fresh();
    // Placements with points, and a run with spaces and commas, mixed.
    let steps = expand(state.as_ref(), 0, " I@1  C@d1, AI ").unwrap();
    assert_eq!(steps, ["I@1", "C@2", "A@3", "I@4"]);
    play_all(state.as_mut(), 0, &steps);
    // The rest of the army, in a second partial layout: it starts at 5.
    let rest = expand(state.as_ref(), 0, "IIIIIIIIIIIIII CCCCC").unwrap();
    assert_eq!(rest.len(), 19);
    assert_eq!((rest[0].as_str(), rest[18].as_str()), ("I@5", "C@23"));
    play_all(state.as_mut(), 0, &rest);
    // One point left: a one-letter layout with a separator still expands.
    assert_eq!(expand(state.as_ref(), 0, "A,").unwrap(), ["A@24"]);
}

#[test]
fn w3_single_actions_are_not_shorthands() {
    let state = fresh();
    for single in ["I", "c", "I@1", "A@c1", "d4-d5", "", "   ", "hello", "c2!N"] {
        assert_eq!(expand(state.as_ref(), 0, single), None, "`{single}`");
    }
    let play = position("south", "I@d4");
    assert_eq!(expand(play.as_ref(), 0, "d4-d5"), None);
}

#[test]
fn w3_a_wrong_letter_is_named_with_its_place() {
    let state = fresh();
    let e = refused(state.as_ref(), 0, "IIXI");
    assert_eq!(e.kind, ErrorKind::InvalidNotation);
    assert!(
        e.message.contains("placement 3 (`X`, character 3)"),
        "{}",
        e.message
    );
    assert!(e.message.contains("not a unit letter"), "{}", e.message);
    let e = refused(state.as_ref(), 0, "I@1 d4-d5");
    assert!(
        e.message.contains("placement 2 (`d4-d5`, character 5)"),
        "{}",
        e.message
    );
    let e = refused(state.as_ref(), 0, "I@1 I@c1");
    assert_eq!(e.kind, ErrorKind::IllegalAction);
    assert!(
        e.message.contains("placement 2 (`I@c1`, character 5)")
            && e.message.contains("next empty start point, which is 2"),
        "{}",
        e.message
    );
    let e = refused(state.as_ref(), 0, "I@1 I@z9");
    assert!(e.message.contains("`z9` names no point"), "{}", e.message);
}

#[test]
fn w3_too_many_units_of_a_type_is_refused() {
    let state = fresh();
    let e = refused(state.as_ref(), 0, "AIA A");
    assert_eq!(e.kind, ErrorKind::IllegalAction);
    assert!(
        e.message.contains("placement 4 (`A`, character 5)")
            && e.message.contains("too many cannons: an army has 2"),
        "{}",
        e.message
    );
    let e = refused(state.as_ref(), 0, "CCCCCCC");
    assert!(e.message.contains("placement 7") && e.message.contains("too many cavalry"));
}

#[test]
fn w3_more_units_than_empty_start_points_is_refused() {
    let mut state = fresh();
    let text = format!("{LAYOUT}/I");
    let e = refused(state.as_ref(), 0, &text);
    assert!(
        e.message
            .contains(&format!("placement 25 (`I`, character {})", text.len()))
            && e.message.contains("more units than empty start points"),
        "{}",
        e.message
    );
    // After 22 placements, only 2 points are left.
    let steps = expand(state.as_ref(), 0, LAYOUT).unwrap();
    play_all(state.as_mut(), 0, &steps[..22]);
    let e = refused(state.as_ref(), 0, "ICC");
    assert!(
        e.message.contains("placement 3") && e.message.contains("had 2 empty start points"),
        "{}",
        e.message
    );
}

#[test]
fn w3_a_layout_outside_the_setup_or_by_the_wrong_side_is_refused() {
    let state = fresh();
    let e = refused(state.as_ref(), 1, "IIC");
    assert_eq!(e.kind, ErrorKind::NotYourTurn);
    assert!(
        e.message
            .contains("seat 1 (North) cannot place now: seat 0 (South) is placing"),
        "{}",
        e.message
    );
    assert_eq!(reason(state.as_ref(), 1, "IIC"), "NOT_YOUR_TURN");
    let play = position("south", "I@d4");
    let e = refused(play.as_ref(), 0, "IIC");
    assert_eq!(e.kind, ErrorKind::IllegalAction);
    assert!(e.message.contains("the setup is over"), "{}", e.message);
    assert_eq!(reason(play.as_ref(), 0, "IIC"), "SETUP_OVER");
}

#[test]
fn w3_every_layout_refusal_has_its_reason_code() {
    let state = fresh();
    let over = game()
        .new_state(
            2,
            &BTreeMap::new(),
            Some("phase over south fortress\nunits I@c12 I@d12 I@e12 i@a9 i@b9 i@c9"),
        )
        .unwrap();
    let mut nearly_full = fresh();
    let steps = expand(state.as_ref(), 0, LAYOUT).unwrap();
    play_all(nearly_full.as_mut(), 0, &steps[..22]);
    let play = position("south", "I@d4");
    let cases: [(&dyn DynState, u32, &str, &str); 9] = [
        (state.as_ref(), 0, "IIXI", "UNKNOWN_UNIT_LETTER"),
        (state.as_ref(), 0, "I@1 d4-d5", "LAYOUT_ITEM"),
        (state.as_ref(), 0, "I@1 I@c1", "NOT_NEXT_START_POINT"),
        (state.as_ref(), 0, "I@1 I@z9", "UNKNOWN_POINT"),
        (state.as_ref(), 0, "AIA A", "TOO_MANY_UNITS"),
        (
            nearly_full.as_ref(),
            0,
            "ICC",
            "MORE_UNITS_THAN_START_POINTS",
        ),
        (state.as_ref(), 1, "IIC", "NOT_YOUR_TURN"),
        (play.as_ref(), 0, "IIC", "SETUP_OVER"),
        (over.as_ref(), 0, "IIC", "GAME_OVER"),
    ];
    for (state, player, text, code) in cases {
        assert_eq!(reason(state, player, text), code, "`{text}`");
    }
}

#[test]
fn w3_blanks_around_a_placements_at_sign_are_ignored() {
    let state = fresh();
    let steps = expand(state.as_ref(), 0, "I @ 1  C @d1,a@ 3").unwrap();
    assert_eq!(steps, ["I@1", "C@2", "A@3"]);
    // A layout that expands is not refused.
    assert_eq!(
        state
            .explain_refusal(0, Attempt::Text("I @ 1  C @d1,a@ 3"))
            .unwrap(),
        None
    );
}

#[test]
fn w3_layouts_expand_the_same_through_the_cdylib() {
    let plugin =
        conformance::open_built_plugin("war", &BuildFingerprint::of::<war::War>()).unwrap();
    let state = plugin.new_state(2, &BTreeMap::new(), None).unwrap();
    let through = state.expand_notation(0, LAYOUT).unwrap();
    assert_eq!(through, expand(fresh().as_ref(), 0, LAYOUT));
    assert_eq!(state.expand_notation(0, "I@1").unwrap(), None);
    let e = state.expand_notation(0, "IIXI").unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidNotation);
    assert!(e.message.contains("placement 3"), "{}", e.message);
}
