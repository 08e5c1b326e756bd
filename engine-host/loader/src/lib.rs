//! tabletop-loader: how engine-host gets game plugins from disk.
//!
//! - [`file`](mod@file): checks on a file before anything loads it (a half-copied
//!   library would crash the dynamic loader, which nothing can catch);
//! - [`Plugin`]: one loaded plugin, used through [`tabletop_sdk::DynGame`].
//!   It is loaded from a private copy named by its content hash, never in
//!   place, and never unloaded. All of the host's `unsafe` — opening the
//!   library, finding the entry symbol, every call through its function
//!   table — lives in the private `ffi` module, each block with its
//!   `// SAFETY:` argument;
//! - [`Registry`]: every loaded version of every game;
//! - [`watcher`]: the thread that hot-adds files copied into the plugin
//!   directory;
//! - [`vet`]: the check a file passes before the host loads it — opened and
//!   played a little in a short-lived child process ([`Vetter`]), so a file
//!   that crashes the dynamic loader takes down only the child.
//!
//! ```no_run
//! use tabletop_loader::{Registry, default_cache_dir};
//! use tabletop_sdk::DynGame;
//!
//! let registry = Registry::new();
//! let added = registry.add_file("target/release/libfocus.so".as_ref(), &default_cache_dir());
//! println!("{added:?}");
//! for plugin in registry.latest() {
//!     println!("{} {}", plugin.manifest().name, plugin.manifest().version);
//! }
//! ```

#![deny(clippy::undocumented_unsafe_blocks)]

mod ffi;
pub mod file;
mod plugin;
pub mod registry;
pub mod vet;
pub mod watcher;

pub use plugin::{LoadError, Plugin, default_cache_dir, parse_version};
pub use registry::{AddError, Added, Registry};
pub use vet::{Refusal, Report, Vetter};
