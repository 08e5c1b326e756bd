//! The worker's side: a process that loads one plugin file and serves the
//! host's calls on its states.
//!
//! Its standard input is a listening unix socket (the only descriptor the
//! host gives it besides its output pipes); each connection the host makes
//! is served by a thread of its own, one call at a time. The states live
//! here, in a map from the host's handles; a bot's search runs here too, on
//! a thread at the lowest priority, so it never crosses the boundary per
//! node. The process ends when the host closes its last connection and
//! goes away (its parent changes), or when the host kills it.

use std::collections::HashMap;
use std::io::{BufReader, BufWriter, Write};
use std::os::fd::AsFd;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tabletop_mcts::Bot;
use tabletop_sdk::import::ImportedGame;
use tabletop_sdk::{ActionId, Attempt, DynGame, DynState, GameError, Player, Status};

use super::protocol::{
    Answer, AttemptText, Changed, Description, Handle, KNOWN_NOTATIONS, Origin, Recipe, Reply,
    Request, Step, Thought, error_reply, read_frame, write_frame,
};

/// The exit code of a worker that could not start (the file would not
/// load, the memory cap could not be set); the reason is on stderr.
pub const EXIT_CANNOT_START: i32 = 3;

/// How often a worker checks that its host is still there.
const PARENT_CHECK: Duration = Duration::from_millis(500);

type Shared = Arc<Mutex<Box<dyn DynState>>>;

/// The states a worker holds, by the host's handle.
struct Worker {
    game: ImportedGame,
    states: Mutex<HashMap<Handle, Shared>>,
}

/// The whole life of a worker process (`engine-host plugin-worker`): caps
/// its memory at `memory_mib`, loads `file`, and serves connections on the
/// listening socket that is its standard input until its host is gone.
/// Returns the exit code.
pub fn run_worker(file: &Path, memory_mib: Option<u64>) -> i32 {
    if let Some(mib) = memory_mib
        && let Err(e) = crate::vet::cap_memory(mib)
    {
        eprintln!("worker: cannot cap the memory at {mib} MiB: {e}");
        return EXIT_CANNOT_START;
    }
    let listener = match std::io::stdin().as_fd().try_clone_to_owned() {
        Ok(fd) => UnixListener::from(fd),
        Err(e) => {
            eprintln!("worker: standard input is not the host's socket: {e}");
            return EXIT_CANNOT_START;
        }
    };
    let game = match ImportedGame::open(file) {
        Ok(game) => game,
        Err(e) => {
            eprintln!("worker: {e}");
            return EXIT_CANNOT_START;
        }
    };
    watch_parent();
    let worker = Arc::new(Worker {
        game,
        states: Mutex::new(HashMap::new()),
    });
    for connection in listener.incoming() {
        let Ok(connection) = connection else { continue };
        let worker = Arc::clone(&worker);
        let spawned = std::thread::Builder::new()
            .name("worker-call".into())
            .spawn(move || serve(&worker, connection));
        if let Err(e) = spawned {
            eprintln!("worker: cannot start a thread for a connection: {e}");
        }
    }
    0
}

/// Ends the process once its parent (the host) is gone: a host killed
/// outright cannot stop its workers.
fn watch_parent() {
    let parent = std::os::unix::process::parent_id();
    let _ = std::thread::Builder::new()
        .name("worker-parent".into())
        .spawn(move || {
            loop {
                std::thread::sleep(PARENT_CHECK);
                if std::os::unix::process::parent_id() != parent {
                    std::process::exit(0);
                }
            }
        });
}

/// Serves one connection's calls until the host closes it.
fn serve(worker: &Worker, connection: UnixStream) {
    let Ok(writer) = connection.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(connection);
    let mut writer = BufWriter::new(writer);
    let mut buffer = Vec::new();
    while let Ok(Some(request)) = read_frame::<Request>(&mut reader, &mut buffer) {
        let answered = !matches!(request, Request::Drop { .. });
        let reply = worker.answer(request);
        if !answered {
            continue;
        }
        if write_frame(&mut writer, &reply)
            .and_then(|()| writer.flush())
            .is_err()
        {
            return;
        }
    }
}

impl Worker {
    fn remove(&self, handle: Handle) {
        self.states
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&handle);
    }

    fn insert(&self, handle: Handle, state: Box<dyn DynState>) {
        self.states
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(handle, Arc::new(Mutex::new(state)));
    }

    fn state(&self, handle: Handle) -> Result<Shared, GameError> {
        self.states
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&handle)
            .cloned()
            .ok_or_else(|| GameError::internal(format!("the worker holds no state {handle}")))
    }

    /// Makes a state again from its recipe.
    fn make(&self, recipe: &Recipe) -> Result<Box<dyn DynState>, GameError> {
        let mut state = match &recipe.origin {
            Origin::New {
                players,
                options,
                position,
            } => self
                .game
                .new_state(*players, options, position.as_deref())?,
            Origin::Resampled { of, viewer, random } => {
                self.make(of)?.resample(*viewer, *random)?
            }
        };
        for step in &recipe.steps {
            match step {
                Step::Apply(moves) => state.apply(moves)?,
                Step::Chance(outcome) => state.apply_chance(*outcome)?,
                Step::Remove(player) => state.remove_player(*player)?,
            }
        }
        Ok(state)
    }

    fn answer(&self, request: Request) -> Reply {
        self.try_answer(request).or_else(error_reply)
    }

    fn try_answer(&self, request: Request) -> Result<Answer, GameError> {
        let with = |handle: Handle| self.state(handle);
        match request {
            Request::Describe => Ok(Answer::Described(self.describe()?)),
            Request::Make { handle, recipe } => {
                self.insert(handle, self.make(&recipe)?);
                Ok(Answer::Done)
            }
            Request::Clone { of, handle } => {
                let copy = lock(&with(of)?).clone_state()?;
                self.insert(handle, copy);
                Ok(Answer::Done)
            }
            Request::Resample {
                of,
                handle,
                viewer,
                random,
            } => {
                let resampled = lock(&with(of)?).resample(viewer, random)?;
                self.insert(handle, resampled);
                Ok(Answer::Done)
            }
            Request::Drop { handle } => {
                self.remove(handle);
                Ok(Answer::Done)
            }
            Request::Status { handle } => Ok(Answer::Status(lock(&with(handle)?).status()?)),
            Request::Chance { handle } => Ok(Answer::Chance(lock(&with(handle)?).chance()?)),
            Request::Results { handle } => Ok(Answer::Results(lock(&with(handle)?).results()?)),
            Request::Legal { handle, player } => {
                let mut legal = Vec::new();
                lock(&with(handle)?).legal_actions(player, &mut legal)?;
                Ok(Answer::Actions(legal))
            }
            Request::ApplyAndLegal {
                handle,
                moves,
                player,
            } => {
                let state = with(handle)?;
                let mut state = lock(&state);
                let (status, legal) = state.apply_and_lend_legal(&moves, player)?;
                let legal = legal.to_vec();
                let owner = player.or(match status {
                    Status::ToMove(movers) => movers.iter().next(),
                    _ => None,
                });
                Ok(Answer::Changed(changed(
                    state.as_ref(),
                    status,
                    legal,
                    owner,
                )))
            }
            Request::ApplyChance { handle, outcome } => {
                let state = with(handle)?;
                let mut state = lock(&state);
                state.apply_chance(outcome)?;
                // The answer the host would ask for next: the status, and
                // the lowest mover's legal actions.
                let status = state.status()?;
                let owner = match status {
                    Status::ToMove(movers) => movers.iter().next(),
                    _ => None,
                };
                let legal = match owner {
                    Some(mover) => state.lend_legal_actions(mover)?.to_vec(),
                    None => Vec::new(),
                };
                Ok(Answer::Changed(changed(
                    state.as_ref(),
                    status,
                    legal,
                    owner,
                )))
            }
            Request::View { handle, viewer } => {
                Ok(Answer::Text(lock(&with(handle)?).view(viewer)?))
            }
            Request::Text { handle, viewer } => {
                Ok(Answer::Text(lock(&with(handle)?).render_text(viewer)?))
            }
            Request::Event {
                handle,
                before,
                transition,
                viewer,
            } => {
                let (after, before) = (with(handle)?, with(before)?);
                let before = lock(&before);
                let text = lock(&after).event(before.as_ref(), &transition, viewer)?;
                Ok(Answer::Text(text))
            }
            Request::Position { handle } => Ok(Answer::Text(lock(&with(handle)?).position()?)),
            Request::ActionText {
                handle,
                player,
                action,
            } => Ok(Answer::Text(
                lock(&with(handle)?).action_to_string(player, action)?,
            )),
            Request::ActionTexts {
                handle,
                player,
                ids,
            } => {
                let (mut text, mut ends) = (String::new(), Vec::new());
                lock(&with(handle)?).actions_to_strings(player, &ids, &mut text, &mut ends)?;
                Ok(Answer::Texts(text, ends))
            }
            Request::ParseAction {
                handle,
                player,
                text,
            } => Ok(Answer::Action(
                lock(&with(handle)?).parse_action(player, &text)?,
            )),
            Request::ExpandNotation {
                handle,
                player,
                text,
            } => Ok(Answer::Expanded(
                lock(&with(handle)?).expand_notation(player, &text)?,
            )),
            Request::RemovePlayer { handle, player } => {
                lock(&with(handle)?).remove_player(player)?;
                Ok(Answer::Done)
            }
            Request::SeatsOut { handle } => Ok(Answer::SeatsOut(lock(&with(handle)?).seats_out()?)),
            Request::ExplainRefusal {
                handle,
                player,
                attempt,
            } => {
                let attempt = match &attempt {
                    AttemptText::Id(id) => Attempt::Id(*id),
                    AttemptText::Text(text) => Attempt::Text(text),
                };
                Ok(Answer::Refusal(
                    lock(&with(handle)?).explain_refusal(player, attempt)?,
                ))
            }
            Request::ActionSpace { handle } => {
                Ok(Answer::Number(lock(&with(handle)?).action_space()?))
            }
            Request::Evaluate { handle, seats } => {
                let mut values = vec![0.0; seats as usize];
                let offered = lock(&with(handle)?).evaluate(&mut values)?;
                Ok(Answer::Values(offered.then_some(values)))
            }
            Request::Svg { handle, viewer } => {
                Ok(Answer::MaybeText(lock(&with(handle)?).render_svg(viewer)?))
            }
            Request::Targets {
                handle,
                player,
                ids,
            } => Ok(Answer::Targets(
                lock(&with(handle)?).action_targets(player, &ids)?,
            )),
            Request::Think {
                handle,
                spec,
                players,
                seat,
                seed,
                limit,
            } => {
                let bot = Bot::from_spec(&spec)
                    .map_err(|e| GameError::internal(format!("bot {spec:?}: {}", e.0)))?;
                // A copy, which the search thread can own.
                let state = lock(&with(handle)?).clone_state()?;
                // A thread of its own, at the lowest priority: a search takes
                // only what the host's threads leave idle, and the thread
                // that serves this connection keeps its priority.
                let choice = std::thread::scope(|scope| {
                    scope
                        .spawn(move || {
                            crate::priority::lower_thread_priority();
                            bot.think_within(state.as_ref(), players, seat, seed, Some(limit))
                        })
                        .join()
                })
                .map_err(|_| GameError::internal("the bot's search panicked"))??;
                Ok(Answer::Thought(Thought {
                    action: choice.action,
                    iterations: choice.iterations,
                    nodes: choice.nodes as u64,
                    elapsed: choice.elapsed,
                }))
            }
        }
    }

    fn describe(&self) -> Result<Description, GameError> {
        let manifest = self.game.manifest();
        let manifest_json = serde_json::to_string(manifest)
            .map_err(|e| GameError::internal(format!("the manifest does not serialise: {e}")))?;
        let seat_names = (manifest.min_players..=manifest.max_players)
            .map(|players| self.game.seat_names(players))
            .collect::<Result<_, _>>()?;
        Ok(Description {
            manifest_json,
            seat_names,
            extensions: self
                .game
                .extensions()
                .into_iter()
                .map(String::from)
                .collect(),
        })
    }
}

/// A state's lock; a call that panicked left the state as the plugin's
/// shim left it (the shim poisons it itself).
fn lock(state: &Shared) -> std::sync::MutexGuard<'_, Box<dyn DynState>> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The most legal actions of other movers one change's answer carries, all
/// lists together: the host asks for the rest one by one, so a game of
/// many movers with long lists never makes one frame of them all.
const OTHERS_MAX_ACTIONS: usize = 1 << 16;

/// The answer to a change: `status`, `owner`'s `legal` actions, and what
/// the host asks next, each left out if the plugin fails to say it (the
/// change itself stands).
fn changed(
    state: &dyn DynState,
    status: Status,
    legal: Vec<ActionId>,
    owner: Option<Player>,
) -> Changed {
    let notations = owner
        .filter(|_| !legal.is_empty() && legal.len() <= KNOWN_NOTATIONS)
        .and_then(|owner| {
            let (mut text, mut ends) = (String::new(), Vec::new());
            state
                .actions_to_strings(owner, &legal, &mut text, &mut ends)
                .ok()
                .map(|()| (text, ends))
        });
    let mut others = Vec::new();
    if let Status::ToMove(movers) = status {
        let mut listed = 0;
        for mover in movers.iter().filter(|&mover| Some(mover) != owner) {
            let mut list = Vec::new();
            if state.legal_actions(mover, &mut list).is_err() {
                continue;
            }
            listed += list.len();
            if listed > OTHERS_MAX_ACTIONS {
                break;
            }
            others.push((mover, list));
        }
    }
    Changed {
        status,
        legal,
        others,
        notations,
        seats_out: state.seats_out().ok(),
    }
}
