//! The PostgreSQL store's writer thread: every write, in the order queued,
//! committed in batches (group commit) on the writer's one connection,
//! which it opens again by itself when the server comes back.

use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use tabletop_core::{HostError, HostResult};

use super::appends::{self, Appends, Ran};
use super::apply::apply;
use super::connect::{Connection, Prepared, Reachability, Target, by_key};
use crate::store::queued::Write;

/// Most writes committed in one transaction.
pub const MAX_BATCH: usize = 256;

/// While the server cannot be reached, how often the writer tries to
/// connect again, whether or not writes wait: so the health service says
/// SERVING again soon after the server is back, with no call needed.
pub const RECONNECT_EVERY: Duration = Duration::from_millis(500);

/// While the server answers, how long the writer may go without a write
/// before it asks the server whether it still answers: so a server gone
/// while nothing was written still turns the health to NOT_SERVING within
/// about this long (writes find out at once).
pub const PROBE_WHEN_IDLE: Duration = Duration::from_secs(2);

/// A queued write and who waits for its outcome.
pub(super) type Queued = (Write, tokio::sync::oneshot::Sender<HostResult<()>>);

/// What the writer thread needs besides its queue.
pub(super) struct Writer {
    pub(super) target: Target,
    pub(super) connection: Option<Connection>,
    pub(super) reachability: Arc<Reachability>,
    /// The last durable lifecycle row's number.
    pub(super) tail: tokio::sync::watch::Sender<u64>,
    /// When a connection was last tried and failed: writes arriving soon
    /// after are refused at once instead of each trying again.
    pub(super) failed_at: Option<Instant>,
}

/// How the writes of one batch are kept apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Isolation {
    /// Not at all: a failing write abandons the whole batch.
    None,
    /// Each in its own savepoint: a failing write is undone alone.
    Savepoints,
}

/// A batch that did not commit as a whole.
enum Abandoned {
    /// A write failed (and not for want of the server): run the batch
    /// again with savepoints.
    OneWriteFailed,
    /// The server went away before `COMMIT` was sent: nothing of the batch
    /// is stored, and it may run again on a new connection.
    BeforeCommit(HostError),
    /// The server went away while committing: whether the batch is stored
    /// cannot be told, so its writes fail unacknowledged.
    AtCommit(HostError),
    /// The transaction failed for another reason: every write fails with it.
    Failed(HostError),
}

/// Each write's outcome, and the last lifecycle row the batch wrote.
type Outcomes = (Vec<HostResult<()>>, Option<u64>);

impl Writer {
    /// Runs until the store is dropped (its queue closes), then closes the
    /// connection.
    pub(super) fn run(mut self, jobs: mpsc::Receiver<Queued>) {
        loop {
            let probe_after = if self.reachability.is_reachable() {
                PROBE_WHEN_IDLE
            } else {
                RECONNECT_EVERY
            };
            let first = match jobs.recv_timeout(probe_after) {
                Ok(first) => first,
                Err(RecvTimeoutError::Timeout) => {
                    self.probe();
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => break,
            };
            let mut batch = vec![first];
            while batch.len() < MAX_BATCH {
                match jobs.try_recv() {
                    Ok(queued) => batch.push(queued),
                    Err(_) => break,
                }
            }
            let started = Instant::now();
            let outcome = self.commit(&batch);
            crate::metrics::metrics().store_commit(started.elapsed());
            self.answer(batch, outcome);
        }
    }

    /// Asks the server whether it answers, on the writer's connection
    /// (opened again if need be), and records the answer: so the store is
    /// reachable again once the server is, even when no write comes, and
    /// also when it was a read that found the server gone.
    fn probe(&mut self) {
        let outcome = self.connected().and_then(|connection| {
            super::connect::round_trips(1);
            connection
                .client
                .simple_query("SELECT 1")
                .map(drop)
                .map_err(super::connect::db_error)
        });
        if matches!(outcome, Err(HostError::StoreUnavailable(_))) {
            self.connection = None;
        }
        self.reachability.saw(&self.target, &outcome);
    }

    /// The writer's connection, opened again when it broke. A failed
    /// attempt is not repeated for [`RECONNECT_EVERY`]: meanwhile writes are
    /// refused at once.
    fn connected(&mut self) -> HostResult<&mut Connection> {
        if self.connection.as_ref().is_some_and(Connection::is_closed) {
            self.connection = None;
        }
        if self.connection.is_none() {
            if let Some(failed_at) = self.failed_at
                && failed_at.elapsed() < RECONNECT_EVERY
            {
                return Err(HostError::StoreUnavailable(format!(
                    "PostgreSQL at {} cannot be reached",
                    self.target.name
                )));
            }
            let opened = self.target.connect().and_then(by_key);
            self.reachability.saw(&self.target, &opened);
            match opened {
                Ok(connection) => {
                    self.failed_at = None;
                    self.connection = Some(connection);
                }
                Err(e) => {
                    self.failed_at = Some(Instant::now());
                    return Err(e);
                }
            }
        }
        self.connection
            .as_mut()
            .ok_or_else(|| HostError::Internal("the match store writer has no connection".into()))
    }

    /// Commits `batch`: on the connection it has, or, when that one turns
    /// out broken before anything committed, once more on a new one. A
    /// batch of simple appends goes in one statement (`appends.rs`).
    fn commit(&mut self, batch: &[Queued]) -> HostResult<Outcomes> {
        if let Some(appends) = Appends::of(batch.iter().map(|(write, _)| write))
            && let Some(outcomes) = self.commit_appends(&appends)?
        {
            return Ok((outcomes, None));
        }
        let mut retried = false;
        loop {
            let connection = self.connected()?;
            let attempt =
                run_batch(connection, batch, Isolation::None).or_else(
                    |abandoned| match abandoned {
                        Abandoned::OneWriteFailed => {
                            run_batch(connection, batch, Isolation::Savepoints)
                        }
                        other => Err(other),
                    },
                );
            match attempt {
                Ok(outcomes) => {
                    self.reachability.saw(&self.target, &Ok(()));
                    return Ok(outcomes);
                }
                Err(Abandoned::BeforeCommit(e)) if !retried => {
                    // The connection broke (the server restarted since it
                    // was opened): nothing committed, so a new connection
                    // may run the batch again.
                    self.connection = None;
                    self.failed_at = None;
                    retried = true;
                    tracing::debug!(error = %e, "the match store writer reconnects");
                }
                Err(Abandoned::BeforeCommit(e) | Abandoned::AtCommit(e)) => {
                    self.connection = None;
                    self.reachability
                        .saw(&self.target, &Err::<(), _>(e.clone()));
                    return Err(e);
                }
                Err(Abandoned::Failed(e)) => return Err(e),
                Err(Abandoned::OneWriteFailed) => {
                    return Err(HostError::Internal(
                        "the match store could not isolate a failing write".into(),
                    ));
                }
            }
        }
    }

    /// Commits a batch of simple appends in one statement; `Ok(None)` when
    /// the statement was refused whole and stored nothing (the general path
    /// runs the batch then). A connection that broke under it is replaced
    /// and asked what was stored (see `appends.rs`).
    fn commit_appends(&mut self, appends: &Appends) -> HostResult<Option<Vec<HostResult<()>>>> {
        let mut retried = false;
        loop {
            let connection = self.connected()?;
            let broke = match appends::run(connection, appends) {
                Ran::Stored(outcomes) => {
                    self.reachability.saw(&self.target, &Ok(()));
                    return Ok(Some(outcomes));
                }
                Ran::Refused => return Ok(None),
                Ran::Broken(e) => e,
            };
            self.connection = None;
            self.failed_at = None;
            let unconfirmed =
                HostError::StoreUnavailable(format!("{broke}; the write was not confirmed stored"));
            if retried {
                self.reachability.saw(&self.target, &Err::<(), _>(broke));
                return Err(unconfirmed);
            }
            retried = true;
            match self
                .connected()
                .and_then(|connection| appends::settle(connection, appends))
            {
                Ok(Some(outcomes)) => {
                    self.reachability.saw(&self.target, &Ok(()));
                    return Ok(Some(outcomes));
                }
                // Nothing of it is stored: it runs once more.
                Ok(None) => {}
                Err(e) => {
                    self.connection = None;
                    self.reachability.saw(&self.target, &Err::<(), _>(e));
                    return Err(unconfirmed);
                }
            }
        }
    }

    /// Tells each caller its write's outcome, and the feed its lifecycle
    /// rows, now that the batch's commit has returned.
    fn answer(&self, batch: Vec<Queued>, outcome: HostResult<Outcomes>) {
        match outcome {
            Ok((outcomes, last_lifecycle_row)) => {
                if let Some(row) = last_lifecycle_row {
                    self.tail.send_if_modified(|last| {
                        let newer = row > *last;
                        *last = (*last).max(row);
                        newer
                    });
                }
                for ((_, done), outcome) in batch.into_iter().zip(outcomes) {
                    let _ = done.send(outcome);
                }
            }
            Err(e) => {
                // An unreachable server is logged once, by the reachability.
                if !matches!(e, HostError::StoreUnavailable(_)) {
                    crate::store::queued::log_commit_failure(&e, batch.len());
                }
                for (_, done) in batch {
                    let _ = done.send(Err(e.clone()));
                }
            }
        }
    }
}

/// Applies every write of `batch` in one transaction and commits it. With
/// [`Isolation::None`] the first failing write rolls the whole transaction
/// back; with [`Isolation::Savepoints`] it is undone alone and fails alone.
fn run_batch(
    connection: &mut Connection,
    batch: &[Queued],
    isolation: Isolation,
) -> Result<Outcomes, Abandoned> {
    let before_commit = |e: HostError| match e {
        HostError::StoreUnavailable(_) => Abandoned::BeforeCommit(e),
        other => Abandoned::Failed(other),
    };
    let Connection { client, statements } = connection;
    // BEGIN and COMMIT.
    super::connect::round_trips(2);
    let mut tx = client
        .transaction()
        .map_err(|e| before_commit(super::connect::db_error(e)))?;
    let mut outcomes = Vec::with_capacity(batch.len());
    let mut last_lifecycle_row = None;
    let mut at = 0;
    while let Some((write, _)) = batch.get(at) {
        // A run of simple appends: one statement.
        let rest = &batch[at..];
        let run = match isolation {
            Isolation::None => rest
                .iter()
                .take_while(|(write, _)| Appends::is_simple(write))
                .count(),
            Isolation::Savepoints => 0,
        };
        if run > 1
            && let Some(appends) = Appends::of(rest[..run].iter().map(|(write, _)| write))
        {
            let mut db = Prepared {
                client: &mut tx,
                statements,
            };
            match appends::write(&mut db, &appends) {
                Ok(stored) if appends.all_stored(&stored) => {
                    outcomes.extend((0..run).map(|_| Ok(())));
                    at += run;
                    continue;
                }
                Err(e @ HostError::StoreUnavailable(_)) => return Err(Abandoned::BeforeCommit(e)),
                // A match with a hole, or a failed statement: the batch
                // runs again write by write.
                Ok(_) | Err(_) => return Err(Abandoned::OneWriteFailed),
            }
        }
        at += 1;
        let outcome = match isolation {
            Isolation::None => {
                let mut db = Prepared {
                    client: &mut tx,
                    statements,
                };
                match apply(&mut db, write) {
                    Ok(row) => Ok(row),
                    Err(e @ HostError::StoreUnavailable(_)) => {
                        return Err(Abandoned::BeforeCommit(e));
                    }
                    // Dropping the transaction rolls it back.
                    Err(_) => return Err(Abandoned::OneWriteFailed),
                }
            }
            Isolation::Savepoints => {
                // SAVEPOINT, and RELEASE or ROLLBACK TO.
                super::connect::round_trips(2);
                let mut savepoint = tx
                    .savepoint("write")
                    .map_err(|e| before_commit(super::connect::db_error(e)))?;
                let mut db = Prepared {
                    client: &mut savepoint,
                    statements,
                };
                let outcome = apply(&mut db, write);
                match &outcome {
                    Err(HostError::StoreUnavailable(e)) => {
                        return Err(Abandoned::BeforeCommit(HostError::StoreUnavailable(
                            e.clone(),
                        )));
                    }
                    Ok(_) => savepoint.commit(),
                    Err(_) => savepoint.rollback(),
                }
                .map_err(|e| before_commit(super::connect::db_error(e)))?;
                outcome
            }
        };
        outcomes.push(outcome.map(|row| {
            last_lifecycle_row = row.or(last_lifecycle_row);
        }));
    }
    tx.commit().map_err(|e| match super::connect::db_error(e) {
        e @ HostError::StoreUnavailable(_) => Abandoned::AtCommit(HostError::StoreUnavailable(
            format!("{e}; the write was not confirmed stored"),
        )),
        other => Abandoned::Failed(other),
    })?;
    Ok((outcomes, last_lifecycle_row))
}
