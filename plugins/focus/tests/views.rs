//! The host sends `view_json`, written straight from typed data; `view` is
//! the same data as a `Value`. Along random matches of every player
//! count and option set, both must say exactly the same for every viewer.

use focus::Focus;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabletop_sdk::serde_json::{self, Value};
use tabletop_sdk::{Game, Move, Setup, Status, Viewer, chance};

use crate::support::options;

fn assert_view_json_is_the_view(state: &focus::Position, players: u32) {
    let viewers = (0..players).map(Viewer::Seat).chain([Viewer::Spectator]);
    for viewer in viewers {
        let value = Focus.view(state, viewer);
        let text = Focus.view_json(state, viewer);
        let parsed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed, value, "{viewer:?}");
        // Same keys in the same order too, so clients see no difference at all.
        assert_eq!(text, value.to_string(), "{viewer:?}");
    }
}

#[test]
fn typed_view_json_is_exactly_the_value_view_for_every_viewer() {
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
            assert_view_json_is_the_view(&state, *players);
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
