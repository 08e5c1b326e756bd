//! The search in Lanza, where every seat orders at once (decoupled UCT) and
//! chance shuffles the re-entering pieces.

mod support;

use tabletop_mcts::Bot;
use tabletop_sdk::{InProcess, Status};

#[test]
fn the_bot_orders_for_its_own_seat_in_a_simultaneous_turn() {
    let game = InProcess::new(lanza::Lanza);
    let (state, _) = support::midgame(&game, 3, &[], 1, 1);
    let Status::ToMove(movers) = state.status().unwrap() else {
        panic!("a turn of orders");
    };
    assert_eq!(movers.len(), 3, "every seat orders at once");
    let bot = Bot::from_spec("mcts:100").unwrap();
    for seat in movers.iter() {
        let action = bot.choose(state.as_ref(), 3, seat, 4).unwrap();
        assert!(support::legal(state.as_ref(), seat).contains(&action));
    }
}

#[test]
fn an_iteration_budget_gives_the_same_choice_for_the_same_seed() {
    support::assert_reproducible(&InProcess::new(lanza::Lanza), 2, "mcts:150");
}

#[test]
fn bots_finish_matches_of_two_and_four_players() {
    let game = InProcess::new(lanza::Lanza);
    for players in [2, 4] {
        assert!(support::play_to_the_end(&game, players, &[("max_turns", "15")], 5) > 0);
    }
}
