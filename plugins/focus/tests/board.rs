//! The SVG board and the action targets: each action names the squares and
//! reserve a player clicks, from then to, and the board draws them.

use focus::Focus;
use tabletop_sdk::{ActionTargets, SvgBoard};
use tabletop_sdk::{Game, Setup, Viewer};

use crate::support::options;

fn start(players: u32) -> focus::Position {
    let setup = Setup::validate(&Focus.manifest(), players, &options(&[])).unwrap();
    Focus.new_state(&setup).unwrap()
}

#[test]
fn a_move_targets_its_squares_and_a_drop_the_reserve_then_the_square() {
    let two = start(2);
    let shift = Focus.parse_action(&two, 0, "b2-b3").unwrap();
    assert_eq!(Focus.action_targets(&two, 0, shift), ["sq-b2", "sq-b3"]);
    let tall = Focus.parse_action(&two, 0, "c3-e3").unwrap_err();
    assert!(
        !tall.message.is_empty(),
        "c3 holds one piece: no 2-square move"
    );
    // Three players start with one piece each in reserve (F4).
    let three = start(3);
    let drop = Focus.parse_action(&three, 0, "*d4").unwrap();
    assert_eq!(
        Focus.action_targets(&three, 0, drop),
        ["reserve-p1", "sq-d4"]
    );
    let svg = Focus.render_svg(&three, Viewer::Spectator);
    for id in ["sq-d4", "sq-c1", "reserve-p1", "reserve-p3"] {
        assert!(svg.contains(&format!("id='{id}'")), "{id}");
    }
    assert!(!svg.contains("id='sq-a1'"), "a1 is no square (F1)");
    assert_eq!(svg.matches("class='square'").count(), 52);
    // 36 pieces on the board, the player to move marked.
    assert_eq!(svg.matches("<ellipse class='piece").count(), 36);
    assert!(svg.contains("Move 1 of 1000: P1 to move"), "{svg}");
}
