//! One plugin: loading a cdylib from disk and using it as a [`DynGame`].
//!
//! A file is never opened in place: it is copied to a private path named by its
//! content hash, and that copy is loaded. `dlopen` of a path that is already
//! loaded returns the old library, and copying over a loaded library would
//! crash the host; content addressing avoids both.

use std::any::Any;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use sha2::{Digest, Sha256};
use tabletop_sdk::abi::StrRef;
use tabletop_sdk::{
    ActionId, Attempt, Chance, DynGame, DynState, GameError, Manifest, Move, Player, PlayerResult,
    Refusal, SeatOut, Status, Transition, Viewer,
};

use crate::ffi::{self, RawPlugin, RawState};
use crate::file::{check_complete_library, read_plugin_file};

/// Why a plugin file was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// The file could not be read or copied.
    Io(String),
    /// The path names something other than a regular file: what it is.
    NotAFile(&'static str),
    /// The file is larger than a plugin file may be.
    TooLarge {
        /// Its size.
        bytes: u64,
        /// The largest allowed ([`crate::file::max_plugin_bytes`]).
        max: u64,
    },
    /// The dynamic loader refused the file (not a shared library, wrong
    /// architecture, missing dependency).
    Open(String),
    /// A shared library without the Tabletop entry symbol.
    NotAPlugin,
    /// A Tabletop plugin built against an incompatible ABI.
    Incompatible(String),
    /// The plugin's manifest is missing or malformed.
    BadManifest(String),
    /// The file's content is not what was checked before the load.
    Changed,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Io(e) => write!(f, "cannot read the file: {e}"),
            LoadError::NotAFile(kind) => {
                write!(
                    f,
                    "{kind}, not a regular file: a plugin is a shared library file"
                )
            }
            LoadError::TooLarge { bytes, max } => write!(
                f,
                "the file has {bytes} bytes, more than the {max} a plugin file may have \
                 (--max-plugin-bytes)"
            ),
            LoadError::Open(e) => write!(f, "not a loadable shared library: {e}"),
            LoadError::NotAPlugin => write!(
                f,
                "a shared library, but not a Tabletop plugin (no `{}` symbol)",
                tabletop_sdk::abi::ENTRY_SYMBOL
            ),
            LoadError::Incompatible(e) => write!(f, "incompatible plugin: {e}"),
            LoadError::BadManifest(e) => write!(f, "bad manifest: {e}"),
            LoadError::Changed => f.write_str("the file changed after it was checked"),
        }
    }
}

impl std::error::Error for LoadError {}

/// A loaded game plugin. Cheap to share (`Arc<Plugin>`); never unloaded.
#[derive(Debug)]
pub struct Plugin {
    raw: RawPlugin,
    manifest: Manifest,
    file: PathBuf,
    sha256: String,
    loaded_at: SystemTime,
    /// The game's seat names for each player count from the manifest's
    /// fewest, read once at load: every view names its seats.
    seat_names: Vec<Vec<String>>,
}

/// Where private copies of plugin files go when no other place is given.
pub fn default_cache_dir() -> PathBuf {
    std::env::temp_dir().join("tabletop-plugin-cache")
}

impl Plugin {
    /// Loads the plugin file at `path` through a private copy in
    /// [`default_cache_dir`].
    pub fn load(path: &Path) -> Result<Arc<Plugin>, LoadError> {
        Plugin::load_with_cache(path, &default_cache_dir())
    }

    /// Loads the plugin file at `path` through a private copy in `cache_dir`.
    pub fn load_with_cache(path: &Path, cache_dir: &Path) -> Result<Arc<Plugin>, LoadError> {
        Plugin::load_checked(path, cache_dir, None)
    }

    /// [`Plugin::load_with_cache`], only if the file's content has the
    /// SHA-256 `expected` (hex): the content a vetting child checked. The
    /// bytes hashed are the bytes loaded, so a file swapped after its check
    /// is refused ([`LoadError::Changed`]) before any of it is loaded.
    pub fn load_vetted(
        path: &Path,
        cache_dir: &Path,
        expected: &str,
    ) -> Result<Arc<Plugin>, LoadError> {
        Plugin::load_checked(path, cache_dir, Some(expected))
    }

    fn load_checked(
        path: &Path,
        cache_dir: &Path,
        expected: Option<&str>,
    ) -> Result<Arc<Plugin>, LoadError> {
        let bytes = read_plugin_file(path)?;
        // dlopen of a truncated library can fault the whole process (pages
        // mapped past the end of the file), so check completeness first.
        if let Err(why) = check_complete_library(&bytes) {
            return Err(LoadError::Open(format!(
                "{} is not a whole library ({why}): truncated, or still being copied",
                path.display()
            )));
        }
        let sha256 = hex::encode(Sha256::digest(&bytes));
        if expected.is_some_and(|expected| expected != sha256) {
            return Err(LoadError::Changed);
        }
        let private = private_copy(&bytes, &sha256, path, cache_dir)?;
        let raw = RawPlugin::open(&private)?;
        let manifest_json = raw
            .manifest_json()
            .map_err(|e| LoadError::BadManifest(e.message))?;
        let mut manifest: Manifest = serde_json::from_str(&manifest_json)
            .map_err(|e| LoadError::BadManifest(e.to_string()))?;
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
        raw.set_logger(log_from_plugin);
        let seat_names = read_seat_names(&raw, &manifest)?;
        Ok(Arc::new(Plugin {
            raw,
            manifest,
            file: path.to_path_buf(),
            sha256,
            loaded_at: SystemTime::now(),
            seat_names,
        }))
    }

    /// The file it was loaded from (the user's path, not the private copy).
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// Hex SHA-256 of the file's content.
    pub fn sha256(&self) -> &str {
        &self.sha256
    }

    /// When it was loaded.
    pub fn loaded_at(&self) -> SystemTime {
        self.loaded_at
    }

    /// The ids of the ABI extensions the plugin offers, of those the host
    /// uses (`tabletop.remove-player/1`, …).
    pub fn extensions(&self) -> Vec<&'static str> {
        self.raw.extension_ids()
    }
}

fn validate_manifest(manifest: &Manifest) -> Result<(), LoadError> {
    let bad = |m: &str| Err(LoadError::BadManifest(m.to_string()));
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
        || manifest.max_players > tabletop_sdk::PlayerSet::MAX_PLAYERS
    {
        return bad("the player range is empty or too large");
    }
    Ok(())
}

/// `MAJOR.MINOR.PATCH` as numbers, for ordering versions (`1.10.0` > `1.9.0`).
pub fn parse_version(version: &str) -> Option<(u64, u64, u64)> {
    let core = version.split(['-', '+']).next()?;
    let mut parts = core.split('.').map(|p| p.parse::<u64>().ok());
    let v = (parts.next()??, parts.next()??, parts.next()??);
    parts.next().is_none().then_some(v)
}

fn private_copy(
    bytes: &[u8],
    sha256: &str,
    original: &Path,
    cache_dir: &Path,
) -> Result<PathBuf, LoadError> {
    std::fs::create_dir_all(cache_dir).map_err(|e| LoadError::Io(e.to_string()))?;
    let extension = original
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or(std::env::consts::DLL_EXTENSION);
    let target = cache_dir.join(format!("{sha256}.{extension}"));
    let already = std::fs::read(&target).is_ok_and(|existing| existing == bytes);
    if !already {
        // Write beside and rename, so a concurrent loader never sees half a file.
        let temp = cache_dir.join(format!(
            "{sha256}.{}.{:?}.tmp",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::write(&temp, bytes).map_err(|e| LoadError::Io(e.to_string()))?;
        std::fs::rename(&temp, &target).map_err(|e| LoadError::Io(e.to_string()))?;
    }
    Ok(target)
}

/// The log sink given to every plugin: callable from any thread, and it
/// never unwinds (tracing does not panic on a line).
///
/// # Safety
/// `message` is lent for the call, as the ABI's `LogFn` says.
unsafe extern "C" fn log_from_plugin(level: u32, message: StrRef) {
    // SAFETY: the plugin lends the message for the call; it is copied here.
    let text = String::from_utf8_lossy(unsafe { ffi::borrowed_bytes(message) }).into_owned();
    match level {
        1 => tracing::error!(target: "plugin", "{text}"),
        2 => tracing::warn!(target: "plugin", "{text}"),
        3 => tracing::info!(target: "plugin", "{text}"),
        4 => tracing::debug!(target: "plugin", "{text}"),
        _ => tracing::trace!(target: "plugin", "{text}"),
    }
}

impl DynGame for Plugin {
    fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    fn new_state(
        &self,
        players: u32,
        options: &BTreeMap<String, String>,
        position: Option<&str>,
    ) -> Result<Box<dyn DynState>, GameError> {
        Ok(boxed_state(self.raw.new_state(players, options, position)?))
    }

    fn seat_names(&self, players: u32) -> Result<Vec<String>, GameError> {
        let index = players.checked_sub(self.manifest.min_players);
        Ok(index
            .and_then(|i| self.seat_names.get(i as usize))
            .cloned()
            .unwrap_or_default())
    }
}

/// A state living inside a plugin.
#[derive(Debug)]
struct PluginState(RawState);

/// The plugin state behind a `&dyn DynState`, if it is one.
fn raw_state(state: &dyn DynState) -> Option<&RawState> {
    state
        .as_any()
        .downcast_ref::<PluginState>()
        .map(|state| &state.0)
}

fn boxed_state(raw: RawState) -> Box<dyn DynState> {
    Box::new(PluginState(raw))
}

/// The seat names of every player count the manifest allows (empty lists
/// for a plugin that names no seats). A plugin that names them wrongly (not
/// one distinct, non-empty name per seat) is refused: every message would
/// name its seats wrongly.
fn read_seat_names(raw: &RawPlugin, manifest: &Manifest) -> Result<Vec<Vec<String>>, LoadError> {
    let mut all = Vec::new();
    for players in manifest.min_players..=manifest.max_players {
        let bad =
            |why: String| LoadError::BadManifest(format!("seat names of {players} seats: {why}"));
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

fn parse_json<T: serde::de::DeserializeOwned>(what: &str, text: &str) -> Result<T, GameError> {
    serde_json::from_str(text)
        .map_err(|e| GameError::internal(format!("plugin returned malformed {what}: {e}")))
}

impl DynState for PluginState {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn clone_state(&self) -> Result<Box<dyn DynState>, GameError> {
        Ok(boxed_state(self.0.clone_state()?))
    }

    fn status(&self) -> Result<Status, GameError> {
        Ok(self.0.status())
    }

    fn chance(&self) -> Result<Chance, GameError> {
        self.0.chance()
    }

    fn results(&self) -> Result<Vec<PlayerResult>, GameError> {
        parse_json("results", &self.0.results_json()?)
    }

    fn legal_actions(&self, player: Player, out: &mut Vec<ActionId>) -> Result<(), GameError> {
        self.0.legal_actions(player, out)
    }

    fn lend_legal_actions(&mut self, player: Player) -> Result<&[ActionId], GameError> {
        self.0.lend_legal_actions(player)
    }

    fn apply(&mut self, moves: &[Move]) -> Result<(), GameError> {
        self.0.apply(moves)
    }

    fn apply_and_lend_legal(
        &mut self,
        moves: &[Move],
        player: Option<Player>,
    ) -> Result<(Status, &[ActionId]), GameError> {
        self.0.ply(moves, player)
    }

    fn apply_chance(&mut self, outcome: u64) -> Result<(), GameError> {
        self.0.apply_chance(outcome)
    }

    fn view(&self, viewer: Viewer) -> Result<String, GameError> {
        self.0.view(viewer)
    }

    fn render_text(&self, viewer: Viewer) -> Result<String, GameError> {
        self.0.render_text(viewer)
    }

    fn event(
        &self,
        before: &dyn DynState,
        transition: &Transition,
        viewer: Viewer,
    ) -> Result<String, GameError> {
        let before = raw_state(before)
            .ok_or_else(|| GameError::internal("`before` is not a plugin state"))?;
        self.0.event(before, transition, viewer)
    }

    fn position(&self) -> Result<String, GameError> {
        self.0.position()
    }

    fn action_to_string(&self, player: Player, action: ActionId) -> Result<String, GameError> {
        self.0.action_to_string(player, action)
    }

    fn actions_to_strings(
        &self,
        player: Player,
        ids: &[ActionId],
        text: &mut String,
        ends: &mut Vec<u32>,
    ) -> Result<(), GameError> {
        self.0.actions_to_strings(player, ids, text, ends)
    }

    fn parse_action(&self, player: Player, text: &str) -> Result<ActionId, GameError> {
        self.0.parse_action(player, text)
    }

    fn expand_notation(
        &self,
        player: Player,
        text: &str,
    ) -> Result<Option<Vec<String>>, GameError> {
        match self.0.expand_notation(player, text)? {
            None => Ok(None),
            Some(json) => parse_json("expansion", &json).map(Some),
        }
    }

    fn resample(&self, viewer: Viewer, random: u64) -> Result<Box<dyn DynState>, GameError> {
        Ok(boxed_state(self.0.resample(viewer, random)?))
    }

    fn remove_player(&mut self, player: Player) -> Result<(), GameError> {
        self.0.remove_player(player)
    }

    fn seats_out(&self) -> Result<Vec<SeatOut>, GameError> {
        match self.0.seats_out_json()? {
            None => Ok(Vec::new()),
            Some(json) => parse_json("seats out", &json),
        }
    }

    fn explain_refusal(
        &self,
        player: Player,
        attempt: Attempt<'_>,
    ) -> Result<Option<Refusal>, GameError> {
        let json = match attempt {
            Attempt::Id(action) => self.0.explain_action_json(player, action)?,
            Attempt::Text(text) => self.0.explain_notation_json(player, text)?,
        };
        match json {
            Some(json) if !json.is_empty() => parse_json("refusal", &json).map(Some),
            _ => Ok(None),
        }
    }

    fn action_space(&self) -> Result<u64, GameError> {
        self.0.action_space()
    }

    fn evaluate(&self, values: &mut [f64]) -> Result<bool, GameError> {
        self.0.evaluate(values)
    }

    fn render_svg(&self, viewer: Viewer) -> Result<Option<String>, GameError> {
        self.0.render_svg(viewer)
    }

    fn action_targets(
        &self,
        player: Player,
        ids: &[ActionId],
    ) -> Result<Option<Vec<Vec<String>>>, GameError> {
        let Some(json) = self.0.action_targets_json(player, ids)? else {
            return Ok(None);
        };
        let targets: Vec<Vec<String>> = parse_json("action targets", &json)?;
        if targets.len() != ids.len() {
            return Err(GameError::internal(format!(
                "the plugin wrote targets for {} actions; {} were asked for",
                targets.len(),
                ids.len()
            )));
        }
        Ok(Some(targets))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_is_not_what_was_checked_is_refused_before_any_load() {
        // Any complete ELF file will do: the content check comes first.
        let file = std::env::current_exe().unwrap();
        let cache = std::env::temp_dir().join(format!("tabletop-vetted-{}", std::process::id()));
        let refused = Plugin::load_vetted(&file, &cache, "not the checked content").unwrap_err();
        assert_eq!(refused, LoadError::Changed);
        assert!(!cache.exists(), "nothing was copied for loading");
    }
}
