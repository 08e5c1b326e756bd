//! The lanza crate's one integration test binary.

mod adjudication;
mod conformance;
mod game_flow;
mod properties;
mod views;
