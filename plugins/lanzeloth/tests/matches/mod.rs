//! Random matches of 2–6 players end, by a win or the turn limit (Z9, Z10),
//! and never lose or invent a tile.

use lanzeloth::{Lanzeloth, Phase, Position};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tabletop_sdk::{Game, Status};

use crate::support::{apply, random_transition, setup};

/// Every tile of the set, wherever it is.
fn inventory(p: &Position) -> Vec<u8> {
    let n = p.rules().players;
    let mut all: Vec<u8> = (0..n)
        .flat_map(|q| {
            p.face_down(q)
                .iter()
                .map(|t| t.number)
                .chain(p.open(q).iter().copied())
                .collect::<Vec<_>>()
        })
        .chain(p.removed().iter().copied())
        .chain(p.middle().iter().flat_map(|&top| 1..=top))
        .chain(p.hand().map(|h| h.0))
        .collect();
    all.sort_unstable();
    all
}

fn play_out(players: u32, esel: &str, max_turns: u32, seed: u64) -> Position {
    let max = max_turns.to_string();
    let mut state = Lanzeloth
        .new_state(&setup(players, &[("esel", esel), ("max_turns", &max)]))
        .unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let full: Vec<u8> = (1..=20).flat_map(|t| [t; 6]).collect();
    // A turn reveals at least one tile, and each further action within a turn
    // gives a tile away or ends it: a generous bound on transitions.
    let bound = 2 + u64::from(max_turns) * (1 + 2 * 120);
    for _ in 0..bound {
        if Lanzeloth.status(&state) == Status::Terminal {
            return state;
        }
        let t = random_transition(&state, &mut rng);
        apply(&mut state, &t);
        if state.phase() != Phase::Deal {
            assert_eq!(inventory(&state), full, "a tile was lost or invented");
        }
        if esel == "forced" {
            assert_eq!(
                state.donkey(),
                None,
                "nobody becomes the donkey in forced mode"
            );
        }
    }
    panic!("the match did not end");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn random_matches_end_by_a_win_or_the_turn_limit(
        players in 2u32..=6,
        forced in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let state = play_out(players, if forced { "forced" } else { "penalty" }, 400, seed);
        let results = state.results();
        prop_assert_eq!(results.len(), players as usize);
        match state.phase() {
            Phase::Over { winner: Some(w) } => {
                prop_assert_eq!(state.tiles_held(w), 0);
                prop_assert_eq!(results.iter().filter(|r| r.rank == 1).count(), 1);
                prop_assert_eq!(results[w as usize].rank, 1);
            }
            Phase::Over { winner: None } => {
                prop_assert!(state.reveals() >= 400);
                prop_assert!(results.iter().any(|r| r.rank == 1));
            }
            other => prop_assert!(false, "not over: {:?}", other),
        }
    }
}

#[test]
fn matches_with_the_default_limit_end_too() {
    for players in 2..=6 {
        for esel in ["penalty", "forced"] {
            let state = play_out(players, esel, 2000, u64::from(players) * 31);
            assert!(matches!(state.phase(), Phase::Over { .. }));
        }
    }
}
