//! One positive and one negative scenario (at least) per ruling, on the
//! default board of W2. Positions are written in the position notation; the
//! fillers of `support::FILLERS` sit in both fortresses, out of the way.
//! One file on purpose: the rulings in order, W1 to the last, read as the rules do.

use std::collections::BTreeMap;

use tabletop_sdk::{DynGame, ErrorKind, Move, Status, Viewer};

use crate::support::*;

// ---- W1: boards as data ----------------------------------------------------

#[test]
fn w1_option_board_takes_a_shipped_name_or_a_whole_document() {
    let doc = war::board::DEFAULT_BOARD.replace("name default", "name copy");
    let state = game()
        .new_state(2, &options(&[("board", &doc)]), None)
        .unwrap();
    assert_eq!(view(state.as_ref())["board"], "copy");
    // The position carries the board's content, never a name or a path.
    let text = state.position().unwrap();
    assert!(
        text.contains("name copy") && text.contains("segment a3 b3 rail"),
        "{text}"
    );
    let e = game()
        .new_state(2, &options(&[("board", "nowhere")]), None)
        .err()
        .unwrap();
    assert_eq!(e.kind, ErrorKind::InvalidOption);
    assert!(
        e.message.contains("no shipped board `nowhere`"),
        "{}",
        e.message
    );
    let broken = doc.replace("segment a3 b3 rail", "segment a3 zz9 rail");
    let e = game()
        .new_state(2, &options(&[("board", &broken)]), None)
        .err()
        .unwrap();
    assert!(
        e.message.contains("unknown point `zz9`") && e.message.contains("line"),
        "{}",
        e.message
    );
}

#[test]
fn w1_a_position_with_its_board_replays_without_the_option() {
    // A state made on an inline board, printed, is read back with default options.
    let doc = war::board::DEFAULT_BOARD.replace("segment d5 e5 red", "segment d5 e5 black");
    let mut state = game()
        .new_state(2, &options(&[("board", &doc)]), None)
        .unwrap();
    play(state.as_mut(), "I@1");
    let again = game()
        .new_state(2, &BTreeMap::new(), Some(&state.position().unwrap()))
        .unwrap();
    assert_eq!(
        again.view(Viewer::Spectator).unwrap(),
        state.view(Viewer::Spectator).unwrap()
    );
    let v = view(again.as_ref());
    let seg = v["segments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["a"] == "d5" && s["b"] == "e5")
        .unwrap();
    assert_eq!(seg["kind"], "black");
}

// ---- W3: setup -------------------------------------------------------------

#[test]
fn w3_setup_places_one_type_on_the_next_start_point() {
    let mut state = game().new_state(2, &BTreeMap::new(), None).unwrap();
    assert_eq!(legal(state.as_ref()), ["A@1", "C@1", "I@1"]);
    // Not the next empty start point.
    assert!(state.parse_action(0, "I@5").is_err());
    assert!(
        state.parse_action(1, "I@I").is_err(),
        "North places after South"
    );
    for _ in 0..16 {
        play(state.as_mut(), "I");
    }
    // Sixteen infantry placed: no more infantry (W3 army).
    assert_eq!(legal(state.as_ref()), ["A@17", "C@17"]);
    for t in ["C", "C", "C", "C", "C", "C", "A", "A"] {
        play(state.as_mut(), t);
    }
    assert_eq!(seat(state.as_ref()), 1);
    assert_eq!(legal(state.as_ref()), ["A@I", "C@I", "I@I"]);
    assert_eq!(
        unit_at(state.as_ref(), "d1").as_deref(),
        Some("south infantry"),
        "start point 2 is d1"
    );
    assert_eq!(
        unit_at(state.as_ref(), "g4").as_deref(),
        Some("south cannon"),
        "start point 24 is g4"
    );
    for _ in 0..24 {
        let first = legal(state.as_ref())[0].clone();
        play(state.as_mut(), &first);
    }
    // After both placements South makes the first move.
    assert_eq!(seat(state.as_ref()), 0);
    assert!(legal(state.as_ref()).iter().all(|a| !a.contains('@')));
}

#[test]
fn w3_placements_written_with_a_label_or_the_letter_alone_are_accepted() {
    let mut state = game().new_state(2, &BTreeMap::new(), None).unwrap();
    play(state.as_mut(), "I@c1");
    play(state.as_mut(), "C");
    assert_eq!(legal(state.as_ref())[0], "A@3");
    assert_eq!(
        unit_at(state.as_ref(), "d1").as_deref(),
        Some("south cavalry")
    );
}

// ---- W4: moves -------------------------------------------------------------

#[test]
fn w4_infantry_steps_along_black_lines_not_red_ones() {
    let state = position("south", "I@d6");
    let moves: Vec<String> = legal(state.as_ref())
        .into_iter()
        .filter(|m| m.starts_with("d6-"))
        .collect();
    // Rank 6 is red: no c6/e6; files and diagonals are black.
    assert_eq!(
        moves,
        ["d6-c5", "d6-c7", "d6-d5", "d6-d7", "d6-e5", "d6-e7"]
    );
}

#[test]
fn w4_no_move_through_a_gap_or_onto_an_occupied_point() {
    let state = position("south", "I@b6 I@c7");
    let moves: Vec<String> = legal(state.as_ref())
        .into_iter()
        .filter(|m| m.starts_with("b6-"))
        .collect();
    // b6-b7 is a gap (W2), c7 is occupied by an own unit, a6/c6 are red.
    assert_eq!(moves, ["b6-a5", "b6-a7", "b6-b5", "b6-c5"]);
}

#[test]
fn w4_cavalry_moves_two_steps_and_may_turn_but_not_through_units() {
    let state = position("south", "C@d6");
    let m = legal(state.as_ref());
    assert!(m.contains(&"d6-d8".to_string()));
    // Around a corner: d6-c7-c6 reaches c6, which a red line hides from d6.
    assert!(m.contains(&"d6-c6".to_string()));
    let blocked = position("south", "C@d6 I@d7 I@c7 I@e7 I@c5 I@d5");
    let m = legal(blocked.as_ref());
    assert!(
        !m.contains(&"d6-d8".to_string()),
        "no path through own units"
    );
    assert!(!m.contains(&"d6-c6".to_string()));
    assert!(
        m.contains(&"d6-e6".to_string()),
        "two steps through e5, past the red line"
    );
}

#[test]
fn w4_rail_moves_go_three_segments_around_the_bend() {
    let state = position("south", "I@e3");
    let m = legal(state.as_ref());
    // e3-f3-g3-g4: three rail segments around the bend.
    assert!(m.contains(&"e3-g4".to_string()), "{m:?}");
    assert!(m.contains(&"e3-b3".to_string()));
    assert!(
        !m.contains(&"e3-a3".to_string()),
        "four segments is too far"
    );
    let blocked = position("south", "I@e3 I@f3");
    let m = legal(blocked.as_ref());
    assert!(
        !m.contains(&"e3-g3".to_string()) && !m.contains(&"e3-g4".to_string()),
        "rail path through a unit"
    );
}

#[test]
fn w4_a_move_is_identified_by_its_ends_alone() {
    // Cavalry on c3 reaches d3 by a step, a rail move, and via d4: one action.
    let state = position("south", "C@c3");
    let m = legal(state.as_ref());
    assert_eq!(m.iter().filter(|a| *a == "c3-d3").count(), 1);
}

// ---- W5 / W6: jump captures ------------------------------------------------

#[test]
fn w6_jump_over_an_undefended_enemy() {
    let state = position("south", "I@d4 i@d5");
    assert_eq!(legal(state.as_ref()), ["d4xd6"]);
    let mut s = state;
    play(s.as_mut(), "d4xd6");
    assert_eq!(unit_at(s.as_ref(), "d5"), None);
    assert_eq!(unit_at(s.as_ref(), "d6").as_deref(), Some("south infantry"));
}

#[test]
fn w5_an_enemy_with_a_unit_behind_it_is_defended() {
    let state = position("south", "I@d4 i@d5 i@d6");
    assert!(legal(state.as_ref()).iter().all(|m| !m.contains('x')));
}

#[test]
fn w6_a_jump_crosses_a_red_line() {
    let state = position("south", "I@c5 i@d5");
    assert_eq!(legal(state.as_ref()), ["c5xe5"]);
}

#[test]
fn w5_no_capture_around_a_bend_or_across_a_gap() {
    // f3-g3 is rail and bends to g4: the straight continuation h3 does not exist.
    let bend = position("south", "I@f3 i@g3");
    assert!(
        legal(bend.as_ref()).iter().all(|m| !m.contains('x')),
        "{:?}",
        legal(bend.as_ref())
    );
    // b7 attacks b6 across the gap b6-b7: no capture.
    let gap = position("south", "I@b7 i@b6");
    assert!(legal(gap.as_ref()).iter().all(|m| !m.contains('x')));
    // b5 attacks b6, but b6's continuation b7 lies across the gap: defended.
    let gap2 = position("south", "I@b5 i@b6");
    assert!(legal(gap2.as_ref()).iter().all(|m| !m.contains('x')));
    // Cannons cannot jump.
    let cannon = position("south", "A@d4 i@d5 i@d6");
    assert!(legal(cannon.as_ref()).iter().all(|m| !m.contains('x')));
}

// ---- W7: cannon fire -------------------------------------------------------

#[test]
fn w7_a_shot_removes_several_units_and_stops_at_a_defended_one() {
    let mut state = position("south", "A@d2 i@d4 i@d6 i@d8 i@d9");
    assert!(legal(state.as_ref()).contains(&"d2!N".to_string()));
    play(state.as_mut(), "d2!N");
    assert_eq!(unit_at(state.as_ref(), "d4"), None);
    assert_eq!(unit_at(state.as_ref(), "d6"), None);
    // d8 has d9 behind it: defended, the shot stops there.
    assert_eq!(
        unit_at(state.as_ref(), "d8").as_deref(),
        Some("north infantry")
    );
    assert_eq!(
        unit_at(state.as_ref(), "d9").as_deref(),
        Some("north infantry")
    );
    assert_eq!(
        unit_at(state.as_ref(), "d2").as_deref(),
        Some("south cannon"),
        "the cannon does not move"
    );
}

#[test]
fn w7_no_shot_without_a_removal_nor_through_own_units_or_gaps() {
    // First enemy defended: no fire that way.
    let defended = position("south", "A@d2 i@d4 i@d5");
    assert!(
        !legal(defended.as_ref())
            .iter()
            .any(|m| m.starts_with("d2!"))
    );
    // An own unit in the way stops the shot.
    let own = position("south", "A@d2 I@d3 i@d5");
    assert!(!legal(own.as_ref()).iter().any(|m| m.starts_with("d2!")));
    // The gap b6-b7 stops a shot up the b file.
    let gap = position("south", "A@b4 i@b8");
    assert!(!legal(gap.as_ref()).iter().any(|m| m.starts_with("b4!")));
    // A shot goes across red lines (rank 5) and along diagonals.
    let red = position("south", "A@a5 i@c5");
    assert_eq!(legal(red.as_ref()), ["a5!E"]);
}

// ---- W8: compulsory capture ------------------------------------------------

#[test]
fn w8_a_capture_forbids_every_other_move() {
    let state = position("south", "I@d4 i@d5 A@a7 i@c7 I@g2");
    let m = legal(state.as_ref());
    assert_eq!(m, ["a7!E", "d4xd6"]);
    let e = state.parse_action(0, "g2-g3").err().unwrap();
    assert_eq!(e.kind, ErrorKind::IllegalAction);
    let quiet = position("south", "I@d4 I@g2");
    assert!(is_legal(quiet.as_ref(), "g2-g3"));
    assert!(
        is_legal(quiet.as_ref(), "#d4-d5"),
        "tiles are moves too when nothing can be captured"
    );
}

// ---- W9: seized cannons ----------------------------------------------------

#[test]
fn w9_a_seized_cannon_may_fire_not_move_and_goes_a_turn_later() {
    let mut state = position("south", "I@d4 a@d6 i@a9 I@g2");
    play(state.as_mut(), "d4-d5");
    assert_eq!(view(state.as_ref())["seized"], serde_json::json!(["d6"]));
    // North must capture (W8): the seized cannon may still fire.
    assert_eq!(legal(state.as_ref()), ["d6!S"]);
    play(state.as_mut(), "d6!S");
    assert_eq!(
        unit_at(state.as_ref(), "d5"),
        None,
        "the seizing unit is gone"
    );
    // At the start of South's turn the cannon goes anyway.
    assert_eq!(unit_at(state.as_ref(), "d6"), None);
    assert_eq!(seat(state.as_ref()), 0);
}

#[test]
fn w9_a_seized_cannon_cannot_move() {
    // d4 stays behind d5, so the cannon has nothing to fire at.
    let mut state = position("south", "I@c4 I@d4 a@d6 i@a9");
    play(state.as_mut(), "c4-d5");
    assert_eq!(view(state.as_ref())["seized"], serde_json::json!(["d6"]));
    let m = legal(state.as_ref());
    assert!(!m.iter().any(|m| m.starts_with("d6")), "{m:?}");
    assert!(m.contains(&"a9-a8".to_string()));
    // Without the seizure the same cannon moves.
    let mut free = position("south", "I@c4 I@d4 I@d3 a@d6 i@a9");
    play(free.as_mut(), "c4-c3");
    assert!(legal(free.as_ref()).contains(&"d6-d7".to_string()));
}

#[test]
fn w9_no_seizure_across_a_gap_or_without_advancing() {
    // b6-b7 is a gap: a unit on b6 does not seize a cannon on b7.
    let mut state = position("south", "I@b5 a@b7 i@a9");
    play(state.as_mut(), "b5-b6");
    assert_eq!(view(state.as_ref())["seized"], serde_json::json!([]));
    assert!(legal(state.as_ref()).iter().any(|m| m.starts_with("b7-")));
    // A unit already next to a cannon that does not move seizes nothing.
    let mut still = position("south", "I@d5 I@d4 a@d6 i@d7 I@g2 i@a9");
    play(still.as_mut(), "g2-g3");
    assert_eq!(view(still.as_ref())["seized"], serde_json::json!([]));
}

// ---- W10: tiles ------------------------------------------------------------

#[test]
fn w10_tiles_are_placed_removed_and_placed_again() {
    let mut state = position("south", "I@d4 i@a9");
    assert!(is_legal(state.as_ref(), "#d4-d5") && is_legal(state.as_ref(), "=d5-e5"));
    // Never on a printed railway.
    assert!(!legal(state.as_ref()).iter().any(|m| m.ends_with("a3-b3")));
    play(state.as_mut(), "#d4-d5");
    play(state.as_mut(), "a9-a8");
    // The entrenchment is a gap: no step d4-d5, no second entrenchment in hand.
    assert!(!is_legal(state.as_ref(), "d4-d5"));
    assert!(!legal(state.as_ref()).iter().any(|m| m.starts_with('#')));
    play(state.as_mut(), "-d4-d5");
    assert_eq!(view(state.as_ref())["hands"]["south"]["entrenchment"], 1);
    play(state.as_mut(), "a8-a9");
    assert!(is_legal(state.as_ref(), "d4-d5"));
    play(state.as_mut(), "#d4-d5");
    assert_eq!(view(state.as_ref())["tiles"][0]["segment"], "d4-d5");
}

#[test]
fn w10_a_railway_tile_carries_rail_moves_across_a_red_line() {
    let mut state = position("south", "I@c5 i@a9");
    assert!(!is_legal(state.as_ref(), "c5-d5"));
    play(state.as_mut(), "=c5-d5");
    play(state.as_mut(), "a9-a8");
    assert!(is_legal(state.as_ref(), "c5-d5"));
}

#[test]
fn w10_no_tile_next_to_an_enemy_unit() {
    let state = position("south", "I@d4 i@d6");
    assert!(!is_legal(state.as_ref(), "#d5-d6") && !is_legal(state.as_ref(), "=d6-d7"));
    assert!(is_legal(state.as_ref(), "#d4-d5"));
}

#[test]
fn w10_a_tile_changes_owner_when_the_enemy_holds_both_ends() {
    let mut state = position_with(
        "south",
        &format!("I@d3 I@d6 i@a9 {FILLERS}"),
        "tiles =d4-d5:north\nhand south 1 3 north 1 2",
    );
    play(state.as_mut(), "d3-d4");
    assert_eq!(
        view(state.as_ref())["tiles"][0]["owner"],
        "north",
        "one end only"
    );
    play(state.as_mut(), "a9-a8");
    play(state.as_mut(), "d6-d5");
    assert_eq!(view(state.as_ref())["tiles"][0]["owner"], "south");
    play(state.as_mut(), "a8-a9");
    // The new owner may remove it (even with an enemy next to it) and place it again.
    play(state.as_mut(), "-d4-d5");
    assert_eq!(view(state.as_ref())["hands"]["south"]["railway"], 4);
}

// ---- W11: the end ----------------------------------------------------------

#[test]
fn w11_occupying_the_three_enemy_fortress_points_wins() {
    let mut state = position_with("south", "I@c12 I@d12 I@e11 I@c1 I@d1 i@a9 i@b9 i@g9", "");
    assert_eq!(outcome(state.as_ref()), None);
    play(state.as_mut(), "e11-e12");
    assert_eq!(
        outcome(state.as_ref()),
        Some(("south".into(), "fortress".into()))
    );
    assert_eq!(state.status().unwrap(), Status::Terminal);
    let results = state.results().unwrap();
    assert_eq!((results[0].rank, results[1].rank), (1, 2));
    // Two of three is not enough.
    let mut two = position_with("south", "I@c12 I@d12 I@e10 I@c1 I@d1 i@a9 i@b9 i@g9", "");
    play(two.as_mut(), "e10-e11");
    assert_eq!(outcome(two.as_ref()), None);
}

#[test]
fn w11_leaving_the_enemy_two_units_wins() {
    let mut state = position_with("south", "I@d4 i@d5 i@a9 i@g9 I@c1 I@d1 I@e1", "");
    play(state.as_mut(), "d4xd6");
    assert_eq!(
        outcome(state.as_ref()),
        Some(("south".into(), "destroyed".into()))
    );
    let mut four = position_with("south", "I@d4 i@d5 i@a9 i@g9 i@b9 I@c1 I@d1 I@e1", "");
    play(four.as_mut(), "d4xd6");
    assert_eq!(outcome(four.as_ref()), None);
}

#[test]
fn w11_a_cannon_removal_that_leaves_two_units_wins_before_the_move() {
    let mut state = position_with("south", "I@d4 a@d6 i@a9 i@g9 I@c1 I@d1 I@e1", "");
    play(state.as_mut(), "d4-d5");
    // North must capture d5 with the seized cannon, then loses it: 2 units left.
    play(state.as_mut(), "d6!S");
    assert_eq!(
        outcome(state.as_ref()),
        Some(("south".into(), "destroyed".into()))
    );
}

/// North holds c12 d12 e12 and South walls it in with every jump landing
/// covered; g9-g10 closes the last landing point.
const ENCIRCLE: &str = "i@c12 i@d12 i@e12 I@b11 I@c11 I@d11 I@e11 I@f11 \
     I@a10 I@b10 I@c10 I@d10 I@e10 I@f10 I@g9 I@c1 I@d1 I@e1";

#[test]
fn w11_a_side_without_capture_or_unit_move_loses_even_with_tiles_in_hand() {
    let mut state = position_with("south", ENCIRCLE, "");
    // Before the move North could still jump e12xg10.
    play(state.as_mut(), "g9-g10");
    assert_eq!(
        outcome(state.as_ref()),
        Some(("south".into(), "encircled".into()))
    );
}

#[test]
fn w11_not_encircled_while_a_unit_can_move() {
    let mut state = position_with("south", ENCIRCLE, "");
    play(state.as_mut(), "g9-g8");
    assert_eq!(outcome(state.as_ref()), None);
    assert_eq!(legal(state.as_ref()), ["e12xg10"]);
}

#[test]
fn w11_max_turns_draws() {
    let state = game()
        .new_state(
            2,
            &options(&[("max_turns", "2")]),
            Some(&format!("units I@d4 i@a9 {FILLERS}")),
        )
        .unwrap();
    let mut s = state;
    play(s.as_mut(), "d4-d5");
    assert_eq!(outcome(s.as_ref()), None);
    play(s.as_mut(), "a9-a8");
    assert_eq!(
        outcome(s.as_ref()),
        Some(("draw".into(), "turn-limit".into()))
    );
    let results = s.results().unwrap();
    assert_eq!((results[0].rank, results[1].rank), (1, 1));
}

#[test]
fn w11_threefold_repetition_draws() {
    let mut s = position("south", "I@d4 i@a9");
    let cycle = ["d4-d5", "a9-a8", "d5-d4", "a8-a9"];
    for m in cycle {
        play(s.as_mut(), m);
    }
    // The start position has occurred twice: not yet.
    assert_eq!(outcome(s.as_ref()), None);
    for m in cycle {
        play(s.as_mut(), m);
    }
    assert_eq!(
        outcome(s.as_ref()),
        Some(("draw".into(), "repetition".into()))
    );
}

#[test]
fn w11_a_capture_resets_the_repetition_count() {
    let mut s = position("south", "I@d4 i@a9 i@g6 I@g4");
    for m in [
        "d4-d5", "a9-a8", "d5-d4", "a8-a9", "d4-d5", "a9-a8", "d5-d4",
    ] {
        play(s.as_mut(), m);
    }
    // The position after a8-a9 would be the third; a capture in between
    // would have reset it, here none did, so it ends.
    play(s.as_mut(), "a8-a9");
    assert_eq!(
        outcome(s.as_ref()),
        Some(("draw".into(), "repetition".into()))
    );
    // The history travels with the position text.
    let mut t = position("south", "I@d4 i@a9 i@g6 I@g4");
    for m in ["d4-d5", "a9-a8", "d5-d4"] {
        play(t.as_mut(), m);
    }
    let text = t.position().unwrap();
    let mut u = game().new_state(2, &BTreeMap::new(), Some(&text)).unwrap();
    for m in ["a8-a9", "d4-d5", "a9-a8", "d5-d4", "a8-a9"] {
        play(u.as_mut(), m);
    }
    assert_eq!(
        outcome(u.as_ref()),
        Some(("draw".into(), "repetition".into()))
    );
}

// ---- W12: notation ---------------------------------------------------------

#[test]
fn w12_every_form_of_the_notation_round_trips() {
    let state = position("south", "I@b3 i@b4 A@c2 i@c4 C@d4");
    for text in ["b3xb5", "c2!N"] {
        let id = state.parse_action(0, text).unwrap();
        assert_eq!(state.action_to_string(0, id).unwrap(), text);
    }
    let quiet = position("south", "C@d4 I@g2");
    for text in ["d4-d5", "=d5-d6", "#d5-d6", "d4-d6"] {
        let id = quiet.parse_action(0, text).unwrap();
        assert_eq!(quiet.action_to_string(0, id).unwrap(), text);
    }
    // Start numbers name points too (14 is d3), and either segment order reads.
    let id = quiet.parse_action(0, "d4-14").unwrap();
    assert_eq!(quiet.action_to_string(0, id).unwrap(), "d4-d3");
    let id = quiet.parse_action(0, "#d6-d5").unwrap();
    assert_eq!(quiet.action_to_string(0, id).unwrap(), "#d5-d6");
    let mut removal = position_with(
        "south",
        &format!("C@d4 {FILLERS}"),
        "tiles #d5-d6:south\nhand south 0 3 north 1 3",
    );
    let id = removal.parse_action(0, "-d5-d6").unwrap();
    assert_eq!(removal.action_to_string(0, id).unwrap(), "-d5-d6");
    removal
        .apply(&[Move {
            player: 0,
            action: id,
        }])
        .unwrap();
    for bad in ["d4-d9", "d4xd6", "z9-d4", "c2!Q", "", "I@1"] {
        assert!(quiet.parse_action(0, bad).is_err(), "{bad}");
    }
    assert_eq!(
        quiet.parse_action(1, "a9-a8").err().unwrap().kind,
        ErrorKind::NotYourTurn
    );
}

#[test]
fn w12_positions_are_validated() {
    let bad = [
        ("units I@d4 I@d4 i@a9", "two units on d4"),
        ("units I@z1", "unknown point `z1`"),
        ("units X@d4", "not a unit letter"),
        ("units A@a1 A@b1 A@c1", "unknown point"),
        ("units I@c1 I@d1 I@e1 i@a9\nseized d4", "no cannon"),
        (
            "units I@c1 I@d1 I@e1 i@a9 i@b9 i@c9\ntiles =a3-b3:south",
            "printed railway",
        ),
        (
            "units I@c1 I@d1 I@e1 i@a9 i@b9 i@c9\nhand south 2 3 north 1 3",
            "3 entrenchment tiles in all",
        ),
        ("phase setup\nunits I@d1", "in order"),
        (
            "to-move south\nunits I@c12 I@d12 I@e12 I@a2 i@a9 i@b9 i@g9",
            "already won",
        ),
        ("phase sideways\nunits I@d4", "`phase`"),
    ];
    for (text, expected) in bad {
        let e = game()
            .new_state(2, &BTreeMap::new(), Some(text))
            .err()
            .unwrap_or_else(|| panic!("accepted: {text}"));
        assert_eq!(e.kind, ErrorKind::InvalidPosition);
        assert!(e.message.contains(expected), "{text}: {}", e.message);
    }
    let cannons = (0..3)
        .map(|i| format!("A@{}2", ["a", "b", "c"][i]))
        .collect::<Vec<_>>()
        .join(" ");
    let e = game()
        .new_state(
            2,
            &BTreeMap::new(),
            Some(&format!("units {cannons} i@a9 i@b9 i@c9")),
        )
        .err()
        .unwrap();
    assert!(e.message.contains("more than 2 cannon"), "{}", e.message);
}

#[test]
fn views_show_lines_units_and_tiles_and_the_board_draws_them() {
    let state = position_with(
        "south",
        &format!("I@d4 a@d6 {FILLERS}"),
        "tiles #d4-d5:south =c5-d5:north\nhand south 0 3 north 1 2",
    );
    let v = view(state.as_ref());
    assert_eq!(v["points"].as_array().unwrap().len(), 76);
    assert_eq!(v["segments"].as_array().unwrap().len(), 251);
    assert_eq!(v["to_move"], "south");
    assert!(v.get("svg").is_none(), "the board is drawn by render_svg");
    let svg = state.render_svg(Viewer::Spectator).unwrap().unwrap();
    assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
    assert!(
        svg.contains("#c62828") && svg.contains("#6d4c41"),
        "red and rail lines are drawn differently"
    );
    assert_eq!(svg.matches("class='unit ").count(), 8);
    assert!(svg.contains("tile entrenchment") && svg.contains("tile railway"));
    assert!(svg.contains("<g id='pt-d4' class='point'>"), "{svg}");
    assert!(
        svg.contains("<g id='seg-d4-d5' class='segment gap'>"),
        "{svg}"
    );
    assert!(svg.contains("id='hand-north-railway'"), "{svg}");
    let text = state.render_text(Viewer::Spectator).unwrap();
    assert!(
        text.contains('~') && text.contains('=') && text.contains('#'),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("  4 ") && l.contains('I')),
        "{text}"
    );
    assert!(text.lines().all(|l| l.chars().count() <= 80));
}

/// The view is typed data serialised straight to text, its keys in the
/// order a `Value` prints them: along a whole random match a client that
/// re-serialises it gets the host's text back, to the byte, also on a board
/// whose name holds characters JSON escapes.
#[test]
fn a_view_prints_as_its_value_prints_to_the_byte() {
    assert_eq!(
        views_agree_along_a_random_match(&BTreeMap::new()),
        "default"
    );
    let doc = war::board::DEFAULT_BOARD.replace("name default", "name we\"ird\\one");
    assert_eq!(
        views_agree_along_a_random_match(&options(&[("board", &doc)])),
        "we\"ird\\one"
    );
}

/// Plays a random match, checking both views at every position; returns
/// the board's name as the view gives it.
fn views_agree_along_a_random_match(options: &BTreeMap<String, String>) -> String {
    use tabletop_sdk::{Game, Setup};
    let war = war::War;
    let setup = Setup::validate(&war.manifest(), 2, options).unwrap();
    let mut state = war.new_state(&setup).unwrap();
    let mut legal = Vec::new();
    let mut pick = 0x2545_f491_u64;
    let mut checked = 0;
    loop {
        let text = serde_json::to_string(&war.view(&state, Viewer::Spectator)).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let printed = value.to_string();
        let differs = text
            .bytes()
            .zip(printed.bytes())
            .position(|(a, b)| a != b)
            .map(|at| &text[at.saturating_sub(80)..(at + 40).min(text.len())]);
        assert_eq!(differs, None, "same keys in the same order");
        assert_eq!(text.len(), printed.len());
        checked += 1;
        let Status::ToMove(movers) = war.status(&state) else {
            break;
        };
        let player = movers.iter().next().unwrap();
        war.legal_actions(&state, player, &mut legal);
        let action = tabletop_bench_support::pick_from(&mut pick, &legal);
        war.apply(&mut state, &[Move { player, action }]).unwrap();
    }
    assert!(checked > 24, "setup and play were both viewed: {checked}");
    let end = serde_json::to_value(war.view(&state, Viewer::Spectator)).unwrap();
    assert_eq!(end["status"]["phase"], "over", "{}", end["status"]);
    end["board"].as_str().unwrap().to_string()
}

/// A position keeps its legal actions' ids once asked for (`legal_ids`):
/// along a whole random match the kept list must be the list computed from
/// scratch, before and after each move, in a clone too, and an action the
/// list does not hold must still be refused.
#[test]
fn kept_legal_ids_always_equal_a_fresh_generation() {
    use tabletop_sdk::{Game, Setup};
    let war = war::War;
    let setup = Setup::validate(&war.manifest(), 2, &BTreeMap::new()).unwrap();
    let mut state = war.new_state(&setup).unwrap();
    let from_scratch = |state: &war::Position| {
        let mut actions = Vec::new();
        state.legal(&mut actions);
        let mut ids: Vec<u64> = actions.iter().map(|a| a.id(state.board())).collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    };
    let mut pick = 0x9e37_79b9_u64;
    let mut plies = 0;
    while let Status::ToMove(movers) = war.status(&state) {
        let player = movers.iter().next().unwrap();
        let expected = from_scratch(&state);
        assert_eq!(state.legal_ids(), expected.as_slice(), "ply {plies}");
        assert_eq!(state.clone().legal_ids(), expected.as_slice());
        let refused = (0..)
            .find(|id| expected.binary_search(id).is_err())
            .unwrap();
        assert!(
            war.apply(
                &mut state,
                &[Move {
                    player,
                    action: refused
                }]
            )
            .is_err()
        );
        let action = tabletop_bench_support::pick_from(&mut pick, &expected);
        war.apply(&mut state, &[Move { player, action }]).unwrap();
        plies += 1;
    }
    assert!(plies > 24, "setup and play were both played: {plies}");
    assert!(state.legal_ids().is_empty(), "a finished game has no moves");
}

/// Each action names the board elements a player clicks, from then to, and
/// each is an element of the board: placements the unit type in reserve
/// then the start point, moves and jumps their points, tiles the hand and
/// the segment.
#[test]
fn actions_target_the_board_elements_they_involve() {
    let start = game().new_state(2, &BTreeMap::new(), None).unwrap();
    let targets = start.action_targets(0, &[0, 2]).unwrap().unwrap();
    assert_eq!(
        targets,
        [
            vec!["reserve-south-infantry".to_owned(), "pt-c1".to_owned()],
            vec!["reserve-south-cannon".to_owned(), "pt-c1".to_owned()],
        ]
    );
    let state = position_with(
        "south",
        &format!("I@d4 a@d6 {FILLERS}"),
        "tiles #d4-d5:south =c5-d5:north\nhand south 0 3 north 1 2",
    );
    let svg = state.render_svg(Viewer::Seat(0)).unwrap().unwrap();
    let mut legal = Vec::new();
    state.legal_actions(0, &mut legal).unwrap();
    let targets = state.action_targets(0, &legal).unwrap().unwrap();
    let by_notation: BTreeMap<String, Vec<String>> = legal
        .iter()
        .zip(targets)
        .map(|(&id, t)| (state.action_to_string(0, id).unwrap(), t))
        .collect();
    for (notation, targets) in &by_notation {
        assert_eq!(targets.len(), 2, "{notation}: {targets:?}");
        for id in targets {
            assert!(svg.contains(&format!("id='{id}'")), "{notation}: {id}");
        }
    }
    assert_eq!(
        by_notation["-d4-d5"],
        ["seg-d4-d5", "hand-south-entrenchment"]
    );
    let step = by_notation
        .iter()
        .find(|(n, _)| n.starts_with("d4-"))
        .expect("the infantry on d4 moves");
    assert_eq!(step.1[0], "pt-d4");
    assert_eq!(step.1[1], format!("pt-{}", &step.0[3..]));
}
