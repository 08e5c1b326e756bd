//! The plugins the host can play: the registry of loaded versions, the
//! vetting of a file before it is loaded, the catalog of games, and the
//! rebuilding of a stored match through the version it was created with.
//!
//! With a vetter ([`Catalog::with_vetter`], which `main` always sets,
//! through `Engine::with_vetter`) every file is checked in a child process
//! before it is loaded, whichever way it came. Each file offered gets one
//! log line naming it ([`log_offer`]): loaded, already loaded, or `refused
//! plugin file PATH: REASON`.
//!
//! Files found at start or hot-added that claim one game version with
//! different content are all loaded and named in the log; a match records
//! the content hash of the file it was created with
//! ([`MatchSetup::plugin_sha256`](tabletop_core::MatchSetup::plugin_sha256))
//! and replays through that build ([`Catalog::restore`]), and new matches
//! of the version are refused ([`Catalog::for_new_match`]) until one file
//! is left.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tabletop_core::{HostError, HostResult, Match, now_ms};
use tabletop_loader::file::check_plugin_file;
use tabletop_loader::isolation::Isolation;
use tabletop_loader::{
    AddError, Added, LoadError, NoBuild, Plugin, Refusal, Registry, ReplayBuild, Report, Vetter,
};
use tabletop_sdk::abi::{EXT_ACTION_TARGETS, EXT_SVG_BOARD};
use tabletop_sdk::{DynGame, Manifest};

use crate::store::StoredMatch;

/// A game in the catalog.
#[derive(Debug, Clone)]
pub struct GameEntry {
    /// The manifest of the version described.
    pub manifest: Manifest,
    /// Every loaded version, oldest first.
    pub versions: Vec<String>,
    /// The game's seat names for each player count (ascending); empty for a
    /// game that names none.
    pub seat_names: Vec<(u32, Vec<String>)>,
    /// Whether the game draws its board as SVG (the svg-board extension).
    pub svg_board: bool,
    /// Whether its actions name the board elements they involve (the
    /// action-targets extension).
    pub action_targets: bool,
    /// The SHA-256 of each loaded file of this version: more than one, and
    /// new matches of it are refused until all but one are removed.
    pub builds: Vec<String>,
    /// On a store several hosts share, the live hosts that have loaded this
    /// version (see [`super::Engine::list_games`]).
    pub hosts: Vec<String>,
}

/// How a file came to be offered, for its log line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offered {
    /// Found in the plugin directory at start.
    AtStart,
    /// Copied into the plugin directory while the host runs.
    HotAdded,
    /// Named by an admin's LoadPlugin call.
    OnRequest,
}

/// What the check of one file found: `None` without a vetter.
pub type Vetted = Option<Result<Report, Refusal>>;

/// The loaded plugins, and how a file becomes one.
#[derive(Debug)]
pub struct Catalog {
    registry: Registry,
    /// Where loaded files are copied, and the checks' scratch directory.
    cache_dir: PathBuf,
    /// Checks each plugin file in a child process before it is loaded
    /// (unset, files load unchecked).
    vetter: Option<Vetter>,
    /// Where each plugin runs: in a worker, or in the host (by default,
    /// and for trusted builds).
    isolation: Isolation,
}

impl Catalog {
    /// No plugins; files are copied under `cache_dir` and load unchecked.
    pub fn new(cache_dir: PathBuf) -> Catalog {
        Catalog {
            registry: Registry::new(),
            cache_dir,
            vetter: None,
            isolation: Isolation::in_host(),
        }
    }

    /// Runs plugins as `isolation` says: in worker processes but for the
    /// builds it trusts.
    pub fn with_isolation(self, isolation: Isolation) -> Catalog {
        Catalog { isolation, ..self }
    }

    /// Vets every plugin file with `vetter` before it is loaded.
    pub fn with_vetter(self, vetter: Vetter) -> Catalog {
        Catalog {
            vetter: Some(vetter),
            ..self
        }
    }

    /// The plugin registry.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// How long the check of one plugin file may take (zero without a
    /// vetter).
    pub fn vet_timeout(&self) -> Duration {
        self.vetter.as_ref().map_or(Duration::ZERO, |v| v.timeout())
    }

    /// Where the checking processes put their private copies (each in a
    /// directory of its own, removed after the check).
    fn vet_scratch(&self) -> PathBuf {
        self.cache_dir.join("vetting")
    }

    /// Removes what checks cut short by an earlier host's end left in the
    /// scratch directory.
    pub fn clear_vet_scratch(&self) {
        let scratch = self.vet_scratch();
        match std::fs::remove_dir_all(&scratch) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                tracing::warn!(dir = %scratch.display(), error = %e, "cannot clear the plugin checks' scratch directory")
            }
        }
    }

    /// Checks one file in a child process (with a vetter).
    pub fn vet(&self, path: &Path) -> Result<Vetted, AddError> {
        let Some(vetter) = &self.vetter else {
            return Ok(None);
        };
        // A missing file, a FIFO, a device or a directory is the caller's
        // mistake, not a plugin's: say so without starting a check (and
        // without opening it: a FIFO with no writer would block the open).
        check_plugin_file(path).map_err(AddError::Load)?;
        Ok(Some(vetter.vet(path, &self.vet_scratch())))
    }

    /// Checks each of `files`, several at once (with a vetter).
    pub fn vet_all(&self, files: &[PathBuf]) -> Vec<Vetted> {
        match &self.vetter {
            Some(vetter) => vetter
                .vet_all(files, &self.vet_scratch())
                .into_iter()
                .map(Some)
                .collect(),
            None => files.iter().map(|_| None).collect(),
        }
    }

    /// Loads `path` if its check passed (or there was none). The loader
    /// loads the file only if the bytes it reads are the ones the child
    /// checked. With `another_build`, a file whose game version is loaded
    /// from other files with other content is kept beside them
    /// ([`Added::AnotherBuild`]); without, it is refused.
    pub fn add_vetted(
        &self,
        path: &Path,
        vetted: Vetted,
        another_build: bool,
    ) -> Result<Added, AddError> {
        let plugin = match vetted {
            Some(vetted) => {
                let report = vetted.map_err(AddError::Vet)?;
                Plugin::load_placed(path, &self.cache_dir, Some(&report.sha256), &self.isolation)
                    .map_err(|e| match e {
                        LoadError::Changed => AddError::Vet(Refusal::Changed),
                        other => AddError::Load(other),
                    })?
            }
            None => Plugin::load_placed(path, &self.cache_dir, None, &self.isolation)
                .map_err(AddError::Load)?,
        };
        if another_build {
            self.registry.add_build(plugin)
        } else {
            self.registry.add(plugin)
        }
    }

    /// The one build a new match of `name` at `version` (the newest
    /// without one) is made with, or why there is none: the game or
    /// version is not loaded, or files with different content claim it.
    pub fn for_new_match(&self, name: &str, version: Option<&str>) -> HostResult<Arc<Plugin>> {
        let described = self.plugin(name, version)?;
        match self.registry.for_new_match(name, version) {
            Ok(plugin) => {
                if plugin.is_retired() {
                    return Err(HostError::PluginRetired {
                        game: name.to_string(),
                        version: plugin.manifest().version.clone(),
                    });
                }
                if let Some(status) = plugin.worker_status()
                    && status.suspended
                {
                    return Err(HostError::PluginSuspended {
                        game: name.to_string(),
                        version: plugin.manifest().version.clone(),
                        faults: status.recent_faults,
                        window: self.isolation.window.within,
                    });
                }
                Ok(plugin)
            }
            Err(NoBuild::Ambiguous(files)) => Err(HostError::AmbiguousGameVersion {
                game: name.to_string(),
                version: described.manifest().version.clone(),
                files,
            }),
            Err(NoBuild::NotLoaded) => Err(HostError::UnknownGame {
                game: name.to_string(),
            }),
        }
    }

    /// The build of `game` at `version` a stored or recorded match replays
    /// through: the one whose file content has the hash it recorded, else
    /// the version's only build (a rebuild of the same version changes the
    /// hash; that is logged). `Err` says why none can be chosen, for a
    /// person.
    pub fn build_for(
        &self,
        match_id: &str,
        game: &str,
        version: &str,
        sha256: Option<&str>,
    ) -> Result<Arc<Plugin>, String> {
        match self.registry.build_to_replay(game, version, sha256) {
            ReplayBuild::Recorded(build) => Ok(build),
            ReplayBuild::NotLoaded => {
                let loaded = self.registry.versions(game);
                Err(format!(
                    "it was created with {game} {version}, which is not loaded (loaded \
                     versions: {}); put that plugin file in the plugin directory to resume it",
                    if loaded.is_empty() {
                        "none".to_string()
                    } else {
                        loaded.join(", ")
                    }
                ))
            }
            ReplayBuild::Only(only) => {
                if let Some(recorded) = sha256 {
                    tracing::warn!(
                        match_id,
                        recorded_sha256 = recorded,
                        loaded_sha256 = only.sha256(),
                        file = %only.file().display(),
                        "match {match_id} was created with another build of {game} {version} \
                         (file content {recorded}); it replays through the one loaded, {}",
                        only.file().display()
                    );
                }
                Ok(only)
            }
            ReplayBuild::Several(several) => {
                let files: Vec<String> = several
                    .iter()
                    .map(|b| format!("{} ({})", b.file_name(), b.sha256()))
                    .collect();
                Err(match sha256 {
                    Some(recorded) => format!(
                        "it was created with the build of {game} {version} whose file content \
                         is {recorded}, and the files claiming that version are other builds: \
                         {}",
                        files.join(", ")
                    ),
                    None => format!(
                        "it recorded no build of {game} {version}, and files with different \
                         content claim that version: {}; remove all but one to resume it",
                        files.join(", ")
                    ),
                })
            }
        }
    }

    /// Every game, newest version of each.
    pub fn games(&self) -> Vec<GameEntry> {
        self.registry
            .latest()
            .into_iter()
            .map(|p| self.entry(&p))
            .collect()
    }

    /// One game.
    pub fn game(&self, name: &str, version: Option<&str>) -> HostResult<GameEntry> {
        let plugin = self.plugin(name, version)?;
        Ok(self.entry(&plugin))
    }

    fn entry(&self, plugin: &Plugin) -> GameEntry {
        GameEntry {
            manifest: plugin.manifest().clone(),
            versions: self.registry.versions(&plugin.manifest().name),
            seat_names: seat_names(plugin),
            svg_board: offers(plugin, EXT_SVG_BOARD),
            action_targets: offers(plugin, EXT_ACTION_TARGETS),
            builds: self
                .registry
                .builds(&plugin.manifest().name, &plugin.manifest().version)
                .iter()
                .map(|build| build.sha256().to_string())
                .collect(),
            hosts: Vec::new(),
        }
    }

    /// The plugin of `name` at `version` (the newest without one), or why
    /// there is none.
    pub fn plugin(&self, name: &str, version: Option<&str>) -> HostResult<Arc<Plugin>> {
        if name.is_empty() {
            return Err(HostError::InvalidRequest("a game name is required".into()));
        }
        self.registry
            .get(name, version)
            .ok_or_else(|| match version {
                Some(v) if self.registry.get(name, None).is_some() => {
                    HostError::UnknownGameVersion {
                        game: name.to_string(),
                        version: v.to_string(),
                        loaded: self.registry.versions(name),
                    }
                }
                _ => HostError::UnknownGame {
                    game: name.to_string(),
                },
            })
    }

    /// The plugin of `game` at exactly `version`, if it is loaded.
    pub fn exact(&self, game: &str, version: &str) -> Option<Arc<Plugin>> {
        self.registry.get(game, Some(version))
    }

    /// Every loaded plugin.
    pub fn all(&self) -> Vec<Arc<Plugin>> {
        self.registry.all()
    }

    /// Rebuilds one stored match by replaying its log through the plugin
    /// build it was created with, or the one a release moved it to
    /// ([`Catalog::build_for`]), or says why it cannot be played here.
    pub fn restore(&self, stored: &StoredMatch) -> Result<Match, String> {
        let setup = &stored.setup.clone().with_build_of(&stored.log);
        let plugin = self.build_for(
            &setup.match_id,
            &setup.game,
            &setup.plugin_version,
            setup.plugin_sha256.as_deref(),
        )?;
        let game: Arc<dyn DynGame> = plugin;
        let mut m = Match::restore(
            game,
            setup.clone(),
            stored.seat_hashes.clone(),
            &stored.joins,
            &stored.log,
            &stored.pending,
        )
        .map_err(|e| format!("its stored log does not replay: {e}"))?;
        m.resume_clocks(now_ms());
        Ok(m)
    }
}

/// Logs what became of a file offered: one line naming it (its control
/// characters escaped: a caller's path must not forge log lines). Returns
/// whether a new plugin was loaded.
pub fn log_offer(file: &Path, added: &Result<Added, AddError>, offered: Offered) -> bool {
    let file = file.display().to_string().escape_debug().to_string();
    match added {
        Ok(Added::New { game, version }) => {
            match offered {
                Offered::AtStart => tracing::info!("loaded plugin file {file}: {game} {version}"),
                Offered::HotAdded => {
                    tracing::info!("hot-added plugin file {file}: {game} {version}");
                }
                Offered::OnRequest => {
                    tracing::info!("loaded plugin file {file} on request: {game} {version}");
                }
            }
            true
        }
        Ok(Added::AnotherBuild {
            game,
            version,
            files,
        }) => {
            tracing::warn!(
                "plugin file {file}: {game} {version} is claimed by files with different \
                 content: {}; every build is loaded, stored matches replay through the build \
                 they were created with, and new matches of {game} {version} are refused \
                 until all but one of these files are removed",
                files.join(", ")
            );
            true
        }
        Ok(Added::AlreadyLoaded { game, version }) => {
            tracing::info!(
                "plugin file {file}: {game} {version} is already loaded with the same content"
            );
            false
        }
        Err(e) => {
            tracing::warn!(
                "refused plugin file {file}: {}",
                e.to_string().escape_debug()
            );
            false
        }
    }
}

/// Why the file at `path`, offered on request, was not loaded, as a caller
/// is told.
pub fn refusal(path: &str, refused: AddError) -> HostError {
    match refused {
        AddError::Load(LoadError::Io(io)) => HostError::PluginFileUnreadable {
            path: path.to_string(),
            error: io,
        },
        AddError::Conflict {
            game,
            version,
            existing,
        } => HostError::PluginConflict {
            game,
            version,
            existing,
        },
        other => HostError::PluginRefused {
            path: path.to_string(),
            why: other.to_string(),
        },
    }
}

/// The game's seat names for each player count it allows; empty when it
/// names none (or its plugin fails to say, which the catalog does not
/// report as an error: the names are a courtesy).
fn seat_names(game: &dyn DynGame) -> Vec<(u32, Vec<String>)> {
    let manifest = game.manifest();
    (manifest.min_players..=manifest.max_players)
        .filter_map(|players| {
            let names = game.seat_names(players).ok()?;
            (!names.is_empty()).then_some((players, names))
        })
        .collect()
}

/// Whether `plugin` offers the extension `id`.
fn offers(plugin: &Plugin, id: &str) -> bool {
    plugin.extensions().contains(&id)
}
