//! The focus plugin's one integration test binary.

mod perft;
mod simple;
mod support;
mod rulings;
mod kit;
