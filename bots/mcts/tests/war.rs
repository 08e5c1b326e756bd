//! The search in War: setup placements, then moves.

mod support;

use tabletop_sdk::InProcess;

#[test]
fn an_iteration_budget_gives_the_same_choice_for_the_same_seed() {
    support::assert_reproducible(&InProcess::new(war::War), 2, "mcts:150");
}

#[test]
fn bots_finish_a_match() {
    let game = InProcess::new(war::War);
    assert!(support::play_to_the_end(&game, 2, &[("max_turns", "20")], 5) > 48);
}
