//! engine-host: the Tabletop server. It loads game plugins (shared libraries
//! built with `tabletop-sdk`) and serves matches over gRPC.
//!
//! The crate has three layers:
//! - [`plugin`]: loading plugin files; all of the host's `unsafe` lives in its
//!   private `ffi` module.
//! - [`core`]: matches, seats, logs, records, storage — free of gRPC.
//! - [`grpc`]: the thin adapter that validates requests, calls the core on a
//!   blocking pool with a deadline, and maps errors to statuses in one place.
//!
//! ```no_run
//! use std::sync::Arc;
//! use engine_host::core::{engine::{Engine, NewMatch}, store::MemoryStore};
//!
//! let engine = Engine::new(Arc::new(MemoryStore), "admin-secret", std::env::temp_dir());
//! engine.load_plugin_dir(std::path::Path::new("target/release"));
//! let created = engine
//!     .create_match(NewMatch { game: "focus".into(), players: 2, ..Default::default() })
//!     .unwrap();
//! println!("{}", created.view.text);
//! ```

pub mod config;
pub mod core;
pub mod grpc;
pub mod plugin;
