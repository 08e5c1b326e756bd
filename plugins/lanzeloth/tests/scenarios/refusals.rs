//! Every reason code of a refusal, each on a hand-made position: the
//! explanation names the ruling, `parse_action` refuses with the same
//! sentence and kind, `apply` with the same sentence, and nothing changes.

use lanzeloth::{EselMode, Lanzeloth, Position, Rules, Scoring, reason};
use tabletop_sdk::ExplainRefusal;
use tabletop_sdk::{ActionId, Attempt, ErrorKind, Game, Move, Player, Setup};

use super::{forced, penalty, start};
use crate::support::{options, scenario};

/// Tiles 1–10, four of each, so a table can hold several stacks and piles.
fn roomy(players: u32, esel: EselMode) -> Rules {
    Rules {
        players,
        max_number: 10,
        copies: 4,
        esel,
        scoring: Scoring::Tiles,
        max_turns: 2000,
        first_player: None,
    }
}

/// Five players, P5 taken out. P1 holds a 4 revealed from the face-down
/// stack; the middle stacks' tops are 5 and 10 (complete); P2's open top is
/// 5 (the 4 fits there), P3's open pile is empty, P4's top is 9 and P5's 3.
fn four_in_hand(from: char) -> Position {
    let text = format!(
        "phase=play turn=p1 stage=hand-{from}4 donkey=- reveals=1 winner=- out=p5 \
         | 8 / 9 | - / 5 | 2 / - | 6 / 9 | - / 3 | middle 5,10 | removed -"
    );
    scenario(roomy(5, EselMode::Penalty), &text, 1)
}

/// `text` by `player` is refused with `code`, by `explain_refusal`,
/// `parse_action` and (for a text that reads as an action) `apply` alike,
/// citing a ruling and changing nothing.
fn assert_refused(position: &Position, player: Player, text: &str, code: &str) {
    let refusal = Lanzeloth
        .explain_refusal(position, player, Attempt::Text(text))
        .unwrap_or_else(|| panic!("`{text}` is explained as legal"));
    assert_eq!(refusal.reason, code, "`{text}`: {}", refusal.message);
    assert!(refusal.message.contains("(Z"), "{}", refusal.message);
    let error = Lanzeloth
        .parse_action(position, player, text)
        .expect_err(text);
    assert_eq!(error.message, refusal.message);
    let kind = if refusal.notation {
        ErrorKind::InvalidNotation
    } else {
        ErrorKind::IllegalAction
    };
    assert_eq!(error.kind, kind, "`{text}`");
    if let Some(id) = lanzeloth::action_from_text(text, player)
        .map(|a| a.id())
        .filter(|&id| id < 16)
    {
        assert_id_refused(position, player, id, code);
    }
}

/// Action `id` by `player` is explained with `code`, and `apply` refuses it
/// with the explanation's sentence, changing nothing.
fn assert_id_refused(position: &Position, player: Player, id: ActionId, code: &str) {
    let refusal = Lanzeloth
        .explain_refusal(position, player, Attempt::Id(id))
        .unwrap_or_else(|| panic!("id {id} is explained as legal"));
    assert_eq!(refusal.reason, code, "id {id}: {}", refusal.message);
    assert!(!refusal.notation);
    let mut state = position.clone();
    let moves = [Move { player, action: id }];
    let error = Lanzeloth.apply(&mut state, &moves).expect_err("refused");
    if code != reason::NOT_YOUR_TURN && code != reason::TAKEN_OUT {
        assert_eq!(error.message, refusal.message, "id {id}");
    }
    assert_eq!(&state, position, "a refused action changes nothing");
}

#[test]
fn placing_a_tile_where_it_does_not_fit_says_which_rule_z4() {
    let p = four_in_hand('d');
    assert_refused(&p, 0, "place new", reason::ONLY_ONE_STARTS_A_STACK);
    assert_refused(&p, 0, "place m1", reason::DOES_NOT_FIT);
    assert_refused(&p, 0, "place m2", reason::STACK_COMPLETE);
    assert_refused(&p, 0, "place m3", reason::NO_SUCH_STACK);
    assert_refused(&p, 0, "place p3", reason::EMPTY_PILE);
    assert_refused(&p, 0, "place p4", reason::DOES_NOT_FIT);
    assert_refused(&p, 0, "place p5", reason::PLAYER_OUT);
    // The legal ones: the priority place and, from the face-down stack, the own pile.
    for legal in ["place p2", "PLACE OWN", "place p1"] {
        assert_eq!(
            Lanzeloth.explain_refusal(&p, 0, Attempt::Text(legal)),
            None,
            "{legal}"
        );
    }
    let message = Lanzeloth
        .explain_refusal(&p, 0, Attempt::Text("place p4"))
        .unwrap()
        .message;
    assert_eq!(
        message,
        "4 does not fit on seat 3 (P4)'s open pile, whose top is 9: it takes only one higher \
         or one lower (Z4)"
    );
}

#[test]
fn a_seat_the_match_does_not_have_is_no_place_z12() {
    // Two players; P1 holds a 6 that fits on P2's 5.
    let text = "phase=play turn=p1 stage=hand-d6 donkey=- reveals=1 winner=- | 8 / 9 | - / 5 \
                | middle - | removed -";
    let p = scenario(penalty(2), text, 1);
    assert_refused(&p, 0, "place p3", reason::NO_SUCH_PLAYER);
    assert_refused(&p, 0, "place p6", reason::NO_SUCH_PLAYER);
    // Ids 9 to 15 name no action at all.
    for id in 9..16 {
        assert_id_refused(&p, 0, id, reason::NO_SUCH_ACTION);
    }
}

#[test]
fn no_such_player_is_explained_with_a_tile_in_hand() {
    let p = four_in_hand('d');
    // Five players: p6 is a player of the notation, but not of this match.
    assert_refused(&p, 0, "place p6", reason::NO_SUCH_PLAYER);
}

#[test]
fn a_tile_taken_from_the_open_pile_cannot_go_back_z7() {
    let p = four_in_hand('o');
    assert_refused(&p, 0, "place own", reason::BACK_ONTO_OWN_PILE);
    assert_refused(&p, 0, "place p1", reason::BACK_ONTO_OWN_PILE);
}

#[test]
fn a_tile_in_hand_is_placed_before_anything_else_z7() {
    let p = four_in_hand('d');
    assert_refused(&p, 0, "flip", reason::TILE_IN_HAND);
    assert_refused(&p, 0, "play-open", reason::TILE_IN_HAND);
}

#[test]
fn only_the_player_on_turn_and_still_in_moves_z6() {
    let p = four_in_hand('d');
    assert_refused(&p, 1, "place p2", reason::NOT_YOUR_TURN);
    assert_refused(&p, 4, "flip", reason::TAKEN_OUT);
    let message = Lanzeloth
        .explain_refusal(&p, 1, Attempt::Id(0))
        .unwrap()
        .message;
    assert_eq!(message, "it is seat 0 (P1)'s turn, not seat 1 (P2)'s (Z6)");
}

#[test]
fn a_turn_starts_with_flip_z6() {
    let text = format!("{} | 8 / 9 | - / 5 | middle - | removed -", start(1));
    let p = scenario(penalty(2), &text, 1);
    assert_refused(&p, 0, "play-open", reason::FLIP_FIRST);
    assert_refused(&p, 0, "place p2", reason::NO_TILE_IN_HAND);
    let q = scenario(forced(2), &text, 1);
    assert_refused(&q, 0, "place p2", reason::PLACEMENT_AUTOMATIC);
}

#[test]
fn continuing_needs_a_face_down_tile_or_a_fitting_open_top_z6_z8() {
    let header = "phase=play turn=p1 stage=continue donkey=- reveals=1 winner=-";
    // No face-down tile; the open top 6 fits on P2's 5.
    let empty_stack = scenario(
        penalty(2),
        &format!("{header} | - / 6 | - / 5 | middle - | removed -"),
        1,
    );
    assert_refused(&empty_stack, 0, "flip", reason::FACE_DOWN_EMPTY);
    // An empty open pile.
    let empty_pile = scenario(
        penalty(2),
        &format!("{header} | 8 / - | - / 5 | middle - | removed -"),
        1,
    );
    assert_refused(&empty_pile, 0, "play-open", reason::OPEN_PILE_EMPTY);
    // The open top 9 fits nowhere.
    let nowhere = scenario(
        penalty(2),
        &format!("{header} | 8 / 9 | - / 5 | middle - | removed -"),
        1,
    );
    assert_refused(&nowhere, 0, "play-open", reason::OPEN_TOP_FITS_NOWHERE);
}

fn setup(players: u32, pairs: &[(&str, &str)]) -> Setup {
    Setup::validate(&Lanzeloth.manifest(), players, &options(pairs)).unwrap()
}

#[test]
fn nobody_moves_before_the_deal_or_after_the_end_z2_z9() {
    let fresh = Lanzeloth.new_state(&setup(2, &[])).unwrap();
    assert_refused(&fresh, 0, "flip", reason::AWAITING_CHANCE);
    let over = "phase=over turn=- stage=- donkey=- reveals=9 winner=p1 | - / - | - / 5 \
                | middle - | removed -";
    let over = scenario(penalty(2), over, 1);
    assert_refused(&over, 1, "flip", reason::GAME_OVER);
}

#[test]
fn a_text_that_is_no_action_says_what_is_wrong_z12() {
    let text = format!("{} | 8 / 9 | - / 5 | middle - | removed -", start(1));
    let p = scenario(penalty(2), &text, 1);
    for (bad, code) in [
        ("", reason::EMPTY_ACTION),
        ("jump", reason::UNKNOWN_ACTION),
        ("flip now", reason::EXTRA_WORDS),
        ("place", reason::PLACE_WITHOUT_TARGET),
        ("place x9", reason::UNKNOWN_PLACE),
        ("place p9", reason::UNKNOWN_PLAYER),
    ] {
        assert_refused(&p, 0, bad, code);
    }
    // Not the player's turn, but the text is checked first.
    assert_refused(&p, 1, "jump", reason::UNKNOWN_ACTION);
}
