//! The domain core: matches, plugins and storage, free of gRPC.

pub mod engine;
pub mod error;
pub mod game_match;
pub mod inline;
pub mod legal;
pub mod record;
pub mod store;
pub mod store_sqlite;
pub mod tokens;
pub mod watcher;
