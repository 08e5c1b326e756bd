//! The PostgreSQL store's writes: each applied inside the writer's
//! transaction (and a savepoint of its own when a batch must fail one
//! write alone), with the lifecycle rows that describe it.

use postgres::GenericClient;
use tabletop_core::{HostError, HostResult, LogEntry, SeatJoin};

use super::connect::Prepared;
use crate::store::queued::Write;
use crate::store::{
    LifecycleEvent, LifecycleKind, ListedState, StoredCredential, StoredMatch, StoredRequest,
};

/// The `state` column's value for a listed state.
pub(super) fn state_name(state: ListedState) -> &'static str {
    match state {
        ListedState::Waiting => "waiting",
        ListedState::Running => "running",
        ListedState::Quarantined => "quarantined",
        ListedState::Finished => "finished",
    }
}

pub(super) fn to_json(value: &impl serde::Serialize) -> HostResult<String> {
    serde_json::to_string(value)
        .map_err(|e| HostError::Internal(format!("the match store cannot encode a row: {e}")))
}

fn no_match(match_id: &str) -> HostError {
    HostError::Internal(format!("the match store has no match {match_id}"))
}

/// Applies `write`; answers the number of the last lifecycle row it
/// wrote, if it wrote any.
pub(super) fn apply<C: GenericClient>(
    db: &mut Prepared<'_, C>,
    write: &Write,
) -> HostResult<Option<u64>> {
    match write {
        Write::Create {
            stored,
            lifecycle,
            request,
        } => create(db, stored, lifecycle, request.as_ref()),
        Write::Append {
            match_id,
            entries,
            pending,
            results,
            lifecycle,
            finished_log,
        } => {
            let pending = pending.as_ref().map(to_json).transpose()?;
            let finished = match finished_log {
                Some(log) => Some((to_json(results)?, log.len() as i64)),
                None => None,
            };
            let changed = match (&pending, &finished) {
                // Most actions of most games: new log rows and nothing
                // else; the log's insert refuses an unknown match.
                (None, None) if !entries.is_empty() => 1,
                (None, None) => {
                    db.execute("SELECT 1 FROM matches WHERE match_id = $1", &[match_id])?
                }
                (Some(pending), None) => db.execute(
                    "UPDATE matches SET pending_json = $2 WHERE match_id = $1",
                    &[match_id, pending],
                )?,
                (pending, Some((results, version))) => db.execute(
                    "UPDATE matches SET pending_json = COALESCE($2, pending_json), \
                     results_json = $3, state = 'finished', final_version = $4 \
                     WHERE match_id = $1",
                    &[match_id, pending, results, version],
                )?,
            };
            if changed != 1 {
                return Err(no_match(match_id));
            }
            insert_log(db, match_id, entries)?;
            // A match that starts with seats never taken (the open-seat
            // deadline) starts in an append, not a join.
            if lifecycle
                .iter()
                .any(|e| matches!(e.kind, LifecycleKind::Started))
            {
                db.execute(
                    "UPDATE matches SET state = 'running' \
                     WHERE match_id = $1 AND state = 'waiting'",
                    &[match_id],
                )?;
            }
            for event in lifecycle {
                match event.kind {
                    LifecycleKind::Quarantined { .. } => db.execute(
                        "UPDATE matches SET state = 'quarantined' \
                         WHERE match_id = $1 AND state IN ('waiting', 'running')",
                        &[match_id],
                    )?,
                    // Back to its stage: only a running match is released.
                    LifecycleKind::Released => db.execute(
                        "UPDATE matches SET state = 'running' \
                         WHERE match_id = $1 AND state = 'quarantined'",
                        &[match_id],
                    )?,
                    _ => 0,
                };
            }
            insert_lifecycle(db, lifecycle)
        }
        Write::Join {
            match_id,
            join,
            token_hash,
            lifecycle,
        } => {
            let seat = i64::from(join.seat);
            let changed = db.execute(
                "UPDATE seats SET token_hash = $3, joined_at_ms = $4, join_order = \
                 (SELECT COUNT(*) FROM seats WHERE match_id = $1 AND join_order IS NOT NULL), \
                 join_code_hash = NULL, display_name = $5, external_id = $6, bot = $7 \
                 WHERE match_id = $1 AND seat = $2",
                &[
                    match_id,
                    &seat,
                    &token_hash.as_slice(),
                    &join.at_ms,
                    &Some(&join.display_name).filter(|s| !s.is_empty()),
                    &Some(&join.external_id).filter(|s| !s.is_empty()),
                    &Some(&join.bot).filter(|s| !s.is_empty()),
                ],
            )?;
            if changed != 1 {
                return Err(HostError::Internal(format!(
                    "the match store has no seat {seat} in match {match_id}"
                )));
            }
            db.execute(
                "UPDATE matches SET state = 'running' WHERE match_id = $1 AND state = 'waiting' \
                 AND NOT EXISTS (SELECT 1 FROM seats \
                                 WHERE match_id = $1 AND token_hash IS NULL)",
                &[match_id],
            )?;
            insert_lifecycle(db, lifecycle)
        }
        Write::Reissue {
            match_id,
            seat,
            token_hash,
        } => {
            let changed = db.execute(
                "UPDATE seats SET token_hash = $3 \
                 WHERE match_id = $1 AND seat = $2 AND token_hash IS NOT NULL",
                &[match_id, &i64::from(*seat), &token_hash.as_slice()],
            )?;
            if changed != 1 {
                return Err(HostError::Internal(format!(
                    "the match store has no taken seat {seat} in match {match_id}"
                )));
            }
            Ok(None)
        }
        Write::IssueCredential(c) => {
            insert_credential(db, c)?;
            Ok(None)
        }
        Write::RevokeCredential {
            credential_id,
            at_ms,
        } => {
            db.execute(
                "UPDATE credentials SET revoked_at_ms = COALESCE(revoked_at_ms, $2) \
                 WHERE credential_id = $1",
                &[credential_id, at_ms],
            )?;
            Ok(None)
        }
    }
}

fn create<C: GenericClient>(
    db: &mut Prepared<'_, C>,
    stored: &StoredMatch,
    lifecycle: &[LifecycleEvent],
    request: Option<&StoredRequest>,
) -> HostResult<Option<u64>> {
    insert_match(db, stored)?;
    insert_whole_log(db, &stored.setup.match_id, &stored.log)?;
    if let Some(request) = request {
        insert_request(db, request)?;
    }
    insert_lifecycle(db, lifecycle)
}

/// Inserts a match's row, its seats and its labels (not its log).
pub(super) fn insert_match<C: GenericClient>(
    db: &mut Prepared<'_, C>,
    stored: &StoredMatch,
) -> HostResult<()> {
    let setup = &stored.setup;
    let state = stored.listed_state();
    let finished = state == ListedState::Finished;
    db.execute(
        "INSERT INTO matches (match_id, setup_json, pending_json, results_json, game, state, \
         created_at_ms, final_version, plugin_sha256) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        &[
            &setup.match_id,
            &to_json(setup)?,
            &to_json(&stored.pending)?,
            &to_json(&stored.results)?,
            &setup.game,
            &state_name(state),
            &setup.created_at_ms,
            &finished.then_some(stored.log.len() as i64),
            &setup.plugin_sha256,
        ],
    )?;
    // Every seat in one statement, column by column.
    let mut seats = SeatColumns::default();
    for (seat, hash) in stored.seat_hashes.iter().enumerate() {
        let joined = stored
            .joins
            .iter()
            .position(|j| j.seat as usize == seat)
            .map(|order| (&stored.joins[order], order as i64));
        let named = |field: fn(&SeatJoin) -> &String| {
            joined
                .map(|(join, _)| field(join).clone())
                .filter(|s| !s.is_empty())
        };
        seats.seat.push(seat as i64);
        seats.token_hash.push(hash.map(|h| h.to_vec()));
        seats.joined_at_ms.push(joined.map(|(join, _)| join.at_ms));
        seats.join_order.push(joined.map(|(_, order)| order));
        seats.join_code_hash.push(
            stored
                .join_code_hashes
                .get(seat)
                .copied()
                .flatten()
                .map(|h| h.to_vec()),
        );
        seats.display_name.push(named(|j| &j.display_name));
        seats.external_id.push(named(|j| &j.external_id));
        seats.bot.push(named(|j| &j.bot));
    }
    db.execute(
        "INSERT INTO seats (match_id, seat, token_hash, joined_at_ms, join_order, \
         join_code_hash, display_name, external_id, bot) \
         SELECT $1::TEXT, * FROM unnest($2::BIGINT[], $3::BYTEA[], $4::BIGINT[], $5::BIGINT[], \
         $6::BYTEA[], $7::TEXT[], $8::TEXT[], $9::TEXT[])",
        &[
            &setup.match_id,
            &seats.seat,
            &seats.token_hash,
            &seats.joined_at_ms,
            &seats.join_order,
            &seats.join_code_hash,
            &seats.display_name,
            &seats.external_id,
            &seats.bot,
        ],
    )?;
    if !setup.labels.is_empty() {
        let (keys, values): (Vec<&str>, Vec<&str>) = setup
            .labels
            .iter()
            .map(|(key, value)| (key.as_str(), value.as_str()))
            .unzip();
        db.execute(
            "INSERT INTO match_labels (match_id, key, value) \
             SELECT $1::TEXT, * FROM unnest($2::TEXT[], $3::TEXT[])",
            &[&setup.match_id, &keys, &values],
        )?;
    }
    Ok(())
}

/// A match's seats, column by column, for one insert.
#[derive(Default)]
struct SeatColumns {
    seat: Vec<i64>,
    token_hash: Vec<Option<Vec<u8>>>,
    joined_at_ms: Vec<Option<i64>>,
    join_order: Vec<Option<i64>>,
    join_code_hash: Vec<Option<Vec<u8>>>,
    display_name: Vec<Option<String>>,
    external_id: Vec<Option<String>>,
    bot: Vec<Option<String>>,
}

/// Inserts a request made idempotent by its id.
pub(super) fn insert_request<C: GenericClient>(
    db: &mut Prepared<'_, C>,
    request: &StoredRequest,
) -> HostResult<()> {
    db.execute(
        "INSERT INTO requests (request_id, request_hash, match_id, response) \
         VALUES ($1, $2, $3, $4)",
        &[
            &request.request_id,
            &request.request_hash.as_slice(),
            &request.match_id,
            &request.response,
        ],
    )?;
    Ok(())
}

/// Inserts a new match's whole log in one statement: an imported record
/// is thousands of entries, and each statement is a round trip.
pub(super) fn insert_whole_log<C: GenericClient>(
    db: &mut Prepared<'_, C>,
    match_id: &str,
    log: &[LogEntry],
) -> HostResult<()> {
    if log.is_empty() {
        return Ok(());
    }
    let versions: Vec<i64> = log.iter().map(|e| e.version as i64).collect();
    let entries = log
        .iter()
        .map(to_json)
        .collect::<HostResult<Vec<String>>>()?;
    db.execute(
        "INSERT INTO log (match_id, version, entry_json) \
         SELECT $1::TEXT, version, entry_json \
         FROM unnest($2::BIGINT[], $3::TEXT[]) AS entry(version, entry_json)",
        &[&match_id, &versions, &entries],
    )?;
    Ok(())
}

/// Inserts a match's new log entries. Each must follow a stored entry of
/// the match (or be its first): a write that failed while the server was
/// away leaves the host's match ahead of the store, and the match's next
/// write is then refused rather than leaving a hole in its log that no
/// replay could cross.
fn insert_log<C: GenericClient>(
    db: &mut Prepared<'_, C>,
    match_id: &str,
    entries: &[LogEntry],
) -> HostResult<()> {
    for entry in entries {
        let version = entry.version as i64;
        let inserted = db.execute(
            "INSERT INTO log (match_id, version, entry_json) \
             SELECT $1::TEXT, $2::BIGINT, $3::TEXT WHERE $2::BIGINT = 1 OR EXISTS \
             (SELECT 1 FROM log WHERE match_id = $1::TEXT AND version = $2::BIGINT - 1)",
            &[&match_id, &version, &to_json(entry)?],
        )?;
        if inserted != 1 {
            return Err(missing_version(match_id, entry.version));
        }
    }
    Ok(())
}

/// The refusal of a write whose first entry, `version`, does not follow a
/// stored entry of `match_id`.
pub(super) fn missing_version(match_id: &str, version: u64) -> HostError {
    HostError::Internal(format!(
        "the match store lacks version {} of match {match_id}, so version {version} is \
         refused: an earlier write of the match was not stored",
        version.saturating_sub(1)
    ))
}

/// Inserts lifecycle rows numbered after the last one committed. The
/// counter's row stays locked until the transaction ends, so no other
/// transaction takes numbers before this one commits or rolls back: the
/// numbers follow the commit order with no gap, whoever writes.
fn insert_lifecycle<C: GenericClient>(
    db: &mut Prepared<'_, C>,
    events: &[LifecycleEvent],
) -> HostResult<Option<u64>> {
    if events.is_empty() {
        return Ok(None);
    }
    let count = events.len() as i64;
    let match_ids: Vec<&str> = events.iter().map(|e| e.match_id.as_str()).collect();
    let events = events
        .iter()
        .map(to_json)
        .collect::<HostResult<Vec<String>>>()?;
    // The counter's update and every row in one statement.
    let rows = db.query(
        "WITH counter AS (UPDATE lifecycle_counter SET last_seq = last_seq + $1 \
             RETURNING last_seq) \
         INSERT INTO lifecycle (seq, match_id, event_json) \
         SELECT counter.last_seq - $1::BIGINT + e.ordinality, e.match_id, e.event_json \
         FROM counter, unnest($2::TEXT[], $3::TEXT[]) WITH ORDINALITY AS e(match_id, event_json) \
         RETURNING seq",
        &[&count, &match_ids, &events],
    )?;
    let last = rows
        .iter()
        .map(|row| row.get::<_, i64>(0))
        .max()
        .filter(|_| rows.len() as i64 == count)
        .ok_or_else(|| HostError::Internal("the match store lacks its lifecycle counter".into()))?;
    Ok(Some(last as u64))
}

/// Inserts an issued credential.
pub(super) fn insert_credential<C: GenericClient>(
    db: &mut Prepared<'_, C>,
    c: &StoredCredential,
) -> HostResult<()> {
    db.execute(
        "INSERT INTO credentials \
         (credential_id, name, role, secret_hash, issued_at_ms, revoked_at_ms, tenant) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
        &[
            &c.credential_id,
            &c.name,
            &c.role,
            &c.secret_hash.as_slice(),
            &c.issued_at_ms,
            &c.revoked_at_ms,
            &c.tenant,
        ],
    )?;
    Ok(())
}
