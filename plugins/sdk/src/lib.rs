//! The Tabletop plugin SDK: everything a game needs to become a plugin that
//! engine-host can load, and the conformance kit that proves it behaves.
//!
//! A game implements the safe [`Game`] trait and ends its crate with one
//! [`export_game!`] line; the macro writes every `unsafe extern "C"` shim of
//! the C ABI ([`abi`]), each wrapped in `catch_unwind`, and answers the ABI's
//! extension lookups for the [`Extension`]s the game declares, so game crates
//! can `#![forbid(unsafe_code)]`. An extension is declared by implementing
//! its trait ([`extension`]: [`SvgBoard`], [`Evaluate`], …) and naming it in
//! the macro, `export_game!(MyGame, extensions: [SvgBoard])`; a game that
//! implements one without naming it, or names one without implementing it,
//! does not compile. The other side of the ABI, the module
//! `import` (behind the `import` feature), opens a plugin file and presents
//! its game as a [`DynGame`]: engine-host's loader and the kit's plugin
//! tests use it.
//!
//! The SDK also owns what every game would otherwise write for itself:
//! [`check_joint_action`] (or [`check_single_move`] for one seat to move)
//! refuses a joint action of the wrong shape with one
//! message, [`results_by_key`] and [`competition_ranks`] rank seats by a key
//! with shared places for ties, and [`kit_tests!`] writes a game crate's
//! conformance-kit tests ([`conformance`]), in-process, through the built
//! plugin, and the two paths side by side.
//!
//! # Example
//! A one-move game: the only player says "done" and wins.
//! ```
//! use tabletop_sdk::{
//!     ActionId, Chance, Game, GameError, InProcess, Manifest, Move, Player, PlayerResult,
//!     PlayerSet, Setup, Status, Viewer, DynGame,
//! };
//!
//! #[derive(Default)]
//! struct Solo;
//!
//! impl Game for Solo {
//!     type State = bool; // finished?
//!     type View<'a> = serde_json::Value;
//!     fn manifest(&self) -> Manifest {
//!         Manifest {
//!             name: "solo".into(), version: "1.0.0".into(), min_players: 1, max_players: 1,
//!             options: vec![], rules_summary: "Say done.".into(),
//!             simultaneous: false, hidden_information: false, chance: false,
//!             removable_players: false,
//!         }
//!     }
//!     fn new_state(&self, _: &Setup) -> Result<bool, GameError> { Ok(false) }
//!     fn parse_position(&self, _: &Setup, text: &str) -> Result<bool, GameError> {
//!         text.parse().map_err(|_| GameError::invalid_position("true or false"))
//!     }
//!     fn position_to_string(&self, s: &bool) -> String { s.to_string() }
//!     fn status(&self, s: &bool) -> Status {
//!         if *s { Status::Terminal } else { Status::ToMove(PlayerSet::single(0)) }
//!     }
//!     fn chance(&self, _: &bool) -> Chance { Chance::Sampled }
//!     fn results(&self, _: &bool) -> Vec<PlayerResult> { vec![PlayerResult { rank: 1, score: 1.0 }] }
//!     fn legal_actions(&self, s: &bool, p: Player, out: &mut Vec<ActionId>) {
//!         out.clear();
//!         if !*s && p == 0 { out.push(0) }
//!     }
//!     fn apply(&self, s: &mut bool, moves: &[Move]) -> Result<(), GameError> {
//!         match moves {
//!             [Move { player: 0, action: 0 }] if !*s => { *s = true; Ok(()) }
//!             _ => Err(GameError::illegal("only player 0 may say done, once")),
//!         }
//!     }
//!     fn apply_chance(&self, _: &mut bool, _: u64) -> Result<(), GameError> {
//!         Err(GameError::illegal("no chance in solo"))
//!     }
//!     fn action_to_string(&self, _: &bool, _: Player, a: ActionId) -> Result<String, GameError> {
//!         if a == 0 { Ok("done".into()) } else { Err(GameError::illegal("no such action")) }
//!     }
//!     fn parse_action(&self, s: &bool, p: Player, text: &str) -> Result<ActionId, GameError> {
//!         if text == "done" && !*s && p == 0 { Ok(0) } else { Err(GameError::invalid_notation("say `done`")) }
//!     }
//!     fn view(&self, s: &bool, _: Viewer) -> serde_json::Value { serde_json::json!({ "done": s }) }
//!     fn render_text(&self, s: &bool, _: Viewer) -> String { format!("done: {s}\n") }
//! }
//! // In a plugin crate: tabletop_sdk::export_game!(Solo); here, in-process only:
//! tabletop_sdk::declare_extensions!(Solo: []);
//!
//! let game = InProcess::new(Solo);
//! let summary = tabletop_sdk::conformance::run(
//!     &game,
//!     &tabletop_sdk::conformance::Config::for_game(&game),
//! ).unwrap();
//! assert_eq!(summary.matches, 8);
//! ```

#![deny(clippy::undocumented_unsafe_blocks)]

pub mod abi;
pub mod chance;
pub mod conformance;
mod dynamic;
mod error;
mod estimate;
#[doc(hidden)]
pub mod export;
pub mod extension;
pub mod fingerprint;
mod game;
#[cfg(feature = "import")]
pub mod import;
mod joint;
#[doc(hidden)]
pub mod kit_tests;
pub mod log;
mod manifest;
mod ranking;
pub mod text;
mod types;

pub use dynamic::{DynGame, DynState, InProcess};
pub use error::{ErrorKind, GameError};
pub use estimate::standings_from_strengths;
pub use extension::{
    ActionTargets, Evaluate, ExpandNotation, ExplainRefusal, Extended, ExtensionTable,
    RemovePlayer, Resample, SeatNames, SeatsOut, SvgBoard,
};
pub use game::{Extension, Game};
pub use joint::{check_joint_action, check_single_move};
pub use manifest::{Manifest, OptionKind, OptionSpec, OptionValue, Options, Setup, parse_version};
pub use ranking::{Better, competition_ranks, results_by_key};
pub use types::{
    ActionId, Attempt, Chance, Move, Player, PlayerResult, PlayerSet, Players, Refusal, SeatOut,
    Status, Transition, Viewer, seat_label,
};

/// Re-exported so game crates use the same `serde_json` as the SDK.
pub use serde_json;
