//! Reading a whole store file offline, for `tabletop store migrate`: every
//! match as a host reads it, every lifecycle row with its number, every
//! credential and request. A damaged file is refused whole (a migration
//! that left out what did not read would lose it without a word):
//! `tabletop store check --salvage-to` makes an intact file to migrate.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension};
use tabletop_core::{HostError, HostResult};

use super::{StoreLock, check, db_error, read};
use crate::store::{LifecycleRow, StoredCredential, StoredMatch, StoredRequest};

/// A store file opened for export: locked against a host for as long as it
/// is held, its schema brought to this host's version (as a host's start
/// would), and found undamaged.
pub struct SqliteExport {
    conn: Connection,
    _lock: StoreLock,
}

impl std::fmt::Debug for SqliteExport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteExport").finish_non_exhaustive()
    }
}

fn damaged(path: &Path, what: &str) -> HostError {
    HostError::InvalidRequest(format!(
        "the match store {} is damaged ({what}): run `tabletop store check {0} --salvage-to \
         NEW_FILE` and migrate the salvaged file",
        path.display()
    ))
}

impl SqliteExport {
    /// Opens the store at `path` for export. Refused: no such file, a host
    /// has it open, or any page of it is damaged.
    pub fn open(path: &Path) -> HostResult<SqliteExport> {
        let (lock, conn) = super::open_offline(path)?;
        let problems = check::damaged_pages(&conn, 3);
        if let Some(first) = problems.first() {
            return Err(damaged(path, first));
        }
        Ok(SqliteExport { conn, _lock: lock })
    }

    /// Every match id, in the order the matches were created.
    pub fn match_ids(&self) -> HostResult<Vec<String>> {
        self.conn
            .prepare("SELECT match_id FROM matches ORDER BY rowid")
            .and_then(|mut s| s.query_map([], |row| row.get(0))?.collect())
            .map_err(db_error)
    }

    /// One match, as a host reads it. A match that does not read back is
    /// refused with why.
    pub fn load(&self, match_id: &str) -> HostResult<StoredMatch> {
        read::load(&self.conn, match_id)?.ok_or_else(|| {
            HostError::Internal(format!("match {match_id} left the store while it was read"))
        })
    }

    /// Up to `limit` lifecycle rows after `after_seq`, in order. A row that
    /// does not read back is refused rather than stepped over.
    pub fn lifecycle_after(&self, after_seq: u64, limit: usize) -> HostResult<Vec<LifecycleRow>> {
        let mut statement = self
            .conn
            .prepare_cached(
                "SELECT seq, CAST(event_json AS TEXT) FROM lifecycle WHERE seq > ?1 \
                 ORDER BY seq LIMIT ?2",
            )
            .map_err(db_error)?;
        let rows: Vec<(i64, Option<String>)> = statement
            .query_map(
                rusqlite::params![after_seq as i64, limit.min(i64::MAX as usize) as i64],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .and_then(|rows| rows.collect())
            .map_err(db_error)?;
        rows.into_iter()
            .map(|(seq, json)| {
                let event = serde_json::from_str(json.as_deref().unwrap_or("")).map_err(|e| {
                    HostError::Internal(format!(
                        "lifecycle row {seq} does not read back ({e}): the store is damaged"
                    ))
                })?;
                Ok(LifecycleRow {
                    seq: seq as u64,
                    event,
                })
            })
            .collect()
    }

    /// The last lifecycle number the store handed out: the feed's next row
    /// is numbered after it, even when the rows at its end are gone.
    pub fn last_lifecycle_number(&self) -> HostResult<u64> {
        let counter: Option<i64> = self
            .conn
            .query_row(
                "SELECT seq FROM sqlite_sequence WHERE name = 'lifecycle'",
                [],
                |row| row.get(0),
            )
            .optional()
            .map_err(db_error)?;
        let last_row: i64 = self
            .conn
            .query_row("SELECT COALESCE(MAX(seq), 0) FROM lifecycle", [], |row| {
                row.get(0)
            })
            .map_err(db_error)?;
        Ok(counter.unwrap_or(0).max(last_row).max(0) as u64)
    }

    /// Every credential issued, revoked ones included.
    pub fn credentials(&self) -> HostResult<Vec<StoredCredential>> {
        read::credentials(&self.conn)
    }

    /// Every request id stored, with what a retry of it is answered.
    pub fn requests(&self) -> HostResult<Vec<StoredRequest>> {
        let ids: Vec<String> = self
            .conn
            .prepare("SELECT request_id FROM requests ORDER BY rowid")
            .and_then(|mut s| s.query_map([], |row| row.get(0))?.collect())
            .map_err(db_error)?;
        ids.iter()
            .map(|id| {
                read::request(&self.conn, id)?.ok_or_else(|| {
                    HostError::Internal(format!("request {id} left the store while it was read"))
                })
            })
            .collect()
    }
}
