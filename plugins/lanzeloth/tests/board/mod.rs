//! The SVG table and the action targets: face-down stacks are backs and a
//! size for every viewer, their owner included (Z11), and each action names
//! the stacks, piles and places a player clicks.

use lanzeloth::Lanzeloth;
use tabletop_sdk::{ActionTargets, SvgBoard};
use tabletop_sdk::{Game, Viewer};

use crate::support::setup;

/// P2 has revealed a 3 that fits on middle stack m1; P1's face-down stack
/// is a 5 everyone has seen and a 1 nobody has (the README's example).
const HAND: &str = "phase=play turn=p2 stage=hand-d3 donkey=p1 reveals=9 winner=- | 5*,1 / 4 | 2 / 5 | 3 / - | middle 2 | removed 4";

fn position() -> lanzeloth::Position {
    let setup = setup(3, &[("max_number", "5"), ("copies", "2")]);
    Lanzeloth.parse_position(&setup, HAND).unwrap()
}

/// The part of `svg` from the element with `id` to the end of that group.
fn element<'a>(svg: &'a str, id: &str) -> &'a str {
    let start = svg.find(&format!("<g id='{id}'")).expect(id);
    let mut depth = 0;
    let mut at = start;
    loop {
        let next_open = svg[at + 1..].find("<g").map(|i| i + at + 1);
        let next_close = svg[at..].find("</g>").map(|i| i + at).expect("closed");
        match next_open {
            Some(open) if open < next_close => {
                depth += 1;
                at = open;
            }
            _ => {
                if depth == 0 {
                    return &svg[start..next_close + 4];
                }
                depth -= 1;
                at = next_close + 1;
            }
        }
    }
}

#[test]
fn a_placement_targets_the_tile_in_hand_then_its_place() {
    let state = position();
    let place = Lanzeloth.parse_action(&state, 1, "place m1").unwrap();
    assert_eq!(
        Lanzeloth.action_targets(&state, 1, place),
        ["hand", "middle-m1"]
    );
    let own = Lanzeloth.parse_action(&state, 1, "place own").unwrap();
    assert_eq!(
        Lanzeloth.action_targets(&state, 1, own),
        ["hand", "open-p2"]
    );
    assert_eq!(Lanzeloth.action_targets(&state, 0, 0), ["stack-p1"], "flip");
    assert_eq!(
        Lanzeloth.action_targets(&state, 2, 1),
        ["open-p3"],
        "play-open"
    );
    let svg = Lanzeloth.render_svg(&state, Viewer::Seat(1));
    for id in ["hand", "middle-m1", "middle-new", "open-p2", "stack-p3"] {
        assert!(svg.contains(&format!("<g id='{id}'")), "{id}");
    }
    assert!(
        element(&svg, "hand").contains(">3<"),
        "the 3 in hand is face up"
    );
}

#[test]
fn a_face_down_stack_shows_its_size_only_even_to_its_owner() {
    let state = position();
    for viewer in [Viewer::Seat(0), Viewer::Seat(1), Viewer::Spectator] {
        let svg = Lanzeloth.render_svg(&state, viewer);
        let stack = element(&svg, "stack-p1");
        // Two backs and the size 2; neither the 5 nor the 1 is written.
        assert_eq!(stack.matches("fill='#5c6bc0'").count(), 2, "{stack}");
        assert!(stack.contains(">2<"), "{stack}");
        assert!(!stack.contains(">5<") && !stack.contains(">1<"), "{stack}");
    }
    let own = Lanzeloth.render_svg(&state, Viewer::Seat(0));
    assert!(own.contains("P1 (you)"), "the viewer's row is marked");
}
