//! Where matches are kept. The core writes through this trait *before* it
//! answers a call, so an acknowledged action is stored; the in-memory store
//! keeps nothing across restarts (the durable SQLite store does).
//!
//! An action's write is queued while the match is locked and waited for
//! after the lock is released ([`Commit`]): the store commits writes in the
//! order they were queued, so a match's writes stay in order, and the next
//! action of a match (or of any other) need not wait for this one's fsync.

mod backup;
mod migrations;
pub mod sqlite;

use std::path::{Path, PathBuf};

use tokio::sync::oneshot;

use tabletop_core::{HostError, HostResult, LogEntry, MatchSetup, SeatResult};

/// A stored match: enough to rebuild it by replay.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredMatch {
    /// How it was created.
    pub setup: MatchSetup,
    /// Seat token hashes (None = open seat).
    pub seat_hashes: Vec<Option<[u8; 32]>>,
    /// Every state change.
    pub log: Vec<LogEntry>,
    /// Held simultaneous actions: (seat, action, submitted at ms).
    pub pending: Vec<(u32, u64, i64)>,
    /// Final results, if over.
    pub results: Vec<SeatResult>,
}

/// A write the store has accepted, durable once [`Commit::wait`] or
/// [`Commit::durable`] returns `Ok`. Dropping it does not undo the write; it
/// only gives up learning whether the write reached the disk.
#[must_use = "a write may be acknowledged only once its commit has been waited for"]
#[derive(Debug, Default)]
pub struct Commit {
    /// One completion per queued write; empty when everything is durable.
    waits: Vec<oneshot::Receiver<HostResult<()>>>,
}

impl Commit {
    /// Nothing to wait for: the write is durable (or, for the memory store,
    /// as durable as it will ever be).
    pub fn done() -> Commit {
        Commit::default()
    }

    /// A write that completes when the store sends its outcome on the other
    /// end of `receiver`.
    pub fn queued(receiver: oneshot::Receiver<HostResult<()>>) -> Commit {
        Commit {
            waits: vec![receiver],
        }
    }

    /// Adds `other`'s writes to the ones to wait for.
    pub fn add(&mut self, other: Commit) {
        self.waits.extend(other.waits);
    }

    /// Blocks the calling thread until every write is durable. Never call
    /// it on an async worker: use [`Commit::durable`] there.
    pub fn wait(self) -> HostResult<()> {
        for wait in self.waits {
            wait.blocking_recv()
                .unwrap_or_else(|_| Err(writer_gone()))?;
        }
        Ok(())
    }

    /// Waits, without blocking the thread, until every write is durable.
    pub async fn durable(self) -> HostResult<()> {
        for wait in self.waits {
            wait.await.unwrap_or_else(|_| Err(writer_gone()))?;
        }
        Ok(())
    }
}

fn writer_gone() -> HostError {
    HostError::Internal("the match store writer stopped before committing".into())
}

/// Persistence for matches. Implementations must be safe to call from many
/// threads. `join_seat` returns once its data is durable; `create_match`
/// and `append` queue and return a [`Commit`] to wait on, and the store
/// commits what they queue in the order it was queued.
pub trait Store: Send + Sync + std::fmt::Debug {
    /// Queues a new match (its setup, seats and the log entries made at
    /// creation). Never blocks on I/O, like `append`.
    fn create_match(&self, stored: &StoredMatch) -> HostResult<Commit>;
    /// Queues new log entries of a match, the pending simultaneous actions
    /// after them (`None` when they are as last stored: most actions of
    /// most games hold none before or after), and its results if it just
    /// ended. Never blocks on I/O, so it may be called under a match's lock
    /// on an async worker.
    fn append(
        &self,
        match_id: &str,
        entries: &[LogEntry],
        pending: Option<&[(u32, u64, i64)]>,
        results: &[SeatResult],
    ) -> HostResult<Commit>;
    /// A seat was joined.
    fn join_seat(&self, match_id: &str, seat: u32, token_hash: [u8; 32]) -> HostResult<()>;
    /// Every stored match, for recovery at start.
    fn load_all(&self) -> HostResult<Vec<StoredMatch>>;
    /// Writes a consistent copy of the store to a new file at `to` while
    /// the host goes on (an existing file is refused, never overwritten).
    fn backup(&self, to: &Path) -> HostResult<Backup>;
}

/// What [`Store::backup`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backup {
    /// The new file.
    pub path: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// How many matches it holds.
    pub matches: u64,
}

/// Keeps nothing: matches live only in the host's memory.
#[derive(Debug, Default)]
pub struct MemoryStore;

impl Store for MemoryStore {
    fn create_match(&self, _: &StoredMatch) -> HostResult<Commit> {
        Ok(Commit::done())
    }

    fn append(
        &self,
        _: &str,
        _: &[LogEntry],
        _: Option<&[(u32, u64, i64)]>,
        _: &[SeatResult],
    ) -> HostResult<Commit> {
        Ok(Commit::done())
    }

    fn join_seat(&self, _: &str, _: u32, _: [u8; 32]) -> HostResult<()> {
        Ok(())
    }

    fn load_all(&self) -> HostResult<Vec<StoredMatch>> {
        Ok(Vec::new())
    }

    fn backup(&self, _: &Path) -> HostResult<Backup> {
        Err(HostError::Unsupported(
            "the memory store keeps nothing on disk to back up; start the host with \
             --store sqlite"
                .into(),
        ))
    }
}
