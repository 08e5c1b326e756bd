//! Ruling Z7: every way of becoming the donkey, the donkey tile's transfer,
//! the gifts, and `esel = forced`.

use lanzeloth::{FaceDownTile, Phase, Position, Source, Stage, Step};

use super::{forced, penalty};
use crate::support::{legal_texts, play, scenario};

/// P1 is on turn with the donkey at P3; P2's top face-down tile is 6, P3's is 9.
fn esel_table(p1: &str, p2_open: &str, p3_open: &str, middle: &str) -> Position {
    esel_table_with(penalty(3), p1, p2_open, p3_open, middle)
}

fn esel_table_with(
    rules: lanzeloth::Rules,
    p1: &str,
    p2_open: &str,
    p3_open: &str,
    middle: &str,
) -> Position {
    let text = format!(
        "phase=play turn=p1 stage=start donkey=p3 reveals=0 winner=- \
         | {p1} | 7,6 / {p2_open} | 2,9 / {p3_open} | middle {middle} | removed -"
    );
    // Completion tiles go under P1's own stack, so gifts land below them.
    scenario(rules, &text, 0)
}

/// Checks the whole Z7 penalty for P1 after a wrong placement.
fn assert_penalised(before: &Position, after: &Position, steps: &[Step]) {
    assert_eq!(after.donkey(), Some(0), "P1 took the donkey tile");
    assert_eq!(
        steps.iter().find(|s| matches!(s, Step::Esel { .. })),
        Some(&Step::Esel {
            player: 0,
            from: Some(2)
        })
    );
    // One tile from each other player, from the left: P2's 6, then P3's 9
    // under it, at the bottom of P1's stack.
    assert_eq!(after.face_down(1), &[FaceDownTile::hidden(7)]);
    assert_eq!(after.face_down(2), &[FaceDownTile::hidden(2)]);
    assert_eq!(
        &after.face_down(0)[..2],
        &[FaceDownTile::hidden(9), FaceDownTile::hidden(6)]
    );
    assert_eq!(
        after.face_down_len(0),
        before.face_down_len(0) + 2 - usize::from(before.hand().is_none())
    );
    // The offender's turn ends.
    assert_eq!(
        after.phase(),
        Phase::Play {
            turn: 1,
            stage: Stage::Start
        }
    );
    // Gifts from face-down stacks are described without their number (Z11).
    let gifts: Vec<&Step> = steps
        .iter()
        .filter(|s| matches!(s, Step::Gift { .. }))
        .collect();
    assert_eq!(
        gifts,
        [
            &Step::Gift {
                from: 1,
                to: 0,
                source: Source::FaceDown,
                tile: None
            },
            &Step::Gift {
                from: 2,
                to: 0,
                source: Source::FaceDown,
                tile: None
            },
        ]
    );
}

#[test]
fn putting_a_fitting_tile_on_the_own_pile_makes_you_the_donkey() {
    let mut p = esel_table("8,4 / -", "5", "3", "-");
    play(&mut p, "flip");
    assert_eq!(legal_texts(&p), ["place own", "place p2", "place p3"]);
    let before = p.clone();
    let steps = play(&mut p, "place own");
    assert_eq!(p.open(0), &[4], "the misplaced tile stays where it was put");
    assert_penalised(&before, &p, &steps);
}

#[test]
fn putting_a_tile_on_a_farther_player_makes_you_the_donkey() {
    let mut p = esel_table("8,4 / -", "5", "3", "-");
    play(&mut p, "flip");
    let before = p.clone();
    let steps = play(&mut p, "place p3");
    assert_eq!(p.open(2), &[3, 4]);
    assert_penalised(&before, &p, &steps);
}

#[test]
fn putting_a_tile_on_a_player_when_the_middle_fits_makes_you_the_donkey() {
    let mut p = esel_table("8,4 / -", "5", "9", "3");
    play(&mut p, "flip");
    assert_eq!(legal_texts(&p), ["place own", "place p2", "place m1"]);
    let before = p.clone();
    let steps = play(&mut p, "place p2");
    assert_eq!(p.open(1), &[5, 4]);
    assert_eq!(p.middle(), &[3]);
    assert_penalised(&before, &p, &steps);
}

#[test]
fn putting_a_one_on_a_player_makes_you_the_donkey() {
    let mut p = esel_table("8,1 / -", "2", "9", "-");
    play(&mut p, "flip");
    let before = p.clone();
    let steps = play(&mut p, "place p2");
    assert_eq!(p.open(1), &[2, 1]);
    assert!(p.middle().is_empty());
    assert_penalised(&before, &p, &steps);
}

#[test]
fn putting_a_tile_on_a_newer_middle_stack_makes_you_the_donkey() {
    let rules = lanzeloth::Rules {
        copies: 3,
        ..penalty(3)
    };
    let mut p = esel_table_with(rules, "8,4 / -", "9", "9", "3,3");
    play(&mut p, "flip");
    let before = p.clone();
    let steps = play(&mut p, "place m2");
    assert_eq!(p.middle(), &[3, 4]);
    assert_penalised(&before, &p, &steps);
}

#[test]
fn misplacing_the_open_piles_top_makes_you_the_donkey() {
    // Continuing with an open 6 that fits P2 (5) first and P3 (7) second.
    let text = "phase=play turn=p1 stage=continue donkey=p3 reveals=4 winner=- \
                | 8 / 6 | 7,6 / 5 | 2,9 / 7 | middle - | removed -";
    let mut p = scenario(penalty(3), text, 0);
    play(&mut p, "play-open");
    assert_eq!(p.hand(), Some((6, Source::Open)));
    assert_eq!(
        legal_texts(&p),
        ["place p2", "place p3"],
        "not back onto the own pile"
    );
    let before = p.clone();
    let steps = play(&mut p, "place p3");
    assert_eq!(p.open(2), &[7, 6]);
    assert_penalised(&before, &p, &steps);
}

#[test]
fn the_correct_place_is_no_esel() {
    let mut p = esel_table("8,4 / -", "5", "3", "-");
    play(&mut p, "flip");
    let steps = play(&mut p, "place p2");
    assert_eq!(p.donkey(), Some(2), "the donkey stays with P3");
    assert!(
        !steps
            .iter()
            .any(|s| matches!(s, Step::Esel { .. } | Step::Gift { .. }))
    );
    assert_eq!(
        p.phase(),
        Phase::Play {
            turn: 0,
            stage: Stage::Continue
        }
    );
}

#[test]
fn the_first_donkey_takes_the_tile_from_nobody() {
    let text = "phase=play turn=p1 stage=start donkey=- reveals=0 winner=- \
                | 8,4 / - | 7,6 / 5 | 2,9 / 3 | middle - | removed -";
    let mut p = scenario(penalty(3), text, 0);
    play(&mut p, "flip");
    let steps = play(&mut p, "place p1");
    assert!(steps.contains(&Step::Esel {
        player: 0,
        from: None
    }));
    assert_eq!(p.donkey(), Some(0));
}

#[test]
fn a_gift_from_an_empty_face_down_stack_comes_from_the_open_pile() {
    // P2 has no face-down tiles: their open top 8 is given, face up.
    let text = "phase=play turn=p1 stage=start donkey=p3 reveals=0 winner=- \
                | 8,4 / - | - / 5,8 | 2,9 / 3 | middle - | removed -";
    let mut p = scenario(penalty(3), text, 0);
    play(&mut p, "flip");
    let steps = play(&mut p, "place p1");
    assert!(steps.contains(&Step::Gift {
        from: 1,
        to: 0,
        source: Source::Open,
        tile: Some(8)
    }));
    assert_eq!(p.open(1), &[5]);
    // Everyone saw the 8, so it lies face down as a known tile.
    assert_eq!(
        &p.face_down(0)[..2],
        &[FaceDownTile::hidden(9), FaceDownTile::known(8)]
    );
}

#[test]
fn a_player_who_gives_their_last_tile_wins_at_once() {
    // P2 holds one tile; P3's stack must not be touched after P2 wins.
    let text = "phase=play turn=p1 stage=start donkey=- reveals=0 winner=- \
                | 8,4 / - | - / 5 | 2,9 / 3 | middle - | removed -";
    let mut p = scenario(penalty(3), text, 0);
    play(&mut p, "flip");
    let p3_before = p.face_down(2).to_vec();
    let steps = play(&mut p, "place p1");
    assert_eq!(p.phase(), Phase::Over { winner: Some(1) });
    assert_eq!(steps.last(), Some(&Step::Win { player: 1 }));
    assert_eq!(
        p.face_down(2),
        p3_before.as_slice(),
        "no gift after the win"
    );
    assert_eq!(p.results()[1].rank, 1);
}

#[test]
fn forced_mode_places_automatically_and_never_makes_a_donkey() {
    let text = "phase=play turn=p1 stage=start donkey=- reveals=0 winner=- \
                | 8,4 / - | 7,6 / 5 | 2,9 / 3 | middle - | removed -";
    let mut p = scenario(forced(3), text, 0);
    assert_eq!(legal_texts(&p), ["flip"]);
    play(&mut p, "flip");
    assert_eq!(p.open(1), &[5, 4], "the priority place, automatically");
    assert_eq!(p.hand(), None);
    assert_eq!(p.donkey(), None);
}
