//! One plugin: a cdylib from disk, opened through the SDK's import side
//! ([`ImportedGame`]) and used as a [`DynGame`].
//!
//! A file is never opened in place: it is copied to a private path named by its
//! content hash, and that copy is loaded — in a worker process
//! ([`crate::isolation`]), or in the host for a build the operator trusts.
//! `dlopen` of a path that is already loaded returns the old library, and
//! copying over a loaded library would crash the host; content addressing
//! avoids both.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

use sha2::{Digest, Sha256};
use tabletop_sdk::import::{ImportError, ImportedGame};
use tabletop_sdk::{DynGame, DynState, GameError, Manifest};

use crate::crumb::Tracked;
use crate::error::LoadError;
use crate::file::{check_complete_library, read_plugin_file};
use crate::isolation::{Isolation, Trusted, WorkerGame, WorkerStatus};

/// Where a plugin's code runs.
#[derive(Debug)]
enum Backing {
    /// Loaded into the host: a build the operator trusts.
    InHost(ImportedGame),
    /// In worker processes.
    Worker(WorkerGame),
}

/// A loaded game plugin. Cheap to share (`Arc<Plugin>`). One in the host is
/// never unloaded; one in a worker ends with its worker
/// ([`Plugin::stop_worker`]).
#[derive(Debug)]
pub struct Plugin {
    game: Backing,
    /// `game@version`, as a breadcrumb names it (see [`crate::crumb`]).
    crumb_name: &'static str,
    file: PathBuf,
    sha256: String,
    loaded_at: SystemTime,
    /// Retired by the admin: no new matches.
    retired: AtomicBool,
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
        Plugin::load_placed(path, cache_dir, expected, &Isolation::in_host())
    }

    /// Loads the plugin file at `path` through a private copy in
    /// `cache_dir` — in a worker process unless `isolation` trusts the
    /// build or starts no workers — only if its content has the SHA-256
    /// `expected` (hex) when one is given.
    pub fn load_placed(
        path: &Path,
        cache_dir: &Path,
        expected: Option<&str>,
        isolation: &Isolation,
    ) -> Result<Arc<Plugin>, LoadError> {
        let bytes = read_plugin_file(path)?;
        // dlopen of a truncated library can fault the whole process (pages
        // mapped past the end of the file), so check completeness first.
        if let Err(why) = check_complete_library(&bytes) {
            return Err(LoadError::Import(ImportError::Open(format!(
                "{} is not a whole library ({why}): truncated, or still being copied",
                path.display()
            ))));
        }
        let sha256 = sha256_hex(&bytes);
        if expected.is_some_and(|expected| expected != sha256) {
            return Err(LoadError::Changed);
        }
        let private = private_copy(&bytes, &sha256, path, cache_dir)?;
        let file_name = path
            .file_name()
            .unwrap_or(path.as_os_str())
            .to_string_lossy()
            .into_owned();
        let game = match (&isolation.spec, isolation.trust.trusts(&sha256)) {
            (None, _) | (Some(_), Trusted::AnyName) => {
                Backing::InHost(ImportedGame::open(&private)?)
            }
            (Some(_), Trusted::AsName(name)) => {
                let game = ImportedGame::open(&private)?;
                if game.manifest().name != name {
                    return Err(LoadError::Import(ImportError::BadManifest(format!(
                        "the build trusted as {name} says it is {}",
                        game.manifest().name
                    ))));
                }
                Backing::InHost(game)
            }
            (Some(spec), Trusted::No) => {
                let sink = isolation
                    .sink
                    .clone()
                    .unwrap_or_else(|| std::sync::Arc::new(|_: &crate::isolation::Fault| {}));
                Backing::Worker(
                    WorkerGame::start(spec.clone(), &private, &file_name, isolation.window, sink)
                        .map_err(|e| {
                        LoadError::Import(ImportError::Open(format!("{file_name}: {e}")))
                    })?,
                )
            }
        };
        let manifest = match &game {
            Backing::InHost(game) => game.manifest(),
            Backing::Worker(game) => game.manifest(),
        };
        // One short string per plugin loaded, which lives as long as the
        // host: the breadcrumb must not allocate.
        let crumb_name =
            Box::leak(format!("{}@{}", manifest.name, manifest.version).into_boxed_str());
        Ok(Arc::new(Plugin {
            game,
            crumb_name,
            file: path.to_path_buf(),
            sha256,
            loaded_at: SystemTime::now(),
            retired: AtomicBool::new(false),
        }))
    }

    /// The file it was loaded from (the user's path, not the private copy).
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The name of the file it was loaded from, without its directory: what
    /// messages that reach any caller name (the directory is the operator's).
    pub fn file_name(&self) -> String {
        self.file
            .file_name()
            .unwrap_or(self.file.as_os_str())
            .to_string_lossy()
            .into_owned()
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
        match &self.game {
            Backing::InHost(game) => game.extensions(),
            Backing::Worker(game) => game.extensions(),
        }
    }

    /// Whether its code runs in a worker process (else in the host: a
    /// trusted build).
    pub fn runs_in_worker(&self) -> bool {
        matches!(self.game, Backing::Worker(_))
    }

    /// Its workers and their faults; `None` for a plugin in the host.
    pub fn worker_status(&self) -> Option<WorkerStatus> {
        match &self.game {
            Backing::InHost(_) => None,
            Backing::Worker(game) => Some(game.status()),
        }
    }

    /// Whether it runs in the host because the operator trusts it (or
    /// starts no workers at all).
    pub fn is_trusted(&self) -> bool {
        !self.runs_in_worker()
    }

    /// Takes it out of service for new matches.
    pub fn retire(&self) {
        self.retired.store(true, Ordering::SeqCst);
    }

    /// Whether the admin retired it.
    pub fn is_retired(&self) -> bool {
        self.retired.load(Ordering::SeqCst)
    }

    /// Ends its worker for good (a retired build whose last match ended):
    /// the one real unload. Nothing for a plugin in the host.
    pub fn stop_worker(&self) {
        if let Backing::Worker(game) = &self.game {
            game.stop();
        }
    }
}

/// The hex SHA-256 of `bytes`: how builds are named.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
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

impl Plugin {
    fn dyn_game(&self) -> &dyn DynGame {
        match &self.game {
            Backing::InHost(game) => game,
            Backing::Worker(game) => game,
        }
    }
}

impl DynGame for Plugin {
    fn manifest(&self) -> &Manifest {
        self.dyn_game().manifest()
    }

    fn new_state(
        &self,
        players: u32,
        options: &BTreeMap<String, String>,
        position: Option<&str>,
    ) -> Result<Box<dyn DynState>, GameError> {
        match &self.game {
            // A call into a trusted plugin leaves a breadcrumb, so a crash
            // in it is named on the host's next start.
            Backing::InHost(game) => Ok(Box::new(Tracked::new(
                game.new_state(players, options, position)?,
                self.crumb_name,
            ))),
            Backing::Worker(game) => game.new_state(players, options, position),
        }
    }

    fn seat_names(&self, players: u32) -> Result<Vec<String>, GameError> {
        self.dyn_game().seat_names(players)
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
