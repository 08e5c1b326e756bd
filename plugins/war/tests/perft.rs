//! Exact legal-move counts at depths 1 and 2 for the positions in
//! `tests/data/perft.txt`, from the plugin and from the simple generator of
//! `simple.rs`; all three must agree, and at depth 1 the two move lists must
//! be equal text for text.

use std::collections::BTreeMap;

use tabletop_sdk::{DynGame, DynState, Move, Status};

use crate::simple::Simple;
use crate::support::game;

struct Case {
    name: String,
    text: String,
    counts: Vec<u64>,
}

fn cases() -> Vec<Case> {
    let data = include_str!("data/perft.txt");
    let mut out = Vec::new();
    let mut current: Option<Case> = None;
    for line in data.lines() {
        if let Some(name) = line.strip_prefix("== ") {
            current = Some(Case {
                name: name.trim().to_string(),
                text: String::new(),
                counts: Vec::new(),
            });
        } else if let Some(counts) = line.strip_prefix("-- ") {
            let mut case = current.take().expect("a `==` line before `--`");
            case.counts = counts
                .split_whitespace()
                .map(|c| c.parse().unwrap())
                .collect();
            out.push(case);
        } else if let Some(case) = current.as_mut() {
            case.text.push_str(line);
            case.text.push('\n');
        }
    }
    out
}

fn plugin_perft(state: &dyn DynState, depth: u32) -> u64 {
    let Status::ToMove(set) = state.status().unwrap() else {
        return 0;
    };
    let p = set.iter().next().unwrap();
    let mut legal = Vec::new();
    state.legal_actions(p, &mut legal).unwrap();
    if depth == 1 {
        return legal.len() as u64;
    }
    legal
        .iter()
        .map(|&a| {
            let mut next = state.clone_state().unwrap();
            next.apply(&[Move {
                player: p,
                action: a,
            }])
            .unwrap();
            plugin_perft(next.as_ref(), depth - 1)
        })
        .sum()
}

fn simple_perft(s: &Simple, depth: u32) -> u64 {
    let legal = s.legal();
    if depth == 1 {
        return legal.len() as u64;
    }
    legal
        .iter()
        .map(|a| simple_perft(&s.play(a), depth - 1))
        .sum()
}

#[test]
fn perft_counts_agree_with_the_simple_generator() {
    let cases = cases();
    assert!(cases.len() >= 6);
    for case in cases {
        let state = game()
            .new_state(2, &BTreeMap::new(), Some(&case.text))
            .unwrap_or_else(|e| panic!("{}: {}", case.name, e.message));
        let position = war::position_text::parse(
            &state.position().unwrap(),
            &std::sync::Arc::new(war::Board::default_board()),
            3,
            400,
        )
        .unwrap();
        let simple = Simple::from_position(&position);
        // Depth 1: the same moves, text for text.
        let seat = match state.status().unwrap() {
            Status::ToMove(set) => set.iter().next().unwrap(),
            _ => panic!("{}: over", case.name),
        };
        let mut ids = Vec::new();
        state.legal_actions(seat, &mut ids).unwrap();
        let mut texts: Vec<String> = ids
            .iter()
            .map(|&a| state.action_to_string(seat, a).unwrap())
            .collect();
        texts.sort();
        assert_eq!(texts, simple.legal(), "{}", case.name);
        for (depth, &expected) in (1..).zip(&case.counts) {
            let mine = simple_perft(&simple, depth);
            if std::env::var_os("WAR_PERFT_PRINT").is_some() {
                println!("{} depth {depth}: simple {mine}", case.name);
                continue;
            }
            assert_eq!(
                mine, expected,
                "{} depth {depth}: simple generator vs data",
                case.name
            );
            assert_eq!(
                plugin_perft(state.as_ref(), depth),
                expected,
                "{} depth {depth}: plugin vs data",
                case.name
            );
        }
    }
}

/// Along whole random matches (the move generator's lists, kept per
/// position, against the simple generator's at every play turn): the same
/// actions, and the plugin's ids strictly increasing, as the host is told.
#[test]
fn random_matches_list_what_the_simple_generator_lists() {
    use tabletop_sdk::{Game, Setup};
    use war::{Phase, War};

    for seed in 1..=6u64 {
        let rail = if seed % 2 == 0 { "5" } else { "3" };
        let setup = Setup::validate(
            &War.manifest(),
            2,
            &crate::support::options(&[("rail_tiles", rail)]),
        )
        .unwrap();
        let mut state = War.new_state(&setup).unwrap();
        let mut pick = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut ids = Vec::new();
        let mut compared = 0;
        while let Status::ToMove(movers) = War.status(&state) {
            let player = movers.iter().next().unwrap();
            War.legal_actions(&state, player, &mut ids);
            assert!(ids.windows(2).all(|w| w[0] < w[1]), "seed {seed}");
            if state.phase() == Phase::Play {
                let mut texts: Vec<String> = ids
                    .iter()
                    .map(|&a| War.action_to_string(&state, player, a).unwrap())
                    .collect();
                texts.sort();
                let simple = Simple::from_position(&state).legal();
                assert_eq!(texts, simple, "seed {seed}, play turn {compared}");
                compared += 1;
            }
            let action = tabletop_bench_support::pick_from(&mut pick, &ids);
            War.apply(&mut state, &[Move { player, action }]).unwrap();
        }
        assert!(compared > 10, "seed {seed}: {compared} play turns");
    }
}
