//! The notation policy (W12): case and blanks do not matter where nothing
//! is ambiguous, and every notation the game prints reads back verbatim.

use std::collections::BTreeMap;

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabletop_sdk::{DynGame, DynState, Move, Status, Transition, Viewer};

use crate::support::{FILLERS, game, play, position, position_with};

/// `text` reads as the same action as `canonical` for the side to move.
fn reads_as(state: &dyn DynState, text: &str, canonical: &str) {
    let seat = crate::support::seat(state);
    let expected = state.parse_action(seat, canonical).unwrap();
    let read = state
        .parse_action(seat, text)
        .unwrap_or_else(|e| panic!("`{text}` is refused: {}", e.message));
    assert_eq!(read, expected, "`{text}` reads as `{canonical}`");
}

#[test]
fn w12_points_directions_and_the_jump_read_in_either_case() {
    let captures = position("south", "I@b3 i@b4 A@c2 i@c4 C@d4");
    for text in ["B3XB5", "b3Xb5", "B3xb5"] {
        reads_as(captures.as_ref(), text, "b3xb5");
    }
    for text in ["c2!n", "C2!N"] {
        reads_as(captures.as_ref(), text, "c2!N");
    }
    let quiet = position("south", "C@d4 I@g2");
    for (text, canonical) in [
        ("D4-D5", "d4-d5"),
        ("d4-D6", "d4-d6"),
        ("=D5-d6", "=d5-d6"),
        ("#D6-D5", "#d5-d6"),
    ] {
        reads_as(quiet.as_ref(), text, canonical);
    }
    let setup = game().new_state(2, &BTreeMap::new(), None).unwrap();
    for text in ["i@1", "I@C1", "i@c1", "i"] {
        reads_as(setup.as_ref(), text, "I@1");
    }
}

#[test]
fn w12_start_numbers_are_read_as_printed() {
    // Roman numerals hold the jump's `x`: `XIXxXX` is a jump from XIX to XX
    // only as printed; in the other case it would be ambiguous.
    let jumps = position("north", "i@e9 I@d9");
    reads_as(jumps.as_ref(), "XXxXXII", "e9xc9");
    let e = jumps.parse_action(1, "xxxxxii").unwrap_err();
    assert!(e.message.contains("(W12)"), "{}", e.message);
    let setup = game().new_state(2, &BTreeMap::new(), None).unwrap();
    // `IIXI` is no jump between start numbers II and I.
    assert!(setup.parse_action(0, "IIXI").is_err());
}

#[test]
fn w12_blanks_around_and_inside_an_action_are_ignored() {
    let captures = position("south", "I@b3 i@b4 A@c2 i@c4 C@d4");
    for text in [" b3xb5 ", "b3 x b5", "\tb3  x\tb5\n"] {
        reads_as(captures.as_ref(), text, "b3xb5");
    }
    reads_as(captures.as_ref(), " c2 ! N ", "c2!N");
    let quiet = position("south", "C@d4 I@g2");
    for (text, canonical) in [
        (" d4 - d5 ", "d4-d5"),
        ("= d5 - d6", "=d5-d6"),
        ("  #d5-d6  ", "#d5-d6"),
    ] {
        reads_as(quiet.as_ref(), text, canonical);
    }
    let removal = position_with(
        "south",
        &format!("C@d4 {FILLERS}"),
        "tiles #d5-d6:south\nhand south 0 3 north 1 3",
    );
    reads_as(removal.as_ref(), " - d5 - d6 ", "-d5-d6");
    let setup = game().new_state(2, &BTreeMap::new(), None).unwrap();
    // A single placement with blanks is a layout of one placement.
    assert_eq!(
        setup.expand_notation(0, " I @ 1 ").unwrap(),
        Some(vec!["I@1".to_string()])
    );
}

/// Along random matches, every notation the game prints — the legal
/// actions, the events' actions, the tiles render_text lists — reads back
/// verbatim: an action to itself, a tile as War notation.
#[test]
fn w12_every_printed_notation_reads_back() {
    let mut rng = ChaCha8Rng::seed_from_u64(26);
    for options in [
        BTreeMap::new(),
        crate::support::options(&[("rail_tiles", "5")]),
    ] {
        let mut state = game().new_state(2, &options, None).unwrap();
        let mut tiles_seen = 0;
        while let Status::ToMove(set) = state.status().unwrap() {
            let seat = set.iter().next().unwrap();
            let mut legal = Vec::new();
            state.legal_actions(seat, &mut legal).unwrap();
            for &id in &legal {
                let text = state.action_to_string(seat, id).unwrap();
                assert_eq!(state.parse_action(seat, &text).unwrap(), id, "`{text}`");
            }
            // Tile actions first now and then, so tiles get on the board.
            let tile = legal.iter().rev().find(|&&id| {
                let text = state.action_to_string(seat, id).unwrap();
                text.starts_with('=') || text.starts_with('#')
            });
            let action = match tile {
                Some(&id) if rng.random_bool(0.2) => id,
                _ => *legal.choose(&mut rng).unwrap(),
            };
            let before = state.clone_state().unwrap();
            let moves = vec![Move {
                player: seat,
                action,
            }];
            state.apply(&moves).unwrap();
            let event: serde_json::Value = serde_json::from_str(
                &state
                    .event(
                        before.as_ref(),
                        &Transition::Moves(moves),
                        Viewer::Spectator,
                    )
                    .unwrap(),
            )
            .unwrap();
            let printed = event["moves"][0]["action"].as_str().unwrap();
            assert_eq!(before.parse_action(seat, printed).unwrap(), action);
            let text = state.render_text(Viewer::Spectator).unwrap();
            for line in text.lines() {
                let Some((_, tiles)) = line.split_once("tiles:") else {
                    continue;
                };
                for tile in tiles.split_whitespace() {
                    tiles_seen += 1;
                    let refusal = state.parse_action(seat, tile).err();
                    assert!(
                        refusal
                            .as_ref()
                            .is_none_or(|e| e.kind != tabletop_sdk::ErrorKind::InvalidNotation),
                        "`{tile}` does not read: {refusal:?}"
                    );
                }
            }
        }
        assert!(tiles_seen > 0, "the matches put tiles on the board");
    }
}

#[test]
fn w12_a_played_move_reads_back_from_the_text_that_named_it() {
    let mut state = position("south", "C@d4 I@g2");
    play(state.as_mut(), " D4 - D6 ");
    assert_eq!(
        crate::support::unit_at(state.as_ref(), "d6").as_deref(),
        Some("south cavalry")
    );
}
