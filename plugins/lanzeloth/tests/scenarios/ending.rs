//! Rulings Z9 (the first empty player wins; ranking by tiles or points) and
//! Z10 (the turn limit).

use lanzeloth::{EselMode, Phase, Rules, Scoring, Stage, Step};

use super::{forced, penalty, start};
use crate::support::{play, scenario};

fn ranks(p: &lanzeloth::Position) -> Vec<u32> {
    p.results().iter().map(|r| r.rank).collect()
}

fn scores(p: &lanzeloth::Position) -> Vec<f64> {
    p.results().iter().map(|r| r.score).collect()
}

#[test]
fn placing_the_last_tile_wins_at_once() {
    let text = format!("{} | 4 / - | - / 5 | middle - | removed -", start(1));
    let mut p = scenario(forced(2), &text, 1);
    let steps = play(&mut p, "flip");
    assert_eq!(p.phase(), Phase::Over { winner: Some(0) });
    assert_eq!(steps.last(), Some(&Step::Win { player: 0 }));
    assert_eq!(ranks(&p), [1, 2]);

    // The same through an explicit placement in penalty mode.
    let mut p = scenario(penalty(2), &text, 1);
    play(&mut p, "flip");
    assert_eq!(
        p.phase(),
        Phase::Play {
            turn: 0,
            stage: Stage::Hand {
                tile: 4,
                from: lanzeloth::Source::FaceDown
            }
        }
    );
    play(&mut p, "place p2");
    assert_eq!(p.winner(), Some(0));
}

#[test]
fn playing_the_last_open_tile_wins_at_once() {
    let text = "phase=play turn=p1 stage=continue donkey=- reveals=3 winner=- \
                | - / 6 | - / 5 | middle - | removed -";
    let mut p = scenario(forced(2), text, 1);
    play(&mut p, "play-open");
    assert_eq!(p.winner(), Some(0));
}

/// 3 players, tiles 1–5 twice (one removed); P1 has won. P2 holds 3,4,5,5
/// (4 tiles, 17 points), P3 holds 1,1,2,2,3 (5 tiles, 9 points).
fn finished(scoring: Scoring, donkey: &str) -> lanzeloth::Position {
    let rules = Rules {
        max_number: 5,
        copies: 2,
        scoring,
        ..Rules::standard(3)
    };
    let text = format!(
        "phase=over turn=- stage=- donkey={donkey} reveals=40 winner=p1 \
         | - / - | 5,5 / 4,3 | 1,1 / 2,2,3 | middle - | removed 4"
    );
    scenario(rules, &text, 0)
}

#[test]
fn ranking_by_tiles_and_by_points() {
    let p = finished(Scoring::Tiles, "-");
    assert_eq!(scores(&p), [0.0, 4.0, 5.0]);
    assert_eq!(ranks(&p), [1, 2, 3]);
    let p = finished(Scoring::Points, "-");
    assert_eq!(scores(&p), [0.0, 17.0, 9.0]);
    assert_eq!(ranks(&p), [1, 3, 2]);
}

#[test]
fn the_donkey_tile_counts_five() {
    let p = finished(Scoring::Tiles, "p2");
    assert_eq!(scores(&p), [0.0, 9.0, 5.0]);
    assert_eq!(ranks(&p), [1, 3, 2]);
    let p = finished(Scoring::Points, "p3");
    assert_eq!(scores(&p), [0.0, 17.0, 14.0]);
    assert_eq!(ranks(&p), [1, 3, 2]);
    // Even a winner holding the donkey tile is first (Z9: no tiles left).
    let p = finished(Scoring::Tiles, "p1");
    assert_eq!(ranks(&p), [1, 2, 3]);
}

#[test]
fn at_the_turn_limit_equal_scores_share_a_rank() {
    // 2 players, tiles 1–5 twice: P1 holds 1,4,5 and P2 2,3,5 (3 tiles, 10 points each).
    let rules = Rules {
        max_number: 5,
        copies: 2,
        max_turns: 50,
        ..Rules::standard(2)
    };
    let text = "phase=over turn=- stage=- donkey=- reveals=50 winner=- \
                | 1,4 / 5 | 2,3 / 5 | middle 4 | removed -";
    let p = scenario(rules, text, 0);
    assert_eq!(ranks(&p), [1, 1]);
    let p = scenario(
        Rules {
            scoring: Scoring::Points,
            ..rules
        },
        text,
        0,
    );
    assert_eq!(ranks(&p), [1, 1]);
    let p = scenario(rules, &text.replace("donkey=-", "donkey=p2"), 0);
    assert_eq!(ranks(&p), [1, 2]);
}

#[test]
fn the_turn_limit_lets_the_current_turn_finish() {
    // Z10 with max_turns 3: the third reveal fits, so P1 continues and reveals
    // a fourth tile; when that one ends the turn, the game ends.
    let rules = Rules {
        max_turns: 3,
        ..forced(2)
    };
    let text = "phase=play turn=p1 stage=start donkey=- reveals=2 winner=- \
                | 9,4 / - | - / 5 | middle - | removed -";
    let mut p = scenario(rules, text, 1);
    play(&mut p, "flip");
    assert_eq!(p.reveals(), 3);
    assert_eq!(
        p.phase(),
        Phase::Play {
            turn: 0,
            stage: Stage::Continue
        }
    );
    let steps = play(&mut p, "flip");
    assert_eq!(p.reveals(), 4);
    assert_eq!(p.phase(), Phase::Over { winner: None });
    assert_eq!(steps.last(), Some(&Step::TurnLimit));
    assert_eq!(ranks(&p).len(), 2);
}

#[test]
fn a_new_turn_never_starts_past_the_limit() {
    let rules = Rules {
        max_turns: 3,
        esel: EselMode::Penalty,
        ..forced(2)
    };
    let text = "phase=play turn=p1 stage=start donkey=- reveals=3 winner=- \
                | 9,4 / - | - / 5 | middle - | removed -";
    let raw = crate::support::complete(rules, text, 1);
    let error = lanzeloth::Position::from_raw(rules, raw).unwrap_err();
    assert!(error.to_string().contains("turn limit"), "{error}");
}
