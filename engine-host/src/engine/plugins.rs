//! The catalog and plugins: listing games, loading plugin files, the admin check.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use tabletop_core::error::Credential;
use tabletop_core::tokens::{hash_token, hashes_equal};
use tabletop_core::{HostError, HostResult};
use tabletop_loader::file::plugin_files;
use tabletop_loader::{AddError, Added, LoadError, Plugin};
use tabletop_sdk::DynGame;

use super::{Engine, GameEntry, PluginEntry, Unavailable};

impl Engine {
    /// Loads one plugin file into the registry.
    pub fn add_plugin_file(&self, path: &Path) -> Result<Added, AddError> {
        let added = self.registry.add_file(path, &self.cache_dir)?;
        if let Added::New { game, version } = &added {
            self.retry_unavailable(game, version);
        }
        Ok(added)
    }

    /// Loads every plugin file in `dir`; refusals are logged and skipped.
    /// Returns how many new plugins were loaded.
    pub fn load_plugin_dir(&self, dir: &Path) -> usize {
        let files = match plugin_files(dir) {
            Ok(files) => files,
            Err(e) => {
                tracing::error!(dir = %dir.display(), error = %e, "cannot read the plugin directory");
                return 0;
            }
        };
        let mut loaded = 0;
        for file in files {
            match self.add_plugin_file(&file) {
                Ok(Added::New { game, version }) => {
                    tracing::info!(file = %file.display(), %game, %version, "plugin loaded");
                    loaded += 1;
                }
                Ok(Added::AlreadyLoaded { .. }) => {}
                Err(e) => {
                    tracing::warn!(file = %file.display(), reason = %e, "plugin refused");
                }
            }
        }
        loaded
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
            if let Ok(m) = self.restore(&u.stored) {
                let id = u.setup.match_id.clone();
                let holds_pending = !u.stored.pending.is_empty();
                self.install(m, holds_pending);
                self.unavailable
                    .write()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&id);
                tracing::info!(match_id = %id, "match available again");
            }
        }
    }

    /// Every loaded plugin and the matches using it (admin only).
    pub fn list_plugins(&self, admin_token: &str) -> HostResult<Vec<PluginEntry>> {
        self.check_admin(admin_token)?;
        let mut uses: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
        for s in self.list_matches(None, None) {
            uses.entry((s.game, s.plugin_version))
                .or_default()
                .push(s.match_id);
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

    /// Loads a plugin file on request (admin only).
    pub fn load_plugin(&self, admin_token: &str, path: &str) -> HostResult<(PluginEntry, bool)> {
        self.check_admin(admin_token)?;
        if path.is_empty() {
            return Err(HostError::InvalidRequest(
                "a plugin path is required".into(),
            ));
        }
        let added = self.add_plugin_file(Path::new(path)).map_err(|e| match e {
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
            AddError::Load(other) => HostError::PluginRefused {
                path: path.to_string(),
                why: other.to_string(),
            },
        })?;
        let (game, version, already) = match added {
            Added::New { game, version } => (game, version, false),
            Added::AlreadyLoaded { game, version } => (game, version, true),
        };
        tracing::info!(%path, %game, %version, already, "plugin loaded on request");
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
                manifest: p.manifest().clone(),
            })
            .collect()
    }

    /// One game.
    pub fn get_game(&self, name: &str, version: Option<&str>) -> HostResult<GameEntry> {
        let plugin = self.plugin(name, version)?;
        Ok(GameEntry {
            manifest: plugin.manifest().clone(),
            versions: self.registry.versions(name),
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

    /// Checks the admin token.
    pub fn check_admin(&self, token: &str) -> HostResult<()> {
        if token.is_empty() {
            return Err(HostError::TokenRequired {
                credential: Credential::Admin,
            });
        }
        if !hashes_equal(&hash_token(token), &self.admin_token_hash) {
            return Err(HostError::BadToken {
                credential: Credential::Admin,
            });
        }
        Ok(())
    }
}
