//! The SDK conformance kit for 2, 3 and 4 players, in-process and through
//! the built cdylib, and the two paths playing the same matches alike: one
//! module of tests per player count, written by `tabletop_sdk::kit_tests!`.

use focus::Focus;
use tabletop_sdk::DynGame;
use tabletop_sdk::conformance::{Config, Summary};

use crate::support::options;

/// Every option combination that applies, with turn limits short enough
/// for a debug build (random Focus games rarely end before the limit).
fn config(game: &dyn DynGame, players: u32) -> Config {
    let mut config = Config::for_game(game);
    config.player_counts = vec![players];
    config.option_sets = match players {
        2 => vec![
            options(&[("max_turns", "120")]),
            options(&[
                ("max_turns", "60"),
                ("symmetry_rule", "true"),
                ("opening_swap", "random"),
            ]),
            options(&[("max_turns", "60"), ("opening_swap", "chosen")]),
        ],
        3 => vec![options(&[("max_turns", "200")])],
        _ => vec![options(&[("max_turns", "160"), ("team_talk", "true")])],
    };
    // Chance is the random opening swap (F9), a two-player option only.
    config.claims_to_meet.chance = players == 2;
    config.matches = 3;
    config.check_every = 7;
    config.resamples = 1;
    config
}

fn check(config: &Config, summary: &Summary) {
    // Focus declares removable_players: the kit also took seats out.
    assert!(summary.removals > 0, "{summary:?}");
    // Focus explains its refusals: the kit asked, and every one was specific.
    assert!(summary.explained_refusals > 0, "{summary:?}");
    // Boards were drawn and every target found on them.
    assert!(summary.boards_drawn > 0, "{summary:?}");
    assert!(summary.targets_checked > 0, "{summary:?}");
    if config.player_counts == [2] {
        assert!(
            summary.chance_nodes >= 3,
            "the random swap is drawn: {summary:?}"
        );
    }
}

tabletop_sdk::kit_tests! {
    game: Focus,
    plugin: "focus",
    configs: {
        two_players => |game| config(game, 2),
        three_players => |game| config(game, 3),
        four_players => |game| config(game, 4),
    },
    check: check,
}

/// The kit's plugin tests run this build's cdylib, and a file of another
/// build is refused: here every candidate is judged against the fingerprint
/// of another type, as a stale file's would differ from this build's.
#[test]
fn the_built_plugin_is_this_builds_and_another_builds_is_refused() {
    use tabletop_sdk::conformance::open_built_plugin;
    use tabletop_sdk::fingerprint::BuildFingerprint;

    let plugin = open_built_plugin("focus", &BuildFingerprint::of::<Focus>()).unwrap();
    assert_eq!(
        plugin.build_fingerprint(),
        Some(&BuildFingerprint::of::<Focus>()),
        "the cdylib exports the fingerprint of the game linked into this test"
    );
    struct AnotherBuild;
    let refused = open_built_plugin("focus", &BuildFingerprint::of::<AnotherBuild>()).unwrap_err();
    let this_build = BuildFingerprint::of::<Focus>();
    assert!(
        refused.contains(&format!("libfocus.so is of another build ({this_build})")),
        "{refused}"
    );
    assert!(refused.contains("AnotherBuild"), "{refused}");
}
