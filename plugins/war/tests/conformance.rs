//! The SDK conformance kit, in-process and through the built cdylib.

use std::collections::BTreeMap;

use tabletop_loader::Plugin;
use tabletop_sdk::conformance::{self, Config};
use tabletop_sdk::{DynGame, InProcess};
use war::War;

use crate::support::options;

fn config(game: &dyn DynGame) -> Config {
    let mut config = Config::for_game(game);
    config.matches = 3;
    config.check_every = 37;
    config.resamples = 1;
    config.option_sets = vec![
        BTreeMap::new(),
        options(&[("rail_tiles", "5"), ("max_turns", "60")]),
    ];
    config
}

#[test]
fn conformance_in_process() {
    let game = InProcess::new(War);
    let summary = conformance::run(&game, &config(&game)).unwrap();
    assert_eq!(summary.matches, 6);
    // Every match has the 48 placements of the setup (W3) before any move.
    assert!(summary.transitions > 6 * 48, "{summary:?}");
}

#[test]
fn conformance_through_the_cdylib() {
    let plugin = Plugin::load(&conformance::built_plugin_path("war")).unwrap();
    let summary = conformance::run(plugin.as_ref(), &config(plugin.as_ref())).unwrap();
    assert_eq!(summary.matches, 6);
}
