//! One or more tests per ruling, positive and negative.

use focus::{
    Direction, EndReason, Focus, IllegalMove, Mirror, Move, OpeningSwap, Position, Rules, Side,
    Square, perft,
};
use tabletop_sdk::{Chance, DynGame, ErrorKind, Game, InProcess, Move as Joint, Status};

use crate::support::{board, options, position, position_with};

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

fn mv(text: &str) -> Move {
    Move::parse(text).unwrap()
}

fn pieces(pos: &Position, s: &str) -> Vec<u8> {
    pos.tower(sq(s)).pieces().collect()
}

fn start(players: u32) -> Position {
    Position::start(Rules::standard(players).unwrap())
}

// ---------------------------------------------------------------- F1 / F5

#[test]
fn f1_a_move_off_the_board_is_refused() {
    // R: a single tower of 2 on c1 (18 = 2 + 16 captured); G: one on f6.
    let text = format!(
        "{} 1 reserves=0,0 captures=0,17/16,0 removed=17,16",
        board(&[("c1", "11"), ("f6", "2")])
    );
    let mut pos = position(2, &text);
    let before = pos.clone();
    for (direction, k) in [
        (Direction::West, 1),
        (Direction::South, 1),
        (Direction::West, 2),
    ] {
        let m = Move::Shift {
            from: sq("c1"),
            direction,
            k,
        };
        assert!(
            matches!(pos.play(0, m), Err(IllegalMove::OffBoard { .. })),
            "{direction:?} {k}"
        );
    }
    assert!(Move::parse("c1-a1").is_err(), "a1 is not a square (F1)");
    assert_eq!(pos, before, "refused moves change nothing");
    // The same through the Game boundary, by id.
    let id = Move::Shift {
        from: sq("c1"),
        direction: Direction::West,
        k: 1,
    }
    .id();
    let e = Focus
        .apply(
            &mut pos,
            &[Joint {
                player: 0,
                action: id,
            }],
        )
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::IllegalAction);
    assert!(e.message.contains("leaves the board"), "{}", e.message);
    // North two squares is fine and jumps nothing in particular.
    pos.play(0, mv("c1-c3")).unwrap();
    assert_eq!(pieces(&pos, "c3"), [0, 0]);
}

#[test]
fn f5_k_larger_than_the_tower_is_refused() {
    let mut pos = start(2);
    let e = pos.play(0, mv("b2-b4")).unwrap_err();
    assert!(
        matches!(
            e,
            IllegalMove::TooFar {
                k: 2,
                height: 1,
                ..
            }
        ),
        "{e}"
    );
    let e = Focus.parse_action(&pos, 0, "b2-b4").unwrap_err();
    assert_eq!(e.kind, ErrorKind::IllegalAction);
    assert!(e.message.contains("cannot move 2"), "{}", e.message);
}

#[test]
fn f5_only_own_towers_move_and_only_on_ones_turn() {
    let mut pos = start(2);
    assert!(matches!(
        pos.play(0, mv("d2-d3")),
        Err(IllegalMove::NotYourTower { .. })
    ));
    assert!(matches!(
        pos.play(1, mv("d2-d3")),
        Err(IllegalMove::NotYourTurn {
            seat: 1,
            to_move: Some(0),
            ..
        })
    ));
    assert!(matches!(
        pos.play(0, mv("b3-b4")),
        Err(IllegalMove::NotYourTower { .. })
    ));
}

#[test]
fn f5_towers_move_exactly_k_squares_jumping_what_lies_between() {
    let mut pos = start(2);
    pos.play(0, mv("b2-c2")).unwrap(); // R on R: c2 = RR
    pos.play(1, mv("d2-d3")).unwrap(); // G on R
    assert_eq!(pieces(&pos, "c2"), [0, 0]);
    // Two pieces move two squares, over d2 (now empty) onto e2.
    pos.play(0, mv("c2-e2")).unwrap();
    assert_eq!(pieces(&pos, "c2"), Vec::<u8>::new());
    assert_eq!(pieces(&pos, "e2"), [1, 0, 0]);
    // One of the two moves one square: the rest stays.
    pos.play(1, mv("d3-d4")).unwrap();
    assert_eq!(pieces(&pos, "d3"), [0]);
    assert_eq!(pieces(&pos, "d4"), [1, 1]);
}

#[test]
fn f5_dropping_with_an_empty_reserve_is_refused() {
    let mut pos = start(2);
    assert_eq!(pos.play(0, mv("*d4")), Err(IllegalMove::NoReserve(0)));
    let e = Focus.parse_action(&pos, 0, "*d4").unwrap_err();
    assert!(e.message.contains("reserve"), "{}", e.message);
    // With three players everyone starts with one (F4) and may drop anywhere.
    let mut three = start(3);
    three.play(0, mv("*d4")).unwrap();
    assert_eq!(pieces(&three, "d4"), [0, 0]);
    assert_eq!(three.reserve(0), 0);
    assert_eq!(three.play(1, mv("*d4")).map(|_| three.reserve(1)), Ok(0));
}

// ---------------------------------------------------------------- F2–F4

#[test]
fn f2_to_f4_start_positions_hold_the_right_pieces() {
    for (players, each, reserve) in [(2u32, 18, 0), (3, 13, 1), (4, 13, 0)] {
        let pos = start(players);
        for c in 0..players as u8 {
            let on_board: usize = Square::all().map(|s| pos.tower(s).count(c)).sum();
            assert_eq!(
                on_board as u32 + pos.reserve(c),
                each,
                "{players}p colour {c}"
            );
            assert_eq!(pos.reserve(c), reserve);
        }
        assert_eq!(pos.side(), Side::ToMove(0), "player 1 moves first");
    }
    let two = start(2);
    assert_eq!(pieces(&two, "b2"), [0]);
    assert_eq!(pieces(&two, "d2"), [1]);
    assert_eq!(pieces(&two, "b3"), [1]);
    assert_eq!(pieces(&two, "a3"), Vec::<u8>::new());
}

#[test]
fn f3_four_player_layout_turns_onto_itself_with_colours_cycling() {
    let pos = start(4);
    // A quarter turn: (file, rank) -> (rank, 7 - file).
    let turn = |s: Square| Square::new(s.rank(), 7 - s.file()).unwrap();
    let mut map = [None::<u8>; 4];
    for s in Square::all() {
        let from = pos.tower(s).top().unwrap();
        let to = pos.tower(turn(s)).top().unwrap();
        assert_eq!(
            *map[usize::from(from)].get_or_insert(to),
            to,
            "inconsistent at {s}"
        );
    }
    let map: Vec<u8> = map.iter().map(|m| m.unwrap()).collect();
    // A 4-cycle whose square (the half turn) swaps partners 1<->2 and 3<->4.
    assert!((0..4).all(|c| map[c] != c as u8));
    let half: Vec<u8> = (0..4).map(|c| map[usize::from(map[c])]).collect();
    assert_eq!(half, [1, 0, 3, 2]);
}

#[test]
fn f3_four_players_move_in_order_1_3_2_4() {
    let mut pos = start(4);
    let mut order = Vec::new();
    let mut legal = Vec::new();
    for _ in 0..8 {
        let Side::ToMove(p) = pos.side() else {
            panic!()
        };
        order.push(p + 1);
        pos.legal_actions(p, &mut legal);
        pos.play(p, Move::from_id(legal[0]).unwrap()).unwrap();
    }
    assert_eq!(order, [1, 3, 2, 4, 1, 3, 2, 4]);
}

// ---------------------------------------------------------------- F6

#[test]
fn f6_overflow_with_mixed_colours() {
    // R moves 2 onto a tower of 5 (bottom R, G, R, G, G): the bottom two go,
    // R's own piece to R's reserve, G's piece captured.
    let text = format!(
        "{} 1 reserves=0,0 captures=0,14/14,0 removed=14,14",
        board(&[("d4", "12122"), ("d6", "11"), ("e5", "2")])
    );
    let mut pos = position(2, &text);
    pos.play(0, mv("d6-d4")).unwrap();
    assert_eq!(pieces(&pos, "d4"), [0, 1, 1, 0, 0]);
    assert_eq!(pos.reserve(0), 1);
    assert_eq!(pos.captured(0, 1), 15);
    assert_eq!(pos.removed(0), 16);
    assert_eq!(
        pos.reserve(1),
        0,
        "nothing goes to another player's reserve"
    );
}

#[test]
fn f6_a_drop_on_a_full_tower_removes_one() {
    let text = format!(
        "{} 2 reserves=0,2 captures=0,11/13,0 removed=11,13",
        board(&[("d4", "11111"), ("e5", "22222")])
    );
    let mut pos = position(2, &text);
    pos.play(1, mv("*d4")).unwrap();
    assert_eq!(pieces(&pos, "d4"), [0, 0, 0, 0, 1]);
    assert_eq!(pos.captured(1, 0), 14);
    assert_eq!(pos.reserve(1), 1);
    // No overflow below six: a drop on four makes five.
    let text = format!(
        "{} 2 reserves=0,1 captures=0,12/14,0 removed=12,14",
        board(&[("d4", "1111"), ("e5", "22222")])
    );
    let mut pos = position(2, &text);
    pos.play(1, mv("*d4")).unwrap();
    assert_eq!(pieces(&pos, "d4"), [0, 0, 0, 0, 1]);
    assert_eq!(pos.removed(1), 14);
}

// ---------------------------------------------------------------- F7

#[test]
fn f7_last_player_standing_wins_and_going_out_is_not_a_move() {
    // G's only tower is e4; R covers it, and G is out when the turn passes.
    let text = format!(
        "{} 1 reserves=0,0 captures=0,17/15,0 removed=17,15 moves=10",
        board(&[("d4", "11"), ("e4", "2"), ("c6", "1")])
    );
    let mut pos = position(2, &text);
    pos.play(
        0,
        Move::Shift {
            from: sq("d4"),
            direction: Direction::East,
            k: 1,
        },
    )
    .unwrap();
    assert_eq!(pos.side(), Side::Over);
    assert_eq!(pos.out_order(), [1]);
    assert_eq!(pos.moves(), 11, "putting G out added no move");
    let outcome = pos.outcome().unwrap();
    assert_eq!(
        (outcome.winners, outcome.reason),
        (0b01, EndReason::LastStanding)
    );
    let results = Focus.results(&pos);
    assert_eq!((results[0].rank, results[1].rank), (1, 2));
    assert_eq!(Focus.status(&pos), Status::Terminal);
}

#[test]
fn f7_a_player_without_moves_is_out_only_when_the_turn_reaches_them() {
    // Three players; player 2 owns nothing but is not out until their turn.
    // Player 1 uncovers a player-2 piece first, so player 2 plays on.
    let text = format!(
        "{} 1 reserves=0,0,0 captures=0,6,0/1,0,4/2,6,0 removed=6,5,8",
        board(&[
            ("d4", "1121"),
            ("c6", "11111"),
            ("f4", "33333"),
            ("g5", "3333"),
            ("b4", "11")
        ])
    );
    let mut pos = position(3, &text);
    pos.play(0, mv("d4-d5")).unwrap();
    assert_eq!(pos.side(), Side::ToMove(1), "player 2 owns d4 again");
    assert!(pos.out_order().is_empty());
}

#[test]
fn f7_a_player_back_on_top_after_being_out_stays_out() {
    // Player 2 is out. Player 1 moves the top piece off e4, uncovering a
    // player-2 piece: the turn still goes from 1 straight to 3.
    let text = format!(
        "{} 1 reserves=0,0,0 captures=0,4,1/2,0,4/2,3,0 removed=8,6,11 out=2",
        board(&[
            ("e4", "3121"),
            ("c6", "11111"),
            ("f5", "3333"),
            ("g4", "33"),
            ("b4", "2223"),
            ("d6", "2211")
        ])
    );
    let rules = Rules::standard(3).unwrap();
    // Removed 11 for player 3 would already be a win (F8): the text is refused.
    let raw = focus::read_position(&text, 3).unwrap();
    assert!(Position::from_raw(&raw, rules).is_err());
    let text = text.replace("removed=8,6,11", "removed=8,6,9");
    let mut pos = position(3, &text);
    pos.play(0, mv("e4-e5")).unwrap();
    assert_eq!(pieces(&pos, "e4"), [2, 0, 1]);
    assert_eq!(
        pos.tower(sq("e4")).top(),
        Some(1),
        "a player-2 piece is on top"
    );
    assert_eq!(pos.side(), Side::ToMove(2), "player 2 is skipped");
    let mut legal = Vec::new();
    pos.legal_actions(1, &mut legal);
    assert!(legal.is_empty());
    assert_eq!(pos.out_order(), [1]);
    pos.play(2, mv("g4-g5")).unwrap();
    assert_eq!(pos.side(), Side::ToMove(0), "from 3 back to 1, skipping 2");
}

#[test]
fn f7_team_win_with_four_players() {
    // Team 3+4: player 3 is out, player 4 has one piece, d4. Player 1
    // covers it; player 2 moves; then player 4 is out and 1+2 win.
    let text = "\
        .,.,.,./.,.,.,.,.,./.,.,.,.,3331,.,.,./.,.,2,.,.,.,.,./.,.,.,4,.,.,.,./.,.,.,1,.,12,.,./.,.,.,.,.,./.,.,.,. 1 \
        reserves=0,1,0,0 captures=0,2,5,6/3,0,3,4/4,4,0,2/3,4,2,0 removed=15,10,12,9 out=3 moves=500";
    let mut pos = position(4, text);
    pos.play(0, mv("d3-d4")).unwrap();
    assert_eq!(
        pos.side(),
        Side::ToMove(1),
        "player 3 is skipped; 4 is not out yet"
    );
    assert_eq!(pos.out_order(), [2]);
    pos.play(1, mv("c5-c6")).unwrap();
    assert_eq!(pos.side(), Side::Over);
    assert_eq!(pos.out_order(), [2, 3]);
    let outcome = pos.outcome().unwrap();
    assert_eq!(
        (outcome.winners, outcome.reason),
        (0b0011, EndReason::LastStanding)
    );
    let ranks: Vec<u32> = Focus.results(&pos).iter().map(|r| r.rank).collect();
    assert_eq!(ranks, [1, 1, 3, 3]);
}

#[test]
fn f7_a_team_plays_on_while_one_member_is_in() {
    let text = "\
        .,.,.,./.,.,.,.,.,./.,.,.,.,3331,.,.,./.,.,2,.,.,.,.,./.,.,.,4,.,.,.,./.,.,.,1,.,12,.,./.,.,.,.,.,./.,.,.,. 1 \
        reserves=0,1,0,0 captures=0,2,5,6/3,0,3,4/4,4,0,2/3,4,2,0 removed=15,10,12,9 out=3 moves=500";
    let mut pos = position(4, text);
    pos.play(0, mv("d3-d2")).unwrap();
    pos.play(1, mv("c5-c6")).unwrap();
    assert_eq!(pos.side(), Side::ToMove(3), "player 4 still owns d4");
}

// ---------------------------------------------------------------- F8

pub fn three_player_near_win() -> Position {
    // Player 3 has captured 2 of player 1 and 6 of player 2; b5-d5 overflows
    // d5 (four of player 1) by one player-1 piece: the third.
    position(
        3,
        ".,.,.,./.,.,.,.,.,./.,.,.,.,.,.,.,./.,1133,.,1111,.,31,.,./.,.,112,13,.,.,.,./.,.,.,.,3,.,.,./.,.,.,.,.,./.,.,.,. 3 \
         reserves=0,0,1 captures=0,6,2/1,0,5/2,6,0 removed=9,7,8 out=2 moves=321",
    )
}

#[test]
fn f8_three_of_each_opponent_wins_at_once() {
    let mut pos = three_player_near_win();
    pos.play(2, mv("b5-d5")).unwrap();
    assert_eq!(pos.captured(2, 0), 3);
    assert_eq!(pos.side(), Side::Over);
    let outcome = pos.outcome().unwrap();
    assert_eq!(
        (outcome.winners, outcome.reason),
        (0b100, EndReason::Domination)
    );
    let ranks: Vec<u32> = Focus.results(&pos).iter().map(|r| r.rank).collect();
    assert_eq!(
        ranks,
        [2, 3, 1],
        "player 1 still in beats player 2, who is out"
    );
}

#[test]
fn f8_a_move_without_the_third_capture_does_not_win() {
    let mut pos = three_player_near_win();
    pos.play(2, mv("d4-d5")).unwrap(); // 1 + 4 = 5: no overflow
    assert_eq!(pos.side(), Side::ToMove(0));
}

#[test]
fn f8_ten_removals_win_own_pieces_included() {
    // Player 1 has removed 9; dropping on a full tower of their own removes
    // their own bottom piece: the tenth.
    let text = format!(
        "{} 1 reserves=1,1,0 captures=0,2,0/3,0,2/2,1,0 removed=9,5,3",
        board(&[
            ("d4", "11111"),
            ("e4", "222"),
            ("f4", "22222"),
            ("c4", "33333"),
            ("d6", "3333"),
            ("c3", "13"),
            ("e6", "3"),
            ("f6", "1"),
            ("b4", "2")
        ])
    );
    let mut pos = position(3, &text);
    pos.play(0, mv("*d4")).unwrap();
    assert_eq!(pos.removed(0), 10);
    assert_eq!(
        pos.reserve(0),
        1,
        "the removed own piece went back to reserve"
    );
    assert_eq!(pos.outcome().map(|o| o.reason), Some(EndReason::Domination));
}

#[test]
fn f8_does_not_apply_to_two_or_four_players() {
    // Two players: 10 removals are no win.
    let text = format!(
        "{} 1 reserves=1,0 captures=0,12/9,0 removed=12,9",
        board(&[("d4", "22222"), ("e5", "11111"), ("c3", "111"), ("f6", "2")])
    );
    let mut pos = position(2, &text);
    pos.play(0, mv("*d4")).unwrap();
    assert_eq!(pos.removed(0), 13);
    assert_eq!(pos.side(), Side::ToMove(1));
}

// ---------------------------------------------------------------- F9

fn two_player(max_turns: i64, symmetry_rule: bool, swap: OpeningSwap) -> Rules {
    Rules::new(2, max_turns, symmetry_rule, swap, false).unwrap()
}

#[test]
fn f9_symmetry_rule_triggers_when_player_2_always_mirrors() {
    let mut pos = Position::start(two_player(4, true, OpeningSwap::None));
    // Each G move is the half-turn image of R's move before it.
    for (r, g) in [("b2-c2", "g7-f7"), ("c4-c5", "f5-f4")] {
        pos.play(0, mv(r)).unwrap();
        assert!(!pos.is_symmetric());
        pos.play(1, mv(g)).unwrap();
        assert!(pos.is_symmetric(), "{g} restores the symmetry");
        assert_eq!(pos.mirror(), Mirror::Holding);
    }
    // The turn limit (F10) ends the game; the symmetry rule gives it to R.
    assert_eq!(pos.side(), Side::Over);
    let outcome = pos.outcome().unwrap();
    assert_eq!(
        (outcome.winners, outcome.reason),
        (0b01, EndReason::SymmetryRule)
    );
    let ranks: Vec<u32> = Focus.results(&pos).iter().map(|r| r.rank).collect();
    assert_eq!(ranks, [1, 2]);
}

#[test]
fn f9_symmetry_rule_does_not_trigger_after_one_asymmetric_reply() {
    let mut pos = Position::start(two_player(4, true, OpeningSwap::None));
    pos.play(0, mv("b2-c2")).unwrap();
    pos.play(1, mv("g7-f7")).unwrap();
    pos.play(0, mv("c4-c5")).unwrap();
    pos.play(1, mv("b5-b6")).unwrap(); // not the image of c4-c5 (that is f5-f4)
    assert_eq!(pos.mirror(), Mirror::Broken);
    let outcome = pos.outcome().unwrap();
    assert_eq!(
        (outcome.winners, outcome.reason),
        (0b11, EndReason::TurnLimit)
    );
    // Without the option the same mirrored game is a plain draw.
    let mut plain = Position::start(two_player(4, false, OpeningSwap::None));
    for m in ["b2-c2", "g7-f7", "c4-c5", "f5-f4"] {
        let p = plain.to_move().unwrap();
        plain.play(p, mv(m)).unwrap();
    }
    assert_eq!(plain.outcome().unwrap().reason, EndReason::TurnLimit);
    let ranks: Vec<u32> = Focus.results(&plain).iter().map(|r| r.rank).collect();
    assert_eq!(ranks, [1, 1]);
}

#[test]
fn f9_random_opening_swap_is_an_explicit_uniform_chance_node() {
    let pos = Position::start(two_player(1000, false, OpeningSwap::Random));
    assert_eq!(Focus.status(&pos), Status::Chance);
    let Chance::Explicit(outcomes) = Focus.chance(&pos) else {
        panic!("explicit")
    };
    // 18 R squares × 18 G squares, minus each R square's half-turn image.
    assert_eq!(outcomes.len(), 18 * 18 - 18);
    assert!(
        outcomes
            .iter()
            .all(|&(_, p)| (p - 1.0 / 306.0).abs() < 1e-12)
    );
    let b2_g7 = focus::swap_code(sq("b2"), sq("g7"));
    assert!(
        outcomes.iter().all(|&(o, _)| o != b2_g7),
        "images are not allowed"
    );
    let mut refused = pos.clone();
    assert!(Focus.apply_chance(&mut refused, b2_g7).is_err());
    assert_eq!(refused, pos);
    let mut swapped = pos.clone();
    Focus
        .apply_chance(&mut swapped, focus::swap_code(sq("b2"), sq("d2")))
        .unwrap();
    assert_eq!(pieces(&swapped, "b2"), [1]);
    assert_eq!(pieces(&swapped, "d2"), [0]);
    assert!(!swapped.is_symmetric());
    assert_eq!(swapped.side(), Side::ToMove(0));
    assert_eq!(swapped.moves(), 0, "the swap is not a move (F10)");
}

#[test]
fn f9_chosen_opening_swap_is_player_1s_opening_action() {
    let mut pos = Position::start(two_player(1000, false, OpeningSwap::Chosen));
    let mut legal = Vec::new();
    pos.legal_actions(0, &mut legal);
    assert_eq!(legal.len(), 306);
    pos.legal_actions(1, &mut legal);
    assert!(legal.is_empty());
    assert_eq!(pos.play(0, mv("b2-c2")), Err(IllegalMove::SwapFirst));
    assert!(matches!(
        pos.play(0, mv("b2<>g7")),
        Err(IllegalMove::SwapKeepsSymmetry { .. })
    ));
    assert!(matches!(
        pos.play(0, mv("d2<>b2")),
        Err(IllegalMove::SwapWrongPieces { .. })
    ));
    let id = Focus.parse_action(&pos, 0, "b2<>d2").unwrap();
    Focus
        .apply(
            &mut pos,
            &[Joint {
                player: 0,
                action: id,
            }],
        )
        .unwrap();
    assert_eq!(
        pos.side(),
        Side::ToMove(0),
        "player 1 then makes the first move"
    );
    assert_eq!(pos.moves(), 0);
    assert_eq!(
        pos.play(0, mv("c2<>d3")),
        Err(IllegalMove::NoSwapNow { in_match: true })
    );
    // R's edge piece b2 (2 moves) became d2 (4 moves: d1 exists): 68 - 2 + 4.
    assert_eq!(perft(&pos, 1), 70);
}

// ---------------------------------------------------------------- F10

#[test]
fn f10_turn_limit_draws_and_shares_first_place() {
    let mut pos = Position::start(Rules::new(3, 3, false, OpeningSwap::None, false).unwrap());
    for m in ["*d4", "*e4", "*f4"] {
        let p = pos.to_move().unwrap();
        pos.play(p, mv(m)).unwrap();
    }
    assert_eq!(pos.moves(), 3);
    assert_eq!(pos.outcome().unwrap().reason, EndReason::TurnLimit);
    let ranks: Vec<u32> = Focus.results(&pos).iter().map(|r| r.rank).collect();
    assert_eq!(ranks, [1, 1, 1]);
    let mut legal = Vec::new();
    pos.legal_actions(0, &mut legal);
    assert!(legal.is_empty());
    assert_eq!(
        pos.play(0, mv("b2-c2")),
        Err(IllegalMove::GameOver(Some(EndReason::TurnLimit)))
    );
}

#[test]
fn f10_a_win_on_the_last_move_is_a_win() {
    let text = format!(
        "{} 1 reserves=0,0 captures=0,17/16,0 removed=17,16 moves=9",
        board(&[("d4", "11"), ("e4", "2")])
    );
    let rules = Rules::new(2, 10, false, OpeningSwap::None, false).unwrap();
    let mut pos = position_with(rules, &text);
    pos.play(
        0,
        Move::Shift {
            from: sq("d4"),
            direction: Direction::East,
            k: 1,
        },
    )
    .unwrap();
    assert_eq!(pos.outcome().unwrap().reason, EndReason::LastStanding);
}

// ---------------------------------------------------------------- F11

#[test]
fn f11_notation_and_position_text_round_trip() {
    let mut pos = start(3);
    let mut legal = Vec::new();
    for step in 0..60 {
        let p = pos.to_move().unwrap();
        pos.legal_actions(p, &mut legal);
        for &id in &legal {
            let text = Focus.action_to_string(&pos, u32::from(p), id).unwrap();
            assert_eq!(Focus.parse_action(&pos, u32::from(p), &text).unwrap(), id);
        }
        let text = focus::write_position(&pos.to_raw());
        let again = position(3, &text);
        assert_eq!(again, pos);
        pos.play(p, Move::from_id(legal[(step * 7) % legal.len()]).unwrap())
            .unwrap();
    }
    assert_eq!(Move::parse("c3-e3").unwrap().to_string(), "c3-e3");
    assert_eq!(Move::parse(" *D4 ").unwrap().to_string(), "*d4");
}

#[test]
fn f11_impossible_positions_are_refused() {
    let cases = [
        // 17 R pieces in all.
        (format!("{} 1", board(&[("d4", "1"), ("e4", "2")])), "not 18"),
        // Side to move has nothing (F7).
        (
            format!(
                "{} 2 captures=0,0/0,0 reserves=0,0",
                board(&[("b2", "11111"), ("c2", "11111"), ("e2", "111"), ("b3", "22221"), ("c3", "22221"), ("d3", "22221"), ("e3", "22221"), ("f3", "221")])
            ),
            "no tower",
        ),
        // Over, but nothing ended.
        (
            ".,.,.,./2,2,1,1,2,2/.,1,1,2,2,1,1,./.,2,2,1,1,2,2,./.,1,1,2,2,1,1,./.,2,2,1,1,2,2,./1,1,2,2,1,1/.,.,.,. -".to_string(),
            "no end condition",
        ),
        // A swap pending without the option.
        (
            ".,.,.,./2,2,1,1,2,2/.,1,1,2,2,1,1,./.,2,2,1,1,2,2,./.,1,1,2,2,1,1,./.,2,2,1,1,2,2,./1,1,2,2,1,1/.,.,.,. swap".to_string(),
            "opening_swap",
        ),
    ];
    let rules = Rules::standard(2).unwrap();
    for (text, expected) in cases {
        let raw = focus::read_position(&text, 2).unwrap();
        let e = Position::from_raw(&raw, rules).unwrap_err();
        assert!(e.to_string().contains(expected), "{e} for {text}");
    }
}

// ---------------------------------------------------------------- options

#[test]
fn options_are_validated_with_clear_errors() {
    let game = InProcess::new(Focus);
    type Case<'a> = (u32, &'a [(&'a str, &'a str)], &'a str);
    let cases: [Case<'_>; 8] = [
        (2, &[("colour", "red")], "unknown option `colour`"),
        (2, &[("max_turns", "many")], "must be an integer"),
        (2, &[("max_turns", "0")], "between 1 and"),
        (
            2,
            &[("opening_swap", "maybe")],
            "one of none, random, chosen",
        ),
        (3, &[("symmetry_rule", "true")], "only to two-player"),
        (4, &[("opening_swap", "random")], "only to two-player"),
        (3, &[("opening_swap", "chosen")], "only to two-player"),
        (2, &[("team_talk", "true")], "only to four-player"),
    ];
    for (players, raw, expected) in cases {
        let e = game
            .new_state(players, &options(raw), None)
            .err()
            .expect("refused");
        assert_eq!(e.kind, ErrorKind::InvalidOption);
        assert!(e.message.contains(expected), "{}", e.message);
    }
    let e = game
        .new_state(5, &options(&[]), None)
        .err()
        .expect("refused");
    assert!(e.message.contains("2 to 4 players"), "{}", e.message);
    assert!(
        game.new_state(4, &options(&[("team_talk", "true")]), None)
            .is_ok()
    );
    assert!(
        game.new_state(
            2,
            &options(&[("symmetry_rule", "true"), ("opening_swap", "chosen")]),
            None
        )
        .is_ok()
    );
}

// ---------------------------------------------------------------- views

#[test]
fn view_lists_towers_reserves_captures_out_and_side() {
    let pos = three_player_near_win();
    let view = serde_json::to_value(Focus.view(&pos, tabletop_sdk::Viewer::Spectator)).unwrap();
    assert_eq!(view["towers"]["b5"], serde_json::json!([0, 0, 2, 2]));
    assert_eq!(view["towers"]["a4"], serde_json::json!([]));
    assert_eq!(view["reserves"], serde_json::json!([0, 0, 1]));
    assert_eq!(view["captures"][2], serde_json::json!([2, 6, 0]));
    assert_eq!(view["out"], serde_json::json!([1]));
    assert_eq!(view["to_move"], serde_json::json!(2));
    assert_eq!(view["towers"].as_object().unwrap().len(), 52);
    let text = Focus.render_text(&pos, tabletop_sdk::Viewer::Seat(0));
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    assert!(text.contains("4:rrbB"), "{text}");
    assert!(text.contains("Out: seat 1 (P2)\n"), "{text}");
}
