//! The engine's calls for plugins: loading files, the admin's listing, and
//! the catalog of games.
//!
//! A file comes from the start-up scan ([`Engine::load_plugin_dir`]), the
//! watcher ([`Engine::load_plugin_files`]) or the admin call
//! ([`Engine::load_plugin`]); the catalog vets and loads it (see
//! [`super::catalog`]), and a new plugin version retries the stored
//! matches that were waiting for it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tabletop_core::{HostError, HostResult};
use tabletop_loader::file::plugin_files;
use tabletop_loader::{AddError, Added};
use tabletop_sdk::DynGame;

use super::access::{Caller, Need};
use super::catalog::{self, GameEntry, Offered, Vetted};
use super::live::lock;
use super::{Engine, PluginEntry};
use crate::metrics::WorkerCounts;
use std::sync::Arc;
use tabletop_loader::Plugin;

impl Engine {
    /// How long the check of one plugin file may take (zero without a
    /// vetter).
    pub fn vet_timeout(&self) -> Duration {
        self.catalog.vet_timeout()
    }

    /// Removes what checks cut short by an earlier host's end (a kill, a
    /// power cut) left in the scratch directory. Call it before any check
    /// runs: `main` does, at start, when the data directory is already the
    /// host's alone.
    pub fn clear_vet_scratch(&self) {
        self.catalog.clear_vet_scratch();
    }

    /// Vets (with a vetter) and loads one plugin file into the registry; a
    /// file whose game version is loaded from another file with other
    /// content is refused. Logs nothing: the caller says what became of it.
    pub fn add_plugin_file(&self, path: &Path) -> Result<Added, AddError> {
        let vetted = self.catalog.vet(path)?;
        self.add_vetted(path, vetted, false)
    }

    /// [`Engine::add_plugin_file`] for each of `files`: the checks run
    /// several at once, the files are loaded in the order given. A file
    /// whose game version is loaded from another file with other content
    /// is loaded beside it (see `engine/catalog.rs`): the start-up scan and
    /// hot-add choose no build by file-name order.
    pub fn add_plugin_files(&self, files: &[PathBuf]) -> Vec<Result<Added, AddError>> {
        let vetted = self.catalog.vet_all(files);
        files
            .iter()
            .zip(vetted)
            .map(|(file, vetted)| self.add_vetted(file, vetted, true))
            .collect()
    }

    /// Loads `path` if its check passed (or there was none), and retries
    /// the unavailable matches of a plugin version it adds (or adds
    /// another build of: see [`super::catalog::Catalog::add_vetted`]).
    fn add_vetted(
        &self,
        path: &Path,
        vetted: Vetted,
        another_build: bool,
    ) -> Result<Added, AddError> {
        let added = self.catalog.add_vetted(path, vetted, another_build)?;
        if let Added::New { game, version } | Added::AnotherBuild { game, version, .. } = &added {
            self.retry_unavailable(game, version);
            self.publish_builds();
        }
        Ok(added)
    }

    /// Vets and loads `files` ([`Engine::add_plugin_files`]) and logs one
    /// line for each. Returns how many new plugins were loaded.
    pub fn load_plugin_files(&self, files: &[PathBuf], offered: Offered) -> usize {
        files
            .iter()
            .zip(self.add_plugin_files(files))
            .filter(|(file, added)| catalog::log_offer(file, added, offered))
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

    /// Every loaded plugin and the matches in memory using it (admin only):
    /// the running ones, and the finished ones not yet let go.
    pub fn list_plugins(&self, caller: &Caller) -> HostResult<Vec<PluginEntry>> {
        caller.require(Need::Admin, "listing plugins")?;
        let uses = self.plugin_uses();
        let hosts = self.hosts_by_build();
        Ok(self
            .catalog
            .all()
            .into_iter()
            .map(|plugin| {
                let mut entry = entry(plugin, &uses);
                let m = entry.plugin.manifest();
                entry.hosts = hosts.of(&m.name, &m.version);
                entry
            })
            .collect())
    }

    /// One plugin's entry.
    fn entry(&self, plugin: Arc<Plugin>) -> PluginEntry {
        entry(plugin, &self.plugin_uses())
    }

    /// The matches in memory by game and version, each with whether it is
    /// quarantined, sorted by id.
    fn plugin_uses(&self) -> BTreeMap<(String, String), Vec<(String, bool)>> {
        let mut uses: BTreeMap<(String, String), Vec<(String, bool)>> = BTreeMap::new();
        for slot in self.table.all() {
            let m = lock(&slot);
            let setup = m.setup();
            uses.entry((setup.game.clone(), setup.plugin_version.clone()))
                .or_default()
                .push((setup.match_id.clone(), m.quarantine_reason().is_some()));
        }
        for ids in uses.values_mut() {
            ids.sort();
        }
        uses
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
        catalog::log_offer(Path::new(path), &added, Offered::OnRequest);
        let (game, version, already) = match added.map_err(|e| catalog::refusal(path, e))? {
            Added::New { game, version } => (game, version, false),
            Added::AlreadyLoaded { game, version } => (game, version, true),
            Added::AnotherBuild { .. } => {
                return Err(HostError::Internal(
                    "a plugin loaded on request is never another build".into(),
                ));
            }
        };
        let plugin = self
            .catalog
            .exact(&game, &version)
            .ok_or_else(|| HostError::Internal("plugin vanished after loading".into()))?;
        Ok((self.entry(plugin), already))
    }

    /// Retires `game` at `version` (admin only): every build of it takes no
    /// new matches from now on, and its worker ends once no match held here
    /// uses it ([`Engine::stop_retired_workers`]).
    pub fn retire_plugin(
        &self,
        caller: &Caller,
        game: &str,
        version: &str,
    ) -> HostResult<PluginEntry> {
        caller.require(Need::Admin, "retiring a plugin")?;
        let builds: Vec<_> = self
            .catalog
            .all()
            .into_iter()
            .filter(|p| p.manifest().name == game && p.manifest().version == version)
            .collect();
        if builds.is_empty() {
            // Names what is loaded of the game, or that it is not.
            self.catalog.plugin(game, Some(version))?;
        }
        for plugin in &builds {
            plugin.retire();
        }
        tracing::info!(game, version, "plugin retired: no new matches");
        self.stop_retired_workers();
        let plugin = builds
            .into_iter()
            .next()
            .ok_or_else(|| HostError::Internal("a retired plugin vanished".into()))?;
        Ok(self.entry(plugin))
    }

    /// Ends the worker of each retired build no match held here uses: the
    /// one real unload. The clock thread calls it every second.
    pub fn stop_retired_workers(&self) {
        let retired: Vec<_> = self
            .catalog
            .all()
            .into_iter()
            .filter(|p| p.is_retired() && p.worker_status().is_some_and(|s| s.pid.is_some()))
            .collect();
        if retired.is_empty() {
            return;
        }
        let mut used = std::collections::HashSet::new();
        for slot in self.table.all() {
            let m = lock(&slot);
            used.insert(m.setup().plugin_sha256.clone().unwrap_or_default());
        }
        for plugin in retired {
            if !used.contains(plugin.sha256()) {
                plugin.stop_worker();
                tracing::info!(
                    game = %plugin.manifest().name,
                    version = %plugin.manifest().version,
                    "a retired plugin's last match is gone: its worker ended"
                );
            }
        }
    }

    /// The plugin workers: serving now, and started so far.
    pub fn worker_counts(&self) -> WorkerCounts {
        let mut counts = WorkerCounts::default();
        for status in self.catalog.all().iter().filter_map(|p| p.worker_status()) {
            counts.running += u64::from(status.pid.is_some());
            counts.started += status.started;
        }
        counts
    }

    /// Every game, newest version of each.
    /// On a store several hosts share, each entry names the live hosts
    /// that have loaded its version.
    pub fn list_games(&self) -> Vec<GameEntry> {
        let hosts = self.hosts_by_build();
        let mut games = self.catalog.games();
        for game in &mut games {
            game.hosts = hosts.of(&game.manifest.name, &game.manifest.version);
        }
        games
    }

    /// One game.
    pub fn get_game(&self, name: &str, version: Option<&str>) -> HostResult<GameEntry> {
        let mut game = self.catalog.game(name, version)?;
        game.hosts = self
            .hosts_by_build()
            .of(&game.manifest.name, &game.manifest.version);
        Ok(game)
    }
}

/// `plugin`'s entry, with its matches among `uses`.
fn entry(
    plugin: Arc<Plugin>,
    uses: &BTreeMap<(String, String), Vec<(String, bool)>>,
) -> PluginEntry {
    let key = (
        plugin.manifest().name.clone(),
        plugin.manifest().version.clone(),
    );
    let matches = uses.get(&key).map(Vec::as_slice).unwrap_or_default();
    PluginEntry {
        hosts: Vec::new(),
        match_ids: matches.iter().map(|(id, _)| id.clone()).collect(),
        quarantined: matches
            .iter()
            .filter(|(_, quarantined)| *quarantined)
            .map(|(id, _)| id.clone())
            .collect(),
        plugin,
    }
}
