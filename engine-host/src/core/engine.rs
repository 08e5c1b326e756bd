//! The engine: plugins, matches and storage behind one synchronous API. It
//! knows nothing of gRPC. The adapter in `grpc` calls it from a blocking
//! pool, or, for the hot calls, first tries the `try_*` forms, which never
//! wait for a lock or the disk and so may run on an async worker (see
//! [`super::inline`]).

use std::collections::{BTreeMap, HashMap};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, TryLockError};
use std::time::Duration;

use tabletop_sdk::{ActionId, DynGame, Manifest, Viewer};
use tokio::sync::broadcast;

use super::error::{Credential, HostError, HostResult};
use super::game_match::{
    Lifecycle, Match, MatchEvent, MatchSetup, MatchView, OnTimeout, Seat, Submitted, TimeControl,
    ViewDetail, now_ms,
};
use super::inline::{DEFAULT_INLINE_LIMIT, InlineCalls};
use super::legal::{CachedMatches, LegalDetail};
use super::record::Record;
use super::store::{Commit, Store, StoredMatch};
use super::tokens::{hash_token, hashes_equal, new_token};
use crate::plugin::Plugin;
use crate::plugin::registry::{AddError, Added, Registry};

/// A game in the catalog.
#[derive(Debug, Clone)]
pub struct GameEntry {
    /// The manifest of the version described.
    pub manifest: Manifest,
    /// Every loaded version, oldest first.
    pub versions: Vec<String>,
}

/// The legal actions of a seat: (match version, seat, (id, notation) pairs).
pub type LegalActions = (u64, u32, Vec<(ActionId, String)>);

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
}

/// A created match.
#[derive(Debug, Clone)]
pub struct Created {
    /// Its id.
    pub match_id: String,
    /// (seat, token) of the filled seats.
    pub tokens: Vec<(u32, String)>,
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
}

/// A loaded plugin in the admin listing.
#[derive(Debug, Clone)]
pub struct PluginEntry {
    /// The plugin.
    pub plugin: Arc<Plugin>,
    /// Matches played with it.
    pub match_ids: Vec<String>,
}

/// The start of a watch: what to send first, and the live feed.
#[derive(Debug)]
pub struct WatchStart {
    /// Who watches.
    pub viewer: Viewer,
    /// A snapshot to send first (None when `replay` covers the gap).
    pub snapshot: Option<MatchView>,
    /// Events missed since the resume version.
    pub replay: Vec<Arc<MatchEvent>>,
    /// Future events.
    pub receiver: broadcast::Receiver<Arc<MatchEvent>>,
    /// Whether the match is already over (send the snapshot and stop).
    pub finished: bool,
}

/// A stored match that cannot be played here.
#[derive(Debug, Clone)]
struct Unavailable {
    setup: MatchSetup,
    version: u64,
    reason: String,
    /// What the store holds, to retry when its plugin version is added.
    stored: StoredMatch,
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
    /// misses added ~0.5 µs to Lanzeloth's action (BENCHMARKS.md, session 18).
    matches: RwLock<HashMap<String, Arc<Mutex<Match>>>>,
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
/// [`super::legal`]): a few KiB each at most, so a few tens of MiB in all,
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

fn lock(m: &Mutex<Match>) -> MutexGuard<'_, Match> {
    // A panic in host code while holding the lock leaves the match as the last
    // completed call left it (every mutation is applied whole or not at all).
    m.lock().unwrap_or_else(|e| e.into_inner())
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
            unavailable: RwLock::new(BTreeMap::new()),
            store,
            admin_token_hash: hash_token(admin_token),
            cache_dir,
            clocked: Mutex::new(std::collections::BTreeSet::new()),
            kept_legal: CachedMatches::new(KEPT_LEGAL_MATCHES),
            inline: Arc::new(InlineCalls::new(Some(DEFAULT_INLINE_LIMIT))),
        }
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

    /// Loads one plugin file into the registry.
    pub fn add_plugin_file(&self, path: &Path) -> Result<Added, AddError> {
        // dlopen of a truncated library can fault the whole process (pages
        // mapped past the end of the file), so check completeness first.
        let bytes = std::fs::read(path)
            .map_err(|e| AddError::Load(crate::plugin::LoadError::Io(e.to_string())))?;
        if let Err(why) = check_complete_library(&bytes) {
            return Err(AddError::Load(crate::plugin::LoadError::Open(format!(
                "{} is incomplete ({why}); still being copied?",
                path.display()
            ))));
        }
        let added = self.registry.add_file(path, &self.cache_dir)?;
        if let Added::New { game, version } = &added {
            self.retry_unavailable(game, version);
        }
        Ok(added)
    }

    /// Loads every plugin file in `dir`; refusals are logged and skipped.
    /// Returns how many new plugins were loaded.
    pub fn load_plugin_dir(&self, dir: &Path) -> usize {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) => {
                tracing::error!(dir = %dir.display(), error = %e, "cannot read the plugin directory");
                return 0;
            }
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| is_plugin_file(p))
            .collect();
        files.sort();
        let mut loaded = 0;
        for file in files {
            match self.add_plugin_file(&file) {
                Ok(Added::New { game, version }) => {
                    tracing::info!(file = %file.display(), %game, %version, "plugin loaded");
                    loaded += 1;
                }
                Ok(Added::AlreadyLoaded { .. }) => {}
                Err(e) => {
                    tracing::warn!(file = %file.display(), reason = %e, "plugin refused");
                }
            }
        }
        loaded
    }

    /// Restart recovery: rebuilds every stored match by replaying its log
    /// through the plugin version it was created with. A match whose version is
    /// not loaded, or whose log no longer replays, is listed as unavailable
    /// with the reason; the others load regardless.
    pub fn recover(&self) -> HostResult<Recovered> {
        let mut report = Recovered::default();
        for stored in self.store.load_all()? {
            let id = stored.setup.match_id.clone();
            match self.restore(&stored) {
                Ok(m) => {
                    self.install(m);
                    report.restored += 1;
                }
                Err(reason) => {
                    tracing::warn!(match_id = %id, %reason, "match unavailable");
                    report.unavailable.push((id.clone(), reason.clone()));
                    self.unavailable
                        .write()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(
                            id,
                            Unavailable {
                                setup: stored.setup.clone(),
                                version: stored.log.len() as u64,
                                reason,
                                stored,
                            },
                        );
                }
            }
        }
        Ok(report)
    }

    /// Rebuilds one stored match, or says why it cannot be played here.
    fn restore(&self, stored: &StoredMatch) -> Result<Match, String> {
        let setup = &stored.setup;
        let plugin = self
            .registry
            .get(&setup.game, Some(&setup.plugin_version))
            .ok_or_else(|| {
                let loaded = self.registry.versions(&setup.game);
                format!(
                    "it was created with {} {}, which is not loaded (loaded versions: {}); \
                     put that plugin file in the plugin directory to resume it",
                    setup.game,
                    setup.plugin_version,
                    if loaded.is_empty() {
                        "none".to_string()
                    } else {
                        loaded.join(", ")
                    }
                )
            })?;
        let seats = stored
            .seat_hashes
            .iter()
            .map(|&token_hash| Seat {
                token_hash,
                resigned: false,
                out: false,
            })
            .collect();
        let game: Arc<dyn DynGame> = plugin;
        let mut m = Match::replay(game, setup.clone(), seats, &stored.log)
            .map_err(|e| format!("its stored log does not replay: {e}"))?;
        m.restore_pending(&stored.pending)
            .map_err(|e| format!("its pending actions do not restore: {e}"))?;
        m.resume_clocks(now_ms());
        Ok(m)
    }

    /// Retries unavailable matches of a game version that was just added.
    fn retry_unavailable(&self, game: &str, version: &str) {
        let candidates: Vec<Unavailable> = self
            .unavailable
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .filter(|u| u.setup.game == game && u.setup.plugin_version == version)
            .cloned()
            .collect();
        for u in candidates {
            if let Ok(m) = self.restore(&u.stored) {
                let id = u.setup.match_id.clone();
                self.install(m);
                self.unavailable
                    .write()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&id);
                tracing::info!(match_id = %id, "match available again");
            }
        }
    }

    /// Makes a match live (and watched by the clock if it has one).
    fn install(&self, mut m: Match) {
        m.inline_trust = Some(
            self.inline
                .trust_for(&m.setup.game, &m.setup.plugin_version),
        );
        let id = m.setup.match_id.clone();
        if m.has_running_clock() {
            self.clocked
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(id.clone());
        }
        self.matches
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, Arc::new(Mutex::new(m)));
    }

    /// Ends every match whose clock has run out (stored before it returns);
    /// returns how many ended. The host calls it on a timer, so a match ends
    /// when its time is up without waiting for a request.
    pub fn expire_clocks(&self) -> usize {
        let ids: Vec<String> = self
            .clocked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .cloned()
            .collect();
        let mut ended = 0;
        for id in ids {
            let Ok(slot) = self.slot(&id) else {
                self.clocked
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&id);
                continue;
            };
            let mut m = lock(&slot);
            let mut commit = Commit::done();
            let expired = self.expire_locked(&mut m, &mut commit);
            if !m.has_running_clock() {
                self.clocked
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&id);
            }
            drop(m);
            match expired.and_then(|expired| commit.wait().map(|()| expired)) {
                Ok(true) => ended += 1,
                Ok(false) => {}
                Err(e) => tracing::error!(match_id = %id, error = %e, "clock expiry failed"),
            }
        }
        ended
    }

    /// Ends `m` if its clock ran out, and queues the timeout's write.
    fn expire_locked(&self, m: &mut Match, commit: &mut Commit) -> HostResult<bool> {
        let before = m.version();
        let expired = m.expire_clock(now_ms())?;
        if expired {
            tracing::info!(match_id = %m.setup.match_id, "a clock ran out");
            commit.add(self.persist(m, before)?);
        }
        Ok(expired)
    }

    /// Checks the admin token.
    pub fn check_admin(&self, token: &str) -> HostResult<()> {
        if token.is_empty() {
            return Err(HostError::TokenRequired {
                credential: Credential::Admin,
            });
        }
        if !hashes_equal(&hash_token(token), &self.admin_token_hash) {
            return Err(HostError::BadToken {
                credential: Credential::Admin,
            });
        }
        Ok(())
    }

    /// Every game, newest version of each.
    pub fn list_games(&self) -> Vec<GameEntry> {
        self.registry
            .latest()
            .into_iter()
            .map(|p| GameEntry {
                versions: self.registry.versions(&p.manifest().name),
                manifest: p.manifest().clone(),
            })
            .collect()
    }

    /// One game.
    pub fn get_game(&self, name: &str, version: Option<&str>) -> HostResult<GameEntry> {
        let plugin = self.plugin(name, version)?;
        Ok(GameEntry {
            manifest: plugin.manifest().clone(),
            versions: self.registry.versions(name),
        })
    }

    fn plugin(&self, name: &str, version: Option<&str>) -> HostResult<Arc<Plugin>> {
        if name.is_empty() {
            return Err(HostError::InvalidRequest("a game name is required".into()));
        }
        self.registry
            .get(name, version)
            .ok_or_else(|| match version {
                Some(v) if self.registry.get(name, None).is_some() => {
                    HostError::UnknownGameVersion {
                        game: name.to_string(),
                        version: v.to_string(),
                        loaded: self.registry.versions(name),
                    }
                }
                _ => HostError::UnknownGame {
                    game: name.to_string(),
                },
            })
    }

    fn slot(&self, match_id: &str) -> HostResult<Arc<Mutex<Match>>> {
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
        Err(HostError::UnknownMatch {
            match_id: match_id.to_string(),
        })
    }

    /// Creates a match; stored before this returns.
    pub fn create_match(&self, request: NewMatch) -> HostResult<Created> {
        let plugin = self.plugin(&request.game, request.version.as_deref())?;
        let (created, commit) = self.create_match_queued(&plugin, request)?;
        if let Err(e) = commit.wait() {
            self.discard(&created.match_id);
            return Err(e);
        }
        Ok(created)
    }

    /// [`Engine::create_match`] without waiting for the disk, on this
    /// thread, unless its plugin may not run here (see [`TryCreate`]).
    pub fn try_create_match(&self, request: NewMatch) -> TryCreate {
        let plugin = match self.plugin(&request.game, request.version.as_deref()) {
            Ok(plugin) => plugin,
            Err(e) => return TryCreate::Ran(Err(e), Commit::done()),
        };
        let manifest = plugin.manifest();
        let trust = self.inline.trust_for(&manifest.name, &manifest.version);
        let Some(_running) = self.inline.begin(&trust) else {
            return TryCreate::Declined(request);
        };
        match caught(|| self.create_match_queued(&plugin, request)) {
            Ok((created, commit)) => TryCreate::Ran(Ok(created), commit),
            Err(e) => TryCreate::Ran(Err(e), Commit::done()),
        }
    }

    /// Forgets a live match whose creation could not be stored: its
    /// creator never learned its tokens, and a restart would not know it.
    pub fn discard(&self, match_id: &str) {
        self.matches
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(match_id);
        self.clocked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(match_id);
    }

    /// Creates and installs a match of `plugin` (the one `request` names),
    /// and queues its write.
    fn create_match_queued(
        &self,
        plugin: &Arc<Plugin>,
        request: NewMatch,
    ) -> HostResult<(Created, Commit)> {
        let manifest = plugin.manifest();
        if request.players < manifest.min_players || request.players > manifest.max_players {
            return Err(HostError::InvalidSetup(format!(
                "{} is played by {} to {} players, not {}",
                manifest.name, manifest.min_players, manifest.max_players, request.players
            )));
        }
        if let Some(tc) = &request.time_control {
            tc.validate().map_err(HostError::InvalidSetup)?;
            if tc.on_timeout == OnTimeout::Out {
                // `out` takes one seat out while the others play on: with two
                // seats that is just `lose`, and only games that can remove a
                // player mid-game (their manifest says so) can do it at all.
                if request.players < 3 {
                    return Err(HostError::InvalidSetup(format!(
                        "on_timeout `out` needs at least 3 players (this match has {}); \
                         use `lose`",
                        request.players
                    )));
                }
                if !manifest.removable_players {
                    return Err(HostError::InvalidSetup(format!(
                        "{} cannot take a player out of a running game, so on_timeout \
                         `out` is not available; use `lose`",
                        manifest.name
                    )));
                }
            }
        }
        for &seat in &request.open_seats {
            if seat >= request.players {
                return Err(HostError::InvalidSetup(format!(
                    "open seat {seat} does not exist (seats 0..{})",
                    request.players
                )));
            }
        }
        let (tokens, hashes) = issue_tokens(request.players, &request.open_seats);
        let setup = MatchSetup {
            match_id: new_match_id(),
            game: manifest.name.clone(),
            plugin_version: manifest.version.clone(),
            players: request.players,
            options: request.options,
            seed: request.seed.unwrap_or_else(rand::random),
            start_position: request.start_position,
            created_at_ms: now_ms(),
            time_control: request.time_control,
        };
        let game: Arc<dyn DynGame> = Arc::<Plugin>::clone(plugin);
        let m = Match::create(game, setup, hashes.clone())?;
        self.store_new(m, hashes, tokens, request.view_detail)
    }

    /// Queues the write of a match just created or imported, makes it live,
    /// and answers with its tokens and the spectator's view.
    fn store_new(
        &self,
        m: Match,
        seat_hashes: SeatHashes,
        tokens: Vec<(u32, String)>,
        detail: ViewDetail,
    ) -> HostResult<(Created, Commit)> {
        let view = m.view_with(Viewer::Spectator, detail)?;
        let commit = self.store.create_match(&StoredMatch {
            setup: m.setup.clone(),
            seat_hashes,
            log: m.log.clone(),
            pending: Vec::new(),
            results: m.results.clone(),
        })?;
        let match_id = m.setup.match_id.clone();
        self.install(m);
        Ok((
            Created {
                match_id,
                tokens,
                view,
            },
            commit,
        ))
    }

    /// Queues the write of what changed in `m` since `version_before`; the
    /// caller waits for the commit once it has released the match's lock.
    fn persist(&self, m: &mut Match, version_before: u64) -> HostResult<Commit> {
        let pending: Vec<(u32, u64, i64)> = m
            .pending
            .iter()
            .map(|(&seat, &(action, at))| (seat, action, at))
            .collect();
        let unchanged = pending.is_empty() && !m.store_holds_pending;
        let results = if m.lifecycle == Lifecycle::Finished {
            m.results.as_slice()
        } else {
            &[]
        };
        let commit = self.store.append(
            &m.setup.match_id,
            &m.log[version_before as usize..],
            (!unchanged).then_some(pending.as_slice()),
            results,
        )?;
        m.store_holds_pending = !pending.is_empty();
        Ok(commit)
    }

    /// Joins an open seat.
    pub fn join(&self, match_id: &str, seat: Option<u32>) -> HostResult<(u32, String, MatchView)> {
        let slot = self.slot(match_id)?;
        let mut m = lock(&slot);
        let token = new_token();
        let hash = hash_token(&token);
        let seat = m.join(seat, hash)?;
        self.store.join_seat(match_id, seat, hash)?;
        let view = m.view(Viewer::Seat(seat))?;
        Ok((seat, token, view))
    }

    /// The view for a token (empty: spectator).
    pub fn view(&self, match_id: &str, token: &str) -> HostResult<MatchView> {
        let slot = self.slot(match_id)?;
        let m = lock(&slot);
        let viewer = m.viewer_of(token)?;
        m.view(viewer)
    }

    /// The legal actions of the token's seat. The match then keeps every
    /// mover's list for this and later versions, so that
    /// [`Engine::kept_legal_actions`] can answer the next ask.
    pub fn legal_actions(
        &self,
        match_id: &str,
        token: &str,
        detail: LegalDetail,
    ) -> HostResult<LegalActions> {
        let slot = self.slot(match_id)?;
        let mut m = lock(&slot);
        self.legal_actions_locked(&mut m, token, detail)
    }

    /// [`Engine::legal_actions`] without waiting: `None` when the match is
    /// busy or its plugin may not run on this thread (then call
    /// [`Engine::legal_actions`] off the async workers).
    pub fn try_legal_actions(
        &self,
        match_id: &str,
        token: &str,
        detail: LegalDetail,
    ) -> Option<HostResult<LegalActions>> {
        self.try_inline(match_id, |m| self.legal_actions_locked(m, token, detail))
    }

    fn legal_actions_locked(
        &self,
        m: &mut Match,
        token: &str,
        detail: LegalDetail,
    ) -> HostResult<LegalActions> {
        let seat = m.seat_of(token)?;
        let was_kept = m.keeps_legal_actions();
        let actions = m.legal_actions(seat, detail)?;
        if !was_kept && m.keeps_legal_actions() {
            self.admit_kept_legal(m);
        }
        Ok((m.version(), seat, actions))
    }

    /// The view for a token without waiting: `None` when the match is busy
    /// or its plugin may not run on this thread (then call [`Engine::view`]
    /// off the async workers).
    pub fn try_view(&self, match_id: &str, token: &str) -> Option<HostResult<MatchView>> {
        self.try_inline(match_id, |m| {
            let viewer = m.viewer_of(token)?;
            m.view(viewer)
        })
    }

    /// Runs `call` on the match under its lock, on this thread, if that
    /// needs no waiting: the lock is free and the match's plugin may run
    /// inline (see [`super::inline`]). `None` otherwise. A panic in host
    /// code becomes an internal error, as it would on the blocking pool.
    fn try_inline<T>(
        &self,
        match_id: &str,
        call: impl FnOnce(&mut Match) -> HostResult<T>,
    ) -> Option<HostResult<T>> {
        let slot = match self.slot(match_id) {
            Ok(slot) => slot,
            Err(e) => return Some(Err(e)),
        };
        let mut m = match slot.try_lock() {
            Ok(m) => m,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            // Busy: perhaps inside a plugin call that never returns.
            Err(TryLockError::WouldBlock) => return None,
        };
        let trust = m.inline_trust.clone()?;
        let _running = self.inline.begin(&trust)?;
        Some(caught(|| call(&mut m)))
    }

    /// The legal actions of the token's seat if they can be answered without
    /// calling the plugin and without waiting for the match's lock: safe to
    /// call on an async worker. `None` when they cannot; then call
    /// [`Engine::legal_actions`] off the async workers.
    pub fn kept_legal_actions(
        &self,
        match_id: &str,
        token: &str,
        detail: LegalDetail,
    ) -> Option<HostResult<LegalActions>> {
        let slot = match self.slot(match_id) {
            Ok(slot) => slot,
            Err(e) => return Some(Err(e)),
        };
        let m = match slot.try_lock() {
            Ok(m) => m,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            // Busy: perhaps inside a plugin call that never returns.
            Err(TryLockError::WouldBlock) => return None,
        };
        let seat = match m.seat_of(token) {
            Ok(seat) => seat,
            Err(e) => return Some(Err(e)),
        };
        let actions = m.kept_legal_actions(seat, detail)?;
        Some(Ok((m.version(), seat, actions)))
    }

    /// Admits `m`, which has just started keeping lists, and makes the
    /// matches admitted longest ago drop theirs. A match that is busy right
    /// now is passed over and stays admitted; the next admission retries it.
    fn admit_kept_legal(&self, m: &mut Match) {
        for evicted in self.kept_legal.admit(&m.setup.match_id) {
            if evicted == m.setup.match_id {
                m.forget_legal_actions();
                continue;
            }
            let Some(slot) = self
                .matches
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .get(&evicted)
                .cloned()
            else {
                continue;
            };
            match slot.try_lock() {
                Ok(mut other) => other.forget_legal_actions(),
                Err(TryLockError::Poisoned(poisoned)) => {
                    poisoned.into_inner().forget_legal_actions()
                }
                Err(TryLockError::WouldBlock) => self.kept_legal.readmit(evicted),
            }
        }
    }

    /// How many matches keep legal-action lists now (at most
    /// [`KEPT_LEGAL_MATCHES`], plus any that were busy when evicted).
    pub fn matches_keeping_legal_actions(&self) -> usize {
        self.kept_legal.len()
    }

    /// Submits an action; stored before this returns.
    pub fn submit(
        &self,
        match_id: &str,
        token: &str,
        action: &ActionRef,
        expected_version: Option<u64>,
        detail: ViewDetail,
    ) -> HostResult<Submission> {
        let slot = self.slot(match_id)?;
        let mut commit = Commit::done();
        let mut m = lock(&slot);
        let answer =
            self.submit_locked(&mut m, token, action, expected_version, detail, &mut commit);
        drop(m);
        commit.wait()?;
        answer
    }

    /// [`Engine::submit`] without waiting for a lock or the disk: `None` when
    /// the match is busy or its plugin may not run on this thread (then call
    /// [`Engine::submit`] off the async workers). Otherwise the answer, and
    /// the commit to wait for before acknowledging it: the action is in the
    /// match, and its write queued in order, but it is durable only then.
    pub fn try_submit(
        &self,
        match_id: &str,
        token: &str,
        action: &ActionRef,
        expected_version: Option<u64>,
        detail: ViewDetail,
    ) -> Option<(HostResult<Submission>, Commit)> {
        let mut commit = Commit::done();
        let answer = self.try_inline(match_id, |m| {
            self.submit_locked(m, token, action, expected_version, detail, &mut commit)
        })?;
        Some((answer, commit))
    }

    /// Submits under the match's lock; every write is queued on `commit`.
    fn submit_locked(
        &self,
        m: &mut Match,
        token: &str,
        action: &ActionRef,
        expected_version: Option<u64>,
        detail: ViewDetail,
        commit: &mut Commit,
    ) -> HostResult<Submission> {
        let seat = m.seat_of(token)?;
        if self.expire_locked(m, commit)? {
            return Err(HostError::MatchOver {
                clock_ran_out: true,
            });
        }
        let id = match action {
            ActionRef::Id(id) => *id,
            ActionRef::Notation(text) => {
                if let Some(expected) = expected_version
                    && expected != m.version()
                {
                    return Err(HostError::StaleVersion {
                        expected,
                        current: m.version(),
                    });
                }
                if let Some(steps) = m.expand_notation(seat, text)? {
                    return self.submit_sequence(m, seat, text, &steps, expected_version, commit);
                }
                m.parse_action(seat, text)?
            }
        };
        let before = m.version();
        let submitted = m.submit(seat, id, expected_version)?;
        commit.add(self.persist(m, before)?);
        m.refresh_kept_legal_actions();
        let view = m.view_with(Viewer::Seat(seat), detail)?;
        Ok((view, submitted == Submitted::Pending))
    }

    /// Submits the actions a shorthand stands for, all or nothing (see
    /// [`Match::submit_sequence`]); every one is stored, in one store write,
    /// before this returns. The view is the one after the last.
    fn submit_sequence(
        &self,
        m: &mut Match,
        seat: u32,
        text: &str,
        steps: &[String],
        expected_version: Option<u64>,
        commit: &mut Commit,
    ) -> HostResult<Submission> {
        let before = m.version();
        let result = m.submit_sequence(seat, text, steps, expected_version);
        // Steps are checked before any is applied, so a refusal normally
        // changes nothing; should a plugin fault stop the sequence part way,
        // the store still gets what the match now holds.
        if m.version() > before {
            commit.add(self.persist(m, before)?);
            m.refresh_kept_legal_actions();
        }
        result?;
        Ok((m.view(Viewer::Seat(seat))?, false))
    }

    /// The token's seat resigns.
    pub fn resign(&self, match_id: &str, token: &str) -> HostResult<MatchView> {
        let slot = self.slot(match_id)?;
        let mut m = lock(&slot);
        let seat = m.seat_of(token)?;
        let before = m.version();
        m.resign(seat)?;
        let commit = self.persist(&mut m, before)?;
        let view = m.view(Viewer::Seat(seat));
        drop(m);
        commit.wait()?;
        view
    }

    /// Lists matches, oldest first.
    pub fn list_matches(
        &self,
        game: Option<&str>,
        lifecycle: Option<Option<Lifecycle>>,
    ) -> Vec<MatchSummary> {
        let mut out = Vec::new();
        let live: Vec<Arc<Mutex<Match>>> = self
            .matches
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect();
        for slot in live {
            let m = lock(&slot);
            out.push(MatchSummary {
                match_id: m.setup.match_id.clone(),
                game: m.setup.game.clone(),
                plugin_version: m.setup.plugin_version.clone(),
                players: m.setup.players,
                lifecycle: Some(m.lifecycle),
                version: m.version(),
                open_seats: m
                    .seats
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| s.token_hash.is_none())
                    .map(|(i, _)| i as u32)
                    .collect(),
                created_at_ms: m.setup.created_at_ms,
                unavailable_reason: String::new(),
            });
        }
        for u in self
            .unavailable
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
        {
            out.push(MatchSummary {
                match_id: u.setup.match_id.clone(),
                game: u.setup.game.clone(),
                plugin_version: u.setup.plugin_version.clone(),
                players: u.setup.players,
                lifecycle: None,
                version: u.version,
                open_seats: Vec::new(),
                created_at_ms: u.setup.created_at_ms,
                unavailable_reason: u.reason.clone(),
            });
        }
        out.retain(|s| {
            game.is_none_or(|g| s.game == g) && lifecycle.is_none_or(|l| s.lifecycle == l)
        });
        out.sort_by(|a, b| a.match_id.cmp(&b.match_id));
        out
    }

    /// The record of a match: admin only while it runs.
    pub fn export(&self, match_id: &str, admin_token: &str) -> HostResult<String> {
        let slot = self.slot(match_id)?;
        let m = lock(&slot);
        if m.lifecycle != Lifecycle::Finished {
            self.check_admin(admin_token).map_err(|e| match e {
                HostError::TokenRequired { .. } => HostError::ExportNeedsAdmin,
                other => other,
            })?;
        }
        Ok(Record::of(&m)?.to_json())
    }

    /// Replays and verifies a record and stores it as a new match (admin only).
    pub fn import(&self, record_json: &str, admin_token: &str) -> HostResult<Created> {
        self.check_admin(admin_token)?;
        let record = Record::parse(record_json)?;
        let plugin = self
            .registry
            .get(&record.game, Some(&record.plugin_version))
            .ok_or_else(|| HostError::GameNotLoaded {
                game: record.game.clone(),
                version: record.plugin_version.clone(),
            })?;
        let (tokens, hashes) = issue_tokens(record.players, &[]);
        let seats = hashes
            .iter()
            .map(|&token_hash| Seat {
                token_hash,
                resigned: false,
                out: false,
            })
            .collect();
        let setup = record.setup(new_match_id());
        let game: Arc<dyn DynGame> = plugin;
        let m = Match::replay(game, setup, seats, &record.actions)?;
        record.verify(&m)?;
        let (created, commit) = self.store_new(m, hashes, tokens, ViewDetail::Full)?;
        if let Err(e) = commit.wait() {
            self.discard(&created.match_id);
            return Err(e);
        }
        Ok(created)
    }

    /// Starts watching a match.
    pub fn watch(
        &self,
        match_id: &str,
        token: &str,
        from_version: Option<u64>,
    ) -> HostResult<WatchStart> {
        let slot = self.slot(match_id)?;
        let mut m = lock(&slot);
        let viewer = m.viewer_of(token)?;
        let (receiver, replay) = m.subscribe(from_version);
        let (snapshot, replay) = match replay {
            Some(events) => (None, events),
            None => (Some(m.view(viewer)?), Vec::new()),
        };
        Ok(WatchStart {
            viewer,
            snapshot,
            replay,
            receiver,
            finished: m.lifecycle == Lifecycle::Finished,
        })
    }

    /// A fresh view for a watcher that fell behind.
    pub fn resync(&self, match_id: &str, viewer: Viewer) -> HostResult<(MatchView, bool)> {
        let slot = self.slot(match_id)?;
        let m = lock(&slot);
        Ok((m.view(viewer)?, m.lifecycle == Lifecycle::Finished))
    }

    /// Every loaded plugin and the matches using it (admin only).
    pub fn list_plugins(&self, admin_token: &str) -> HostResult<Vec<PluginEntry>> {
        self.check_admin(admin_token)?;
        let mut uses: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
        for s in self.list_matches(None, None) {
            uses.entry((s.game, s.plugin_version))
                .or_default()
                .push(s.match_id);
        }
        Ok(self
            .registry
            .all()
            .into_iter()
            .map(|plugin| {
                let key = (
                    plugin.manifest().name.clone(),
                    plugin.manifest().version.clone(),
                );
                PluginEntry {
                    match_ids: uses.remove(&key).unwrap_or_default(),
                    plugin,
                }
            })
            .collect())
    }

    /// Loads a plugin file on request (admin only).
    pub fn load_plugin(&self, admin_token: &str, path: &str) -> HostResult<(PluginEntry, bool)> {
        self.check_admin(admin_token)?;
        if path.is_empty() {
            return Err(HostError::InvalidRequest(
                "a plugin path is required".into(),
            ));
        }
        let added = self.add_plugin_file(Path::new(path)).map_err(|e| match e {
            AddError::Load(crate::plugin::LoadError::Io(io)) => HostError::PluginFileUnreadable {
                path: path.to_string(),
                error: io,
            },
            AddError::Conflict {
                game,
                version,
                existing,
            } => HostError::PluginConflict {
                game,
                version,
                existing,
            },
            AddError::Load(other) => HostError::PluginRefused {
                path: path.to_string(),
                why: other.to_string(),
            },
        })?;
        let (game, version, already) = match added {
            Added::New { game, version } => (game, version, false),
            Added::AlreadyLoaded { game, version } => (game, version, true),
        };
        tracing::info!(%path, %game, %version, already, "plugin loaded on request");
        let plugin = self
            .registry
            .get(&game, Some(&version))
            .ok_or_else(|| HostError::Internal("plugin vanished after loading".into()))?;
        Ok((
            PluginEntry {
                plugin,
                match_ids: Vec::new(),
            },
            already,
        ))
    }
}

/// Whether `path` looks like a shared library for this platform.
pub fn is_plugin_file(path: &Path) -> bool {
    path.is_file()
        && path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e == std::env::consts::DLL_EXTENSION)
}

/// Checks that an ELF shared library is whole: every program segment and the
/// section header table lie inside the file. A half-copied file fails this;
/// loading it would map pages past its end and crash the host on first touch.
/// Other formats (macOS, Windows) are left to the loader.
pub fn check_complete_library(bytes: &[u8]) -> Result<(), String> {
    if !bytes.starts_with(b"\x7fELF") {
        if cfg!(target_os = "linux") {
            return Err("no ELF header".into());
        }
        return Ok(());
    }
    if bytes.len() < 64 || bytes[4] != 2 || bytes[5] != 1 {
        return Err("not a complete 64-bit little-endian ELF header".into());
    }
    let u16_at = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]) as u64;
    let u64_at = |at: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(b)
    };
    let len = bytes.len() as u64;
    let within = |offset: u64, size: u64| offset.checked_add(size).is_some_and(|end| end <= len);
    let (phoff, shoff) = (u64_at(0x20), u64_at(0x28));
    let (phentsize, phnum) = (u16_at(0x36), u16_at(0x38));
    let (shentsize, shnum) = (u16_at(0x3A), u16_at(0x3C));
    if phentsize < 56 || !within(phoff, phentsize * phnum) {
        return Err("the program headers are cut off".into());
    }
    if shnum > 0 && !within(shoff, shentsize * shnum) {
        return Err("the section headers are cut off".into());
    }
    for i in 0..phnum {
        let at = (phoff + i * phentsize) as usize;
        let (offset, filesz) = (u64_at(at + 8), u64_at(at + 32));
        if !within(offset, filesz) {
            return Err(format!("segment {i} is cut off"));
        }
    }
    Ok(())
}
