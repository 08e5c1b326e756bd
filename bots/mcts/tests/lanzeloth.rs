//! The search in Lanzeloth: the bot sees only its own seat's view (two
//! worlds that differ only in hidden tiles get the same action), and it
//! plays whole matches of two and six players.

mod support;

use std::collections::BTreeSet;

use tabletop_mcts::Bot;
use tabletop_sdk::{InProcess, Viewer};

/// Small tile sets, so matches reach decisions quickly.
const SMALL: &[(&str, &str)] = &[("max_number", "12"), ("copies", "3")];

#[test]
fn worlds_that_differ_only_in_what_the_seat_cannot_see_get_the_same_action() {
    let game = InProcess::new(lanzeloth::Lanzeloth);
    let bot = Bot::from_spec("mcts:300").unwrap();
    let mut spread = 0;
    for (players, plies) in [(2, 6), (3, 9), (4, 12), (3, 20), (2, 30)] {
        let (real, seat) = support::midgame(&game, players, SMALL, plies, plies.into());
        let other = real.resample(Viewer::Seat(seat), 99).unwrap();
        assert_ne!(
            other.position().unwrap(),
            real.position().unwrap(),
            "the two worlds differ in hidden tiles"
        );
        assert_eq!(
            other.view(Viewer::Seat(seat)).unwrap(),
            real.view(Viewer::Seat(seat)).unwrap(),
            "the seat cannot tell them apart"
        );
        for bot_seed in [7, 8] {
            let here = bot.think(real.as_ref(), players, seat, bot_seed).unwrap();
            let there = bot.think(other.as_ref(), players, seat, bot_seed).unwrap();
            let context = format!("{players} players after {plies}, seed {bot_seed}");
            assert_eq!(here.action, there.action, "{context}");
            // Not only the action: the whole search went the same way.
            assert_eq!(here.visits, there.visits, "{context}");
            assert_eq!(here.nodes, there.nodes, "{context}");
            spread += usize::from(here.visits.iter().filter(|v| v.1 > 0).count() > 1);
        }
    }
    assert!(spread > 0, "the searches weighed several actions");
}

#[test]
fn an_iteration_budget_gives_the_same_choice_for_the_same_seed() {
    support::assert_reproducible(&InProcess::new(lanzeloth::Lanzeloth), 4, "mcts:150");
}

#[test]
fn bots_finish_matches_of_two_and_six_players() {
    let game = InProcess::new(lanzeloth::Lanzeloth);
    let mut lengths = BTreeSet::new();
    for players in [2, 6] {
        let options = [SMALL, &[("max_turns", "40")]].concat();
        lengths.insert(support::play_to_the_end(&game, players, &options, 5));
    }
    assert!(lengths.iter().all(|&n| n > 0));
}
