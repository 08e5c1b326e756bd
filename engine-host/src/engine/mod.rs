//! The engine: plugins, live matches and storage behind one synchronous API.
//! It knows nothing of gRPC. The adapter in `grpc` calls it on the blocking
//! pool, or, for the hot calls, first tries the `try_*` forms, which never
//! wait for a lock or the disk and so may run on an async worker (see
//! [`inline`]).
//!
//! [`Engine`] is made of parts that each own their state behind a small
//! API and know nothing of the engine or of each other's fields:
//!
//! | part | file | what it holds |
//! |---|---|---|
//! | `MatchTable` | `table.rs` | the live matches by id, how many are unfinished, which have a clock |
//! | `UnavailableMatches` | `unavailable.rs` | the stored matches this host cannot play, and why |
//! | `LiveMatch` | `live.rs` | one match: the core's `Match` and the host's bookkeeping for it |
//! | `Creation` | `creation.rs` | who may create, the request key, a request's checks and setup |
//! | `Catalog` | `catalog.rs` | the loaded plugins, vetting, the catalog, restoring a stored match |
//! | `Credentials` | `access.rs` | the admin token and the organizer credentials |
//! | `Bots` | `bots.rs` | the queue of matches a bot may move in, and the bots' search |
//! | `FaultQueue` | `faults.rs` | plugin workers' faults on their way to quarantining a match |
//! | `InlineCalls` | `inline.rs` | the calls running on callers' threads, and each plugin's trust |
//! | `Withdrawals` | `withdrawals.rs` | revoked credentials and re-issued seat tokens, told to the streams they opened |
//!
//! Besides the parts, `lifecycle.rs` says what a change means for the
//! lifecycle feed, `listing.rs` pages a listing, and `search_thread.rs`
//! runs a bot's search at idle priority.
//!
//! The engine coordinates them: this file holds the parts and what every
//! call shares (finding a match, making one live, persisting a change);
//! the calls themselves are grouped by what they serve: `create` (new
//! matches, imports, joining), `play` (views, legal actions, submits,
//! resignation), `records` (listing, export, watching), `director` (a
//! director's controls, the lifecycle feed), `plugins` (loading plugins,
//! the catalog), `recovery` (restart and clocks), `bot_moves` (the bot
//! threads) and `backup`.

mod access;
mod backup;
mod bot_moves;
mod bot_queue;
pub mod bots;
mod catalog;
mod cluster;
mod create;
mod creation;
mod director;
mod dormant;
mod faults;
pub mod inline;
mod lifecycle;
mod listing;
mod live;
mod play;
mod plugins;
mod records;
mod recovery;
mod search_thread;
mod table;
mod unavailable;
mod withdrawals;

pub use access::{Caller, CredentialInfo, Need};
pub use catalog::{GameEntry, Offered};
pub use creation::{Created, NewMatch};
pub use listing::{ListQuery, MatchSummary};
pub use live::LiveMatch;
pub use withdrawals::{OpenedWith, SeatGrant, Withdrawn};

use std::panic::{AssertUnwindSafe, catch_unwind};

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tabletop_loader::isolation::Isolation;

use tabletop_core::legal::CachedMatches;
use tabletop_core::{
    History, HostError, HostResult, Match, MatchView, SeatResult, Subscription, now_ms,
};
use tabletop_loader::{Plugin, Registry, Vetter};
use tabletop_sdk::{ActionId, Viewer};

use access::Credentials;
use bots::Bots;
use catalog::Catalog;
use creation::Creation;
use inline::{DEFAULT_INLINE_LIMIT, InlineCalls};
use live::SeatHashes;
use table::{MatchTable, Slot};
use unavailable::UnavailableMatches;
use withdrawals::Withdrawals;

use crate::metrics::{MatchCounts, metrics};
use crate::store::{Commit, Store, StoredMatch};

/// The legal actions of a seat: (match version, seat, (id, notation) pairs,
/// and the board elements each involves in the same order, or no lists at
/// all for ids only and a game that does not name them).
pub type LegalActions = (u64, u32, Vec<(ActionId, String)>, Vec<Vec<String>>);

/// An action as the caller named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionRef {
    /// By id.
    Id(ActionId),
    /// By notation.
    Notation(String),
}

/// An accepted action: the submitter's view, and whether the action is held
/// for a simultaneous turn.
pub type Submission = (MatchView, bool);

/// A loaded plugin in the admin listing.
#[derive(Debug, Clone)]
pub struct PluginEntry {
    /// The plugin.
    pub plugin: Arc<Plugin>,
    /// Matches played with it.
    pub match_ids: Vec<String>,
    /// Those of them that are quarantined.
    pub quarantined: Vec<String>,
    /// On a store several hosts share, the live hosts that have loaded this
    /// game version.
    pub hosts: Vec<String>,
}

/// Where a watcher or a page of events starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resume {
    /// Nowhere: a snapshot, then live events.
    Live,
    /// After the event with this sequence number.
    AfterSeq(u64),
    /// After the event that produced this version.
    FromVersion(u64),
}

/// The start of a watch: what to send first, and the live feed.
#[derive(Debug)]
pub struct WatchStart {
    /// Who watches.
    pub viewer: Viewer,
    /// A snapshot to send first (watching without a resume point).
    pub snapshot: Option<MatchView>,
    /// The last event the watcher has (from its resume point, or the
    /// snapshot's): the past events after it come from `history`.
    pub after_seq: u64,
    /// The match's past events, up to the subscription.
    pub history: Arc<History>,
    /// Future events (with views while it is held, if asked for).
    pub subscription: Subscription,
    /// Whether the match is already over.
    pub finished: bool,
    /// Whether the watcher is a spectator of a match with a spectator
    /// delay: it is told the events up to [`Engine::spectator_horizon`],
    /// and more as that moves.
    pub paced: bool,
}

/// What restart recovery did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recovered {
    /// Matches restored and playable.
    pub restored: usize,
    /// Matches listed as unavailable (with their reasons).
    pub unavailable: Vec<(String, String)>,
}

/// What [`Engine::try_create_match`] did.
#[derive(Debug)]
pub enum TryCreate {
    /// It ran on this thread: the answer, and the commit to wait for before
    /// acknowledging it (if that fails, [`Engine::discard`] the match).
    Ran(HostResult<Created>, Commit),
    /// The game's plugin may not run here: the request back, to create with
    /// [`Engine::create_match`] off the async workers.
    Declined(NewMatch),
}

/// A director's control over a match (see [`tabletop_core::director`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Control {
    /// End it without a result.
    Abort {
        /// Why.
        reason: String,
    },
    /// End it with these results, one per seat.
    Adjudicate {
        /// The results.
        results: Vec<SeatResult>,
    },
    /// Stop its clocks and refuse actions.
    Pause,
    /// Restart its clocks.
    Resume,
    /// Give a seat more time.
    AddTime {
        /// The seat.
        seat: u32,
        /// How much, in ms.
        ms: i64,
    },
}

/// How many matches keep their legal-action lists at once (see
/// [`tabletop_core::legal`]): a few KiB each at most, so a few tens of MiB in all,
/// however many matches the host holds.
pub const KEPT_LEGAL_MATCHES: usize = 8192;

/// The server's core: its parts, coordinated.
#[derive(Debug)]
pub struct Engine {
    catalog: Catalog,
    table: MatchTable,
    unavailable: UnavailableMatches,
    store: Arc<dyn Store>,
    credentials: Credentials,
    creation: Creation,
    /// Matches that keep their legal-action lists.
    kept_legal: CachedMatches,
    /// Calls running on their caller's thread, and which plugins may.
    inline: Arc<InlineCalls>,
    bots: Bots,
    /// Faults of plugin workers, for the quarantine thread.
    faults: faults::FaultQueue,
    /// Revocations and re-issued seat tokens, for the streams they end.
    withdrawals: Withdrawals,
    /// Whether the store reaches its database ([`Store::reachable`]).
    store_reachable: tokio::sync::watch::Receiver<bool>,
}

/// Runs a call on the caller's thread; a panic in host code becomes an
/// internal error, as it does for a call on the blocking pool.
fn caught<T>(call: impl FnOnce() -> HostResult<T>) -> HostResult<T> {
    catch_unwind(AssertUnwindSafe(call)).unwrap_or_else(|_| {
        Err(HostError::Internal(
            "the host failed while serving the call".into(),
        ))
    })
}

impl Engine {
    /// An engine with no plugins and no matches.
    pub fn new(store: Arc<dyn Store>, admin_token: &str, cache_dir: PathBuf) -> Engine {
        Engine::with_admin_token_hash(
            store,
            tabletop_core::tokens::hash_token(admin_token),
            cache_dir,
        )
    }

    /// An engine with no plugins and no matches, whose admin token is known
    /// by its hash only (every host on a shared store takes the first one's:
    /// see [`Store::shared_key`]).
    pub fn with_admin_token_hash(
        store: Arc<dyn Store>,
        admin_token_hash: [u8; 32],
        cache_dir: PathBuf,
    ) -> Engine {
        Engine {
            catalog: Catalog::new(cache_dir),
            table: MatchTable::default(),
            unavailable: UnavailableMatches::default(),
            credentials: Credentials::with_admin_token_hash(admin_token_hash, Arc::clone(&store)),
            store_reachable: store.reachable(),
            store,
            creation: Creation::default(),
            kept_legal: CachedMatches::new(KEPT_LEGAL_MATCHES),
            inline: Arc::new(InlineCalls::new(Some(DEFAULT_INLINE_LIMIT))),
            bots: Bots::default(),
            faults: faults::FaultQueue::default(),
            withdrawals: Withdrawals::default(),
        }
    }

    /// Runs plugins as `isolation` says — in worker processes but for the
    /// builds it trusts — and quarantines the match whose call kills a
    /// worker (once [`Engine::spawn_quarantine_thread`] runs).
    pub fn with_isolation(self, isolation: Isolation) -> Engine {
        let isolation = self.faults.connect(isolation);
        Engine {
            catalog: self.catalog.with_isolation(isolation),
            ..self
        }
    }

    /// The longest any bot thinks about one move, whatever its spec says.
    pub fn with_bot_max_think(self, limit: Duration) -> Engine {
        Engine {
            bots: self.bots.with_max_think(limit),
            ..self
        }
    }

    /// The longest a bot of an anonymous caller's match thinks about one
    /// move (within [`Engine::with_bot_max_think`]'s cap).
    pub fn with_anonymous_bot_max_think(self, limit: Duration) -> Engine {
        Engine {
            bots: self.bots.with_anonymous_max_think(limit),
            ..self
        }
    }

    /// The most bot searches one creator's matches run at once.
    pub fn with_bot_searches_per_creator(self, searches: usize) -> Engine {
        Engine {
            bots: self.bots.with_searches_per_creator(searches),
            ..self
        }
    }

    /// Whether callers without a credential may create matches (without a
    /// seed or a hidden-information start position, which always need
    /// one); by default they may.
    pub fn with_anonymous_create(self, allowed: bool) -> Engine {
        Engine {
            creation: self.creation.with_anonymous_create(allowed),
            ..self
        }
    }

    /// Aborts an anonymous caller's match whose open seats are not all
    /// taken within `wait` (none: no bound).
    pub fn with_anonymous_wait(self, wait: Option<Duration>) -> Engine {
        Engine {
            creation: self.creation.with_anonymous_wait(wait),
            ..self
        }
    }

    /// Derives the seat tokens of idempotent creations from `key` (kept
    /// in the data directory, so a retry after a restart gets the same
    /// tokens); without it a random key lasts as long as the engine.
    pub fn with_request_key(self, key: [u8; 32]) -> Engine {
        Engine {
            creation: self.creation.with_request_key(key),
            ..self
        }
    }

    /// Vets every plugin file with `vetter` before it is loaded: a file that
    /// crashes, hangs or misbehaves in the child process is refused and
    /// never loaded here. Without it, files load unchecked, in this process.
    pub fn with_vetter(self, vetter: Vetter) -> Engine {
        Engine {
            catalog: self.catalog.with_vetter(vetter),
            ..self
        }
    }

    /// How long a plugin call may run on its caller's thread before that
    /// plugin's calls move to the blocking pool; `None`: no call from a
    /// `try_*` method runs at all (each answers "not now").
    pub fn with_inline_limit(self, limit: Option<Duration>) -> Engine {
        Engine {
            inline: Arc::new(InlineCalls::new(limit)),
            ..self
        }
    }

    /// The plugin registry.
    pub fn registry(&self) -> &Registry {
        self.catalog.registry()
    }

    /// The caller a bearer secret names: empty is anonymous; the admin
    /// token is the admin; an issued, unrevoked organizer credential is
    /// that organizer; anything else is refused.
    pub fn authenticate(&self, secret: &str) -> HostResult<Caller> {
        self.credentials.authenticate(secret)
    }

    /// Issues an organizer credential for `name` in `tenant` (empty: a
    /// tenant of its own): its description and its secret (returned here
    /// only).
    pub fn issue_credential(
        &self,
        caller: &Caller,
        name: &str,
        tenant: &str,
    ) -> HostResult<(CredentialInfo, String)> {
        self.credentials.issue(caller, name, tenant)
    }

    /// Revokes a credential: calls with it are refused from now on, and
    /// the streams it opened are told to end.
    pub fn revoke_credential(
        &self,
        caller: &Caller,
        credential_id: &str,
    ) -> HostResult<CredentialInfo> {
        let info = self.credentials.revoke(caller, credential_id)?;
        self.withdrawals
            .tell(Withdrawn::Credential(info.credential_id.clone()));
        Ok(info)
    }

    /// Every withdrawal of a credential or a seat token from now on: a
    /// stream subscribes before it checks what it is opened with, and asks
    /// [`Engine::still_open`] when one concerns it.
    pub fn withdrawals(&self) -> tokio::sync::broadcast::Receiver<Withdrawn> {
        self.withdrawals.subscribe()
    }

    /// Refuses a stream opened with `opened` as a new call with the same
    /// credential and seat token would be refused now (a revoked
    /// credential, a re-issued seat token: BAD_TOKEN); `Ok` while both
    /// still hold. Takes the match's lock for a seat token.
    pub fn still_open(&self, opened: &OpenedWith) -> HostResult<()> {
        self.credentials.check_still_valid(&opened.caller)?;
        if let Some(grant) = &opened.seat {
            let slot = self.slot(&grant.match_id)?;
            let m = live::lock(&slot);
            m.seat_of(&grant.token)?;
        }
        Ok(())
    }

    /// Every credential issued, revoked ones included, oldest first.
    pub fn list_credentials(&self, caller: &Caller) -> HostResult<Vec<CredentialInfo>> {
        self.credentials.list(caller)
    }

    /// Reads the valid credentials from the store now (the host does at
    /// start); returns how many there are.
    pub fn load_credentials(&self) -> HostResult<usize> {
        self.credentials.load()
    }

    /// How many matches are waiting or running.
    pub fn live_matches(&self) -> usize {
        self.table.unfinished()
    }

    /// How many matches of `tenant` are waiting or running.
    pub fn tenant_live_matches(&self, tenant: &str) -> usize {
        self.table.unfinished_in(tenant)
    }

    /// The matches held, by state, for the metrics.
    pub fn match_counts(&self) -> MatchCounts {
        let held = self.table.held();
        let live = self.live_matches();
        MatchCounts {
            live: live as u64,
            finished: held.saturating_sub(live) as u64,
            unavailable: self.unavailable.count() as u64,
        }
    }

    /// Lets go of the finished matches that finished (or were read back)
    /// longer than `retention` ago and that nobody watches: the store has
    /// them, and reads them back when asked. Returns how many it let go.
    pub fn unload_finished(&self, retention: Duration) -> usize {
        let unloaded = self.table.unload_finished(retention);
        metrics().unloaded(unloaded as u64);
        unloaded
    }

    /// The match `match_id`: held, or read back from the store; or why it
    /// cannot be played.
    fn slot(&self, match_id: &str) -> HostResult<Slot> {
        if match_id.is_empty() {
            return Err(HostError::InvalidRequest("a match id is required".into()));
        }
        if let Some(slot) = self.table.get(match_id) {
            return Ok(slot);
        }
        if let Some(reason) = self.unavailable.reason(match_id) {
            return Err(HostError::MatchUnavailable {
                match_id: match_id.to_string(),
                reason,
            });
        }
        self.load_stored(match_id)
    }

    /// Waits for the write of a change of `match_id`. When it failed (the
    /// store's database is down, the disk is full), the change was never
    /// acknowledged, yet the live match holds it: the host lets go of the
    /// match, and its next call reads it back from the store as stored, so
    /// play goes on from there once the store is back instead of every
    /// later write being refused for the one missing before it.
    pub(crate) fn settle(&self, match_id: &str, commit: Commit) -> HostResult<()> {
        commit
            .wait()
            .inspect_err(|_| self.forget_unstored(match_id))
    }

    /// Refuses a change at once while the store cannot reach its database:
    /// made in memory first, it could not be stored, and the match's
    /// watchers would be told of a move that never was. (A change made as
    /// the database goes away is still told, then refused: see
    /// `Engine::settle`.)
    pub(crate) fn store_within_reach(&self) -> HostResult<()> {
        if *self.store_reachable.borrow() {
            Ok(())
        } else {
            Err(HostError::StoreUnavailable(
                "the match store cannot reach its database; call again once it is back".into(),
            ))
        }
    }

    /// Lets go of a live match whose last change could not be stored (see
    /// `Engine::settle`).
    pub(crate) fn forget_unstored(&self, match_id: &str) {
        tracing::warn!(
            match_id,
            "a change of the match could not be stored: it is read back from the store at its next call"
        );
        self.table.discard(match_id);
    }

    /// A match the host does not hold (finished, and unloaded or never
    /// loaded since the start), read back from the store and made live.
    fn load_stored(&self, match_id: &str) -> HostResult<Slot> {
        let Some(stored) = self.store.load(match_id)? else {
            return Err(HostError::UnknownMatch {
                match_id: match_id.to_string(),
            });
        };
        // Another host of a shared store may hold it: the call belongs
        // there (the API forwards it there first; this is the race).
        if let cluster::Suspect::Quarantined {
            reason,
            stored: quarantined,
        } = self.claim(match_id)?
        {
            let stored = quarantined.map_or(stored, |quarantined| *quarantined);
            let version = stored.log.len() as u64;
            self.unavailable
                .insert(stored.setup.clone(), version, reason.clone(), Some(stored));
            return Err(HostError::MatchUnavailable {
                match_id: match_id.to_string(),
                reason,
            });
        }
        let m = self.catalog.restore(&stored).map_err(|reason| {
            // Another host with the plugin build may play it.
            self.release(match_id);
            HostError::MatchUnavailable {
                match_id: match_id.to_string(),
                reason,
            }
        })?;
        tracing::debug!(match_id, "match read back from the store");
        metrics().read_back();
        Ok(self.install_stored(m, stored))
    }

    /// Makes `m`, rebuilt from `stored`, live.
    fn install_stored(&self, m: Match, stored: StoredMatch) -> Slot {
        let holds_pending = !stored.pending.is_empty();
        self.install(m, holds_pending, stored.join_code_hashes)
    }

    /// Makes a match live (and watched by the clock if it has one), and
    /// queues it for the bots if one is to move (a new bot match, one
    /// recovered at a restart). `store_holds_pending`: whether the store
    /// holds held actions for it.
    fn install(&self, m: Match, store_holds_pending: bool, join_codes: SeatHashes) -> Slot {
        let trust = self
            .inline
            .trust_for(&m.setup().game, &m.setup().plugin_version);
        let bot_to_act = (m.has_bots() && bots::bots_to_act(&m))
            .then(|| (bots::creator_of(m.setup()), m.setup().match_id.clone()));
        let live = LiveMatch::new(m, trust, store_holds_pending, join_codes);
        let (slot, installed) = self.table.insert(live);
        if let Some((creator, match_id)) = bot_to_act.filter(|_| installed) {
            self.bots.queue().poke(&creator, &match_id);
        }
        slot
    }

    /// Queues the write of what changed in `m` since `version_before`; the
    /// caller waits for the commit once it has released the match's lock.
    fn persist(&self, m: &mut LiveMatch, version_before: u64) -> HostResult<Commit> {
        let lifecycle = lifecycle::ended(m, version_before);
        let change = m.change_since(version_before, &lifecycle);
        let commit = self.store.append(&m.setup().match_id, &change)?;
        if m.stored() {
            self.table.one_finished(&m.setup().tenant);
            metrics().match_finished(&m.setup().game);
        }
        self.bots.poke_if_due(m);
        Ok(commit)
    }

    /// Ends `m` if its clock ran out, and queues the timeout's write.
    fn expire_locked(&self, m: &mut LiveMatch, commit: &mut Commit) -> HostResult<bool> {
        let before = m.version();
        let expired = m.expire_clock(now_ms())?;
        if expired {
            tracing::info!(match_id = %m.setup().match_id, "a clock ran out");
            commit.add(self.persist(m, before)?);
        }
        Ok(expired)
    }
}
