//! One match: its seats, its log, its current state, and the rules of acting
//! (turns, simultaneous collection, chance, resignation).
//!
//! A `Match` is plain data plus plugin calls: no locking, no I/O, no async.
//! The [`Engine`](super::engine::Engine) serialises access and persists.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use compact_str::CompactString;
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;
use tabletop_sdk::{
    ActionId, DynGame, DynState, Move, Player, PlayerSet, Status, Transition, Viewer, chance,
};
use tokio::sync::broadcast;

use super::error::{Credential, HostError, HostResult};
use super::inline::Trust;
use super::legal::{LegalDetail, LegalLists};
use super::tokens::{hash_token, hashes_equal};

/// Where a match is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lifecycle {
    /// Open seats remain.
    Waiting,
    /// Being played.
    Running,
    /// Over.
    Finished,
}

/// One seat's final result.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SeatResult {
    /// The seat.
    pub seat: u32,
    /// 1 = first; shared places share a rank.
    pub rank: u32,
    /// The game's score.
    pub score: f64,
    /// Whether the seat resigned.
    pub resigned: bool,
}

/// One entry of a match's log: a state change (or a resignation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LogKind {
    /// A joint action of the seats to move (one entry for sequential games).
    Moves {
        /// Who did what: one move, inline, for a sequential game.
        moves: LoggedMoves,
    },
    /// A chance outcome drawn from the match's seed.
    Chance {
        /// The outcome passed to the plugin.
        outcome: u64,
    },
    /// A seat resigned; the match ended.
    Resign {
        /// The seat.
        seat: u32,
    },
    /// A seat's clock ran out; the match ended with that seat last.
    Timeout {
        /// The seat.
        seat: u32,
    },
    /// A seat's clock ran out under [`OnTimeout::Out`]: the plugin took the
    /// seat out of the game (`remove_player`) and the others play on.
    Out {
        /// The seat.
        seat: u32,
    },
}

/// What a seat's clock running out does, by the match's time control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnTimeout {
    /// The match ends with the seat last, every other seat sharing first.
    #[default]
    Lose,
    /// The seat leaves the game and the others play on; the game ends as the
    /// plugin's rules say when too few are left. Only for games whose
    /// manifest says `removable_players` and matches of three or more seats.
    Out,
}

impl OnTimeout {
    fn is_lose(&self) -> bool {
        *self == OnTimeout::Lose
    }
}

/// A match's time control, in milliseconds (0 = not used). A seat's clock
/// runs while it is to move (all movers' clocks at once in simultaneous
/// turns) and stops when it acts. `per_move_ms` limits each move; `bank_ms`
/// is the seat's total time, to which `increment_ms` is added after each of
/// its actions. The seat whose time runs out first loses, or with
/// [`OnTimeout::Out`] leaves the game while the others play on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TimeControl {
    /// Longest time for one move (0: no limit per move).
    pub per_move_ms: i64,
    /// Each seat's total time (0: no bank).
    pub bank_ms: i64,
    /// Added to the bank after each action.
    pub increment_ms: i64,
    /// What running out does. Left out of records when it is `lose`, so
    /// records of matches without the choice stay as they were.
    #[serde(default, skip_serializing_if = "OnTimeout::is_lose")]
    pub on_timeout: OnTimeout,
}

impl Clocks {
    fn new(setup: &MatchSetup) -> Option<Clocks> {
        let control = setup.time_control?;
        let seats = setup.players as usize;
        Some(Clocks {
            control,
            bank: vec![control.bank_ms; seats],
            since: vec![None; seats],
        })
    }
}

impl TimeControl {
    /// Refuses a time control that cannot be played.
    pub fn validate(&self) -> Result<(), String> {
        if self.per_move_ms < 0 || self.bank_ms < 0 || self.increment_ms < 0 {
            return Err("time control values must not be negative".into());
        }
        if self.per_move_ms == 0 && self.bank_ms == 0 {
            return Err("a time control needs per_move_ms or bank_ms".into());
        }
        if self.increment_ms > 0 && self.bank_ms == 0 {
            return Err("increment_ms needs a bank (bank_ms)".into());
        }
        Ok(())
    }
}

/// The seats' clocks.
#[derive(Debug, Clone)]
struct Clocks {
    control: TimeControl,
    /// Remaining bank per seat.
    bank: Vec<i64>,
    /// Since when each seat's clock runs (None: stopped).
    since: Vec<Option<i64>>,
}

/// The moves of one log entry. A match keeps its whole log in memory, so an
/// entry holds its one move (every turn of a sequential game) inline rather
/// than in an allocation of its own: a played action cost ~320 bytes of the
/// server's memory with a `Vec` and a `String` per entry (BENCHMARKS.md,
/// "Memory of a played match").
pub type LoggedMoves = SmallVec<[LoggedMove; 1]>;

/// One seat's action in the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoggedMove {
    /// The seat.
    pub seat: u32,
    /// The action id.
    pub action: ActionId,
    /// Its notation at the time (for people; replay uses the id). Inline up
    /// to 24 bytes, which every shipped game's notation of one move fits.
    pub notation: CompactString,
    /// When the seat submitted it, ms since the Unix epoch.
    pub at_ms: i64,
}

/// A log entry with its version and time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogEntry {
    /// The match version after this entry.
    pub version: u64,
    /// When it was applied, ms since the Unix epoch.
    pub at_ms: i64,
    /// What happened.
    #[serde(flatten)]
    pub kind: LogKind,
}

/// What everyone may know about a seat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatInfo {
    /// The seat.
    pub seat: u32,
    /// Held by a player.
    pub filled: bool,
    /// To move now.
    pub to_move: bool,
    /// Has submitted its part of a simultaneous turn.
    pub has_acted: bool,
    /// Resigned.
    pub resigned: bool,
    /// Taken out of the game when its clock ran out ([`OnTimeout::Out`]).
    pub out: bool,
    /// Time left on the seat's clock (None: no clock).
    pub clock_remaining_ms: Option<i64>,
}

/// A match as one viewer sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchView {
    /// The match.
    pub match_id: String,
    /// The game.
    pub game: String,
    /// The plugin version.
    pub plugin_version: String,
    /// State changes so far.
    pub version: u64,
    /// Life stage.
    pub lifecycle: Lifecycle,
    /// The viewer's seat (None: spectator).
    pub viewer_seat: Option<u32>,
    /// The game's JSON view.
    pub view_json: String,
    /// The text rendering.
    pub text: String,
    /// Seats to move.
    pub to_move: Vec<u32>,
    /// All seats.
    pub seats: Vec<SeatInfo>,
    /// Results once finished.
    pub results: Vec<SeatResult>,
    /// The viewer's own pending simultaneous action.
    pub pending_action: Option<String>,
}

/// How much of a match a view carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ViewDetail {
    /// Everything, including the game's JSON view and text rendering.
    #[default]
    Full,
    /// Version, life stage, seats and results, without the game's view and
    /// text: building those is the costly part of a response (a plugin call
    /// each, and War's JSON carries an SVG board).
    Summary,
}

/// What a viewer receives when the match changes.
#[derive(Debug, Clone)]
pub enum ViewerUpdate {
    /// A state change: the game's event for this viewer and the view after.
    Transition {
        /// Plugin-described event (JSON).
        event_json: String,
        /// The view afterwards.
        view: Box<MatchView>,
    },
    /// A seat submitted its part of a simultaneous turn.
    SeatActed {
        /// The seat.
        seat: u32,
    },
}

/// One change, prepared for every viewer (seats in order, then the spectator).
#[derive(Debug)]
pub struct MatchEvent {
    /// The version after the change.
    pub version: u64,
    /// Per viewer: index = seat, last = spectator.
    pub updates: Vec<ViewerUpdate>,
    /// Whether the match is over after this event.
    pub finished: bool,
}

impl MatchEvent {
    /// The update for `viewer`.
    pub fn for_viewer(&self, viewer: Viewer) -> &ViewerUpdate {
        let index = match viewer {
            Viewer::Seat(p) => p as usize,
            Viewer::Spectator => self.updates.len() - 1,
        };
        &self.updates[index.min(self.updates.len() - 1)]
    }
}

/// A seat.
#[derive(Debug, Clone)]
pub struct Seat {
    /// Hash of the seat's token; None while the seat is open.
    pub token_hash: Option<[u8; 32]>,
    /// Resigned.
    pub resigned: bool,
    /// Out of the game since its clock ran out ([`OnTimeout::Out`]); set by
    /// the match (live or replayed), never by the caller.
    pub out: bool,
}

/// How many past events a match keeps for watchers that resume.
pub const EVENT_HISTORY: usize = 256;
/// How many events a watcher may fall behind before it gets a fresh snapshot.
pub const WATCH_BUFFER: usize = 128;

/// Everything needed to create a match (also what a record starts from).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchSetup {
    /// The match id.
    pub match_id: String,
    /// The game.
    pub game: String,
    /// The plugin version.
    pub plugin_version: String,
    /// Seats.
    pub players: u32,
    /// Options as given (raw text).
    pub options: BTreeMap<String, String>,
    /// Seed of the chance stream.
    pub seed: u64,
    /// Start position, if not the game's start.
    pub start_position: Option<String>,
    /// Creation time, ms since the Unix epoch.
    pub created_at_ms: i64,
    /// The clock, if the match has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<TimeControl>,
}

/// A live match.
pub struct Match {
    /// How it was created.
    pub setup: MatchSetup,
    game: Arc<dyn DynGame>,
    /// The seats.
    pub seats: Vec<Seat>,
    /// Every state change so far.
    pub log: Vec<LogEntry>,
    state: Box<dyn DynState>,
    /// Actions held for the current simultaneous turn, with submission times.
    pub pending: BTreeMap<Player, (ActionId, i64)>,
    chance_draws: u64,
    /// Life stage.
    pub lifecycle: Lifecycle,
    /// Final results.
    pub results: Vec<SeatResult>,
    history: VecDeque<Arc<MatchEvent>>,
    /// The live feed, created on the first watch: its buffer would otherwise
    /// be most of an idle match's memory.
    events: Option<broadcast::Sender<Arc<MatchEvent>>>,
    scratch: Vec<ActionId>,
    clocks: Option<Clocks>,
    /// The movers' legal actions, kept once asked for (see [`super::legal`]).
    legal: Option<LegalLists>,
    /// Whether its plugin's calls may run on the caller's thread (see
    /// [`super::inline`]); set when the engine makes the match live.
    pub(crate) inline_trust: Option<Arc<Trust>>,
    /// Whether the store holds held actions for this match (as of the last
    /// write), so a write whose match holds none need not clear them.
    pub(crate) store_holds_pending: bool,
}

impl std::fmt::Debug for Match {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Match")
            .field("setup", &self.setup)
            .field("version", &self.version())
            .field("lifecycle", &self.lifecycle)
            .finish_non_exhaustive()
    }
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// What submitting an action did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Submitted {
    /// The action (and any chance after it) was applied.
    Applied,
    /// Held for a simultaneous turn that waits for other seats.
    Pending,
}

impl Match {
    /// Creates a match from `setup`; resolves any chance nodes at the start.
    /// `token_hashes[i]` is seat i's token hash, None for an open seat.
    pub fn create(
        game: Arc<dyn DynGame>,
        setup: MatchSetup,
        token_hashes: Vec<Option<[u8; 32]>>,
    ) -> HostResult<Match> {
        let seats = token_hashes
            .into_iter()
            .map(|token_hash| Seat {
                token_hash,
                resigned: false,
                out: false,
            })
            .collect();
        let mut m = Match::fresh(game, setup, seats)?;
        m.resolve_chance_and_end()?;
        m.start_clocks(now_ms())?;
        Ok(m)
    }

    /// A match at its start state with no log: waiting while any seat is
    /// open, running otherwise; its clocks set up but not started.
    fn fresh(game: Arc<dyn DynGame>, setup: MatchSetup, seats: Vec<Seat>) -> HostResult<Match> {
        let state = game.new_state(
            setup.players,
            &setup.options,
            setup.start_position.as_deref(),
        )?;
        let lifecycle = if seats.iter().any(|s| s.token_hash.is_none()) {
            Lifecycle::Waiting
        } else {
            Lifecycle::Running
        };
        let clocks = Clocks::new(&setup);
        Ok(Match {
            setup,
            game,
            seats,
            log: Vec::new(),
            state,
            pending: BTreeMap::new(),
            chance_draws: 0,
            lifecycle,
            results: Vec::new(),
            history: VecDeque::new(),
            events: None,
            scratch: Vec::new(),
            clocks,
            legal: None,
            inline_trust: None,
            store_holds_pending: false,
        })
    }

    /// Rebuilds a match from its setup and log (restart recovery, import).
    /// Every entry is replayed through the plugin; the first that fails is
    /// named in the error.
    pub fn replay(
        game: Arc<dyn DynGame>,
        setup: MatchSetup,
        seats: Vec<Seat>,
        log: &[LogEntry],
    ) -> HostResult<Match> {
        let mut m = Match::fresh(game, setup, seats)?;
        m.start_clocks(m.setup.created_at_ms)?;
        for (index, entry) in log.iter().enumerate() {
            let fail = |why: String| {
                HostError::InvalidRecord(format!(
                    "action {} (version {}) does not replay: {why}",
                    index + 1,
                    entry.version
                ))
            };
            if entry.version != index as u64 + 1 {
                return Err(fail(format!(
                    "expected version {}, found {}",
                    index + 1,
                    entry.version
                )));
            }
            match &entry.kind {
                LogKind::Moves { moves } => {
                    let joint: Vec<Move> = moves
                        .iter()
                        .map(|m| Move {
                            player: m.seat,
                            action: m.action,
                        })
                        .collect();
                    if !matches!(
                        m.state.status().map_err(HostError::from)?,
                        Status::ToMove(_)
                    ) {
                        return Err(fail("no seat is to move here".into()));
                    }
                    m.state.apply(&joint).map_err(|e| fail(e.message))?;
                    for logged in moves {
                        m.charge(logged.seat, logged.at_ms);
                    }
                }
                LogKind::Chance { outcome } => {
                    if m.state.status().map_err(HostError::from)? != Status::Chance {
                        return Err(fail("this is not a chance node".into()));
                    }
                    m.state
                        .apply_chance(*outcome)
                        .map_err(|e| fail(e.message))?;
                    m.chance_draws += 1;
                }
                LogKind::Resign { seat } => {
                    if *seat >= m.setup.players {
                        return Err(fail(format!("no seat {seat}")));
                    }
                    m.log.push(entry.clone());
                    m.finish_by_resignation(*seat);
                    continue;
                }
                LogKind::Timeout { seat } => {
                    if *seat >= m.setup.players {
                        return Err(fail(format!("no seat {seat}")));
                    }
                    if m.lifecycle == Lifecycle::Finished {
                        return Err(fail("the match was already over".into()));
                    }
                    m.log.push(entry.clone());
                    m.finish_by_timeout(*seat);
                    continue;
                }
                LogKind::Out { seat } => {
                    if *seat >= m.setup.players {
                        return Err(fail(format!("no seat {seat}")));
                    }
                    if m.lifecycle == Lifecycle::Finished {
                        return Err(fail("the match was already over".into()));
                    }
                    m.state.remove_player(*seat).map_err(|e| fail(e.message))?;
                    m.mark_out(*seat);
                }
            }
            m.log.push(entry.clone());
            if m.state.status()? == Status::Terminal {
                m.finish_normally()?;
            }
            m.start_clocks(entry.at_ms)?;
        }
        Ok(m)
    }

    /// Puts back the held simultaneous actions after a restart: (seat, action,
    /// submitted at ms). Each must belong to a seat to move now.
    pub fn restore_pending(&mut self, pending: &[(u32, u64, i64)]) -> HostResult<()> {
        self.store_holds_pending = !pending.is_empty();
        if pending.is_empty() {
            return Ok(());
        }
        let movers = self.movers()?;
        for &(seat, action, at) in pending {
            if !movers.contains(seat) {
                return Err(HostError::Internal(format!(
                    "seat {seat} holds a pending action but is not to move"
                )));
            }
            self.pending.insert(seat, (action, at));
            self.charge(seat, at);
        }
        Ok(())
    }

    /// After a restart: running clocks restart now (the time the host was
    /// down is not charged to anyone).
    pub fn resume_clocks(&mut self, now: i64) {
        if let Some(clocks) = &mut self.clocks {
            for since in clocks.since.iter_mut().flatten() {
                *since = now;
            }
        }
    }

    /// Whether the match has a clock and is not over.
    pub fn has_running_clock(&self) -> bool {
        self.clocks.is_some() && self.lifecycle != Lifecycle::Finished
    }

    /// Charges `seat` for the time since its clock started, and stops it.
    fn charge(&mut self, seat: Player, at: i64) {
        let Some(clocks) = &mut self.clocks else {
            return;
        };
        let Some(slot) = clocks.since.get_mut(seat as usize) else {
            return;
        };
        if let Some(started) = slot.take()
            && clocks.control.bank_ms > 0
        {
            let bank = &mut clocks.bank[seat as usize];
            *bank = *bank - (at - started).max(0) + clocks.control.increment_ms;
        }
    }

    /// Starts the clocks of the seats to move now that are not running (and
    /// have not acted this turn); stops the others.
    fn start_clocks(&mut self, at: i64) -> HostResult<()> {
        if self.clocks.is_none() {
            return Ok(());
        }
        let movers = self.movers()?;
        let pending: Vec<Player> = self.pending.keys().copied().collect();
        if let Some(clocks) = &mut self.clocks {
            for (seat, since) in clocks.since.iter_mut().enumerate() {
                let seat = seat as Player;
                if !movers.contains(seat) || pending.contains(&seat) {
                    *since = None;
                } else if since.is_none() {
                    *since = Some(at);
                }
            }
        }
        Ok(())
    }

    /// When the first running clock runs out, and whose it is.
    pub fn clock_deadline(&self) -> Option<(i64, Player)> {
        let clocks = self.clocks.as_ref()?;
        if self.lifecycle != Lifecycle::Running {
            return None;
        }
        clocks
            .since
            .iter()
            .enumerate()
            .filter_map(|(seat, since)| {
                let started = (*since)?;
                let mut deadline = i64::MAX;
                if clocks.control.per_move_ms > 0 {
                    deadline = deadline.min(started + clocks.control.per_move_ms);
                }
                if clocks.control.bank_ms > 0 {
                    deadline = deadline.min(started + clocks.bank[seat]);
                }
                Some((deadline, seat as Player))
            })
            .min()
    }

    /// Time left for `seat` at `now`.
    fn clock_remaining(&self, seat: Player, now: i64) -> Option<i64> {
        let clocks = self.clocks.as_ref()?;
        let control = clocks.control;
        let bank = clocks.bank[seat as usize];
        let remaining = match clocks.since[seat as usize] {
            Some(started) => {
                let used = now - started;
                let mut left = i64::MAX;
                if control.per_move_ms > 0 {
                    left = left.min(control.per_move_ms - used);
                }
                if control.bank_ms > 0 {
                    left = left.min(bank - used);
                }
                left
            }
            None if control.bank_ms > 0 => bank,
            None => control.per_move_ms,
        };
        Some(remaining.max(0))
    }

    /// Ends the match if a clock has run out by `now`; returns whether it did.
    pub fn expire_clock(&mut self, now: i64) -> HostResult<bool> {
        let Some((deadline, seat)) = self.clock_deadline() else {
            return Ok(false);
        };
        if deadline > now {
            return Ok(false);
        }
        if let Some(clocks) = &mut self.clocks {
            clocks.bank[seat as usize] = 0;
        }
        if self.clocks.as_ref().map(|c| c.control.on_timeout) == Some(OnTimeout::Out) {
            match self.state.remove_player(seat) {
                Ok(()) => {
                    self.went_out(seat, now)?;
                    return Ok(true);
                }
                // CreateMatch only allows `out` for games that declare
                // `removable_players`, so a refusal is a plugin fault. The
                // state is unchanged; the seat loses instead (the `lose`
                // rule), so the clock does not stay expired for ever.
                Err(e) => tracing::error!(
                    match_id = %self.setup.match_id,
                    seat,
                    error = %e,
                    "the plugin refused to remove a timed-out seat; the seat loses instead"
                ),
            }
        }
        self.push_log(now, LogKind::Timeout { seat });
        self.finish_by_timeout(seat);
        let event = serde_json::json!({ "type": "timeout", "seat": seat }).to_string();
        self.publish_host_event(&event)?;
        Ok(true)
    }

    /// [`OnTimeout::Out`], after the plugin took `seat` out: the log records
    /// it, watchers get a host event, and the match goes on (the other clocks
    /// keep running) or finishes if the plugin's state is terminal. If the
    /// seats still to move had all submitted their part of a simultaneous
    /// turn, the turn is complete without `seat` and is applied now.
    fn went_out(&mut self, seat: Player, now: i64) -> HostResult<()> {
        self.pending.remove(&seat);
        self.mark_out(seat);
        self.push_log(now, LogKind::Out { seat });
        if self.state.status()? == Status::Terminal {
            // Too few left to play on: the game ends as the plugin says, and
            // the event below carries the finished view.
            self.finish_normally()?;
            self.pending.clear();
            self.stop_clocks();
        }
        let event = serde_json::json!({ "type": "out", "seat": seat }).to_string();
        self.publish_host_event(&event)?;
        if self.lifecycle == Lifecycle::Finished {
            return Ok(());
        }
        let movers = self.movers()?;
        self.pending.retain(|&p, _| movers.contains(p));
        if !movers.is_empty() && self.pending.len() == movers.len() {
            let timed: Vec<(Move, i64)> = self
                .pending
                .iter()
                .map(|(&player, &(action, at))| (Move { player, action }, at))
                .collect();
            return self.apply_timed_moves(&timed, now);
        }
        self.resolve_chance_and_end()?;
        self.start_clocks(now)
    }

    /// Marks `seat` out after the plugin removed it: its clock stops for good.
    fn mark_out(&mut self, seat: Player) {
        if let Some(s) = self.seats.get_mut(seat as usize) {
            s.out = true;
        }
        if let Some(clocks) = &mut self.clocks
            && let (Some(bank), Some(since)) = (
                clocks.bank.get_mut(seat as usize),
                clocks.since.get_mut(seat as usize),
            )
        {
            *bank = 0;
            *since = None;
        }
    }

    /// A seat's time ran out: it is last, every other seat shares first place
    /// (for two players: the opponent wins). This is [`OnTimeout::Lose`], so
    /// with more players the match ends too.
    fn finish_by_timeout(&mut self, seat: Player) {
        let players = self.setup.players;
        self.results = (0..players)
            .map(|p| SeatResult {
                seat: p,
                rank: if p == seat { players } else { 1 },
                score: 0.0,
                resigned: false,
            })
            .collect();
        self.pending.clear();
        self.lifecycle = Lifecycle::Finished;
        self.stop_clocks();
    }

    fn stop_clocks(&mut self) {
        if let Some(clocks) = &mut self.clocks {
            clocks.since.iter_mut().for_each(|s| *s = None);
        }
    }

    /// The game.
    pub fn game(&self) -> &Arc<dyn DynGame> {
        &self.game
    }

    /// The current version: number of log entries.
    pub fn version(&self) -> u64 {
        self.log.len() as u64
    }

    /// The seat whose token is `token`.
    pub fn seat_of(&self, token: &str) -> HostResult<Player> {
        if token.is_empty() {
            return Err(HostError::TokenRequired {
                credential: Credential::Seat,
            });
        }
        let hash = hash_token(token);
        self.seats
            .iter()
            .position(|s| s.token_hash.is_some_and(|h| hashes_equal(&h, &hash)))
            .map(|p| p as Player)
            .ok_or(HostError::BadToken {
                credential: Credential::Seat,
            })
    }

    /// The viewer for an optional token: empty = spectator.
    pub fn viewer_of(&self, token: &str) -> HostResult<Viewer> {
        if token.is_empty() {
            Ok(Viewer::Spectator)
        } else {
            self.seat_of(token).map(Viewer::Seat)
        }
    }

    fn movers(&self) -> HostResult<PlayerSet> {
        if self.lifecycle != Lifecycle::Running {
            return Ok(PlayerSet::EMPTY);
        }
        Ok(match self.state.status()? {
            Status::ToMove(set) => set,
            _ => PlayerSet::EMPTY,
        })
    }

    /// The legal actions of `seat` (with their notation, unless `detail`
    /// says ids only), answered without calling the plugin: `None` when that
    /// would need the plugin (no lists kept for this version, or their
    /// notation not written yet).
    pub fn kept_legal_actions(
        &self,
        seat: Player,
        detail: LegalDetail,
    ) -> Option<Vec<(ActionId, String)>> {
        if self.lifecycle != Lifecycle::Running || self.pending.contains_key(&seat) {
            return Some(Vec::new());
        }
        let kept = self.legal.as_ref()?;
        if kept.version() != self.version() {
            return None;
        }
        kept.for_seat(seat, detail)
    }

    /// The legal actions of `seat` (with their notation, unless `detail`
    /// says ids only). Lists every mover's actions and keeps them for this
    /// version, so the other movers' asks (and this seat's next) need no
    /// plugin call.
    pub fn legal_actions(
        &mut self,
        seat: Player,
        detail: LegalDetail,
    ) -> HostResult<Vec<(ActionId, String)>> {
        if let Some(list) = self.kept_legal_actions(seat, detail) {
            return Ok(list);
        }
        let current = self
            .legal
            .as_ref()
            .is_some_and(|kept| kept.version() == self.version());
        if !current {
            self.keep_legal_actions()?;
        }
        if detail == LegalDetail::Full
            && let Some(kept) = self.legal.as_mut()
        {
            kept.write_notation(&*self.state, seat)?;
        }
        Ok(self.kept_legal_actions(seat, detail).unwrap_or_default())
    }

    /// Whether the match keeps legal-action lists (of any version).
    pub fn keeps_legal_actions(&self) -> bool {
        self.legal.is_some()
    }

    /// Lists and keeps the legal actions of every seat to move that has not
    /// acted yet.
    fn keep_legal_actions(&mut self) -> HostResult<()> {
        let movers = self.movers()?;
        let mut scratch = std::mem::take(&mut self.scratch);
        let waiting = movers.iter().filter(|s| !self.pending.contains_key(s));
        let lists = LegalLists::compute(&*self.state, self.version(), waiting, &mut scratch);
        self.scratch = scratch;
        self.legal = Some(lists?);
        Ok(())
    }

    /// After a change, brings kept lists up to the new version (a match that
    /// was never asked keeps none). On a plugin error the lists are dropped:
    /// the change itself has happened, and the next ask will list again.
    pub fn refresh_kept_legal_actions(&mut self) {
        let stale = self
            .legal
            .as_ref()
            .is_some_and(|kept| kept.version() != self.version());
        if self.lifecycle != Lifecycle::Running || (stale && self.keep_legal_actions().is_err()) {
            self.legal = None;
        }
    }

    /// Drops the kept lists (to bound the memory of many matches).
    pub fn forget_legal_actions(&mut self) {
        self.legal = None;
    }

    /// Reads an action given as notation.
    pub fn parse_action(&self, seat: Player, notation: &str) -> HostResult<ActionId> {
        self.check_may_act(seat, None)?;
        Ok(self.state.parse_action(seat, notation)?)
    }

    fn check_may_act(&self, seat: Player, expected_version: Option<u64>) -> HostResult<()> {
        match self.lifecycle {
            Lifecycle::Waiting => {
                return Err(HostError::NotStarted);
            }
            Lifecycle::Finished => {
                return Err(HostError::MatchOver {
                    clock_ran_out: false,
                });
            }
            Lifecycle::Running => {}
        }
        if let Some(expected) = expected_version
            && expected != self.version()
        {
            return Err(HostError::StaleVersion {
                expected,
                current: self.version(),
            });
        }
        if !self.movers()?.contains(seat) {
            return Err(HostError::NotYourTurn { seat });
        }
        if self.pending.contains_key(&seat) {
            return Err(HostError::AlreadyActed { seat });
        }
        Ok(())
    }

    /// Submits `seat`'s action. Sequential: applied at once. Simultaneous: held
    /// (after a legality check only the submitter learns about) until every
    /// mover has acted, then applied as one joint action.
    pub fn submit(
        &mut self,
        seat: Player,
        action: ActionId,
        expected_version: Option<u64>,
    ) -> HostResult<Submitted> {
        self.check_may_act(seat, expected_version)?;
        let movers = self.movers()?;
        let now = now_ms();
        if movers.len() == 1 {
            let timed = [(
                Move {
                    player: seat,
                    action,
                },
                now,
            )];
            self.apply_timed_moves(&timed, now)?;
            return Ok(Submitted::Applied);
        }
        let mut legal = std::mem::take(&mut self.scratch);
        let checked = self.state.legal_actions(seat, &mut legal);
        let is_legal = legal.binary_search(&action).is_ok();
        self.scratch = legal;
        checked?;
        if !is_legal {
            return Err(HostError::IllegalAction(format!(
                "action {action} is not legal for seat {seat}"
            )));
        }
        self.pending.insert(seat, (action, now));
        if self.pending.len() < movers.len() {
            self.charge(seat, now);
            self.publish_seat_acted(seat);
            return Ok(Submitted::Pending);
        }
        let timed: Vec<(Move, i64)> = self
            .pending
            .iter()
            .map(|(&player, &(action, at))| (Move { player, action }, at))
            .collect();
        let result = self.apply_timed_moves(&timed, now);
        if result.is_err() {
            // The joint action was refused as a whole (a plugin bug, since each
            // part was legal): drop only this seat's part so the others stand.
            self.pending.remove(&seat);
        }
        result.map(|()| Submitted::Applied)
    }

    /// Expands a shorthand of `seat` (see `Game::expand_notation`): `None` when
    /// `notation` is not one and stands for a single action.
    pub fn expand_notation(&self, seat: Player, notation: &str) -> HostResult<Option<Vec<String>>> {
        self.check_may_act(seat, None)?;
        Ok(self.state.expand_notation(seat, notation)?)
    }

    /// Submits the actions a shorthand `text` of `seat` stands for (`steps`,
    /// from [`Match::expand_notation`]) as one request, all or nothing: every
    /// step is first checked on a copy of the state (the seat must be the one
    /// mover before each); if one fails, the whole request is refused with an
    /// error naming that step and nothing changes. Then each step is applied
    /// as its own action: its own log entry, version and watch event.
    /// `expected_version` applies to the state before the first step.
    /// Simultaneous turns are refused: a sequence cannot be held step by step.
    pub fn submit_sequence(
        &mut self,
        seat: Player,
        text: &str,
        steps: &[String],
        expected_version: Option<u64>,
    ) -> HostResult<()> {
        self.check_may_act(seat, expected_version)?;
        if self.movers()?.len() != 1 {
            return Err(HostError::Unsupported(format!(
                "`{}` stands for several actions, which a simultaneous turn cannot take: \
                 submit one action",
                text.trim()
            )));
        }
        if steps.is_empty() {
            return Err(HostError::InvalidNotation(format!(
                "`{}` stands for no action",
                text.trim()
            )));
        }
        let ids = self.check_sequence(seat, text, steps)?;
        for id in ids {
            // Checked above on an identical copy: a refusal here is a plugin
            // fault (non-deterministic rules), reported as such.
            self.submit(seat, id, None)?;
        }
        Ok(())
    }

    /// Plays `steps` on a copy of the state, drawing any chance after a step
    /// exactly as the real application will; returns their action ids.
    fn check_sequence(
        &self,
        seat: Player,
        text: &str,
        steps: &[String],
    ) -> HostResult<Vec<ActionId>> {
        let mut state = self.state.clone_state()?;
        let mut draws = self.chance_draws;
        let mut ids = Vec::with_capacity(steps.len());
        for (index, step) in steps.iter().enumerate() {
            let refuse = |cause: HostError| HostError::StepRefused {
                text: text.trim().to_string(),
                step: index + 1,
                steps: steps.len(),
                notation: step.clone(),
                cause: Box::new(cause),
            };
            match state.status()? {
                Status::ToMove(set) if set == PlayerSet::single(seat) => {}
                Status::ToMove(_) => {
                    return Err(refuse(HostError::NotToMove(format!(
                        "seat {seat} is not the one to move then"
                    ))));
                }
                _ => {
                    return Err(refuse(HostError::NotToMove(
                        "the game is over by then".into(),
                    )));
                }
            }
            let id = state
                .parse_action(seat, step)
                .map_err(|e| refuse(e.into()))?;
            state
                .apply(&[Move {
                    player: seat,
                    action: id,
                }])
                .map_err(|e| refuse(e.into()))?;
            ids.push(id);
            while state.status()? == Status::Chance {
                let node = state.chance()?;
                let outcome = chance::draw(&node, self.setup.seed, draws)?;
                state.apply_chance(outcome)?;
                draws += 1;
            }
        }
        Ok(ids)
    }

    /// Applies a joint action, logs it, then resolves chance and the end.
    fn apply_timed_moves(&mut self, timed: &[(Move, i64)], now: i64) -> HostResult<()> {
        let moves: Vec<Move> = timed.iter().map(|(m, _)| *m).collect();
        // Notation must be read before the state changes.
        let logged = timed
            .iter()
            .map(|(m, at)| {
                let notation = self
                    .state
                    .action_to_string(m.player, m.action)
                    .unwrap_or_else(|_| m.action.to_string());
                Ok(LoggedMove {
                    seat: m.player,
                    action: m.action,
                    // Not `from(String)`, which would keep the heap buffer.
                    notation: CompactString::new(&notation),
                    at_ms: *at,
                })
            })
            .collect::<HostResult<LoggedMoves>>()?;
        let before = self.snapshot_if_watched()?;
        self.state.apply(&moves)?;
        self.pending.clear();
        for (m, at) in timed {
            self.charge(m.player, *at);
        }
        self.push_log(now, LogKind::Moves { moves: logged });
        // Clocks start before the event is built, so views in it show them.
        self.start_clocks(now)?;
        self.publish_transition(before, Transition::Moves(moves))?;
        self.resolve_chance_and_end()?;
        self.start_clocks(now)
    }

    fn push_log(&mut self, at_ms: i64, kind: LogKind) {
        let version = self.version() + 1;
        self.log.push(LogEntry {
            version,
            at_ms,
            kind,
        });
    }

    /// A copy of the state before a change, only when someone watches (events
    /// need it; unwatched matches skip the clone).
    fn snapshot_if_watched(&self) -> HostResult<Option<Box<dyn DynState>>> {
        if !self.watched() {
            return Ok(None);
        }
        Ok(Some(self.state.clone_state()?))
    }

    fn resolve_chance_and_end(&mut self) -> HostResult<()> {
        loop {
            match self.state.status()? {
                Status::Chance => {
                    let node = self.state.chance()?;
                    let outcome = chance::draw(&node, self.setup.seed, self.chance_draws)?;
                    let before = self.snapshot_if_watched()?;
                    self.state.apply_chance(outcome)?;
                    self.chance_draws += 1;
                    self.push_log(now_ms(), LogKind::Chance { outcome });
                    self.publish_transition(before, Transition::Chance(outcome))?;
                }
                Status::Terminal => {
                    self.finish_normally()?;
                    return Ok(());
                }
                Status::ToMove(_) => return Ok(()),
            }
        }
    }

    fn finish_normally(&mut self) -> HostResult<()> {
        let results = self.state.results()?;
        if results.len() != self.setup.players as usize {
            return Err(HostError::Internal(format!(
                "plugin returned {} results for {} seats",
                results.len(),
                self.setup.players
            )));
        }
        self.results = results
            .iter()
            .enumerate()
            .map(|(seat, r)| SeatResult {
                seat: seat as u32,
                rank: r.rank,
                score: r.score,
                resigned: false,
            })
            .collect();
        self.lifecycle = Lifecycle::Finished;
        Ok(())
    }

    /// Resignation ends the match: the resigning seat is last, every other seat
    /// shares first place (for two players: the opponent wins).
    fn finish_by_resignation(&mut self, seat: Player) {
        let players = self.setup.players;
        if let Some(s) = self.seats.get_mut(seat as usize) {
            s.resigned = true;
        }
        self.results = (0..players)
            .map(|p| SeatResult {
                seat: p,
                rank: if p == seat { players } else { 1 },
                score: 0.0,
                resigned: p == seat,
            })
            .collect();
        self.pending.clear();
        self.lifecycle = Lifecycle::Finished;
        self.stop_clocks();
    }

    /// `seat` resigns.
    pub fn resign(&mut self, seat: Player) -> HostResult<()> {
        if self.lifecycle == Lifecycle::Finished {
            return Err(HostError::MatchOver {
                clock_ran_out: false,
            });
        }
        self.push_log(now_ms(), LogKind::Resign { seat });
        self.finish_by_resignation(seat);
        let event = serde_json::json!({ "type": "resigned", "seat": seat }).to_string();
        self.publish_host_event(&event)
    }

    /// Takes an open seat (`seat`, or the lowest open one).
    pub fn join(&mut self, seat: Option<Player>, token_hash: [u8; 32]) -> HostResult<Player> {
        if self.lifecycle != Lifecycle::Waiting {
            return Err(HostError::NoOpenSeat);
        }
        let seat = match seat {
            Some(s) => {
                let Some(slot) = self.seats.get(s as usize) else {
                    return Err(HostError::UnknownSeat {
                        seat: s,
                        players: self.setup.players,
                    });
                };
                if slot.token_hash.is_some() {
                    return Err(HostError::SeatTaken { seat: s });
                }
                s
            }
            None => self
                .seats
                .iter()
                .position(|s| s.token_hash.is_none())
                .map(|p| p as Player)
                .ok_or(HostError::NoOpenSeat)?,
        };
        self.seats[seat as usize].token_hash = Some(token_hash);
        if self.seats.iter().all(|s| s.token_hash.is_some()) {
            self.lifecycle = Lifecycle::Running;
            self.start_clocks(now_ms())?;
        }
        let event = serde_json::json!({ "type": "joined", "seat": seat }).to_string();
        self.publish_host_event(&event)?;
        Ok(seat)
    }

    /// The match as `viewer` sees it.
    pub fn view(&self, viewer: Viewer) -> HostResult<MatchView> {
        self.view_with(viewer, ViewDetail::Full)
    }

    /// The match as `viewer` sees it, with the game's view and text only for
    /// [`ViewDetail::Full`].
    pub fn view_with(&self, viewer: Viewer, detail: ViewDetail) -> HostResult<MatchView> {
        let movers = self.movers()?;
        let now = now_ms();
        let seats = (0..self.setup.players)
            .map(|p| SeatInfo {
                seat: p,
                filled: self.seats[p as usize].token_hash.is_some(),
                to_move: movers.contains(p),
                has_acted: self.pending.contains_key(&p),
                resigned: self.seats[p as usize].resigned,
                out: self.seats[p as usize].out,
                clock_remaining_ms: self.clock_remaining(p, now),
            })
            .collect();
        let pending_action = match viewer {
            Viewer::Seat(p) => match self.pending.get(&p) {
                Some(&(action, _)) => Some(self.state.action_to_string(p, action)?),
                None => None,
            },
            Viewer::Spectator => None,
        };
        Ok(MatchView {
            match_id: self.setup.match_id.clone(),
            game: self.setup.game.clone(),
            plugin_version: self.setup.plugin_version.clone(),
            version: self.version(),
            lifecycle: self.lifecycle,
            viewer_seat: match viewer {
                Viewer::Seat(p) => Some(p),
                Viewer::Spectator => None,
            },
            view_json: match detail {
                ViewDetail::Full => self.state.view(viewer)?,
                ViewDetail::Summary => String::new(),
            },
            text: match detail {
                ViewDetail::Full => self.state.render_text(viewer)?,
                ViewDetail::Summary => String::new(),
            },
            to_move: movers.iter().collect(),
            seats,
            results: self.results.clone(),
            pending_action,
        })
    }

    /// The position in the game's notation (hidden information included).
    pub fn position(&self) -> HostResult<String> {
        Ok(self.state.position()?)
    }

    fn viewers(&self) -> impl Iterator<Item = Viewer> + use<> {
        (0..self.setup.players)
            .map(Viewer::Seat)
            .chain(std::iter::once(Viewer::Spectator))
    }

    fn publish(&mut self, event: MatchEvent) {
        let event = Arc::new(event);
        if self.history.len() == EVENT_HISTORY {
            self.history.pop_front();
        }
        self.history.push_back(Arc::clone(&event));
        // No receiver is fine: nobody watches.
        if let Some(events) = &self.events {
            let _ = events.send(event);
        }
    }

    fn publish_transition(
        &mut self,
        before: Option<Box<dyn DynState>>,
        transition: Transition,
    ) -> HostResult<()> {
        let Some(before) = before else {
            // Nobody watched: any history would now have a gap.
            self.history.clear();
            return Ok(());
        };
        // The transition that ends the match must carry the finished view
        // (state and results), not the last running one.
        if self.lifecycle != Lifecycle::Finished && self.state.status()? == Status::Terminal {
            self.finish_normally()?;
        }
        let mut updates = Vec::new();
        for viewer in self.viewers() {
            updates.push(ViewerUpdate::Transition {
                event_json: self.state.event(before.as_ref(), &transition, viewer)?,
                view: Box::new(self.view(viewer)?),
            });
        }
        let event = MatchEvent {
            version: self.version(),
            updates,
            finished: self.state.status()? == Status::Terminal,
        };
        self.publish(event);
        Ok(())
    }

    fn publish_host_event(&mut self, event_json: &str) -> HostResult<()> {
        if !self.watched() {
            self.history.clear();
            return Ok(());
        }
        let mut updates = Vec::new();
        for viewer in self.viewers() {
            updates.push(ViewerUpdate::Transition {
                event_json: event_json.to_string(),
                view: Box::new(self.view(viewer)?),
            });
        }
        let event = MatchEvent {
            version: self.version(),
            updates,
            finished: self.lifecycle == Lifecycle::Finished,
        };
        self.publish(event);
        Ok(())
    }

    fn publish_seat_acted(&mut self, seat: Player) {
        if !self.watched() {
            return;
        }
        let updates = self
            .viewers()
            .map(|_| ViewerUpdate::SeatActed { seat })
            .collect();
        self.publish(MatchEvent {
            version: self.version(),
            updates,
            finished: false,
        });
    }

    /// Whether anyone watches now.
    fn watched(&self) -> bool {
        self.events.as_ref().is_some_and(|e| e.receiver_count() > 0)
    }

    /// Subscribes to future events, and returns the past events after
    /// `from_version` if the history still holds all of them.
    pub fn subscribe(
        &mut self,
        from_version: Option<u64>,
    ) -> (
        broadcast::Receiver<Arc<MatchEvent>>,
        Option<Vec<Arc<MatchEvent>>>,
    ) {
        let receiver = self
            .events
            .get_or_insert_with(|| broadcast::channel(WATCH_BUFFER).0)
            .subscribe();
        let replay = from_version.and_then(|from| {
            if from > self.version() {
                return None;
            }
            if from == self.version() {
                return Some(Vec::new());
            }
            let missed: Vec<Arc<MatchEvent>> = self
                .history
                .iter()
                .filter(|e| e.version > from)
                .cloned()
                .collect();
            // Complete only if the first missed state change is there.
            let first_transition = missed
                .iter()
                .find(|e| !matches!(e.updates.first(), Some(ViewerUpdate::SeatActed { .. })));
            match first_transition {
                Some(e) if e.version == from + 1 => Some(missed),
                _ => None,
            }
        });
        (receiver, replay)
    }
}

#[cfg(test)]
mod tests {
    use tabletop_sdk::{
        Chance, Game, GameError, InProcess, Manifest, PlayerResult, Setup, serde_json,
    };

    use super::*;

    /// A small sequential game with a shorthand, written here because two
    /// game crates cannot link into one test binary (each exports the entry
    /// symbol): seat 0 places 1, 2, 3, 4 in order (one per action, like
    /// War's placements, ruling W3), then seat 1 does; then it is over.
    /// Shorthands expand to fixed lists, so the host's own checks of a
    /// sequence can be tested.
    #[derive(Default)]
    struct Placing;

    /// Numbers placed so far by each seat.
    #[derive(Debug, Clone, Default)]
    struct Placed([u64; 2]);

    const PLACES: u64 = 4;

    impl Placed {
        fn mover(&self) -> Option<Player> {
            (0..2).find(|&p| self.0[p as usize] < PLACES)
        }
    }

    impl Game for Placing {
        type State = Placed;
        fn manifest(&self) -> Manifest {
            Manifest {
                name: "placing".into(),
                version: "0".into(),
                min_players: 2,
                max_players: 2,
                options: Vec::new(),
                rules_summary: "Place 1 to 4, seat 0 then seat 1.".into(),
                simultaneous: false,
                hidden_information: false,
                chance: false,
                removable_players: false,
            }
        }
        fn new_state(&self, _: &Setup) -> Result<Placed, GameError> {
            Ok(Placed::default())
        }
        fn parse_position(&self, _: &Setup, text: &str) -> Result<Placed, GameError> {
            let (a, b) = text
                .split_once(' ')
                .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
                .ok_or_else(|| GameError::invalid_position("two numbers"))?;
            Ok(Placed([a, b]))
        }
        fn position_to_string(&self, s: &Placed) -> String {
            format!("{} {}", s.0[0], s.0[1])
        }
        fn status(&self, s: &Placed) -> Status {
            match s.mover() {
                Some(p) => Status::ToMove(tabletop_sdk::PlayerSet::single(p)),
                None => Status::Terminal,
            }
        }
        fn chance(&self, _: &Placed) -> Chance {
            Chance::Sampled
        }
        fn results(&self, _: &Placed) -> Vec<PlayerResult> {
            vec![
                PlayerResult {
                    rank: 1,
                    score: 0.0
                };
                2
            ]
        }
        fn legal_actions(&self, s: &Placed, p: Player, out: &mut Vec<ActionId>) {
            out.clear();
            if s.mover() == Some(p) {
                out.push(s.0[p as usize] + 1);
            }
        }
        fn apply(&self, s: &mut Placed, moves: &[Move]) -> Result<(), GameError> {
            let [Move { player, action }] = moves else {
                return Err(GameError::illegal("one move at a time"));
            };
            if s.mover() != Some(*player) {
                return Err(GameError::not_your_turn("not your turn"));
            }
            let next = s.0[*player as usize] + 1;
            if *action != next {
                return Err(GameError::illegal(format!("the next number is {next}")));
            }
            s.0[*player as usize] = next;
            Ok(())
        }
        fn apply_chance(&self, _: &mut Placed, _: u64) -> Result<(), GameError> {
            Err(GameError::illegal("no chance"))
        }
        fn action_to_string(
            &self,
            _: &Placed,
            _: Player,
            a: ActionId,
        ) -> Result<String, GameError> {
            Ok(a.to_string())
        }
        fn parse_action(&self, s: &Placed, p: Player, t: &str) -> Result<ActionId, GameError> {
            let action: ActionId = t
                .parse()
                .map_err(|_| GameError::invalid_notation(format!("`{t}` is not a number")))?;
            if s.mover() != Some(p) {
                return Err(GameError::not_your_turn("not your turn"));
            }
            let next = s.0[p as usize] + 1;
            if action != next {
                return Err(GameError::illegal(format!("the next number is {next}")));
            }
            Ok(action)
        }
        fn expand_notation(
            &self,
            _: &Placed,
            _: Player,
            text: &str,
        ) -> Result<Option<Vec<String>>, GameError> {
            let list: &[&str] = match text {
                "good" => &["1", "2"],
                "bad" => &["1", "3"],
                "empty" => &[],
                _ => return Ok(None),
            };
            Ok(Some(list.iter().map(|s| s.to_string()).collect()))
        }
        fn view(&self, s: &Placed, _: Viewer) -> serde_json::Value {
            serde_json::json!(s.0)
        }
        fn render_text(&self, s: &Placed, _: Viewer) -> String {
            self.position_to_string(s)
        }
    }

    fn new_match() -> Match {
        let setup = MatchSetup {
            match_id: "m".into(),
            game: "placing".into(),
            plugin_version: "0".into(),
            players: 2,
            options: BTreeMap::new(),
            seed: 1,
            start_position: None,
            created_at_ms: 0,
            time_control: None,
        };
        let game: Arc<dyn DynGame> = Arc::new(InProcess::new(Placing));
        Match::create(game, setup, vec![Some([0; 32]), Some([1; 32])]).unwrap()
    }

    fn sequence(m: &mut Match, text: &str, expected: Option<u64>) -> HostResult<()> {
        let steps = m.expand_notation(0, text)?.expect("a shorthand");
        m.submit_sequence(0, text, &steps, expected)
    }

    #[test]
    fn a_sequence_is_applied_step_by_step_each_with_its_own_version_and_event() {
        let mut m = new_match();
        let (mut events, _) = m.subscribe(None);
        sequence(&mut m, "good", Some(0)).unwrap();
        assert_eq!(m.version(), 2);
        let notations: Vec<&str> = m
            .log
            .iter()
            .map(|e| match &e.kind {
                LogKind::Moves { moves } => moves[0].notation.as_str(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(notations, ["1", "2"], "ruling W3: one entry per placement");
        for version in [1, 2] {
            assert_eq!(events.try_recv().unwrap().version, version);
        }
        assert!(events.try_recv().is_err());
    }

    #[test]
    fn issue9_a_sequential_games_log_entry_holds_its_move_inline() {
        // A match keeps its whole log: a heap block per entry made a played
        // action cost ~320 bytes of the server's memory (BENCHMARKS.md).
        let mut m = new_match();
        sequence(&mut m, "good", Some(0)).unwrap();
        for entry in &m.log {
            let LogKind::Moves { moves } = &entry.kind else {
                panic!("{entry:?}");
            };
            assert_eq!(moves.len(), 1);
            assert!(!moves.spilled(), "one move is stored in the entry itself");
            assert!(!moves[0].notation.is_heap_allocated(), "{:?}", moves[0]);
        }
        // The log's JSON (records, the durable store) is what it was with a
        // `Vec` and a `String`.
        let json = serde_json::to_value(&m.log[0]).unwrap();
        assert_eq!(json["moves"][0]["notation"], "1");
        let back: LogEntry = serde_json::from_value(json).unwrap();
        assert_eq!(back, m.log[0]);
    }

    #[test]
    fn a_failing_step_refuses_the_whole_sequence_and_changes_nothing() {
        let mut m = new_match();
        let (mut events, _) = m.subscribe(None);
        let position = m.position().unwrap();
        let refused = sequence(&mut m, "bad", None).unwrap_err();
        assert!(
            matches!(&refused, HostError::StepRefused { step: 2, steps: 2, cause, .. }
                if matches!(**cause, HostError::IllegalAction(_))),
            "{refused:?}"
        );
        assert!(
            refused.to_string().contains("step 2 of 2 (`3`)")
                && refused.to_string().contains("the next number is 2"),
            "{refused:?}"
        );
        assert_eq!(m.version(), 0);
        assert_eq!(m.position().unwrap(), position);
        assert!(events.try_recv().is_err(), "no event for a refused request");

        let stale = sequence(&mut m, "good", Some(5)).unwrap_err();
        assert!(matches!(
            &stale,
            HostError::StaleVersion {
                expected: 5,
                current: 0
            }
        ));
        let empty = sequence(&mut m, "empty", None).unwrap_err();
        assert!(matches!(&empty, HostError::InvalidNotation(why) if why.contains("no action")));
        let not_yours = m.submit_sequence(1, "good", &["1".into()], None);
        assert!(matches!(not_yours, Err(HostError::NotYourTurn { seat: 1 })));
        assert_eq!(m.version(), 0);
    }

    /// A running 3-seat Lanza match (simultaneous orders, ruling L5) whose
    /// clock takes a seat out; every seat's clock starts at `t0`.
    fn lanza_match(t0: i64) -> Match {
        let setup = MatchSetup {
            match_id: "m".into(),
            game: "lanza".into(),
            plugin_version: "test".into(),
            players: 3,
            options: BTreeMap::new(),
            seed: 5,
            start_position: None,
            created_at_ms: t0,
            time_control: Some(TimeControl {
                per_move_ms: 0,
                bank_ms: 1_000,
                increment_ms: 0,
                on_timeout: OnTimeout::Out,
            }),
        };
        let game: Arc<dyn DynGame> = Arc::new(InProcess::new(lanza::Lanza));
        let mut m = Match::create(game, setup, vec![Some([1; 32]); 3]).unwrap();
        m.start_clocks(t0).unwrap();
        if let Some(clocks) = &mut m.clocks {
            clocks.since.iter_mut().for_each(|s| *s = Some(t0));
        }
        m
    }

    #[test]
    fn out_completes_a_simultaneous_turn_the_others_had_finished() {
        let mut m = lanza_match(now_ms());
        assert_eq!(m.movers().unwrap().len(), 3);
        for seat in [1, 2] {
            let action = m.legal_actions(seat, LegalDetail::IdsOnly).unwrap()[0].0;
            assert_eq!(m.submit(seat, action, None).unwrap(), Submitted::Pending);
        }
        let version = m.version();
        // Seat 0's bank is long gone: it is taken out, and the turn of seats
        // 1 and 2 is complete without it.
        assert!(m.expire_clock(now_ms() + 60_000).unwrap());
        assert_eq!(m.log[version as usize].kind, LogKind::Out { seat: 0 });
        assert!(
            matches!(m.log[version as usize + 1].kind, LogKind::Moves { ref moves } if moves.len() == 2),
            "{:?}",
            m.log
        );
        assert!(m.pending.is_empty());
        assert!(m.seats[0].out);
        assert_eq!(m.lifecycle, Lifecycle::Running);
        assert!(!m.movers().unwrap().contains(0), "seat 0 never moves again");

        // The log replays to the same match, removal included.
        let replayed = Match::replay(
            Arc::clone(&m.game),
            m.setup.clone(),
            (0..3)
                .map(|_| Seat {
                    token_hash: Some([1; 32]),
                    resigned: false,
                    out: false,
                })
                .collect(),
            &m.log,
        )
        .unwrap();
        assert_eq!(replayed.position().unwrap(), m.position().unwrap());
        assert!(replayed.seats[0].out);
    }

    #[test]
    fn the_last_seat_in_ends_the_match_as_the_plugin_says() {
        let t0 = now_ms();
        let mut m = lanza_match(t0);
        // Nobody orders: every clock runs out; the first expiry takes one seat
        // out, the next leaves one seat, and Lanza ends the game.
        assert!(m.expire_clock(t0 + 60_000).unwrap());
        assert_eq!(m.lifecycle, Lifecycle::Running);
        assert!(m.expire_clock(t0 + 60_000).unwrap());
        assert_eq!(m.lifecycle, Lifecycle::Finished);
        assert!(
            !m.expire_clock(t0 + 120_000).unwrap(),
            "no clock runs any more"
        );
        let out: Vec<u32> = m
            .log
            .iter()
            .filter_map(|e| match e.kind {
                LogKind::Out { seat } => Some(seat),
                _ => None,
            })
            .collect();
        assert_eq!(out.len(), 2);
        let last_in = (0..3).find(|s| !out.contains(s)).unwrap();
        assert_eq!(m.results[last_in as usize].rank, 1);
        assert_eq!(
            m.results[out[0] as usize].rank, 3,
            "the first out ranks last"
        );
        assert_eq!(m.results[out[1] as usize].rank, 2);
    }

    /// The legal actions as listed before lists were kept: straight from the
    /// state, one seat at a time.
    fn listed_fresh(m: &Match, seat: Player) -> Vec<(ActionId, String)> {
        if m.lifecycle != Lifecycle::Running
            || m.pending.contains_key(&seat)
            || !m.movers().unwrap().contains(seat)
        {
            return Vec::new();
        }
        let mut ids = Vec::new();
        m.state.legal_actions(seat, &mut ids).unwrap();
        ids.iter()
            .map(|&id| (id, m.state.action_to_string(seat, id).unwrap()))
            .collect()
    }

    #[test]
    fn issue9_kept_legal_actions_always_equal_a_fresh_listing() {
        let mut m = lanza_match(now_ms());
        m.setup.time_control = None;
        m.clocks = None;
        assert!(!m.keeps_legal_actions(), "nobody asked yet");
        assert_eq!(m.kept_legal_actions(0, LegalDetail::IdsOnly), None);
        let ids_of = |list: Vec<(ActionId, String)>| -> Vec<(ActionId, String)> {
            list.into_iter()
                .map(|(id, _)| (id, String::new()))
                .collect()
        };
        let mut pick = 0x9e37_79b9_u64;
        let mut asked = false;
        for _ in 0..400 {
            if m.lifecycle != Lifecycle::Running {
                break;
            }
            for seat in 0..3 {
                let fresh = listed_fresh(&m, seat);
                if asked {
                    // Kept through the last submit: the ids are answered
                    // without the plugin; notation only once written.
                    assert_eq!(
                        m.kept_legal_actions(seat, LegalDetail::IdsOnly),
                        Some(ids_of(fresh.clone())),
                        "seat {seat} at version {}",
                        m.version()
                    );
                    let full = m.kept_legal_actions(seat, LegalDetail::Full);
                    assert!(full.is_none() || full == Some(fresh.clone()));
                }
                assert_eq!(
                    m.legal_actions(seat, LegalDetail::IdsOnly).unwrap(),
                    ids_of(fresh.clone())
                );
                assert_eq!(m.legal_actions(seat, LegalDetail::Full).unwrap(), fresh);
                assert_eq!(
                    m.kept_legal_actions(seat, LegalDetail::Full),
                    Some(fresh),
                    "notation written once is kept for the version"
                );
            }
            asked = true;
            let movers: Vec<Player> = m.movers().unwrap().iter().collect();
            for seat in movers {
                let list = m.legal_actions(seat, LegalDetail::IdsOnly).unwrap();
                if list.is_empty() {
                    continue;
                }
                pick ^= pick << 13;
                pick ^= pick >> 7;
                pick ^= pick << 17;
                let id = list[(pick % list.len() as u64) as usize].0;
                m.submit(seat, id, None).unwrap();
                m.refresh_kept_legal_actions();
                // A seat that has acted in a simultaneous turn has nothing
                // left to do until the turn resolves.
                if m.pending.contains_key(&seat) {
                    assert_eq!(
                        m.kept_legal_actions(seat, LegalDetail::Full),
                        Some(Vec::new())
                    );
                }
            }
        }
        assert_eq!(m.lifecycle, Lifecycle::Finished, "the match was played out");
        m.refresh_kept_legal_actions();
        assert!(!m.keeps_legal_actions(), "a finished match keeps nothing");
        assert_eq!(m.kept_legal_actions(0, LegalDetail::Full), Some(Vec::new()));
    }
}
