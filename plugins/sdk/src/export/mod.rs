//! The `unsafe extern "C"` shims behind [`export_game!`](crate::export_game).
//! Game crates never call these; the macro exports [`api`]'s table.
//!
//! Every shim runs the game inside `catch_unwind`: a panic becomes
//! [`ErrorKind::Panic`] with the panic message, never an unwind into the host.
//! The hot path (`ply`, `apply_chance`) lives in the `ply` module; the other
//! calls in `calls`.

use std::cell::UnsafeCell;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::abi::{
    ABI_MAJOR, ABI_MINOR, ActionTargetsExt, CODE_OK, EvaluateExt, ExpandNotationExt,
    ExplainRefusalExt, PluginApi, PluginBuf, RawOutcome, RawStatus, RemovePlayerExt, ResampleExt,
    STATUS_CHANCE, STATUS_TERMINAL, STATUS_TO_MOVE, SeatNamesExt, SeatsOutExt, StateHandle, StrRef,
    SvgBoardExt,
};
use crate::error::{ErrorKind, GameError};
use crate::extension::Extended;
use crate::game::{Extension, Game};
use crate::manifest::Manifest;
use crate::types::Status;

mod calls;
mod ply;
#[cfg(test)]
mod tests;

/// The one instance of a plugin's game, provided by [`export_game!`](crate::export_game).
pub trait Instance: Extended {
    /// The process-wide game value.
    fn instance() -> &'static Self;

    /// Its manifest, built once: validating a new state's options needs it,
    /// and building it (names, option specs, rules text) on every call would
    /// cost more than a short game's playout. `removable_players` is the
    /// game's [`Extension::RemovePlayer`], so the claim and the extension the
    /// host finds never disagree.
    fn cached_manifest() -> &'static Manifest;
}

/// The manifest the plugin reports for `game`.
pub fn manifest_of<G: Extended>(game: &G) -> Manifest {
    let mut manifest = game.manifest();
    manifest.removable_players = G::EXTENSIONS.has(Extension::RemovePlayer);
    manifest
}

/// The plugin's tables for game `G`, as constants: `&Tables::<G>::API` is a
/// `'static` table without a lazy initialiser.
struct Tables<G>(PhantomData<G>);

impl<G: Instance> Tables<G> {
    const API: PluginApi = PluginApi {
        abi_major: ABI_MAJOR,
        abi_minor: ABI_MINOR,
        size: std::mem::size_of::<PluginApi>(),
        free_buf: calls::free_buf,
        set_logger: calls::set_logger,
        manifest: calls::manifest::<G>,
        get_extension: get_extension::<G>,
        new_state: calls::new_state::<G>,
        clone_state: calls::clone_state::<G>,
        free_state: calls::free_state::<G>,
        status: calls::status::<G>,
        chance_outcomes: calls::chance_outcomes::<G>,
        results: calls::results::<G>,
        legal_actions: calls::legal_actions::<G>,
        ply: ply::ply::<G>,
        apply_chance: ply::apply_chance::<G>,
        view: calls::view::<G>,
        render_text: calls::render_text::<G>,
        event: calls::event::<G>,
        position: calls::position::<G>,
        actions_to_strings: calls::actions_to_strings::<G>,
        parse_action: calls::parse_action::<G>,
    };
    const REMOVE_PLAYER: RemovePlayerExt = RemovePlayerExt {
        remove_player: calls::remove_player::<G>,
    };
    const EXPAND_NOTATION: ExpandNotationExt = ExpandNotationExt {
        expand_notation: calls::expand_notation::<G>,
    };
    const RESAMPLE: ResampleExt = ResampleExt {
        resample: calls::resample::<G>,
    };
    const SEATS_OUT: SeatsOutExt = SeatsOutExt {
        seats_out: calls::seats_out::<G>,
    };
    const SEAT_NAMES: SeatNamesExt = SeatNamesExt {
        seat_names: calls::seat_names::<G>,
    };
    const EXPLAIN_REFUSAL: ExplainRefusalExt = ExplainRefusalExt {
        explain_action: calls::explain_action::<G>,
        explain_notation: calls::explain_notation::<G>,
        action_space: calls::action_space::<G>,
    };
    const EVALUATE: EvaluateExt = EvaluateExt {
        evaluate: calls::evaluate::<G>,
    };
    const SVG_BOARD: SvgBoardExt = SvgBoardExt {
        render_svg: calls::render_svg::<G>,
    };
    const ACTION_TARGETS: ActionTargetsExt = ActionTargetsExt {
        action_targets: calls::action_targets::<G>,
    };
}

/// The table [`export_game!`](crate::export_game)'s entry returns for `G`.
/// Its functions are `unsafe` to call: only a host keeping the ABI's rules
/// may call them.
pub fn api<G: Instance>() -> &'static PluginApi {
    &Tables::<G>::API
}

/// `get_extension`: the static table of an extension `G` lists, else null.
unsafe extern "C" fn get_extension<G: Instance>(id: StrRef) -> *const c_void {
    // SAFETY: the caller lends `id` for the call (ABI conventions).
    let Ok(Some(id)) = (unsafe { read_str(id) }) else {
        return std::ptr::null();
    };
    let Some(extension) = Extension::ALL.into_iter().find(|e| e.id() == id) else {
        return std::ptr::null();
    };
    if !G::EXTENSIONS.has(extension) {
        return std::ptr::null();
    }
    match extension {
        Extension::RemovePlayer => {
            let table: &'static RemovePlayerExt = &Tables::<G>::REMOVE_PLAYER;
            (table as *const RemovePlayerExt).cast()
        }
        Extension::ExpandNotation => {
            let table: &'static ExpandNotationExt = &Tables::<G>::EXPAND_NOTATION;
            (table as *const ExpandNotationExt).cast()
        }
        Extension::Resample => {
            let table: &'static ResampleExt = &Tables::<G>::RESAMPLE;
            (table as *const ResampleExt).cast()
        }
        Extension::SeatsOut => {
            let table: &'static SeatsOutExt = &Tables::<G>::SEATS_OUT;
            (table as *const SeatsOutExt).cast()
        }
        Extension::SeatNames => {
            let table: &'static SeatNamesExt = &Tables::<G>::SEAT_NAMES;
            (table as *const SeatNamesExt).cast()
        }
        Extension::ExplainRefusal => {
            let table: &'static ExplainRefusalExt = &Tables::<G>::EXPLAIN_REFUSAL;
            (table as *const ExplainRefusalExt).cast()
        }
        Extension::Evaluate => {
            let table: &'static EvaluateExt = &Tables::<G>::EVALUATE;
            (table as *const EvaluateExt).cast()
        }
        Extension::SvgBoard => {
            let table: &'static SvgBoardExt = &Tables::<G>::SVG_BOARD;
            (table as *const SvgBoardExt).cast()
        }
        Extension::ActionTargets => {
            let table: &'static ActionTargetsExt = &Tables::<G>::ACTION_TARGETS;
            (table as *const ActionTargetsExt).cast()
        }
    }
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
    /// The last lent legal list, valid until the next call on this handle.
    /// Per handle rather than thread-local: a dlopen'ed library reaches its
    /// thread-locals through `__tls_get_addr`, and the handle's
    /// one-call-at-a-time rule already makes this exclusive.
    legal: UnsafeCell<Vec<u64>>,
    /// The last `chance_outcomes` answer, lent like `legal`.
    outcomes: UnsafeCell<Vec<RawOutcome>>,
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

/// What every call on a null handle answers.
const NULL_HANDLE: &str = "null state handle";

/// What every call on a handle left behind by a panic answers.
const POISONED: &str = "state is poisoned by an earlier panic";

/// The message of a caught panic.
fn panicked(payload: &(dyn std::any::Any + Send)) -> String {
    let message = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    };
    format!("plugin panicked: {message}")
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

/// The slot behind a handle the caller only reads.
///
/// # Safety
/// A non-null `state` must come from `into_handle::<G>` of this plugin, not
/// yet freed, with no other call on it running (ABI conventions).
unsafe fn slot<'a, G: Game>(state: *const StateHandle) -> Result<&'a Slot<G>, GameError> {
    if state.is_null() {
        return Err(GameError::internal(NULL_HANDLE));
    }
    // SAFETY: the caller's guarantee above.
    let slot = unsafe { &*(state as *const Slot<G>) };
    if slot.poisoned {
        return Err(GameError::new(ErrorKind::Poisoned, POISONED));
    }
    Ok(slot)
}

/// The slot behind a handle the caller changes.
///
/// # Safety
/// As for [`slot`]; the call holds the only reference to the slot.
unsafe fn slot_mut<'a, G: Game>(state: *mut StateHandle) -> Result<&'a mut Slot<G>, GameError> {
    if state.is_null() {
        return Err(GameError::internal(NULL_HANDLE));
    }
    // SAFETY: the caller's guarantee above.
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
        legal: UnsafeCell::new(Vec::new()),
        outcomes: UnsafeCell::new(Vec::new()),
    })) as *mut StateHandle
}

/// Writes a new handle to the caller's slot.
///
/// # Safety
/// `state_out` must be writable (ABI conventions).
unsafe fn write_handle(state_out: *mut *mut StateHandle, handle: *mut StateHandle) {
    // SAFETY: the caller's guarantee above.
    unsafe { state_out.write(handle) };
}

/// The text a [`StrRef`] lends, `None` when absent.
///
/// # Safety
/// A non-null `text.ptr` must point to `text.len` readable bytes for `'a`.
unsafe fn read_str<'a>(text: StrRef) -> Result<Option<&'a str>, GameError> {
    if text.ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller's guarantee above.
    let bytes = unsafe { std::slice::from_raw_parts(text.ptr, text.len) };
    std::str::from_utf8(bytes)
        .map(Some)
        .map_err(|_| GameError::invalid_notation("text is not valid UTF-8"))
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
/// stores cannot be forwarded from them.
///
/// # Safety
/// `status_out` must be writable (ABI conventions).
#[inline]
unsafe fn write_status(status_out: *mut RawStatus, status: Status) {
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

/// Exports a [`Game`] as a Tabletop plugin: writes the one entry symbol,
/// returning the table of `unsafe extern "C"` shims, and the game's
/// [`BuildFingerprint`](crate::fingerprint::BuildFingerprint), by which the
/// conformance kit knows the plugin file its own build made. Put it once at
/// the end of a game crate whose `Cargo.toml` has
/// `crate-type = ["cdylib", "rlib"]`.
///
/// `extensions` names the extension traits ([`crate::extension`]) the game
/// implements, exactly those (see
/// [`declare_extensions!`](crate::declare_extensions)); a game without
/// extensions leaves it out.
///
/// ```ignore
/// tabletop_sdk::export_game!(MyGame, extensions: [SvgBoard, ActionTargets]);
/// ```
#[macro_export]
macro_rules! export_game {
    ($game:ty) => {
        $crate::export_game!($game, extensions: []);
    };
    ($game:ty, extensions: [$($extension:ident),* $(,)?]) => {
        $crate::declare_extensions!($game: [$($extension),*]);

        impl $crate::export::Instance for $game {
            fn instance() -> &'static Self {
                static GAME: ::std::sync::OnceLock<$game> = ::std::sync::OnceLock::new();
                GAME.get_or_init(<$game as ::std::default::Default>::default)
            }

            fn cached_manifest() -> &'static $crate::Manifest {
                static MANIFEST: ::std::sync::OnceLock<$crate::Manifest> =
                    ::std::sync::OnceLock::new();
                MANIFEST.get_or_init(|| {
                    $crate::export::manifest_of(<$game as $crate::export::Instance>::instance())
                })
            }
        }

        /// The plugin's entry point (see `tabletop_sdk::abi`).
        #[unsafe(no_mangle)]
        pub extern "C" fn tabletop_plugin_entry() -> *const $crate::abi::PluginApi {
            $crate::export::api::<$game>()
        }

        /// The build this plugin comes from (see `tabletop_sdk::fingerprint`).
        #[unsafe(no_mangle)]
        pub extern "C" fn tabletop_build_fingerprint() -> $crate::fingerprint::RawBuildFingerprint {
            $crate::fingerprint::BuildFingerprint::raw_of::<$game>()
        }
    };
}
