//! The view is typed data serialised straight to text, its keys in the
//! alphabetical order a `serde_json::Value` prints them in, so a client
//! that re-serialises a view gets the host's text back. Checked along
//! random matches of every player count, for every viewer.

use std::collections::BTreeMap;
use tabletop_sdk::RemovePlayer;

use lanza::Lanza;
use lanza::position::Position;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabletop_sdk::serde_json::{self, Value};
use tabletop_sdk::{Game, Move, Setup, Status, Viewer, chance};

/// Plays random matches (2, 3 and 4 players, default and short turn limits,
/// a seat taken out now and then) and calls `check` on every state.
fn for_every_state_of_random_matches(mut check: impl FnMut(&Position, u32)) {
    let mut ended = 0;
    let mut legal = Vec::new();
    let mut matches = 0;
    for players in 2..=4u32 {
        for max_turns in [None, Some("6")] {
            for seed in 0..3u64 {
                matches += 1;
                let mut rng = ChaCha8Rng::seed_from_u64(seed * 10 + u64::from(players));
                let mut raw = BTreeMap::new();
                if let Some(limit) = max_turns {
                    raw.insert("max_turns".to_string(), limit.to_string());
                }
                let setup = Setup::validate(&Lanza.manifest(), players, &raw).unwrap();
                let mut state = Lanza.new_state(&setup).unwrap();
                for ply in 0..2000u64 {
                    check(&state, players);
                    if ply == 5 && seed == 1 && players > 2 {
                        let seat = rng.random_range(0..players);
                        Lanza.remove_player(&mut state, seat).unwrap();
                        continue;
                    }
                    match Lanza.status(&state) {
                        Status::Terminal => {
                            ended += 1;
                            break;
                        }
                        Status::Chance => {
                            let outcome = chance::draw(&Lanza.chance(&state), seed, ply).unwrap();
                            Lanza.apply_chance(&mut state, outcome).unwrap();
                        }
                        Status::ToMove(movers) => {
                            let moves: Vec<Move> = movers
                                .iter()
                                .map(|player| {
                                    Lanza.legal_actions(&state, player, &mut legal);
                                    let action = legal[rng.random_range(0..legal.len())];
                                    Move { player, action }
                                })
                                .collect();
                            Lanza.apply(&mut state, &moves).unwrap();
                        }
                    }
                }
            }
        }
    }
    assert_eq!(ended, matches, "every match reached its end view");
}

#[test]
fn a_view_prints_as_its_value_prints_for_every_viewer() {
    for_every_state_of_random_matches(|state, players| {
        let viewers = (0..players).map(Viewer::Seat).chain([Viewer::Spectator]);
        for viewer in viewers {
            let text = serde_json::to_string(&Lanza.view(state, viewer)).unwrap();
            let parsed: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(text, parsed.to_string(), "{viewer:?}");
        }
    });
}
