//! Hot-adding plugins: a thread polls the plugin directory (every 250 ms by
//! default) and hands each new or changed plugin file over once it is
//! complete.
//!
//! Polling rather than filesystem notifications: it is portable, needs no
//! extra dependency, and a copy in progress looks the same either way — the
//! only safe signal is that the file stopped changing. A file is handed over
//! once its (size, mtime) is identical at two consecutive checks, and each
//! (size, mtime) is handed over once: a bad file costs one check and one log
//! line, however long it stays, and a file that is replaced later is looked
//! at again. The files that became ready at one check are handed over
//! together, so the receiver may check them several at a time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::file::plugin_files;

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

/// Starts the watcher thread, which hands each new or changed plugin file of
/// `dir` to `offer` once it stopped changing (the files that became ready at
/// one check together, in name order). Files present now count as already
/// handed over (the host loaded the directory at start).
pub fn spawn<F>(dir: PathBuf, every: Duration, mut offer: F)
where
    F: FnMut(&[PathBuf]) + Send + 'static,
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
                let ready = poll(&dir, &mut files);
                if !ready.is_empty() {
                    offer(&ready);
                }
            }
        });
    if let Err(e) = spawned {
        tracing::error!(error = %e, "cannot start the plugin watcher: hot-adding is off");
    }
}

/// The files of `dir` that are ready to hand over now.
fn poll(dir: &Path, files: &mut BTreeMap<PathBuf, FileState>) -> Vec<PathBuf> {
    let now = look(dir);
    files.retain(|p, _| now.contains_key(p));
    let mut ready = Vec::new();
    for (path, seen) in now {
        let state = files.entry(path.clone()).or_default();
        let stable = state.last == Some(seen);
        state.last = Some(seen);
        if !stable || state.offered == Some(seen) {
            continue;
        }
        state.offered = Some(seen);
        ready.push(path);
    }
    ready
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_handed_over_once_when_it_stopped_changing_and_again_when_replaced() {
        let dir = std::env::temp_dir().join(format!("watcher-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let file = dir.join(format!("libx.{}", std::env::consts::DLL_EXTENSION));
        let mut files = BTreeMap::new();
        std::fs::write(&file, b"half").expect("write");
        assert!(
            poll(&dir, &mut files).is_empty(),
            "first seen: not yet stable"
        );
        assert_eq!(poll(&dir, &mut files), vec![file.clone()]);
        assert!(poll(&dir, &mut files).is_empty(), "handed over once");
        std::fs::write(&file, b"replaced, longer").expect("write");
        assert!(poll(&dir, &mut files).is_empty());
        assert_eq!(poll(&dir, &mut files), vec![file.clone()]);
        std::fs::remove_dir_all(&dir).expect("clean up");
    }
}
