//! The war crate's one integration test binary.

mod boards;
mod conformance;
mod events;
mod layout;
mod perft;
mod scenarios;
mod simple;
mod support;
