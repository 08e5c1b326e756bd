//! Whole turns through the SDK `Game` trait: starting from a position in the
//! notation, events, re-entry (L10), the end (L11), the turn limit (L12).

use std::collections::BTreeMap;

use lanza::Lanza;
use lanza::position::Position;
use tabletop_sdk::serde_json::Value;
use tabletop_sdk::{Chance, Game, Move, Setup, Status, Transition, Viewer};

fn setup(players: u32, max_turns: Option<u32>) -> Setup {
    let mut raw = BTreeMap::new();
    if let Some(m) = max_turns {
        raw.insert("max_turns".to_string(), m.to_string());
    }
    Setup::validate(&Lanza.manifest(), players, &raw).unwrap()
}

fn position(text: &str, players: u32, max_turns: Option<u32>) -> Position {
    Lanza
        .parse_position(&setup(players, max_turns), text)
        .unwrap()
}

/// Both seats' orders, by text, through `parse_action` and `apply`.
fn play(state: &mut Position, orders: &[&str]) -> Value {
    let moves: Vec<Move> = orders
        .iter()
        .enumerate()
        .map(|(p, text)| Move {
            player: p as u32,
            action: Lanza.parse_action(state, p as u32, text).unwrap(),
        })
        .collect();
    let before = state.clone();
    Lanza.apply(state, &moves).unwrap();
    Lanza.event(&before, &Transition::Moves(moves), state, Viewer::Spectator)
}

fn piece_event<'a>(event: &'a Value, piece: &str) -> &'a Value {
    event["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["piece"] == piece)
        .unwrap_or_else(|| panic!("no {piece} in {event}"))
}

const HEAD_ON: &str = "turns 0; A Kc2 Qa1 Ja3 chips 0; B Kd1 Qc3 Je3 chips 0; orders";

#[test]
fn a_turn_from_a_given_position_with_its_event() {
    let mut state = position(HEAD_ON, 2, None);
    assert_eq!(
        Lanza.status(&state),
        Status::ToMove(tabletop_sdk::PlayerSet(0b11))
    );
    let event = play(&mut state, &["K4 Q2 J1", "K4 Q1 J6"]);
    assert_eq!(
        Lanza.position_to_string(&state),
        "turns 1; A Kc3 Qb1 Ja2 chips 1; B Kd2 Q- Jd3 chips 0; place BQ"
    );
    assert_eq!(event["type"], "turn");
    assert_eq!(event["orders"][0], "K4 Q2 J1");
    let king = piece_event(&event, "AK");
    assert_eq!(
        (king["order"].as_u64(), king["from"].as_str()),
        (Some(4), Some("c2"))
    );
    assert_eq!(
        (king["result"].as_str(), king["to"].as_str()),
        (Some("moved"), Some("c3"))
    );
    let queen = piece_event(&event, "BQ");
    assert_eq!(queen["result"], "captured");
    assert_eq!(queen["captured_by"], "AK");
    assert!(queen["to"].is_null());
    assert_eq!(event["chips_won"], tabletop_sdk::serde_json::json!([1, 0]));
    assert_eq!(event["captures"][0]["chip"], true);
}

#[test]
fn the_event_names_stops_and_bounces() {
    // Ruling L6 and L7 step 1: AK on corner c1 plays N, bounces to c2 and
    // meets BK (which plays N) head-on: equal, both stop.
    let mut state = position(
        "turns 0; A Kc1 Qa1 Ja3 chips 0; B Kc2 Qc4 Je3 chips 0; orders",
        2,
        None,
    );
    let event = play(&mut state, &["K1 Q2 J3", "K1 Q3 J6"]);
    let king = piece_event(&event, "AK");
    assert_eq!(king["bounced"], true);
    assert_eq!(king["target"], "c2");
    assert_eq!(king["result"], "stopped");
    assert_eq!(king["reason"], "head_on");
    assert_eq!(king["to"], "c1");
    assert_eq!(piece_event(&event, "BK")["bounced"], false);
}

#[test]
fn a_piece_captured_after_it_stopped_keeps_its_reason_and_says_where_it_fell() {
    // Ruling L7: the Kings meet head-on and stop (step 1); AJ then enters c3,
    // where BK stands, and captures it there (step 3).
    let mut state = position(
        "turns 0; A Kc2 Qa1 Jc4 chips 0; B Kc3 Qd1 Je3 chips 0; orders",
        2,
        None,
    );
    let event = play(&mut state, &["K4 Q2 J1", "K1 Q3 J4"]);
    let king = piece_event(&event, "BK");
    assert_eq!(king["result"], "captured");
    assert_eq!(king["reason"], "head_on", "{king}");
    assert_eq!(king["before_capture"], "stopped");
    assert_eq!(king["captured_by"], "AJ");
    assert_eq!(king["captured_at"], "c3");
    assert_eq!(king["step"], 3);
    assert_eq!(piece_event(&event, "AK")["reason"], "head_on");
    let capture = &event["captures"][0];
    assert_eq!(
        (&capture["piece"], &capture["at"], &capture["step"]),
        (&Value::from("BK"), &Value::from("c3"), &Value::from(3))
    );
}

#[test]
fn a_single_captured_piece_is_placed_by_its_owner_on_an_empty_edge_field() {
    let mut state = position(HEAD_ON, 2, None);
    play(&mut state, &["K4 Q2 J1", "K4 Q1 J6"]);
    // Ruling L10: one piece needs no draw; its owner places it.
    assert_eq!(
        Lanza.status(&state),
        Status::ToMove(tabletop_sdk::PlayerSet::single(1))
    );
    let mut legal = Vec::new();
    Lanza.legal_actions(&state, 0, &mut legal);
    assert!(legal.is_empty(), "seat A waits");
    Lanza.legal_actions(&state, 1, &mut legal);
    let names: Vec<String> = legal
        .iter()
        .map(|&a| Lanza.action_to_string(&state, 1, a).unwrap())
        .collect();
    // The 12 edge fields of the 19 board minus b1 and a2, where A's pieces stand.
    assert_eq!(
        names,
        [
            "Q@a1", "Q@a3", "Q@b4", "Q@c1", "Q@c5", "Q@d1", "Q@d4", "Q@e1", "Q@e2", "Q@e3"
        ]
    );
    for refused in ["Q@b1", "Q@c2", "K@a1", "c3", "Q@z9"] {
        assert!(Lanza.parse_action(&state, 1, refused).is_err(), "{refused}");
    }
    assert_eq!(
        Lanza.parse_action(&state, 1, "a1"),
        Lanza.parse_action(&state, 1, "Q@a1")
    );
    let action = Lanza.parse_action(&state, 1, "Q@e1").unwrap();
    let before = state.clone();
    Lanza
        .apply(&mut state, &[Move { player: 1, action }])
        .unwrap();
    let event = Lanza.event(
        &before,
        &Transition::Moves(vec![Move { player: 1, action }]),
        &state,
        Viewer::Seat(0),
    );
    assert_eq!(event["type"], "place");
    assert_eq!(event["field"], "e1");
    assert_eq!(
        Lanza.position_to_string(&state),
        "turns 1; A Kc3 Qb1 Ja2 chips 1; B Kd2 Qe1 Jd3 chips 0; orders"
    );
}

const DOUBLE: &str = "turns 0; A Kc2 Qa1 Ja3 chips 2; B Kb1 Qc3 Je3 chips 2; orders";

#[test]
fn a_tie_at_three_chips_plays_on_and_reentry_order_is_drawn() {
    let mut state = position(DOUBLE, 2, None);
    play(&mut state, &["K4 Q2 J1", "K5 Q1 J6"]);
    // Ruling L11: both reach 3 in the same turn, so nobody is strictly ahead.
    assert_eq!(
        Lanza.position_to_string(&state),
        "turns 1; A Kc3 Q- Ja2 chips 3; B Ka1 Q- Jd3 chips 3; reentry AQ BQ"
    );
    assert_eq!(Lanza.status(&state), Status::Chance);
    let Chance::Explicit(outcomes) = Lanza.chance(&state) else {
        panic!("two pieces: an explicit draw")
    };
    assert_eq!(outcomes.len(), 2);
    let mut queues = Vec::new();
    for (outcome, p) in outcomes {
        assert!((p - 0.5).abs() < 1e-12);
        let mut s = state.clone();
        Lanza.apply_chance(&mut s, outcome).unwrap();
        queues.push(
            Lanza
                .position_to_string(&s)
                .rsplit(';')
                .next()
                .unwrap()
                .trim()
                .to_string(),
        );
    }
    queues.sort();
    assert_eq!(queues, ["place AQ BQ", "place BQ AQ"]);
    assert!(Lanza.apply_chance(&mut state.clone(), 2).is_err());
}

#[test]
fn three_chips_strictly_ahead_wins_before_reentry() {
    let text = "turns 0; A Kc2 Qa1 Ja3 chips 2; B Kd1 Qc3 Je3 chips 0; orders";
    let mut state = position(text, 2, None);
    let event = play(&mut state, &["K4 Q2 J1", "K4 Q1 J6"]);
    // Ruling L11: the end comes after the chips and before re-entry.
    assert_eq!(
        Lanza.position_to_string(&state),
        "turns 1; A Kc3 Qb1 Ja2 chips 3; B Kd2 Q- Jd3 chips 0; over"
    );
    assert_eq!(event["game_over"], true);
    assert_eq!(Lanza.status(&state), Status::Terminal);
    let ranks: Vec<u32> = Lanza.results(&state).iter().map(|r| r.rank).collect();
    assert_eq!(ranks, [1, 2]);
    assert!(
        Lanza
            .render_text(&state, Viewer::Spectator)
            .contains("seat 0 (A) wins")
    );
}

const QUIET: &str = "turns 0; A Kc2 Qa1 Ja3 chips 1; B Kd1 Qc4 Je3 chips 0; orders";

#[test]
fn the_turn_limit_ends_the_game_ruling_l12() {
    let mut state = position(QUIET, 2, Some(1));
    play(&mut state, &["K1 Q2 J3", "K4 Q3 J6"]);
    assert_eq!(Lanza.status(&state), Status::Terminal);
    let ranks: Vec<u32> = Lanza.results(&state).iter().map(|r| r.rank).collect();
    assert_eq!(
        ranks,
        [1, 2],
        "a sole leader wins even with fewer than 3 chips"
    );

    let tied = QUIET.replace("chips 1", "chips 0");
    let mut state = position(&tied, 2, Some(1));
    play(&mut state, &["K1 Q2 J3", "K4 Q3 J6"]);
    let ranks: Vec<u32> = Lanza.results(&state).iter().map(|r| r.rank).collect();
    assert_eq!(ranks, [1, 1], "tied leaders share first place");

    let mut state = position(QUIET, 2, Some(2));
    play(&mut state, &["K1 Q2 J3", "K4 Q3 J6"]);
    assert!(
        matches!(Lanza.status(&state), Status::ToMove(_)),
        "one turn of two"
    );
}

#[test]
fn many_pieces_to_reenter_are_a_sampled_draw() {
    let text = "turns 3; A K- Q- J- chips 0; B Kc3 Q- Jd1 chips 1; C Kb1 Qb2 Jf2 chips 0; reentry AK AQ AJ BQ";
    let mut state = position(text, 3, None);
    assert!(matches!(Lanza.chance(&state), Chance::Explicit(o) if o.len() == 24));
    let five = "turns 3; A K- Q- J- chips 0; B Kc3 Q- J- chips 1; C Kb1 Qb2 Jf2 chips 0; reentry AK AQ AJ BQ BJ";
    state = position(five, 3, None);
    assert_eq!(Lanza.chance(&state), Chance::Sampled);
    Lanza.apply_chance(&mut state, 0xdead_beef_u64).unwrap();
    let Status::ToMove(movers) = Lanza.status(&state) else {
        panic!()
    };
    assert_eq!(movers.len(), 1);
    let text = Lanza.position_to_string(&state);
    let queue = text.rsplit(';').next().unwrap();
    let mut pieces: Vec<&str> = queue.split_whitespace().skip(1).collect();
    pieces.sort();
    assert_eq!(pieces, ["AJ", "AK", "AQ", "BJ", "BQ"]);
}

#[test]
fn refuses_positions_for_another_player_count_and_bad_joint_actions() {
    assert!(Lanza.parse_position(&setup(3, None), HEAD_ON).is_err());
    let mut state = position(HEAD_ON, 2, None);
    let a = Lanza.parse_action(&state, 0, "K4 Q2 J1").unwrap();
    let before = state.clone();
    assert!(
        Lanza
            .apply(
                &mut state,
                &[Move {
                    player: 0,
                    action: a
                }]
            )
            .is_err(),
        "B is missing"
    );
    assert!(
        Lanza
            .apply(
                &mut state,
                &[
                    Move {
                        player: 0,
                        action: a
                    },
                    Move {
                        player: 1,
                        action: 0
                    }
                ]
            )
            .is_err(),
        "K1 Q1 J1"
    );
    assert_eq!(state, before);
    assert!(
        Lanza.parse_action(&state, 0, "K4 Q4 J1").is_err(),
        "ruling L5: different cards"
    );
}

#[test]
fn the_text_rendering_shows_pieces_by_owner_and_rank() {
    let state = position(HEAD_ON, 2, None);
    let text = Lanza.render_text(&state, Viewer::Seat(1));
    let picture = lanza::view::board_picture(&state);
    assert!(text.contains(&picture));
    for piece in ["AK", "AQ", "AJ", "BK", "BQ", "BJ"] {
        assert_eq!(picture.matches(piece).count(), 1, "{piece} in\n{picture}");
    }
    // c2 holds AK: its name is replaced by the piece.
    assert!(
        !picture.contains("c2") && picture.contains("c1"),
        "{picture}"
    );
    // Empty fields show their names: 19 fields, 6 pieces.
    assert!(text.contains("e2") && text.contains("c5"), "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 80));
    let view = serde_json::to_value(Lanza.view(&state, Viewer::Spectator)).unwrap();
    assert_eq!(view["board"]["fields"].as_array().unwrap().len(), 19);
    assert_eq!(view["pieces"][0]["field"], "c2");
}
