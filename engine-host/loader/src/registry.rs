//! The registry: every loaded plugin, by game name and version.
//!
//! One game and version normally has one build (one file content). Two
//! files that claim the same game and version with different content are
//! both kept when the caller allows it ([`Registry::add_build`], the
//! host's start-up scan and hot-add): neither is chosen by file-name
//! order. A stored match finds the build whose content hash it recorded
//! ([`Registry::build_to_replay`]), and a new match of that version is refused
//! ([`Registry::for_new_match`]) until all but one of the files are gone.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, RwLock};

use tabletop_sdk::{DynGame, parse_version};

use crate::LoadError;
use crate::plugin::Plugin;
use crate::vet::Refusal;

/// A version as comparable numbers: (major, minor, patch).
type VersionKey = (u64, u64, u64);

/// The loaded versions of one game, oldest first; each version's builds
/// in the order they were loaded (one, unless files disagree).
type Versions = BTreeMap<VersionKey, Vec<Arc<Plugin>>>;

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
    /// Another build of a game and version already loaded from other files
    /// with other content ([`Registry::add_build`]): every build is kept,
    /// and new matches of the version are refused.
    AnotherBuild {
        /// The game.
        game: String,
        /// The version.
        version: String,
        /// Every file of the version, in load order, this one last.
        files: Vec<String>,
    },
}

/// The build a stored or recorded match replays through
/// ([`Registry::build_to_replay`]).
#[derive(Debug, Clone)]
pub enum ReplayBuild {
    /// The build whose content hash the match recorded.
    Recorded(Arc<Plugin>),
    /// The version's only build; the match recorded another hash, or none.
    Only(Arc<Plugin>),
    /// No build of the version is loaded.
    NotLoaded,
    /// Several builds are loaded and none has the hash the match recorded
    /// (or it recorded none).
    Several(Vec<Arc<Plugin>>),
}

/// Why no single build of a game version can start a new match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoBuild {
    /// No plugin of the game, or of that version, is loaded.
    NotLoaded,
    /// Files with different content claim the version: each one's name.
    Ambiguous(Vec<String>),
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

    /// Registers an already loaded plugin; a file with other content for a
    /// game and version already loaded is refused ([`AddError::Conflict`]).
    pub fn add(&self, plugin: Arc<Plugin>) -> Result<Added, AddError> {
        self.insert(plugin, false)
    }

    /// Registers an already loaded plugin, keeping it beside the builds
    /// of its game and version that other files hold
    /// ([`Added::AnotherBuild`]).
    pub fn add_build(&self, plugin: Arc<Plugin>) -> Result<Added, AddError> {
        self.insert(plugin, true)
    }

    fn insert(&self, plugin: Arc<Plugin>, another_build: bool) -> Result<Added, AddError> {
        let manifest = plugin.manifest();
        let game = manifest.name.clone();
        let version = manifest.version.clone();
        let key = parse_version(&version).expect("validated at load");
        let mut games = self.games.write().unwrap_or_else(|e| e.into_inner());
        let builds = games
            .entry(game.clone())
            .or_default()
            .entry(key)
            .or_default();
        if builds.iter().any(|b| b.sha256() == plugin.sha256()) {
            return Ok(Added::AlreadyLoaded { game, version });
        }
        let Some(existing) = builds.first() else {
            builds.push(plugin);
            return Ok(Added::New { game, version });
        };
        if !another_build {
            return Err(AddError::Conflict {
                game,
                version,
                existing: existing.file().display().to_string(),
            });
        }
        builds.push(plugin);
        Ok(Added::AnotherBuild {
            game,
            version,
            files: builds
                .iter()
                .map(|b| b.file().display().to_string())
                .collect(),
        })
    }

    /// The newest version of `game`, or the exact `version` if given (its
    /// first build, when files disagree: for describing the game, not for
    /// playing it).
    pub fn get(&self, game: &str, version: Option<&str>) -> Option<Arc<Plugin>> {
        let games = self.games.read().unwrap_or_else(|e| e.into_inner());
        let versions = games.get(game)?;
        let builds = match version {
            None => versions.values().next_back()?,
            Some(v) => versions.get(&parse_version(v)?)?,
        };
        builds.first().cloned()
    }

    /// The one build of `game` at `version` (the newest without one) a new
    /// match is made with. Where files with different content claim that
    /// version, the builds whose files are gone from disk are let go first;
    /// if more than one is left, none is chosen.
    pub fn for_new_match(&self, game: &str, version: Option<&str>) -> Result<Arc<Plugin>, NoBuild> {
        let mut games = self.games.write().unwrap_or_else(|e| e.into_inner());
        let versions = games.get_mut(game).ok_or(NoBuild::NotLoaded)?;
        let builds = match version {
            None => versions.values_mut().next_back(),
            Some(v) => parse_version(v).and_then(|key| versions.get_mut(&key)),
        }
        .ok_or(NoBuild::NotLoaded)?;
        if builds.len() > 1 {
            let present: Vec<Arc<Plugin>> = builds
                .iter()
                .filter(|b| b.file().is_file())
                .cloned()
                .collect();
            if !present.is_empty() {
                *builds = present;
            }
        }
        match builds.as_slice() {
            [only] => Ok(Arc::clone(only)),
            [] => Err(NoBuild::NotLoaded),
            several => Err(NoBuild::Ambiguous(
                // File names, not paths: the refusal reaches any caller.
                several.iter().map(|b| b.file_name()).collect(),
            )),
        }
    }

    /// Every build of `game` at exactly `version`, in load order.
    pub fn builds(&self, game: &str, version: &str) -> Vec<Arc<Plugin>> {
        let games = self.games.read().unwrap_or_else(|e| e.into_inner());
        parse_version(version)
            .and_then(|key| games.get(game)?.get(&key).cloned())
            .unwrap_or_default()
    }

    /// The build of `game` at `version` a stored or recorded match replays
    /// through: the one whose file content has the hex SHA-256 it recorded,
    /// else the version's only build (a rebuild changes the hash), else why
    /// there is none.
    pub fn build_to_replay(&self, game: &str, version: &str, sha256: Option<&str>) -> ReplayBuild {
        let builds = self.builds(game, version);
        if let Some(recorded) = sha256.and_then(|h| builds.iter().find(|b| b.sha256() == h)) {
            return ReplayBuild::Recorded(Arc::clone(recorded));
        }
        match <[_; 1]>::try_from(builds) {
            Ok([only]) => ReplayBuild::Only(only),
            Err(builds) if builds.is_empty() => ReplayBuild::NotLoaded,
            Err(several) => ReplayBuild::Several(several),
        }
    }

    /// Every game's newest plugin, by name (its first build).
    pub fn latest(&self) -> Vec<Arc<Plugin>> {
        let games = self.games.read().unwrap_or_else(|e| e.into_inner());
        games
            .values()
            .filter_map(|v| v.values().next_back()?.first().cloned())
            .collect()
    }

    /// Every loaded plugin, by name then version, each build.
    pub fn all(&self) -> Vec<Arc<Plugin>> {
        let games = self.games.read().unwrap_or_else(|e| e.into_inner());
        games
            .values()
            .flat_map(|v| v.values().flatten().cloned())
            .collect()
    }

    /// Every loaded version of `game`, oldest first.
    pub fn versions(&self, game: &str) -> Vec<String> {
        let games = self.games.read().unwrap_or_else(|e| e.into_inner());
        games
            .get(game)
            .map(|v| {
                v.values()
                    .filter_map(|builds| Some(builds.first()?.manifest().version.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }
}
