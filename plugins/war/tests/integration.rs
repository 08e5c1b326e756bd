//! The war crate's one integration test binary.

mod boards;
mod conformance;
mod events;
mod layout;
mod notation;
mod perft;
mod positions;
mod refusals;
mod scenarios;
mod simple;
mod support;
mod text;
