//! The focus plugin's one integration test binary.

mod board;
mod events;
mod kit;
mod notation_policy;
mod perft;
mod positions;
mod refusals;
mod rulings;
mod simple;
mod support;
mod views;
