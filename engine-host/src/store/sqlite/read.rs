//! The SQLite store's reads, run on the writer's connection between
//! batches (it holds the file locked, see the store's documentation).
//!
//! Where a match's log is read from: a finished match's whole log is kept
//! in its row (`log_json`), so reading it back by id is one row; a running
//! match's entries are rows of `log`, written in the order they happened
//! and searched from the first row written after the match was created
//! (`first_log_seq`), since `log` has no index by match (see `mod.rs`).

use std::collections::HashMap;

use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Row, params};
use tabletop_core::{HeldAction, HostError, HostResult, LogEntry, SeatJoin};

use super::write::state_name;
use super::{db_error, json_error};
use crate::store::{
    DamagedMatch, LifecycleRow, ListedState, MatchQuery, StoredCredential, StoredMatch,
    StoredRequest, StoredSummary, damaged_setup,
};
use tabletop_core::quote::quote;

/// A `matches` row, before its seats and log are read. Every column is
/// read as it is, whatever a damaged file put there: what does not read
/// back makes that one match unavailable, not the whole store.
struct MatchRow {
    match_id: String,
    setup: Option<String>,
    pending: Option<String>,
    results: Option<String>,
    first_log_seq: i64,
    log_json: Option<String>,
    game: Option<String>,
    created_at_ms: Option<i64>,
}

const MATCH_COLUMNS: &str = "CAST(match_id AS TEXT), CAST(setup_json AS TEXT), \
     CAST(pending_json AS TEXT), CAST(results_json AS TEXT), CAST(first_log_seq AS INTEGER), \
     CAST(log_json AS TEXT), CAST(game AS TEXT), CAST(created_at_ms AS INTEGER)";

fn match_row(row: &Row<'_>) -> rusqlite::Result<MatchRow> {
    Ok(MatchRow {
        match_id: row.get::<_, Option<String>>(0)?.unwrap_or_default(),
        setup: row.get(1)?,
        pending: row.get(2)?,
        results: row.get(3)?,
        first_log_seq: row.get::<_, Option<i64>>(4)?.unwrap_or(0),
        log_json: row.get(5)?,
        game: row.get(6)?,
        created_at_ms: row.get(7)?,
    })
}

impl MatchRow {
    /// What a listing and the log say of it when the rest does not read.
    fn damaged(&self, reason: String) -> DamagedMatch {
        DamagedMatch {
            match_id: self.match_id.clone(),
            game: self.game.clone().unwrap_or_default(),
            created_at_ms: self.created_at_ms.unwrap_or(0),
            reason,
        }
    }
}

/// The error for a part of a stored match that does not read back: that
/// match is unavailable, with the reason (the parser's words, quoted
/// briefly: they may hold a whole field of the damaged data).
fn unreadable(match_id: &str, what: &str, e: impl std::fmt::Display) -> HostError {
    HostError::MatchUnavailable {
        match_id: match_id.to_string(),
        reason: format!(
            "its stored {what} does not read back ({}); the match store is damaged",
            quote(&e.to_string())
        ),
    }
}

/// One match by id.
pub(super) fn load(conn: &Connection, match_id: &str) -> HostResult<Option<StoredMatch>> {
    let row = conn
        .prepare_cached(&format!(
            "SELECT {MATCH_COLUMNS} FROM matches WHERE match_id = ?1"
        ))
        .and_then(|mut s| s.query_row(params![match_id], match_row).optional())
        .map_err(db_error)?;
    let Some(row) = row else { return Ok(None) };
    let log = match &row.log_json {
        Some(_) => None,
        None => Some(log_rows(conn, row.first_log_seq, match_id)?),
    };
    let mut logs = log
        .map(|log| HashMap::from([(match_id.to_string(), log)]))
        .unwrap_or_default();
    assemble(conn, row, &mut logs, &HashMap::new()).map(Some)
}

/// Every match not finished, with one pass over the log rows they need;
/// a match whose data does not read back is answered as damaged.
pub(super) fn load_unfinished(
    conn: &Connection,
) -> HostResult<Vec<Result<StoredMatch, DamagedMatch>>> {
    let rows = conn
        .prepare(&format!(
            "SELECT {MATCH_COLUMNS} FROM matches \
             WHERE state IN ('waiting', 'running', 'quarantined') \
             ORDER BY created_at_ms, match_id"
        ))
        .and_then(|mut s| {
            s.query_map([], match_row)?
                .collect::<rusqlite::Result<Vec<_>>>()
        })
        .map_err(db_error)?;
    let from = rows
        .iter()
        .map(|r| r.first_log_seq)
        .min()
        .unwrap_or(i64::MAX);
    let (mut logs, damaged_logs) = if rows.is_empty() {
        (HashMap::new(), HashMap::new())
    } else {
        log_rows_by_match(conn, from)?
    };
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let damaged = |reason| row.damaged(reason);
        let placeholder = damaged(String::new());
        match assemble(conn, row, &mut logs, &damaged_logs) {
            Ok(stored) => out.push(Ok(stored)),
            Err(HostError::MatchUnavailable { reason, .. }) => out.push(Err(DamagedMatch {
                reason,
                ..placeholder
            })),
            Err(other) => return Err(other),
        }
    }
    Ok(out)
}

/// The log of one match from its rows in `log`, in the order written.
fn log_rows(conn: &Connection, from: i64, match_id: &str) -> HostResult<Vec<LogEntry>> {
    let mut statement = conn
        .prepare_cached(
            "SELECT entry_json FROM log WHERE rowid >= ?1 AND match_id = ?2 ORDER BY rowid",
        )
        .map_err(db_error)?;
    let mut rows = statement.query(params![from, match_id]).map_err(db_error)?;
    let mut log = Vec::new();
    while let Some(row) = rows.next().map_err(db_error)? {
        let text = row
            .get_ref(0)
            .and_then(|v| Ok(v.as_str()?))
            .map_err(|e| unreadable(match_id, "log entry", e))?;
        log.push(serde_json::from_str(text).map_err(|e| unreadable(match_id, "log entry", e))?);
    }
    Ok(log)
}

/// The log entries of one match by id, and why the log of a match whose
/// entries do not read back cannot be told.
type LogsByMatch = (HashMap<String, Vec<LogEntry>>, HashMap<String, String>);

/// Every log row from `from` on, by match, in the order written; a match
/// with an entry that does not read back is set apart with the reason.
fn log_rows_by_match(conn: &Connection, from: i64) -> HostResult<LogsByMatch> {
    let mut logs: HashMap<String, Vec<LogEntry>> = HashMap::new();
    let mut damaged: HashMap<String, String> = HashMap::new();
    let mut statement = conn
        .prepare("SELECT match_id, entry_json FROM log WHERE rowid >= ?1 ORDER BY rowid")
        .map_err(db_error)?;
    let mut rows = statement.query(params![from]).map_err(db_error)?;
    while let Some(row) = rows.next().map_err(db_error)? {
        // Borrowed from the row: no String per column of every entry.
        let Ok(match_id) = row.get_ref(0).and_then(|v| Ok(v.as_str()?)) else {
            // A row naming no match belongs to none that could be loaded.
            continue;
        };
        if damaged.contains_key(match_id) {
            continue;
        }
        let entry = row
            .get_ref(1)
            .map_err(|e| e.to_string())
            .and_then(|v| v.as_str().map_err(|e| e.to_string()))
            .and_then(|text| serde_json::from_str::<LogEntry>(text).map_err(|e| e.to_string()));
        match entry {
            Ok(entry) => match logs.get_mut(match_id) {
                Some(entries) => entries.push(entry),
                None => {
                    logs.insert(match_id.to_string(), vec![entry]);
                }
            },
            Err(e) => {
                let HostError::MatchUnavailable { reason, .. } =
                    unreadable(match_id, "log entry", e)
                else {
                    unreachable!("unreadable() makes a MatchUnavailable")
                };
                logs.remove(match_id);
                damaged.insert(match_id.to_string(), reason);
            }
        }
    }
    Ok((logs, damaged))
}

/// A match from its row, its seats, and its log (from `log_json`, or taken
/// from `logs`); `damaged_logs` names the matches whose log rows did not
/// read back. Data that does not read back answers
/// [`HostError::MatchUnavailable`].
fn assemble(
    conn: &Connection,
    row: MatchRow,
    logs: &mut HashMap<String, Vec<LogEntry>>,
    damaged_logs: &HashMap<String, String>,
) -> HostResult<StoredMatch> {
    let id = row.match_id.as_str();
    if let Some(reason) = damaged_logs.get(id) {
        return Err(HostError::MatchUnavailable {
            match_id: id.to_string(),
            reason: reason.clone(),
        });
    }
    let json = |what: &str, text: &Option<String>| -> HostResult<String> {
        text.clone()
            .ok_or_else(|| unreadable(id, what, "it is missing"))
    };
    let setup = serde_json::from_str(&json("setup", &row.setup)?)
        .map_err(|e| unreadable(id, "setup", e))?;
    let pending: Vec<HeldAction> = serde_json::from_str(&json("held actions", &row.pending)?)
        .map_err(|e| unreadable(id, "held actions", e))?;
    let results = serde_json::from_str(&json("results", &row.results)?)
        .map_err(|e| unreadable(id, "results", e))?;
    let log = match &row.log_json {
        Some(json) => serde_json::from_str(json).map_err(|e| unreadable(id, "log", e))?,
        None => logs.remove(id).unwrap_or_default(),
    };
    let seat_rows = conn
        .prepare_cached(
            "SELECT seat, token_hash, joined_at_ms, join_order, join_code_hash, display_name, \
             external_id, bot FROM seats WHERE match_id = ?1 ORDER BY seat",
        )
        .and_then(|mut s| {
            s.query_map(params![id], |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, Option<Vec<u8>>>(1)?,
                    row.get::<_, Option<i64>>(2)?,
                    row.get::<_, Option<i64>>(3)?,
                    row.get::<_, Option<Vec<u8>>>(4)?,
                    row.get::<_, Option<String>>(5)?,
                    row.get::<_, Option<String>>(6)?,
                    row.get::<_, Option<String>>(7)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()
        })
        .map_err(|e| unreadable(id, "seats", e))?;
    let mut seat_hashes = Vec::with_capacity(seat_rows.len());
    let mut join_code_hashes = Vec::with_capacity(seat_rows.len());
    let mut joins = Vec::new();
    let hash_of = |bytes: Option<Vec<u8>>, what: &str| -> HostResult<Option<[u8; 32]>> {
        bytes
            .map(|bytes| {
                <[u8; 32]>::try_from(bytes.as_slice())
                    .map_err(|_| unreadable(id, what, "not 32 bytes"))
            })
            .transpose()
    };
    for (seat, hash, joined_at_ms, join_order, code, display_name, external_id, bot) in seat_rows {
        if let (Some(at_ms), Some(order)) = (joined_at_ms, join_order) {
            joins.push((
                order,
                SeatJoin {
                    seat: seat as u32,
                    at_ms,
                    display_name: display_name.unwrap_or_default(),
                    external_id: external_id.unwrap_or_default(),
                    bot: bot.unwrap_or_default(),
                },
            ));
        }
        seat_hashes.push(hash_of(hash, "token hash")?);
        join_code_hashes.push(hash_of(code, "join code hash")?);
    }
    if join_code_hashes.iter().all(Option::is_none) {
        join_code_hashes.clear();
    }
    joins.sort_by_key(|(order, _)| *order);
    Ok(StoredMatch {
        setup,
        seat_hashes,
        join_code_hashes,
        joins: joins.into_iter().map(|(_, join)| join).collect(),
        log,
        pending,
        results,
    })
}

/// A page of matches (see [`MatchQuery`]).
pub(super) fn list(conn: &Connection, query: &MatchQuery) -> HostResult<Vec<StoredSummary>> {
    let (after_at, after_id) = match &query.after {
        Some((at, id)) => (Some(*at), Some(id.as_str())),
        None => (None, None),
    };
    let limit = i64::try_from(query.limit).unwrap_or(i64::MAX);
    let mut values: Vec<Value> = vec![
        query.game.clone().into(),
        query.state.map(|s| state_name(s).to_string()).into(),
        query.created_from_ms.into(),
        query.created_before_ms.into(),
        after_at.into(),
        after_id.map(str::to_string).into(),
        limit.into(),
    ];
    // One EXISTS per label asked for; the statement's text (and so its
    // cached plan) depends only on how many.
    let mut labels = String::new();
    for (key, value) in &query.labels {
        let n = values.len();
        labels.push_str(&format!(
            " AND EXISTS (SELECT 1 FROM match_labels l WHERE l.match_id = m.match_id \
             AND l.key = ?{} AND l.value = ?{})",
            n + 1,
            n + 2
        ));
        values.push(key.clone().into());
        values.push(value.clone().into());
    }
    let mut statement = conn
        .prepare_cached(&format!(
            "SELECT CAST(m.setup_json AS TEXT), m.state, m.final_version, \
                    (SELECT group_concat(seat) FROM seats s \
                     WHERE s.match_id = m.match_id AND s.token_hash IS NULL), \
                    CAST(m.match_id AS TEXT), CAST(m.game AS TEXT), \
                    CAST(m.created_at_ms AS INTEGER) \
             FROM matches m \
             WHERE (?1 IS NULL OR m.game = ?1) AND (?2 IS NULL OR m.state = ?2) \
               AND (?3 IS NULL OR m.created_at_ms >= ?3) \
               AND (?4 IS NULL OR m.created_at_ms < ?4) \
               AND (?5 IS NULL OR (m.created_at_ms, m.match_id) > (?5, ?6)){labels} \
             ORDER BY m.created_at_ms, m.match_id LIMIT ?7"
        ))
        .map_err(db_error)?;
    let rows = statement
        .query_map(rusqlite::params_from_iter(values), |row| {
            Ok((
                row.get::<_, Option<String>>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, Option<i64>>(2)?,
                row.get::<_, Option<String>>(3)?,
                (
                    row.get::<_, Option<String>>(4)?.unwrap_or_default(),
                    row.get::<_, Option<String>>(5)?.unwrap_or_default(),
                    row.get::<_, Option<i64>>(6)?.unwrap_or(0),
                ),
            ))
        })
        .map_err(db_error)?;
    let mut out = Vec::new();
    for row in rows {
        let (setup, state, final_version, open, (match_id, game, created_at_ms)) =
            row.map_err(db_error)?;
        // A setup that does not read back lists the match as unavailable,
        // with what its other columns say; the listing goes on.
        let parsed = setup
            .ok_or_else(|| unreadable(&match_id, "setup", "it is missing"))
            .and_then(|setup| {
                serde_json::from_str::<tabletop_core::MatchSetup>(&setup)
                    .map_err(|e| unreadable(&match_id, "setup", e))
            });
        let (setup, unreadable) = match parsed {
            Ok(setup) => (setup, None),
            Err(HostError::MatchUnavailable { reason, .. }) => {
                (damaged_setup(&match_id, &game, created_at_ms), Some(reason))
            }
            Err(other) => return Err(other),
        };
        let state = match state.as_str() {
            "waiting" => ListedState::Waiting,
            "running" => ListedState::Running,
            "quarantined" => ListedState::Quarantined,
            _ => ListedState::Finished,
        };
        let mut open_seats: Vec<u32> = open
            .unwrap_or_default()
            .split(',')
            .filter_map(|s| s.parse().ok())
            .collect();
        open_seats.sort_unstable();
        out.push(StoredSummary {
            setup,
            state,
            final_version: final_version.map(|v| v as u64),
            open_seats,
            unreadable,
        });
    }
    Ok(out)
}

/// Lifecycle rows after `after_seq`.
pub(super) fn lifecycle_after(
    conn: &Connection,
    after_seq: u64,
    limit: usize,
) -> HostResult<Vec<LifecycleRow>> {
    let mut statement = conn
        .prepare_cached(
            "SELECT seq, event_json FROM lifecycle WHERE seq > ?1 ORDER BY seq LIMIT ?2",
        )
        .map_err(db_error)?;
    let rows = statement
        .query_map(
            params![
                i64::try_from(after_seq).unwrap_or(i64::MAX),
                i64::try_from(limit).unwrap_or(i64::MAX)
            ],
            |row| Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?)),
        )
        .map_err(db_error)?;
    let mut out = Vec::new();
    for row in rows {
        let (seq, json) = row.map_err(db_error)?;
        out.push(LifecycleRow {
            seq: seq as u64,
            event: serde_json::from_str(&json).map_err(json_error)?,
        });
    }
    Ok(out)
}

/// The request stored under `request_id`.
pub(super) fn request(conn: &Connection, request_id: &str) -> HostResult<Option<StoredRequest>> {
    let row = conn
        .prepare_cached(
            "SELECT request_hash, match_id, response FROM requests WHERE request_id = ?1",
        )
        .and_then(|mut s| {
            s.query_row(params![request_id], |row| {
                Ok((
                    row.get::<_, Vec<u8>>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, Vec<u8>>(2)?,
                ))
            })
            .optional()
        })
        .map_err(db_error)?;
    let Some((hash, match_id, response)) = row else {
        return Ok(None);
    };
    let request_hash = <[u8; 32]>::try_from(hash.as_slice())
        .map_err(|_| unreadable(&match_id, "request hash", "not 32 bytes"))?;
    Ok(Some(StoredRequest {
        request_id: request_id.to_string(),
        request_hash,
        match_id,
        response,
    }))
}

/// Every issued credential, oldest first.
pub(super) fn credentials(conn: &Connection) -> HostResult<Vec<StoredCredential>> {
    let mut statement = conn
        .prepare_cached(
            "SELECT credential_id, name, role, secret_hash, issued_at_ms, revoked_at_ms, \
             tenant FROM credentials ORDER BY issued_at_ms, credential_id",
        )
        .map_err(db_error)?;
    let rows = statement
        .query_map([], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, Vec<u8>>(3)?,
                row.get::<_, i64>(4)?,
                row.get::<_, Option<i64>>(5)?,
                row.get::<_, String>(6)?,
            ))
        })
        .map_err(db_error)?;
    let mut out = Vec::new();
    for row in rows {
        let (credential_id, name, role, hash, issued_at_ms, revoked_at_ms, tenant) =
            row.map_err(db_error)?;
        let secret_hash = <[u8; 32]>::try_from(hash.as_slice()).map_err(|_| {
            HostError::Internal(format!(
                "the match store's credential {credential_id} has a malformed secret hash"
            ))
        })?;
        out.push(StoredCredential {
            credential_id,
            name,
            role,
            secret_hash,
            issued_at_ms,
            revoked_at_ms,
            tenant,
        });
    }
    Ok(out)
}
