//! The layout shorthand of ruling W3: a whole or partial setup in one text,
//! expanded into single placement actions (`Game::expand_notation`).

use std::collections::BTreeMap;

use tabletop_loader::Plugin;
use tabletop_sdk::conformance;
use tabletop_sdk::{DynGame, DynState, ErrorKind, GameError, Move, PlayerSet, Status};

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

fn refused(state: &dyn DynState, player: u32, text: &str) -> GameError {
    match state.expand_notation(player, text) {
        Ok(list) => panic!("`{text}` was accepted: {list:?}"),
        Err(e) => e,
    }
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
    assert!(e.message.contains("unknown point `z9`"), "{}", e.message);
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
        e.message.contains("south (player 0) is placing"),
        "{}",
        e.message
    );
    let play = position("south", "I@d4");
    let e = refused(play.as_ref(), 0, "IIC");
    assert_eq!(e.kind, ErrorKind::IllegalAction);
    assert!(e.message.contains("setup phase is over"), "{}", e.message);
}

#[test]
fn w3_layouts_expand_the_same_through_the_cdylib() {
    let plugin = Plugin::load(&conformance::built_plugin_path("war")).unwrap();
    let state = plugin.new_state(2, &BTreeMap::new(), None).unwrap();
    let through = state.expand_notation(0, LAYOUT).unwrap();
    assert_eq!(through, expand(fresh().as_ref(), 0, LAYOUT));
    assert_eq!(state.expand_notation(0, "I@1").unwrap(), None);
    let e = state.expand_notation(0, "IIXI").unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidNotation);
    assert!(e.message.contains("placement 3"), "{}", e.message);
}
