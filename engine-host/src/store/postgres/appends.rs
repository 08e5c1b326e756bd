//! The common batch in one round trip: when every write of a batch only
//! adds log entries or changes the actions held in a simultaneous turn
//! (most actions of most games: no end, no lifecycle row), the batch is
//! one statement — an `INSERT` of every entry and an `UPDATE` of every
//! changed match's held actions — run on its own, which PostgreSQL commits
//! as one transaction when it returns: instead of `BEGIN`, a statement or
//! two per write and `COMMIT`. In a batch with other writes too, each run
//! of such writes between them is one statement inside the batch's
//! transaction.
//!
//! The statement keeps the rule of `apply.rs`'s log insert: a match's
//! entries are stored only when its first entry in the batch follows a
//! stored one (or is the first entry of a match the store holds), so a
//! match left ahead of the store by a failed write, or unknown to it, is
//! refused (its held actions too) rather than given a hole; the other
//! matches of the batch are stored. Any other failure (a version already
//! stored) fails the whole statement, which stores nothing, and the batch
//! runs again through the general path, which isolates the failing write.
//!
//! A connection that breaks while the statement runs leaves its outcome
//! unknown. Only this host writes these matches, so the writer asks on a
//! new connection which of the batch's rows are stored as it would store
//! them (entries, text and all; held actions): if any are, the statement
//! committed, and each write is answered by what is there; if none are, it
//! did not (or refused every match, which running it again refuses again),
//! and it runs once more.

use std::collections::{HashMap, HashSet};

use postgres::types::ToSql;
use tabletop_core::{HostError, HostResult};

use super::apply::{missing_version, no_match, to_json};
use super::cluster::live;
use super::connect::db_error;
use super::pipeline::{Pipeline, Request};
use super::step::Answer;
use crate::store::queued::Write;

/// A batch of simple appends, column by column: the log rows, the held
/// actions each match is left with, and each write's part.
pub(super) struct Appends {
    match_ids: Vec<String>,
    versions: Vec<i64>,
    entries: Vec<String>,
    /// Per match whose held actions change, the last of them in the batch.
    held_ids: Vec<String>,
    held: Vec<String>,
    /// Per write of the batch, in order.
    writes: Vec<Part>,
    /// The writing host's id, when it joined the database's hosts: a
    /// match whose lease is not its own stores nothing.
    fence: Option<String>,
}

/// What one write of the batch needs stored.
struct Part {
    match_id: String,
    /// Its first entry's version, when it adds entries.
    first: Option<u64>,
    /// Whether it changes the held actions.
    holds: bool,
}

/// What the statement stored: the matches whose entries went in, and
/// those whose held actions did.
#[derive(Default)]
pub(super) struct Stored {
    logged: HashSet<String>,
    held: HashSet<String>,
    /// Matches whose lease is not the writing host's.
    fenced: HashSet<String>,
}

impl Stored {
    pub(super) fn of(rows: &[postgres::Row]) -> Stored {
        let mut stored = Stored::default();
        for row in rows {
            let (match_id, logged): (String, Option<bool>) = (row.get(0), row.get(1));
            match logged {
                Some(true) => stored.logged.insert(match_id),
                Some(false) => stored.held.insert(match_id),
                None => stored.fenced.insert(match_id),
            };
        }
        stored
    }

    fn is_empty(&self) -> bool {
        self.logged.is_empty() && self.held.is_empty()
    }
}

impl Appends {
    /// Whether `write` only adds log entries or changes the held actions
    /// of a simultaneous turn (or both), with no end and no lifecycle row.
    pub(super) fn is_simple(write: &Write) -> bool {
        matches!(
            write,
            Write::Append {
                entries,
                pending,
                results,
                lifecycle,
                finished_log: None,
                ..
            } if (!entries.is_empty() || pending.is_some())
                && results.is_empty()
                && lifecycle.is_empty()
        )
    }

    /// The rows of `writes`, when every one is simple and each match's
    /// entries run on version by version; `None` otherwise (they are
    /// written one by one).
    pub(super) fn of<'a>(
        writes: impl IntoIterator<Item = &'a Write>,
        fence: Option<&str>,
    ) -> Option<Appends> {
        let mut appends = Appends {
            fence: fence.map(str::to_string),
            match_ids: Vec::new(),
            versions: Vec::new(),
            entries: Vec::new(),
            held_ids: Vec::new(),
            held: Vec::new(),
            writes: Vec::new(),
        };
        let mut last_version: HashMap<&str, u64> = HashMap::new();
        let mut held_at: HashMap<&str, usize> = HashMap::new();
        for write in writes {
            let Write::Append {
                match_id,
                entries,
                pending,
                ..
            } = write
            else {
                return None;
            };
            if !Appends::is_simple(write) {
                return None;
            }
            for entry in entries {
                let last = last_version.insert(match_id, entry.version);
                if last.is_some_and(|last| last + 1 != entry.version) {
                    return None;
                }
                appends.match_ids.push(match_id.clone());
                appends.versions.push(entry.version as i64);
                appends.entries.push(to_json(entry).ok()?);
            }
            if let Some(pending) = pending {
                let json = to_json(pending).ok()?;
                match held_at.get(match_id.as_str()) {
                    Some(&at) => appends.held[at] = json,
                    None => {
                        held_at.insert(match_id, appends.held.len());
                        appends.held_ids.push(match_id.clone());
                        appends.held.push(json);
                    }
                }
            }
            appends.writes.push(Part {
                match_id: match_id.clone(),
                first: entries.first().map(|e| e.version),
                holds: pending.is_some(),
            });
        }
        Some(appends)
    }

    fn columns(&self) -> [&(dyn ToSql + Sync); 5] {
        [
            &self.match_ids,
            &self.versions,
            &self.entries,
            &self.held_ids,
            &self.held,
        ]
    }

    fn columns_and_fence(&self) -> [&(dyn ToSql + Sync); 6] {
        let [a, b, c, d, e] = self.columns();
        [a, b, c, d, e, &self.fence]
    }

    /// Each write's outcome, given what was stored.
    fn outcomes(&self, stored: &Stored) -> Vec<HostResult<()>> {
        // Each match's first entry of the batch, which may be another
        // write's: its hole refuses every write of the match.
        let mut heads: HashMap<&str, u64> = HashMap::new();
        for part in &self.writes {
            if let Some(first) = part.first {
                heads.entry(&part.match_id).or_insert(first);
            }
        }
        self.writes
            .iter()
            .map(|part| {
                let logged = stored.logged.contains(&part.match_id);
                let held = stored.held.contains(&part.match_id);
                if stored.fenced.contains(&part.match_id) {
                    return Err(HostError::MatchMoved {
                        match_id: part.match_id.clone(),
                    });
                }
                match heads.get(part.match_id.as_str()).copied() {
                    Some(1) if !logged => Err(no_match(&part.match_id)),
                    Some(first) if !logged => Err(missing_version(&part.match_id, first)),
                    _ if part.holds && !held => Err(no_match(&part.match_id)),
                    _ => Ok(()),
                }
            })
            .collect()
    }

    /// Whether every write of the batch was stored.
    pub(super) fn all_stored(&self, stored: &Stored) -> bool {
        self.outcomes(stored).iter().all(Result::is_ok)
    }
}

/// Stores every entry whose match's first entry in the batch follows a
/// stored one, and the held actions of those matches and of matches that
/// add no entry; answers each match stored, with whether it was its log
/// (`true`) or its held actions. The hole check is a join through the
/// log's key (the store's sessions never scan the log: see `connect.rs`).
const WRITE: &str = concat!(
    "WITH batch AS ( \
        SELECT * FROM unnest($1::TEXT[], $2::BIGINT[], $3::TEXT[]) \
            AS b(match_id, version, entry_json)), \
    heads AS (SELECT match_id, MIN(version) AS version FROM batch GROUP BY match_id), \
    refused AS (SELECT h.match_id FROM heads h \
        LEFT JOIN log l ON h.version <> 1 \
            AND l.match_id = h.match_id AND l.version = h.version - 1 \
        LEFT JOIN matches m ON h.version = 1 AND m.match_id = h.match_id \
        WHERE l.match_id IS NULL AND m.match_id IS NULL), \
    fenced AS (SELECT k.match_id \
        FROM (SELECT match_id FROM heads UNION SELECT unnest($4::TEXT[])) AS k(match_id) \
        LEFT JOIN LATERAL (SELECT l.host_id FROM match_leases l \
            WHERE l.match_id = k.match_id LIMIT 1) AS l ON TRUE \
        WHERE $6::TEXT IS NOT NULL AND (l.host_id IS DISTINCT FROM $6::TEXT OR NOT EXISTS ( \
        SELECT 1 FROM hosts o WHERE o.host_id = $6::TEXT AND ",
    live!("o"),
    "))), \
    logged AS (INSERT INTO log (match_id, version, entry_json) \
        SELECT b.match_id, b.version, b.entry_json FROM batch b \
        WHERE b.match_id NOT IN (SELECT match_id FROM refused) \
            AND b.match_id NOT IN (SELECT match_id FROM fenced) \
        RETURNING match_id), \
    held AS (UPDATE matches m SET pending_json = p.pending_json \
        FROM unnest($4::TEXT[], $5::TEXT[]) AS p(match_id, pending_json) \
        WHERE m.match_id = p.match_id AND p.match_id NOT IN (SELECT match_id FROM refused) \
            AND p.match_id NOT IN (SELECT match_id FROM fenced) \
        RETURNING m.match_id) \
    SELECT match_id, TRUE FROM logged UNION ALL SELECT match_id, FALSE FROM held \
    UNION ALL SELECT match_id, NULL FROM fenced"
);

/// Which of the batch's rows are stored as the batch would store them:
/// entries, text and all, and held actions.
const STORED: &str = "SELECT DISTINCT b.match_id, TRUE \
    FROM unnest($1::TEXT[], $2::BIGINT[], $3::TEXT[]) AS b(match_id, version, entry_json) \
    JOIN log l ON l.match_id = b.match_id AND l.version = b.version \
        AND l.entry_json = b.entry_json \
    UNION ALL SELECT m.match_id, FALSE \
    FROM unnest($4::TEXT[], $5::TEXT[]) AS p(match_id, pending_json) \
    JOIN matches m ON m.match_id = p.match_id AND m.pending_json = p.pending_json";

/// How running the statement went.
pub(super) enum Ran {
    /// It returned: each write's outcome.
    Stored(Vec<HostResult<()>>),
    /// It failed on a working connection and stored nothing.
    Refused,
    /// The connection broke: whether it committed is unknown.
    Broken(HostError),
}

impl Appends {
    /// The batch's statement (committed as it returns when sent alone, or
    /// one statement of a transaction); [`Stored::of`] reads its rows.
    pub(super) fn request(&self) -> Request<'_> {
        Request::Statement {
            sql: WRITE,
            params: self.columns_and_fence().to_vec(),
            rows: true,
        }
    }
}

/// Runs the batch's one statement on `connection`, committed as it
/// returns.
pub(super) fn run(connection: &mut Pipeline, appends: &Appends) -> Ran {
    match connection
        .send(&[appends.request()])
        .map(|mut answers| answers.pop())
    {
        Ok(Some(Ok(Answer::Rows(rows)))) => Ran::Stored(appends.outcomes(&Stored::of(&rows))),
        Ok(Some(Err(e))) => match db_error(e) {
            e @ HostError::StoreUnavailable(_) => Ran::Broken(e),
            _ => Ran::Refused,
        },
        Err(e @ HostError::StoreUnavailable(_)) => Ran::Broken(e),
        Ok(_) | Err(_) => Ran::Refused,
    }
}

/// After [`Ran::Broken`], on a new connection: each write's outcome when
/// the statement had committed, `None` when nothing of it is stored.
pub(super) fn settle(
    connection: &mut Pipeline,
    appends: &Appends,
) -> HostResult<Option<Vec<HostResult<()>>>> {
    let asked = Request::Statement {
        sql: STORED,
        params: appends.columns().to_vec(),
        rows: true,
    };
    let rows = match connection.send(&[asked])?.pop() {
        Some(Ok(Answer::Rows(rows))) => rows,
        Some(Err(e)) => return Err(db_error(e)),
        _ => {
            return Err(HostError::Internal(
                "the match store's rows were not returned".into(),
            ));
        }
    };
    let stored = Stored::of(&rows);
    Ok((!stored.is_empty()).then(|| appends.outcomes(&stored)))
}
