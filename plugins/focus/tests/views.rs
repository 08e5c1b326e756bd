//! The view is typed data serialised straight to text, its keys in the
//! alphabetical order a `serde_json::Value` prints them in, so a client
//! that re-serialises a view gets the host's text back. Checked along
//! random matches of every player count and option set, for every viewer.

use focus::Focus;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabletop_sdk::serde_json::{self, Value};
use tabletop_sdk::{Game, Move, Setup, Status, Viewer, chance};

use crate::support::options;

fn assert_view_keys_are_in_value_order(state: &focus::Position, players: u32) {
    let viewers = (0..players).map(Viewer::Seat).chain([Viewer::Spectator]);
    for viewer in viewers {
        let text = serde_json::to_string(&Focus.view(state, viewer)).unwrap();
        let parsed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(text, parsed.to_string(), "{viewer:?}");
    }
}

#[test]
fn a_view_prints_as_its_value_prints_for_every_viewer() {
    let option_sets = [
        (
            2,
            options(&[("max_turns", "80"), ("opening_swap", "random")]),
        ),
        (
            2,
            options(&[
                ("max_turns", "60"),
                ("symmetry_rule", "true"),
                ("opening_swap", "chosen"),
            ]),
        ),
        (3, options(&[("max_turns", "120")])),
        (4, options(&[("max_turns", "120"), ("team_talk", "true")])),
    ];
    let mut ended = 0;
    let mut legal = Vec::new();
    for (seed, (players, raw)) in option_sets.iter().enumerate() {
        let mut rng = ChaCha8Rng::seed_from_u64(seed as u64);
        let setup = Setup::validate(&Focus.manifest(), *players, raw).unwrap();
        let mut state = Focus.new_state(&setup).unwrap();
        for ply in 0..1000u64 {
            assert_view_keys_are_in_value_order(&state, *players);
            match Focus.status(&state) {
                Status::Terminal => {
                    ended += 1;
                    break;
                }
                Status::Chance => {
                    let outcome = chance::draw(&Focus.chance(&state), seed as u64, ply).unwrap();
                    Focus.apply_chance(&mut state, outcome).unwrap();
                }
                Status::ToMove(movers) => {
                    let moves: Vec<Move> = movers
                        .iter()
                        .map(|player| {
                            Focus.legal_actions(&state, player, &mut legal);
                            let action = legal[rng.random_range(0..legal.len())];
                            Move { player, action }
                        })
                        .collect();
                    Focus.apply(&mut state, &moves).unwrap();
                }
            }
        }
    }
    assert_eq!(ended, option_sets.len(), "every match reached its end view");
}
