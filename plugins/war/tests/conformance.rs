//! The SDK conformance kit, in-process and through the built cdylib, and the
//! two paths playing the same matches alike (`tabletop_sdk::kit_tests!`).

use std::collections::BTreeMap;

use tabletop_sdk::DynGame;
use tabletop_sdk::conformance::{Config, Summary};
use war::War;

use crate::support::options;

fn config(game: &dyn DynGame) -> Config {
    let mut config = Config::for_game(game);
    config.matches = 3;
    config.check_every = 37;
    config.resamples = 1;
    // A War match is long (48 placements, then up to 400 moves) and the
    // agreement compares every view at every step: one match per option set.
    config.agreement_matches = 1;
    config.option_sets = vec![
        BTreeMap::new(),
        options(&[("rail_tiles", "5"), ("max_turns", "60")]),
    ];
    config
}

fn check(_: &Config, summary: &Summary) {
    // Every match has the 48 placements of the setup (W3) before any move.
    assert!(summary.transitions > summary.matches * 48, "{summary:?}");
    // Refused ids and texts were asked about and explained (explain-refusal).
    assert!(summary.explained_refusals > 0, "{summary:?}");
    // Boards were drawn and every target found on them.
    assert!(summary.boards_drawn > 0, "{summary:?}");
    assert!(summary.targets_checked > 0, "{summary:?}");
}

tabletop_sdk::kit_tests! {
    game: War,
    plugin: "war",
    config: config,
    check: check,
}
