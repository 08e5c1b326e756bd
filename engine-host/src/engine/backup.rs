//! The admin's backup of the match store while the host runs.

use std::path::Path;

use tabletop_core::{HostError, HostResult};

use super::Engine;
use super::access::{Caller, Need};
use crate::store::Backup;

impl Engine {
    /// Writes a consistent copy of the match store to a new file at `path`
    /// on this machine (admin only). Play goes on: the store takes the copy
    /// between two of its commits.
    pub fn backup(&self, caller: &Caller, path: &str) -> HostResult<Backup> {
        caller.require(Need::Admin, "a backup")?;
        if path.is_empty() {
            return Err(HostError::InvalidRequest(
                "a path for the backup is required".into(),
            ));
        }
        let backup = self.store.backup(Path::new(path))?;
        tracing::info!(
            file = %backup.path.display(),
            bytes = backup.bytes,
            matches = backup.matches,
            "match store backed up"
        );
        Ok(backup)
    }
}
