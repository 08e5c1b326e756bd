//! The embedded default store: one SQLite file under the data directory.
//!
//! Durability: the database runs in WAL mode, and a write is acknowledged
//! only once the WAL file holding its commit has been fsynced; a call that
//! wrote through this store returns only after that.
//!
//! Ownership: the file belongs to one open store at a time, held through a
//! lock file beside it (`StoreLock`); a second store on the same file, in
//! this process or another, is refused. So the one connection can run in
//! SQLite's exclusive locking mode, and every read (`read.rs`) goes
//! through the writer thread that owns it.
//!
//! Group commit: every write goes to one writer thread through a channel
//! and the caller waits on its own completion channel (an append's caller
//! waits through the [`Commit`] it gets back, after releasing the match's
//! lock). The writer takes the first waiting write, drains whatever else
//! has queued up meanwhile (up to [`MAX_BATCH`]), and commits them all in
//! one transaction, each inside its own savepoint so one failing write
//! fails only its caller. The commit itself does not wait for the disk
//! (`synchronous=NORMAL`); the WAL file is fsynced after it, and only then
//! are the callers told. Who runs that fsync depends on how long the disk
//! takes ([`INLINE_FSYNC_BELOW`]): on a disk that flushes fast (~0.2 ms) the
//! writer does it itself, since handing the batch to another thread costs
//! more CPU than the wait; on a slow one (~4 ms) a syncer thread does, one fsync for every
//! batch committed since its last, so the writer builds the next batch
//! while the disk works on the last one.
//!
//! Why that is as durable as `synchronous=FULL`: in WAL mode a transaction
//! is durable once the WAL frames up to its commit frame are on disk, which
//! is what FULL's fsync at each commit ensures. An fsync of the WAL file
//! after the commit has returned covers those same frames. With NORMAL,
//! SQLite still syncs the WAL before each checkpoint, the database after it,
//! and the WAL header when the WAL starts over, so frames the fsync missed
//! are never needed.
//!
//! Schema (all JSON columns use the same serde shapes as records), applied
//! at start as numbered migrations (`migrations.rs`, SQL files run by
//! refinery; the file's version is also SQLite's `user_version`, and a file
//! from a newer host is refused):
//! - `matches(match_id, setup_json, pending_json, results_json, game, state,
//!   created_at_ms, first_log_seq, final_version, log_json)` — the columns
//!   after the JSON ones serve listings (indexed by creation and by state);
//!   a finished match's whole log is kept in `log_json`, so reading it back
//!   by id is one row
//! - `seats(match_id, seat, token_hash, joined_at_ms, join_order)` — SHA-256
//!   of the token, never the token; NULL for an open seat; when and in which
//!   order a seat open at creation was taken
//! - `log(seq, match_id, version, entry_json)` — every log entry, chance
//!   outcomes included, keyed by the order it was written in. So every
//!   insert lands on the table's last page, and a commit rewrites one or two
//!   pages instead of one per match it touched, which an index on
//!   `(match_id, version)` would cost (about a third of the store's CPU per
//!   action). Nothing needs that index: a start reads the log once in `seq`
//!   order from the first row of the oldest match not finished
//!   (`first_log_seq`), which is each match's version order, since the
//!   engine appends a match's entries under its lock; replaying a match
//!   checks the versions run 1, 2, 3, … and names the match if they do not.
//!   A file whose log table is keyed by `(match_id, version)` reads the same.
//! - `lifecycle(seq, match_id, event_json)` — each step of a match's life,
//!   written in the transaction of the change it describes
//! - `requests(request_id, request_hash, match_id, response)` — creations
//!   made idempotent by a request id

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rusqlite::Connection;

use tabletop_core::{HostError, HostResult, SeatJoin};

mod check;
pub mod export;
mod marks;
mod read;
mod salvage;
mod scan;
mod wal;
mod write;

use super::backup::backup;
use super::{
    Backup, Change, Commit, DamagedMatch, LifecycleEvent, LifecycleRow, MatchQuery, NewMatch,
    Store, StoredCredential, StoredMatch, StoredRequest, StoredSummary, migrations,
};
pub use salvage::{FileReport, check_file};

/// The store's file in a host's data directory.
pub const STORE_FILE: &str = "matches.sqlite3";
use write::Write;

/// Most writes committed in one transaction.
pub const MAX_BATCH: usize = 256;

/// The writer fsyncs the WAL itself while the last fsync took less than
/// this, and hands batches to the syncer thread once one took longer: at
/// 0.2 ms the thread hop costs more than the overlap saves, at 4 ms the
/// overlap is most of a batch's time. In between
/// the threshold is a judgement, not a measurement.
pub const INLINE_FSYNC_BELOW: Duration = Duration::from_millis(1);

/// A queued write and who waits for its outcome.
type Queued = (Write, tokio::sync::oneshot::Sender<HostResult<()>>);

/// What the writer thread is asked to do. Reads go through it too: the
/// writer's connection holds the file locked (`locking_mode=EXCLUSIVE`), so
/// no other connection could read it.
enum Job {
    Write(Queued),
    Read(Read),
}

/// A read, answered on the writer's connection between batches.
type Read = Box<dyn FnOnce(&Connection) + Send>;

/// The SQLite store. Dropping it waits for the writer to finish what was
/// queued and close the file, so the file is free again when the drop
/// returns (it is locked while open, see [`SqliteStore::open`]).
#[derive(Debug)]
pub struct SqliteStore {
    path: PathBuf,
    jobs: Mutex<mpsc::Sender<Job>>,
    /// The last durable lifecycle row's number, sent once its fsync is done.
    tail: tokio::sync::watch::Receiver<u64>,
    writer: Option<std::thread::JoinHandle<()>>,
    /// Released after the writer (fields drop after `Drop::drop`).
    _lock: StoreLock,
}

/// An exclusive lock on `<store>.lock` beside the database, held while the
/// store is open: two hosts appending to one file would each write logs
/// the other's matches do not have. SQLite's own locks do not keep a second
/// process out (in WAL mode it holds only a shared lock between writes), so
/// the store takes one of its own. The OS drops it when the process ends,
/// however it ends, so a crash leaves nothing to clean up.
#[derive(Debug)]
struct StoreLock {
    _held: std::fs::File,
}

impl StoreLock {
    fn take(path: &Path) -> HostResult<StoreLock> {
        let lock_path = beside(path, ".lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| {
                HostError::Internal(format!(
                    "cannot open the match store's lock file {}: {e}",
                    lock_path.display()
                ))
            })?;
        match file.try_lock() {
            Ok(()) => Ok(StoreLock { _held: file }),
            Err(std::fs::TryLockError::WouldBlock) => Err(HostError::Internal(format!(
                "the match store {} is in use by another engine-host (it holds {})",
                path.display(),
                lock_path.display()
            ))),
            Err(std::fs::TryLockError::Error(e)) => Err(HostError::Internal(format!(
                "cannot lock the match store {}: {e}",
                lock_path.display()
            ))),
        }
    }
}

fn writer_stopped() -> HostError {
    HostError::Internal("the match store writer has stopped".into())
}

fn db_error(e: rusqlite::Error) -> HostError {
    HostError::Internal(format!("the match store failed: {e}"))
}

fn json_error(e: serde_json::Error) -> HostError {
    HostError::Internal(format!("the match store holds unreadable data: {e}"))
}

/// The error of a store that cannot be opened: the file, SQLite's words,
/// and what to do.
fn cannot_open(path: &Path, e: impl std::fmt::Display) -> HostError {
    HostError::Internal(format!(
        "cannot open the match store {}: {e}. If the file is damaged, move it (and any \
         -wal file beside it) aside and start again, with no matches or with a backup put in \
         its place",
        path.display()
    ))
}

/// Opens the writer's connection: the only one the store ever has.
fn open(path: &Path) -> HostResult<Connection> {
    let conn = Connection::open(path).map_err(|e| cannot_open(path, e))?;
    let db_error = |e| cannot_open(path, e);
    // The file is this process's alone (`StoreLock`), so the connection
    // runs in exclusive locking mode: the WAL's index lives in this
    // process's memory instead of a shared-memory file, and a transaction
    // does less locking. Set before the first access, which decides it.
    // Anyone else reading the file (a `sqlite3` shell) makes a commit wait
    // for the read to end, up to the busy timeout, rather than fail.
    conn.busy_timeout(std::time::Duration::from_secs(10))
        .map_err(db_error)?;
    conn.pragma_update(None, "locking_mode", "EXCLUSIVE")
        .map_err(db_error)?;
    // WAL: commits append to the log instead of rewriting pages in place;
    // the WAL is fsynced before a write is acknowledged (see the module
    // docs), so an acknowledged action survives a power cut.
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(db_error)?;
    // Commits leave the WAL's fsync to the Flusher (see the module docs).
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(db_error)?;
    conn.pragma_update(None, "foreign_keys", "ON")
        .map_err(db_error)?;
    Ok(conn)
}

/// Opens the existing store file at `path` for an offline tool (`tabletop
/// store check` or `migrate`): locked against a host while the lock is
/// held, its schema brought to this host's version as a host's start would.
fn open_offline(path: &Path) -> HostResult<(StoreLock, Connection)> {
    if !path.is_file() {
        return Err(HostError::Internal(format!(
            "no match store at {}",
            path.display()
        )));
    }
    let lock = StoreLock::take(path)?;
    let mut conn = open(path)?;
    migrations::migrate(&mut conn)?;
    Ok((lock, conn))
}

impl SqliteStore {
    /// Opens (or creates) the store at `path`, locked for this process
    /// alone (opening it again while it is open fails, naming the likely
    /// cause), and starts its writer and syncer threads.
    pub fn open(path: &Path) -> HostResult<SqliteStore> {
        SqliteStore::open_with(path, INLINE_FSYNC_BELOW)
    }

    /// [`SqliteStore::open`] with the writer fsyncing itself while the last
    /// fsync took less than `inline_fsync_below` ([`INLINE_FSYNC_BELOW`];
    /// tests force either path with `Duration::MAX` or `Duration::ZERO`).
    pub fn open_with(path: &Path, inline_fsync_below: Duration) -> HostResult<SqliteStore> {
        let lock = StoreLock::take(path)?;
        let fresh = std::fs::metadata(path).map_or(true, |m| m.len() == 0);
        check::writable(path)?;
        warn_if_wal_damaged(path);
        let mut conn = open(path)?;
        let applied = migrations::migrate(&mut conn)?;
        if warn_if_pages_damaged(&conn, path) {
            conn = salvage::rebuild_if_only_indexes(path, conn)?;
        }
        if fresh {
            tracing::info!(
                store = %path.display(),
                "a new match store: no matches yet"
            );
        }
        for applied in applied {
            tracing::info!(
                store = %path.display(),
                version = applied.version,
                "match store schema brought to version {}: {}",
                applied.version,
                applied.name
            );
        }
        // The schema's commit made the WAL file; it is fsynced, and the
        // directory once, so the file itself survives a power cut. That
        // first fsync is also the first estimate of the disk's speed.
        let wal = wal_file(path)?;
        let started = Instant::now();
        wal.sync_all()
            .and_then(|()| sync_dir(path))
            .map_err(|e| HostError::Internal(format!("cannot sync the match store: {e}")))?;
        let last_fsync_us = Arc::new(AtomicU64::new(micros(started.elapsed())));
        // Every row already in the file is durable: the fsync above covers
        // any a process that died before its own fsync left in the WAL.
        let (reached, marker) = match check::Reached::of_store(&conn) {
            Ok(reached) => (
                reached,
                Some(Arc::new(check::CommitMarker::open(path, reached)?)),
            ),
            Err(e) => {
                tracing::error!(
                    store = %path.display(),
                    "the match store's last rows do not read ({e}): whether it lost \
                     acknowledged writes cannot be told, and none will be noted"
                );
                (check::Reached::default(), None)
            }
        };
        // The log's end, when the store's last rows read (the marker is
        // kept only then).
        let marking = marks::Marking::start(marker.is_some().then_some(reached.log_row));
        let (tail_tx, tail) = tokio::sync::watch::channel(reached.lifecycle_row as u64);
        let tail_tx = Arc::new(tail_tx);
        let syncer_wal = wal
            .try_clone()
            .map_err(|e| HostError::Internal(format!("cannot open the match store's WAL: {e}")))?;
        let (tx, rx) = mpsc::channel::<Job>();
        let (committed_tx, committed_rx) = mpsc::channel::<Committed>();
        let syncer_last_fsync_us = Arc::clone(&last_fsync_us);
        let syncer_tail = Arc::clone(&tail_tx);
        let syncer_marker = marker.clone();
        std::thread::Builder::new()
            .name("store-syncer".into())
            .spawn(move || {
                syncer(
                    &syncer_wal,
                    &syncer_last_fsync_us,
                    &Durable {
                        tail: &syncer_tail,
                        marker: syncer_marker.as_deref(),
                    },
                    committed_rx,
                )
            })
            .map_err(|e| HostError::Internal(format!("cannot start the store syncer: {e}")))?;
        let flusher = Flusher {
            wal,
            last_fsync_us,
            inline_below_us: micros(inline_fsync_below),
            syncer: committed_tx,
            tail: tail_tx,
            marker,
        };
        let writer = std::thread::Builder::new()
            .name("store-writer".into())
            .spawn(move || writer(conn, rx, flusher, marking))
            .map_err(|e| HostError::Internal(format!("cannot start the store writer: {e}")))?;
        Ok(SqliteStore {
            path: path.to_path_buf(),
            jobs: Mutex::new(tx),
            tail,
            writer: Some(writer),
            _lock: lock,
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Queues a write for the writer thread, which commits writes in the
    /// order they were queued.
    fn queue(&self, write: Write) -> HostResult<Commit> {
        let (done_tx, done_rx) = tokio::sync::oneshot::channel();
        self.send(Job::Write((write, done_tx)))?;
        Ok(Commit::queued(done_rx))
    }

    /// Hands `job` to the writer thread.
    fn send(&self, job: Job) -> HostResult<()> {
        self.jobs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .send(job)
            .map_err(|_| writer_stopped())
    }

    /// Queues a write and waits until its transaction has committed.
    fn write(&self, write: Write) -> HostResult<()> {
        self.queue(write)?.wait()
    }

    /// Runs `read` on the writer's connection, after the writes queued
    /// before it have committed, and returns its answer.
    fn read<T: Send + 'static>(
        &self,
        read: impl FnOnce(&Connection) -> HostResult<T> + Send + 'static,
    ) -> HostResult<T> {
        let (reply, answer) = mpsc::channel();
        self.send(Job::Read(Box::new(move |conn| {
            let _ = reply.send(read(conn));
        })))?;
        answer.recv().map_err(|_| writer_stopped())?
    }
}

impl Drop for SqliteStore {
    fn drop(&mut self) {
        // Replacing the only sender ends the writer's loop once the queue
        // is empty; its connection closes as the thread ends.
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

/// The WAL file of the database at `path`, opened to be fsynced.
fn wal_file(path: &Path) -> HostResult<std::fs::File> {
    let wal = beside(path, "-wal");
    std::fs::File::open(&wal).map_err(|e| {
        HostError::Internal(format!(
            "cannot open the match store's WAL {}: {e}",
            wal.display()
        ))
    })
}

/// Warns, before SQLite opens the store, when its WAL will not replay
/// whole (see `wal.rs`), and keeps a copy of it beside it for whoever
/// looks into what was lost.
fn warn_if_wal_damaged(path: &Path) {
    let wal_path = beside(path, "-wal");
    let wal::WalCheck::Damaged(why) = wal::check_wal(&wal_path) else {
        return;
    };
    let kept = beside(path, &format!("-wal.damaged-{}", tabletop_core::now_ms()));
    let copy = match std::fs::copy(&wal_path, &kept) {
        Ok(_) => format!("a copy is kept at {}", kept.display()),
        Err(e) => format!("it could not be copied aside: {e}"),
    };
    tracing::warn!(
        wal = %wal_path.display(),
        "the match store's WAL is damaged: {why}. SQLite keeps the transactions before the \
         damage and drops the rest, so actions acknowledged after it are lost; {copy}"
    );
}

/// Runs SQLite's quick check of every page at start and, when pages do
/// not parse, says so and answers `true`: the file is rebuilt when only
/// its indexes are damaged (`salvage.rs`), and otherwise the reads step
/// around the damage (`scan.rs`), so only the matches whose rows it held
/// are unavailable, each logged with its id.
fn warn_if_pages_damaged(conn: &Connection, path: &Path) -> bool {
    let problems = check::damaged_pages(conn, 20);
    if problems.is_empty() {
        return false;
    }
    tracing::error!(
        store = %path.display(),
        "the match store is damaged: {}. The host serves what reads; the matches whose rows \
         lie in damaged pages are unavailable, each named in the log. Stop the host and run \
         `tabletop store check {}` to see every damaged match and salvage the rest into a new \
         file",
        problems.join("; "),
        path.display()
    );
    true
}

/// The file named like `path` with `suffix` appended (`matches.sqlite3-wal`).
fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Fsyncs the directory holding `path`, so files created in it stay.
fn sync_dir(path: &Path) -> std::io::Result<()> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => std::fs::File::open(dir)?.sync_all(),
        _ => std::fs::File::open(".")?.sync_all(),
    }
}

/// A committed batch waiting for the fsync: each caller with its outcome,
/// and the number of the batch's last lifecycle row, if it wrote any.
struct Committed {
    callers: Vec<(tokio::sync::oneshot::Sender<HostResult<()>>, HostResult<()>)>,
    last_lifecycle_row: Option<u64>,
    /// The number of the batch's last log row, if it wrote any.
    last_log_row: Option<u64>,
}

/// Who learns that a batch is durable: the feed (its lifecycle rows) and
/// the commit marker (`check.rs`).
struct Durable<'a> {
    tail: &'a tokio::sync::watch::Sender<u64>,
    marker: Option<&'a check::CommitMarker>,
}

fn micros(duration: Duration) -> u64 {
    u64::try_from(duration.as_micros()).unwrap_or(u64::MAX)
}

/// Fsyncs the WAL and records how long it took in `last_fsync_us`.
fn fsync(wal: &std::fs::File, last_fsync_us: &AtomicU64) -> std::io::Result<()> {
    let started = Instant::now();
    let synced = wal.sync_data();
    let took = started.elapsed();
    last_fsync_us.store(micros(took), Ordering::Relaxed);
    crate::metrics::metrics().store_fsync(took);
    if let Err(e) = &synced {
        tracing::error!(error = %e, "match store fsync failed");
    }
    synced
}

/// Tells each caller of a committed batch its outcome, now that the fsync
/// that followed the commit has returned `synced`, and the feed that its
/// lifecycle rows are durable.
fn acknowledge(batch: Committed, synced: &std::io::Result<()>, durable: &Durable<'_>) {
    if synced.is_ok()
        && let Some(row) = batch.last_lifecycle_row
    {
        durable.tail.send_if_modified(|last| {
            let newer = row > *last;
            *last = (*last).max(row);
            newer
        });
    }
    if synced.is_ok()
        && let Some(marker) = durable.marker
    {
        marker.record(batch.last_log_row, batch.last_lifecycle_row);
    }
    for (done, outcome) in batch.callers {
        let outcome = match synced {
            Ok(()) => outcome,
            Err(e) => Err(HostError::Internal(format!(
                "the match store could not make the write durable: {e}"
            ))),
        };
        let _ = done.send(outcome);
    }
}

/// Makes the writer's committed batches durable, on the writer's thread or
/// the syncer's, whichever the last fsync's time says is cheaper
/// ([`INLINE_FSYNC_BELOW`]). Either way a batch is acknowledged only after
/// an fsync that began after its commit returned.
struct Flusher {
    wal: std::fs::File,
    /// Written by whichever thread ran the last fsync.
    last_fsync_us: Arc<AtomicU64>,
    inline_below_us: u64,
    syncer: mpsc::Sender<Committed>,
    tail: Arc<tokio::sync::watch::Sender<u64>>,
    marker: Option<Arc<check::CommitMarker>>,
}

impl Flusher {
    fn flush(&self, batch: Committed) {
        if self.last_fsync_us.load(Ordering::Relaxed) < self.inline_below_us {
            let durable = Durable {
                tail: &self.tail,
                marker: self.marker.as_deref(),
            };
            acknowledge(batch, &fsync(&self.wal, &self.last_fsync_us), &durable);
        } else if let Err(mpsc::SendError(batch)) = self.syncer.send(batch) {
            for (done, _) in batch.callers {
                let _ = done.send(Err(HostError::Internal(
                    "the match store syncer has stopped".into(),
                )));
            }
        }
    }
}

/// The syncer thread: fsyncs the WAL once for every batch committed since
/// the last fsync began, then tells their callers. A batch arrives only
/// after its commit returned, so the fsync that follows covers it.
fn syncer(
    wal: &std::fs::File,
    last_fsync_us: &AtomicU64,
    durable: &Durable<'_>,
    committed: mpsc::Receiver<Committed>,
) {
    while let Ok(first) = committed.recv() {
        let mut batch = first;
        for more in committed.try_iter() {
            batch.callers.extend(more.callers);
            batch.last_lifecycle_row = more.last_lifecycle_row.or(batch.last_lifecycle_row);
            batch.last_log_row = more.last_log_row.or(batch.last_log_row);
        }
        acknowledge(batch, &fsync(wal, last_fsync_us), durable);
    }
}

/// The writer thread: batches queued writes into one transaction each, and
/// hands each committed batch to the flusher, marking the log as it goes
/// (`marks.rs`); answers reads in between, one read between two batches.
///
/// Writes go first: every write queued when the writer looks is committed
/// before the next read runs, so a write waits for at most one read,
/// however many heavy reads (a page of a thousand matches, a long match's
/// log) a caller has queued; a read waits for the reads queued before it
/// and one batch each. A read still sees every write queued before it.
fn writer(
    mut conn: Connection,
    jobs: mpsc::Receiver<Job>,
    flusher: Flusher,
    mut marking: marks::Marking,
) {
    let mut reads: VecDeque<Read> = VecDeque::new();
    loop {
        let mut batch = Vec::new();
        if reads.is_empty() {
            match jobs.recv() {
                Ok(Job::Write(queued)) => batch.push(queued),
                Ok(Job::Read(read)) => reads.push_back(read),
                Err(_) => break,
            }
        }
        while batch.len() < MAX_BATCH {
            match jobs.try_recv() {
                Ok(Job::Write(queued)) => batch.push(queued),
                Ok(Job::Read(read)) => reads.push_back(read),
                Err(_) => break,
            }
        }
        if !batch.is_empty() {
            commit_batch(&mut conn, batch, &flusher, &mut marking);
        }
        if let Some(read) = reads.pop_front() {
            read(&conn);
        }
    }
    marking.reached(&conn, None, true);
}

/// Commits one batch of writes and hands it to the flusher; a failed
/// commit fails each of its writes.
fn commit_batch(
    conn: &mut Connection,
    batch: Vec<Queued>,
    flusher: &Flusher,
    marking: &mut marks::Marking,
) {
    // Writes almost never fail, so a batch first runs without a
    // savepoint per write (two statements each); only a batch in which
    // one fails runs again with them, so that it fails alone.
    let started = Instant::now();
    let result = run_batch(conn, &batch, Isolation::None).and_then(|done| match done {
        Some(outcomes) => Ok(outcomes),
        None => run_batch(conn, &batch, Isolation::Savepoints)
            .map(|outcomes| outcomes.unwrap_or_default()),
    });
    crate::metrics::metrics().store_commit(started.elapsed());
    match result {
        Ok(outcomes) => {
            let last_lifecycle_row = batch
                .iter()
                .any(|(write, _)| write.has_lifecycle())
                .then(|| last_row(conn, "lifecycle"))
                .flatten();
            let last_log_row = batch
                .iter()
                .any(|(write, _)| write.has_log())
                .then(|| last_row(conn, "log"))
                .flatten();
            for ((write, _), outcome) in batch.iter().zip(&outcomes) {
                if let (Some((match_id, rows)), Ok(())) = (write.log_rows(), outcome) {
                    marking.wrote(match_id, rows);
                }
            }
            flusher.flush(Committed {
                callers: batch
                    .into_iter()
                    .zip(outcomes)
                    .map(|((_, done), outcome)| (done, outcome))
                    .collect(),
                last_lifecycle_row,
                last_log_row,
            });
            marking.reached(conn, last_log_row, false);
        }
        Err(e) => {
            super::queued::log_commit_failure(&e, batch.len());
            let message = format!("the match store could not commit: {e}");
            for (_, done) in batch {
                let _ = done.send(Err(HostError::Internal(message.clone())));
            }
        }
    }
}

/// The number of the last row of `table` (`lifecycle` or `log`) committed
/// (`None` if it cannot be read: the feed and the commit marker then learn
/// of the rows with the next batch that has some).
fn last_row(conn: &Connection, table: &str) -> Option<u64> {
    conn.prepare_cached(&format!("SELECT MAX(rowid) FROM {table}"))
        .and_then(|mut statement| statement.query_row([], |row| row.get::<_, Option<i64>>(0)))
        .ok()
        .flatten()
        .map(|seq| seq as u64)
}

/// How the writes of one batch are kept apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Isolation {
    /// Not at all: a failing write abandons the whole batch.
    None,
    /// Each in its own savepoint: a failing write is undone alone.
    Savepoints,
}

/// Applies every write of `batch` in one transaction and commits it,
/// returning each write's outcome. With [`Isolation::None`] the first
/// failing write rolls the transaction back and `None` is returned (nothing
/// was written); with [`Isolation::Savepoints`] the answer is always `Some`.
fn run_batch(
    conn: &mut Connection,
    batch: &[Queued],
    isolation: Isolation,
) -> rusqlite::Result<Option<Vec<HostResult<()>>>> {
    let mut tx = conn.transaction()?;
    let mut outcomes = Vec::with_capacity(batch.len());
    for (write, _) in batch {
        let outcome = match isolation {
            Isolation::None => {
                let outcome = write::apply(&tx, write);
                if outcome.is_err() {
                    // Dropping the transaction rolls it back.
                    return Ok(None);
                }
                outcome
            }
            Isolation::Savepoints => {
                let sp = tx.savepoint()?;
                let outcome = write::apply(&sp, write);
                if outcome.is_ok() {
                    sp.commit()?;
                }
                // Dropping an uncommitted savepoint rolls back only this write.
                outcome
            }
        };
        outcomes.push(outcome);
    }
    tx.commit()?;
    Ok(Some(outcomes))
}

impl Store for SqliteStore {
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

    fn load(&self, match_id: &str) -> HostResult<Option<StoredMatch>> {
        let match_id = match_id.to_string();
        self.read(move |conn| read::load(conn, &match_id))
    }

    fn load_unfinished(&self) -> HostResult<Vec<Result<StoredMatch, DamagedMatch>>> {
        self.read(read::load_unfinished)
    }

    fn list(&self, query: &MatchQuery) -> HostResult<Vec<StoredSummary>> {
        let query = query.clone();
        self.read(move |conn| read::list(conn, &query))
    }

    fn lifecycle_after(&self, after_seq: u64, limit: usize) -> HostResult<Vec<LifecycleRow>> {
        self.read(move |conn| read::lifecycle_after(conn, after_seq, limit))
    }

    fn lifecycle_tail(&self) -> tokio::sync::watch::Receiver<u64> {
        self.tail.clone()
    }

    fn request(&self, request_id: &str) -> HostResult<Option<StoredRequest>> {
        let request_id = request_id.to_string();
        self.read(move |conn| read::request(conn, &request_id))
    }

    fn backup(&self, to: &Path) -> HostResult<Backup> {
        let to = to.to_path_buf();
        self.read(move |conn| backup(conn, &to))
    }
}

#[cfg(test)]
mod tests;
