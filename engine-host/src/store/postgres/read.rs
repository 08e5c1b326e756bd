//! The PostgreSQL store's reads, each on a pooled connection. A read of
//! several statements runs in one read-only REPEATABLE READ transaction,
//! so it sees one commit of the writer's or the next, never half of one.

use std::collections::HashMap;

use postgres::types::ToSql;
use postgres::{IsolationLevel, Row};
use tabletop_core::{HeldAction, HostError, HostResult, LogEntry, MatchSetup, SeatJoin};

use super::apply::state_name;
use super::connect::{Connection, Prepared, db_error};
use crate::store::{
    DamagedMatch, LifecycleRow, ListedState, MatchQuery, StoredCredential, StoredMatch,
    StoredRequest, StoredSummary, damaged_setup,
};
use tabletop_core::quote::quote;

/// Runs `read` in a read-only snapshot of the database.
fn in_snapshot<T>(
    connection: &mut Connection,
    read: impl FnOnce(&mut Prepared<'_, postgres::Transaction<'_>>) -> HostResult<T>,
) -> HostResult<T> {
    let Connection { client, statements } = connection;
    // BEGIN and COMMIT.
    super::connect::round_trips(2);
    let mut tx = client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .map_err(db_error)?;
    let answer = read(&mut Prepared {
        client: &mut tx,
        statements,
    })?;
    tx.commit().map_err(db_error)?;
    Ok(answer)
}

/// Statements on the connection itself, for reads of one statement.
pub(super) fn direct(connection: &mut Connection) -> Prepared<'_, postgres::Client> {
    Prepared {
        client: &mut connection.client,
        statements: &mut connection.statements,
    }
}

/// The error for a part of a stored match that does not read back.
fn unreadable(match_id: &str, what: &str, e: impl std::fmt::Display) -> HostError {
    HostError::MatchUnavailable {
        match_id: match_id.to_string(),
        reason: format!(
            "its stored {what} does not read back ({}); the match store is damaged",
            quote(&e.to_string())
        ),
    }
}

const MATCH_COLUMNS: &str = "match_id, setup_json, pending_json, results_json, game, created_at_ms";

/// A `matches` row, before its seats and log are read.
struct MatchRow {
    match_id: String,
    setup: String,
    pending: String,
    results: String,
    game: String,
    created_at_ms: i64,
}

impl MatchRow {
    fn of(row: &Row) -> MatchRow {
        MatchRow {
            match_id: row.get(0),
            setup: row.get(1),
            pending: row.get(2),
            results: row.get(3),
            game: row.get(4),
            created_at_ms: row.get(5),
        }
    }

    fn damaged(&self, reason: String) -> DamagedMatch {
        DamagedMatch {
            match_id: self.match_id.clone(),
            game: self.game.clone(),
            created_at_ms: self.created_at_ms,
            reason,
        }
    }
}

type Db<'a, 'b> = Prepared<'a, postgres::Transaction<'b>>;

/// One match by id.
pub(super) fn load(connection: &mut Connection, match_id: &str) -> HostResult<Option<StoredMatch>> {
    in_snapshot(connection, |db| {
        let Some(row) = db.query_opt(
            &format!("SELECT {MATCH_COLUMNS} FROM matches WHERE match_id = $1"),
            &[&match_id],
        )?
        else {
            return Ok(None);
        };
        let row = MatchRow::of(&row);
        let ids = [match_id.to_string()];
        let mut logs = logs_of(db, &ids)?;
        let mut seats = seats_of(db, &ids)?;
        assemble(row, &mut logs, &mut seats).map(Some)
    })
}

/// Every match not finished, oldest first; one whose data does not read
/// back is answered as damaged.
pub(super) fn load_unfinished(
    connection: &mut Connection,
) -> HostResult<Vec<Result<StoredMatch, DamagedMatch>>> {
    in_snapshot(connection, |db| {
        let rows: Vec<MatchRow> = db
            .query(
                &format!(
                    "SELECT {MATCH_COLUMNS} FROM matches WHERE state <> 'finished' \
                     ORDER BY created_at_ms, match_id"
                ),
                &[],
            )?
            .iter()
            .map(MatchRow::of)
            .collect();
        let ids: Vec<String> = rows.iter().map(|r| r.match_id.clone()).collect();
        let mut logs = logs_of(db, &ids)?;
        let mut seats = seats_of(db, &ids)?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let placeholder = row.damaged(String::new());
            match assemble(row, &mut logs, &mut seats) {
                Ok(stored) => out.push(Ok(stored)),
                Err(HostError::MatchUnavailable { reason, .. }) => out.push(Err(DamagedMatch {
                    reason,
                    ..placeholder
                })),
                Err(other) => return Err(other),
            }
        }
        Ok(out)
    })
}

/// The log entries of the matches `ids`, each match's in version order
/// (its rows are one range of the log's key); an entry that does not read
/// back makes its match's log the error.
fn logs_of(
    db: &mut Db<'_, '_>,
    ids: &[String],
) -> HostResult<HashMap<String, Result<Vec<LogEntry>, HostError>>> {
    let mut logs: HashMap<String, Result<Vec<LogEntry>, HostError>> = HashMap::new();
    if ids.is_empty() {
        return Ok(logs);
    }
    let rows = db.query(
        "SELECT match_id, version, entry_json FROM log WHERE match_id = ANY($1) \
         ORDER BY match_id, version",
        &[&ids],
    )?;
    for row in rows {
        let match_id: String = row.get(0);
        let version: i64 = row.get(1);
        let text: String = row.get(2);
        let log = logs
            .entry(match_id.clone())
            .or_insert_with(|| Ok(Vec::new()));
        let Ok(entries) = log else { continue };
        // Versions run 1, 2, 3, …: one missing is a log no replay crosses.
        let expected = entries.len() as i64 + 1;
        if version != expected {
            *log = Err(unreadable(
                &match_id,
                "log",
                format!("version {expected} is missing"),
            ));
            continue;
        }
        match serde_json::from_str::<LogEntry>(&text) {
            Ok(entry) => entries.push(entry),
            Err(e) => *log = Err(unreadable(&match_id, "log entry", e)),
        }
    }
    Ok(logs)
}

/// A seat's columns as stored.
struct SeatRow {
    seat: i64,
    token_hash: Option<Vec<u8>>,
    joined_at_ms: Option<i64>,
    join_order: Option<i64>,
    join_code_hash: Option<Vec<u8>>,
    display_name: Option<String>,
    external_id: Option<String>,
    bot: Option<String>,
}

/// The seat rows of the matches `ids`, each match's in seat order.
fn seats_of(db: &mut Db<'_, '_>, ids: &[String]) -> HostResult<HashMap<String, Vec<SeatRow>>> {
    let mut seats: HashMap<String, Vec<SeatRow>> = HashMap::new();
    if ids.is_empty() {
        return Ok(seats);
    }
    let rows = db.query(
        "SELECT match_id, seat, token_hash, joined_at_ms, join_order, join_code_hash, \
         display_name, external_id, bot FROM seats WHERE match_id = ANY($1) \
         ORDER BY match_id, seat",
        &[&ids],
    )?;
    for row in rows {
        seats.entry(row.get(0)).or_default().push(SeatRow {
            seat: row.get(1),
            token_hash: row.get(2),
            joined_at_ms: row.get(3),
            join_order: row.get(4),
            join_code_hash: row.get(5),
            display_name: row.get(6),
            external_id: row.get(7),
            bot: row.get(8),
        });
    }
    Ok(seats)
}

/// A match from its row, its seats and its log, taken out of the maps
/// read for it. Data that does not read back answers
/// [`HostError::MatchUnavailable`].
fn assemble(
    row: MatchRow,
    logs: &mut HashMap<String, Result<Vec<LogEntry>, HostError>>,
    seats: &mut HashMap<String, Vec<SeatRow>>,
) -> HostResult<StoredMatch> {
    let id = row.match_id.as_str();
    let log = logs.remove(id).unwrap_or(Ok(Vec::new()))?;
    let setup: MatchSetup =
        serde_json::from_str(&row.setup).map_err(|e| unreadable(id, "setup", e))?;
    let pending: Vec<HeldAction> =
        serde_json::from_str(&row.pending).map_err(|e| unreadable(id, "held actions", e))?;
    let results = serde_json::from_str(&row.results).map_err(|e| unreadable(id, "results", e))?;
    let seat_rows = seats.remove(id).unwrap_or_default();
    let hash_of = |bytes: Option<Vec<u8>>, what: &str| -> HostResult<Option<[u8; 32]>> {
        bytes
            .map(|bytes| {
                <[u8; 32]>::try_from(bytes.as_slice())
                    .map_err(|_| unreadable(id, what, "not 32 bytes"))
            })
            .transpose()
    };
    let mut seat_hashes = Vec::with_capacity(seat_rows.len());
    let mut join_code_hashes = Vec::with_capacity(seat_rows.len());
    let mut joins = Vec::new();
    for seat in seat_rows {
        if let (Some(at_ms), Some(order)) = (seat.joined_at_ms, seat.join_order) {
            joins.push((
                order,
                SeatJoin {
                    seat: seat.seat as u32,
                    at_ms,
                    display_name: seat.display_name.unwrap_or_default(),
                    external_id: seat.external_id.unwrap_or_default(),
                    bot: seat.bot.unwrap_or_default(),
                },
            ));
        }
        seat_hashes.push(hash_of(seat.token_hash, "token hash")?);
        join_code_hashes.push(hash_of(seat.join_code_hash, "join code hash")?);
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

/// A listed match's state as its `state` column says.
fn listed_state(state: &str) -> ListedState {
    match state {
        "waiting" => ListedState::Waiting,
        "running" => ListedState::Running,
        "quarantined" => ListedState::Quarantined,
        _ => ListedState::Finished,
    }
}

/// A page of matches (see [`MatchQuery`]).
pub(super) fn list(
    connection: &mut Connection,
    query: &MatchQuery,
) -> HostResult<Vec<StoredSummary>> {
    let (after_at, after_id) = match &query.after {
        Some((at, id)) => (Some(*at), Some(id.clone())),
        None => (None, None),
    };
    let limit = i64::try_from(query.limit).unwrap_or(i64::MAX);
    let state = query.state.map(|s| state_name(s).to_string());
    let mut values: Vec<Box<dyn ToSql + Sync>> = vec![
        Box::new(query.game.clone()),
        Box::new(state),
        Box::new(query.created_from_ms),
        Box::new(query.created_before_ms),
        Box::new(after_at),
        Box::new(after_id),
        Box::new(limit),
    ];
    // One EXISTS per label asked for; the statement's text (and so its
    // prepared plan) depends only on how many.
    let mut labels = String::new();
    for (key, value) in &query.labels {
        let n = values.len();
        labels.push_str(&format!(
            " AND EXISTS (SELECT 1 FROM match_labels l WHERE l.match_id = m.match_id \
             AND l.key = ${} AND l.value = ${})",
            n + 1,
            n + 2
        ));
        values.push(Box::new(key.clone()));
        values.push(Box::new(value.clone()));
    }
    let sql = format!(
        "SELECT m.setup_json, m.state, m.final_version, \
                ARRAY(SELECT s.seat FROM seats s \
                      WHERE s.match_id = m.match_id AND s.token_hash IS NULL ORDER BY s.seat), \
                m.match_id, m.game, m.created_at_ms \
         FROM matches m \
         WHERE ($1::TEXT IS NULL OR m.game = $1) AND ($2::TEXT IS NULL OR m.state = $2) \
           AND ($3::BIGINT IS NULL OR m.created_at_ms >= $3) \
           AND ($4::BIGINT IS NULL OR m.created_at_ms < $4) \
           AND ($5::BIGINT IS NULL OR (m.created_at_ms, m.match_id) > ($5, $6::TEXT)){labels} \
         ORDER BY m.created_at_ms, m.match_id LIMIT $7"
    );
    let params: Vec<&(dyn ToSql + Sync)> = values.iter().map(|v| v.as_ref()).collect();
    let rows = direct(connection).query(&sql, &params)?;
    Ok(rows
        .iter()
        .map(|row| {
            let match_id: String = row.get(4);
            let game: String = row.get(5);
            let created_at_ms: i64 = row.get(6);
            let setup_json: String = row.get(0);
            // A setup that does not read back lists the match as
            // unavailable, with what its other columns say.
            let (setup, unreadable) = match serde_json::from_str::<MatchSetup>(&setup_json) {
                Ok(setup) => (setup, None),
                Err(e) => (
                    damaged_setup(&match_id, &game, created_at_ms),
                    Some(format!(
                        "its stored setup does not read back ({})",
                        quote(&e.to_string())
                    )),
                ),
            };
            let open: Vec<i64> = row.get(3);
            StoredSummary {
                setup,
                state: listed_state(row.get(1)),
                final_version: row.get::<_, Option<i64>>(2).map(|v| v as u64),
                open_seats: open.into_iter().map(|s| s as u32).collect(),
                unreadable,
            }
        })
        .collect())
}

/// Up to `limit` lifecycle rows after `after_seq`. A row that does not
/// read back is logged and stepped over.
pub(super) fn lifecycle_after(
    connection: &mut Connection,
    after_seq: u64,
    limit: usize,
) -> HostResult<Vec<LifecycleRow>> {
    let after = i64::try_from(after_seq).unwrap_or(i64::MAX);
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let rows = direct(connection).query(
        "SELECT seq, event_json FROM lifecycle WHERE seq > $1 ORDER BY seq LIMIT $2",
        &[&after, &limit],
    )?;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let seq: i64 = row.get(0);
        let json: String = row.get(1);
        match serde_json::from_str(&json) {
            Ok(event) => out.push(LifecycleRow {
                seq: seq as u64,
                event,
            }),
            Err(e) => tracing::error!(
                seq,
                "the match store's lifecycle row {seq} does not read back ({}); the feed goes \
                 on without it",
                quote(&e.to_string())
            ),
        }
    }
    Ok(out)
}

/// The number of the last lifecycle row committed.
pub(super) fn last_lifecycle_row(connection: &mut Connection) -> HostResult<u64> {
    let row = direct(connection)
        .query_opt("SELECT last_seq FROM lifecycle_counter", &[])?
        .ok_or_else(|| HostError::Internal("the match store lacks its lifecycle counter".into()))?;
    Ok(row.get::<_, i64>(0) as u64)
}

/// The key named `name`: the one stored, or `proposed`, stored now when
/// none was (a host starting beside it stores its own or finds this one).
pub(super) fn shared_key(
    connection: &mut Connection,
    name: &str,
    proposed: [u8; 32],
) -> HostResult<[u8; 32]> {
    let mut db = direct(connection);
    db.execute(
        "INSERT INTO shared_keys (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
        &[&name, &proposed.as_slice()],
    )?;
    let row = db
        .query_opt("SELECT value FROM shared_keys WHERE name = $1", &[&name])?
        .ok_or_else(|| HostError::Internal(format!("the match store lost its key {name}")))?;
    let value: Vec<u8> = row.get(0);
    <[u8; 32]>::try_from(value.as_slice()).map_err(|_| {
        HostError::Internal(format!(
            "the match store's key {name} is {} bytes, not 32",
            value.len()
        ))
    })
}

/// The request stored under `request_id`.
pub(super) fn request(
    connection: &mut Connection,
    request_id: &str,
) -> HostResult<Option<StoredRequest>> {
    let Some(row) = direct(connection).query_opt(
        "SELECT request_hash, match_id, response FROM requests WHERE request_id = $1",
        &[&request_id],
    )?
    else {
        return Ok(None);
    };
    let hash: Vec<u8> = row.get(0);
    let match_id: String = row.get(1);
    let request_hash = <[u8; 32]>::try_from(hash.as_slice())
        .map_err(|_| unreadable(&match_id, "request hash", "not 32 bytes"))?;
    Ok(Some(StoredRequest {
        request_id: request_id.to_string(),
        request_hash,
        match_id,
        response: row.get(2),
    }))
}

/// Every issued credential, oldest first. One whose hash is not 32 bytes
/// is logged and left out: its holder is refused until the admin issues a
/// new one.
pub(super) fn credentials(connection: &mut Connection) -> HostResult<Vec<StoredCredential>> {
    let rows = direct(connection).query(
        "SELECT credential_id, name, role, secret_hash, issued_at_ms, revoked_at_ms, tenant \
         FROM credentials ORDER BY issued_at_ms, credential_id",
        &[],
    )?;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let credential_id: String = row.get(0);
        let hash: Vec<u8> = row.get(3);
        let Ok(secret_hash) = <[u8; 32]>::try_from(hash.as_slice()) else {
            tracing::error!(
                credential = %credential_id,
                "the match store's credential {credential_id} has a malformed hash; its holder \
                 is refused until the admin issues a new one"
            );
            continue;
        };
        out.push(StoredCredential {
            credential_id,
            name: row.get(1),
            role: row.get(2),
            secret_hash,
            issued_at_ms: row.get(4),
            revoked_at_ms: row.get(5),
            tenant: row.get(6),
        });
    }
    Ok(out)
}
