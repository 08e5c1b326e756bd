//! The notation policy (README, *Notation*): every text the plugin prints —
//! the legal actions, the moves and opening swaps of events — reads back
//! to its action verbatim, and also in upper case with blanks around it and
//! its separators. Checked along random matches of every player count,
//! both opening swaps included.

use focus::{Focus, Move as FocusMove};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabletop_sdk::{Game, Move, Setup, Status, Transition, Viewer, chance};

use crate::support::options;

/// `text` as a careless typist writes it: upper case, blanks around the
/// text and around each separator.
fn sloppy(text: &str) -> String {
    let spaced = text
        .to_uppercase()
        .replace("<>", "  <>  ")
        .replace('-', " - ")
        .replace('*', "* ");
    format!("  {spaced}\t")
}

#[test]
fn every_printed_notation_reads_back_verbatim_and_in_any_case_and_spacing() {
    let option_sets = [
        (
            2,
            options(&[("max_turns", "60"), ("opening_swap", "chosen")]),
        ),
        (
            2,
            options(&[("max_turns", "60"), ("opening_swap", "random")]),
        ),
        (3, options(&[("max_turns", "80")])),
        (4, options(&[("max_turns", "80")])),
    ];
    let mut texts = 0;
    let mut legal = Vec::new();
    for (seed, (players, raw)) in option_sets.iter().enumerate() {
        let mut rng = ChaCha8Rng::seed_from_u64(seed as u64);
        let setup = Setup::validate(&Focus.manifest(), *players, raw).unwrap();
        let mut state = Focus.new_state(&setup).unwrap();
        for ply in 0..1000u64 {
            let before = state.clone();
            let transition = match Focus.status(&state) {
                Status::Terminal => break,
                Status::Chance => {
                    let outcome = chance::draw(&Focus.chance(&state), seed as u64, ply).unwrap();
                    Focus.apply_chance(&mut state, outcome).unwrap();
                    Transition::Chance(outcome)
                }
                Status::ToMove(movers) => {
                    let player = movers.first().unwrap();
                    Focus.legal_actions(&state, player, &mut legal);
                    for &action in &legal {
                        let text = Focus.action_to_string(&state, player, action).unwrap();
                        for written in [text.clone(), sloppy(&text)] {
                            assert_eq!(
                                Focus.parse_action(&state, player, &written),
                                Ok(action),
                                "`{written}`"
                            );
                            texts += 1;
                        }
                    }
                    let action = legal[rng.random_range(0..legal.len())];
                    let moves = vec![Move { player, action }];
                    Focus.apply(&mut state, &moves).unwrap();
                    Transition::Moves(moves)
                }
            };
            let event = Focus.event(&before, &transition, &state, Viewer::Spectator);
            match &transition {
                Transition::Moves(moves) => {
                    let text = event["moves"][0]["action"].as_str().unwrap();
                    assert_eq!(
                        Focus.parse_action(&before, moves[0].player, text),
                        Ok(moves[0].action),
                        "the event's `{text}`"
                    );
                }
                Transition::Chance(outcome) => {
                    // The random swap is nobody's action, but its text
                    // reads as the swap it was.
                    let text = event["opening_swap"].as_str().unwrap();
                    let read = FocusMove::parse(text).unwrap();
                    assert_eq!(read.id(), focus::SWAP_BASE + outcome, "`{text}`");
                }
            }
        }
    }
    assert!(texts > 1000, "{texts}");
}
