//! An online backup of the SQLite store: a consistent copy of the file,
//! taken on the writer's connection between two batches, so it holds every
//! write acknowledged before it and none half-done.
//!
//! The copy is written beside its destination (`FILE.partial`), fsynced,
//! and renamed into place, so a crash never leaves a file at the
//! destination that is not a whole backup. A host started with the copy as
//! its store (`DATA_DIR/matches.sqlite3`) resumes every match in it.

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use tabletop_core::quote::quote;
use tabletop_core::{HostError, HostResult};

use super::Backup;

/// Pages copied per step. The whole copy runs between two batches (writes
/// wait for it), so the steps only bound how much one call holds at once.
const PAGES_PER_STEP: std::os::raw::c_int = 4096;

/// Copies the database `conn` holds into a new file at `to`.
pub(super) fn backup(conn: &Connection, to: &Path) -> HostResult<Backup> {
    let failed = |what: &str, e: &dyn std::fmt::Display| {
        HostError::Internal(format!(
            "cannot back up to {}: {what}: {e}",
            quote(&to.display().to_string())
        ))
    };
    if to.exists() {
        return Err(HostError::InvalidRequest(format!(
            "{} exists: a backup never overwrites a file",
            quote(&to.display().to_string())
        )));
    }
    let partial = partial_backup_path(to);
    if partial.exists() {
        return Err(HostError::InvalidRequest(format!(
            "{} exists: another backup may be writing it",
            quote(&partial.display().to_string())
        )));
    }
    let copied = (|| -> HostResult<u64> {
        // The file cannot be created where the caller asked (no such
        // directory, a name too long, no permission): the path is wrong.
        let mut copy = Connection::open(&partial).map_err(|e| {
            HostError::InvalidRequest(format!("cannot back up to {}: {e}", to.display()))
        })?;
        {
            let step =
                rusqlite::backup::Backup::new(conn, &mut copy).map_err(|e| failed("start", &e))?;
            step.run_to_completion(PAGES_PER_STEP, std::time::Duration::ZERO, None)
                .map_err(|e| failed("copy", &e))?;
        }
        let matches: u64 = copy
            .query_row("SELECT count(*) FROM matches", [], |row| row.get(0))
            .map_err(|e| failed("count the matches", &e))?;
        drop(copy);
        std::fs::File::open(&partial)
            .and_then(|file| file.sync_all())
            .map_err(|e| failed("sync", &e))?;
        Ok(matches)
    })();
    let matches = match copied {
        Ok(matches) => matches,
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
    };
    if let Err(e) = std::fs::rename(&partial, to) {
        let _ = std::fs::remove_file(&partial);
        return Err(failed("rename", &e));
    }
    if let Some(dir) = to.parent().filter(|d| !d.as_os_str().is_empty()) {
        let _ = std::fs::File::open(dir).and_then(|d| d.sync_all());
    }
    let bytes = std::fs::metadata(to).map_err(|e| failed("stat", &e))?.len();
    Ok(Backup {
        path: to.to_path_buf(),
        bytes,
        matches,
    })
}

/// Where a backup to `to` is written before it is renamed into place.
pub fn partial_backup_path(to: &Path) -> PathBuf {
    let mut name = to.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}
