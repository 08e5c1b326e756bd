//! The SVG board and the action targets: orders name each piece and the
//! field its card sends it to (after the bounce), a re-entry the waiting
//! piece and its field, and the board draws all of them.

use std::collections::BTreeMap;
use tabletop_sdk::{ActionTargets, SvgBoard};

use lanza::Lanza;
use lanza::board::Dir;
use tabletop_sdk::{Game, Setup, Viewer};

fn position(text: &str) -> lanza::position::Position {
    let setup = Setup::validate(&Lanza.manifest(), 2, &BTreeMap::new()).unwrap();
    Lanza.parse_position(&setup, text).unwrap()
}

#[test]
fn orders_target_each_piece_then_the_field_its_card_reaches() {
    let state = position("turns 0; A Kc2 Qa1 Ja3 chips 0; B Kd1 Qc3 Je3 chips 0; orders");
    let board = state.board();
    let orders = Lanza.parse_action(&state, 0, "K2 Q5 J1").unwrap();
    let reach = |field: &str, card: u8| {
        let from = board.parse_field(field).unwrap();
        format!(
            "field-{}",
            board.name(board.target(from, Dir::new(card).unwrap()))
        )
    };
    assert_eq!(
        Lanza.action_targets(&state, 0, orders),
        [
            "piece-AK".to_owned(),
            reach("c2", 2),
            "piece-AQ".to_owned(),
            reach("a1", 5),
            "piece-AJ".to_owned(),
            reach("a3", 1),
        ]
    );
    let svg = Lanza.render_svg(&state, Viewer::Seat(1));
    assert_eq!(svg.matches("class='field").count(), 19);
    assert_eq!(svg.matches("class='piece ").count(), 6);
    assert!(svg.contains("Turn 1 of 300: every player orders"), "{svg}");
}

#[test]
fn a_reentry_targets_the_waiting_piece_then_its_field() {
    let state = position("turns 1; A Kc3 Qb1 Ja2 chips 1; B Kd2 Q- Jd3 chips 0; place BQ");
    let place = Lanza.parse_action(&state, 1, "Q@e1").unwrap();
    assert_eq!(
        Lanza.action_targets(&state, 1, place),
        ["piece-BQ", "field-e1"]
    );
    let svg = Lanza.render_svg(&state, Viewer::Spectator);
    assert!(svg.contains("waiting to re-enter"), "{svg}");
    assert!(svg.contains("<g id='piece-BQ'"), "{svg}");
    assert!(svg.contains("B places BQ on an edge field"), "{svg}");
}
