//! Ruling Z6 (turns and continuation) and Z8 (turning the open pile over).

use lanzeloth::{FaceDownTile, Phase, Stage, Step};
use tabletop_sdk::{ErrorKind, Game};

use super::{forced, penalty, start};
use crate::support::{legal_texts, play, scenario};

#[test]
fn continuation_offers_the_open_pile_only_when_its_top_fits() {
    // After the 4 goes to P2, P1's open 7 fits nowhere: flip only.
    let text = format!("{} | 3,4 / 7 | - / 5 | middle - | removed -", start(1));
    let mut p = scenario(forced(2), &text, 1);
    play(&mut p, "flip");
    assert_eq!(p.open(1), &[5, 4]);
    assert_eq!(legal_texts(&p), ["flip"]);
    let refused = lanzeloth::Lanzeloth
        .parse_action(&p, 0, "play-open")
        .unwrap_err();
    assert_eq!(refused.kind, ErrorKind::IllegalAction);

    // With an open 3 instead, the 3 fits on P2's new top 4.
    let text = format!("{} | 3,4 / 3 | - / 5 | middle - | removed -", start(1));
    let mut p = scenario(forced(2), &text, 1);
    play(&mut p, "flip");
    assert_eq!(legal_texts(&p), ["flip", "play-open"]);
    play(&mut p, "play-open");
    assert_eq!(p.open(1), &[5, 4, 3]);
    assert!(p.open(0).is_empty());
    assert_eq!(
        p.phase(),
        Phase::Play {
            turn: 0,
            stage: Stage::Continue
        }
    );
}

#[test]
fn flipping_instead_of_a_fitting_open_top_is_never_an_esel() {
    let text = format!("{} | 3,4 / 3 | - / 5 | middle - | removed -", start(1));
    let mut p = scenario(penalty(2), &text, 1);
    play(&mut p, "flip");
    play(&mut p, "place p2");
    assert_eq!(legal_texts(&p), ["flip", "play-open"]);
    play(&mut p, "flip");
    assert_eq!(p.hand(), Some((3, lanzeloth::Source::FaceDown)));
    play(&mut p, "place p2");
    assert_eq!(p.donkey(), None);
    assert_eq!(p.open(1), &[5, 4, 3]);
}

#[test]
fn a_tile_from_the_open_pile_cannot_go_back_onto_it() {
    let text = format!("{} | 9,4 / 3 | - / 5 | middle - | removed -", start(1));
    let mut p = scenario(penalty(2), &text, 1);
    play(&mut p, "flip");
    play(&mut p, "place p2");
    play(&mut p, "play-open");
    assert_eq!(p.hand(), Some((3, lanzeloth::Source::Open)));
    assert_eq!(legal_texts(&p), ["place p2"]);
}

#[test]
fn a_continuing_player_who_can_do_neither_passes_the_turn() {
    // After the 4, P1's face-down stack is empty and the open 8 fits nowhere.
    let text = format!("{} | 4 / 8 | - / 5 | middle - | removed -", start(1));
    let mut p = scenario(forced(2), &text, 1);
    let steps = play(&mut p, "flip");
    assert_eq!(
        p.phase(),
        Phase::Play {
            turn: 1,
            stage: Stage::Start
        }
    );
    assert_eq!(steps.last(), Some(&Step::TurnPasses { player: 1 }));
    // Z8 waits for P1's next turn: nothing was turned over.
    assert_eq!(p.face_down_len(0), 0);
    assert_eq!(p.open(0), &[8]);
}

#[test]
fn a_continuing_player_with_an_empty_stack_cannot_flip() {
    // After the 4, P1's open 3 fits P2's new top 4, but the empty face-down
    // stack is not turned over mid-turn (Z8 applies at the start of a turn).
    let text = format!("{} | 4 / 6,3 | - / 5 | middle - | removed -", start(1));
    let mut p = scenario(forced(2), &text, 1);
    play(&mut p, "flip");
    assert_eq!(legal_texts(&p), ["play-open"]);
}

#[test]
fn an_empty_stack_is_refilled_by_turning_the_open_pile_over() {
    // Z8: P1's open pile is 3 (bottom), 8, 5 (top); turned over, 3 is on top.
    let text = format!("{} | - / 3,8,5 | - / 9 | middle - | removed -", start(1));
    let mut p = scenario(forced(2), &text, 1);
    assert_eq!(legal_texts(&p), ["flip"]);
    let steps = play(&mut p, "flip");
    assert_eq!(
        steps[0],
        Step::TurnOver {
            player: 0,
            tiles: 3
        }
    );
    assert_eq!(steps[1], Step::Reveal { player: 0, tile: 3 });
    // The 3 fits nowhere and lands on the (now empty) open pile.
    assert_eq!(p.open(0), &[3]);
    // The rest lies face down, 8 on top, and everyone saw these tiles.
    assert_eq!(
        p.face_down(0),
        &[FaceDownTile::known(5), FaceDownTile::known(8)]
    );
    assert!(p.to_text().contains("| 5*,8* / 3 |"), "{}", p.to_text());
    assert_eq!(p.reveals(), 1);
}

#[test]
fn a_misfit_ends_the_turn_and_the_next_player_to_the_left_starts() {
    let text = format!(
        "{} | 9 / - | - / 8 | 2 / 4 | middle - | removed -",
        start(3)
    );
    let mut p = scenario(forced(3), &text, 1);
    play(&mut p, "flip");
    assert_eq!(p.open(2), &[4, 2]);
    assert_eq!(
        p.phase(),
        Phase::Play {
            turn: 0,
            stage: Stage::Start
        }
    );
}
