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
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::engine::{Engine, is_plugin_file};
use crate::plugin::registry::Added;

/// What a file looked like at a check.
type Seen = (u64, Option<SystemTime>);

#[derive(Debug, Default)]
struct FileState {
    last: Option<Seen>,
    offered: Option<Seen>,
}

fn look(dir: &Path) -> BTreeMap<PathBuf, Seen> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return BTreeMap::new();
    };
    entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| is_plugin_file(p))
        .filter_map(|p| {
            let meta = std::fs::metadata(&p).ok()?;
            Some((p, (meta.len(), meta.modified().ok())))
        })
        .collect()
}

/// Starts the watcher thread. Files present now count as already offered
/// (the host loaded the directory at start).
pub fn spawn(engine: Arc<Engine>, dir: PathBuf, every: Duration) {
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
                poll(&engine, &dir, &mut files);
            }
        });
    if let Err(e) = spawned {
        tracing::error!(error = %e, "cannot start the plugin watcher: hot-adding is off");
    }
}

fn poll(engine: &Engine, dir: &Path, files: &mut BTreeMap<PathBuf, FileState>) {
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
        match engine.add_plugin_file(&path) {
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
