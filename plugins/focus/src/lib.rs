//! Sid Sackson's **Focus** (1963, also sold as *Domination*) for 2, 3 and 4
//! players, as a Tabletop plugin.
//!
//! The rules are the numbered rulings F1–F12 written out in this crate's
//! `README.md`; each is cited where it is implemented. The crate is a cdylib
//! the engine host loads (see the last line) and an rlib for tests and
//! in-process use.
//!
//! # Example
//! ```
//! use focus::{Move, Position, Rules, perft};
//!
//! // Ruling F2's two-player start: 68 first moves (ruling F12).
//! let mut pos = Position::start(Rules::standard(2).unwrap());
//! assert_eq!(perft(&pos, 1), 68);
//!
//! // Moves are written like `c2-c3` (ruling F11) and played with a check.
//! let mv = Move::parse("c2-c3").unwrap();
//! pos.play(0, mv).unwrap();
//! assert_eq!(pos.tower("c3".parse().unwrap()).height(), 2);
//! assert!(pos.play(0, Move::parse("e2-e3").unwrap()).is_err(), "player 2 moves next");
//!
//! // Positions round-trip through their text (ruling F11).
//! let text = focus::write_position(&pos.to_raw());
//! let again = Position::from_raw(&focus::read_position(&text, 2).unwrap(), pos.rules()).unwrap();
//! assert_eq!(again, pos);
//! ```
#![forbid(unsafe_code)]

mod board;
mod error;
mod evaluate;
mod events;
mod game;
mod illegal;
mod move_text;
mod moves;
mod notation;
mod perft;
mod position;
mod refusal;
mod render;
mod rules;
mod seats;
mod setup;
mod svg;
mod tower;

pub use board::{Direction, Square};
pub use error::{OptionError, PositionError};
pub use game::Focus;
pub use illegal::IllegalMove;
pub use move_text::{NotationError, Written, read as read_move};
pub use moves::{
    DROP_BASE, Move, SHIFTS_AND_DROPS, SWAP_BASE, WITH_SWAPS, swap_code, swap_squares,
};
pub use notation::{read_position, write_position};
pub use perft::perft;
pub use position::{EndReason, Outcome, Position};
pub use render::{LETTERS, View, text as render_text, view as render_view};
pub use rules::{OpeningSwap, Rules, names as option_names};
pub use seats::{label as seat_label, names as seat_names};
pub use setup::{Mirror, RawPosition, Side, pieces_per_player};
pub use tower::{Colour, MAX_HEIGHT, Stack, Tower};

tabletop_sdk::export_game!(
    Focus,
    extensions: [RemovePlayer, SeatsOut, SeatNames, ExplainRefusal, Evaluate, SvgBoard, ActionTargets]
);
