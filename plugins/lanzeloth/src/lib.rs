//! Lanzeloth, the Esel tile game ("Das lustige Eselspiel"), as a Tabletop plugin
//! for 2–6 players. The crate's README states the rules as rulings Z1–Z12; the
//! code cites them where it implements them.
//!
//! Face-down stacks are hidden from everyone, their owner included (Z11), so
//! every viewer knows the same; [`Position::resample`] reshuffles the tiles
//! nobody has seen.
//!
//! # Example
//! ```
//! use tabletop_sdk::{Game, Move, Setup, Options, Status, Viewer};
//! use lanzeloth::{Lanzeloth, Phase};
//! # use std::collections::BTreeMap;
//!
//! let game = Lanzeloth;
//! let raw = BTreeMap::from([("first_player".to_string(), "1".to_string())]);
//! let setup = Setup::validate(&game.manifest(), 3, &raw).unwrap();
//! let mut state = game.new_state(&setup).unwrap();
//! assert_eq!(game.status(&state), Status::Chance); // the shuffle (ruling Z2)
//! game.apply_chance(&mut state, 12345).unwrap();
//! assert_eq!(state.face_down_len(0), 40); // 120 tiles, 40 each
//! assert_eq!(state.phase(), Phase::Play { turn: 0, stage: lanzeloth::Stage::Start });
//!
//! let flip = game.parse_action(&state, 0, "flip").unwrap();
//! game.apply(&mut state, &[Move { player: 0, action: flip }]).unwrap();
//! assert_eq!(state.reveals(), 1);
//! // Views show only the size of face-down stacks.
//! let view = serde_json::to_value(game.view(&state, Viewer::Spectator)).unwrap();
//! assert_eq!(view["face_down"][0], 39);
//! ```
#![forbid(unsafe_code)]

mod actions;
mod deal;
mod end;
mod evaluate;
mod events;
mod fit;
mod game;
mod hidden;
mod notation;
mod position;
mod refusal;
mod rng;
mod rules;
mod seats;
mod svg;
mod tile;
mod turn;
mod view;

pub use actions::{Action, action_space};
pub use deal::ChanceError;
pub use fit::Place;
pub use game::Lanzeloth;
pub use notation::{action_from_text, action_to_text, place_to_text, read_action};
pub use position::{Phase, Position, PositionError, RawPosition, Source, Stage};
pub use refusal::reason;
pub use rules::{DONKEY_SCORE, EselMode, MAX_PLAYERS, MIN_PLAYERS, Rules, Scoring};
pub use seats::{seat_name, seat_names};
pub use tile::{FaceDownTile, Number};
pub use turn::{PlayError, Step};
pub use view::View;

tabletop_sdk::export_game!(
    Lanzeloth,
    extensions: [RemovePlayer, Resample, SeatNames, ExplainRefusal, Evaluate, SvgBoard, ActionTargets]
);
