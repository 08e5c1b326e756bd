//! The svg-board and action-targets extensions through the SDK: a game's
//! board and targets reach the caller, a game without them draws nothing,
//! and the kit catches a board that leaks, is malformed or too large, and a
//! target that is not on the board.

mod example;
mod pass_through;

use std::collections::BTreeMap;

use tabletop_sdk::conformance::{self, Config};
use tabletop_sdk::{
    ActionTargets, DynGame, Game, InProcess, Player, Resample, Status, SvgBoard, Viewer, serde_json,
};

use pass_through::pass_through;

/// How a [`Drawn`] board is broken, if at all.
const SOUND: u8 = 0;
const SHOWS_EVERY_SECRET: u8 = 1;
const TARGET_OFF_THE_BOARD: u8 = 2;
const UNCLOSED_ELEMENT: u8 = 3;
const TOO_LARGE: u8 = 4;

/// The example game `guess` with a board: each seat's score and secret (as
/// the viewer's view shows it, or every secret for `SHOWS_EVERY_SECRET`)
/// and four bid buttons `bid-0`…`bid-3`, which each bid targets.
#[derive(Default)]
struct Drawn<const FLAW: u8>(example::Guess);

impl<const FLAW: u8> Game for Drawn<FLAW> {
    type State = example::State;
    type View<'a> = serde_json::Value;

    pass_through!(manifest, playing, view, render_text);
}

impl<const FLAW: u8> Resample for Drawn<FLAW> {
    pass_through!(resample);
}

tabletop_sdk::declare_extensions!([const FLAW: u8] Drawn<FLAW>: [Resample, SvgBoard, ActionTargets]);

impl<const FLAW: u8> SvgBoard for Drawn<FLAW> {
    fn render_svg(&self, s: &Self::State, v: Viewer) -> String {
        let view = self.0.view(s, v);
        let mut svg =
            String::from(r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">"#);
        for (p, score) in s.scores.iter().enumerate() {
            let secret = if FLAW == SHOWS_EVERY_SECRET {
                s.secrets[p].to_string()
            } else {
                view["secrets"][p].to_string()
            };
            svg.push_str(&format!(
                r#"<text id="seat-{p}" class="seat">{score} ({secret})</text>"#
            ));
        }
        for bid in 0..4 {
            svg.push_str(&format!(r#"<rect id="bid-{bid}" class="bid"/>"#));
        }
        if FLAW == UNCLOSED_ELEMENT {
            svg.push_str("<g>");
        }
        if FLAW == TOO_LARGE {
            svg.push_str(&format!("<!-- {} -->", "x".repeat(300 * 1024)));
        }
        svg.push_str("</svg>");
        svg
    }
}

impl<const FLAW: u8> ActionTargets for Drawn<FLAW> {
    fn action_targets(&self, _: &Self::State, _: Player, action: u64) -> Vec<String> {
        let bid = if FLAW == TARGET_OFF_THE_BOARD {
            action + 4
        } else {
            action
        };
        vec![format!("bid-{bid}")]
    }
}

fn kit_failure(game: &dyn DynGame) -> String {
    let mut config = Config::for_game(game);
    config.player_counts = vec![2, 3];
    conformance::run(game, &config)
        .expect_err("the kit should fail")
        .message
}

#[test]
fn a_game_that_draws_gives_its_board_and_targets() {
    let game = InProcess::new(Drawn::<SOUND>::default());
    let mut state = game.new_state(2, &BTreeMap::new(), None).unwrap();
    // Deal and roll, then every seat bids.
    let mut index = 0;
    while state.status().unwrap() == Status::Chance {
        let node = state.chance().unwrap();
        let outcome = tabletop_sdk::chance::draw(&node, 7, index).unwrap();
        state.apply_chance(outcome).unwrap();
        index += 1;
    }
    let svg = state.render_svg(Viewer::Seat(0)).unwrap().unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains(r#"id="bid-3""#),
        "{svg}"
    );
    let targets = state.action_targets(0, &[0, 2]).unwrap().unwrap();
    assert_eq!(
        targets,
        [vec!["bid-0".to_owned()], vec!["bid-2".to_owned()]]
    );
}

#[test]
fn a_game_without_the_extensions_draws_nothing() {
    let game = InProcess::new(example::Guess);
    let state = game.new_state(2, &BTreeMap::new(), None).unwrap();
    assert_eq!(state.render_svg(Viewer::Spectator).unwrap(), None);
    assert_eq!(state.action_targets(0, &[0]).unwrap(), None);
}

#[test]
fn the_kit_checks_every_board_and_target_of_a_game_that_draws() {
    let game = InProcess::new(Drawn::<SOUND>::default());
    let summary = conformance::run(&game, &Config::for_game(&game)).unwrap();
    assert!(summary.boards_drawn > summary.transitions, "{summary:?}");
    assert!(summary.targets_checked > 0, "{summary:?}");
    let plain = InProcess::new(example::Guess);
    let summary = conformance::run(&plain, &Config::for_game(&plain)).unwrap();
    assert_eq!((summary.boards_drawn, summary.targets_checked), (0, 0));
}

#[test]
fn the_kit_catches_a_board_that_shows_a_secret() {
    let failure = kit_failure(&InProcess::new(Drawn::<SHOWS_EVERY_SECRET>::default()));
    assert!(failure.contains("hidden information leaks"), "{failure}");
}

#[test]
fn the_kit_catches_a_target_that_is_not_on_the_board() {
    let failure = kit_failure(&InProcess::new(Drawn::<TARGET_OFF_THE_BOARD>::default()));
    assert!(
        failure.contains(r#"names the target "bid-4", which is no element id"#),
        "{failure}"
    );
}

#[test]
fn the_kit_catches_a_malformed_board() {
    let failure = kit_failure(&InProcess::new(Drawn::<UNCLOSED_ELEMENT>::default()));
    assert!(
        failure.contains("not a well-formed SVG document: expected 'g' tag, not 'svg'"),
        "{failure}"
    );
}

#[test]
fn the_kit_catches_a_board_that_is_too_large() {
    let failure = kit_failure(&InProcess::new(Drawn::<TOO_LARGE>::default()));
    assert!(
        failure.contains("more than the 262144 a board"),
        "{failure}"
    );
}
