//! Hostile inputs for the games and the host's record import.
//!
//! The checks here are what the coverage-guided fuzz targets in `fuzz/`
//! run on every input ([`game::position`], [`game::notation`],
//! [`game::option_text`], [`record::import`]); this crate's tests replay
//! the committed seeds of every target (`fuzz/seeds/TARGET/`, crash
//! regressions included) through the same checks as ordinary tests, so a
//! plain `cargo test` keeps every input the campaign ever kept.
//!
//! Each fuzz target links exactly one game: every plugin crate exports the
//! same entry symbol, so two never share a binary (nor do two of this
//! crate's test files).

pub mod game;
pub mod input;
pub mod record;
pub mod replay;
pub mod seeds;
