//! The notation policy (README, *Notation*): texts read case-insensitively,
//! blanks around a text and repeated blanks (or commas) between the words of
//! orders are ignored, and every notation the plugin prints — legal actions,
//! events, the text rendering, the README's example positions — reads back.

use std::collections::BTreeMap;

use lanza::Lanza;
use lanza::position::Position;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabletop_sdk::conformance::check_readme_positions;
use tabletop_sdk::{Game, InProcess, Move, Player, Setup, Status, Transition, Viewer, chance};

/// Plays seeded random matches of 2, 3 and 4 players and calls `decision`
/// before every joint action and `transition` after each applied one.
fn play_random_matches(
    mut decision: impl FnMut(&Position, &[Player]),
    mut transition: impl FnMut(&Position, &[Move], &Position),
) {
    let mut legal = Vec::new();
    for players in 2..=4u32 {
        for seed in 0..2u64 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed * 10 + u64::from(players));
            let mut raw = BTreeMap::new();
            raw.insert("max_turns".to_string(), "8".to_string());
            let setup = Setup::validate(&Lanza.manifest(), players, &raw).unwrap();
            let mut state = Lanza.new_state(&setup).unwrap();
            for ply in 0..500u64 {
                match Lanza.status(&state) {
                    Status::Terminal => break,
                    Status::Chance => {
                        let outcome = chance::draw(&Lanza.chance(&state), seed, ply).unwrap();
                        Lanza.apply_chance(&mut state, outcome).unwrap();
                    }
                    Status::ToMove(movers) => {
                        let movers: Vec<Player> = movers.iter().collect();
                        decision(&state, &movers);
                        let moves: Vec<Move> = movers
                            .iter()
                            .map(|&player| {
                                Lanza.legal_actions(&state, player, &mut legal);
                                let action = legal[rng.random_range(0..legal.len())];
                                Move { player, action }
                            })
                            .collect();
                        let before = state.clone();
                        Lanza.apply(&mut state, &moves).unwrap();
                        transition(&before, &moves, &state);
                    }
                }
            }
        }
    }
}

/// The ways a player may write `text` under the policy: other cases, blanks
/// around it, and for orders doubled blanks and commas between the words.
fn variants(text: &str) -> Vec<String> {
    let mut all = vec![
        text.to_lowercase(),
        text.to_uppercase(),
        format!("  {text}\t"),
    ];
    if text.contains(' ') {
        all.push(text.replace(' ', "   "));
        all.push(text.replace(' ', ","));
        all.push(text.replace(' ', ", "));
    } else {
        all.push(text.replace('@', " @ "));
    }
    all
}

#[test]
fn every_legal_action_reads_back_in_any_case_and_spacing() {
    let mut checked = 0;
    let mut legal = Vec::new();
    play_random_matches(
        |state, movers| {
            for &player in movers {
                Lanza.legal_actions(state, player, &mut legal);
                for &action in &legal {
                    let text = Lanza.action_to_string(state, player, action).unwrap();
                    for variant in variants(&text) {
                        assert_eq!(
                            Lanza.parse_action(state, player, &variant),
                            Ok(action),
                            "`{variant}` (printed `{text}`)"
                        );
                        checked += 1;
                    }
                }
            }
        },
        |_, _, _| {},
    );
    assert!(checked > 1000, "{checked}");
}

/// The texts between backticks after "like" in a text rendering: the action
/// it offers as an example.
fn examples(text: &str) -> Vec<&str> {
    text.split("like `")
        .skip(1)
        .filter_map(|rest| rest.split('`').next())
        .collect()
}

#[test]
fn the_text_renderings_example_action_can_be_sent_as_printed() {
    let mut checked = 0;
    play_random_matches(
        |state, movers| {
            let text = Lanza.render_text(state, Viewer::Spectator);
            let found = examples(&text);
            assert!(!found.is_empty(), "{text}");
            for example in found {
                for &player in movers {
                    assert!(
                        Lanza.parse_action(state, player, example).is_ok(),
                        "`{example}` of\n{text}"
                    );
                    checked += 1;
                }
            }
        },
        |_, _, _| {},
    );
    assert!(checked > 0);
}

#[test]
fn the_actions_an_event_prints_read_back_to_the_moves_played() {
    let mut turns = 0;
    let mut places = 0;
    play_random_matches(
        |_, _| {},
        |before, moves, after| {
            let event = Lanza.event(
                before,
                &Transition::Moves(moves.to_vec()),
                after,
                Viewer::Spectator,
            );
            match event["type"].as_str() {
                Some("turn") => {
                    turns += 1;
                    for m in moves {
                        let text = event["orders"][m.player as usize].as_str().unwrap();
                        assert_eq!(
                            Lanza.parse_action(before, m.player, text),
                            Ok(m.action),
                            "{event}"
                        );
                    }
                }
                Some("place") => {
                    places += 1;
                    let text = event["action"].as_str().unwrap();
                    assert_eq!(
                        Lanza.parse_action(before, moves[0].player, text),
                        Ok(moves[0].action)
                    );
                    let field = event["field"].as_str().unwrap();
                    assert_eq!(
                        Lanza.parse_action(before, moves[0].player, field),
                        Ok(moves[0].action)
                    );
                }
                other => panic!("unexpected event {other:?}: {event}"),
            }
        },
    );
    assert!(turns > 0 && places > 0, "{turns} turns, {places} places");
}

#[test]
fn every_example_position_in_the_readme_parses() {
    let count = check_readme_positions(&InProcess::new(Lanza), include_str!("../README.md"))
        .unwrap_or_else(|failure| panic!("{failure}"));
    assert!(count >= 6, "{count} example positions");
}
