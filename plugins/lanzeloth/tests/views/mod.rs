//! The view is typed data serialised straight to text, its keys in the
//! alphabetical order a `serde_json::Value` prints them in, so a client
//! that re-serialises a view gets the host's text back. Checked along
//! random matches of several player counts and option sets, for every
//! viewer, before the end (face-down tiles hidden) and after it (shown).

use lanzeloth::{Lanzeloth, Position};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use tabletop_sdk::RemovePlayer;
use tabletop_sdk::{Game, Status, Viewer};

use crate::support::{apply, random_transition, setup, viewers};

/// Plays random matches and calls `check` on every state of them; now and
/// then a seat is taken out, so `out` is not always empty.
fn for_every_state_of_random_matches(mut check: impl FnMut(&Position, &[Viewer])) {
    let option_sets: [(u32, &[(&str, &str)]); 5] = [
        (2, &[]),
        (2, &[("esel", "forced"), ("scoring", "points")]),
        (3, &[("max_turns", "40")]),
        (4, &[("esel", "forced"), ("max_turns", "60")]),
        (6, &[]),
    ];
    let mut ended = 0;
    for (seed, (players, pairs)) in option_sets.iter().enumerate() {
        let mut rng = ChaCha8Rng::seed_from_u64(seed as u64);
        let mut state = Lanzeloth.new_state(&setup(*players, pairs)).unwrap();
        let seen_by = viewers(*players);
        for ply in 0..100_000u64 {
            check(&state, &seen_by);
            if Lanzeloth.status(&state) == Status::Terminal {
                ended += 1;
                break;
            }
            if ply == 30 && *players > 2 {
                let seat = rng.random_range(0..*players);
                Lanzeloth.remove_player(&mut state, seat).unwrap();
                continue;
            }
            let transition = random_transition(&state, &mut rng);
            apply(&mut state, &transition);
        }
    }
    assert_eq!(ended, option_sets.len(), "every match reached its end view");
}

#[test]
fn a_view_prints_as_its_value_prints_for_every_viewer() {
    for_every_state_of_random_matches(|state, viewers| {
        for &viewer in viewers {
            let text = serde_json::to_string(&Lanzeloth.view(state, viewer)).unwrap();
            let parsed: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(text, parsed.to_string(), "{viewer:?}");
        }
    });
}
