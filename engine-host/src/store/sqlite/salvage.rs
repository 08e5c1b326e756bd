//! Copying a store's rows into a new file around its damaged pages.
//!
//! Two uses. At start, a file whose damage lies only in its indexes (every
//! table reads whole) is rebuilt: its rows are copied into a new file whose
//! indexes are built afresh, which takes the old file's place, and the
//! damaged file is kept beside it. SQLite's own `REINDEX` and `VACUUM INTO`
//! stop at the first damaged page, so the copy is ours. And offline,
//! `tabletop store check` ([`check_file`]) reports every damaged match of
//! a store and salvages every intact one into a new file.
//!
//! The copy reads each table in rowid order past damaged pages
//! (`scan.rs`) and keeps every rowid, so the feed's cursors, the log's order
//! and each match's `first_log_seq` mean what they meant; the lifecycle
//! table's counter is carried over, so no cursor is ever used twice.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use rusqlite::types::Value;
use tabletop_core::{HostError, HostResult};

use super::{beside, check, migrations, open, read, scan, sync_dir};

/// What a copy took over, and the rows it could not read.
#[derive(Debug, Default)]
pub(super) struct Copied {
    /// Rows copied.
    pub rows: u64,
    /// Per table, the rows that lie in damaged pages.
    pub gaps: Vec<(String, scan::Gap)>,
}

/// A table name or column name quoted for SQL.
fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Copies every row of every table of `src` that reads into a new file at
/// `to` (which must not exist), leaving out the rows of the matches in
/// `leave_out`; `src` is at the schema version this host writes.
pub(super) fn copy_into(
    src: &Connection,
    to: &Path,
    leave_out: &HashSet<String>,
) -> HostResult<Copied> {
    let fail = |e: &dyn std::fmt::Display| {
        HostError::Internal(format!(
            "cannot copy the match store into {}: {e}",
            to.display()
        ))
    };
    if to.exists() {
        return Err(fail(&"the file exists"));
    }
    let mut dest = Connection::open(to).map_err(|e| fail(&e))?;
    migrations::migrate(&mut dest)?;
    dest.execute_batch("PRAGMA foreign_keys = OFF; BEGIN;")
        .map_err(|e| fail(&e))?;
    let tables: Vec<String> = dest
        .prepare(
            "SELECT name FROM sqlite_schema WHERE type = 'table' \
             AND name NOT LIKE 'sqlite_%' AND name != 'refinery_schema_history' ORDER BY name",
        )
        .and_then(|mut s| s.query_map([], |row| row.get(0))?.collect())
        .map_err(|e| fail(&e))?;
    let mut copied = Copied::default();
    for table in tables {
        let columns: Vec<String> = dest
            .prepare(&format!("PRAGMA table_info({})", ident(&table)))
            .and_then(|mut s| s.query_map([], |row| row.get(1))?.collect())
            .map_err(|e| fail(&e))?;
        let match_column = columns.iter().position(|c| c == "match_id");
        let list = columns
            .iter()
            .map(|c| ident(c))
            .collect::<Vec<_>>()
            .join(", ");
        let slots = (1..=columns.len() + 1)
            .map(|n| format!("?{n}"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut insert = dest
            .prepare(&format!(
                "INSERT INTO {} (rowid, {list}) VALUES ({slots})",
                ident(&table)
            ))
            .map_err(|e| fail(&e))?;
        let mut failed = None;
        let gaps = scan::scan(
            src,
            &format!(
                "SELECT rowid, {list} FROM {} NOT INDEXED WHERE rowid >= ?1 ORDER BY rowid",
                ident(&table)
            ),
            0,
            &[],
            |_, row, _| {
                let values: rusqlite::Result<Vec<Value>> = (0..=columns.len())
                    .map(|i| row.get::<_, Value>(i))
                    .collect();
                let values = match values {
                    Ok(values) => values,
                    // A row whose cells do not read is left with its match.
                    Err(_) => return true,
                };
                if let Some(at) = match_column
                    && let Value::Text(id) = &values[at + 1]
                    && leave_out.contains(id)
                {
                    return true;
                }
                match insert.execute(rusqlite::params_from_iter(values)) {
                    Ok(_) => {
                        copied.rows += 1;
                        true
                    }
                    Err(e) => {
                        failed = Some(e);
                        false
                    }
                }
            },
        )
        .map_err(|e| fail(&e))?;
        if let Some(e) = failed {
            return Err(fail(&format!("table {table}: {e}")));
        }
        copied
            .gaps
            .extend(gaps.into_iter().map(|gap| (table.clone(), gap)));
    }
    // The feed's counter: a cursor handed out once is never handed out
    // again, even for rows that were lost.
    if let Ok(seq) = src.query_row(
        "SELECT seq FROM sqlite_sequence WHERE name = 'lifecycle'",
        [],
        |row| row.get::<_, i64>(0),
    ) {
        dest.execute(
            "INSERT INTO sqlite_sequence (name, seq) SELECT 'lifecycle', 0 \
             WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'lifecycle')",
            [],
        )
        .and_then(|_| {
            dest.execute(
                "UPDATE sqlite_sequence SET seq = MAX(seq, ?1) WHERE name = 'lifecycle'",
                [seq],
            )
        })
        .map_err(|e| fail(&e))?;
    }
    dest.execute_batch("COMMIT; PRAGMA foreign_keys = ON;")
        .map_err(|e| fail(&e))?;
    drop(dest);
    std::fs::File::open(to)
        .and_then(|f| f.sync_all())
        .and_then(|()| sync_dir(to))
        .map_err(|e| fail(&e))?;
    Ok(copied)
}

/// Rebuilds the damaged store at `path` (open on `conn`) when every table
/// reads whole, so the damage was only in its indexes: the copy takes the
/// file's place and the damaged file is kept beside it. Answers the
/// connection to use: the rebuilt file's, or `conn` itself when tables are
/// damaged too (the reads then step around the damage, match by match, and
/// an id an index does not find is looked for without it).
pub(super) fn rebuild_if_only_indexes(path: &Path, conn: Connection) -> HostResult<Connection> {
    let rebuilt = rebuild(path, conn)?;
    if rebuilt.is_err() {
        read::damage_found();
    }
    Ok(rebuilt.unwrap_or_else(|kept| kept))
}

/// [`rebuild_if_only_indexes`]: `Ok` with the rebuilt file's connection, or
/// `Err` with `conn` when the file stays as it is.
fn rebuild(path: &Path, conn: Connection) -> HostResult<Result<Connection, Connection>> {
    let rebuilt = beside(path, ".rebuilding");
    let _ = std::fs::remove_file(&rebuilt);
    let copied = match copy_into(&conn, &rebuilt, &HashSet::new()) {
        Ok(copied) => copied,
        Err(e) => {
            let _ = std::fs::remove_file(&rebuilt);
            tracing::error!(store = %path.display(), "cannot rebuild the damaged match store: {e}");
            return Ok(Err(conn));
        }
    };
    if !copied.gaps.is_empty() {
        let _ = std::fs::remove_file(&rebuilt);
        let lost = copied
            .gaps
            .iter()
            .map(|(table, gap)| format!("{} of table {table} ({})", gap.rows(), gap.error))
            .collect::<Vec<_>>()
            .join("; ");
        tracing::error!(
            store = %path.display(),
            "the match store's damage reaches its rows: {lost}. The host serves the rest"
        );
        return Ok(Err(conn));
    }
    let fresh = Connection::open(&rebuilt)
        .map(|c| check::damaged_pages(&c, 5))
        .unwrap_or_else(|e| vec![e.to_string()]);
    if !fresh.is_empty() {
        let _ = std::fs::remove_file(&rebuilt);
        tracing::error!(
            store = %path.display(),
            "the rebuilt match store does not check either ({}); the host serves the damaged one",
            fresh.join("; ")
        );
        return Ok(Err(conn));
    }
    drop(conn);
    let kept = beside(path, &format!(".damaged-{}", tabletop_core::now_ms()));
    let swap = || -> std::io::Result<()> {
        std::fs::rename(path, &kept)?;
        let wal = beside(path, "-wal");
        if wal.exists() {
            std::fs::rename(&wal, beside(&kept, "-wal"))?;
        }
        std::fs::rename(&rebuilt, path)?;
        sync_dir(path)
    };
    swap().map_err(|e| {
        HostError::Internal(format!(
            "cannot put the rebuilt match store {} in place of the damaged {}: {e}",
            rebuilt.display(),
            path.display()
        ))
    })?;
    tracing::warn!(
        store = %path.display(),
        kept = %kept.display(),
        rows = copied.rows,
        "the match store's damage was in its indexes only: the host rebuilt the file from its \
         tables, every row kept, and keeps the damaged file beside it"
    );
    let mut conn = open(path)?;
    migrations::migrate(&mut conn)?;
    Ok(Ok(conn))
}

/// What [`check_file`] found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct FileReport {
    /// SQLite's quick check's problems (empty: every page parses).
    pub problems: Vec<String>,
    /// Matches whose data reads back whole.
    pub intact: usize,
    /// Matches whose data does not, by id, with why.
    pub damaged: Vec<(String, String)>,
    /// Rows of tables that lie in damaged pages: the table and the rows.
    pub lost_rows: Vec<(String, String)>,
    /// Where the intact matches were salvaged to, and how many rows.
    pub salvaged: Option<(PathBuf, u64)>,
}

impl FileReport {
    /// Whether the file is damaged at all.
    pub fn is_damaged(&self) -> bool {
        !self.problems.is_empty() || !self.damaged.is_empty() || !self.lost_rows.is_empty()
    }
}

/// Checks the store at `path` offline (no host may have it open): SQLite's
/// quick check, then every match read back as a host would read it; with
/// `salvage_to`, copies every intact match (and the credentials, requests
/// and feed rows that read) into a new file there, which a host can be
/// started on.
pub fn check_file(path: &Path, salvage_to: Option<&Path>) -> HostResult<FileReport> {
    let (_lock, conn) = super::open_offline(path)?;
    let mut report = FileReport {
        problems: check::damaged_pages(&conn, 100),
        ..FileReport::default()
    };
    if !report.problems.is_empty() {
        // An index may be wrong without failing: look past it for ids.
        read::damage_found();
    }
    let ids = read::match_ids(&conn).map_err(super::db_error)?;
    for gap in ids.1 {
        report
            .lost_rows
            .push(("matches".into(), format!("{} ({})", gap.rows(), gap.error)));
    }
    for loaded in read::load_unfinished(&conn)? {
        match loaded {
            Ok(_) => report.intact += 1,
            Err(damaged) => report.damaged.push((damaged.match_id, damaged.reason)),
        }
    }
    for (id, finished) in ids.0 {
        if !finished {
            continue;
        }
        match read::load(&conn, &id) {
            Ok(_) => report.intact += 1,
            Err(HostError::MatchUnavailable { reason, .. }) => report.damaged.push((id, reason)),
            Err(other) => return Err(other),
        }
    }
    if let Some(to) = salvage_to {
        let leave_out: HashSet<String> = report.damaged.iter().map(|(id, _)| id.clone()).collect();
        let copied = copy_into(&conn, to, &leave_out)?;
        for (table, gap) in copied.gaps {
            if table != "matches" {
                report
                    .lost_rows
                    .push((table, format!("{} ({})", gap.rows(), gap.error)));
            }
        }
        report.salvaged = Some((to.to_path_buf(), copied.rows));
    }
    Ok(report)
}
