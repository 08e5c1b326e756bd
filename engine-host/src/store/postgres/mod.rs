//! The PostgreSQL store (`--store postgres://…`): the same promises as the
//! SQLite store, on a database server the operator already runs.
//!
//! Clients: the readers use the synchronous [`postgres`] crate (it wraps
//! tokio-postgres on a small runtime of its own per connection): the
//! [`Store`] trait is synchronous and called from blocking threads, so a
//! blocking client fits it with no runtime to hand around. The writer uses
//! tokio-postgres itself, on a runtime of its thread's own
//! (`pipeline.rs`), because only the asynchronous client sends several
//! statements without waiting for each answer.
//!
//! Connections (`connect.rs`, `readers.rs`): the writer thread owns one
//! connection for every write; reads go to a few reader threads
//! ([`READER_THREADS`]), each with a connection of its own, so a read never
//! waits behind a batch's commit. That is the pool: a pool crate would
//! hand connections to the callers' threads, where the synchronous client
//! must not run (a caller may be an async worker, and the client runs each
//! call on a runtime of its own, which tokio refuses inside another). One
//! more connection listens for the lifecycle rows other hosts commit
//! (`tail.rs`). Every statement is prepared once per connection and kept,
//! so a statement costs one round trip.
//!
//! Group commit (`writer.rs`), as in the SQLite store: every write goes to
//! the writer thread through a channel, and its caller waits on its own
//! completion ([`Commit`]); queueing never waits on the server. The writer
//! takes the first waiting write, drains whatever queued up meanwhile (up
//! to [`MAX_BATCH`]), and commits them all in one transaction: `BEGIN` and
//! every write's statements (`apply.rs` makes each write into steps,
//! `step.rs`) sent at once, every answer judged, then `COMMIT` — two round
//! trips whatever the batch holds. A batch in which one write fails runs
//! again with a savepoint per write, so it fails alone. A match's writes
//! are queued under its lock, so they commit in their order; writes of
//! different matches need none, so a batch runs every match's leading log
//! entries as one statement, then the other writes, then all its lifecycle
//! rows as one. A batch whose writes only add log entries (most actions) is
//! one statement instead (`appends.rs`): one round trip per batch.
//!
//! Durability: a write is acknowledged only once the `COMMIT` of its batch
//! has returned, which with PostgreSQL's defaults (`fsync` and
//! `synchronous_commit` on) means its WAL is flushed; with
//! `synchronous_commit` off on the server, a server crash can lose the
//! last commits it acknowledged, as PostgreSQL documents.
//!
//! The server going away (`connect.rs`, `writer.rs`): an error on a broken
//! connection (SQL state class 08, a server shutting down, no SQL state
//! at all: the socket) answers [`HostError::StoreUnavailable`], which
//! the API answers UNAVAILABLE with reason `STORE_UNAVAILABLE`. A batch
//! whose connection broke before its `COMMIT` was sent stored nothing, and
//! runs once more on a new connection (the server may be back: a
//! connection idle across a restart breaks at its first use); one whose
//! connection broke during the `COMMIT` cannot tell whether it was stored,
//! and is answered StoreUnavailable, never acknowledged. A writer with
//! nothing to write asks the server whether it answers every
//! [`PROBE_WHEN_IDLE`], so an outage is seen without traffic too. While the
//! server cannot be reached the writer tries to connect again every
//! [`RECONNECT_EVERY`], with or without writes waiting, and refuses
//! writes at once in between; [`Store::reachable`] follows it, and the
//! health service reports NOT_SERVING while it is false. Nothing
//! acknowledged is lost: an acknowledgement follows a returned commit.
//! A write refused so leaves the host's match ahead of the store; the
//! match's next write, whose log entries would leave a hole in its stored
//! log, is refused (see `apply.rs`), rather than stored where no replay
//! could read it.
//!
//! Schema (`schema.rs`, migration files in `migrations/postgres/`):
//! - `matches(match_id, setup_json, pending_json, results_json, game,
//!   state, created_at_ms, final_version, plugin_sha256)` — the JSON
//!   columns are TEXT holding what serde wrote, in the record shapes; the
//!   others serve listings, indexed by creation and by state
//! - `seats(match_id, seat, token_hash, joined_at_ms, join_order,
//!   join_code_hash, display_name, external_id, bot)` — SHA-256 hashes,
//!   never tokens or codes
//! - `match_labels(match_id, key, value)` — for listing by label
//! - the rows below name their match without a foreign key (migration V2:
//!   a key's check locked the match's row for every log entry): they go in
//!   with their match, or through statements that store nothing for a
//!   match they do not find, and no match is deleted
//! - `log(match_id, version, entry_json)`, keyed by `(match_id, version)`:
//!   a match's log is one range of the key, so reading any match back,
//!   finished or not, is one index scan (the SQLite store keeps a finished
//!   log apart in its row; here the key makes that copy needless), and the
//!   key refuses a second entry of the same version: the fenced append a
//!   later issue's several hosts need.
//! - `lifecycle(seq, match_id, event_json)` and `lifecycle_counter`, one
//!   row holding the last number given. A transaction that writes
//!   lifecycle rows first updates that row, which it then holds locked
//!   until it commits: no other transaction takes a number meanwhile, so
//!   numbers are given in commit order, with no gap (a rolled-back write
//!   gives its numbers back), by however many hosts. A feed that reads
//!   after its last number therefore never skips a row that commits late.
//!   [`Store::lifecycle_tail`] is moved to a batch's last number once its
//!   commit returned, and to the last number any other host on the
//!   database committed, which PostgreSQL notifies (`tail.rs`).
//! - `shared_keys(name, value)`: secrets every host on the database holds
//!   alike ([`Store::shared_key`]), the first host's
//! - `requests(request_id, request_hash, match_id, response)` and
//!   `credentials(credential_id, name, role, secret_hash, issued_at_ms,
//!   revoked_at_ms, tenant)`
//!
//! Backups are PostgreSQL's own: [`Store::backup`] is refused, naming
//! `pg_dump`.

use std::path::Path;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tabletop_core::{HostError, HostResult, SeatJoin};

mod appends;
mod apply;
mod cluster;
mod connect;
pub mod import;
mod pipeline;
mod read;
mod readers;
mod schema;
mod step;
mod tail;
mod writer;

use super::queued::Write;
use super::{
    Backup, Change, Claim, Commit, DamagedMatch, Holder, HostRow, LifecycleEvent, LifecycleRow,
    MatchQuery, NewMatch, Store, StoredCredential, StoredMatch, StoredRequest, StoredSummary,
};
use connect::{Connection, Reachability, Target};
pub use readers::READER_THREADS;
use readers::Readers;
pub use schema::latest as latest_schema_version;
pub use writer::{MAX_BATCH, PROBE_WHEN_IDLE, RECONNECT_EVERY};

/// Whether `text` names a PostgreSQL server (`postgres://…` or
/// `postgresql://…`), as `--store` takes it.
pub fn is_postgres_url(text: &str) -> bool {
    let lower = text.get(..13).unwrap_or(text).to_ascii_lowercase();
    lower.starts_with("postgres://") || lower.starts_with("postgresql://")
}

/// The PostgreSQL store. Dropping it waits for the writer to commit what
/// was queued, and closes its connections.
#[derive(Debug)]
pub struct PostgresStore {
    target: Target,
    jobs: Mutex<mpsc::Sender<writer::Queued>>,
    readers: Readers,
    reachability: Arc<Reachability>,
    tail: tokio::sync::watch::Receiver<u64>,
    writer: Option<std::thread::JoinHandle<()>>,
    /// Follows lifecycle rows other hosts commit.
    _feed: tail::Listener,
    /// This host among the database's hosts, once it joined.
    membership: Arc<cluster::Membership>,
    heartbeat: Mutex<Option<cluster::Heartbeat>>,
    /// The live hosts as last read, and when: listings of the catalog ask
    /// for them, at most once per [`HOSTS_FRESH_FOR`] each.
    hosts: Mutex<Option<(std::time::Instant, Vec<HostRow>)>>,
}

/// How long the live hosts read for a listing serve the next ones.
const HOSTS_FRESH_FOR: Duration = Duration::from_secs(1);

impl PostgresStore {
    /// Connects to the database `url` names, brings its schema to this
    /// host's version (refusing one written by a newer host), and starts
    /// the writer thread. A malformed URL answers
    /// [`HostError::InvalidRequest`]; a server that cannot be reached,
    /// [`HostError::StoreUnavailable`].
    pub fn open(url: &str) -> HostResult<PostgresStore> {
        let target = Target::parse(url)?;
        let (tail_tx, tail) = tokio::sync::watch::channel(0);
        let reachability = Arc::new(Reachability::new());
        let (tx, rx) = mpsc::channel();
        let membership = cluster::Membership::new();
        let mut writer = writer::Writer {
            membership: Arc::clone(&membership),
            target: target.clone(),
            connection: None,
            reachability: Arc::clone(&reachability),
            tail: tail_tx.clone(),
            failed_at: None,
        };
        // The writer thread connects and migrates: the client must not run
        // on the caller's thread (see `connect.rs`).
        let (started_tx, started) = mpsc::channel::<HostResult<()>>();
        let writer = std::thread::Builder::new()
            .name("store-writer".into())
            .spawn(move || match start(&mut writer) {
                Ok(()) => {
                    let _ = started_tx.send(Ok(()));
                    writer.run(rx);
                }
                Err(e) => {
                    let _ = started_tx.send(Err(e));
                }
            })
            .map_err(|e| HostError::Internal(format!("cannot start the store writer: {e}")))?;
        let started = started.recv().unwrap_or_else(|_| {
            Err(HostError::Internal(
                "the match store writer stopped while starting".into(),
            ))
        });
        if let Err(e) = started {
            let _ = writer.join();
            return Err(e);
        }
        let feed = tail::Listener::start(&target, tail_tx)
            .map_err(|e| HostError::Internal(format!("cannot start the store's feed: {e}")))?;
        Ok(PostgresStore {
            _feed: feed,
            readers: Readers::start(&target, &reachability)?,
            target,
            jobs: Mutex::new(tx),
            reachability,
            tail,
            writer: Some(writer),
            membership,
            heartbeat: Mutex::new(None),
            hosts: Mutex::new(None),
        })
    }

    /// Joins the hosts of the database as a host other hosts reach at
    /// `address` (`host:port`), whose leases last `lease` past its last
    /// heartbeat (see `cluster.rs`). From then on every write of a match
    /// is fenced by its lease, and a match is made live here only once
    /// this host holds it.
    pub fn join(&self, address: &str, lease: Duration) -> HostResult<()> {
        let heartbeat = cluster::join(&self.target, &self.membership, address, lease)?;
        *self.heartbeat.lock().unwrap_or_else(|e| e.into_inner()) = Some(heartbeat);
        Ok(())
    }

    /// This host's id among the database's hosts, once it joined.
    pub fn host_id(&self) -> Option<String> {
        self.membership.me().map(|id| id.to_string())
    }

    /// Calls `told` with this host's id now (if it joined) and with each
    /// new id it takes later (after its row went stale).
    pub fn on_new_host_id(&self, told: cluster::TellId) {
        self.membership.on_new_id(told);
    }

    /// What a host's witness writes when the host died (see
    /// `crash_note`): the host's rows count as stale at once, so the
    /// others take its matches without waiting out the lease, and
    /// `died_in` — the match and the trusted plugin call the host died in
    /// — is left in that match's lease for its next holder. Opens a
    /// connection of its own to `url`.
    pub fn record_death(
        url: &str,
        host_ids: &[String],
        died_in: Option<(&str, &str)>,
    ) -> HostResult<()> {
        let mut connection = Target::parse(url)?.connect()?;
        cluster::record_death(&mut connection, host_ids, died_in)
    }

    /// The server and database, as messages name them (`host:port/db`,
    /// never a password).
    pub fn server(&self) -> &str {
        &self.target.name
    }

    /// Queues a write for the writer thread.
    fn queue(&self, write: Write) -> HostResult<Commit> {
        let (done_tx, done_rx) = tokio::sync::oneshot::channel();
        self.jobs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .send((write, done_tx))
            .map_err(|_| HostError::Internal("the match store writer has stopped".into()))?;
        Ok(Commit::queued(done_rx))
    }

    /// Queues a write and waits until its transaction has committed.
    fn write(&self, write: Write) -> HostResult<()> {
        self.queue(write)?.wait()
    }

    /// Runs `read` on a reader thread's connection.
    fn read<T: Send + 'static>(
        &self,
        read: impl Fn(&mut Connection) -> HostResult<T> + Send + 'static,
    ) -> HostResult<T> {
        self.readers.read(read)
    }
}

/// The writer's start, on its thread: its connection, the schema brought
/// to this host's version, and the feed's tail at the last row committed.
fn start(writer: &mut writer::Writer) -> HostResult<()> {
    let mut connection = writer.target.connect()?;
    let applied = schema::migrate(&mut connection, &writer.target.name)?;
    for applied in applied {
        tracing::info!(
            server = %writer.target.name,
            version = applied.version,
            "match store schema brought to version {}: {}",
            applied.version,
            applied.name
        );
    }
    writer
        .tail
        .send_replace(read::last_lifecycle_row(&mut connection)?);
    writer.connection = Some(pipeline::Pipeline::open(&writer.target)?);
    Ok(())
}

impl Drop for PostgresStore {
    fn drop(&mut self) {
        // Replacing the only sender ends the writer's loop once the queue
        // is empty.
        let (unused, _) = mpsc::channel();
        drop(std::mem::replace(
            self.jobs.get_mut().unwrap_or_else(|e| e.into_inner()),
            unused,
        ));
        if let Some(writer) = self.writer.take()
            && writer.join().is_err()
        {
            tracing::error!("the match store writer panicked");
        }
    }
}

impl Store for PostgresStore {
    fn create_match(&self, new: &NewMatch<'_>) -> HostResult<Commit> {
        self.queue(Write::create(new))
    }

    fn append(&self, match_id: &str, change: &Change<'_>) -> HostResult<Commit> {
        self.queue(Write::append(match_id, change))
    }

    fn join_seat(
        &self,
        match_id: &str,
        join: SeatJoin,
        token_hash: [u8; 32],
        lifecycle: &[LifecycleEvent],
    ) -> HostResult<()> {
        self.write(Write::join(match_id, join, token_hash, lifecycle))
    }

    fn load(&self, match_id: &str) -> HostResult<Option<StoredMatch>> {
        let match_id = match_id.to_string();
        self.read(move |connection| read::load(connection, &match_id))
    }

    fn load_unfinished(&self) -> HostResult<Vec<Result<StoredMatch, DamagedMatch>>> {
        self.read(read::load_unfinished)
    }

    fn list(&self, query: &MatchQuery) -> HostResult<Vec<StoredSummary>> {
        let query = query.clone();
        self.read(move |connection| read::list(connection, &query))
    }

    fn lifecycle_after(&self, after_seq: u64, limit: usize) -> HostResult<Vec<LifecycleRow>> {
        self.read(move |connection| read::lifecycle_after(connection, after_seq, limit))
    }

    fn lifecycle_tail(&self) -> tokio::sync::watch::Receiver<u64> {
        self.tail.clone()
    }

    fn request(&self, request_id: &str) -> HostResult<Option<StoredRequest>> {
        let request_id = request_id.to_string();
        self.read(move |connection| read::request(connection, &request_id))
    }

    fn backup(&self, _: &Path) -> HostResult<Backup> {
        Err(HostError::Unsupported(format!(
            "the PostgreSQL store is backed up by PostgreSQL's own tools, not by the host: \
             run `pg_dump --format=custom --file=FILE` on the database ({}) while the host runs, \
             and `pg_restore` it into an empty database to restore",
            self.target.name
        )))
    }

    fn reissue_token(&self, match_id: &str, seat: u32, token_hash: [u8; 32]) -> HostResult<()> {
        self.write(Write::Reissue {
            match_id: match_id.to_string(),
            seat,
            token_hash,
        })
    }

    fn credentials(&self) -> HostResult<Vec<StoredCredential>> {
        self.read(read::credentials)
    }

    fn issue_credential(&self, credential: &StoredCredential) -> HostResult<()> {
        self.write(Write::IssueCredential(credential.clone()))
    }

    fn revoke_credential(&self, credential_id: &str, at_ms: i64) -> HostResult<bool> {
        let known = self
            .credentials()?
            .iter()
            .any(|c| c.credential_id == credential_id);
        if known {
            self.write(Write::RevokeCredential {
                credential_id: credential_id.to_string(),
                at_ms,
            })?;
        }
        Ok(known)
    }

    fn reachable(&self) -> tokio::sync::watch::Receiver<bool> {
        self.reachability.subscribe()
    }

    fn shared_key(&self, name: &str, proposed: [u8; 32]) -> HostResult<[u8; 32]> {
        let name = name.to_string();
        self.read(move |connection| read::shared_key(connection, &name, proposed))
    }

    fn claim(&self, match_id: &str) -> HostResult<Claim> {
        let Some(me) = self.membership.me() else {
            return Ok(Claim::Held {
                holders_died: 0,
                died_in: None,
            });
        };
        let match_id = match_id.to_string();
        self.read(move |connection| cluster::claim(connection, &match_id, &me))
    }

    fn holder(&self, match_id: &str) -> HostResult<Option<Holder>> {
        let Some(me) = self.membership.me() else {
            return Ok(None);
        };
        let match_id = match_id.to_string();
        let holder = self.read(move |connection| cluster::holder(connection, &match_id))?;
        Ok(holder.filter(|holder| *holder.host_id != *me))
    }

    fn release(&self, match_id: &str) -> HostResult<()> {
        let Some(me) = self.membership.me() else {
            return Ok(());
        };
        let match_id = match_id.to_string();
        self.read(move |connection| cluster::release(connection, &match_id, &me))
    }

    fn orphans(&self, limit: usize) -> HostResult<Vec<String>> {
        if self.membership.me().is_none() {
            return Ok(Vec::new());
        }
        self.read(move |connection| cluster::orphans(connection, limit))
    }

    fn leases_lost(&self) -> tokio::sync::watch::Receiver<u64> {
        self.membership.lost()
    }

    fn leave(&self) -> HostResult<u64> {
        // The heartbeat stops first, so it does not put the row back.
        drop(
            self.heartbeat
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take(),
        );
        let Some(me) = self.membership.me() else {
            return Ok(0);
        };
        self.read(move |connection| cluster::leave(connection, &me))
    }

    fn set_builds(&self, builds: &[String]) {
        self.membership.set_builds(builds);
    }

    fn hosts(&self) -> HostResult<Vec<HostRow>> {
        if self.membership.me().is_none() {
            return Ok(Vec::new());
        }
        if let Some((at, hosts)) = &*self.hosts.lock().unwrap_or_else(|e| e.into_inner())
            && at.elapsed() < HOSTS_FRESH_FOR
        {
            return Ok(hosts.clone());
        }
        let hosts = self.read(cluster::hosts)?;
        *self.hosts.lock().unwrap_or_else(|e| e.into_inner()) =
            Some((std::time::Instant::now(), hosts.clone()));
        Ok(hosts)
    }
}

#[cfg(test)]
mod tests;
