//! The catalog and plugins: listing games, loading plugin files, the admin check.
//!
//! With a vetter ([`Engine::with_vetter`], which `main` always sets) every
//! file is checked in a child process before it is loaded, whichever way it
//! came: the start-up scan ([`Engine::load_plugin_dir`]), the watcher
//! ([`Engine::load_plugin_files`]) or the admin call
//! ([`Engine::load_plugin`]). Each file offered gets one log line naming it:
//! loaded, already loaded, or `refused plugin file PATH: REASON`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tabletop_core::{HostError, HostResult};
use tabletop_loader::file::{check_plugin_file, plugin_files};
use tabletop_loader::{AddError, Added, LoadError, Plugin, Refusal, Report};
use tabletop_sdk::DynGame;
use tabletop_sdk::abi::{EXT_ACTION_TARGETS, EXT_SVG_BOARD};

use super::access::{Caller, Need};
use super::{Engine, GameEntry, PluginEntry, Unavailable, lock};

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

/// Logs what became of a file offered: one line naming it. Returns whether
/// a new plugin was loaded.
fn log_offer(file: &Path, added: &Result<Added, AddError>, offered: Offered) -> bool {
    let file = file.display();
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
        Ok(Added::AlreadyLoaded { game, version }) => {
            tracing::info!(
                "plugin file {file}: {game} {version} is already loaded with the same content"
            );
            false
        }
        Err(e) => {
            tracing::warn!("refused plugin file {file}: {e}");
            false
        }
    }
}

impl Engine {
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

    /// Removes what checks cut short by an earlier host's end (a kill, a
    /// power cut) left in the scratch directory. Call it before any check
    /// runs: `main` does, at start, when the data directory is already the
    /// host's alone.
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

    /// Vets (with a vetter) and loads one plugin file into the registry.
    /// Logs nothing: the caller says what became of it.
    pub fn add_plugin_file(&self, path: &Path) -> Result<Added, AddError> {
        let vetted = match &self.vetter {
            Some(vetter) => {
                // A missing file, a FIFO, a device or a directory is the
                // caller's mistake, not a plugin's: say so without
                // starting a check (and without opening it: a FIFO with
                // no writer would block the open).
                check_plugin_file(path).map_err(AddError::Load)?;
                Some(vetter.vet(path, &self.vet_scratch()))
            }
            None => None,
        };
        self.add_vetted(path, vetted)
    }

    /// [`Engine::add_plugin_file`] for each of `files`: the checks run
    /// several at once, the files are loaded in the order given.
    pub fn add_plugin_files(&self, files: &[PathBuf]) -> Vec<Result<Added, AddError>> {
        let vetted: Vec<Option<Result<Report, Refusal>>> = match &self.vetter {
            Some(vetter) => vetter
                .vet_all(files, &self.vet_scratch())
                .into_iter()
                .map(Some)
                .collect(),
            None => files.iter().map(|_| None).collect(),
        };
        files
            .iter()
            .zip(vetted)
            .map(|(file, vetted)| self.add_vetted(file, vetted))
            .collect()
    }

    /// Loads `path` if its check passed (or there was none). The loader
    /// loads the file only if the bytes it reads are the ones the child
    /// checked.
    fn add_vetted(
        &self,
        path: &Path,
        vetted: Option<Result<Report, Refusal>>,
    ) -> Result<Added, AddError> {
        let added = match vetted {
            Some(vetted) => {
                let report = vetted.map_err(AddError::Vet)?;
                self.registry
                    .add_file_vetted(path, &self.cache_dir, &report.sha256)
                    .map_err(|e| match e {
                        AddError::Load(LoadError::Changed) => AddError::Vet(Refusal::Changed),
                        other => other,
                    })?
            }
            None => self.registry.add_file(path, &self.cache_dir)?,
        };
        if let Added::New { game, version } = &added {
            self.retry_unavailable(game, version);
        }
        Ok(added)
    }

    /// Vets and loads `files` ([`Engine::add_plugin_files`]) and logs one
    /// line for each. Returns how many new plugins were loaded.
    pub fn load_plugin_files(&self, files: &[PathBuf], offered: Offered) -> usize {
        files
            .iter()
            .zip(self.add_plugin_files(files))
            .filter(|(file, added)| log_offer(file, added, offered))
            .count()
    }

    /// Loads every plugin file in `dir`, in name order; refusals are logged
    /// and skipped. Returns how many new plugins were loaded.
    pub fn load_plugin_dir(&self, dir: &Path) -> usize {
        let files = match plugin_files(dir) {
            Ok(files) => files,
            Err(e) => {
                tracing::error!(dir = %dir.display(), error = %e, "cannot read the plugin directory");
                return 0;
            }
        };
        self.load_plugin_files(&files, Offered::AtStart)
    }

    /// Retries unavailable matches of a game version that was just added.
    pub(super) fn retry_unavailable(&self, game: &str, version: &str) {
        let candidates: Vec<Unavailable> = self
            .unavailable
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .filter(|u| u.setup.game == game && u.setup.plugin_version == version)
            .cloned()
            .collect();
        for u in candidates {
            let Some(stored) = &u.stored else { continue };
            if let Ok(m) = self.restore(stored) {
                let id = u.setup.match_id.clone();
                let holds_pending = !stored.pending.is_empty();
                self.install(m, holds_pending, stored.join_code_hashes.clone());
                self.unavailable
                    .write()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&id);
                tracing::info!(match_id = %id, "match available again");
            }
        }
    }

    /// Every loaded plugin and the matches in memory using it (admin only):
    /// the running ones, and the finished ones not yet let go.
    pub fn list_plugins(&self, caller: &Caller) -> HostResult<Vec<PluginEntry>> {
        caller.require(Need::Admin, "listing plugins")?;
        let mut uses: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
        let live: Vec<_> = self
            .matches
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect();
        for slot in live {
            let m = lock(&slot);
            let setup = m.setup();
            uses.entry((setup.game.clone(), setup.plugin_version.clone()))
                .or_default()
                .push(setup.match_id.clone());
        }
        for ids in uses.values_mut() {
            ids.sort();
        }
        Ok(self
            .registry
            .all()
            .into_iter()
            .map(|plugin| {
                let key = (
                    plugin.manifest().name.clone(),
                    plugin.manifest().version.clone(),
                );
                PluginEntry {
                    match_ids: uses.remove(&key).unwrap_or_default(),
                    plugin,
                }
            })
            .collect())
    }

    /// Vets and loads a plugin file on request (admin only).
    pub fn load_plugin(&self, caller: &Caller, path: &str) -> HostResult<(PluginEntry, bool)> {
        caller.require(Need::Admin, "loading a plugin")?;
        if path.is_empty() {
            return Err(HostError::InvalidRequest(
                "a plugin path is required".into(),
            ));
        }
        let added = self.add_plugin_file(Path::new(path));
        log_offer(Path::new(path), &added, Offered::OnRequest);
        let added = added.map_err(|e| match e {
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
        })?;
        let (game, version, already) = match added {
            Added::New { game, version } => (game, version, false),
            Added::AlreadyLoaded { game, version } => (game, version, true),
        };
        let plugin = self
            .registry
            .get(&game, Some(&version))
            .ok_or_else(|| HostError::Internal("plugin vanished after loading".into()))?;
        Ok((
            PluginEntry {
                plugin,
                match_ids: Vec::new(),
            },
            already,
        ))
    }

    /// Every game, newest version of each.
    pub fn list_games(&self) -> Vec<GameEntry> {
        self.registry
            .latest()
            .into_iter()
            .map(|p| GameEntry {
                versions: self.registry.versions(&p.manifest().name),
                seat_names: seat_names(p.as_ref()),
                manifest: p.manifest().clone(),
                svg_board: offers(&p, EXT_SVG_BOARD),
                action_targets: offers(&p, EXT_ACTION_TARGETS),
            })
            .collect()
    }

    /// One game.
    pub fn get_game(&self, name: &str, version: Option<&str>) -> HostResult<GameEntry> {
        let plugin = self.plugin(name, version)?;
        Ok(GameEntry {
            manifest: plugin.manifest().clone(),
            versions: self.registry.versions(name),
            seat_names: seat_names(plugin.as_ref()),
            svg_board: offers(&plugin, EXT_SVG_BOARD),
            action_targets: offers(&plugin, EXT_ACTION_TARGETS),
        })
    }

    pub(super) fn plugin(&self, name: &str, version: Option<&str>) -> HostResult<Arc<Plugin>> {
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
