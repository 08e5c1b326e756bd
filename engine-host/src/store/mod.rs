//! Where matches are kept. The host writes through [`Store`] *before* it
//! answers a call, so an acknowledged action is stored; the in-memory store
//! keeps nothing across restarts (the durable SQLite store does). The host
//! keeps running matches in memory and reads a finished one back from the
//! store when it is asked for.
//!
//! An action's write is queued while the match is locked and waited for
//! after the lock is released ([`Commit`]): the store commits writes in the
//! order they were queued, so a match's writes stay in order, and the next
//! action of a match (or of any other) need not wait for this one's fsync.

mod backup;
pub mod conformance;
pub mod memory;
pub mod migrate;
mod migrations;
pub mod postgres;
mod queued;
pub mod sqlite;

pub use backup::partial_backup_path;
pub use memory::MemoryStore;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;

use tabletop_core::{
    HeldAction, HostError, HostResult, Lifecycle, LogEntry, LogKind, MatchSetup, SeatJoin,
    SeatResult,
};

/// A stored match: enough to rebuild it by replay.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredMatch {
    /// How it was created.
    pub setup: MatchSetup,
    /// Seat token hashes (None = open seat).
    pub seat_hashes: Vec<Option<[u8; 32]>>,
    /// Per seat, the hash of the code that lets a player take it while it
    /// is open (None: taken, or open to anyone). Empty: no seat needs one.
    pub join_code_hashes: Vec<Option<[u8; 32]>>,
    /// The seats taken after creation, in the order they were taken.
    pub joins: Vec<SeatJoin>,
    /// Every state change.
    pub log: Vec<LogEntry>,
    /// The actions held for the current simultaneous turn, in submission
    /// order.
    pub pending: Vec<HeldAction>,
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

/// Persistence for matches: one design for every store (SQLite, memory
/// and PostgreSQL), checked by one suite
/// ([`conformance`]). Implementations must be safe to call from many
/// threads.
///
/// Writes are queued and return a [`Commit`] to wait on; the store commits
/// them in the order they were queued, each with the lifecycle rows that
/// describe it in the same transaction, so a lifecycle row exists exactly
/// when the change it reports does. Reads see every write whose commit
/// has completed.
pub trait Store: Send + Sync + std::fmt::Debug {
    /// Queues a new match: its setup, seats and the log entries made at
    /// creation, its lifecycle rows, and the request it answers when the
    /// caller made it idempotent (a second match under the same request id
    /// is refused). Never blocks on I/O, like `append`.
    fn create_match(&self, new: &NewMatch<'_>) -> HostResult<Commit>;
    /// Queues a change of a match: new log entries, the pending simultaneous
    /// actions after them (`None` when they are as last stored: most actions
    /// of most games hold none before or after), its results if it just
    /// ended, and the lifecycle rows that describe it. Never blocks on I/O,
    /// so it may be called under a match's lock on an async worker.
    fn append(&self, match_id: &str, change: &Change<'_>) -> HostResult<Commit>;
    /// A seat was taken (`join.seat`, by the holder of `token_hash`), with
    /// its lifecycle rows; returns once durable.
    fn join_seat(
        &self,
        match_id: &str,
        join: SeatJoin,
        token_hash: [u8; 32],
        lifecycle: &[LifecycleEvent],
    ) -> HostResult<()>;
    /// One match, as stored; `Ok(None)` when the store has never had it.
    /// A store that drops old matches (memory) answers
    /// [`HostError::MatchExpired`] for one it dropped; one whose stored
    /// data does not read back answers [`HostError::MatchUnavailable`]
    /// with the reason.
    fn load(&self, match_id: &str) -> HostResult<Option<StoredMatch>>;
    /// Every match not finished, for the host's start: finished matches
    /// stay in the store until asked for. A match whose stored data does
    /// not read back (a malformed row) is answered as [`DamagedMatch`],
    /// and the others load regardless.
    fn load_unfinished(&self) -> HostResult<Vec<Result<StoredMatch, DamagedMatch>>>;
    /// A page of matches, oldest first, that `query` selects.
    fn list(&self, query: &MatchQuery) -> HostResult<Vec<StoredSummary>>;
    /// Up to `limit` lifecycle rows after the one numbered `after_seq`, in
    /// order.
    fn lifecycle_after(&self, after_seq: u64, limit: usize) -> HostResult<Vec<LifecycleRow>>;
    /// The number of the last lifecycle row that is durable, updated as
    /// more become so. A feed sends a row only once this has reached it,
    /// so no platform is told of a change a crash could still undo.
    fn lifecycle_tail(&self) -> tokio::sync::watch::Receiver<u64>;
    /// The request stored under `request_id`, if any.
    fn request(&self, request_id: &str) -> HostResult<Option<StoredRequest>>;
    /// Writes a consistent copy of the store to a new file at `to` while
    /// the host goes on (an existing file is refused, never overwritten).
    fn backup(&self, to: &Path) -> HostResult<Backup>;
    /// A taken seat gets a new token (its holder lost theirs): the old
    /// hash is replaced; returns once durable.
    fn reissue_token(&self, match_id: &str, seat: u32, token_hash: [u8; 32]) -> HostResult<()>;
    /// Every credential issued, revoked ones included, oldest first.
    fn credentials(&self) -> HostResult<Vec<StoredCredential>>;
    /// Stores a newly issued credential; returns once durable.
    fn issue_credential(&self, credential: &StoredCredential) -> HostResult<()>;
    /// Marks a credential revoked at `at_ms`; returns once durable.
    /// `Ok(false)` when the store has no such credential.
    fn revoke_credential(&self, credential_id: &str, at_ms: i64) -> HostResult<bool>;
    /// Whether the store reaches where it keeps matches, updated as that
    /// changes: false while a database server is down (its calls answer
    /// [`HostError::StoreUnavailable`] meanwhile), and true again once it
    /// is back. The health service reports NOT_SERVING while it is false.
    /// A store in this process's memory or files is always reachable.
    fn reachable(&self) -> tokio::sync::watch::Receiver<bool> {
        // The sender goes at once: the value stays true and never changes.
        tokio::sync::watch::channel(true).1
    }
    /// The key named `name` that every host on this store holds alike:
    /// the one stored, or `proposed` when none is (stored then, for the
    /// hosts after). A store only this host opens answers `proposed`.
    fn shared_key(&self, name: &str, proposed: [u8; 32]) -> HostResult<[u8; 32]> {
        let _ = name;
        Ok(proposed)
    }

    // Several hosts on one store (the PostgreSQL store, once a host joins
    // it: see `postgres/cluster.rs`). A store only this host opens holds
    // every match here, and the defaults say so.

    /// Takes the lease of `match_id` for this host unless a live host
    /// holds it; says who holds it now. Called before a match is made
    /// live here.
    fn claim(&self, match_id: &str) -> HostResult<Claim> {
        let _ = match_id;
        Ok(Claim::Held {
            holders_died: 0,
            died_in: None,
        })
    }
    /// The live host other than this one that holds `match_id`, if one
    /// does: where a call about it belongs.
    fn holder(&self, match_id: &str) -> HostResult<Option<Holder>> {
        let _ = match_id;
        Ok(None)
    }
    /// Gives up this host's lease of `match_id` (a match it cannot play).
    fn release(&self, match_id: &str) -> HostResult<()> {
        let _ = match_id;
        Ok(())
    }
    /// Up to `limit` unfinished matches no live host holds (their host
    /// died): a host takes them, so their bots and clocks go on.
    fn orphans(&self, limit: usize) -> HostResult<Vec<String>> {
        let _ = limit;
        Ok(Vec::new())
    }
    /// Counts the times this host lost every lease at once (it was paused
    /// or cut off for longer than its lease): it must let go of every
    /// match it holds each time it moves.
    fn leases_lost(&self) -> tokio::sync::watch::Receiver<u64> {
        tokio::sync::watch::channel(0).1
    }
    /// Gives up every lease and leaves the hosts (at a graceful stop);
    /// returns how many leases it gave up.
    fn leave(&self) -> HostResult<u64> {
        Ok(0)
    }
    /// Tells the other hosts which plugin builds (`game@version`) this
    /// host has loaded.
    fn set_builds(&self, builds: &[String]) {
        let _ = builds;
    }
    /// The live hosts of the store: this one alone, unless several share
    /// it.
    fn hosts(&self) -> HostResult<Vec<HostRow>> {
        Ok(Vec::new())
    }
}

/// Who holds a match, after [`Store::claim`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// This host does: it may make the match live, unless the hosts that
    /// held it before died in it.
    Held {
        /// How many of its last holders died holding it (their lease
        /// lapsed) with no entry added to its log between: 0 when it was
        /// created here, given up or never held.
        holders_died: u32,
        /// The trusted plugin call its last holder died in, as that host's
        /// witness recorded it (see `crash_note`).
        died_in: Option<String>,
    },
    /// Another live host does.
    Elsewhere(Holder),
}

/// A live host holding a match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    /// Its id in the store.
    pub host_id: String,
    /// Where other hosts reach its gRPC API.
    pub address: String,
}

/// A live host of a shared store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostRow {
    /// Its id in the store.
    pub host_id: String,
    /// Where other hosts reach it.
    pub address: String,
    /// The plugin builds it has loaded, `game@version`.
    pub builds: Vec<String>,
}

/// A credential the admin issued, as stored: never its secret, only the
/// secret's hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredCredential {
    /// Its id (not secret).
    pub credential_id: String,
    /// Who it is for.
    pub name: String,
    /// What it may do (`organizer`).
    pub role: String,
    /// SHA-256 of its secret.
    pub secret_hash: [u8; 32],
    /// When it was issued.
    pub issued_at_ms: i64,
    /// When it was revoked, if it was.
    pub revoked_at_ms: Option<i64>,
    /// The tenant whose matches it runs.
    pub tenant: String,
}

/// A new match for [`Store::create_match`].
#[derive(Debug, Clone, Copy)]
pub struct NewMatch<'a> {
    /// The match.
    pub stored: &'a StoredMatch,
    /// Its lifecycle rows (created; started when no seat is open).
    pub lifecycle: &'a [LifecycleEvent],
    /// The request it answers, when the caller gave a request id.
    pub request: Option<&'a StoredRequest>,
}

/// A change of a match for [`Store::append`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Change<'a> {
    /// New log entries.
    pub entries: &'a [LogEntry],
    /// The held actions afterwards; `None`: as last stored.
    pub pending: Option<&'a [HeldAction]>,
    /// The results, when the change ended the match; empty otherwise.
    pub results: &'a [SeatResult],
    /// What the change means for the match's life.
    pub lifecycle: &'a [LifecycleEvent],
    /// The match's whole log, when the change ended it (with results, or
    /// none when it was aborted): a store may keep
    /// a finished match's log apart, to read it back by id at the cost of
    /// one row rather than a search through every match's entries.
    pub finished_log: Option<&'a [LogEntry]>,
}

/// One step in a match's life: what a tournament platform follows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LifecycleEvent {
    /// The match.
    pub match_id: String,
    /// When, ms since the Unix epoch.
    pub at_ms: i64,
    /// The match's game, so a feed filters without reading the match.
    #[serde(default)]
    pub game: String,
    /// The match's labels, for the same reason.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// The match's tenant (empty: the admin's), so a feed keeps to its
    /// follower's tenant without reading the match.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tenant: String,
    /// What happened.
    #[serde(flatten)]
    pub kind: LifecycleKind,
}

/// What happened in a match's life.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LifecycleKind {
    /// The match was created.
    Created {
        /// Its seats.
        players: u32,
        /// The plugin version.
        #[serde(default)]
        plugin_version: String,
        /// Who holds the seats taken at creation.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        seat_players: Vec<tabletop_core::SeatPlayer>,
    },
    /// A seat was taken.
    SeatFilled {
        /// The seat.
        seat: u32,
        /// Who took it.
        #[serde(
            default,
            skip_serializing_if = "tabletop_core::SeatPlayer::is_anonymous"
        )]
        player: tabletop_core::SeatPlayer,
    },
    /// No seat is open any more: play begins.
    Started,
    /// A seat left the game while the others may play on.
    SeatOut {
        /// The seat.
        seat: u32,
        /// Why.
        reason: OutReason,
    },
    /// A director paused the match.
    Paused,
    /// A director resumed it.
    Resumed,
    /// A director gave a seat more time.
    TimeAdded {
        /// The seat.
        seat: u32,
        /// How much, in ms.
        added_ms: i64,
    },
    /// The host quarantined the match: its plugin's worker died in one of
    /// the match's calls.
    Quarantined {
        /// Why.
        reason: String,
    },
    /// The admin lifted the quarantine.
    Released,
    /// The match is over.
    Finished {
        /// Every seat's result.
        results: Vec<SeatResult>,
        /// Who played each seat, where someone said.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        players: Vec<tabletop_core::SeatPlayer>,
        /// Whether a director decided them.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        adjudicated: bool,
    },
    /// The match ended without a result.
    Aborted {
        /// Why.
        reason: String,
    },
    /// The host found the match stored but cannot play it.
    Unavailable {
        /// Why.
        reason: String,
    },
}

/// Why a seat left a match, as views say it. The feed's rows use the same
/// reasons, and also report a resignation or time-out that ended the match
/// as that seat leaving (stored as `"resigned"`, `"clock"`, …).
pub use tabletop_core::OutReason;

/// A lifecycle row: an event and its place in the store's single order.
#[derive(Debug, Clone, PartialEq)]
pub struct LifecycleRow {
    /// Its sequence number: 1, 2, … across all matches, increasing in the
    /// order the changes were committed.
    pub seq: u64,
    /// The event.
    pub event: LifecycleEvent,
}

/// A request made idempotent by its id: what a retry is answered with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRequest {
    /// The caller's request id.
    pub request_id: String,
    /// A hash of the request, to refuse a different request under the
    /// same id.
    pub request_hash: [u8; 32],
    /// The match it created.
    pub match_id: String,
    /// The answer, as the caller encoded it.
    pub response: Vec<u8>,
}

/// Where a match is in its life as listings show and filter it, and as
/// the SQLite store's `state` column holds it: its stage, except that a
/// match the host quarantined is quarantined until it is released or ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListedState {
    /// It waits for players.
    Waiting,
    /// It is played.
    Running,
    /// It waits or runs, and is quarantined.
    Quarantined,
    /// It is over.
    Finished,
}

impl ListedState {
    /// The state of a match in `stage`, quarantined or not.
    pub fn of(stage: Lifecycle, quarantined: bool) -> ListedState {
        match stage {
            Lifecycle::Finished => ListedState::Finished,
            _ if quarantined => ListedState::Quarantined,
            Lifecycle::Waiting => ListedState::Waiting,
            Lifecycle::Running => ListedState::Running,
        }
    }
}

/// Which matches [`Store::list`] returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchQuery {
    /// Only this game.
    pub game: Option<String>,
    /// Only matches in this state.
    pub state: Option<ListedState>,
    /// Only matches with every one of these labels.
    pub labels: BTreeMap<String, String>,
    /// Only matches created at or after this time (ms since the epoch).
    pub created_from_ms: Option<i64>,
    /// Only matches created before this time.
    pub created_before_ms: Option<i64>,
    /// Only matches after this one in the order (creation time, id): the
    /// last of the previous page.
    pub after: Option<(i64, String)>,
    /// At most this many.
    pub limit: usize,
}

impl Default for MatchQuery {
    fn default() -> Self {
        MatchQuery {
            game: None,
            state: None,
            labels: BTreeMap::new(),
            created_from_ms: None,
            created_before_ms: None,
            after: None,
            limit: usize::MAX,
        }
    }
}

impl MatchQuery {
    /// Whether a match created as `setup`, now in `state`, is selected
    /// (the page bounds aside).
    pub fn selects(&self, setup: &MatchSetup, state: ListedState) -> bool {
        self.game.as_ref().is_none_or(|g| *g == setup.game)
            && self.state.is_none_or(|s| s == state)
            && self
                .labels
                .iter()
                .all(|(key, value)| setup.labels.get(key) == Some(value))
            && self
                .created_from_ms
                .is_none_or(|from| setup.created_at_ms >= from)
            && self
                .created_before_ms
                .is_none_or(|before| setup.created_at_ms < before)
            && self.after.as_ref().is_none_or(|(at, id)| {
                (setup.created_at_ms, setup.match_id.as_str()) > (*at, id.as_str())
            })
    }
}

/// A match in a listing.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredSummary {
    /// How it was created.
    pub setup: MatchSetup,
    /// Where it is in its life.
    pub state: ListedState,
    /// Its last version, once it is finished (a running match's is the
    /// host's to tell: it holds every running match).
    pub final_version: Option<u64>,
    /// Its open seats.
    pub open_seats: Vec<u32>,
    /// Why its stored setup does not read back, when it does not: then
    /// `setup` holds only what the row's other columns say (id, game,
    /// creation time).
    pub unreadable: Option<String>,
}

/// A stored match whose data does not read back: what its row still
/// says, and why the rest does not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DamagedMatch {
    /// Its id.
    pub match_id: String,
    /// Its game, as its row's `game` column says (empty if unreadable).
    pub game: String,
    /// Its creation time, as its row says (0 if unreadable).
    pub created_at_ms: i64,
    /// What does not read back, for a person.
    pub reason: String,
}

impl DamagedMatch {
    /// The setup a listing shows for it: its id, game and creation time,
    /// nothing more.
    pub fn setup(&self) -> MatchSetup {
        damaged_setup(&self.match_id, &self.game, self.created_at_ms)
    }
}

/// A setup holding only a match's id, game and creation time: what a
/// listing shows of a match whose stored setup does not read back.
pub fn damaged_setup(match_id: &str, game: &str, created_at_ms: i64) -> MatchSetup {
    MatchSetup {
        match_id: match_id.to_string(),
        game: game.to_string(),
        plugin_version: String::new(),
        plugin_sha256: None,
        players: 0,
        options: BTreeMap::new(),
        seed: 0,
        start_position: None,
        created_at_ms,
        time_control: None,
        labels: BTreeMap::new(),
        open_seat_deadline: None,
        spectator_delay: None,
        tenant: String::new(),
        creator: String::new(),
        seat_players: Vec::new(),
    }
}

impl StoredMatch {
    /// Where the match is in its life, from what is stored.
    pub fn state(&self) -> Lifecycle {
        let aborted = self
            .log
            .last()
            .is_some_and(|e| matches!(e.kind, LogKind::Abort { .. }));
        if !self.results.is_empty() || aborted {
            Lifecycle::Finished
        } else if self.seat_hashes.iter().any(Option::is_none)
            && !self
                .log
                .iter()
                .any(|e| matches!(e.kind, LogKind::Absent { .. }))
        {
            Lifecycle::Waiting
        } else {
            Lifecycle::Running
        }
    }

    /// Where the match is in its life as listings show it: quarantined
    /// when its log's last quarantine was not released and it is not
    /// finished.
    pub fn listed_state(&self) -> ListedState {
        let quarantined = self
            .log
            .iter()
            .rev()
            .find_map(|e| match e.kind {
                LogKind::Quarantine { .. } => Some(true),
                LogKind::Release { .. } => Some(false),
                _ => None,
            })
            .unwrap_or(false);
        ListedState::of(self.state(), quarantined)
    }

    /// Its summary for a listing.
    pub fn summary(&self) -> StoredSummary {
        StoredSummary {
            setup: self.setup.clone(),
            state: self.listed_state(),
            final_version: (self.state() == Lifecycle::Finished).then_some(self.log.len() as u64),
            open_seats: self
                .seat_hashes
                .iter()
                .enumerate()
                .filter(|(_, h)| h.is_none())
                .map(|(seat, _)| seat as u32)
                .collect(),
            unreadable: None,
        }
    }
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
