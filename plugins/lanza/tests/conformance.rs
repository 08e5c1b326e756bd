//! The SDK conformance kit for 2, 3 and 4 players, in-process and through the
//! built cdylib loaded by engine-host's real loader.

use std::collections::BTreeMap;

use lanza::Lanza;
use tabletop_loader::Plugin;
use tabletop_sdk::conformance::{self, Config, Summary};
use tabletop_sdk::{DynGame, InProcess};

fn config(game: &dyn DynGame, matches: u32, check_every: u64) -> Config {
    let mut config = Config::for_game(game);
    assert_eq!(config.player_counts, vec![2, 3, 4]);
    config.matches = matches;
    config.check_every = check_every;
    // Lanza's states hide nothing, so resampling only proves the clone is equal.
    config.resamples = 1;
    // A short turn limit too, so ruling L12's ending is reached in some matches.
    let mut short = BTreeMap::new();
    short.insert("max_turns".to_string(), "4".to_string());
    config.option_sets = vec![BTreeMap::new(), short];
    config
}

fn check(summary: &Summary, matches: u64) {
    assert_eq!(summary.matches, matches);
    assert!(summary.simultaneous_turns > 0, "{summary:?}");
    // Setup plus re-entry draws: more chance nodes than matches.
    assert!(summary.chance_nodes > summary.matches, "{summary:?}");
    // Lanza declares removable_players, so the kit also takes seats out.
    assert!(summary.removals > 0, "{summary:?}");
}

#[test]
fn kit_in_process_for_2_3_4_players() {
    let game = InProcess::new(Lanza);
    let summary = conformance::run(&game, &config(&game, 6, 3)).unwrap();
    check(&summary, 3 * 2 * 6);
}

#[test]
fn kit_through_the_loaded_plugin() {
    let plugin = Plugin::load(&conformance::built_plugin_path("lanza")).unwrap();
    assert_eq!(plugin.manifest().name, "lanza");
    let summary = conformance::run(plugin.as_ref(), &config(plugin.as_ref(), 3, 5)).unwrap();
    check(&summary, 3 * 2 * 3);
}

#[test]
fn plugin_and_in_process_play_identical_matches() {
    let plugin = Plugin::load(&conformance::built_plugin_path("lanza")).unwrap();
    let local = InProcess::new(Lanza);
    for players in 2..=4 {
        let mut a = plugin.new_state(players, &BTreeMap::new(), None).unwrap();
        let mut b = local.new_state(players, &BTreeMap::new(), None).unwrap();
        let mut legal = Vec::new();
        for step in 0..200u64 {
            assert_eq!(a.position().unwrap(), b.position().unwrap(), "step {step}");
            let before_a = a.clone_state().unwrap();
            let before_b = b.clone_state().unwrap();
            let transition = match a.status().unwrap() {
                tabletop_sdk::Status::Terminal => break,
                tabletop_sdk::Status::Chance => {
                    let chance = a.chance().unwrap();
                    assert_eq!(chance, b.chance().unwrap());
                    tabletop_sdk::Transition::Chance(
                        tabletop_sdk::chance::draw(&chance, 5, step).unwrap(),
                    )
                }
                tabletop_sdk::Status::ToMove(movers) => {
                    let moves = movers
                        .iter()
                        .map(|p| {
                            a.legal_actions(p, &mut legal).unwrap();
                            let action = legal[(step as usize * 7 + p as usize * 13) % legal.len()];
                            tabletop_sdk::Move { player: p, action }
                        })
                        .collect();
                    tabletop_sdk::Transition::Moves(moves)
                }
            };
            match &transition {
                tabletop_sdk::Transition::Chance(o) => {
                    a.apply_chance(*o).unwrap();
                    b.apply_chance(*o).unwrap();
                }
                tabletop_sdk::Transition::Moves(m) => {
                    a.apply(m).unwrap();
                    b.apply(m).unwrap();
                }
            }
            let viewer = tabletop_sdk::Viewer::Spectator;
            assert_eq!(
                a.event(before_a.as_ref(), &transition, viewer).unwrap(),
                b.event(before_b.as_ref(), &transition, viewer).unwrap()
            );
            assert_eq!(
                a.render_text(viewer).unwrap(),
                b.render_text(viewer).unwrap()
            );
        }
    }
}
