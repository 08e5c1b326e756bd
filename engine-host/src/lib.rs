//! engine-host: the Tabletop server. It loads game plugins (shared libraries
//! built with `tabletop-sdk`) and serves matches over gRPC.
//!
//! It is built on two crates that do not know each other:
//! [`tabletop_loader`] turns plugin files into loaded games, and
//! [`tabletop_core`] plays one match of any game
//! ([`Match`](tabletop_core::Match)). This crate is the server around them:
//! - [`engine`]: the live matches, the plugins and the store behind one
//!   synchronous API free of gRPC — who may do what, which thread calls a
//!   plugin, the server-side bots;
//! - [`store`]: where matches are kept (SQLite, memory);
//! - [`grpc`]: the adapter that validates requests, calls the engine on the
//!   worker that received them or on the blocking pool with a deadline, and
//!   maps errors to statuses in one place; in front of it the layer of limits
//!   and metrics, and the web page;
//! - [`metrics`], [`config`] (the flags), [`shutdown`] (the stop signals),
//!   [`logging`] (log lines that name their call);
//! - [`malloc`] (glibc's malloc settings) and [`crash_note`] (the note a
//!   host leaves when it dies in a trusted plugin's call): the crate's only
//!   `unsafe` (the crate denies `unsafe_code` elsewhere; every other
//!   `unsafe` block the host runs is in the SDK's import side,
//!   `tabletop_sdk::import`, which opens plugins and calls through their
//!   tables).
//!
//! ```no_run
//! use std::sync::Arc;
//! use engine_host::{engine::{Caller, Engine, NewMatch}, store::MemoryStore};
//!
//! let engine = Engine::new(Arc::new(MemoryStore::default()), "admin-secret", std::env::temp_dir());
//! engine.load_plugin_dir(std::path::Path::new("target/release"));
//! // Who asks decides what they may ask for: an anonymous caller may not
//! // choose the seed, an organizer or the admin may.
//! let caller = engine.authenticate("admin-secret").unwrap();
//! assert_eq!(caller, Caller::Admin);
//! let created = engine
//!     .create_match(&caller, NewMatch { game: "focus".into(), players: 2, seed: Some(7), ..Default::default() })
//!     .unwrap();
//! println!("{}", created.view.text);
//! ```

#![deny(unsafe_code)]

pub mod config;
pub mod crash_note;
pub mod engine;
pub mod grpc;
pub mod logging;
#[allow(unsafe_code)]
pub mod malloc;
pub mod metrics;
pub mod shutdown;
pub mod store;
pub mod throttle;
pub mod witness;
