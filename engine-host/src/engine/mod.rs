//! The engine: plugins, live matches and storage behind one synchronous API.
//! It knows nothing of gRPC. The adapter in `grpc` calls it on the blocking
//! pool, or, for the hot calls, first tries the `try_*` forms, which never
//! wait for a lock or the disk and so may run on an async worker (see
//! [`inline`]).
//!
//! The methods are grouped by what they serve: `plugins` (the catalog and
//! loading plugins), `create` (new matches and joining), `play` (views,
//! legal actions, submits, resignation), `records` (listing, export,
//! import, watching), `recovery` (restart and clocks).

mod access;
mod backup;
pub mod bots;
mod create;
mod director;
pub mod inline;
mod lifecycle;
mod live;
mod play;
mod plugins;
mod records;
mod recovery;

pub use access::{Caller, CredentialInfo, Need};
pub use director::Control;
pub use live::LiveMatch;
pub use plugins::Offered;

use inline::{DEFAULT_INLINE_LIMIT, InlineCalls};

use std::collections::{BTreeMap, HashMap};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, TryLockError};
use std::time::Duration;

use tabletop_core::legal::CachedMatches;
use tabletop_core::tokens::{hash_token, new_token};
use tabletop_core::{
    History, HostError, HostResult, Lifecycle, Match, MatchSetup, MatchView, OnDeadline,
    SpectatorDelay, Subscription, TimeControl, ViewDetail, now_ms,
};
use tabletop_loader::{Plugin, Registry, Vetter};
use tabletop_sdk::{ActionId, Manifest, Viewer};

use crate::metrics::{MatchCounts, metrics};
use crate::store::{Commit, Store, StoredMatch};

/// A game in the catalog.
#[derive(Debug, Clone)]
pub struct GameEntry {
    /// The manifest of the version described.
    pub manifest: Manifest,
    /// Every loaded version, oldest first.
    pub versions: Vec<String>,
    /// The game's seat names for each player count (ascending); empty for a
    /// game that names none.
    pub seat_names: Vec<(u32, Vec<String>)>,
    /// Whether the game draws its board as SVG (the svg-board extension).
    pub svg_board: bool,
    /// Whether its actions name the board elements they involve (the
    /// action-targets extension).
    pub action_targets: bool,
}

/// The legal actions of a seat: (match version, seat, (id, notation) pairs,
/// and the board elements each involves in the same order, or no lists at
/// all for ids only and a game that does not name them).
pub type LegalActions = (u64, u32, Vec<(ActionId, String)>, Vec<Vec<String>>);

/// A request to create a match.
#[derive(Debug, Clone, Default)]
pub struct NewMatch {
    /// The game.
    pub game: String,
    /// A version, or the newest.
    pub version: Option<String>,
    /// Seats.
    pub players: u32,
    /// Options (raw text).
    pub options: BTreeMap<String, String>,
    /// Seed, or random.
    pub seed: Option<u64>,
    /// A start position in the game's notation.
    pub start_position: Option<String>,
    /// Seats left open for joining.
    pub open_seats: Vec<u32>,
    /// A clock, if any.
    pub time_control: Option<TimeControl>,
    /// How much of the match the answer's spectator view carries.
    pub view_detail: ViewDetail,
    /// Labels (tournament, round, table …).
    pub labels: BTreeMap<String, String>,
    /// The caller's id for this request, making a retry return the same
    /// match and tokens.
    pub request_id: Option<String>,
    /// How long after creation the open seats may be taken, and what
    /// happens to the match if they are not.
    pub open_seat_wait: Option<(i64, OnDeadline)>,
    /// How far behind spectators see the match while it runs.
    pub spectator_delay: Option<SpectatorDelay>,
    /// Who plays the seats taken at creation.
    pub seat_players: Vec<tabletop_core::SeatPlayer>,
    /// Whether anyone may take the open seats without a join code.
    pub public_open_seats: bool,
    /// (seat, spec) of the seats the host's bots play: no token is issued
    /// for them.
    pub bots: Vec<(u32, String)>,
}

/// A created match.
#[derive(Debug, Clone)]
pub struct Created {
    /// Its id.
    pub match_id: String,
    /// (seat, token) of the filled seats.
    pub tokens: Vec<(u32, String)>,
    /// (seat, join code) of the invite-only open seats.
    pub join_codes: Vec<(u32, String)>,
    /// The spectator's view.
    pub view: MatchView,
}

/// An action as the caller named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionRef {
    /// By id.
    Id(ActionId),
    /// By notation.
    Notation(String),
}

/// A match in a listing.
#[derive(Debug, Clone)]
pub struct MatchSummary {
    /// Id.
    pub match_id: String,
    /// Game.
    pub game: String,
    /// Plugin version.
    pub plugin_version: String,
    /// Seats.
    pub players: u32,
    /// Life stage (None: unavailable).
    pub lifecycle: Option<Lifecycle>,
    /// Version.
    pub version: u64,
    /// Open seats.
    pub open_seats: Vec<u32>,
    /// Creation time.
    pub created_at_ms: i64,
    /// Why unavailable.
    pub unavailable_reason: String,
    /// Labels.
    pub labels: BTreeMap<String, String>,
}

/// Which matches a listing shows, and which page.
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    /// Only this game.
    pub game: Option<String>,
    /// Only this stage (`Some(None)`: only the unavailable).
    pub state: Option<Option<Lifecycle>>,
    /// Only matches with every one of these labels.
    pub labels: BTreeMap<String, String>,
    /// Only matches created at or after this time.
    pub created_from_ms: Option<i64>,
    /// Only matches created before this time.
    pub created_before_ms: Option<i64>,
    /// At most this many (0: the default page).
    pub page_size: usize,
    /// Where the previous page ended (empty: the first page).
    pub page_token: String,
}

/// A loaded plugin in the admin listing.
#[derive(Debug, Clone)]
pub struct PluginEntry {
    /// The plugin.
    pub plugin: Arc<Plugin>,
    /// Matches played with it.
    pub match_ids: Vec<String>,
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

/// A stored match that cannot be played here.
#[derive(Debug, Clone)]
struct Unavailable {
    setup: MatchSetup,
    version: u64,
    reason: String,
    /// What the store holds, to retry when its plugin version is added
    /// (`None`: its stored data does not read back, so no plugin helps).
    stored: Option<StoredMatch>,
}

/// What restart recovery did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recovered {
    /// Matches restored and playable.
    pub restored: usize,
    /// Matches listed as unavailable (with their reasons).
    pub unavailable: Vec<(String, String)>,
}

/// The server's core.
#[derive(Debug)]
pub struct Engine {
    registry: Registry,
    /// Live matches by id. Every request looks its match up here (twice per
    /// bot action) and nothing needs them in order (listings sort), so a hash
    /// map: with 100 000 matches held, a B-tree's string compares and cache
    /// misses cost ~0.5 µs of a Lanzeloth action at that size.
    matches: RwLock<HashMap<String, Arc<Mutex<LiveMatch>>>>,
    /// How many of `matches` are not finished: the live-match cap reads it
    /// on every creation, so it is kept rather than counted.
    unfinished: AtomicUsize,
    unavailable: RwLock<BTreeMap<String, Unavailable>>,
    store: Arc<dyn Store>,
    admin_token_hash: [u8; 32],
    cache_dir: PathBuf,
    /// Matches whose clock may still run out.
    clocked: Mutex<std::collections::BTreeSet<String>>,
    /// Matches that keep their legal-action lists.
    kept_legal: CachedMatches,
    /// Calls running on their caller's thread, and which plugins may.
    inline: Arc<InlineCalls>,
    /// Checks each plugin file in a child process before it is loaded
    /// (always set by `main`; unset, files load unchecked).
    vetter: Option<Vetter>,
    /// The secret the seat tokens of an idempotent creation are derived
    /// from, so a retry gets the same tokens without the store keeping any.
    request_key: [u8; 32],
    /// The valid organizer credentials, read from the store on first use.
    credentials: RwLock<Option<access::CredentialIndex>>,
    /// Whether a caller without a credential may create matches.
    anonymous_create: bool,
    /// The matches that may need a bot move (see [`bots`]).
    bots: Arc<bots::BotQueue>,
    /// The longest a bot thinks about one move.
    bot_max_think: Duration,
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

/// An accepted action: the submitter's view, and whether the action is held
/// for a simultaneous turn.
pub type Submission = (MatchView, bool);

/// How many matches keep their legal-action lists at once (see
/// [`tabletop_core::legal`]): a few KiB each at most, so a few tens of MiB in all,
/// however many matches the host holds.
pub const KEPT_LEGAL_MATCHES: usize = 8192;

/// Runs a call on the caller's thread; a panic in host code becomes an
/// internal error, as it does for a call on the blocking pool.
fn caught<T>(call: impl FnOnce() -> HostResult<T>) -> HostResult<T> {
    catch_unwind(AssertUnwindSafe(call)).unwrap_or_else(|_| {
        Err(HostError::Internal(
            "the host failed while serving the call".into(),
        ))
    })
}

fn lock(m: &Mutex<LiveMatch>) -> MutexGuard<'_, LiveMatch> {
    // A panic in host code while holding the lock leaves the match as the last
    // completed call left it (every mutation is applied whole or not at all).
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The match's lock if it is free now; `None` when it is busy (perhaps inside
/// a plugin call that never returns). A poisoned lock is taken as [`lock`]
/// takes it.
fn try_lock(m: &Mutex<LiveMatch>) -> Option<MutexGuard<'_, LiveMatch>> {
    match m.try_lock() {
        Ok(m) => Some(m),
        Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

/// Each seat's token hash as stored (None = an open seat).
type SeatHashes = Vec<Option<[u8; 32]>>;

/// Fresh tokens for every seat of `players` except `open` ones: the (seat,
/// token) pairs to hand out, and each seat's hash to keep.
fn issue_tokens(players: u32, open: &[u32]) -> (Vec<(u32, String)>, SeatHashes) {
    let mut tokens = Vec::new();
    let mut hashes = Vec::new();
    for seat in 0..players {
        if open.contains(&seat) {
            hashes.push(None);
        } else {
            let token = new_token();
            hashes.push(Some(hash_token(&token)));
            tokens.push((seat, token));
        }
    }
    (tokens, hashes)
}

/// A new match id: time-ordered, so listings sort by creation.
fn new_match_id() -> String {
    format!("{:011x}{:08x}", now_ms(), rand::random::<u32>())
}

impl Engine {
    /// An engine with no plugins and no matches.
    pub fn new(store: Arc<dyn Store>, admin_token: &str, cache_dir: PathBuf) -> Engine {
        Engine {
            registry: Registry::new(),
            matches: RwLock::new(HashMap::new()),
            unfinished: AtomicUsize::new(0),
            unavailable: RwLock::new(BTreeMap::new()),
            store,
            admin_token_hash: hash_token(admin_token),
            cache_dir,
            clocked: Mutex::new(std::collections::BTreeSet::new()),
            kept_legal: CachedMatches::new(KEPT_LEGAL_MATCHES),
            inline: Arc::new(InlineCalls::new(Some(DEFAULT_INLINE_LIMIT))),
            vetter: None,
            request_key: rand::random(),
            credentials: RwLock::new(None),
            anonymous_create: true,
            bots: Arc::new(bots::BotQueue::default()),
            bot_max_think: bots::DEFAULT_MAX_THINK,
        }
    }

    /// The longest any bot thinks about one move, whatever its spec says.
    pub fn with_bot_max_think(mut self, limit: Duration) -> Engine {
        self.bot_max_think = limit;
        self
    }

    /// Whether callers without a credential may create matches (without a
    /// seed or a hidden-information start position, which always need
    /// one); by default they may.
    pub fn with_anonymous_create(mut self, allowed: bool) -> Engine {
        self.anonymous_create = allowed;
        self
    }

    /// Derives the seat tokens of idempotent creations from `key` (kept
    /// in the data directory, so a retry after a restart gets the same
    /// tokens); without it a random key lasts as long as the engine.
    pub fn with_request_key(mut self, key: [u8; 32]) -> Engine {
        self.request_key = key;
        self
    }

    /// Vets every plugin file with `vetter` before it is loaded: a file that
    /// crashes, hangs or misbehaves in the child process is refused and
    /// never loaded here. Without it, files load unchecked, in this process.
    pub fn with_vetter(mut self, vetter: Vetter) -> Engine {
        self.vetter = Some(vetter);
        self
    }

    /// How long a plugin call may run on its caller's thread before that
    /// plugin's calls move to the blocking pool; `None`: no call from a
    /// `try_*` method runs at all (each answers "not now").
    pub fn with_inline_limit(mut self, limit: Option<Duration>) -> Engine {
        self.inline = Arc::new(InlineCalls::new(limit));
        self
    }

    /// The plugin registry.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Makes a match live (and watched by the clock if it has one).
    /// `store_holds_pending`: whether the store holds held actions for it.
    fn install(
        &self,
        m: Match,
        store_holds_pending: bool,
        join_codes: Vec<Option<[u8; 32]>>,
    ) -> Arc<Mutex<LiveMatch>> {
        let trust = self
            .inline
            .trust_for(&m.setup().game, &m.setup().plugin_version);
        let id = m.setup().match_id.clone();
        if m.has_deadline() {
            self.clocked
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(id.clone());
        }
        // Two calls may read one stored match back at once: the first to
        // install it wins, and both use that one.
        let unfinished = m.lifecycle() != Lifecycle::Finished;
        // A bot to move (a new bot match, one recovered at a restart).
        let bot_to_act = m.has_bots() && m.bot_seats_to_act().is_ok_and(|s| !s.is_empty());
        let live = Arc::new(Mutex::new(LiveMatch::new(
            m,
            trust,
            store_holds_pending,
            join_codes,
        )));
        let mut matches = self.matches.write().unwrap_or_else(|e| e.into_inner());
        match matches.entry(id) {
            std::collections::hash_map::Entry::Occupied(held) => Arc::clone(held.get()),
            std::collections::hash_map::Entry::Vacant(free) => {
                if unfinished {
                    self.unfinished.fetch_add(1, Ordering::Relaxed);
                }
                if bot_to_act {
                    self.bots.poke(free.key());
                }
                Arc::clone(free.insert(live))
            }
        }
    }

    /// One match held in memory has finished (or an unfinished one left).
    pub(super) fn count_finished(&self) {
        let _ = self
            .unfinished
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
    }

    /// How many matches are waiting or running.
    pub fn live_matches(&self) -> usize {
        self.unfinished.load(Ordering::Relaxed)
    }

    /// The matches held, by state, for the metrics.
    pub fn match_counts(&self) -> MatchCounts {
        let held = self.matches.read().unwrap_or_else(|e| e.into_inner()).len();
        let live = self.live_matches();
        MatchCounts {
            live: live as u64,
            finished: held.saturating_sub(live) as u64,
            unavailable: self
                .unavailable
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .len() as u64,
        }
    }

    /// Lets go of the finished matches that finished (or were read back)
    /// longer than `retention` ago and that nobody watches: the store has
    /// them, and reads them back when asked. Returns how many it let go.
    pub fn unload_finished(&self, retention: Duration) -> usize {
        let now = std::time::Instant::now();
        let candidates: Vec<String> = self
            .matches
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .filter_map(|(id, slot)| {
                let m = try_lock(slot)?;
                let since = m.finished_at?;
                (now.duration_since(since) >= retention && !m.is_watched()).then(|| id.clone())
            })
            .collect();
        let mut matches = self.matches.write().unwrap_or_else(|e| e.into_inner());
        for id in &candidates {
            matches.remove(id);
        }
        metrics().unloaded(candidates.len() as u64);
        candidates.len()
    }

    fn slot(&self, match_id: &str) -> HostResult<Arc<Mutex<LiveMatch>>> {
        if match_id.is_empty() {
            return Err(HostError::InvalidRequest("a match id is required".into()));
        }
        if let Some(m) = self
            .matches
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(match_id)
        {
            return Ok(Arc::clone(m));
        }
        if let Some(u) = self
            .unavailable
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(match_id)
        {
            return Err(HostError::MatchUnavailable {
                match_id: match_id.to_string(),
                reason: u.reason.clone(),
            });
        }
        self.load_stored(match_id)
    }

    /// A match the host does not hold (finished, and unloaded or never
    /// loaded since the start), read back from the store and made live.
    fn load_stored(&self, match_id: &str) -> HostResult<Arc<Mutex<LiveMatch>>> {
        let Some(stored) = self.store.load(match_id)? else {
            return Err(HostError::UnknownMatch {
                match_id: match_id.to_string(),
            });
        };
        let m = self
            .restore(&stored)
            .map_err(|reason| HostError::MatchUnavailable {
                match_id: match_id.to_string(),
                reason,
            })?;
        tracing::debug!(match_id, "match read back from the store");
        metrics().read_back();
        let holds_pending = !stored.pending.is_empty();
        Ok(self.install(m, holds_pending, stored.join_code_hashes))
    }
}
