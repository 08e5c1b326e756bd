//! A plugin in a worker, used as a [`DynGame`]: [`WorkerGame`], whose
//! states ([`RemoteState`]) live in the worker under a handle, each with
//! the recipe that made it (its origin and every change since). When the
//! worker dies, the state whose call killed it reports a fault; every
//! other state is made again from its recipe in a fresh worker at its next
//! call, which then goes on as if nothing happened.

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use tabletop_sdk::{
    ActionId, DynGame, DynState, ErrorKind, GameError, Manifest, Player, SeatOut, Status,
};

use super::process::{CallError, Death, Process, WorkerSpec};
use super::protocol::{
    Answer, Changed, Handle, KNOWN_NOTATIONS, Origin, Recipe, Request, Step, Thought,
};
use super::{Fault, FaultSink, FaultWindow};

mod dyn_state;

/// The most restarts of one plugin's worker within [`RESTART_WINDOW`].
const MAX_RESTARTS: usize = 10;

/// See [`MAX_RESTARTS`].
const RESTART_WINDOW: Duration = Duration::from_secs(10);

/// What a worker's plugin and its workers share: how to start one, the one
/// serving now, and the faults so far.
struct Shared {
    spec: WorkerSpec,
    /// The private copy the workers load.
    file: PathBuf,
    /// `game@version`.
    label: String,
    current: Mutex<Option<Arc<Process>>>,
    generations: AtomicU64,
    faults: Mutex<VecDeque<SystemTime>>,
    /// When the last workers were started, for the cap on restarts.
    restarts: Mutex<VecDeque<Instant>>,
    fault_total: AtomicU64,
    window: FaultWindow,
    sink: FaultSink,
    retired: AtomicBool,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("label", &self.label)
            .field("file", &self.file)
            .finish_non_exhaustive()
    }
}

/// A plugin whose code runs in a worker process.
#[derive(Debug)]
pub struct WorkerGame {
    shared: Arc<Shared>,
    manifest: Manifest,
    seat_names: Vec<Vec<String>>,
    extensions: Vec<&'static str>,
}

/// What the host can say about a plugin's workers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerStatus {
    /// The serving worker's process id, if one serves.
    pub pid: Option<u32>,
    /// How many workers were started (1 + restarts).
    pub started: u64,
    /// Faults since the host started.
    pub faults: u64,
    /// Faults within the fault window now.
    pub recent_faults: u64,
    /// Whether it takes no new matches for its recent faults.
    pub suspended: bool,
}

impl WorkerGame {
    /// Starts a worker for `file` (a private copy) and reads the game it
    /// holds; `name` names the file in messages.
    pub(crate) fn start(
        spec: WorkerSpec,
        file: &Path,
        name: &str,
        window: FaultWindow,
        sink: FaultSink,
    ) -> Result<WorkerGame, String> {
        let first = Process::start(&spec, file, name, 1)
            .map_err(|e| format!("its worker process would not start: {e}"))?;
        let described = match first.call(&Request::Describe, None) {
            Ok(Answer::Described(described)) => described,
            Ok(_) => return Err("its worker answered out of turn".into()),
            Err(CallError::Game(e)) => return Err(e.message),
            Err(CallError::Died { death, .. }) => {
                return Err(format!("its worker died while loading it ({})", death.how));
            }
            Err(CallError::Stale) => return Err("its worker ended at once".into()),
        };
        let manifest: Manifest = serde_json::from_str(&described.manifest_json)
            .map_err(|e| format!("its worker described it wrongly: {e}"))?;
        let extensions = described
            .extensions
            .iter()
            .filter_map(|id| known_extension(id))
            .collect();
        let label = format!("{}@{}", manifest.name, manifest.version);
        Ok(WorkerGame {
            shared: Arc::new(Shared {
                spec,
                file: file.to_path_buf(),
                label,
                current: Mutex::new(Some(first)),
                generations: AtomicU64::new(1),
                faults: Mutex::new(VecDeque::new()),
                restarts: Mutex::new(VecDeque::new()),
                fault_total: AtomicU64::new(0),
                window,
                sink,
                retired: AtomicBool::new(false),
            }),
            manifest,
            seat_names: described.seat_names,
            extensions,
        })
    }

    /// The ids of the ABI extensions the plugin offers.
    pub(crate) fn extensions(&self) -> Vec<&'static str> {
        self.extensions.clone()
    }

    /// Its workers and faults, now.
    pub(crate) fn status(&self) -> WorkerStatus {
        let shared = &self.shared;
        let pid = shared
            .current
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .filter(|p| p.is_alive())
            .map(|p| p.pid());
        let recent = shared.recent_faults();
        WorkerStatus {
            pid,
            started: shared.generations.load(Ordering::Relaxed),
            faults: shared.fault_total.load(Ordering::Relaxed),
            recent_faults: recent,
            suspended: recent >= u64::from(shared.window.faults),
        }
    }

    /// No worker is started for it any more; the one serving ends now.
    /// States made before answer faults from here on.
    pub(crate) fn stop(&self) {
        self.shared.retired.store(true, Ordering::SeqCst);
        if let Some(process) = self
            .shared
            .current
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            process.stop();
        }
    }
}

/// The static id of an extension a worker names.
fn known_extension(id: &str) -> Option<&'static str> {
    use tabletop_sdk::abi::*;
    [
        EXT_REMOVE_PLAYER,
        EXT_EXPAND_NOTATION,
        EXT_RESAMPLE,
        EXT_SEATS_OUT,
        EXT_SEAT_NAMES,
        EXT_EXPLAIN_REFUSAL,
        EXT_EVALUATE,
        EXT_SVG_BOARD,
        EXT_ACTION_TARGETS,
    ]
    .into_iter()
    .find(|known| *known == id)
}

impl Shared {
    /// The worker serving now, started if the last one died.
    fn process(&self) -> Result<Arc<Process>, GameError> {
        let mut current = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(process) = current.as_ref().filter(|p| p.is_alive()) {
            return Ok(Arc::clone(process));
        }
        if self.retired.load(Ordering::SeqCst) {
            return Err(GameError::new(
                ErrorKind::ProcessDied,
                format!("{} is retired: its worker has ended", self.label),
            ));
        }
        self.check_restart_rate()?;
        let generation = self.generations.fetch_add(1, Ordering::Relaxed) + 1;
        let started = Instant::now();
        let process =
            Process::start(&self.spec, &self.file, &self.label, generation).map_err(|e| {
                GameError::new(
                    ErrorKind::ProcessDied,
                    format!("the worker of {} would not start again: {e}", self.label),
                )
            })?;
        tracing::info!(
            plugin = %self.label,
            generation,
            pid = process.pid(),
            start_us = started.elapsed().as_micros() as u64,
            "a fresh plugin worker started; its matches are rebuilt by replay as they are used"
        );
        *current = Some(Arc::clone(&process));
        Ok(process)
    }

    /// Refuses a restart beyond [`MAX_RESTARTS`] within
    /// [`RESTART_WINDOW`]: a plugin that dies at every call (or a caller
    /// that retries a fault without end) costs a few processes, not a
    /// storm of them. The refused call may be made again later.
    fn check_restart_rate(&self) -> Result<(), GameError> {
        let mut restarts = self.restarts.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        while restarts
            .front()
            .is_some_and(|&at| now.duration_since(at) > RESTART_WINDOW)
        {
            restarts.pop_front();
        }
        if restarts.len() >= MAX_RESTARTS {
            return Err(GameError::new(
                ErrorKind::Interrupted,
                format!(
                    "the worker of {} died {MAX_RESTARTS} times within {} s; try again later",
                    self.label,
                    RESTART_WINDOW.as_secs()
                ),
            ));
        }
        restarts.push_back(now);
        Ok(())
    }

    fn recent_faults(&self) -> u64 {
        let mut faults = self.faults.lock().unwrap_or_else(PoisonError::into_inner);
        let horizon = SystemTime::now() - self.window.within;
        while faults.front().is_some_and(|&at| at < horizon) {
            faults.pop_front();
        }
        faults.len() as u64
    }

    /// A call of the state labelled `label` killed the worker.
    /// Reported once for a death that ended several of the match's calls.
    fn fault(&self, label: Option<&str>, call: &str, death: &Death, age: Duration) -> GameError {
        let (game, version) = self.label.split_once('@').unwrap_or((&self.label, ""));
        let fault = Fault {
            game: game.to_string(),
            version: version.to_string(),
            match_id: label.map(str::to_string),
            call: call.to_string(),
            how: death.how.clone(),
        };
        if death.reported.swap(true, Ordering::SeqCst) {
            return GameError::new(ErrorKind::ProcessDied, fault.to_string());
        }
        tracing::error!(
            plugin = %self.label,
            match_id = label.unwrap_or("-"),
            call,
            how = %death.how,
            worker_age_ms = age.as_millis() as u64,
            "a plugin worker died in a call"
        );
        self.faults
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push_back(SystemTime::now());
        self.fault_total.fetch_add(1, Ordering::Relaxed);
        (self.sink)(&fault);
        GameError::new(ErrorKind::ProcessDied, fault.to_string())
    }
}

impl DynGame for WorkerGame {
    fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    fn new_state(
        &self,
        players: u32,
        options: &BTreeMap<String, String>,
        position: Option<&str>,
    ) -> Result<Box<dyn DynState>, GameError> {
        let recipe = Recipe {
            origin: Origin::New {
                players,
                options: options.clone(),
                position: position.map(str::to_string),
            },
            steps: Vec::new(),
        };
        RemoteState::make(Arc::clone(&self.shared), recipe, None)
            .map(|s| Box::new(s) as Box<dyn DynState>)
    }

    fn seat_names(&self, players: u32) -> Result<Vec<String>, GameError> {
        let index = players.checked_sub(self.manifest.min_players);
        Ok(index
            .and_then(|i| self.seat_names.get(i as usize))
            .cloned()
            .unwrap_or_default())
    }
}

/// Where a state lives now.
#[derive(Debug)]
struct Place {
    process: Arc<Process>,
    handle: Handle,
}

/// A state of a [`WorkerGame`]: a handle in its worker, and the recipe to
/// make it again.
#[derive(Debug)]
pub struct RemoteState {
    shared: Arc<Shared>,
    place: RefCell<Place>,
    recipe: Recipe,
    /// What it is a state of (the match id), for the log line and the
    /// fault report of a call that kills the worker.
    label: Option<Arc<str>>,
    /// The list `lend_legal_actions` lends.
    legal: Vec<ActionId>,
    /// Answers the worker gave since the state last changed.
    known: RefCell<Known>,
}

/// What the worker said of a state since it last changed, which a game
/// (deterministic, as the contract requires) says again: asking twice
/// would cost a round trip each. The submit path asks for the status, a
/// move's notation and the next legal actions around every move; with
/// these, a move costs one round trip.
#[derive(Debug, Default)]
struct Known {
    status: Option<Status>,
    /// The legal actions of players to move, each listed once.
    legal: Vec<(Player, Vec<ActionId>)>,
    /// Notations of actions, from the last list of them.
    notations: Option<Notations>,
    /// The seats out of the game.
    seats_out: Option<Vec<SeatOut>>,
}

impl Known {
    /// After a change whose answer was `changed`, its list that of
    /// `player` (none: the lowest mover's).
    fn after_change(changed: Changed, player: Option<Player>) -> Known {
        let Changed {
            status,
            legal,
            others,
            notations,
            seats_out,
        } = changed;
        let lowest = match status {
            Status::ToMove(movers) => movers.iter().next(),
            _ => None,
        };
        let Some(owner) = player.or(lowest) else {
            return Known {
                status: Some(status),
                seats_out,
                ..Known::default()
            };
        };
        let notations = notations.map(|(joined, ends)| Notations::new(owner, &legal, joined, ends));
        let mut lists = others;
        lists.retain(|(player, _)| *player != owner);
        lists.push((owner, legal));
        Known {
            status: Some(status),
            legal: lists,
            notations,
            seats_out,
        }
    }
}

/// Notations of one player's actions as the worker sent them: one text
/// and each action's end offset in it. Kept whole rather than as a string
/// per action: a move's answer lists every legal action's notation, and
/// only the one played is usually asked for.
#[derive(Debug)]
struct Notations {
    player: Player,
    /// The actions, at most [`KNOWN_NOTATIONS`], each with its end in `ends`.
    ids: Vec<ActionId>,
    joined: String,
    ends: Vec<u32>,
}

impl Notations {
    fn new(player: Player, ids: &[ActionId], mut joined: String, mut ends: Vec<u32>) -> Notations {
        let kept = ids.len().min(ends.len()).min(KNOWN_NOTATIONS);
        ends.truncate(kept);
        // A long list's text past the kept notations is not held.
        let end = ends.last().map_or(0, |&end| end as usize);
        if joined.is_char_boundary(end) {
            joined.truncate(end);
        }
        Notations {
            player,
            ids: ids[..kept].to_vec(),
            joined,
            ends,
        }
    }

    /// `action`'s notation for `player`, when this list has it.
    fn get(&self, player: Player, action: ActionId) -> Option<&str> {
        if player != self.player {
            return None;
        }
        let at = self.ids.iter().position(|&id| id == action)?;
        let start = at.checked_sub(1).map_or(0, |before| self.ends[before]);
        self.joined.get(start as usize..self.ends[at] as usize)
    }
}

/// An answer of a kind the request does not have.
fn out_of_turn() -> GameError {
    GameError::internal("the plugin's worker answered out of turn")
}

impl RemoteState {
    /// Makes a state from `recipe` in the serving worker.
    fn make(
        shared: Arc<Shared>,
        recipe: Recipe,
        label: Option<Arc<str>>,
    ) -> Result<RemoteState, GameError> {
        let place = make_place(&shared, &recipe, label.as_deref())?;
        Ok(RemoteState {
            shared,
            place: RefCell::new(place),
            recipe,
            label,
            legal: Vec::new(),
            known: RefCell::default(),
        })
    }

    /// Where the state lives, made again in a fresh worker if its own
    /// ended.
    fn placed(&self) -> Result<(Arc<Process>, Handle), GameError> {
        let mut place = self.place.borrow_mut();
        if !place.process.is_alive() {
            *place = make_place(&self.shared, &self.recipe, self.label.as_deref())?;
        }
        Ok((Arc::clone(&place.process), place.handle))
    }

    /// Calls the worker about this state; `request` is given its handle.
    fn call(&self, request: impl Fn(Handle) -> Request) -> Result<Answer, GameError> {
        self.call_within(request, None)
    }

    fn call_within(
        &self,
        request: impl Fn(Handle) -> Request,
        deadline: Option<Duration>,
    ) -> Result<Answer, GameError> {
        twice(&self.shared, self.label.as_deref(), || {
            let (process, handle) = self.placed()?;
            let request = request(handle);
            let answer = match deadline {
                Some(deadline) => process.call_within(&request, deadline, self.label.as_deref()),
                None => process.call(&request, self.label.as_deref()),
            };
            Ok((process, request, answer))
        })
        .map(|(_, answer)| answer)
    }

    /// A new state in the same worker made by `request` (given the source's
    /// handle and the new one), with `recipe`.
    fn derive(
        &self,
        recipe: Recipe,
        request: impl Fn(Handle, Handle) -> Request,
    ) -> Result<Box<dyn DynState>, GameError> {
        let (process, handle) = twice(&self.shared, self.label.as_deref(), || {
            let (process, of) = self.placed()?;
            let handle = process.new_handle();
            let request = request(of, handle);
            let answer = process
                .call(&request, self.label.as_deref())
                .map(|_| handle);
            Ok((process, request, answer))
        })?;
        Ok(Box::new(RemoteState {
            shared: Arc::clone(&self.shared),
            place: RefCell::new(Place { process, handle }),
            recipe,
            label: self.label.clone(),
            legal: Vec::new(),
            known: RefCell::default(),
        }))
    }

    /// A bot's choice for `seat`, searched inside the worker (see
    /// `tabletop_mcts::Bot::think_within`): the search is given `limit`,
    /// and the worker is killed if it has not answered within the call
    /// deadline more. The search runs at idle priority, so on a busy
    /// machine it may wait long for a core: a tighter bound would blame
    /// the plugin, and quarantine its match, for the machine's load.
    pub fn think(
        &self,
        spec: &str,
        players: u32,
        seat: Player,
        seed: u64,
        limit: Duration,
    ) -> Result<(ActionId, u64, Duration), GameError> {
        let deadline = limit + self.shared.spec.call_deadline;
        let answer = self.call_within(
            |handle| Request::Think {
                handle,
                spec: spec.to_string(),
                players,
                seat,
                seed,
                limit,
            },
            Some(deadline),
        )?;
        match answer {
            Answer::Thought(Thought {
                action,
                iterations,
                elapsed,
                ..
            }) => Ok((action, iterations, elapsed)),
            _ => Err(out_of_turn()),
        }
    }

    /// The legal actions of `player`, from what is known or from the
    /// worker.
    fn known_legal(&self, player: Player) -> Result<Vec<ActionId>, GameError> {
        if let Some((_, legal)) = self.known.borrow().legal.iter().find(|(p, _)| *p == player) {
            return Ok(legal.clone());
        }
        match self.call(|handle| Request::Legal { handle, player })? {
            Answer::Actions(actions) => {
                self.known
                    .borrow_mut()
                    .legal
                    .push((player, actions.clone()));
                Ok(actions)
            }
            _ => Err(out_of_turn()),
        }
    }

    /// The state's recipe with `step` added.
    fn record(&mut self, step: Step) {
        self.recipe.steps.push(step);
    }
}

impl Drop for RemoteState {
    fn drop(&mut self) {
        let place = self.place.get_mut();
        place.process.forget(place.handle);
    }
}

/// Makes a state from `recipe` in the serving worker (started if the last
/// one died): a new state, or one made again by replay.
fn make_place(shared: &Shared, recipe: &Recipe, label: Option<&str>) -> Result<Place, GameError> {
    twice(shared, label, || {
        let process = shared.process()?;
        let handle = process.new_handle();
        let request = Request::Make {
            handle,
            recipe: recipe.clone(),
        };
        let answer = process.call(&request, label).map(|_| handle);
        Ok((process, request, answer))
    })
    .map(|(process, handle)| Place { process, handle })
}

/// A call made once, or again once more when the worker had ended before
/// it or another call ended it during it (the state is made again in a
/// fresh worker by the next `once`): the
/// answer with the worker that gave it, or the error a failed call comes
/// to (see [`settle`]). `once` gives the worker it called, the request and
/// the call's answer.
fn twice<T>(
    shared: &Shared,
    label: Option<&str>,
    mut once: impl FnMut() -> Result<(Arc<Process>, Request, Result<T, CallError>), GameError>,
) -> Result<(Arc<Process>, T), GameError> {
    for _ in 0..2 {
        let (process, request, answer) = once()?;
        match answer {
            Ok(value) => return Ok((process, value)),
            Err(error) => match settle(shared, label, &request, &process, error) {
                Settled::Again => continue,
                Settled::Fail(e) => return Err(e),
            },
        }
    }
    Err(interrupted(&shared.label))
}

/// What a failed call comes to.
enum Settled {
    /// The worker had ended before the call, or another call ended it: make
    /// the state again and call again.
    Again,
    /// The call's answer.
    Fail(GameError),
}

fn settle(
    shared: &Shared,
    label: Option<&str>,
    request: &Request,
    process: &Process,
    error: CallError,
) -> Settled {
    match error {
        CallError::Game(e) => Settled::Fail(e),
        CallError::Stale => Settled::Again,
        CallError::Died {
            death,
            culprit: true,
        } => Settled::Fail(shared.fault(label, request.name(), &death, process.age())),
        CallError::Died { culprit: false, .. } => Settled::Again,
    }
}

fn interrupted(plugin: &str) -> GameError {
    GameError::new(
        ErrorKind::Interrupted,
        format!(
            "the worker of {plugin} ended during the call, and again when it was made again \
             (other calls killed it); try again"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabletop_sdk::PlayerSet;

    #[test]
    fn a_kept_notation_is_found_by_its_player_and_action_only() {
        let notations = Notations::new(1, &[3, 7, 9], "a1b22c333".into(), vec![2, 5, 9]);
        assert_eq!(notations.get(1, 3), Some("a1"));
        assert_eq!(notations.get(1, 7), Some("b22"));
        assert_eq!(notations.get(1, 9), Some("c333"));
        assert_eq!(notations.get(0, 7), None, "another player's action");
        assert_eq!(notations.get(1, 8), None, "an action not listed");
    }

    #[test]
    fn notations_past_the_ends_sent_or_off_a_char_boundary_are_not_kept() {
        // The worker sent two ends for three actions: the third is unknown.
        let short = Notations::new(0, &[1, 2, 3], "xyz".into(), vec![1, 2]);
        assert_eq!(short.get(0, 2), Some("y"));
        assert_eq!(short.get(0, 3), None);
        assert_eq!(
            short.joined, "xy",
            "the text past the kept notations is dropped"
        );
        // An end inside a character names no notation (the host asks instead).
        let split = Notations::new(0, &[1, 2], "é!".into(), vec![1, 3]);
        assert_eq!(split.get(0, 1), None);
    }

    #[test]
    fn a_change_keeps_the_legal_actions_of_every_mover() {
        let changed = Changed {
            status: Status::ToMove(PlayerSet::single(0).with(1)),
            legal: vec![4, 5],
            others: vec![(1, vec![6])],
            notations: Some(("d4e5".into(), vec![2, 4])),
            seats_out: None,
        };
        let known = Known::after_change(changed, None);
        let list = |player: Player| {
            known
                .legal
                .iter()
                .find(|(p, _)| *p == player)
                .map(|(_, list)| list.clone())
        };
        assert_eq!(list(0), Some(vec![4, 5]), "the lowest mover's");
        assert_eq!(list(1), Some(vec![6]), "the other mover's");
        assert_eq!(list(2), None);
        let notations = known.notations.as_ref().unwrap();
        assert_eq!(notations.get(0, 5), Some("e5"));
    }
}
