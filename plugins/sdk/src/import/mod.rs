//! The host's side of the plugin ABI, the mirror of
//! [`export_game!`](crate::export_game): opening a plugin file and using the
//! game inside it as a [`DynGame`] ([`ImportedGame`]). Behind the `import`
//! feature, which links `libloading` and `tracing`; engine-host's loader and
//! the conformance kit's plugin tests use it.
//!
//! All of the SDK's host-side `unsafe` — opening the library, finding its
//! symbols, every call through its function table — lives in the private
//! `ffi` module, each block with its `// SAFETY:` argument.
//!
//! [`ImportedGame::open`] opens a file in place. Opening a file runs its code,
//! and a library is never unloaded (`dlclose` is unsound with Rust
//! thread-locals, and a state must never outlive its code): a host that must
//! survive files changing under it opens private copies and vets them first,
//! as engine-host's loader does.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use crate::dynamic::{DynGame, DynState};
use crate::error::GameError;
use crate::fingerprint::BuildFingerprint;
use crate::manifest::{Manifest, parse_version};
use crate::types::PlayerSet;

use ffi::{Library, RawPlugin};

mod ffi;
mod state;
#[cfg(test)]
mod test_game;

/// Why a file could not be imported as a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportError {
    /// The dynamic loader refused the file (not a shared library, wrong
    /// architecture, missing dependency).
    Open(String),
    /// A shared library without the Tabletop entry symbol.
    NotAPlugin,
    /// A Tabletop plugin built against an incompatible ABI.
    Incompatible(String),
    /// The plugin's manifest (or its seat names) is missing or malformed.
    BadManifest(String),
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::Open(e) => write!(f, "not a loadable shared library: {e}"),
            ImportError::NotAPlugin => write!(
                f,
                "a shared library, but not a Tabletop plugin (no `{}` symbol)",
                crate::abi::ENTRY_SYMBOL
            ),
            ImportError::Incompatible(e) => write!(f, "incompatible plugin: {e}"),
            ImportError::BadManifest(e) => write!(f, "bad manifest: {e}"),
        }
    }
}

impl std::error::Error for ImportError {}

/// A game in a plugin file, opened and checked: its ABI version, its table,
/// its manifest and seat names. Used through [`DynGame`]; its states live
/// inside the plugin.
#[derive(Debug)]
pub struct ImportedGame {
    raw: RawPlugin,
    manifest: Manifest,
    /// The game's seat names for each player count from the manifest's
    /// fewest, read once at load: every view names its seats.
    seat_names: Vec<Vec<String>>,
    fingerprint: Option<BuildFingerprint>,
}

impl ImportedGame {
    /// Opens the plugin file at `path` in place, checks it and sends its log
    /// lines to `tracing` (target `plugin`). The library stays loaded for the
    /// rest of the process, even if this value is dropped.
    ///
    /// Opening a file runs its code: `path` must be a file the caller trusts
    /// as much as its own code (see the module docs).
    pub fn open(path: &Path) -> Result<ImportedGame, ImportError> {
        let library = Library::open(path)?;
        let raw = library.plugin()?;
        let manifest_json = raw
            .manifest_json()
            .map_err(|e| ImportError::BadManifest(e.message))?;
        let mut manifest: Manifest = serde_json::from_str(&manifest_json)
            .map_err(|e| ImportError::BadManifest(e.to_string()))?;
        // The catalog's claim follows the extension the host can call: a
        // plugin written without the SDK may say one and offer the other.
        if manifest.removable_players != raw.has_remove_player() {
            tracing::warn!(
                game = %manifest.name,
                claimed = manifest.removable_players,
                offered = raw.has_remove_player(),
                "the manifest's removable_players disagrees with the remove-player extension; \
                 the extension decides"
            );
            manifest.removable_players = raw.has_remove_player();
        }
        validate_manifest(&manifest)?;
        raw.log_to_tracing();
        let seat_names = read_seat_names(&raw, &manifest)?;
        Ok(ImportedGame {
            raw,
            manifest,
            seat_names,
            fingerprint: library.build_fingerprint(),
        })
    }

    /// The ids of the ABI extensions the plugin offers, of those a host
    /// uses (`tabletop.remove-player/1`, …).
    pub fn extensions(&self) -> Vec<&'static str> {
        self.raw.extension_ids()
    }

    /// The build the plugin comes from, as `export_game!` exports it; `None`
    /// for a plugin written without the SDK.
    pub fn build_fingerprint(&self) -> Option<&BuildFingerprint> {
        self.fingerprint.as_ref()
    }
}

/// Reads the build fingerprint of the plugin file at `path` without taking
/// its table: enough to tell which of several builds it is. Opens the
/// library (see [`ImportedGame::open`] on trust), which stays loaded.
pub fn read_build_fingerprint(path: &Path) -> Result<Option<BuildFingerprint>, ImportError> {
    Ok(Library::open(path)?.build_fingerprint())
}

impl DynGame for ImportedGame {
    fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    fn new_state(
        &self,
        players: u32,
        options: &BTreeMap<String, String>,
        position: Option<&str>,
    ) -> Result<Box<dyn DynState>, GameError> {
        Ok(state::boxed(
            self.raw.new_state(players, options, position)?,
        ))
    }

    fn seat_names(&self, players: u32) -> Result<Vec<String>, GameError> {
        let index = players.checked_sub(self.manifest.min_players);
        Ok(index
            .and_then(|i| self.seat_names.get(i as usize))
            .cloned()
            .unwrap_or_default())
    }
}

fn validate_manifest(manifest: &Manifest) -> Result<(), ImportError> {
    let bad = |m: &str| Err(ImportError::BadManifest(m.to_string()));
    if manifest.name.is_empty()
        || !manifest
            .name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
    {
        return bad("the game name must be non-empty lowercase ASCII");
    }
    if parse_version(&manifest.version).is_none() {
        return bad("the version must be semver MAJOR.MINOR.PATCH");
    }
    if manifest.min_players == 0
        || manifest.min_players > manifest.max_players
        || manifest.max_players > PlayerSet::MAX_PLAYERS
    {
        return bad("the player range is empty or too large");
    }
    Ok(())
}

/// The seat names of every player count the manifest allows (empty lists
/// for a plugin that names no seats). A plugin that names them wrongly (not
/// one distinct, non-empty name per seat) is refused: every message would
/// name its seats wrongly.
fn read_seat_names(raw: &RawPlugin, manifest: &Manifest) -> Result<Vec<Vec<String>>, ImportError> {
    let mut all = Vec::new();
    for players in manifest.min_players..=manifest.max_players {
        let bad =
            |why: String| ImportError::BadManifest(format!("seat names of {players} seats: {why}"));
        let names: Vec<String> = match raw.seat_names_json(players).map_err(|e| bad(e.message))? {
            None => Vec::new(),
            Some(json) => parse_json("seat names", &json).map_err(|e| bad(e.message))?,
        };
        let distinct = names
            .iter()
            .enumerate()
            .all(|(i, n)| !n.is_empty() && !names[..i].contains(n));
        if !names.is_empty() && (names.len() != players as usize || !distinct) {
            return Err(bad(format!("{names:?} is not one distinct name per seat")));
        }
        all.push(names);
    }
    Ok(all)
}

/// `text`, a JSON answer of the plugin, as a `T`.
fn parse_json<T: serde::de::DeserializeOwned>(what: &str, text: &str) -> Result<T, GameError> {
    serde_json::from_str(text)
        .map_err(|e| GameError::internal(format!("plugin returned malformed {what}: {e}")))
}
