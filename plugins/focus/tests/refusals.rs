//! Refusals that say why: every reason code on a hand-made position, the
//! explanation agreeing with the refusal of `parse_action` (texts) and of
//! `apply` (ids), and every code listed in the README.

use focus::{Focus, IllegalMove, Move, NotationError, OpeningSwap, Position, Rules};
use tabletop_sdk::ExplainRefusal;
use tabletop_sdk::{Attempt, ErrorKind, Game, Move as Joint, Player, Refusal};

fn start(players: u32) -> Position {
    Position::start(Rules::standard(players).unwrap())
}

fn swap_start(swap: OpeningSwap) -> Position {
    Position::start(Rules::new(2, 1000, false, swap, false).unwrap())
}

/// The explanation of `text` for `player`, checked against the refusal of
/// `parse_action`: the same sentence, and the kind the explanation says.
fn text_refused(pos: &Position, player: Player, text: &str) -> Refusal {
    let refusal = Focus
        .explain_refusal(pos, player, Attempt::Text(text))
        .unwrap_or_else(|| panic!("`{text}` for seat {player} is explained as legal"));
    let error = Focus.parse_action(pos, player, text).unwrap_err();
    assert_eq!(error.message, refusal.message, "`{text}`");
    assert_eq!(
        error.kind == ErrorKind::InvalidNotation,
        refusal.notation,
        "`{text}`: {error:?}"
    );
    assert!(refusal.is_specific(), "{refusal:?}");
    refusal
}

/// The explanation of id `action` for `player`, checked against the
/// refusal of `apply`, which changes nothing.
fn id_refused(pos: &Position, player: Player, action: u64) -> Refusal {
    let refusal = Focus
        .explain_refusal(pos, player, Attempt::Id(action))
        .unwrap_or_else(|| panic!("action {action} for seat {player} is explained as legal"));
    assert!(!refusal.notation, "an id has no notation: {refusal:?}");
    let mut copy = pos.clone();
    let error = Focus
        .apply(&mut copy, &[Joint { player, action }])
        .unwrap_err();
    assert_eq!(error.message, refusal.message, "action {action}");
    assert_eq!(&copy, pos, "a refused action changes nothing");
    refusal
}

fn id(text: &str) -> u64 {
    Move::parse(text).unwrap().id()
}

/// What a seat tried: a text, or an action id.
#[derive(Debug, Clone, Copy)]
enum Tried<'a> {
    Text(&'a str),
    Id(u64),
}
use Tried::{Id, Text};

/// Each case, `(seat, tried, code, words)`, is refused on `pos` with the
/// code and a sentence that says `words` (checked as [`text_refused`] and
/// [`id_refused`] check).
fn refuses(pos: &Position, cases: &[(Player, Tried<'_>, &str, &str)]) {
    for &(seat, tried, code, words) in cases {
        let refusal = match tried {
            Text(text) => text_refused(pos, seat, text),
            Id(action) => id_refused(pos, seat, action),
        };
        assert_eq!(
            refusal.reason, code,
            "{tried:?} for seat {seat}: {refusal:?}"
        );
        assert!(
            refusal.message.contains(words),
            "{tried:?} for seat {seat}: {refusal:?}"
        );
    }
}

/// Asserts the code and that the sentence says `words`.
fn says(refusal: &Refusal, code: &str, words: &str) {
    assert_eq!(refusal.reason, code, "{refusal:?}");
    assert!(refusal.message.contains(words), "{refusal:?}");
}

#[test]
fn a_text_that_does_not_read_says_which_part_is_wrong() {
    let pos = start(2);
    for (text, code, words) in [
        ("", "NOT_A_MOVE", "write moves like `c3-e3`"),
        ("c3", "NOT_A_MOVE", "(F11)"),
        ("zz99-c3", "NOT_A_SQUARE", "`zz99` is not a square"),
        ("c1-a1", "NO_SUCH_SQUARE", "a1 is a corner square"),
        ("c3-c3", "SAME_SQUARE", "(F5)"),
        ("b2-c3", "NOT_IN_LINE", "along its file or rank (F5)"),
    ] {
        let refusal = text_refused(&pos, 0, text);
        assert!(refusal.notation, "`{text}`: {refusal:?}");
        says(&refusal, code, words);
    }
    // A hostile text is quoted in part.
    let long = text_refused(&pos, 0, &"x".repeat(10_000));
    assert!(long.message.len() < 400, "{}", long.message.len());
}

#[test]
fn ids_that_name_no_move_say_so() {
    // c1 one square west: b1 does not exist.
    let c1_west = Move::Shift {
        from: "c1".parse().unwrap(),
        direction: focus::Direction::West,
        k: 1,
    };
    refuses(
        &start(2),
        &[
            (
                0,
                Id(1400),
                "NO_SUCH_ACTION",
                "action 1400 is no Focus action",
            ),
            (0, Id(u64::MAX), "NO_SUCH_ACTION", "(F11)"),
            // Id 0 moves from a1, which the board lacks (F1).
            (0, Id(0), "NO_SUCH_SQUARE", "names a1"),
            (
                0,
                Id(c1_west.id()),
                "OFF_BOARD",
                "moving 1 square west from c1 leaves the board (F1, F5)",
            ),
        ],
    );
}

#[test]
fn the_seat_the_turn_and_the_end_come_before_the_move() {
    refuses(
        &start(2),
        &[
            (5, Text("b2-b3"), "NO_SUCH_SEAT", "there is no seat 5"),
            (
                1,
                Text("b3-b4"),
                "NOT_YOUR_TURN",
                "it is seat 0 (P1)'s turn, not seat 1 (P2)'s (F2",
            ),
            (1, Id(id("b3-b4")), "NOT_YOUR_TURN", "seat 0 (P1)"),
        ],
    );
    // Player 3 has won by captures (F8); player 2 is out (F7).
    let mut near = crate::rulings::three_player_near_win();
    refuses(
        &near,
        &[
            (
                1,
                Text("b5-c5"),
                "PLAYER_OUT",
                "seat 1 (P2) is out of the game",
            ),
            (
                0,
                Text("d5-d4"),
                "NOT_YOUR_TURN",
                "it is seat 2 (P3)'s turn, not seat 0 (P1)'s (F4",
            ),
        ],
    );
    near.play(2, Move::parse("b5-d5").unwrap()).unwrap();
    refuses(
        &near,
        &[
            (
                0,
                Text("d5-d4"),
                "GAME_OVER",
                "a player won by captures or removals (F8)",
            ),
            (2, Id(id("d5-d4")), "GAME_OVER", "(F8)"),
        ],
    );
}

#[test]
fn a_move_the_board_does_not_allow_names_the_tower() {
    let pos = start(2);
    refuses(
        &pos,
        &[
            (
                0,
                Text("c1-c2"),
                "EMPTY_SQUARE",
                "there is no tower on c1 to move (F5)",
            ),
            (
                0,
                Text("d2-d3"),
                "NOT_YOUR_TOWER",
                "the tower on d2 belongs to seat 1 (P2)",
            ),
            (
                0,
                Text("b2-b4"),
                "TOO_FAR",
                "the tower on b2 has 1 piece; it cannot move 2 (F5",
            ),
            (
                0,
                Text("*d4"),
                "NO_RESERVE",
                "seat 0 (P1) has no piece in reserve to drop (F5)",
            ),
            (0, Id(id("*d4")), "NO_RESERVE", "seat 0 (P1)"),
        ],
    );
    // Six squares read, but no tower can move them: a refusal of the move,
    // not of its notation.
    let refusal = text_refused(&pos, 0, "c2-c8");
    assert!(!refusal.notation, "{refusal:?}");
    says(&refusal, "TOO_FAR", "cannot move 6");
}

#[test]
fn the_opening_swap_is_explained_when_it_is_missing_wrong_or_late() {
    refuses(
        &start(2),
        &[(
            0,
            Text("b2<>d2"),
            "NO_SWAP_NOW",
            "option `opening_swap` is none (F9)",
        )],
    );
    let mut chosen = swap_start(OpeningSwap::Chosen);
    refuses(
        &chosen,
        &[
            (
                0,
                Text("b2-b3"),
                "SWAP_FIRST",
                "the opening swap comes first",
            ),
            (
                1,
                Text("b3-b4"),
                "NOT_YOUR_TURN",
                "P1 chooses the opening swap",
            ),
            (
                0,
                Text("d2<>b2"),
                "SWAP_WRONG_PIECES",
                "a single R piece (the first square)",
            ),
            (
                0,
                Text("b2<>g7"),
                "SWAP_KEEPS_SYMMETRY",
                "each other's half-turn images",
            ),
        ],
    );
    let swap = Focus.parse_action(&chosen, 0, "b2<>d2").unwrap();
    Focus
        .apply(
            &mut chosen,
            &[Joint {
                player: 0,
                action: swap,
            }],
        )
        .unwrap();
    refuses(
        &chosen,
        &[(
            0,
            Text("c2<>d3"),
            "NO_SWAP_NOW",
            "once, before the first move (F9)",
        )],
    );
    refuses(
        &swap_start(OpeningSwap::Random),
        &[(
            0,
            Text("b2-b3"),
            "NOT_YOUR_TURN",
            "chance makes the opening swap",
        )],
    );
}

#[test]
fn legal_ids_and_texts_are_explained_as_legal() {
    for players in 2..=4 {
        let pos = start(players);
        let mut legal = Vec::new();
        Focus.legal_actions(&pos, 0, &mut legal);
        let space = Focus.action_space(&pos);
        for action in 0..space {
            let explained = Focus.explain_refusal(&pos, 0, Attempt::Id(action));
            assert_eq!(
                explained.is_none(),
                legal.contains(&action),
                "action {action}: {explained:?}"
            );
        }
        for &action in &legal {
            let text = Focus.action_to_string(&pos, 0, action).unwrap();
            assert_eq!(Focus.explain_refusal(&pos, 0, Attempt::Text(&text)), None);
        }
    }
}

#[test]
fn the_action_space_holds_every_id_a_match_uses_and_no_more() {
    let plain = start(2);
    let chosen = swap_start(OpeningSwap::Chosen);
    assert_eq!(Focus.action_space(&plain), focus::SHIFTS_AND_DROPS);
    assert_eq!(Focus.action_space(&chosen), focus::WITH_SWAPS);
    // The last id of each space names a move (the last drop, the last
    // swap); the ids beyond name nothing.
    assert_eq!(
        Move::from_id(focus::SHIFTS_AND_DROPS - 1),
        Some(Move::parse("*f8").unwrap())
    );
    assert_eq!(
        Move::from_id(focus::WITH_SWAPS - 1),
        Some(Move::parse("f8<>f8").unwrap())
    );
    for action in focus::SHIFTS_AND_DROPS..focus::SWAP_BASE {
        assert_eq!(Move::from_id(action), None, "{action}");
    }
    for action in focus::WITH_SWAPS..focus::WITH_SWAPS + 200 {
        assert_eq!(Move::from_id(action), None, "{action}");
    }
}

#[test]
fn the_readme_lists_every_reason_code_with_its_ruling() {
    let readme = include_str!("../README.md");
    for (code, ruling) in IllegalMove::CODES.iter().chain(&NotationError::CODES) {
        let row = format!("| `{code}` | {ruling} |");
        assert!(readme.contains(&row), "the README has no row `{row}`");
    }
}
