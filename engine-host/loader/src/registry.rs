//! The registry: every loaded plugin, by game name and version.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, RwLock};

use tabletop_sdk::{DynGame, parse_version};

use crate::LoadError;
use crate::plugin::Plugin;
use crate::vet::Refusal;

/// A version as comparable numbers: (major, minor, patch).
type VersionKey = (u64, u64, u64);

/// The loaded versions of one game, oldest first.
type Versions = BTreeMap<VersionKey, Arc<Plugin>>;

/// Loaded plugins by game name, then version (newest last).
#[derive(Debug, Default)]
pub struct Registry {
    games: RwLock<BTreeMap<String, Versions>>,
}

/// What happened when a file was offered to the registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Added {
    /// A game or version the registry did not have.
    New {
        /// The game.
        game: String,
        /// The version.
        version: String,
    },
    /// The same game and version with identical content was already loaded.
    AlreadyLoaded {
        /// The game.
        game: String,
        /// The version.
        version: String,
    },
}

/// Why a plugin could not be added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AddError {
    /// The file is not a usable plugin.
    Load(LoadError),
    /// The file failed its check in a child process ([`crate::vet`]).
    Vet(Refusal),
    /// Another file already provides this game and version with other content.
    Conflict {
        /// The game.
        game: String,
        /// The version.
        version: String,
        /// The file that provides it.
        existing: String,
    },
}

impl std::fmt::Display for AddError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AddError::Load(e) => e.fmt(f),
            AddError::Vet(refusal) => refusal.fmt(f),
            AddError::Conflict {
                game,
                version,
                existing,
            } => write!(
                f,
                "{game} {version} is already loaded from {existing} with different content; \
                 bump the plugin's version"
            ),
        }
    }
}

impl std::error::Error for AddError {}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Loads `path` (through a private copy in `cache_dir`) and registers it,
    /// in this process and unchecked: for tools and tests. The host vets
    /// every file in a child process first ([`crate::vet::Vetter`]).
    pub fn add_file(&self, path: &Path, cache_dir: &Path) -> Result<Added, AddError> {
        let plugin = Plugin::load_with_cache(path, cache_dir).map_err(AddError::Load)?;
        self.add(plugin)
    }

    /// Loads `path` only if its content is still what a vetting child
    /// checked (`sha256`, hex; see [`Plugin::load_vetted`]) and registers it.
    pub fn add_file_vetted(
        &self,
        path: &Path,
        cache_dir: &Path,
        sha256: &str,
    ) -> Result<Added, AddError> {
        let plugin = Plugin::load_vetted(path, cache_dir, sha256).map_err(AddError::Load)?;
        self.add(plugin)
    }

    /// Registers an already loaded plugin.
    pub fn add(&self, plugin: Arc<Plugin>) -> Result<Added, AddError> {
        let manifest = plugin.manifest();
        let game = manifest.name.clone();
        let version = manifest.version.clone();
        let key = parse_version(&version).expect("validated at load");
        let mut games = self.games.write().unwrap_or_else(|e| e.into_inner());
        let versions = games.entry(game.clone()).or_default();
        if let Some(existing) = versions.get(&key) {
            if existing.sha256() == plugin.sha256() {
                return Ok(Added::AlreadyLoaded { game, version });
            }
            return Err(AddError::Conflict {
                game,
                version,
                existing: existing.file().display().to_string(),
            });
        }
        versions.insert(key, plugin);
        Ok(Added::New { game, version })
    }

    /// The newest version of `game`, or the exact `version` if given.
    pub fn get(&self, game: &str, version: Option<&str>) -> Option<Arc<Plugin>> {
        let games = self.games.read().unwrap_or_else(|e| e.into_inner());
        let versions = games.get(game)?;
        match version {
            None => versions.values().next_back().cloned(),
            Some(v) => versions.get(&parse_version(v)?).cloned(),
        }
    }

    /// Every game's newest plugin, by name.
    pub fn latest(&self) -> Vec<Arc<Plugin>> {
        let games = self.games.read().unwrap_or_else(|e| e.into_inner());
        games
            .values()
            .filter_map(|v| v.values().next_back().cloned())
            .collect()
    }

    /// Every loaded plugin, by name then version.
    pub fn all(&self) -> Vec<Arc<Plugin>> {
        let games = self.games.read().unwrap_or_else(|e| e.into_inner());
        games.values().flat_map(|v| v.values().cloned()).collect()
    }

    /// Every loaded version of `game`, oldest first.
    pub fn versions(&self, game: &str) -> Vec<String> {
        let games = self.games.read().unwrap_or_else(|e| e.into_inner());
        games
            .get(game)
            .map(|v| v.values().map(|p| p.manifest().version.clone()).collect())
            .unwrap_or_default()
    }
}
