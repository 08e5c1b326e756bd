//! Hot-adding plugins: a thread polls the plugin directory (every 250 ms by
//! default) and loads each new or changed plugin file once it is complete.
//!
//! Polling rather than filesystem notifications: it is portable, needs no
//! extra dependency, and a copy in progress looks the same either way — the
//! only safe signal is that the file stopped changing. A file is offered to
//! the registry once its (size, mtime) is identical at two consecutive checks,
//! and each (size, mtime) is offered once: a bad file costs one log line, and
//! a file that is replaced later is looked at again. Loading goes through the
//! registry's private content-addressed copy, so even a file changed during
//! the load cannot be half-loaded: the copy either validates or is refused.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::file::plugin_files;
use crate::registry::{AddError, Added};

/// What a file looked like at a check.
type Seen = (u64, Option<SystemTime>);

#[derive(Debug, Default)]
struct FileState {
    last: Option<Seen>,
    offered: Option<Seen>,
}

fn look(dir: &Path) -> BTreeMap<PathBuf, Seen> {
    plugin_files(dir)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|p| {
            let meta = std::fs::metadata(&p).ok()?;
            Some((p, (meta.len(), meta.modified().ok())))
        })
        .collect()
}

/// Starts the watcher thread, which offers each new or changed plugin file
/// of `dir` to `add` once it stopped changing. Files present now count as
/// already offered (the host loaded the directory at start).
pub fn spawn<F>(dir: PathBuf, every: Duration, add: F)
where
    F: Fn(&Path) -> Result<Added, AddError> + Send + 'static,
{
    let mut files: BTreeMap<PathBuf, FileState> = look(&dir)
        .into_iter()
        .map(|(p, seen)| {
            (
                p,
                FileState {
                    last: Some(seen),
                    offered: Some(seen),
                },
            )
        })
        .collect();
    let spawned = std::thread::Builder::new()
        .name("plugin-watcher".into())
        .spawn(move || {
            loop {
                std::thread::sleep(every);
                poll(&add, &dir, &mut files);
            }
        });
    if let Err(e) = spawned {
        tracing::error!(error = %e, "cannot start the plugin watcher: hot-adding is off");
    }
}

fn poll(
    add: &impl Fn(&Path) -> Result<Added, AddError>,
    dir: &Path,
    files: &mut BTreeMap<PathBuf, FileState>,
) {
    let now = look(dir);
    files.retain(|p, _| now.contains_key(p));
    for (path, seen) in now {
        let state = files.entry(path.clone()).or_default();
        let stable = state.last == Some(seen);
        state.last = Some(seen);
        if !stable || state.offered == Some(seen) {
            continue;
        }
        state.offered = Some(seen);
        match add(&path) {
            Ok(Added::New { game, version }) => {
                tracing::info!(file = %path.display(), %game, %version, "plugin hot-added");
            }
            Ok(Added::AlreadyLoaded { .. }) => {}
            Err(e) => {
                tracing::warn!(file = %path.display(), reason = %e, "plugin file refused");
            }
        }
    }
}
