//! The PostgreSQL store's writer thread: every write committed in batches
//! (group commit), each match's writes in the order queued, on the
//! writer's one connection, which it opens again by itself when the server
//! comes back.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use tabletop_core::{HostError, HostResult};

use super::appends::{self, Appends, Ran, Stored};
use super::apply::{lifecycle_step, steps, steps_but_lifecycle};
use super::cluster::Membership;
use super::connect::{Reachability, Target, db_error};
use super::pipeline::{Pipeline, Request};
use super::step::{Answer, Step};
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
    /// This host's id once it joined the database's hosts: every write of
    /// a match is fenced by it (see `cluster.rs`).
    pub(super) membership: Arc<Membership>,
    pub(super) connection: Option<Pipeline>,
    pub(super) reachability: Arc<Reachability>,
    /// The last durable lifecycle row's number.
    pub(super) tail: tokio::sync::watch::Sender<u64>,
    /// When a connection was last tried and failed: writes arriving soon
    /// after are refused at once instead of each trying again.
    pub(super) failed_at: Option<Instant>,
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
            match connection.send(&[Request::Simple("SELECT 1")])?.pop() {
                Some(Err(e)) => Err(db_error(e)),
                _ => Ok(()),
            }
        });
        if matches!(outcome, Err(HostError::StoreUnavailable(_))) {
            self.connection = None;
        }
        self.reachability.saw(&self.target, &outcome);
    }

    /// The writer's connection, opened again when it broke. A failed
    /// attempt is not repeated for [`RECONNECT_EVERY`]: meanwhile writes are
    /// refused at once.
    fn connected(&mut self) -> HostResult<&mut Pipeline> {
        if self.connection.as_ref().is_some_and(Pipeline::is_closed) {
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
            let opened = Pipeline::open(&self.target);
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
        let fence = self.membership.me();
        let fence = fence.as_deref();
        if let Some(appends) = Appends::of(batch.iter().map(|(write, _)| write), fence)
            && let Some(outcomes) = self.commit_appends(&appends)?
        {
            return Ok((outcomes, None));
        }
        let mut retried = false;
        loop {
            let connection = self.connected()?;
            let attempt =
                run_together(connection, batch, fence).or_else(|abandoned| match abandoned {
                    Abandoned::OneWriteFailed => run_apart(connection, batch, fence),
                    other => Err(other),
                });
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
                    super::tail::advance(&self.tail, row);
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

/// What one stretch of a batch sends.
enum Planned {
    /// A run of simple appends, in one statement.
    Run(Appends),
    /// One write's steps.
    Steps(Vec<Step>),
}

impl Planned {
    fn requests(&self) -> Vec<Request<'_>> {
        match self {
            Planned::Run(appends) => vec![appends.request()],
            Planned::Steps(steps) => steps.iter().map(request).collect(),
        }
    }
}

/// `step` as the pipeline sends it.
fn request(step: &Step) -> Request<'_> {
    Request::Statement {
        sql: step.sql,
        params: step.params(),
        rows: step.wants_rows(),
    }
}

/// The stretches of `batch` when nothing isolates its writes (`None` when
/// a write cannot be made into statements: it must fail alone). Each
/// match's writes keep their order; between matches the order is free, so
/// the batch runs as: every match's leading simple appends in one
/// statement; then the other writes in the batch's order, each run of
/// simple appends among them one statement, every other write its steps;
/// and last every lifecycle row of the batch in one statement, so the
/// counter's row is locked only for the commit (see `apply.rs`).
fn plan(batch: &[Queued], fence: Option<&str>) -> Option<Vec<Planned>> {
    let mut ordered = Vec::with_capacity(batch.len());
    let mut rest = Vec::new();
    // The matches a write of which goes in `rest`: their later writes too.
    let mut deferred = HashSet::new();
    for (write, _) in batch {
        let id = write.match_id();
        if Appends::is_simple(write) && id.is_some_and(|id| !deferred.contains(id)) {
            ordered.push(write);
        } else {
            deferred.extend(id);
            rest.push(write);
        }
    }
    // `rest` starts with a write that is not simple: the leading appends
    // are one run.
    ordered.append(&mut rest);
    let mut planned = Vec::new();
    let mut at = 0;
    while let Some(write) = ordered.get(at) {
        let run = ordered[at..]
            .iter()
            .take_while(|write| Appends::is_simple(write))
            .count();
        if run > 1
            && let Some(appends) = Appends::of(ordered[at..at + run].iter().copied(), fence)
        {
            planned.push(Planned::Run(appends));
            at += run;
            continue;
        }
        planned.push(Planned::Steps(steps_but_lifecycle(write, fence).ok()?));
        at += 1;
    }
    let lifecycle = batch.iter().flat_map(|(write, _)| write.lifecycle());
    planned.extend(
        lifecycle_step(lifecycle)
            .ok()?
            .map(|step| Planned::Steps(vec![step])),
    );
    Some(planned)
}

/// A failure before `COMMIT` was sent, as the batch is abandoned for it.
fn before_commit(e: HostError) -> Abandoned {
    match e {
        HostError::StoreUnavailable(_) => Abandoned::BeforeCommit(e),
        other => Abandoned::Failed(other),
    }
}

/// Sends `COMMIT`, after `before` (how the last savepoint ends) when
/// given. A failure is the batch's [`Abandoned::AtCommit`] when the
/// connection broke (stored or not, nobody can tell) and
/// [`Abandoned::Failed`] otherwise.
fn commit(connection: &mut Pipeline, before: Option<&'static str>) -> Result<(), Abandoned> {
    let at_commit = |e: HostError| match e {
        HostError::StoreUnavailable(_) => Abandoned::AtCommit(HostError::StoreUnavailable(
            format!("{e}; the write was not confirmed stored"),
        )),
        other => Abandoned::Failed(other),
    };
    let mut requests: Vec<Request<'_>> = before.map(Request::Simple).into_iter().collect();
    requests.push(Request::Simple("COMMIT"));
    for answer in connection.send(&requests).map_err(at_commit)? {
        answer.map_err(|e| at_commit(db_error(e)))?;
    }
    Ok(())
}

/// Applies every write of `batch` in one transaction and commits it:
/// `BEGIN` and every write's statements sent at once, every answer
/// judged, then `COMMIT`; the first failing write rolls the whole
/// transaction back ([`Abandoned::OneWriteFailed`]: [`run_apart`] runs the
/// batch then).
fn run_together(
    connection: &mut Pipeline,
    batch: &[Queued],
    fence: Option<&str>,
) -> Result<Outcomes, Abandoned> {
    let planned = plan(batch, fence).ok_or(Abandoned::OneWriteFailed)?;
    let mut requests = vec![Request::Simple("BEGIN")];
    for stretch in &planned {
        requests.extend(stretch.requests());
    }
    let mut answers = connection
        .send(&requests)
        .map_err(before_commit)?
        .into_iter();
    let mut failed = false;
    let mut broken = None;
    let mut last_lifecycle_row = None;
    let mut judge = |answer: Option<Result<Answer, postgres::Error>>,
                     judged: &mut dyn FnMut(Answer) -> bool| {
        match answer {
            Some(Ok(answer)) => failed |= !judged(answer),
            Some(Err(e)) => match db_error(e) {
                e @ HostError::StoreUnavailable(_) => broken = Some(e),
                _ => failed = true,
            },
            None => failed = true,
        }
    };
    judge(answers.next(), &mut |_| true);
    for stretch in &planned {
        match stretch {
            Planned::Run(appends) => judge(answers.next(), &mut |answer| match answer {
                Answer::Rows(rows) => appends.all_stored(&Stored::of(&rows)),
                Answer::Changed(_) => false,
            }),
            Planned::Steps(steps) => {
                for step in steps {
                    judge(answers.next(), &mut |answer| match step.judge(answer) {
                        Ok(row) => {
                            last_lifecycle_row = last_lifecycle_row.max(row);
                            true
                        }
                        Err(_) => false,
                    });
                }
            }
        }
    }
    if let Some(e) = broken {
        return Err(Abandoned::BeforeCommit(e));
    }
    if failed {
        // A write failed: the batch runs again with savepoints.
        let rolled_back = connection
            .send(&[Request::Simple("ROLLBACK")])
            .map_err(before_commit)?;
        if let Some(Err(e)) = rolled_back.into_iter().next() {
            return Err(before_commit(db_error(e)));
        }
        return Err(Abandoned::OneWriteFailed);
    }
    commit(connection, None)?;
    Ok((batch.iter().map(|_| Ok(())).collect(), last_lifecycle_row))
}

/// The savepoint each write of an isolated batch runs in, and how it ends.
const SAVEPOINT: &str = "SAVEPOINT write";
const KEEP: &str = "RELEASE SAVEPOINT write";
const UNDO: &str = "ROLLBACK TO SAVEPOINT write; RELEASE SAVEPOINT write";

/// Applies every write of `batch` in one transaction, each in a savepoint
/// of its own, and commits it: a failing write is undone alone and fails
/// alone.
fn run_apart(
    connection: &mut Pipeline,
    batch: &[Queued],
    fence: Option<&str>,
) -> Result<Outcomes, Abandoned> {
    let mut outcomes = Vec::with_capacity(batch.len());
    let mut last_lifecycle_row = None;
    // What goes before the next write's statements: `BEGIN`, then how the
    // last write's savepoint ends.
    let mut before = Some("BEGIN");
    let mut begun = false;
    for (write, _) in batch {
        let steps = match steps(write, fence) {
            Ok(steps) => steps,
            Err(e) => {
                outcomes.push(Err(e));
                continue;
            }
        };
        let mut requests: Vec<Request<'_>> =
            before.take().map(Request::Simple).into_iter().collect();
        requests.push(Request::Simple(SAVEPOINT));
        let opening = requests.len();
        requests.extend(steps.iter().map(request));
        let mut answers = connection
            .send(&requests)
            .map_err(before_commit)?
            .into_iter();
        begun = true;
        for answer in answers.by_ref().take(opening) {
            answer.map_err(|e| before_commit(db_error(e)))?;
        }
        let mut outcome = Ok(None);
        for (step, answer) in steps.iter().zip(answers) {
            let judged = answer
                .map_err(db_error)
                .and_then(|answer| step.judge(answer));
            if let Err(e @ HostError::StoreUnavailable(_)) = judged {
                return Err(Abandoned::BeforeCommit(e));
            }
            outcome = match (outcome, judged) {
                (Ok(last), Ok(row)) => Ok(last.max(row)),
                (Err(e), _) | (Ok(_), Err(e)) => Err(e),
            };
        }
        before = Some(if outcome.is_ok() { KEEP } else { UNDO });
        outcomes.push(outcome.map(|row| {
            last_lifecycle_row = last_lifecycle_row.max(row);
        }));
    }
    if begun {
        commit(connection, before)?;
    }
    Ok((outcomes, last_lifecycle_row))
}
