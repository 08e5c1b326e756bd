//! The common batch in one round trip: when every write of a batch only
//! adds log entries (most actions of most games: no held actions, no end,
//! no lifecycle row), the batch is one `INSERT` of every entry, run on its
//! own, which PostgreSQL commits as one transaction when it returns —
//! instead of `BEGIN`, a statement per write and `COMMIT`. In a batch with
//! other writes too, each run of such writes between them is one `INSERT`
//! inside the batch's transaction.
//!
//! The statement keeps the rule of `apply.rs`'s log insert: a match's
//! entries are stored only when its first entry in the batch follows a
//! stored one (or is its first), so a match left ahead of the store by a
//! failed write is refused rather than given a hole; the other matches of
//! the batch are stored. Any other failure (an unknown match, a version
//! already stored) fails the whole statement, which stores nothing, and
//! the batch runs again through the general path, which isolates the
//! failing write.
//!
//! A connection that breaks while the statement runs leaves its outcome
//! unknown. Only this host writes these entries, so the writer asks on a
//! new connection which of them are stored, entry text and all: if any
//! are, the statement committed, and each write is answered by whether its
//! match's entries are there; if none are, it did not (or refused every
//! match, which running it again refuses again), and it runs once more.

use std::collections::{HashMap, HashSet};

use postgres::GenericClient;
use postgres::types::ToSql;
use tabletop_core::{HostError, HostResult};

use super::apply::{missing_version, to_json};
use super::connect::{Connection, Prepared};
use crate::store::queued::Write;

/// The entries of a batch of plain appends, column by column, and each
/// write's match.
pub(super) struct Appends {
    match_ids: Vec<String>,
    versions: Vec<i64>,
    entries: Vec<String>,
    /// Per write of the batch, its match and its first entry's version.
    writes: Vec<(String, u64)>,
}

impl Appends {
    /// Whether `write` only adds log entries.
    pub(super) fn is_plain(write: &Write) -> bool {
        matches!(
            write,
            Write::Append {
                entries,
                pending: None,
                results,
                lifecycle,
                finished_log: None,
                ..
            } if !entries.is_empty() && results.is_empty() && lifecycle.is_empty()
        )
    }

    /// The entries of `writes`, when every one only adds entries and each
    /// match's entries run on version by version; `None` otherwise (they
    /// are written one by one).
    pub(super) fn of<'a>(writes: impl IntoIterator<Item = &'a Write>) -> Option<Appends> {
        let mut appends = Appends {
            match_ids: Vec::new(),
            versions: Vec::new(),
            entries: Vec::new(),
            writes: Vec::new(),
        };
        let mut last_version: HashMap<&str, u64> = HashMap::new();
        for write in writes {
            if !Appends::is_plain(write) {
                return None;
            }
            let Write::Append {
                match_id, entries, ..
            } = write
            else {
                return None;
            };
            for entry in entries {
                let last = last_version.insert(match_id, entry.version);
                if last.is_some_and(|last| last + 1 != entry.version) {
                    return None;
                }
                appends.match_ids.push(match_id.clone());
                appends.versions.push(entry.version as i64);
                appends.entries.push(to_json(entry).ok()?);
            }
            appends.writes.push((match_id.clone(), entries[0].version));
        }
        Some(appends)
    }

    /// Whether every write's entries are among `stored`.
    pub(super) fn all_stored(&self, stored: &HashSet<String>) -> bool {
        self.writes.iter().all(|(id, _)| stored.contains(id))
    }

    fn columns(&self) -> [&(dyn ToSql + Sync); 3] {
        [&self.match_ids, &self.versions, &self.entries]
    }

    /// Each write's outcome, given the matches whose entries were stored.
    fn outcomes(&self, stored: &HashSet<String>) -> Vec<HostResult<()>> {
        self.writes
            .iter()
            .map(|(match_id, first)| {
                if stored.contains(match_id) {
                    Ok(())
                } else {
                    Err(missing_version(match_id, *first))
                }
            })
            .collect()
    }
}

/// Stores every entry whose match's first entry in the batch follows a
/// stored one; answers the matches stored. The check is a join, not
/// `OR EXISTS`: the planner may answer that one by hashing the whole log
/// (a scan of every row, per batch), where a join of a few heads looks
/// each one up in the log's key.
const INSERT: &str = "WITH batch AS ( \
        SELECT * FROM unnest($1::TEXT[], $2::BIGINT[], $3::TEXT[]) \
            AS b(match_id, version, entry_json)), \
    heads AS (SELECT match_id, MIN(version) AS version FROM batch GROUP BY match_id), \
    follow AS (SELECT h.match_id FROM heads h \
        LEFT JOIN log l ON l.match_id = h.match_id AND l.version = h.version - 1 \
        WHERE h.version = 1 OR l.match_id IS NOT NULL) \
    INSERT INTO log (match_id, version, entry_json) \
    SELECT b.match_id, b.version, b.entry_json FROM batch b JOIN follow USING (match_id) \
    RETURNING match_id";

/// The matches of the batch whose entries are stored, entry text and all.
const STORED: &str = "SELECT DISTINCT b.match_id \
    FROM unnest($1::TEXT[], $2::BIGINT[], $3::TEXT[]) AS b(match_id, version, entry_json) \
    JOIN log l ON l.match_id = b.match_id AND l.version = b.version \
        AND l.entry_json = b.entry_json";

/// How running the statement went.
pub(super) enum Ran {
    /// It returned: each write's outcome.
    Stored(Vec<HostResult<()>>),
    /// It failed on a working connection and stored nothing.
    Refused,
    /// The connection broke: whether it committed is unknown.
    Broken(HostError),
}

/// Inserts the entries whose match's first entry follows a stored one
/// (inside a transaction, or as one of its own); answers the matches
/// stored.
pub(super) fn insert<C: GenericClient>(
    db: &mut Prepared<'_, C>,
    appends: &Appends,
) -> HostResult<HashSet<String>> {
    Ok(db
        .query(INSERT, &appends.columns())?
        .iter()
        .map(|row| row.get(0))
        .collect())
}

/// Runs the batch's one statement on `connection`, committed as it
/// returns.
pub(super) fn run(connection: &mut Connection, appends: &Appends) -> Ran {
    let mut db = Prepared {
        client: &mut connection.client,
        statements: &mut connection.statements,
    };
    match insert(&mut db, appends) {
        Ok(stored) => Ran::Stored(appends.outcomes(&stored)),
        Err(e @ HostError::StoreUnavailable(_)) => Ran::Broken(e),
        Err(_) => Ran::Refused,
    }
}

/// After [`Ran::Broken`], on a new connection: each write's outcome when
/// the statement had committed, `None` when nothing of it is stored.
pub(super) fn settle(
    connection: &mut Connection,
    appends: &Appends,
) -> HostResult<Option<Vec<HostResult<()>>>> {
    let mut db = Prepared {
        client: &mut connection.client,
        statements: &mut connection.statements,
    };
    let stored: HashSet<String> = db
        .query(STORED, &appends.columns())?
        .iter()
        .map(|row| row.get(0))
        .collect();
    Ok((!stored.is_empty()).then(|| appends.outcomes(&stored)))
}
