//! The one integration test binary of the lanzeloth plugin.

mod board;
mod events;
mod hidden;
mod kit;
mod matches;
mod notation;
mod scenarios;
mod support;
mod views;
