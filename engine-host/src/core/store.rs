//! Where matches are kept. The core writes through this trait *before* it
//! answers a call, so an acknowledged action is stored; the in-memory store
//! keeps nothing across restarts (the durable SQLite store does).

use super::error::HostResult;
use super::game_match::{LogEntry, MatchSetup, SeatResult};

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

/// Persistence for matches. Implementations must be safe to call from many
/// threads; each call returns only once its data is durable.
pub trait Store: Send + Sync + std::fmt::Debug {
    /// A new match (its setup, seats and the log entries made at creation).
    fn create_match(&self, stored: &StoredMatch) -> HostResult<()>;
    /// New log entries of a match, the pending simultaneous actions after them,
    /// and its results if it just ended.
    fn append(
        &self,
        match_id: &str,
        entries: &[LogEntry],
        pending: &[(u32, u64, i64)],
        results: &[SeatResult],
    ) -> HostResult<()>;
    /// A seat was joined.
    fn join_seat(&self, match_id: &str, seat: u32, token_hash: [u8; 32]) -> HostResult<()>;
    /// Every stored match, for recovery at start.
    fn load_all(&self) -> HostResult<Vec<StoredMatch>>;
}

/// Keeps nothing: matches live only in the host's memory.
#[derive(Debug, Default)]
pub struct MemoryStore;

impl Store for MemoryStore {
    fn create_match(&self, _: &StoredMatch) -> HostResult<()> {
        Ok(())
    }

    fn append(
        &self,
        _: &str,
        _: &[LogEntry],
        _: &[(u32, u64, i64)],
        _: &[SeatResult],
    ) -> HostResult<()> {
        Ok(())
    }

    fn join_seat(&self, _: &str, _: u32, _: [u8; 32]) -> HostResult<()> {
        Ok(())
    }

    fn load_all(&self) -> HostResult<Vec<StoredMatch>> {
        Ok(Vec::new())
    }
}
