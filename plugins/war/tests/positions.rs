//! Position texts: the tile totals follow the match's `rail_tiles` (W3),
//! errors name seats as `seat 0 (South)`, and every example position of the
//! README parses.

use std::collections::BTreeMap;

use tabletop_sdk::{DynGame, ErrorKind, conformance};

use crate::support::{FILLERS, game, options};

fn rail(n: &str) -> BTreeMap<String, String> {
    options(&[("rail_tiles", n)])
}

/// The message refusing `text` under `options`.
fn refused(options: &BTreeMap<String, String>, text: &str) -> String {
    let e = game()
        .new_state(2, options, Some(text))
        .err()
        .unwrap_or_else(|| panic!("accepted: {text}"));
    assert_eq!(e.kind, ErrorKind::InvalidPosition, "{}", e.message);
    e.message
}

#[test]
fn w3_railway_tile_totals_follow_the_rail_tiles_option() {
    let five = format!("units I@d4 {FILLERS}\nhand south 1 5 north 1 5");
    let three = format!("units I@d4 {FILLERS}\nhand south 1 3 north 1 3");
    // Each is valid under its own option...
    game().new_state(2, &rail("5"), Some(&five)).unwrap();
    game().new_state(2, &rail("3"), Some(&three)).unwrap();
    // ...and refused under the other, with the option named.
    for options in [BTreeMap::new(), rail("3")] {
        let message = refused(&options, &five);
        assert!(
            message.contains("10 railway tiles in all")
                && message.contains("rail_tiles = 3 there are 6"),
            "{message}"
        );
    }
    let message = refused(&rail("5"), &three);
    assert!(
        message.contains("6 railway tiles in all")
            && message.contains("rail_tiles = 5 there are 10"),
        "{message}"
    );
    // Tiles on the board count with the hands.
    let on_board =
        format!("units I@d4 {FILLERS}\ntiles =d5-d6:south =c5-d5:north\nhand south 1 4 north 1 4");
    game().new_state(2, &rail("5"), Some(&on_board)).unwrap();
    assert!(refused(&rail("3"), &on_board).contains("10 railway tiles"));
    // Without a `hand` line the hands are the option's.
    let bare = format!("units I@d4 {FILLERS}");
    for n in ["3", "5"] {
        let state = game().new_state(2, &rail(n), Some(&bare)).unwrap();
        assert!(
            state
                .position()
                .unwrap()
                .contains(&format!("hand south 1 {n} north 1 {n}"))
        );
    }
}

#[test]
fn w3_a_matchs_own_position_reads_back_only_under_its_option() {
    for (own, other) in [("3", "5"), ("5", "3")] {
        let state = game().new_state(2, &rail(own), None).unwrap();
        let text = state.position().unwrap();
        game().new_state(2, &rail(own), Some(&text)).unwrap();
        let message = refused(&rail(other), &text);
        assert!(
            message.contains(&format!("rail_tiles = {other}")),
            "{message}"
        );
    }
}

#[test]
fn position_errors_name_seats_as_the_api_and_the_game_do() {
    let cannons = format!("units A@a2 A@b2 A@c2 {FILLERS}");
    let message = refused(&BTreeMap::new(), &cannons);
    assert!(
        message.contains("seat 0 (South) has more than 2 cannons"),
        "{message}"
    );
    let won = "to-move south\nunits I@c12 I@d12 I@e12 I@a2 i@a9 i@b9 i@g9";
    let message = refused(&BTreeMap::new(), won);
    assert!(
        message.contains("seat 0 (South) has already won"),
        "{message}"
    );
    // A hostile input is quoted in part.
    let long = format!("units I@{}", "z".repeat(5000));
    assert!(refused(&BTreeMap::new(), &long).len() < 300);
}

#[test]
fn position_errors_name_unknown_points_before_counts() {
    // Too many cannons and an unknown point: the point is named.
    let text = format!("units A@a2 A@b2 A@c2 I@z9 {FILLERS}");
    let message = refused(&BTreeMap::new(), &text);
    assert!(message.contains("unknown point `z9`"), "{message}");
}

#[test]
fn every_example_position_in_the_readme_parses() {
    let readme = include_str!("../README.md");
    let count = conformance::check_readme_positions(&game(), readme)
        .unwrap_or_else(|f| panic!("{}", f.message));
    assert!(count >= 3, "{count} example positions");
}
