//! The SDK conformance kit for 2, 3 and 4 players, in-process and through the
//! built cdylib loaded by engine-host's real loader, and the two paths
//! playing the same matches alike (`tabletop_sdk::kit_tests!`).

use std::collections::BTreeMap;

use lanza::Lanza;
use tabletop_sdk::DynGame;
use tabletop_sdk::conformance::{Config, Summary};

fn config(game: &dyn DynGame) -> Config {
    let mut config = Config::for_game(game);
    assert_eq!(config.player_counts, vec![2, 3, 4]);
    config.matches = 4;
    config.check_every = 4;
    // Lanza's states hide nothing, so resampling only proves the clone is equal.
    config.resamples = 1;
    // A short turn limit too, so ruling L12's ending is reached in some matches.
    let mut short = BTreeMap::new();
    short.insert("max_turns".to_string(), "4".to_string());
    config.option_sets = vec![BTreeMap::new(), short];
    config
}

fn check(_: &Config, summary: &Summary) {
    // Setup plus re-entry draws: more chance nodes than matches.
    assert!(summary.chance_nodes > summary.matches, "{summary:?}");
    // Lanza declares removable_players, so the kit also takes seats out.
    assert!(summary.removals > 0, "{summary:?}");
    // Lanza explains every refusal, so the kit asked about refused ids and texts.
    assert!(summary.explained_refusals > 0, "{summary:?}");
    // Boards were drawn and every target found on them.
    assert!(summary.boards_drawn > 0, "{summary:?}");
    assert!(summary.targets_checked > 0, "{summary:?}");
}

tabletop_sdk::kit_tests! {
    game: Lanza,
    plugin: "lanza",
    config: config,
    check: check,
}
