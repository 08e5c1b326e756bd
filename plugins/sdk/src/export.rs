//! The `extern "C"` shims behind [`export_game!`](crate::export_game). Game crates
//! never call these; the macro builds a [`PluginApi`] from them.
//!
//! Every shim runs the game inside `catch_unwind`: a panic becomes
//! [`ErrorKind::Panic`] with the panic message, never an unwind into the host.

use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::abi::{
    ABI_MAJOR, ABI_MINOR, CHANCE_EXPLICIT, CHANCE_SAMPLED, CODE_OK, LEND_FIRST_MOVER, LogFn,
    PluginApi, PluginBuf, RawApplied, RawMove, RawOption, RawOutcome, RawPly, RawStatus,
    RawTransition, STATUS_CHANCE, STATUS_TERMINAL, STATUS_TO_MOVE, StateHandle, StrRef,
    TRANSITION_CHANCE, TRANSITION_MOVES,
};
use crate::error::{ErrorKind, GameError};
use crate::game::Game;
use crate::manifest::{Manifest, Setup};
use crate::types::{Chance, Status, Transition, Viewer};

/// The one instance of a plugin's game, provided by [`export_game!`](crate::export_game).
pub trait Instance: Game {
    /// The process-wide game value.
    fn instance() -> &'static Self;

    /// Its manifest, built once: validating a new state's options needs it,
    /// and building it (names, option specs, rules text) on every call would
    /// cost more than a short game's playout.
    fn cached_manifest() -> &'static Manifest;
}

/// What a [`StateHandle`] points to.
struct Slot<G: Game> {
    state: G::State,
    /// The game instance, read here rather than through
    /// [`Instance::instance`]: the handle exists, so the instance does, and
    /// `ply` is spared the `OnceLock` check (nothing at all for a game that
    /// is a unit struct).
    game: &'static G,
    /// The message of `ply`'s last failure, lent to the caller like `legal`.
    error: String,
    /// Set while a mutating call runs; still set afterwards only if it panicked.
    poisoned: bool,
    /// The last `legal_actions` answer, lent to the caller until its next call
    /// on this handle. Per handle rather than thread-local: a dlopen'ed
    /// library reaches its thread-locals through `__tls_get_addr`, and the
    /// handle's one-call-at-a-time rule already makes this exclusive.
    legal: std::cell::UnsafeCell<Vec<u64>>,
    /// The last `chance_outcomes` answer, lent like `legal`.
    outcomes: std::cell::UnsafeCell<Vec<RawOutcome>>,
}

impl<G: Game> Slot<G> {
    /// Runs a change of the state with the handle marked poisoned: a panic
    /// inside `change` unwinds past the reset and leaves the flag set.
    #[inline]
    fn mutate(
        &mut self,
        change: impl FnOnce(&mut G::State) -> Result<(), GameError>,
    ) -> Result<(), GameError> {
        self.poisoned = true;
        let result = change(&mut self.state);
        self.poisoned = false;
        result
    }
}

/// Builds the table for game `G`.
pub fn plugin_api<G: Instance>() -> PluginApi {
    PluginApi {
        abi_major: ABI_MAJOR,
        abi_minor: ABI_MINOR,
        size: std::mem::size_of::<PluginApi>(),
        free_buf,
        set_logger,
        manifest: manifest::<G>,
        new_state: new_state::<G>,
        clone_state: clone_state::<G>,
        free_state: free_state::<G>,
        status: status::<G>,
        chance: chance::<G>,
        results: results::<G>,
        legal_actions: legal_actions::<G>,
        apply: apply::<G>,
        apply_chance: apply_chance::<G>,
        view: view::<G>,
        render_text: render_text::<G>,
        event: event::<G>,
        position: position::<G>,
        action_to_string: action_to_string::<G>,
        parse_action: parse_action::<G>,
        resample: resample::<G>,
        expand_notation: expand_notation::<G>,
        remove_player: remove_player::<G>,
        new_state_raw: new_state_raw::<G>,
        chance_outcomes: chance_outcomes::<G>,
        apply_and_lend_legal: apply_and_lend_legal::<G>,
        actions_to_strings: actions_to_strings::<G>,
        ply: ply::<G>,
    }
}

/// What every call on a null handle answers.
const NULL_HANDLE: &str = "null state handle";

/// What every call on a handle left behind by a panic answers.
const POISONED: &str = "state is poisoned by an earlier panic";

/// The message of a caught panic.
fn panicked(payload: &(dyn std::any::Any + Send)) -> String {
    format!("plugin panicked: {}", panic_message(payload))
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}

fn into_buf(text: String) -> PluginBuf {
    let mut bytes = std::mem::ManuallyDrop::new(text.into_bytes());
    PluginBuf {
        ptr: bytes.as_mut_ptr(),
        len: bytes.len(),
        cap: bytes.capacity(),
    }
}

/// Stores `text` in `*out` (if `out` is not null).
fn write_out(out: *mut PluginBuf, text: String) {
    if out.is_null() {
        return;
    }
    // SAFETY: `out` is non-null and, by the ABI contract, points to a writable
    // PluginBuf owned by the caller for the duration of the call.
    unsafe { out.write(into_buf(text)) };
}

/// Runs `body`, turning errors and panics into a status code plus message.
fn guard(out: *mut PluginBuf, body: impl FnOnce() -> Result<Option<String>, GameError>) -> i32 {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(text)) => {
            if let Some(text) = text {
                write_out(out, text);
            }
            CODE_OK
        }
        Ok(Err(error)) => {
            write_out(out, error.message);
            error.kind as i32
        }
        Err(payload) => {
            write_out(out, panicked(payload.as_ref()));
            ErrorKind::Panic as i32
        }
    }
}

fn slot<'a, G: Game>(state: *const StateHandle) -> Result<&'a Slot<G>, GameError> {
    if state.is_null() {
        return Err(GameError::internal(NULL_HANDLE));
    }
    // SAFETY: non-null handles come from `into_handle::<G>` of this plugin and
    // stay valid until `free_state`; the caller guarantees one call at a time.
    let slot = unsafe { &*(state as *const Slot<G>) };
    if slot.poisoned {
        return Err(GameError::new(ErrorKind::Poisoned, POISONED));
    }
    Ok(slot)
}

fn slot_mut<'a, G: Game>(state: *mut StateHandle) -> Result<&'a mut Slot<G>, GameError> {
    if state.is_null() {
        return Err(GameError::internal(NULL_HANDLE));
    }
    // SAFETY: as in `slot`, and the caller holds the only reference during the call.
    let slot = unsafe { &mut *(state as *mut Slot<G>) };
    if slot.poisoned {
        return Err(GameError::new(ErrorKind::Poisoned, POISONED));
    }
    Ok(slot)
}

fn into_handle<G: Instance>(state: G::State) -> *mut StateHandle {
    Box::into_raw(Box::new(Slot::<G> {
        state,
        game: G::instance(),
        error: String::new(),
        poisoned: false,
        legal: std::cell::UnsafeCell::new(Vec::new()),
        outcomes: std::cell::UnsafeCell::new(Vec::new()),
    })) as *mut StateHandle
}

fn write_handle(state_out: *mut *mut StateHandle, handle: *mut StateHandle) {
    // SAFETY: the caller passes a writable pointer slot for the new handle.
    unsafe { state_out.write(handle) };
}

fn read_str<'a>(text: StrRef) -> Result<Option<&'a str>, GameError> {
    if text.ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller lends `len` readable bytes at `ptr` for the call.
    let bytes = unsafe { std::slice::from_raw_parts(text.ptr, text.len) };
    std::str::from_utf8(bytes)
        .map(Some)
        .map_err(|_| GameError::invalid_notation("text is not valid UTF-8"))
}

fn read_moves<'a>(moves: *const RawMove, count: usize) -> &'a [RawMove] {
    if count == 0 || moves.is_null() {
        return &[];
    }
    // SAFETY: the caller lends `count` RawMoves at `moves` for the call.
    unsafe { std::slice::from_raw_parts(moves, count) }
}

extern "C" fn free_buf(buf: PluginBuf) {
    if buf.ptr.is_null() {
        return;
    }
    // SAFETY: non-null buffers come from `into_buf`, which leaked a Vec<u8> with
    // exactly this pointer, length and capacity; the caller frees each once.
    drop(unsafe { Vec::from_raw_parts(buf.ptr, buf.len, buf.cap) });
}

extern "C" fn set_logger(logger: Option<LogFn>) {
    crate::log::set_logger(logger);
}

extern "C" fn manifest<G: Instance>(out: *mut PluginBuf) -> i32 {
    guard(out, || {
        serde_json::to_string(G::cached_manifest())
            .map(Some)
            .map_err(|e| GameError::internal(e.to_string()))
    })
}

#[derive(serde::Deserialize)]
struct RawSetup {
    players: u32,
    #[serde(default)]
    options: std::collections::BTreeMap<String, String>,
}

extern "C" fn new_state<G: Instance>(
    setup_json: StrRef,
    position: StrRef,
    state_out: *mut *mut StateHandle,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        let game = G::instance();
        let setup_text = read_str(setup_json)?.unwrap_or("");
        let raw: RawSetup = serde_json::from_str(setup_text)
            .map_err(|e| GameError::invalid_option(format!("malformed setup: {e}")))?;
        let setup = Setup::validate(G::cached_manifest(), raw.players, &raw.options)?;
        let state = match read_str(position)? {
            Some(text) => game.parse_position(&setup, text)?,
            None => game.new_state(&setup)?,
        };
        write_handle(state_out, into_handle::<G>(state));
        Ok(None)
    })
}

/// Reads the caller's option pairs into the map `Setup::validate` takes. A
/// name given twice is refused: JSON objects cannot say that, so neither may
/// the arrays.
fn read_options(
    options: *const RawOption,
    count: usize,
) -> Result<std::collections::BTreeMap<String, String>, GameError> {
    let mut map = std::collections::BTreeMap::new();
    if count == 0 {
        return Ok(map);
    }
    if options.is_null() {
        return Err(GameError::invalid_option("null option array"));
    }
    // SAFETY: the caller lends `count` RawOptions at `options` for the call.
    let pairs = unsafe { std::slice::from_raw_parts(options, count) };
    for pair in pairs {
        let name = read_str(pair.name)?
            .ok_or_else(|| GameError::invalid_option("an option without a name"))?;
        let value = read_str(pair.value)?.unwrap_or("");
        if map.insert(name.to_owned(), value.to_owned()).is_some() {
            return Err(GameError::invalid_option(format!(
                "option `{name}` is given twice"
            )));
        }
    }
    Ok(map)
}

extern "C" fn new_state_raw<G: Instance>(
    players: u32,
    options: *const RawOption,
    option_count: usize,
    position: StrRef,
    state_out: *mut *mut StateHandle,
    status_out: *mut RawStatus,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        let game = G::instance();
        let options = read_options(options, option_count)?;
        let setup = Setup::validate(G::cached_manifest(), players, &options)?;
        let state = match read_str(position)? {
            Some(text) => game.parse_position(&setup, text)?,
            None => game.new_state(&setup)?,
        };
        let status = game.status(&state);
        write_handle(state_out, into_handle::<G>(state));
        write_status(status_out, status);
        Ok(None)
    })
}

extern "C" fn clone_state<G: Instance>(
    state: *const StateHandle,
    state_out: *mut *mut StateHandle,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        let copy = slot::<G>(state)?.state.clone();
        write_handle(state_out, into_handle::<G>(copy));
        Ok(None)
    })
}

extern "C" fn free_state<G: Instance>(state: *mut StateHandle) {
    if state.is_null() {
        return;
    }
    let _ = catch_unwind(|| {
        // SAFETY: the handle came from `into_handle::<G>` and the caller gives up
        // ownership here, exactly once.
        drop(unsafe { Box::from_raw(state as *mut Slot<G>) });
    });
}

#[inline]
fn raw_status(status: Status) -> RawStatus {
    match status {
        Status::ToMove(players) => RawStatus {
            kind: STATUS_TO_MOVE,
            movers: players.0,
        },
        Status::Chance => RawStatus {
            kind: STATUS_CHANCE,
            movers: 0,
        },
        Status::Terminal => RawStatus {
            kind: STATUS_TERMINAL,
            movers: 0,
        },
    }
}

/// Writes the status as one 8-byte store rather than field by field: the host
/// reads it right after the call, and a load that spans two pending smaller
/// stores cannot be forwarded from them (the pipeline waits until they
/// retire), which costs more than the rest of the status on the hot path.
#[inline]
fn write_status(status_out: *mut RawStatus, status: Status) {
    const _: () = assert!(std::mem::size_of::<RawStatus>() == 8);
    let raw = raw_status(status);
    let mut bytes = [0u8; 8];
    bytes[..4].copy_from_slice(&raw.kind.to_ne_bytes());
    bytes[4..].copy_from_slice(&raw.movers.to_ne_bytes());
    // SAFETY: the caller passes a writable RawStatus: 8 bytes (checked above),
    // two `u32`s without padding, so these native-endian bytes are exactly
    // its fields. Its alignment is 4, hence the unaligned write.
    unsafe { (status_out as *mut u64).write_unaligned(u64::from_ne_bytes(bytes)) };
}

extern "C" fn status<G: Instance>(
    state: *const StateHandle,
    status_out: *mut RawStatus,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        write_status(status_out, G::instance().status(&slot::<G>(state)?.state));
        Ok(None)
    })
}

extern "C" fn chance<G: Instance>(state: *const StateHandle, out: *mut PluginBuf) -> i32 {
    guard(out, || {
        let chance = G::instance().chance(&slot::<G>(state)?.state);
        serde_json::to_string(&chance)
            .map(Some)
            .map_err(|e| GameError::internal(e.to_string()))
    })
}

extern "C" fn chance_outcomes<G: Instance>(
    state: *const StateHandle,
    kind_out: *mut u32,
    outcomes_out: *mut *const RawOutcome,
    count_out: *mut usize,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        let slot = slot::<G>(state)?;
        // SAFETY: as for `legal` in `legal_actions`: one call at a time per
        // handle, and the caller is done with the previous answer.
        let outcomes = unsafe { &mut *slot.outcomes.get() };
        outcomes.clear();
        let kind = match G::instance().chance(&slot.state) {
            Chance::Explicit(listed) => {
                outcomes.extend(listed.iter().map(|&(outcome, probability)| RawOutcome {
                    outcome,
                    probability,
                }));
                CHANCE_EXPLICIT
            }
            Chance::Sampled => CHANCE_SAMPLED,
        };
        // SAFETY: the caller passes a writable u32, pointer slot and usize.
        unsafe {
            kind_out.write(kind);
            outcomes_out.write(outcomes.as_ptr());
            count_out.write(outcomes.len());
        }
        Ok(None)
    })
}

extern "C" fn results<G: Instance>(state: *const StateHandle, out: *mut PluginBuf) -> i32 {
    guard(out, || {
        let results = G::instance().results(&slot::<G>(state)?.state);
        serde_json::to_string(&results)
            .map(Some)
            .map_err(|e| GameError::internal(e.to_string()))
    })
}

extern "C" fn legal_actions<G: Instance>(
    state: *const StateHandle,
    player: u32,
    ids_out: *mut *const u64,
    count_out: *mut usize,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        let slot = slot::<G>(state)?;
        // SAFETY: a handle is used by one call at a time (ABI conventions), so
        // no other reference to `legal` exists during this call; the caller
        // stops reading the previous answer before it calls again.
        let legal = unsafe { &mut *slot.legal.get() };
        G::instance().legal_actions(&slot.state, player, legal);
        // SAFETY: the caller passes a writable pointer slot and a writable usize.
        unsafe {
            ids_out.write(legal.as_ptr());
            count_out.write(legal.len());
        }
        Ok(None)
    })
}

extern "C" fn apply<G: Instance>(
    state: *mut StateHandle,
    moves: *const RawMove,
    count: usize,
    status_out: *mut RawStatus,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        let slot = slot_mut::<G>(state)?;
        let moves = read_moves(moves, count);
        let game = G::instance();
        slot.mutate(|state| game.apply(state, moves))?;
        write_status(status_out, game.status(&slot.state));
        Ok(None)
    })
}

extern "C" fn apply_and_lend_legal<G: Instance>(
    state: *mut StateHandle,
    moves: *const RawMove,
    count: usize,
    player: u32,
    applied_out: *mut RawApplied,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        let slot = slot_mut::<G>(state)?;
        let moves = read_moves(moves, count);
        let game = G::instance();
        slot.mutate(|state| game.apply(state, moves))?;
        let status = game.status(&slot.state);
        let legal = slot.legal.get_mut();
        legal.clear();
        if let Status::ToMove(movers) = status {
            let player = if player == LEND_FIRST_MOVER {
                movers.first()
            } else {
                Some(player)
            };
            if let Some(player) = player {
                game.legal_actions(&slot.state, player, legal);
            }
        }
        // SAFETY: the caller passes a writable RawApplied; its `status` is
        // the first field, written with one store like every status.
        unsafe {
            write_status(std::ptr::addr_of_mut!((*applied_out).status), status);
            std::ptr::addr_of_mut!((*applied_out).ids).write(legal.as_ptr());
            std::ptr::addr_of_mut!((*applied_out).count).write(legal.len());
        }
        Ok(None)
    })
}

/// `ply` (ABI 2.5): `apply_and_lend_legal` answering in registers. The hot
/// path is the checks of the handle, the game's own calls and the packing of
/// the answer; every failure is handed to an out-of-line function, and the
/// poison flag is set only when a panic was caught (the ABI says a panic
/// anywhere in the call poisons the handle), not stored twice per call.
extern "C" fn ply<G: Instance>(
    state: *mut StateHandle,
    moves: *const RawMove,
    count: usize,
    player: u32,
) -> RawPly {
    if state.is_null() {
        return null_handle_ply();
    }
    let handle = state as *mut Slot<G>;
    // SAFETY: non-null handles come from `into_handle::<G>` of this plugin and
    // stay valid until `free_state`; the caller makes this the only call on
    // the handle, so nothing else reads or writes the slot.
    if unsafe { (*handle).poisoned } {
        return poisoned_ply();
    }
    // SAFETY: the caller lends `count` RawMoves at `moves` for the call, a
    // non-null, aligned pointer even when `count` is 0 (`ply`'s contract:
    // what a Rust slice's `as_ptr` gives; unlike `read_moves`, nothing is
    // tested here, which would cost the hot path three instructions).
    let moves = unsafe { std::slice::from_raw_parts(moves, count) };
    // SAFETY: as above; this is the only reference to the slot until the
    // closure returns or unwinds.
    match catch_unwind(AssertUnwindSafe(|| {
        ply_body(unsafe { &mut *handle }, moves, player)
    })) {
        Ok(answer) => answer,
        Err(payload) => panicked_ply(handle, payload),
    }
}

#[inline(always)]
fn ply_body<G: Game>(slot: &mut Slot<G>, moves: &[RawMove], player: u32) -> RawPly {
    let game = slot.game;
    if let Err(error) = game.apply(&mut slot.state, moves) {
        return failed_ply(&mut slot.error, error);
    }
    let status = game.status(&slot.state);
    let Status::ToMove(movers) = status else {
        return RawPly::unlent(raw_status(status));
    };
    let player = if player == LEND_FIRST_MOVER {
        match movers.first() {
            Some(first) => first,
            None => return RawPly::unlent(raw_status(status)),
        }
    } else {
        player
    };
    let legal = slot.legal.get_mut();
    game.legal_actions(&slot.state, player, legal);
    match RawPly::lend(raw_status(status), legal.as_ptr(), legal.len()) {
        Some(answer) => answer,
        None => too_long_ply(&mut slot.error),
    }
}

#[cold]
#[inline(never)]
fn null_handle_ply() -> RawPly {
    RawPly::failed(ErrorKind::Internal as i32, NULL_HANDLE)
}

#[cold]
#[inline(never)]
fn poisoned_ply() -> RawPly {
    RawPly::failed(ErrorKind::Poisoned as i32, POISONED)
}

/// Keeps `error`'s message in the handle and lends it.
#[cold]
#[inline(never)]
fn failed_ply(kept: &mut String, error: GameError) -> RawPly {
    *kept = error.message;
    RawPly::failed(error.kind as i32, kept)
}

#[cold]
#[inline(never)]
fn too_long_ply(kept: &mut String) -> RawPly {
    failed_ply(
        kept,
        GameError::internal("the legal list is too long for a ply's answer"),
    )
}

/// Poisons the handle a caught panic left behind and lends the panic's
/// message from it.
#[cold]
#[inline(never)]
fn panicked_ply<G: Game>(handle: *mut Slot<G>, payload: Box<dyn std::any::Any + Send>) -> RawPly {
    let message = panicked(payload.as_ref());
    // SAFETY: the handle is valid (checked non-null, owned by the caller
    // until `free_state`) and the closure that borrowed the slot has
    // unwound, so this is again the only reference to it.
    let slot = unsafe { &mut *handle };
    slot.poisoned = true;
    slot.error = message;
    RawPly::failed(ErrorKind::Panic as i32, &slot.error)
}

extern "C" fn apply_chance<G: Instance>(
    state: *mut StateHandle,
    outcome: u64,
    status_out: *mut RawStatus,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        let slot = slot_mut::<G>(state)?;
        let game = G::instance();
        slot.mutate(|state| game.apply_chance(state, outcome))?;
        write_status(status_out, game.status(&slot.state));
        Ok(None)
    })
}

extern "C" fn view<G: Instance>(
    state: *const StateHandle,
    viewer: u32,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        let state = &slot::<G>(state)?.state;
        Ok(Some(
            G::instance().view_json(state, Viewer::from_code(viewer)),
        ))
    })
}

extern "C" fn render_text<G: Instance>(
    state: *const StateHandle,
    viewer: u32,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        Ok(Some(G::instance().render_text(
            &slot::<G>(state)?.state,
            Viewer::from_code(viewer),
        )))
    })
}

extern "C" fn event<G: Instance>(
    before: *const StateHandle,
    transition: *const RawTransition,
    after: *const StateHandle,
    viewer: u32,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        if transition.is_null() {
            return Err(GameError::internal("null transition"));
        }
        // SAFETY: the caller lends a readable RawTransition for the call.
        let raw = unsafe { &*transition };
        let transition = match raw.kind {
            TRANSITION_MOVES => Transition::Moves(read_moves(raw.moves, raw.move_count).to_vec()),
            TRANSITION_CHANCE => Transition::Chance(raw.outcome),
            other => {
                return Err(GameError::internal(format!(
                    "unknown transition kind {other}"
                )));
            }
        };
        let event = G::instance().event(
            &slot::<G>(before)?.state,
            &transition,
            &slot::<G>(after)?.state,
            Viewer::from_code(viewer),
        );
        Ok(Some(event.to_string()))
    })
}

extern "C" fn position<G: Instance>(state: *const StateHandle, out: *mut PluginBuf) -> i32 {
    guard(out, || {
        Ok(Some(
            G::instance().position_to_string(&slot::<G>(state)?.state),
        ))
    })
}

extern "C" fn action_to_string<G: Instance>(
    state: *const StateHandle,
    player: u32,
    action: u64,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        G::instance()
            .action_to_string(&slot::<G>(state)?.state, player, action)
            .map(Some)
    })
}

extern "C" fn actions_to_strings<G: Instance>(
    state: *const StateHandle,
    player: u32,
    ids: *const u64,
    count: usize,
    ends_out: *mut u32,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        let state = &slot::<G>(state)?.state;
        let ids: &[u64] = if count == 0 || ids.is_null() {
            &[]
        } else {
            // SAFETY: the caller lends `count` ids at `ids` for the call.
            unsafe { std::slice::from_raw_parts(ids, count) }
        };
        let game = G::instance();
        let mut text = String::new();
        for (i, &id) in ids.iter().enumerate() {
            text.push_str(&game.action_to_string(state, player, id)?);
            let end = u32::try_from(text.len())
                .map_err(|_| GameError::internal("the notation exceeds 4 GiB"))?;
            // SAFETY: the caller passes `count` writable u32s at `ends_out`,
            // and `i < count`.
            unsafe { ends_out.add(i).write(end) };
        }
        Ok((!text.is_empty()).then_some(text))
    })
}

extern "C" fn parse_action<G: Instance>(
    state: *const StateHandle,
    player: u32,
    text: StrRef,
    action_out: *mut u64,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        let text = read_str(text)?.unwrap_or("");
        let id = G::instance().parse_action(&slot::<G>(state)?.state, player, text)?;
        // SAFETY: the caller passes a writable u64.
        unsafe { action_out.write(id) };
        Ok(None)
    })
}

extern "C" fn resample<G: Instance>(
    state: *const StateHandle,
    viewer: u32,
    random: u64,
    state_out: *mut *mut StateHandle,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        let copy =
            G::instance().resample(&slot::<G>(state)?.state, Viewer::from_code(viewer), random);
        write_handle(state_out, into_handle::<G>(copy));
        Ok(None)
    })
}

extern "C" fn expand_notation<G: Instance>(
    state: *const StateHandle,
    player: u32,
    text: StrRef,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        let text = read_str(text)?.unwrap_or("");
        match G::instance().expand_notation(&slot::<G>(state)?.state, player, text)? {
            // An untouched `out` is the ABI's "not a shorthand".
            None => Ok(None),
            Some(list) => serde_json::to_string(&list)
                .map(Some)
                .map_err(|e| GameError::internal(e.to_string())),
        }
    })
}

extern "C" fn remove_player<G: Instance>(
    state: *mut StateHandle,
    player: u32,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        let slot = slot_mut::<G>(state)?;
        slot.mutate(|state| G::instance().remove_player(state, player))?;
        Ok(None)
    })
}

/// Exports a [`Game`] as a Tabletop plugin: writes the one entry symbol and the
/// table of `extern "C"` shims. Put it once at the end of a game crate whose
/// `Cargo.toml` has `crate-type = ["cdylib", "rlib"]`.
///
/// ```ignore
/// tabletop_sdk::export_game!(MyGame);
/// ```
#[macro_export]
macro_rules! export_game {
    ($game:ty) => {
        impl $crate::export::Instance for $game {
            fn instance() -> &'static Self {
                static GAME: ::std::sync::OnceLock<$game> = ::std::sync::OnceLock::new();
                GAME.get_or_init(<$game as ::std::default::Default>::default)
            }

            fn cached_manifest() -> &'static $crate::Manifest {
                static MANIFEST: ::std::sync::OnceLock<$crate::Manifest> =
                    ::std::sync::OnceLock::new();
                MANIFEST.get_or_init(|| {
                    <$game as $crate::Game>::manifest(
                        <$game as $crate::export::Instance>::instance(),
                    )
                })
            }
        }

        /// The plugin's entry point (see `tabletop_sdk::abi`).
        #[unsafe(no_mangle)]
        pub extern "C" fn tabletop_plugin_entry() -> *const $crate::abi::PluginApi {
            static API: ::std::sync::OnceLock<$crate::abi::PluginApi> =
                ::std::sync::OnceLock::new();
            API.get_or_init($crate::export::plugin_api::<$game>)
        }
    };
}

#[cfg(test)]
mod tests {
    //! The shims called as the host calls them, through the table, with a
    //! game whose action 7 panics inside `apply`.

    use super::*;
    use crate::abi::{PLY_FAILED, PLY_MAX_LEN};
    use crate::types::{Move, PlayerResult, PlayerSet};

    /// Two players take turns; four actions end the game. Actions 0 and 1
    /// are legal for the player to move, and so is 7, which panics.
    #[derive(Debug, Default)]
    struct Boom;

    const PANIC: u64 = 7;

    impl Game for Boom {
        type State = u32;

        fn manifest(&self) -> Manifest {
            Manifest {
                name: "boom".into(),
                version: "1.0.0".into(),
                min_players: 2,
                max_players: 2,
                options: Vec::new(),
                rules_summary: String::new(),
                simultaneous: false,
                hidden_information: false,
                chance: false,
                removable_players: false,
            }
        }
        fn new_state(&self, _: &Setup) -> Result<u32, GameError> {
            Ok(0)
        }
        fn parse_position(&self, _: &Setup, text: &str) -> Result<u32, GameError> {
            text.parse()
                .map_err(|_| GameError::new(ErrorKind::InvalidPosition, "not a number"))
        }
        fn position_to_string(&self, made: &u32) -> String {
            made.to_string()
        }
        fn status(&self, made: &u32) -> Status {
            if *made >= 4 {
                Status::Terminal
            } else {
                Status::ToMove(PlayerSet::single(made % 2))
            }
        }
        fn chance(&self, _: &u32) -> Chance {
            Chance::Sampled
        }
        fn results(&self, _: &u32) -> Vec<PlayerResult> {
            Vec::new()
        }
        fn legal_actions(&self, made: &u32, player: u32, out: &mut Vec<u64>) {
            out.clear();
            if *made < 4 && player == made % 2 {
                out.extend([0, 1, PANIC]);
            }
        }
        fn apply(&self, made: &mut u32, moves: &[Move]) -> Result<(), GameError> {
            match moves {
                [Move { player, action }] if *made < 4 && *player == *made % 2 => match action {
                    0 | 1 => {
                        *made += 1;
                        Ok(())
                    }
                    &PANIC => panic!("boom after {made} actions"),
                    _ => Err(GameError::illegal(format!("{action} is not an action"))),
                },
                _ => Err(GameError::not_your_turn("one move, by the player on turn")),
            }
        }
        fn apply_chance(&self, _: &mut u32, _: u64) -> Result<(), GameError> {
            Err(GameError::illegal("no chance"))
        }
        fn action_to_string(&self, _: &u32, _: u32, action: u64) -> Result<String, GameError> {
            Ok(action.to_string())
        }
        fn parse_action(&self, _: &u32, _: u32, text: &str) -> Result<u64, GameError> {
            text.parse()
                .map_err(|_| GameError::invalid_notation("not a number"))
        }
        fn view(&self, made: &u32, _: Viewer) -> serde_json::Value {
            serde_json::json!({ "made": made })
        }
        fn render_text(&self, made: &u32, _: Viewer) -> String {
            made.to_string()
        }
    }

    impl Instance for Boom {
        fn instance() -> &'static Self {
            &Boom
        }
        fn cached_manifest() -> &'static Manifest {
            static MANIFEST: std::sync::OnceLock<Manifest> = std::sync::OnceLock::new();
            MANIFEST.get_or_init(|| Boom.manifest())
        }
    }

    fn new_state(api: &PluginApi) -> *mut StateHandle {
        let mut handle = std::ptr::null_mut();
        let mut status = RawStatus::default();
        let mut out = PluginBuf::EMPTY;
        let code = (api.new_state_raw)(
            2,
            std::ptr::null(),
            0,
            StrRef::NULL,
            &mut handle,
            &mut status,
            &mut out,
        );
        assert_eq!(code, CODE_OK);
        assert!(!handle.is_null());
        handle
    }

    fn ply(api: &PluginApi, state: *mut StateHandle, player: u32, action: u64) -> RawPly {
        let moves = [Move { player, action }];
        (api.ply)(state, moves.as_ptr(), moves.len(), LEND_FIRST_MOVER)
    }

    /// The ids a successful ply lends.
    fn ids(answer: RawPly) -> Vec<u64> {
        if answer.is_empty() {
            return Vec::new();
        }
        // SAFETY: a successful ply lends `len` ids at `lent` until the next
        // call on the handle; they are copied at once.
        unsafe { std::slice::from_raw_parts(answer.lent.cast::<u64>(), answer.len()) }.to_vec()
    }

    /// The message a failed ply lends.
    fn message(answer: RawPly) -> String {
        assert_eq!(answer.kind(), PLY_FAILED);
        // SAFETY: a failed ply lends `len` bytes of message at `lent` until
        // the next call on the handle; they are copied at once.
        let bytes = unsafe { std::slice::from_raw_parts(answer.lent.cast::<u8>(), answer.len()) };
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    fn status_code(api: &PluginApi, state: *mut StateHandle) -> (i32, RawStatus) {
        let mut status = RawStatus::default();
        let mut out = PluginBuf::EMPTY;
        let code = (api.status)(state, &mut status, &mut out);
        (api.free_buf)(out);
        (code, status)
    }

    #[test]
    fn ply_answers_the_status_and_lends_the_next_list() {
        let api = plugin_api::<Boom>();
        assert_eq!(api.size, std::mem::size_of::<PluginApi>());
        let state = new_state(&api);

        let answer = ply(&api, state, 0, 1);
        assert_eq!((answer.kind(), answer.high()), (STATUS_TO_MOVE, 0b10));
        assert_eq!(ids(answer), [0, 1, PANIC], "the next mover's list");

        // A named seat that is not to move is lent nothing.
        let moves = [Move {
            player: 1,
            action: 0,
        }];
        let answer = (api.ply)(state, moves.as_ptr(), 1, 1);
        assert_eq!((answer.kind(), answer.high()), (STATUS_TO_MOVE, 0b01));
        assert!(answer.is_empty());

        // A refused move changes nothing and lends the game's message.
        let refused = ply(&api, state, 1, 0);
        assert_eq!(refused.high() as i32, ErrorKind::NotYourTurn as i32);
        assert_eq!(message(refused), "one move, by the player on turn");
        let refused = ply(&api, state, 0, 5);
        assert_eq!(refused.high() as i32, ErrorKind::IllegalAction as i32);
        assert_eq!(message(refused), "5 is not an action");
        let (code, status) = status_code(&api, state);
        assert_eq!(
            (code, status.kind, status.movers),
            (CODE_OK, STATUS_TO_MOVE, 0b01)
        );

        assert_eq!(ply(&api, state, 0, 0).kind(), STATUS_TO_MOVE);
        let last = ply(&api, state, 1, 0);
        assert_eq!(
            (last.kind(), last.high(), last.len()),
            (STATUS_TERMINAL, 0, 0)
        );

        // No moves at all: the game's refusal.
        let none = (api.ply)(state, [].as_ptr(), 0, LEND_FIRST_MOVER);
        assert_eq!(none.kind(), PLY_FAILED);
        (api.free_state)(state);
    }

    #[test]
    fn a_panic_inside_ply_is_reported_and_poisons_the_handle() {
        let api = plugin_api::<Boom>();
        let state = new_state(&api);
        assert_eq!(ply(&api, state, 0, 0).kind(), STATUS_TO_MOVE);

        let panicked = ply(&api, state, 1, PANIC);
        assert_eq!(panicked.high() as i32, ErrorKind::Panic as i32);
        assert_eq!(message(panicked), "plugin panicked: boom after 1 actions");

        // Every later call on the handle is refused; it may only be freed.
        let poisoned = ply(&api, state, 1, 0);
        assert_eq!(poisoned.high() as i32, ErrorKind::Poisoned as i32);
        assert!(
            message(poisoned).contains("poisoned"),
            "{}",
            message(poisoned)
        );
        assert_eq!(status_code(&api, state).0, ErrorKind::Poisoned as i32);
        (api.free_state)(state);

        // Other handles are not affected.
        let other = new_state(&api);
        assert_eq!(ply(&api, other, 0, 1).kind(), STATUS_TO_MOVE);
        (api.free_state)(other);
    }

    #[test]
    fn ply_refuses_a_null_handle() {
        let api = plugin_api::<Boom>();
        let answer = ply(&api, std::ptr::null_mut(), 0, 0);
        assert_eq!(answer.high() as i32, ErrorKind::Internal as i32);
        assert_eq!(message(answer), "null state handle");
    }

    #[test]
    fn a_ply_answer_packs_kind_length_and_movers() {
        let ids = [1u64, 2, 3];
        let status = RawStatus {
            kind: STATUS_TO_MOVE,
            movers: u32::MAX,
        };
        let answer = RawPly::lend(status, ids.as_ptr(), 3).unwrap();
        assert_eq!(
            (answer.kind(), answer.len(), answer.high()),
            (0, 3, u32::MAX)
        );
        let most = RawPly::lend(status, ids.as_ptr(), PLY_MAX_LEN).unwrap();
        assert_eq!(
            (most.kind(), most.len(), most.high()),
            (0, PLY_MAX_LEN, u32::MAX)
        );
        assert!(RawPly::lend(status, ids.as_ptr(), PLY_MAX_LEN + 1).is_none());

        let failed = RawPly::failed(ErrorKind::Poisoned as i32, "ünïcode");
        assert_eq!((failed.kind(), failed.high()), (PLY_FAILED, 8));
        assert_eq!(failed.len(), "ünïcode".len());
    }
}
