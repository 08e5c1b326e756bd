//! engine-host: the Tabletop server. It loads game plugins (shared libraries
//! built with `tabletop-sdk`) and serves matches over gRPC.
//!
//! Plugins are loaded by `tabletop-loader` (which holds all of the host's
//! `unsafe`); the crate has two layers over it:
//! - [`core`]: matches, seats, logs, records, storage — free of gRPC.
//! - [`grpc`]: the thin adapter that validates requests, calls the core on a
//!   blocking pool with a deadline, and maps errors to statuses in one place.
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

pub mod config;
pub mod engine;
pub mod grpc;
pub mod metrics;
pub mod shutdown;
pub mod store;
