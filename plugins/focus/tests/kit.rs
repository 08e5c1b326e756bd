//! The SDK conformance kit for 2, 3 and 4 players, in-process and through
//! the built cdylib loaded by engine-host's loader.

use std::collections::BTreeMap;

use focus::Focus;
use tabletop_loader::Plugin;
use tabletop_sdk::conformance::{self, Config};
use tabletop_sdk::{DynGame, InProcess};

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

fn run(game: &dyn DynGame, players: u32) -> conformance::Summary {
    let summary = conformance::run(game, &config(game, players)).unwrap_or_else(|f| panic!("{f}"));
    let sets = config(game, players).option_sets.len() as u64;
    assert_eq!(summary.matches, 3 * sets);
    // Focus declares removable_players: the kit also took seats out.
    assert!(summary.removals > 0, "{summary:?}");
    summary
}

fn plugin() -> std::sync::Arc<Plugin> {
    Plugin::load(&conformance::built_plugin_path("focus")).unwrap()
}

#[test]
fn kit_in_process_two_players() {
    let summary = run(&InProcess::new(Focus), 2);
    assert!(
        summary.chance_nodes >= 3,
        "the random swap is drawn: {summary:?}"
    );
}

#[test]
fn kit_in_process_three_players() {
    run(&InProcess::new(Focus), 3);
}

#[test]
fn kit_in_process_four_players() {
    run(&InProcess::new(Focus), 4);
}

#[test]
fn kit_through_the_plugin_two_players() {
    let plugin = plugin();
    assert_eq!(plugin.manifest().name, "focus");
    run(plugin.as_ref(), 2);
}

#[test]
fn kit_through_the_plugin_three_and_four_players() {
    let plugin = plugin();
    run(plugin.as_ref(), 3);
    run(plugin.as_ref(), 4);
}

/// The same moves give the same positions and views on both paths.
#[test]
fn plugin_and_in_process_agree_move_for_move() {
    let plugin = plugin();
    let local = InProcess::new(Focus);
    let games: [&dyn DynGame; 2] = [plugin.as_ref(), &local];
    let mut states: Vec<_> = games
        .iter()
        .map(|g| g.new_state(4, &BTreeMap::new(), None).unwrap())
        .collect();
    let mut legal = [Vec::new(), Vec::new()];
    for step in 0..300u64 {
        let status = states[0].status().unwrap();
        assert_eq!(status, states[1].status().unwrap());
        let tabletop_sdk::Status::ToMove(movers) = status else {
            break;
        };
        let p = movers.iter().next().unwrap();
        for (s, l) in states.iter().zip(legal.iter_mut()) {
            s.legal_actions(p, l).unwrap();
        }
        assert_eq!(legal[0], legal[1]);
        let action = legal[0][(step as usize * 31) % legal[0].len()];
        for s in &mut states {
            s.apply(&[tabletop_sdk::Move { player: p, action }])
                .unwrap();
        }
        assert_eq!(states[0].position().unwrap(), states[1].position().unwrap());
        assert_eq!(
            states[0].view(tabletop_sdk::Viewer::Spectator).unwrap(),
            states[1].view(tabletop_sdk::Viewer::Spectator).unwrap()
        );
    }
}
