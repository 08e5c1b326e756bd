//! Lanza (© 2003 Michail Antonow) as a Tabletop plugin: 2–4 players give
//! secret simultaneous orders to a King, a Queen and a Jack on a hex board,
//! and the turn is adjudicated like Diplomacy. The crate's README states the
//! rules as rulings L1–L13; the code cites them where it implements them.
//!
//! - [`board`]: the three boards, start fields, directions and the bounce (L1–L3, L6);
//! - [`piece`]: ranks and their cyclic strength;
//! - [`orders`]: a player's three distinct cards, `K2 Q5 J1` (L5, L13);
//! - [`adjudicate`]: the adjudicator (L7–L9), a pure function of the orders;
//! - [`position`]: a validated state and the turn's transitions (L4, L10–L12);
//! - [`notation`]: the position text (L13);
//! - [`refusal`]: why an action id or text is refused, with its reason code;
//! - [`game`]: the SDK [`Game`](tabletop_sdk::Game) implementation;
//! - [`view`]: JSON views and the terminal picture;
//! - [`events`]: what every viewer is told happened in a transition.
//!
//! # Example
//! Adjudicate one head-on clash on the 19-field board: seat A's King meets
//! seat B's Queen; the King wins, takes the Queen's field and a chip.
//! ```
//! use lanza::notation::{parse_position, position_to_string};
//! use lanza::orders::Orders;
//!
//! let mut position = parse_position(
//!     "turns 0; A Kc2 Qa1 Ja3 chips 0; B Kd1 Qc3 Je3 chips 0; orders", 2, 300,
//! ).unwrap();
//! // c2 is just north of c3: A's King steps S (4), B's Queen steps N (1).
//! let a = Orders::parse("K4 Q2 J1").unwrap();
//! let b = Orders::parse("K4 Q1 J6").unwrap();
//! let result = position.play_turn(&[a, b]).unwrap();
//! assert_eq!(result.chips()[0], 1);
//! assert!(position_to_string(&position).contains("A Kc3"));
//! ```
#![forbid(unsafe_code)]

pub mod adjudicate;
pub mod board;
mod evaluate;
pub mod events;
pub mod game;
pub mod notation;
pub mod orders;
pub mod piece;
pub mod position;
pub mod refusal;
pub mod svg;
pub mod view;

pub use game::Lanza;

/// The rules in brief, for the catalog (Markdown).
pub const RULES_SUMMARY: &str = "\
**Lanza** (© 2003 Michail Antonow), 2–4 players on a hex board (19, 27 or 37 fields).
Each player has a King, a Queen and a Jack. Every turn every piece must step to a
neighbouring field: each player secretly gives each piece a different direction card
1–6 (1=N 2=NE 3=SE 4=S 5=SW 6=NW), written `K2 Q5 J1`; a step off the board bounces
the opposite way. All orders are revealed at once and adjudicated: head-on clashes
first, then contests for a field, then pieces entering a field where a piece stays.
King beats Queen, Queen beats Jack, Jack beats King; equal pieces (and K+Q+J together)
stop. Each enemy piece captured earns a chip; own pieces capture each other for no chip.
Captured pieces re-enter on an empty edge field, in a random order. The first player
with at least 3 chips and strictly more than everyone else wins; a tie at the top
plays on. After `max_turns` turns the chip leader wins (tied leaders share first).";

tabletop_sdk::export_game!(
    Lanza,
    extensions: [RemovePlayer, SeatNames, ExplainRefusal, Evaluate, SvgBoard, ActionTargets]
);
