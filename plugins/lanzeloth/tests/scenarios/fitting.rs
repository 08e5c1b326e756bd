//! Rulings Z4 (fitting) and Z5 (priority).

use lanzeloth::{Phase, Stage};

use super::{forced, penalty, start};
use crate::support::{legal_texts, play, scenario};

#[test]
fn a_one_opens_a_new_middle_stack_before_a_fitting_pile() {
    // Z4/Z5: P2's open 2 would take the 1, but a new middle stack comes first.
    let text = format!("{} | 5,2,1,1 / - | - / 2 | middle - | removed -", start(1));
    let mut p = scenario(forced(2), &text, 1);
    play(&mut p, "flip");
    assert_eq!(p.middle(), &[1]);
    assert_eq!(p.open(1), &[2]);
    assert_eq!(
        p.phase(),
        Phase::Play {
            turn: 0,
            stage: Stage::Continue
        }
    );
    play(&mut p, "flip");
    assert_eq!(p.middle(), &[1, 1], "a second 1 opens a second stack");
    play(&mut p, "flip");
    assert_eq!(p.middle(), &[2, 1], "the 2 goes onto the oldest stack");
    play(&mut p, "flip");
    // 5 fits nowhere: own open pile, and the turn passes (Z6).
    assert_eq!(p.open(0), &[5]);
    assert_eq!(
        p.phase(),
        Phase::Play {
            turn: 1,
            stage: Stage::Start
        }
    );
}

#[test]
fn in_penalty_mode_a_one_is_offered_every_place_it_fits() {
    let text = format!("{} | 5,2,1,1 / - | - / 2 | middle - | removed -", start(1));
    let mut p = scenario(penalty(2), &text, 1);
    play(&mut p, "flip");
    assert_eq!(p.hand(), Some((1, lanzeloth::Source::FaceDown)));
    assert_eq!(legal_texts(&p), ["place new", "place own", "place p2"]);
    play(&mut p, "place new");
    assert_eq!(p.middle(), &[1]);
    assert_eq!(p.donkey(), None);
    assert_eq!(legal_texts(&p), ["flip"]);
}

#[test]
fn a_middle_stack_has_priority_over_players() {
    let text = format!(
        "{} | 9,4 / - | - / 5 | - / 9 | middle 3 | removed -",
        start(1)
    );
    let mut p = scenario(forced(3), &text, 2);
    play(&mut p, "flip");
    assert_eq!(p.middle(), &[4]);
    assert_eq!(p.open(1), &[5]);
}

#[test]
fn the_nearest_player_to_the_left_has_priority_over_farther_ones() {
    let text = format!(
        "{} | 9,6 / - | - / 7 | - / 5 | middle - | removed -",
        start(1)
    );
    let mut p = scenario(forced(3), &text, 2);
    play(&mut p, "flip");
    assert_eq!(p.open(1), &[7, 6], "P2 is P1's left neighbour");
    assert_eq!(p.open(2), &[5]);

    // Turn order wraps: P3's left neighbour is P1.
    let text = "phase=play turn=p3 stage=start donkey=- reveals=0 winner=- \
                | - / 5 | - / 7 | 9,6 / - | middle - | removed -";
    let mut p = scenario(forced(3), text, 0);
    play(&mut p, "flip");
    assert_eq!(p.open(0), &[5, 6]);
    assert_eq!(p.open(1), &[7]);
}

#[test]
fn the_oldest_fitting_middle_stack_comes_first() {
    let rules = lanzeloth::Rules {
        copies: 3,
        ..forced(2)
    };
    let text = format!(
        "{} | 9,4,4 / - | - / 5 | middle 3,5,3 | removed -",
        start(1)
    );
    let mut p = scenario(rules, &text, 1);
    play(&mut p, "flip");
    assert_eq!(p.middle(), &[4, 5, 3]);
    play(&mut p, "flip");
    assert_eq!(
        p.middle(),
        &[4, 5, 4],
        "m1 now needs a 5, so the next 4 goes to m3"
    );

    // In penalty mode every fitting place is offered, plus the own pile.
    let rules = lanzeloth::Rules {
        copies: 3,
        ..penalty(2)
    };
    let mut p = scenario(rules, &text, 1);
    play(&mut p, "flip");
    assert_eq!(
        legal_texts(&p),
        ["place own", "place p2", "place m1", "place m3"]
    );
}

#[test]
fn a_complete_stack_takes_nothing_and_numbers_do_not_wrap() {
    let text = format!("{} | 9,10,10 / - | - / 1 | middle 9 | removed -", start(1));
    let mut p = scenario(forced(2), &text, 1);
    play(&mut p, "flip");
    assert_eq!(p.middle(), &[10]);
    assert!(
        p.render(tabletop_sdk::Viewer::Spectator)
            .contains("m1:1-10 done")
    );
    play(&mut p, "flip");
    // 10 fits neither the complete stack nor P2's 1 (no wrap-around).
    assert_eq!(p.open(0), &[10]);
    assert_eq!(p.turn(), Some(1));
}

#[test]
fn a_tile_never_fits_its_own_pile() {
    let text = format!("{} | 6 / 5 | - / 9 | middle - | removed -", start(1));
    let mut p = scenario(forced(2), &text, 1);
    let steps = play(&mut p, "flip");
    assert_eq!(p.open(0), &[5, 6]);
    assert_eq!(p.turn(), Some(1));
    assert!(steps.contains(&lanzeloth::Step::Put {
        player: 0,
        tile: 6,
        place: lanzeloth::Place::Pile(0),
        correct: true
    }));
}
