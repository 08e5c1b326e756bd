//! The admin's backup of the match store while the host runs, and where a
//! backup may be written.

use std::path::{Path, PathBuf};

use tabletop_core::quote::quote;
use tabletop_core::{HostError, HostResult};

use super::Engine;
use super::access::{Caller, Need};
use crate::store::{Backup, partial_backup_path};

impl Engine {
    /// Writes a consistent copy of the match store to a new file at `path`
    /// on this machine (admin only). Play goes on: the store takes the copy
    /// between two of its commits.
    pub fn backup(&self, caller: &Caller, path: &str) -> HostResult<Backup> {
        caller.require(Need::Admin, "a backup")?;
        let target = backup_target(path)?;
        let backup = self.store.backup(&target)?;
        tracing::info!(
            file = %backup.path.display(),
            bytes = backup.bytes,
            matches = backup.matches,
            "match store backed up"
        );
        Ok(backup)
    }
}

/// Where a backup of `path` may be written, or why not: an absolute path
/// (the host's working directory is nobody's choice), with no `.` or `..`
/// (the kernel and SQLite resolve those differently), in a directory that
/// exists, naming no file yet; its copy in progress (`PATH.partial`) must
/// not exist either, since another backup may be writing it.
fn backup_target(path: &str) -> HostResult<PathBuf> {
    let refused =
        |why: &str| HostError::InvalidRequest(format!("cannot back up to {}: {why}", quote(path)));
    if path.is_empty() {
        return Err(HostError::InvalidRequest(
            "a path for the backup is required".into(),
        ));
    }
    if path.chars().any(char::is_control) {
        return Err(refused("the path holds a control character"));
    }
    let target = Path::new(path);
    if !target.is_absolute() {
        return Err(refused("the path is not absolute"));
    }
    if path.split('/').any(|part| part == "." || part == "..") {
        return Err(refused("the path holds `.` or `..`"));
    }
    let (Some(dir), Some(_)) = (target.parent(), target.file_name()) else {
        return Err(refused("the path names no file"));
    };
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(refused("its directory is not a directory")),
        Err(_) => return Err(refused("its directory does not exist")),
    }
    if target.symlink_metadata().is_ok() {
        return Err(refused(
            "the file exists, and a backup never overwrites one",
        ));
    }
    let partial = partial_backup_path(target);
    if partial.symlink_metadata().is_ok() {
        return Err(refused(&format!(
            "{} exists: another backup may be writing it (remove it if none is)",
            quote(&partial.display().to_string())
        )));
    }
    Ok(target.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_backup_goes_only_to_a_new_absolute_file_in_an_existing_directory() {
        let dir = tempfile::tempdir().unwrap();
        let at = |name: &str| format!("{}/{name}", dir.path().display());
        assert!(backup_target(&at("copy.sqlite3")).is_ok());
        std::fs::write(dir.path().join("taken"), b"").unwrap();
        std::fs::write(dir.path().join("busy.partial"), b"").unwrap();
        for (path, why) in [
            (String::new(), "required"),
            ("relative.sqlite3".to_string(), "not absolute"),
            (at("nodir/../w"), "`..`"),
            (at("./w"), "`.`"),
            (at("nodir/w"), "does not exist"),
            (at("taken/w"), "not a directory"),
            (at("taken"), "never overwrites"),
            (at("busy"), "another backup"),
            (at("line\nbreak"), "control character"),
            ("/".to_string(), "names no file"),
        ] {
            let refused = backup_target(&path).expect_err(&path).to_string();
            assert!(refused.contains(why), "{path}: {refused}");
        }
    }
}
