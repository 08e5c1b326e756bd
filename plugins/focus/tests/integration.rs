//! The focus plugin's one integration test binary.

mod events;
mod kit;
mod perft;
mod rulings;
mod simple;
mod support;
mod views;
