//! What the store looks at when it opens, beyond the WAL (`wal.rs`): that
//! its files can be written, that its pages parse, and that it still holds
//! every write it acknowledged.
//!
//! **The commit marker.** SQLite cannot tell that a whole WAL is missing:
//! a store whose WAL was deleted (while the host was stopped, or while it
//! ran) opens as the older store the main file alone holds, and the
//! acknowledged writes only the WAL held are gone without a word. So after
//! each fsync that acknowledges writes, the store notes the last log row
//! and the last lifecycle row they reached in a small file beside it,
//! outside the WAL (`matches.sqlite3-commit`). At the next start a store
//! that ends before its marker lost the writes in between, and the log
//! says which rows and until when. The marker is written without an fsync
//! of its own: it reaches the disk with the page cache, so it survives any
//! crash of the process, and after a power cut it can only be behind the
//! WAL (it is written after the WAL's fsync), which makes no false alarm.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::Connection;
use tabletop_core::{HostError, HostResult};

use super::beside;

/// The marker file's first bytes.
const MAGIC: &[u8; 8] = b"TTCOMMIT";

/// Where a store's writes reached: the last log row and the last
/// lifecycle row, and when.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Reached {
    pub log_row: i64,
    pub lifecycle_row: i64,
    pub at_ms: i64,
}

impl Reached {
    fn encode(self) -> [u8; 32] {
        let mut bytes = [0; 32];
        bytes[..8].copy_from_slice(MAGIC);
        bytes[8..16].copy_from_slice(&self.log_row.to_le_bytes());
        bytes[16..24].copy_from_slice(&self.lifecycle_row.to_le_bytes());
        bytes[24..].copy_from_slice(&self.at_ms.to_le_bytes());
        bytes
    }

    fn decode(bytes: &[u8]) -> Option<Reached> {
        let word = |at: usize| {
            let word: [u8; 8] = bytes.get(at..at + 8)?.try_into().ok()?;
            Some(i64::from_le_bytes(word))
        };
        (bytes.len() == 32 && &bytes[..8] == MAGIC).then_some(())?;
        Some(Reached {
            log_row: word(8)?,
            lifecycle_row: word(16)?,
            at_ms: word(24)?,
        })
    }

    /// Where the store's tables end now.
    pub(super) fn of_store(conn: &Connection) -> rusqlite::Result<Reached> {
        let max = |table: &str| -> rusqlite::Result<i64> {
            conn.query_row(
                &format!("SELECT COALESCE(MAX(rowid), 0) FROM {table}"),
                [],
                |row| row.get(0),
            )
        };
        Ok(Reached {
            log_row: max("log")?,
            lifecycle_row: max("lifecycle")?,
            at_ms: tabletop_core::now_ms(),
        })
    }
}

/// The commit marker of one store (see the module docs).
#[derive(Debug)]
pub(super) struct CommitMarker {
    path: PathBuf,
    file: File,
    /// The furthest rows recorded: the writer and the syncer both record,
    /// and a later fsync may finish first.
    reached: Mutex<Reached>,
}

impl CommitMarker {
    /// Opens the marker beside the store at `store`, compares it with
    /// where the store ends (`now`), warns when the store lost
    /// acknowledged writes, and records `now` as the new mark.
    pub(super) fn open(store: &Path, now: Reached) -> HostResult<CommitMarker> {
        let path = beside(store, "-commit");
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| unwritable_or(&path, e, "cannot open the match store's commit marker"))?;
        let mut bytes = Vec::new();
        let _ = std::io::Read::read_to_end(&mut &file, &mut bytes);
        match Reached::decode(&bytes) {
            Some(marked) => warn_if_lost(store, marked, now),
            None if bytes.is_empty() => {}
            None => tracing::warn!(
                marker = %path.display(),
                "the match store's commit marker does not read; a new one is kept from now on"
            ),
        }
        let marker = CommitMarker {
            path,
            file,
            reached: Mutex::new(now),
        };
        marker.write(now);
        Ok(marker)
    }

    /// Records that the writes up to `log_row` and `lifecycle_row` are
    /// durable (either may be `None`: not known to have moved).
    pub(super) fn record(&self, log_row: Option<u64>, lifecycle_row: Option<u64>) {
        let mut reached = self.reached.lock().unwrap_or_else(|e| e.into_inner());
        let before = *reached;
        if let Some(row) = log_row {
            reached.log_row = reached.log_row.max(row as i64);
        }
        if let Some(row) = lifecycle_row {
            reached.lifecycle_row = reached.lifecycle_row.max(row as i64);
        }
        if *reached != before {
            reached.at_ms = tabletop_core::now_ms();
            self.write(*reached);
        }
    }

    fn write(&self, reached: Reached) {
        if let Err(e) = self.file.write_all_at(&reached.encode(), 0) {
            static FAILED: crate::throttle::Throttle =
                crate::throttle::Throttle::new(std::time::Duration::from_secs(10));
            if let Some(held_back) = FAILED.admit() {
                tracing::warn!(
                    marker = %self.path.display(),
                    error = %e,
                    held_back,
                    "cannot write the match store's commit marker: a lost WAL will not be noticed"
                );
            }
        }
    }
}

/// Warns when the store ends before what its marker says was acknowledged.
fn warn_if_lost(store: &Path, marked: Reached, now: Reached) {
    if marked.log_row <= now.log_row && marked.lifecycle_row <= now.lifecycle_row {
        return;
    }
    let lost_log = (marked.log_row - now.log_row).max(0);
    let lost_lifecycle = (marked.lifecycle_row - now.lifecycle_row).max(0);
    let when = time_of(marked.at_ms);
    tracing::error!(
        store = %store.display(),
        lost_log_rows = lost_log,
        lost_lifecycle_rows = lost_lifecycle,
        acknowledged_until_ms = marked.at_ms,
        "the match store lost acknowledged writes: writes acknowledged up to {when} reached \
         log row {} and lifecycle row {}, but the store ends at log row {} and lifecycle \
         row {}, so {lost_log} log entries (actions and chance outcomes) and {lost_lifecycle} \
         lifecycle events are gone. Its WAL ({}) was lost or cut while the host was stopped \
         or ran, or the file was replaced by an older copy; the matches go on from what the \
         store holds",
        marked.log_row,
        marked.lifecycle_row,
        now.log_row,
        now.lifecycle_row,
        beside(store, "-wal").display(),
    );
}

/// A time for a person (`Sun, 06 Dec 2026 23:59:59 GMT`).
fn time_of(at_ms: i64) -> String {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(at_ms.max(0) as u64);
    httpdate::fmt_http_date(at)
}

/// Refuses a store whose file, or its WAL, cannot be written, naming it as
/// unwritable: SQLite would open it read-only and fail at its first write
/// with words that read like damage.
pub(super) fn writable(store: &Path) -> HostResult<()> {
    for path in [store.to_path_buf(), beside(store, "-wal")] {
        match OpenOptions::new().append(true).open(&path) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(unwritable_or(&path, e, "cannot open the match store"));
            }
        }
    }
    Ok(())
}

/// The error for `path` failing with `e`: named as unwritable when the
/// system refused the write, else `otherwise` and the system's words.
fn unwritable_or(path: &Path, e: std::io::Error, otherwise: &str) -> HostError {
    let refused = e.kind() == std::io::ErrorKind::PermissionDenied
        || e.kind() == std::io::ErrorKind::ReadOnlyFilesystem;
    if refused {
        HostError::Internal(format!(
            "the match store's file {} is not writable ({e}): the host writes it on every \
             change. Check its owner and mode, its attributes (`lsattr`; `chattr -i` lifts \
             immutable) and whether its file system is mounted read-only; the file is not \
             damaged",
            path.display()
        ))
    } else {
        HostError::Internal(format!("{otherwise} {}: {e}", path.display()))
    }
}

/// SQLite's quick check of every page of the store: the problems it
/// reports, at most `most` of them (none when every page parses). A
/// check that cannot finish says why as its last problem.
pub(super) fn damaged_pages(conn: &Connection, most: usize) -> Vec<String> {
    let mut problems = Vec::new();
    let checked = conn
        .prepare(&format!("PRAGMA quick_check({most})"))
        .and_then(|mut statement| {
            let mut rows = statement.query([])?;
            while let Some(row) = rows.next()? {
                let line: String = row.get(0)?;
                if line != "ok" {
                    problems.push(line);
                }
            }
            Ok(())
        });
    if let Err(e) = checked {
        problems.push(format!("the check stopped: {e}"));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_reads_back_what_was_written_and_nothing_else() {
        let reached = Reached {
            log_row: 17,
            lifecycle_row: 4,
            at_ms: 1_765_000_000_000,
        };
        assert_eq!(Reached::decode(&reached.encode()), Some(reached));
        assert_eq!(Reached::decode(b"TTCOMMIT"), None);
        let mut other = reached.encode();
        other[0] = b'X';
        assert_eq!(Reached::decode(&other), None);
    }

    #[test]
    fn a_marker_only_moves_forward() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = dir.path().join("s.sqlite3");
        let marker = CommitMarker::open(&store, Reached::default()).expect("marker");
        marker.record(Some(9), Some(3));
        marker.record(Some(5), None);
        let bytes = std::fs::read(beside(&store, "-commit")).expect("marker file");
        let read = Reached::decode(&bytes).expect("reads");
        assert_eq!((read.log_row, read.lifecycle_row), (9, 3));
    }

    #[test]
    fn times_read_as_dates() {
        assert_eq!(time_of(1_796_601_599_000), "Sun, 06 Dec 2026 23:59:59 GMT");
    }
}
