//! One plugin: a cdylib from disk, opened through the SDK's import side
//! ([`ImportedGame`]) and used as a [`DynGame`].
//!
//! A file is never opened in place: it is copied to a private path named by its
//! content hash, and that copy is loaded. `dlopen` of a path that is already
//! loaded returns the old library, and copying over a loaded library would
//! crash the host; content addressing avoids both.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use sha2::{Digest, Sha256};
use tabletop_sdk::import::{ImportError, ImportedGame};
use tabletop_sdk::{DynGame, DynState, GameError, Manifest};

use crate::error::LoadError;
use crate::file::{check_complete_library, read_plugin_file};

/// A loaded game plugin. Cheap to share (`Arc<Plugin>`); never unloaded.
#[derive(Debug)]
pub struct Plugin {
    game: ImportedGame,
    file: PathBuf,
    sha256: String,
    loaded_at: SystemTime,
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
            return Err(LoadError::Import(ImportError::Open(format!(
                "{} is not a whole library ({why}): truncated, or still being copied",
                path.display()
            ))));
        }
        let sha256 = hex::encode(Sha256::digest(&bytes));
        if expected.is_some_and(|expected| expected != sha256) {
            return Err(LoadError::Changed);
        }
        let private = private_copy(&bytes, &sha256, path, cache_dir)?;
        Ok(Arc::new(Plugin {
            game: ImportedGame::open(&private)?,
            file: path.to_path_buf(),
            sha256,
            loaded_at: SystemTime::now(),
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
        self.game.extensions()
    }
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

impl DynGame for Plugin {
    fn manifest(&self) -> &Manifest {
        self.game.manifest()
    }

    fn new_state(
        &self,
        players: u32,
        options: &BTreeMap<String, String>,
        position: Option<&str>,
    ) -> Result<Box<dyn DynState>, GameError> {
        self.game.new_state(players, options, position)
    }

    fn seat_names(&self, players: u32) -> Result<Vec<String>, GameError> {
        self.game.seat_names(players)
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
