//! The search in Focus: it takes an immediate win, its choice is
//! reproducible, it refuses a seat that is not to move, and it plays whole
//! matches of two and four players (seats going out, teams).

mod support;

use std::collections::BTreeMap;

use tabletop_mcts::Bot;
use tabletop_sdk::{DynGame, DynState, ErrorKind, InProcess};

/// Two-player Focus where each side has one piece left, `1` on d5 and `2`
/// on d4, player `to_move` (1 or 2) to move: moving onto the other piece
/// leaves the other player nothing to move, so they are out and the mover
/// wins (F7). Every other move lets the game go on.
fn last_pieces(to_move: u32) -> Box<dyn DynState> {
    let text = format!(
        ".,.,.,./.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,1,.,.,.,./.,.,.,2,.,.,.,./\
         .,.,.,.,.,.,.,./.,.,.,.,.,./.,.,.,. {to_move} reserves=0,0 \
         captures=0,17/17,0 removed=17,17"
    );
    InProcess::new(focus::Focus)
        .new_state(2, &BTreeMap::new(), Some(&text))
        .unwrap()
}

#[test]
fn the_search_takes_an_immediate_win_for_either_seat() {
    let bot = Bot::from_spec("mcts:200").unwrap();
    for (seat, win) in [(0, "d5-d4"), (1, "d4-d5")] {
        let state = last_pieces(seat + 1);
        let legal = support::legal(state.as_ref(), seat);
        assert!(legal.len() >= 4, "the winning move is one of several");
        let winning = state.parse_action(seat, win).unwrap();
        for seed in 0..5 {
            let chosen = bot.choose(state.as_ref(), 2, seat, seed).unwrap();
            assert_eq!(chosen, winning, "seat {seat}, seed {seed}");
        }
    }
}

#[test]
fn an_iteration_budget_gives_the_same_choice_for_the_same_seed() {
    support::assert_reproducible(&InProcess::new(focus::Focus), 3, "mcts:150");
}

#[test]
fn a_seat_that_is_not_to_move_is_refused() {
    let state = last_pieces(1);
    let bot = Bot::from_spec("mcts:10").unwrap();
    let refused = bot.choose(state.as_ref(), 2, 1, 0).unwrap_err();
    assert_eq!(refused.kind, ErrorKind::NotYourTurn, "{refused}");
    let refused = bot.choose(state.as_ref(), 2, 5, 0).unwrap_err();
    assert_eq!(refused.kind, ErrorKind::NotYourTurn, "{refused}");
    assert!(refused.message.contains("seat 5"), "{refused}");
}

#[test]
fn bots_finish_matches_of_two_and_four_players() {
    let game = InProcess::new(focus::Focus);
    for players in [2, 4] {
        assert!(support::play_to_the_end(&game, players, &[("max_turns", "30")], 5) > 0);
    }
}
