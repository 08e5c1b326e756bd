//! The PostgreSQL store's writes: each made into the statements that store
//! it with the lifecycle rows that describe it (`step.rs`), which the
//! writer runs inside its batch's transaction (and a savepoint of the
//! write's own when a batch must fail one write alone).

use tabletop_core::{HostError, HostResult, LogEntry, SeatJoin};

use super::cluster::FENCE;
use super::step::{Param, Step, Wants};
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

/// The refusal of a write to a match the store does not hold.
pub(super) fn no_match(match_id: &str) -> HostError {
    HostError::Internal(format!("the match store has no match {match_id}"))
}

/// The statements that store `write`, in order, each with what it must
/// answer for the write to stand. `fence`: the id of this host among the
/// database's hosts, once it joined them: a new match is leased to it,
/// and a match's other writes stand only while its lease is this host's
/// (see `cluster.rs`).
pub(super) fn steps(write: &Write, fence: Option<&str>) -> HostResult<Vec<Step>> {
    let mut steps = steps_but_lifecycle(write, fence)?;
    steps.extend(lifecycle_step(write.lifecycle())?);
    Ok(steps)
}

/// [`steps`] without the one that inserts the write's lifecycle rows: a
/// batch run whole inserts every write's rows in one statement at its end
/// ([`lifecycle_step`]).
pub(super) fn steps_but_lifecycle(write: &Write, fence: Option<&str>) -> HostResult<Vec<Step>> {
    let mut steps = Vec::new();
    match write {
        Write::Create {
            stored, request, ..
        } => {
            insert_match(&mut steps, stored, fence)?;
            if let Some(request) = request {
                insert_request(&mut steps, request);
            }
        }
        Write::Append {
            match_id,
            entries,
            pending,
            results,
            lifecycle,
            finished_log,
        } => {
            let pending = pending.as_ref().map(to_json).transpose()?;
            let id = || -> Param { Box::new(match_id.clone()) };
            fenced(&mut steps, match_id, fence);
            match (pending, finished_log) {
                // Most actions of most games: new log rows and nothing
                // else; the log's insert refuses an unknown match (its
                // first entry finds no match, a later one no entry before).
                (None, None) if !entries.is_empty() => {}
                (None, None) => steps.push(Step::new(
                    "SELECT 1 FROM matches WHERE match_id = $1",
                    vec![id()],
                    Wants::One(no_match(match_id)),
                )),
                (Some(pending), None) => steps.push(Step::new(
                    "UPDATE matches SET pending_json = $2 WHERE match_id = $1",
                    vec![id(), Box::new(pending)],
                    Wants::One(no_match(match_id)),
                )),
                (pending, Some(log)) => steps.push(Step::new(
                    "UPDATE matches SET pending_json = COALESCE($2, pending_json), \
                     results_json = $3, state = 'finished', final_version = $4 \
                     WHERE match_id = $1",
                    vec![
                        id(),
                        Box::new(pending),
                        Box::new(to_json(results)?),
                        Box::new(log.len() as i64),
                    ],
                    Wants::One(no_match(match_id)),
                )),
            }
            insert_log(&mut steps, match_id, entries)?;
            // A match that starts with seats never taken (the open-seat
            // deadline) starts in an append, not a join.
            if lifecycle
                .iter()
                .any(|e| matches!(e.kind, LifecycleKind::Started))
            {
                steps.push(Step::new(
                    "UPDATE matches SET state = 'running' \
                     WHERE match_id = $1 AND state = 'waiting'",
                    vec![id()],
                    Wants::Anything,
                ));
            }
            for event in lifecycle {
                let sql = match event.kind {
                    LifecycleKind::Quarantined { .. } => {
                        "UPDATE matches SET state = 'quarantined' \
                         WHERE match_id = $1 AND state IN ('waiting', 'running')"
                    }
                    // Back to its stage: only a running match is released.
                    LifecycleKind::Released => {
                        "UPDATE matches SET state = 'running' \
                         WHERE match_id = $1 AND state = 'quarantined'"
                    }
                    _ => continue,
                };
                steps.push(Step::new(sql, vec![id()], Wants::Anything));
            }
        }
        Write::Join {
            match_id,
            join,
            token_hash,
            ..
        } => {
            fenced(&mut steps, match_id, fence);
            let seat = i64::from(join.seat);
            let named = |text: &String| Some(text.clone()).filter(|s| !s.is_empty());
            steps.push(Step::new(
                "UPDATE seats SET token_hash = $3, joined_at_ms = $4, join_order = \
                 (SELECT COUNT(*) FROM seats WHERE match_id = $1 AND join_order IS NOT NULL), \
                 join_code_hash = NULL, display_name = $5, external_id = $6, bot = $7 \
                 WHERE match_id = $1 AND seat = $2",
                vec![
                    Box::new(match_id.clone()),
                    Box::new(seat),
                    Box::new(token_hash.to_vec()),
                    Box::new(join.at_ms),
                    Box::new(named(&join.display_name)),
                    Box::new(named(&join.external_id)),
                    Box::new(named(&join.bot)),
                ],
                Wants::One(HostError::Internal(format!(
                    "the match store has no seat {seat} in match {match_id}"
                ))),
            ));
            steps.push(Step::new(
                "UPDATE matches SET state = 'running' WHERE match_id = $1 AND state = 'waiting' \
                 AND NOT EXISTS (SELECT 1 FROM seats \
                                 WHERE match_id = $1 AND token_hash IS NULL)",
                vec![Box::new(match_id.clone())],
                Wants::Anything,
            ));
        }
        Write::Reissue {
            match_id,
            seat,
            token_hash,
        } => steps.push(Step::new(
            "UPDATE seats SET token_hash = $3 \
             WHERE match_id = $1 AND seat = $2 AND token_hash IS NOT NULL",
            vec![
                Box::new(match_id.clone()),
                Box::new(i64::from(*seat)),
                Box::new(token_hash.to_vec()),
            ],
            Wants::One(HostError::Internal(format!(
                "the match store has no taken seat {seat} in match {match_id}"
            ))),
        )),
        Write::IssueCredential(c) => insert_credential(&mut steps, c),
        Write::RevokeCredential {
            credential_id,
            at_ms,
        } => steps.push(Step::new(
            "UPDATE credentials SET revoked_at_ms = COALESCE(revoked_at_ms, $2) \
             WHERE credential_id = $1",
            vec![Box::new(credential_id.clone()), Box::new(*at_ms)],
            Wants::Anything,
        )),
    }
    Ok(steps)
}

/// Adds the step that stands only while `me` holds the lease of
/// `match_id` (nothing when the host has not joined the database's hosts).
fn fenced(steps: &mut Vec<Step>, match_id: &str, me: Option<&str>) {
    if let Some(me) = me {
        steps.push(Step::new(
            FENCE,
            vec![Box::new(match_id.to_string()), Box::new(me.to_string())],
            Wants::One(HostError::MatchMoved {
                match_id: match_id.to_string(),
            }),
        ));
    }
}

/// Adds the step that inserts a match: its row, seats, labels and whole
/// log (an imported record is thousands of entries), and its lease to
/// `holder` when given. One statement: a creation is one of the most
/// frequent writes (a short game's matches start and end hundreds of times
/// a second).
pub(super) fn insert_match(
    steps: &mut Vec<Step>,
    stored: &StoredMatch,
    holder: Option<&str>,
) -> HostResult<()> {
    let setup = &stored.setup;
    let state = stored.listed_state();
    let finished = state == ListedState::Finished;
    // Every seat, label and entry column by column.
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
    let SeatColumns {
        seat,
        token_hash,
        joined_at_ms,
        join_order,
        join_code_hash,
        display_name,
        external_id,
        bot,
    } = seats;
    let (keys, values): (Vec<String>, Vec<String>) = setup
        .labels
        .iter()
        .map(|(key, value)| (key.clone(), value.clone()))
        .unzip();
    let versions: Vec<i64> = stored.log.iter().map(|e| e.version as i64).collect();
    let entries = stored
        .log
        .iter()
        .map(to_json)
        .collect::<HostResult<Vec<String>>>()?;
    steps.push(Step::new(
        "WITH created AS (INSERT INTO matches (match_id, setup_json, pending_json, \
             results_json, game, state, created_at_ms, final_version, plugin_sha256) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)), \
         seated AS (INSERT INTO seats (match_id, seat, token_hash, joined_at_ms, join_order, \
             join_code_hash, display_name, external_id, bot) \
             SELECT $1::TEXT, * FROM unnest($10::BIGINT[], $11::BYTEA[], $12::BIGINT[], \
             $13::BIGINT[], $14::BYTEA[], $15::TEXT[], $16::TEXT[], $17::TEXT[])), \
         labelled AS (INSERT INTO match_labels (match_id, key, value) \
             SELECT $1::TEXT, * FROM unnest($18::TEXT[], $19::TEXT[])), \
         leased AS (INSERT INTO match_leases (match_id, host_id, epoch) \
             SELECT $1::TEXT, $20::TEXT, 1 WHERE $20::TEXT IS NOT NULL), \
         logged AS (INSERT INTO log (match_id, version, entry_json) \
             SELECT $1::TEXT, version, entry_json \
             FROM unnest($21::BIGINT[], $22::TEXT[]) AS entry(version, entry_json)) \
         SELECT 1",
        vec![
            Box::new(setup.match_id.clone()),
            Box::new(to_json(setup)?),
            Box::new(to_json(&stored.pending)?),
            Box::new(to_json(&stored.results)?),
            Box::new(setup.game.clone()),
            Box::new(state_name(state)),
            Box::new(setup.created_at_ms),
            Box::new(finished.then_some(stored.log.len() as i64)),
            Box::new(setup.plugin_sha256.clone()),
            Box::new(seat),
            Box::new(token_hash),
            Box::new(joined_at_ms),
            Box::new(join_order),
            Box::new(join_code_hash),
            Box::new(display_name),
            Box::new(external_id),
            Box::new(bot),
            Box::new(keys),
            Box::new(values),
            Box::new(holder.map(str::to_string)),
            Box::new(versions),
            Box::new(entries),
        ],
        Wants::Anything,
    ));
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

/// Adds the step that inserts a request made idempotent by its id.
pub(super) fn insert_request(steps: &mut Vec<Step>, request: &StoredRequest) {
    steps.push(Step::new(
        "INSERT INTO requests (request_id, request_hash, match_id, response) \
         VALUES ($1, $2, $3, $4)",
        vec![
            Box::new(request.request_id.clone()),
            Box::new(request.request_hash.to_vec()),
            Box::new(request.match_id.clone()),
            Box::new(request.response.clone()),
        ],
        Wants::Anything,
    ));
}

/// Adds the steps that insert a match's new log entries. Each must follow
/// a stored entry of the match, or be the first entry of a match the store
/// holds (the schema has no foreign key: see migration V2): a write that
/// failed while the server was away leaves the host's match ahead of the
/// store, and the match's next write is then refused rather than leaving a
/// hole in its log that no replay could cross.
fn insert_log(steps: &mut Vec<Step>, match_id: &str, entries: &[LogEntry]) -> HostResult<()> {
    for entry in entries {
        steps.push(Step::new(
            "INSERT INTO log (match_id, version, entry_json) \
             SELECT $1::TEXT, $2::BIGINT, $3::TEXT WHERE CASE WHEN $2::BIGINT = 1 \
             THEN EXISTS (SELECT 1 FROM matches WHERE match_id = $1::TEXT) \
             ELSE EXISTS (SELECT 1 FROM log \
                          WHERE match_id = $1::TEXT AND version = $2::BIGINT - 1) END",
            vec![
                Box::new(match_id.to_string()),
                Box::new(entry.version as i64),
                Box::new(to_json(entry)?),
            ],
            Wants::One(match entry.version {
                1 => no_match(match_id),
                version => missing_version(match_id, version),
            }),
        ));
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

/// The step that inserts lifecycle rows numbered after the last one
/// committed (none for no rows). The counter's row stays locked until the
/// transaction ends, so no other transaction takes numbers before this one
/// commits or rolls back: the numbers follow the commit order with no gap,
/// whoever writes. The statement notifies `tail.rs`'s channel with the
/// last number, delivered at the commit to every store on the database.
pub(super) fn lifecycle_step<'a>(
    events: impl IntoIterator<Item = &'a LifecycleEvent>,
) -> HostResult<Option<Step>> {
    let events: Vec<&LifecycleEvent> = events.into_iter().collect();
    if events.is_empty() {
        return Ok(None);
    }
    let count = events.len();
    let match_ids: Vec<String> = events.iter().map(|e| e.match_id.clone()).collect();
    let events = events
        .iter()
        .map(to_json)
        .collect::<HostResult<Vec<String>>>()?;
    // The counter's update and every row in one statement.
    Ok(Some(Step::new(
        "WITH counter AS (UPDATE lifecycle_counter SET last_seq = last_seq + $1 \
             RETURNING last_seq) \
         , inserted AS (INSERT INTO lifecycle (seq, match_id, event_json) \
         SELECT counter.last_seq - $1::BIGINT + e.ordinality, e.match_id, e.event_json \
         FROM counter, unnest($2::TEXT[], $3::TEXT[]) WITH ORDINALITY AS e(match_id, event_json) \
         RETURNING seq) \
         SELECT seq FROM inserted, \
             (SELECT pg_notify('tabletop_lifecycle', last_seq::TEXT) FROM counter) AS notified",
        vec![
            Box::new(count as i64),
            Box::new(match_ids),
            Box::new(events),
        ],
        Wants::LifecycleRows(count),
    )))
}

/// Adds the step that inserts an issued credential.
pub(super) fn insert_credential(steps: &mut Vec<Step>, c: &StoredCredential) {
    steps.push(Step::new(
        "INSERT INTO credentials \
         (credential_id, name, role, secret_hash, issued_at_ms, revoked_at_ms, tenant) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
        vec![
            Box::new(c.credential_id.clone()),
            Box::new(c.name.clone()),
            Box::new(c.role.clone()),
            Box::new(c.secret_hash.to_vec()),
            Box::new(c.issued_at_ms),
            Box::new(c.revoked_at_ms),
            Box::new(c.tenant.clone()),
        ],
        Wants::Anything,
    ));
}
