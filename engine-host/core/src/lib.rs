//! tabletop-core: one match of any game, played through the plugin contract
//! (`tabletop_sdk::DynGame` / `DynState`), with no knowledge of gRPC or of
//! storage.
//!
//! A [`Match`] holds a match's setup, seats, log and current state, and
//! enforces the rules of acting that every game shares: whose turn it is,
//! the expected version, simultaneous turns (actions held until every mover
//! has acted), chance drawn from the match's seed, clocks, shorthand
//! sequences, resignation (ending the match, or leaving one that plays on),
//! seats out of the game and why, a director's controls. It keeps the
//! legal-action lists it was asked for and describes every change to each
//! viewer for watchers. Its owner (the host) serialises access and persists
//! the log; a [`Record`] is the log made portable, from which
//! [`Match::replay`] rebuilds the match exactly.
//!
//! A `Match` is made of parts, each a type with private state and a small
//! API in a module of its own, none knowing another: the seats
//! ([`seat`]), the life stage and results (`stage`), the log ([`log`]),
//! the held simultaneous turn ([`simultaneous`]), the clocks ([`clock`]),
//! the legal-action cache ([`legal`]), the director's state
//! ([`director`]) and the live feed ([`fanout`]). `Match` holds them by
//! value and coordinates them; its methods live in `game_match` and the
//! files beside it, one per kind of change (acting, leaving, directing,
//! watching, replaying). [`History`] regenerates past events from what a
//! match keeps.
//!
//! ```
//! use std::sync::Arc;
//! use tabletop_core::{Match, MatchSetup, Submitted, Viewer};
//! use tabletop_sdk::{DynGame, InProcess};
//!
//! let game: Arc<dyn DynGame> = Arc::new(InProcess::new(lanza::Lanza));
//! let setup = MatchSetup {
//!     match_id: "m1".into(),
//!     game: "lanza".into(),
//!     plugin_version: "1.0.0".into(),
//!     plugin_sha256: None,
//!     players: 2,
//!     options: Default::default(),
//!     seed: 7,
//!     start_position: None,
//!     created_at_ms: 0,
//!     time_control: None,
//!     labels: Default::default(),
//!     open_seat_deadline: None,
//!     spectator_delay: None,
//!     tenant: String::new(),
//!     creator: String::new(),
//!     seat_players: Vec::new(),
//! };
//! let tokens = vec![Some(tabletop_core::tokens::hash_token("a")), Some(tabletop_core::tokens::hash_token("b"))];
//! let mut m = Match::create(game, setup, tokens).unwrap();
//! let seat = m.seat_of("a").unwrap();
//! let (id, notation) = m.legal_actions(seat, Default::default()).unwrap()[0].clone();
//! // Lanza's orders are simultaneous: seat 0's is held until seat 1 orders too.
//! assert_eq!(m.submit(seat, id, Some(m.version())).unwrap(), Submitted::Pending);
//! println!("seat {seat} ordered {notation}; {}", m.view(Viewer::Spectator).unwrap().text);
//! ```

#![forbid(unsafe_code)]

pub mod bot_seat;
pub mod clock;
pub mod delay;
pub mod director;
pub mod error;
pub mod fanout;
mod game_match;
pub mod history;
pub mod identity;
pub mod legal;
pub mod log;
pub mod out;
pub mod quote;
pub mod record;
mod refusal;
pub mod seat;
mod sequence;
pub mod setup;
pub mod simultaneous;
mod stage;
pub mod tokens;
pub mod view;

#[cfg(test)]
mod tests;

pub use bot_seat::BotTurn;
pub use clock::{OnTimeout, TimeControl};
pub use delay::{SpectatorDelay, SpectatorHorizon};
pub use director::{OnDeadline, OpenSeatDeadline};
pub use error::{HostError, HostResult};
pub use fanout::{
    HostEvent, MatchEvent, Subscription, ViewInterest, ViewerEvent, ViewerUpdate, WATCH_BUFFER,
};
pub use game_match::{Match, Submitted};
pub use history::History;
pub use identity::SeatPlayer;
pub use legal::LegalDetail;
pub use log::{LogEntry, LogKind, LoggedMove, LoggedMoves, PluginBuild};
pub use out::{OutReason, RuleOut};
pub use record::Record;
pub use seat::{Seat, SeatInfo, SeatJoin, SeatResult};
pub use setup::{MAX_TENANT, MatchSetup, check_tenant, now_ms, tenant_seed};
pub use simultaneous::HeldAction;
pub use stage::Lifecycle;
pub use tabletop_sdk::Viewer;
pub use view::{MatchView, ViewDetail};
