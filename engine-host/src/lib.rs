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
//! use engine_host::{engine::{Engine, NewMatch}, store::MemoryStore};
//!
//! let engine = Engine::new(Arc::new(MemoryStore::default()), "admin-secret", std::env::temp_dir());
//! engine.load_plugin_dir(std::path::Path::new("target/release"));
//! let created = engine
//!     .create_match(NewMatch { game: "focus".into(), players: 2, ..Default::default() })
//!     .unwrap();
//! println!("{}", created.view.text);
//! ```

pub mod config;
pub mod engine;
pub mod grpc;
pub mod store;
