//! The SDK conformance kit, in-process and through the built cdylib, for every
//! player count and both Esel modes (ruling Z7), and the two paths playing
//! the same matches alike (`tabletop_sdk::kit_tests!`).

use lanzeloth::Lanzeloth;
use tabletop_sdk::conformance::{Config, Summary, check_readme_positions};
use tabletop_sdk::{DynGame, InProcess};

use crate::support::options;

fn config(game: &dyn DynGame) -> Config {
    let mut config = Config::for_game(game);
    assert_eq!(config.player_counts, vec![2, 3, 4, 5, 6]);
    config.matches = 2;
    config.resamples = 2;
    config.check_every = 3;
    // A short turn limit keeps debug runs fast; the small set makes wins
    // (rather than the limit) common, so both endings are exercised.
    config.option_sets = vec![
        options(&[("esel", "penalty"), ("max_turns", "120")]),
        options(&[("esel", "forced"), ("max_turns", "120")]),
        options(&[
            ("esel", "penalty"),
            ("max_number", "6"),
            ("copies", "2"),
            ("scoring", "points"),
        ]),
        options(&[
            ("esel", "forced"),
            ("max_number", "5"),
            ("copies", "3"),
            ("first_player", "2"),
        ]),
    ];
    config
}

fn check(_: &Config, summary: &Summary) {
    assert!(summary.chance_nodes >= summary.matches, "{summary:?}");
    // Lanzeloth declares removable_players, so the kit also takes seats out.
    assert!(summary.removals > 0, "{summary:?}");
    // Lanzeloth explains its refusals, so the kit asked about some.
    assert!(summary.explained_refusals > 0, "{summary:?}");
    // Boards were drawn and every target found on them.
    assert!(summary.boards_drawn > 0, "{summary:?}");
    assert!(summary.targets_checked > 0, "{summary:?}");
}

tabletop_sdk::kit_tests! {
    game: Lanzeloth,
    plugin: "lanzeloth",
    config: config,
    check: check,
}

#[test]
fn manifest_declares_every_option() {
    let game = InProcess::new(Lanzeloth);
    let m = game.manifest();
    for name in [
        "max_number",
        "copies",
        "esel",
        "scoring",
        "max_turns",
        "first_player",
    ] {
        assert!(m.option(name).is_some(), "missing option {name}");
    }
    assert!(m.hidden_information && m.chance && !m.simultaneous);
    assert_eq!((m.min_players, m.max_players), (2, 6));
}

#[test]
fn every_example_position_in_the_readme_parses() {
    let game = InProcess::new(Lanzeloth);
    let count = check_readme_positions(&game, include_str!("../../README.md"))
        .unwrap_or_else(|failure| panic!("{}", failure.message));
    assert!(count >= 3, "the README shows {count} example positions");
}
