//! tabletop-loader: how engine-host gets game plugins from disk.
//!
//! - [`file`](mod@file): checks on a file before anything loads it (a half-copied
//!   library would crash the dynamic loader, which nothing can catch);
//! - [`Plugin`]: one loaded plugin, used through [`tabletop_sdk::DynGame`].
//!   It is loaded from a private copy named by its content hash, never in
//!   place, and never unloaded. The crossing of the C ABI — opening the
//!   library, finding the entry symbol, every call through its function
//!   table, with all of its `unsafe` — is the SDK's import side
//!   ([`tabletop_sdk::import`]), which presents the copy as a `DynGame`;
//! - [`isolation`]: plugins in worker processes, where a fault costs one
//!   match, and the trust that lets a build run in the host instead;
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

#![forbid(unsafe_code)]

pub mod crumb;
mod error;
pub mod file;
pub mod isolation;
mod plugin;
pub mod priority;
pub mod registry;
pub mod vet;
pub mod watcher;

pub use error::LoadError;
pub use plugin::{Plugin, default_cache_dir};
pub use registry::{AddError, Added, NoBuild, Registry, ReplayBuild};
pub use tabletop_sdk::parse_version;
pub use vet::{Refusal, Report, Vetter};
