//! The evaluate extension through the SDK: a game's values reach the
//! caller seat by seat, a game without it evaluates nothing, and the kit
//! catches values that are not one finite 0..=1 per seat.

mod pass_through;
mod plain;

use std::collections::BTreeMap;

use tabletop_sdk::conformance::{self, Config};
use tabletop_sdk::{DynGame, ErrorKind, Evaluate, Game, InProcess, Manifest, Move, serde_json};

use pass_through::pass_through;

/// Nim with an evaluation: in two-player Nim the seat to move wins exactly
/// when the pile is not a multiple of 3. `OVERSHOOT` adds that much to the
/// predicted winner's value, breaking the 0..=1 bound when positive.
#[derive(Default)]
struct Judged<const OVERSHOOT: u32>(plain::Nim);

impl<const OVERSHOOT: u32> Game for Judged<OVERSHOOT> {
    type State = plain::State;
    type View<'a> = serde_json::Value;
    fn manifest(&self) -> Manifest {
        Manifest {
            max_players: 2,
            ..self.0.manifest()
        }
    }
    pass_through!(playing, view, render_text,);
}

impl<const OVERSHOOT: u32> Evaluate for Judged<OVERSHOOT> {
    fn evaluate(&self, s: &Self::State) -> Vec<f64> {
        let winner = if s.pile % 3 == 0 {
            (s.to_move + 1) % s.players
        } else {
            s.to_move
        };
        (0..s.players)
            .map(|p| {
                if p == winner {
                    1.0 + f64::from(OVERSHOOT)
                } else {
                    0.0
                }
            })
            .collect()
    }
}

tabletop_sdk::declare_extensions!([const OVERSHOOT: u32] Judged<OVERSHOOT>: [Evaluate]);

fn seven_stones() -> BTreeMap<String, String> {
    BTreeMap::new()
}

#[test]
fn a_game_that_evaluates_gives_each_seat_its_value() {
    let game = InProcess::new(Judged::<0>::default());
    // 7 stones, seat 0 to move: 7 is not a multiple of 3, seat 0 wins.
    let mut state = game.new_state(2, &seven_stones(), None).unwrap();
    let mut values = [0.5; 2];
    assert!(state.evaluate(&mut values).unwrap());
    assert_eq!(values, [1.0, 0.0]);
    // Taking 1 leaves 6 to seat 1, who then loses.
    state
        .apply(&[Move {
            player: 0,
            action: 1,
        }])
        .unwrap();
    assert!(state.evaluate(&mut values).unwrap());
    assert_eq!(values, [1.0, 0.0]);
    // Taking 2 instead leaves 5 to seat 1, who then wins.
    let mut other = game.new_state(2, &seven_stones(), None).unwrap();
    other
        .apply(&[Move {
            player: 0,
            action: 2,
        }])
        .unwrap();
    assert!(other.evaluate(&mut values).unwrap());
    assert_eq!(values, [0.0, 1.0]);
}

#[test]
fn an_evaluation_asked_for_another_number_of_seats_is_refused() {
    let game = InProcess::new(Judged::<0>::default());
    let state = game.new_state(2, &seven_stones(), None).unwrap();
    let refused = state.evaluate(&mut [0.0; 3]).unwrap_err();
    assert_eq!(refused.kind, ErrorKind::Internal);
    assert!(
        refused.message.contains("2 values; 3 were asked for"),
        "{refused}"
    );
}

#[test]
fn a_game_without_the_extension_evaluates_nothing() {
    let game = InProcess::new(plain::Nim);
    let state = game.new_state(2, &seven_stones(), None).unwrap();
    let mut values = [0.25; 2];
    assert!(!state.evaluate(&mut values).unwrap());
    assert_eq!(values, [0.25; 2]);
}

#[test]
fn the_kit_checks_every_evaluation_of_a_game_that_offers_it() {
    let game = InProcess::new(Judged::<0>::default());
    let summary = conformance::run(&game, &Config::for_game(&game)).unwrap();
    assert!(summary.evaluations >= summary.transitions, "{summary:?}");
    let plain = InProcess::new(plain::Nim);
    let summary = conformance::run(&plain, &Config::for_game(&plain)).unwrap();
    assert_eq!(summary.evaluations, 0, "{summary:?}");
}

#[test]
fn the_kit_catches_a_value_above_one() {
    let game = InProcess::new(Judged::<1>::default());
    let failure = conformance::run(&game, &Config::for_game(&game)).unwrap_err();
    assert!(
        failure
            .message
            .contains("evaluate gives seat 0 the value 2"),
        "{failure}"
    );
}
