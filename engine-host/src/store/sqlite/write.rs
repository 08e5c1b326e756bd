//! The SQLite store's writes: each applied inside the writer's transaction
//! (and a savepoint of its own when a batch must fail one write alone).

use rusqlite::{Connection, params};
use tabletop_core::{HostError, HostResult, LogEntry, SeatJoin};

use super::{db_error, json_error};
pub(super) use crate::store::queued::Write;
use crate::store::{LifecycleEvent, LifecycleKind, ListedState, StoredMatch, StoredRequest};

/// The `state` column's value for a listed state. The column is plain
/// text with no constraint, so `quarantined` is a value like the others.
pub(super) fn state_name(state: ListedState) -> &'static str {
    match state {
        ListedState::Waiting => "waiting",
        ListedState::Running => "running",
        ListedState::Quarantined => "quarantined",
        ListedState::Finished => "finished",
    }
}

/// Runs `sql` through the connection's statement cache: every action runs
/// the same few statements, and compiling them each time cost more than
/// running them.
fn cached(conn: &Connection, sql: &str, params: impl rusqlite::Params) -> HostResult<usize> {
    conn.prepare_cached(sql)
        .and_then(|mut statement| statement.execute(params))
        .map_err(db_error)
}

fn to_json(value: &impl serde::Serialize) -> HostResult<String> {
    serde_json::to_string(value).map_err(json_error)
}

pub(super) fn apply(conn: &Connection, write: &Write) -> HostResult<()> {
    match write {
        Write::Create {
            stored,
            lifecycle,
            request,
        } => create(conn, stored, lifecycle, request.as_ref()),
        Write::Append {
            match_id,
            entries,
            pending,
            results,
            lifecycle,
            finished_log,
        } => {
            insert_log(conn, match_id, entries)?;
            let pending = pending.as_ref().map(to_json).transpose()?;
            let finished = finished_log
                .is_some()
                .then(|| -> HostResult<_> {
                    let log = finished_log.as_deref().unwrap_or(&[]);
                    Ok((to_json(results)?, to_json(&log)?, log.len() as i64))
                })
                .transpose()?;
            let changed = match (pending, finished) {
                // Most actions of most games: new log rows and nothing else.
                // The log's foreign key still refuses an unknown match.
                (None, None) if !entries.is_empty() => 1,
                (None, None) => cached(
                    conn,
                    "UPDATE matches SET match_id = match_id WHERE match_id = ?1",
                    params![match_id],
                )?,
                (Some(pending), None) => cached(
                    conn,
                    "UPDATE matches SET pending_json = ?2 WHERE match_id = ?1",
                    params![match_id, pending],
                )?,
                // The match ends: its whole log is kept in its row, so that
                // reading it back by id is one row.
                (pending, Some((results, log, version))) => cached(
                    conn,
                    "UPDATE matches SET pending_json = COALESCE(?2, pending_json), \
                     results_json = ?3, state = 'finished', log_json = ?4, final_version = ?5 \
                     WHERE match_id = ?1",
                    params![match_id, pending, results, log, version],
                )?,
            };
            if changed != 1 {
                return Err(HostError::Internal(format!(
                    "the match store has no match {match_id}"
                )));
            }
            // A match that starts with seats never taken (the open-seat
            // deadline) starts in an append, not a join.
            if lifecycle
                .iter()
                .any(|e| matches!(e.kind, LifecycleKind::Started))
            {
                cached(
                    conn,
                    "UPDATE matches SET state = 'running' WHERE match_id = ?1 AND state = 'waiting'",
                    params![match_id],
                )?;
            }
            for event in lifecycle {
                match event.kind {
                    LifecycleKind::Quarantined { .. } => cached(
                        conn,
                        "UPDATE matches SET state = 'quarantined' \
                         WHERE match_id = ?1 AND state IN ('waiting', 'running')",
                        params![match_id],
                    )?,
                    // Back to its stage: only a running match is released.
                    LifecycleKind::Released => cached(
                        conn,
                        "UPDATE matches SET state = 'running' \
                         WHERE match_id = ?1 AND state = 'quarantined'",
                        params![match_id],
                    )?,
                    _ => 0,
                };
            }
            insert_lifecycle(conn, lifecycle)
        }
        Write::Join {
            match_id,
            join,
            token_hash,
            lifecycle,
        } => {
            let seat = join.seat;
            let changed = cached(
                conn,
                "UPDATE seats SET token_hash = ?3, joined_at_ms = ?4, join_order = \
                 (SELECT COUNT(*) FROM seats WHERE match_id = ?1 AND join_order IS NOT NULL), \
                 join_code_hash = NULL, display_name = ?5, external_id = ?6, bot = ?7 \
                 WHERE match_id = ?1 AND seat = ?2",
                params![
                    match_id,
                    seat as i64,
                    token_hash.to_vec(),
                    join.at_ms,
                    Some(&join.display_name).filter(|s| !s.is_empty()),
                    Some(&join.external_id).filter(|s| !s.is_empty()),
                    Some(&join.bot).filter(|s| !s.is_empty())
                ],
            )?;
            if changed != 1 {
                return Err(HostError::Internal(format!(
                    "the match store has no seat {seat} in match {match_id}"
                )));
            }
            cached(
                conn,
                "UPDATE matches SET state = 'running' WHERE match_id = ?1 AND state = 'waiting' \
                 AND NOT EXISTS (SELECT 1 FROM seats \
                                 WHERE match_id = ?1 AND token_hash IS NULL)",
                params![match_id],
            )?;
            insert_lifecycle(conn, lifecycle)
        }
        Write::Reissue {
            match_id,
            seat,
            token_hash,
        } => {
            let changed = cached(
                conn,
                "UPDATE seats SET token_hash = ?3 \
                 WHERE match_id = ?1 AND seat = ?2 AND token_hash IS NOT NULL",
                params![match_id, *seat as i64, token_hash.to_vec()],
            )?;
            if changed != 1 {
                return Err(HostError::Internal(format!(
                    "the match store has no taken seat {seat} in match {match_id}"
                )));
            }
            Ok(())
        }
        Write::IssueCredential(c) => cached(
            conn,
            "INSERT INTO credentials \
             (credential_id, name, role, secret_hash, issued_at_ms, revoked_at_ms, tenant) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                c.credential_id,
                c.name,
                c.role,
                c.secret_hash.to_vec(),
                c.issued_at_ms,
                c.revoked_at_ms,
                c.tenant
            ],
        )
        .map(drop),
        Write::RevokeCredential {
            credential_id,
            at_ms,
        } => cached(
            conn,
            "UPDATE credentials SET revoked_at_ms = COALESCE(revoked_at_ms, ?2) \
             WHERE credential_id = ?1",
            params![credential_id, at_ms],
        )
        .map(drop),
    }
}

fn create(
    conn: &Connection,
    stored: &StoredMatch,
    lifecycle: &[LifecycleEvent],
    request: Option<&StoredRequest>,
) -> HostResult<()> {
    let setup = &stored.setup;
    let state = stored.listed_state();
    let finished = state == ListedState::Finished;
    cached(
        conn,
        "INSERT INTO matches (match_id, setup_json, pending_json, results_json, game, state, \
         created_at_ms, first_log_seq, final_version, log_json, plugin_sha256) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, (SELECT COALESCE(MAX(rowid), 0) + 1 FROM log), \
         ?8, ?9, ?10)",
        params![
            setup.match_id,
            to_json(setup)?,
            to_json(&stored.pending)?,
            to_json(&stored.results)?,
            setup.game,
            state_name(state),
            setup.created_at_ms,
            finished.then_some(stored.log.len() as i64),
            finished.then(|| to_json(&stored.log)).transpose()?,
            setup.plugin_sha256,
        ],
    )?;
    for (seat, hash) in stored.seat_hashes.iter().enumerate() {
        let joined = stored
            .joins
            .iter()
            .position(|j| j.seat as usize == seat)
            .map(|order| (&stored.joins[order], order as i64));
        let code = stored.join_code_hashes.get(seat).copied().flatten();
        let named = |field: fn(&SeatJoin) -> &String| {
            joined
                .map(|(join, _)| field(join))
                .filter(|s| !s.is_empty())
        };
        cached(
            conn,
            "INSERT INTO seats (match_id, seat, token_hash, joined_at_ms, join_order, \
             join_code_hash, display_name, external_id, bot) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                setup.match_id,
                seat as i64,
                hash.map(|h| h.to_vec()),
                joined.map(|(join, _)| join.at_ms),
                joined.map(|(_, order)| order),
                code.map(|h| h.to_vec()),
                named(|j| &j.display_name),
                named(|j| &j.external_id),
                named(|j| &j.bot)
            ],
        )?;
    }
    for (key, value) in &setup.labels {
        cached(
            conn,
            "INSERT INTO match_labels (match_id, key, value) VALUES (?1, ?2, ?3)",
            params![setup.match_id, key, value],
        )?;
    }
    insert_log(conn, &setup.match_id, &stored.log)?;
    if let Some(request) = request {
        cached(
            conn,
            "INSERT INTO requests (request_id, request_hash, match_id, response) \
             VALUES (?1, ?2, ?3, ?4)",
            params![
                request.request_id,
                request.request_hash.to_vec(),
                request.match_id,
                request.response
            ],
        )?;
    }
    insert_lifecycle(conn, lifecycle)
}

fn insert_log(conn: &Connection, match_id: &str, entries: &[LogEntry]) -> HostResult<()> {
    for entry in entries {
        cached(
            conn,
            "INSERT INTO log (match_id, version, entry_json) VALUES (?1, ?2, ?3)",
            params![match_id, entry.version as i64, to_json(entry)?],
        )?;
    }
    Ok(())
}

fn insert_lifecycle(conn: &Connection, events: &[LifecycleEvent]) -> HostResult<()> {
    for event in events {
        cached(
            conn,
            "INSERT INTO lifecycle (match_id, event_json) VALUES (?1, ?2)",
            params![event.match_id, to_json(event)?],
        )?;
    }
    Ok(())
}
