//! The lanza crate's one integration test binary.

mod adjudication;
mod board;
mod conformance;
mod game_flow;
mod notation_policy;
mod properties;
mod views;
