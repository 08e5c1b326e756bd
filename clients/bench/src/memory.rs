//! Bytes per idle match: creates many matches of each game through the host's
//! core (`Engine` with the in-memory store, the plugins loaded exactly as
//! engine-host loads them) and measures the growth of this process's RSS; then
//! as many bare game states through the same plugin, to separate the game's own
//! state from what the host adds per match.
//!
//! Everything created is kept alive to the end, so freed memory is never
//! reused by a later measurement and each RSS delta belongs to one step.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use engine_host::engine::{Engine, NewMatch};
use engine_host::store::MemoryStore;
use serde::Serialize;
use tabletop_sdk::DynGame;

use crate::proc::own_rss_bytes;

/// The figures for one game.
#[derive(Debug, Clone, Serialize)]
pub struct GameMemory {
    /// The game.
    pub game: String,
    /// Seats per match (the game's minimum).
    pub players: u32,
    /// Matches created.
    pub matches: usize,
    /// RSS growth per match, bytes.
    pub bytes_per_match: f64,
    /// RSS growth per bare game state (the game's own state), bytes.
    pub bytes_per_state: f64,
    /// The difference: what the host adds per idle match.
    pub host_bytes_per_match: f64,
}

fn rss() -> Result<u64, String> {
    own_rss_bytes().ok_or_else(|| "cannot read VmRSS from /proc/self/status".into())
}

/// Measures every game in `plugin_dir` (or only `only`).
pub fn measure(
    plugin_dir: &Path,
    only: Option<&str>,
    count: usize,
) -> Result<Vec<GameMemory>, String> {
    let cache = std::env::temp_dir().join(format!("tabletop-bench-mem-{}", std::process::id()));
    let engine = Engine::new(
        Arc::new(MemoryStore::default()),
        "bench-admin",
        cache.clone(),
    );
    engine.load_plugin_dir(plugin_dir);
    let games = engine.list_games();
    let _ = std::fs::remove_dir_all(&cache);
    if games.is_empty() {
        return Err(format!(
            "no game plugins in {} (build them: cargo build --release -p focus -p lanza -p lanzeloth -p war)",
            plugin_dir.display()
        ));
    }
    let mut out = Vec::new();
    let mut keep_states = Vec::new();
    for entry in games {
        let name = entry.manifest.name.clone();
        if only.is_some_and(|g| g != name) {
            continue;
        }
        let players = entry.manifest.min_players;
        let plugin = engine
            .registry()
            .get(&name, None)
            .ok_or_else(|| format!("{name} vanished from the registry"))?;
        // Warm up allocator arenas and lazily built tables before measuring.
        for _ in 0..100 {
            create(&engine, &name, players)?;
        }
        let before = rss()?;
        for _ in 0..count {
            create(&engine, &name, players)?;
        }
        let after_matches = rss()?;
        let options = BTreeMap::new();
        let mut states = Vec::with_capacity(count);
        let before_states = rss()?;
        for _ in 0..count {
            states.push(
                plugin
                    .new_state(players, &options, None)
                    .map_err(|e| format!("{name}: new state: {e}"))?,
            );
        }
        let after_states = rss()?;
        keep_states.push(states);
        let per_match = after_matches.saturating_sub(before) as f64 / count as f64;
        // The Vec of boxes itself costs 16 bytes per state; not the game's.
        let per_state =
            (after_states.saturating_sub(before_states) as f64 / count as f64 - 16.0).max(0.0);
        out.push(GameMemory {
            game: name,
            players,
            matches: count,
            bytes_per_match: per_match,
            bytes_per_state: per_state,
            host_bytes_per_match: per_match - per_state,
        });
    }
    Ok(out)
}

fn create(engine: &Engine, game: &str, players: u32) -> Result<(), String> {
    engine
        .create_match(
            &engine_host::engine::Caller::Anonymous,
            NewMatch {
                game: game.to_string(),
                players,
                ..Default::default()
            },
        )
        .map(drop)
        .map_err(|e| format!("{game}: create: {e}"))
}
