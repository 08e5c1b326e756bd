//! Rulings Z1 (tile set options), Z2 (deal and first player) and Z12 (notation).

use lanzeloth::{Lanzeloth, Phase, Position, Stage};
use tabletop_sdk::{Chance, DynGame, ErrorKind, Game, InProcess};

use crate::support::{options, setup};

fn dealt(players: u32, pairs: &[(&str, &str)], seed: u64) -> Position {
    let mut state = Lanzeloth.new_state(&setup(players, pairs)).unwrap();
    assert_eq!(Lanzeloth.chance(&state), Chance::Sampled);
    Lanzeloth.apply_chance(&mut state, seed).unwrap();
    state
}

fn all_tiles(p: &Position) -> Vec<u8> {
    let n = p.rules().players;
    let mut tiles: Vec<u8> = (0..n)
        .flat_map(|q| p.face_down(q).iter().map(|t| t.number).collect::<Vec<_>>())
        .chain(p.removed().iter().copied())
        .collect();
    tiles.sort_unstable();
    tiles
}

#[test]
fn the_default_set_is_120_tiles_dealt_equally() {
    for (players, each, removed) in [(2, 60, 0), (3, 40, 0), (4, 30, 0), (5, 24, 0), (6, 20, 0)] {
        let p = dealt(players, &[], 9);
        for q in 0..players {
            assert_eq!(p.face_down_len(q), each);
            assert!(p.open(q).is_empty());
        }
        assert_eq!(p.removed().len(), removed);
        let expected: Vec<u8> = (1..=20).flat_map(|t| [t; 6]).collect();
        assert_eq!(all_tiles(&p), expected);
    }
}

#[test]
fn tiles_that_cannot_be_dealt_equally_are_removed() {
    // 7 × 2 = 14 tiles for 4 players: 3 each, 2 removed.
    let p = dealt(4, &[("max_number", "7"), ("copies", "2")], 5);
    assert_eq!(
        (0..4).map(|q| p.face_down_len(q)).collect::<Vec<_>>(),
        [3, 3, 3, 3]
    );
    assert_eq!(p.removed().len(), 2);
    let expected: Vec<u8> = (1..=7).flat_map(|t| [t; 2]).collect();
    assert_eq!(all_tiles(&p), expected);
}

#[test]
fn the_deal_depends_on_the_chance_outcome_only() {
    let a = dealt(3, &[], 1);
    let b = dealt(3, &[], 1);
    let c = dealt(3, &[], 2);
    assert_eq!(a.to_text(), b.to_text());
    assert_ne!(a.to_text(), c.to_text());
}

#[test]
fn too_few_tiles_for_the_players_is_a_clear_error() {
    let game = InProcess::new(Lanzeloth);
    // 5 × 1 = 5 tiles, but 3 players need 6 (Z1).
    let error = game
        .new_state(3, &options(&[("max_number", "5"), ("copies", "1")]), None)
        .err()
        .unwrap();
    assert_eq!(error.kind, ErrorKind::InvalidOption);
    assert!(
        error.message.contains("at least 2 × players = 6"),
        "{}",
        error.message
    );
    // 5 × 1 is enough for 2 players.
    assert!(
        game.new_state(2, &options(&[("max_number", "5"), ("copies", "1")]), None)
            .is_ok()
    );
    // max_number below 5 is out of range.
    let error = game
        .new_state(2, &options(&[("max_number", "4")]), None)
        .err()
        .unwrap();
    assert!(error.message.contains("max_number"), "{}", error.message);
    let error = game
        .new_state(3, &options(&[("first_player", "4")]), None)
        .err()
        .unwrap();
    assert!(
        error.message.contains("only 3 players"),
        "{}",
        error.message
    );
}

#[test]
fn the_first_player_is_drawn_uniformly_unless_fixed() {
    let p = dealt(5, &[], 3);
    assert_eq!(p.phase(), Phase::FirstPlayer);
    let Chance::Explicit(outcomes) = Lanzeloth.chance(&p) else {
        panic!("explicit")
    };
    assert_eq!(
        outcomes.iter().map(|o| o.0).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4]
    );
    assert!(outcomes.iter().all(|o| (o.1 - 0.2).abs() < 1e-12));
    let mut q = p.clone();
    assert!(Lanzeloth.apply_chance(&mut q, 5).is_err());
    assert_eq!(q, p, "a refused outcome changes nothing");
    Lanzeloth.apply_chance(&mut q, 3).unwrap();
    assert_eq!(
        q.phase(),
        Phase::Play {
            turn: 3,
            stage: Stage::Start
        }
    );

    let fixed = dealt(5, &[("first_player", "2")], 3);
    assert_eq!(
        fixed.phase(),
        Phase::Play {
            turn: 1,
            stage: Stage::Start
        }
    );
}

#[test]
fn positions_and_actions_round_trip() {
    let game = InProcess::new(Lanzeloth);
    let mut state = game.new_state(3, &options(&[]), None).unwrap();
    state.apply_chance(77).unwrap();
    state.apply_chance(1).unwrap();
    let text = state.position().unwrap();
    assert!(
        text.starts_with("phase=play turn=p2 stage=start donkey=- reveals=0 winner=- | "),
        "{text}"
    );
    let again = game.new_state(3, &options(&[]), Some(&text)).unwrap();
    assert_eq!(again.position().unwrap(), text);
    assert_eq!(state.action_to_string(1, 0).unwrap(), "flip");
    assert_eq!(state.parse_action(1, "flip").unwrap(), 0);
    assert_eq!(
        state.parse_action(0, "flip").unwrap_err().kind,
        ErrorKind::IllegalAction
    );
    assert_eq!(
        state.parse_action(1, "jump").unwrap_err().kind,
        ErrorKind::InvalidNotation
    );
}

#[test]
fn impossible_positions_are_refused() {
    let game = InProcess::new(Lanzeloth);
    let mut state = game
        .new_state(2, &options(&[("max_number", "5"), ("copies", "2")]), None)
        .unwrap();
    state.apply_chance(4).unwrap();
    let text = state.position().unwrap();
    let opts = options(&[("max_number", "5"), ("copies", "2")]);
    // A tile duplicated, a tile out of range, a missing section, a bad phase.
    let broken = [
        text.replacen("| ", "| 1,", 1),
        text.replacen("| ", "| 9,", 1),
        text.rsplit_once(" | ").unwrap().0.to_string(),
        text.replace("phase=first", "phase=later"),
        String::new(),
    ];
    for bad in broken {
        let error = game.new_state(2, &opts, Some(&bad)).err().expect("refused");
        assert_eq!(error.kind, ErrorKind::InvalidPosition, "{bad}");
    }
}
