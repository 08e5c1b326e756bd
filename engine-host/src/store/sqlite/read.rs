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
use tabletop_core::{HeldAction, HostError, HostResult, Lifecycle, LogEntry, SeatJoin};

use super::write::state_name;
use super::{db_error, json_error};
use crate::store::{
    LifecycleRow, MatchQuery, StoredCredential, StoredMatch, StoredRequest, StoredSummary,
};

/// A `matches` row, before its seats and log are read.
struct MatchRow {
    match_id: String,
    setup: String,
    pending: String,
    results: String,
    first_log_seq: i64,
    log_json: Option<String>,
}

const MATCH_COLUMNS: &str =
    "match_id, setup_json, pending_json, results_json, first_log_seq, log_json";

fn match_row(row: &Row<'_>) -> rusqlite::Result<MatchRow> {
    Ok(MatchRow {
        match_id: row.get(0)?,
        setup: row.get(1)?,
        pending: row.get(2)?,
        results: row.get(3)?,
        first_log_seq: row.get::<_, Option<i64>>(4)?.unwrap_or(0),
        log_json: row.get(5)?,
    })
}

fn unreadable(match_id: &str, what: &str, e: impl std::fmt::Display) -> HostError {
    HostError::Internal(format!(
        "the match store holds an unreadable {what} for match {match_id}: {e}"
    ))
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
        None => Some(log_rows(conn, row.first_log_seq, Some(match_id))?),
    };
    let mut logs = log
        .map(|log| HashMap::from([(match_id.to_string(), log)]))
        .unwrap_or_default();
    assemble(conn, row, &mut logs).map(Some)
}

/// Every match not finished, with one pass over the log rows they need.
pub(super) fn load_unfinished(conn: &Connection) -> HostResult<Vec<StoredMatch>> {
    let rows = conn
        .prepare(&format!(
            "SELECT {MATCH_COLUMNS} FROM matches WHERE state IN ('waiting', 'running') \
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
    let mut logs = if rows.is_empty() {
        HashMap::new()
    } else {
        log_rows_by_match(conn, from)?
    };
    rows.into_iter()
        .map(|row| assemble(conn, row, &mut logs))
        .collect()
}

/// The log of one match from its rows in `log`, in the order written.
fn log_rows(conn: &Connection, from: i64, match_id: Option<&str>) -> HostResult<Vec<LogEntry>> {
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
            .map_err(db_error)?;
        log.push(
            serde_json::from_str(text)
                .map_err(|e| unreadable(match_id.unwrap_or_default(), "log entry", e))?,
        );
    }
    Ok(log)
}

/// Every log row from `from` on, by match, in the order written.
fn log_rows_by_match(conn: &Connection, from: i64) -> HostResult<HashMap<String, Vec<LogEntry>>> {
    let mut logs: HashMap<String, Vec<LogEntry>> = HashMap::new();
    let mut statement = conn
        .prepare("SELECT match_id, entry_json FROM log WHERE rowid >= ?1 ORDER BY rowid")
        .map_err(db_error)?;
    let mut rows = statement.query(params![from]).map_err(db_error)?;
    while let Some(row) = rows.next().map_err(db_error)? {
        // Borrowed from the row: no String per column of every entry.
        let text = |column| {
            row.get_ref(column)
                .and_then(|v| Ok(v.as_str()?))
                .map_err(db_error)
        };
        let match_id = text(0)?;
        let entry: LogEntry =
            serde_json::from_str(text(1)?).map_err(|e| unreadable(match_id, "log entry", e))?;
        match logs.get_mut(match_id) {
            Some(entries) => entries.push(entry),
            None => {
                logs.insert(match_id.to_string(), vec![entry]);
            }
        }
    }
    Ok(logs)
}

/// A match from its row, its seats, and its log (from `log_json`, or taken
/// from `logs`).
fn assemble(
    conn: &Connection,
    row: MatchRow,
    logs: &mut HashMap<String, Vec<LogEntry>>,
) -> HostResult<StoredMatch> {
    let id = row.match_id.as_str();
    let setup = serde_json::from_str(&row.setup).map_err(|e| unreadable(id, "setup", e))?;
    let pending: Vec<HeldAction> =
        serde_json::from_str(&row.pending).map_err(|e| unreadable(id, "held actions", e))?;
    let results = serde_json::from_str(&row.results).map_err(|e| unreadable(id, "results", e))?;
    let log = match &row.log_json {
        Some(json) => serde_json::from_str(json).map_err(|e| unreadable(id, "log", e))?,
        None => logs.remove(id).unwrap_or_default(),
    };
    let seat_rows = conn
        .prepare_cached(
            "SELECT seat, token_hash, joined_at_ms, join_order, join_code_hash, display_name, \
             external_id FROM seats WHERE match_id = ?1 ORDER BY seat",
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
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()
        })
        .map_err(db_error)?;
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
    for (seat, hash, joined_at_ms, join_order, code, display_name, external_id) in seat_rows {
        if let (Some(at_ms), Some(order)) = (joined_at_ms, join_order) {
            joins.push((
                order,
                SeatJoin {
                    seat: seat as u32,
                    at_ms,
                    display_name: display_name.unwrap_or_default(),
                    external_id: external_id.unwrap_or_default(),
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
            "SELECT m.setup_json, m.state, m.final_version, \
                    (SELECT group_concat(seat) FROM seats s \
                     WHERE s.match_id = m.match_id AND s.token_hash IS NULL) \
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
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, Option<i64>>(2)?,
                row.get::<_, Option<String>>(3)?,
            ))
        })
        .map_err(db_error)?;
    let mut out = Vec::new();
    for row in rows {
        let (setup, state, final_version, open) = row.map_err(db_error)?;
        let setup: tabletop_core::MatchSetup = serde_json::from_str(&setup).map_err(json_error)?;
        let state = match state.as_str() {
            "waiting" => Lifecycle::Waiting,
            "running" => Lifecycle::Running,
            _ => Lifecycle::Finished,
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
            "SELECT credential_id, name, role, secret_hash, issued_at_ms, revoked_at_ms \
             FROM credentials ORDER BY issued_at_ms, credential_id",
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
            ))
        })
        .map_err(db_error)?;
    let mut out = Vec::new();
    for row in rows {
        let (credential_id, name, role, hash, issued_at_ms, revoked_at_ms) =
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
        });
    }
    Ok(out)
}
