//! The C ABI between engine-host and a game plugin: major version
//! [`ABI_MAJOR`], minor version [`ABI_MINOR`].
//!
//! A plugin exports one symbol, [`ENTRY_SYMBOL`], an [`EntryFn`] returning a
//! static [`PluginApi`]. The table starts with the ABI version and its own
//! size; its functions are the core every game has. Optional capabilities
//! are **extensions**: the host asks [`PluginApi::get_extension`] for a
//! versioned id ([`EXT_REMOVE_PLAYER`], …) and gets a static table of that
//! extension's functions, or null. Adding a capability adds an id and its
//! table; the core table never changes within a major version. A changed
//! extension gets a new id (`…/2`), and a plugin may offer both.
//!
//! `docs/plugin-abi.md` in the repository walks through the ABI for a
//! plugin written without this SDK, and `include/tabletop_plugin.h` is the
//! C header generated from this module.
//!
//! # Versions
//! The host refuses a plugin whose [`PluginApi::abi_major`] differs from
//! [`ABI_MAJOR`], naming the ABI the plugin speaks, and a table whose
//! [`PluginApi::size`] is smaller than the host's. [`PluginApi::abi_minor`]
//! counts the extension ids defined since 3.0; a host never needs it to
//! call a plugin (it asks for extensions by id).
//!
//! # Conventions for every function
//! - **Threads.** Every function may be called from any thread. A state
//!   handle is used by one call at a time (the caller serialises calls on
//!   a handle); different handles may be used concurrently.
//! - **Status codes.** A function returning `i32` returns [`CODE_OK`] or an
//!   error code ([`CODE_INVALID_OPTION`] … [`CODE_UNSUPPORTED`]), and on
//!   failure writes a UTF-8 message to its `out` buffer. Functions
//!   returning a [`RawPly`] pack the code and a lent message into it
//!   instead.
//! - **Borrowed input.** [`StrRef`]s and pointer+length pairs are owned by
//!   the caller and read only during the call.
//! - **Plugin-owned output.** A [`PluginBuf`] written to `out` is allocated
//!   by the plugin and released by the caller with [`PluginApi::free_buf`],
//!   exactly once, from any thread. An untouched `out` stays empty (null
//!   `ptr`); the caller passes it empty.
//! - **Lent arrays.** Legal actions, chance outcomes and a failed ply's
//!   message are lent: the array belongs to the handle and stays valid
//!   until the next call with that handle or its `free_state`. The caller
//!   copies what it keeps. An empty lent array may come with a dangling
//!   pointer.
//! - **State handles** ([`StateHandle`]) are created by `new_state`,
//!   `clone_state` and the resample extension, and owned by the caller
//!   until passed to `free_state`. A handle is only ever passed to the
//!   plugin that made it. A function given a read-only (`const`) handle
//!   does not write through it; the handle is writable for the calls that
//!   change the game (`ply`, `apply_chance`, `remove_player`) and for those
//!   that lend an array kept in the handle (`legal_actions`,
//!   `chance_outcomes`).
//! - **No unwinding.** No function unwinds into the caller: a panic (or C++
//!   exception) inside is caught and reported as [`CODE_PANIC`]. After a
//!   panic in a call that mutates a state, that handle is poisoned: later
//!   calls on it fail with [`CODE_POISONED`] and it may only be freed.
//! - **Viewers** are a seat index, or [`VIEWER_SPECTATOR`] for someone who
//!   plays no seat.

use std::ffi::c_void;

/// The major ABI version: a plugin with another major version is refused.
pub const ABI_MAJOR: u32 = 3;
/// The minor ABI version: extension ids defined since 3.0
/// ([`EXT_EXPLAIN_REFUSAL`], then [`EXT_SVG_BOARD`] and
/// [`EXT_ACTION_TARGETS`] given their meaning).
pub const ABI_MINOR: u32 = 2;
/// The name of the one exported entry function.
pub const ENTRY_SYMBOL: &str = "tabletop_plugin_entry";

/// The status code of success.
pub const CODE_OK: i32 = 0;
/// Status code: an option is unknown, mistyped, out of range, or does not
/// combine with the others or the player count.
pub const CODE_INVALID_OPTION: i32 = 1;
/// Status code: a position text does not parse or is impossible.
pub const CODE_INVALID_POSITION: i32 = 2;
/// Status code: an action text does not parse.
pub const CODE_INVALID_NOTATION: i32 = 3;
/// Status code: the action is not legal in this state for this player.
pub const CODE_ILLEGAL_ACTION: i32 = 4;
/// Status code: the player is not to move (or the state is a chance node,
/// or the game is over); also a chance call (`chance_outcomes`,
/// `apply_chance`) on a state where chance is not to act, which is every
/// state of a game without chance.
pub const CODE_NOT_YOUR_TURN: i32 = 5;
/// Status code: the plugin caught a panic (or exception) inside the call;
/// always a bug in the plugin. Code 6 is never used.
pub const CODE_PANIC: i32 = 7;
/// Status code: the handle was used after a call on it panicked; it may
/// only be freed.
pub const CODE_POISONED: i32 = 8;
/// Status code: any other fault inside the plugin or at the boundary. A
/// host reads a code it does not know as this one.
pub const CODE_INTERNAL: i32 = 9;
/// Status code: the game does not offer this operation (removing a seat
/// from a game whose manifest says `removable_players: false`).
pub const CODE_UNSUPPORTED: i32 = 10;

/// Log level of [`LogFn`]: something failed.
pub const LOG_ERROR: u32 = 1;
/// Log level of [`LogFn`]: something looks wrong.
pub const LOG_WARN: u32 = 2;
/// Log level of [`LogFn`]: worth knowing.
pub const LOG_INFO: u32 = 3;
/// Log level of [`LogFn`]: for developers.
pub const LOG_DEBUG: u32 = 4;
/// Log level of [`LogFn`]: very detailed.
pub const LOG_TRACE: u32 = 5;

/// A viewer who plays no seat: a spectator.
pub const VIEWER_SPECTATOR: u32 = u32::MAX;

/// The signature of [`ENTRY_SYMBOL`]: returns the plugin's static table (or
/// null, which the host refuses). Takes nothing, allocates nothing, and
/// returns the same pointer on every call; the table lives as long as the
/// library, which the host never unloads. Callable from any thread.
pub type EntryFn = unsafe extern "C" fn() -> *const PluginApi;

/// An opaque game state owned by the plugin.
#[repr(C)]
#[derive(Debug)]
pub struct StateHandle {
    _private: [u8; 0],
}

/// A borrowed UTF-8 string: owned by the caller, valid for the duration of the
/// call. A null `ptr` means "absent" where a function says so.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct StrRef {
    /// First byte, or null.
    pub ptr: *const u8,
    /// Length in bytes.
    pub len: usize,
}

impl StrRef {
    /// Borrows `s` for a call.
    pub fn new(s: &str) -> StrRef {
        StrRef {
            ptr: s.as_ptr(),
            len: s.len(),
        }
    }

    /// The absent string.
    pub const NULL: StrRef = StrRef {
        ptr: std::ptr::null(),
        len: 0,
    };
}

/// Bytes allocated by the plugin and handed to the caller, who releases them
/// with [`PluginApi::free_buf`]. Never freed by the caller's allocator.
#[repr(C)]
#[derive(Debug)]
pub struct PluginBuf {
    /// First byte (null when empty).
    pub ptr: *mut u8,
    /// Bytes in use.
    pub len: usize,
    /// Allocated capacity (needed by the plugin to free it).
    pub cap: usize,
}

impl PluginBuf {
    /// No buffer.
    pub const EMPTY: PluginBuf = PluginBuf {
        ptr: std::ptr::null_mut(),
        len: 0,
        cap: 0,
    };
}

/// One player's action in a joint action: the SDK's [`Move`](crate::Move)
/// itself, laid out as C lays out a 32-bit `player` followed by a 64-bit
/// `action` (16 bytes), so joint actions cross the boundary without a copy.
pub type RawMove = crate::types::Move;

/// [`RawStatus::kind`]: players are to move.
pub const STATUS_TO_MOVE: u32 = 0;
/// [`RawStatus::kind`]: chance is to act.
pub const STATUS_CHANCE: u32 = 1;
/// [`RawStatus::kind`]: the game is over.
pub const STATUS_TERMINAL: u32 = 2;

/// A state's status, as plain data.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct RawStatus {
    /// One of [`STATUS_TO_MOVE`], [`STATUS_CHANCE`], [`STATUS_TERMINAL`].
    pub kind: u32,
    /// For [`STATUS_TO_MOVE`]: bitmask of the players to move (bit `p` for
    /// seat `p`); 0 otherwise.
    pub movers: u32,
}

/// [`RawTransition::kind`]: a joint action.
pub const TRANSITION_MOVES: u32 = 0;
/// [`RawTransition::kind`]: a chance outcome.
pub const TRANSITION_CHANCE: u32 = 1;

/// A transition, borrowed for the duration of a call.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct RawTransition {
    /// [`TRANSITION_MOVES`] or [`TRANSITION_CHANCE`].
    pub kind: u32,
    /// For moves: the first move (caller-owned).
    pub moves: *const RawMove,
    /// For moves: how many.
    pub move_count: usize,
    /// For chance: the outcome.
    pub outcome: u64,
}

/// One option of a setup, borrowed for the duration of a call: the option's
/// name and its raw text, as a client sent them (validated by the plugin).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct RawOption {
    /// The option's name.
    pub name: StrRef,
    /// The option's raw text.
    pub value: StrRef,
}

/// [`PluginApi::ply`]'s and [`PluginApi::apply_chance`]'s `lend`: lend the
/// legal actions of the lowest-numbered player to move in the new state.
pub const LEND_FIRST_MOVER: u32 = u32::MAX;
/// [`PluginApi::ply`]'s and [`PluginApi::apply_chance`]'s `lend`: lend
/// nothing, only report the new status. It is a seat number no match has
/// (one past the largest seat), and a seat that is not to move is lent
/// nothing: a plugin needs no case of its own for it, and its legal list
/// for that seat is empty like any non-mover's.
pub const LEND_NOTHING: u32 = 32;

/// [`RawPly`]'s kind (bits 0–1 of [`RawPly::word`]) for a call that failed:
/// the other three kinds are the status kinds ([`STATUS_TO_MOVE`],
/// [`STATUS_CHANCE`], [`STATUS_TERMINAL`]).
pub const PLY_FAILED: u32 = 3;

/// The largest length [`RawPly`] can carry (30 bits): lent ids, or bytes of
/// an error message.
pub const PLY_MAX_LEN: usize = (1 << 30) - 1;

/// What [`PluginApi::ply`] and [`PluginApi::apply_chance`] return: 16 bytes
/// of two integer words, which the C calling conventions of x86-64 and
/// AArch64 return in two registers (`rax:rdx`, `x0:x1`), so a ply's crossing
/// stores and reloads nothing.
///
/// [`RawPly::word`] packs, from the lowest bit:
/// - bits 0–1, the kind: a status kind ([`STATUS_TO_MOVE`],
///   [`STATUS_CHANCE`], [`STATUS_TERMINAL`]) on success, [`PLY_FAILED`] on
///   failure;
/// - bits 2–31, a length (at most [`PLY_MAX_LEN`]): on success how many
///   legal ids are lent at [`RawPly::lent`], on failure how many bytes of
///   UTF-8 message are lent there;
/// - bits 32–63: on success the movers' bitmask when the kind is
///   [`STATUS_TO_MOVE`] (0 otherwise), on failure the error's status code
///   ([`CODE_INVALID_OPTION`] … [`CODE_UNSUPPORTED`]).
///
/// Both lent arrays are the plugin's own and belong to the handle: valid
/// until the next call with the handle or its `free_state` (a failure on a
/// null handle lends a static message). `lent` may dangle when the length
/// is 0.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawPly {
    /// The lent action ids (64-bit), or the message's bytes (UTF-8).
    pub lent: *const c_void,
    /// Kind, length and movers or error code; see the type's docs.
    pub word: u64,
}

impl RawPly {
    /// A success: status `status`, lending `count` ids at `ids`. `None` when
    /// `count` exceeds [`PLY_MAX_LEN`].
    #[inline]
    pub fn lend(status: RawStatus, ids: *const u64, count: usize) -> Option<RawPly> {
        if count > PLY_MAX_LEN {
            return None;
        }
        Some(RawPly {
            lent: ids.cast(),
            word: RawPly::pack(status.kind, count, status.movers),
        })
    }

    /// A success that lends nothing: a status other than "to move", a seat
    /// that is not to move, or [`LEND_NOTHING`]. `lent` dangles, as an empty
    /// list may.
    #[inline]
    pub fn unlent(status: RawStatus) -> RawPly {
        RawPly {
            lent: std::ptr::NonNull::<u64>::dangling().as_ptr().cast(),
            word: RawPly::pack(status.kind, 0, status.movers),
        }
    }

    /// A failure with error code `code`, lending `message` (cut to
    /// [`PLY_MAX_LEN`] bytes, at a character boundary).
    pub fn failed(code: i32, message: &str) -> RawPly {
        let mut len = message.len().min(PLY_MAX_LEN);
        while !message.is_char_boundary(len) {
            len -= 1;
        }
        RawPly {
            lent: message.as_ptr().cast(),
            word: RawPly::pack(PLY_FAILED, len, code as u32),
        }
    }

    /// [`RawPly::word`]'s layout, written in this one place: the kind in
    /// bits 0–1, `len` (at most [`PLY_MAX_LEN`]) in bits 2–31, `high` above.
    #[inline]
    fn pack(kind: u32, len: usize, high: u32) -> u64 {
        u64::from(kind & 3) | ((len as u64) << 2) | (u64::from(high) << 32)
    }

    /// The kind: a status kind, or [`PLY_FAILED`].
    #[inline]
    pub fn kind(self) -> u32 {
        (self.word & 3) as u32
    }

    /// The length: lent ids, or bytes of the message.
    #[inline]
    pub fn len(self) -> usize {
        ((self.word as u32) >> 2) as usize
    }

    /// Whether nothing is lent.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The high word: the movers on success, the error code on failure.
    #[inline]
    pub fn high(self) -> u32 {
        (self.word >> 32) as u32
    }
}

/// [`PluginApi::chance_outcomes`]' kind: the outcomes are listed.
pub const CHANCE_EXPLICIT: u32 = 0;
/// [`PluginApi::chance_outcomes`]' kind: too many outcomes to list; the host
/// draws a uniformly random 64-bit outcome (no outcomes are lent).
pub const CHANCE_SAMPLED: u32 = 1;

/// One listed outcome of a chance node and its probability.
///
/// 16 bytes: the outcome at offset 0, the probability at offset 8.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RawOutcome {
    /// The outcome, as passed to `apply_chance`.
    pub outcome: u64,
    /// Its probability (positive; a node's probabilities sum to 1).
    pub probability: f64,
}

/// The host's log sink ([`PluginApi::set_logger`]'s argument): `level` is
/// one of [`LOG_ERROR`], [`LOG_WARN`], [`LOG_INFO`], [`LOG_DEBUG`],
/// [`LOG_TRACE`]; `message` (UTF-8, not NUL-terminated) is borrowed for the
/// call. Callable from any thread; it
/// never unwinds.
pub type LogFn = unsafe extern "C" fn(level: u32, message: StrRef);

/// The function table a plugin exports: the core every game has.
///
/// Every function follows the conventions for every function (threads,
/// status codes, buffers, lent arrays, handles, panics). All fields are
/// required; optional capabilities are extensions, found with
/// [`PluginApi::get_extension`].
#[repr(C)]
#[derive(Debug)]
pub struct PluginApi {
    /// [`ABI_MAJOR`] of the SDK the plugin was built with.
    pub abi_major: u32,
    /// [`ABI_MINOR`] of the SDK the plugin was built with.
    pub abi_minor: u32,
    /// The size in bytes of [`PluginApi`] in the plugin: a host refuses a
    /// table smaller than its own.
    pub size: usize,

    /// Releases a buffer this plugin returned. An empty buffer (null `ptr`)
    /// is ignored. Each buffer is released once; it must not be read after.
    pub free_buf: unsafe extern "C" fn(buf: PluginBuf),
    /// Installs the host's log sink, or removes it with a null `logger`. Process-wide:
    /// the plugin may call the sink from any thread until it is replaced.
    /// `logger` is a [`LogFn`] or null.
    pub set_logger:
        unsafe extern "C" fn(logger: Option<unsafe extern "C" fn(level: u32, message: StrRef)>),
    /// Writes the manifest as JSON into `out` (the SDK's `Manifest`: name,
    /// version, player range, options, rules summary and the `chance`,
    /// `simultaneous`, `hidden_information` and `removable_players` claims).
    /// The same text on every call.
    pub manifest: unsafe extern "C" fn(out: *mut PluginBuf) -> i32,
    /// Looks up the extension with the versioned id `id` (UTF-8, borrowed for
    /// the call; an extension id such as [`EXT_SVG_BOARD`]). Returns a pointer to the
    /// extension's static table (its `…Ext` struct), valid as long as the
    /// library, or null when the plugin does not offer it. Never fails,
    /// never allocates; the same answer on every call.
    pub get_extension: unsafe extern "C" fn(id: StrRef) -> *const c_void,

    /// Creates a state for `players` seats.
    ///
    /// `options` points to `option_count` [`RawOption`]s (null when
    /// `option_count` is 0): raw texts validated by the plugin against its
    /// manifest, each name at most once, unnamed options taking their
    /// defaults. `position` is a position text, or null for the game's start.
    /// On success writes a new handle, owned by the caller until
    /// `free_state`, into `*state_out` and its status into `*status_out`; on
    /// failure writes neither and `out` holds the message
    /// ([`CODE_INVALID_OPTION`] or
    /// [`CODE_INVALID_POSITION`]).
    /// Touches no existing handle.
    pub new_state: unsafe extern "C" fn(
        players: u32,
        options: *const RawOption,
        option_count: usize,
        position: StrRef,
        state_out: *mut *mut StateHandle,
        status_out: *mut RawStatus,
        out: *mut PluginBuf,
    ) -> i32,
    /// Writes a new, independent copy of `state` (same status) into
    /// `*state_out`, owned by the caller. Only reads `state`.
    pub clone_state: unsafe extern "C" fn(
        state: *const StateHandle,
        state_out: *mut *mut StateHandle,
        out: *mut PluginBuf,
    ) -> i32,
    /// Destroys a handle and everything it lent. Null is ignored. The handle
    /// must not be used after.
    pub free_state: unsafe extern "C" fn(state: *mut StateHandle),

    /// Writes the status of `state` into `*status_out`. Only reads `state`.
    pub status: unsafe extern "C" fn(
        state: *const StateHandle,
        status_out: *mut RawStatus,
        out: *mut PluginBuf,
    ) -> i32,
    /// Lends the chance node of `state`, whose status is chance.
    ///
    /// Writes [`CHANCE_EXPLICIT`] or [`CHANCE_SAMPLED`] into `*kind_out`. For
    /// an explicit node writes a pointer to `*count_out` [`RawOutcome`]s into
    /// `*outcomes_out`, in the game's order (a lent array); for a sampled one
    /// `*count_out` is 0 and the pointer may dangle. Reads the game in
    /// `state` and may write the lent array into the handle (the handle is
    /// not shared: the caller makes one call at a time on it).
    pub chance_outcomes: unsafe extern "C" fn(
        state: *mut StateHandle,
        kind_out: *mut u32,
        outcomes_out: *mut *const RawOutcome,
        count_out: *mut usize,
        out: *mut PluginBuf,
    ) -> i32,
    /// Writes every seat's result as JSON into `out`:
    /// `[{"rank":1,"score":3.0},…]`, one entry per seat, rank 1 first place
    /// and shared ranks for ties. Only for a terminal state; only reads it.
    pub results: unsafe extern "C" fn(state: *const StateHandle, out: *mut PluginBuf) -> i32,
    /// Lends `player`'s legal action ids, ascending: writes a pointer to
    /// `*count_out` ids into `*ids_out` (a lent array). Empty for a seat that
    /// is not to move. Reads the game in `state` and may write the lent
    /// array into the handle (one call at a time on it).
    pub legal_actions: unsafe extern "C" fn(
        state: *mut StateHandle,
        player: u32,
        ids_out: *mut *const u64,
        count_out: *mut usize,
        out: *mut PluginBuf,
    ) -> i32,
    /// Applies a joint action and lends legal actions of the new state: one
    /// crossing per ply.
    ///
    /// `moves` points to `count` moves (caller-owned, read during the call;
    /// non-null and aligned even when `count` is 0, as a slice's pointer is):
    /// exactly one per player to move. `lend` names whose legal actions to
    /// lend afterwards: a seat (nothing for a seat not to move), which
    /// [`LEND_NOTHING`] is, or [`LEND_FIRST_MOVER`].
    ///
    /// On success the answer's kind is the new status's, and when it is "to
    /// move" the asked player's ids are lent (none for a seat not to move).
    /// On failure the kind is [`PLY_FAILED`] with the error code and a lent
    /// message, and the state is unchanged unless the call panicked (which
    /// poisons the handle). Nothing is allocated for the caller. A legal
    /// list longer than [`PLY_MAX_LEN`] fails with
    /// [`CODE_INTERNAL`].
    pub ply: unsafe extern "C" fn(
        state: *mut StateHandle,
        moves: *const RawMove,
        count: usize,
        lend: u32,
    ) -> RawPly,
    /// Applies a chance outcome (one listed by `chance_outcomes`, or any
    /// 64-bit value for a sampled node) and answers exactly as [`PluginApi::ply`]
    /// does, lending for `lend`.
    pub apply_chance:
        unsafe extern "C" fn(state: *mut StateHandle, outcome: u64, lend: u32) -> RawPly,

    /// Writes the JSON view of `state` for `viewer` into `out`: only what
    /// that viewer may know. Only reads `state`.
    pub view:
        unsafe extern "C" fn(state: *const StateHandle, viewer: u32, out: *mut PluginBuf) -> i32,
    /// Writes a text rendering for a terminal (80 columns) for `viewer`.
    /// Only reads `state`.
    pub render_text:
        unsafe extern "C" fn(state: *const StateHandle, viewer: u32, out: *mut PluginBuf) -> i32,
    /// Writes the JSON event `viewer` saw when `transition` (borrowed) took
    /// `before` to `after`, two handles of this plugin. Only reads both.
    pub event: unsafe extern "C" fn(
        before: *const StateHandle,
        transition: *const RawTransition,
        after: *const StateHandle,
        viewer: u32,
        out: *mut PluginBuf,
    ) -> i32,

    /// Writes the position text of `state` (everything, hidden information
    /// included); `new_state` reads it back to an equal state.
    pub position: unsafe extern "C" fn(state: *const StateHandle, out: *mut PluginBuf) -> i32,
    /// Writes the notation of `count` actions of `player` (`ids`, caller-owned):
    /// the texts concatenated in order into `out` (untouched when all are
    /// empty), and into `ends_out[i]` (caller-owned, `count` entries) the
    /// byte offset where the text of `ids[i]` ends. On failure (an id that is
    /// not an action, or more than 2^32 - 1 bytes) `out` holds the message
    /// and `ends_out` is unspecified. Only reads `state`.
    pub actions_to_strings: unsafe extern "C" fn(
        state: *const StateHandle,
        player: u32,
        ids: *const u64,
        count: usize,
        ends_out: *mut u32,
        out: *mut PluginBuf,
    ) -> i32,
    /// Reads `text` as a legal action of `player` and writes its id into
    /// `*action_out`. The refusal's message reveals nothing hidden. Only
    /// reads `state`.
    pub parse_action: unsafe extern "C" fn(
        state: *const StateHandle,
        player: u32,
        text: StrRef,
        action_out: *mut u64,
        out: *mut PluginBuf,
    ) -> i32,
}

/// Extension [`RemovePlayerExt`]: taking one seat out of a running game.
pub const EXT_REMOVE_PLAYER: &str = "tabletop.remove-player/1";
/// Extension [`ExpandNotationExt`]: shorthands standing for several actions.
pub const EXT_EXPAND_NOTATION: &str = "tabletop.expand-notation/1";
/// Extension [`ResampleExt`]: states consistent with what a viewer knows.
pub const EXT_RESAMPLE: &str = "tabletop.resample/1";
/// Extension [`SeatNamesExt`]: the game's names of its seats.
pub const EXT_SEAT_NAMES: &str = "tabletop.seat-names/1";
/// Extension [`SeatsOutExt`]: which seats the rules have taken out, and why.
pub const EXT_SEATS_OUT: &str = "tabletop.seats-out/1";
/// Extension [`ExplainRefusalExt`]: why an action is not legal now.
pub const EXT_EXPLAIN_REFUSAL: &str = "tabletop.explain-refusal/2";
/// Extension [`SvgBoardExt`]: the board as SVG for a viewer.
pub const EXT_SVG_BOARD: &str = "tabletop.svg-board/1";
/// Extension [`ActionTargetsExt`]: the board elements an action involves.
pub const EXT_ACTION_TARGETS: &str = "tabletop.action-targets/1";
/// Extension [`EvaluateExt`]: a position's value for each seat.
pub const EXT_EVALUATE: &str = "tabletop.evaluate/1";

/// [`EXT_REMOVE_PLAYER`]: a plugin offers it exactly when its manifest says
/// `removable_players`.
#[repr(C)]
#[derive(Debug)]
pub struct RemovePlayerExt {
    /// Takes seat `player` out of the running game in `state`; the others
    /// play on, and when too few are left the game ends as its rules say.
    /// Mutates `state` like `ply` (a panic poisons the handle). On success
    /// writes the new status into `*status_out`; on failure (no such seat,
    /// already out, the game is over) the state is unchanged and `out` holds
    /// the message.
    pub remove_player: unsafe extern "C" fn(
        state: *mut StateHandle,
        player: u32,
        status_out: *mut RawStatus,
        out: *mut PluginBuf,
    ) -> i32,
}

/// [`EXT_EXPAND_NOTATION`].
#[repr(C)]
#[derive(Debug)]
pub struct ExpandNotationExt {
    /// Expands a shorthand of `player`: a `text` (borrowed) that stands for
    /// several single-action notations in a row. On [`CODE_OK`], `out` stays
    /// empty when the text is not a shorthand (the host then uses
    /// `parse_action`), and otherwise holds a JSON array of strings, the
    /// single-action notations in order, which the host checks and applies
    /// as one request. On failure `out` holds a message naming the place in
    /// the text that is wrong. Only reads `state`.
    pub expand_notation: unsafe extern "C" fn(
        state: *const StateHandle,
        player: u32,
        text: StrRef,
        out: *mut PluginBuf,
    ) -> i32,
}

/// [`EXT_RESAMPLE`]: games with hidden information offer it; without it the
/// host treats a state as hiding nothing (a resample is a clone).
#[repr(C)]
#[derive(Debug)]
pub struct ResampleExt {
    /// Writes into `*state_out` (owned by the caller) a new state consistent
    /// with everything `viewer` knows of `state`, drawn with `random`: the
    /// same for the same `random`, and the same for two states `viewer`
    /// cannot tell apart (it reads nothing hidden from `viewer`). Only reads
    /// `state`.
    pub resample: unsafe extern "C" fn(
        state: *const StateHandle,
        viewer: u32,
        random: u64,
        state_out: *mut *mut StateHandle,
        out: *mut PluginBuf,
    ) -> i32,
}

/// [`EXT_SEAT_NAMES`]: a game that names its seats offers it; the host then
/// names a seat as `seat 1 (B)` (the API's 0-based number and the game's
/// name) in its messages and lists the names in its catalog.
#[repr(C)]
#[derive(Debug)]
pub struct SeatNamesExt {
    /// Writes into `out` a JSON array of `players` strings: the game's short
    /// name of each seat in a match of that size (`["A","B"]`, `["P1","P2"]`).
    /// Touches no handle; callable from any thread at any time.
    pub seat_names: unsafe extern "C" fn(players: u32, out: *mut PluginBuf) -> i32,
}

/// [`EXT_SEATS_OUT`]: a game whose rules can put a player out of a running
/// game offers it; without it the host knows only the seats it took out
/// itself (`remove_player`).
#[repr(C)]
#[derive(Debug)]
pub struct SeatsOutExt {
    /// Writes into `out` a JSON array of the seats that are out of the game
    /// in `state` and never move again, in seat order, each with the rule
    /// that put it out: `[{"seat":2,"reason":"F7: cannot move"}]`; `[]`
    /// when every seat plays on. A seat taken out with `remove_player` is
    /// listed too (the state cannot tell why a seat went out); the host
    /// gives its own reason for those. `reason` is a short text for people,
    /// citing the rule. Only reads `state` (callable from any thread, one
    /// call at a time per handle); `out` is plugin-owned, released with
    /// `free_buf` like every buffer.
    pub seats_out: unsafe extern "C" fn(state: *const StateHandle, out: *mut PluginBuf) -> i32,
}

/// [`EXT_EXPLAIN_REFUSAL`]: why an attempted action is refused. The host
/// asks after a refusal only, so the hot path never pays for it. Each
/// function only reads `state` (one call at a time per handle, from any
/// thread) and writes plugin-owned text into `out`, released with
/// `free_buf`.
#[repr(C)]
#[derive(Debug)]
pub struct ExplainRefusalExt {
    /// Explains why action id `action` of `player` is not legal now: writes
    /// into `out` a JSON object `{"notation":false,"reason":"RED_LINE",
    /// "message":"…"}` (a specific UPPER_SNAKE reason code and one sentence
    /// citing the rule), and leaves `out` empty when the action is legal.
    /// Reveals nothing hidden from `player`.
    pub explain_action: unsafe extern "C" fn(
        state: *const StateHandle,
        player: u32,
        action: u64,
        out: *mut PluginBuf,
    ) -> i32,
    /// The same for a notation text (borrowed): `"notation":true` when the
    /// text does not parse, `false` when it parses to an action that is not
    /// legal now; `out` stays empty when the text is a legal action.
    pub explain_notation: unsafe extern "C" fn(
        state: *const StateHandle,
        player: u32,
        text: StrRef,
        out: *mut PluginBuf,
    ) -> i32,
    /// Writes into `*count_out` how many action ids the match of `state` can
    /// ever use (every id is below it; 0 when unknown).
    pub action_space: unsafe extern "C" fn(
        state: *const StateHandle,
        count_out: *mut u64,
        out: *mut PluginBuf,
    ) -> i32,
}

/// The most bytes an SVG board may have: a host refuses a larger one (and
/// the conformance kit fails a game that writes one).
pub const MAX_SVG_BYTES: usize = 256 * 1024;

/// [`EXT_SVG_BOARD`]: a game that draws its board offers it; a client then
/// shows the board instead of the view's JSON.
#[repr(C)]
#[derive(Debug)]
pub struct SvgBoardExt {
    /// Writes into `out` a UTF-8 SVG document (root element `<svg>`, at most
    /// [`MAX_SVG_BYTES`]) of the board as `viewer` may see it: it draws only
    /// what that viewer's view holds (the same for two states the viewer
    /// cannot tell apart). The elements an action can involve carry the
    /// `id`s that [`ActionTargetsExt`] names, stable from state to state.
    /// Only reads `state`.
    pub render_svg:
        unsafe extern "C" fn(state: *const StateHandle, viewer: u32, out: *mut PluginBuf) -> i32,
}

/// [`EXT_ACTION_TARGETS`]: a game offering it with [`EXT_SVG_BOARD`] can be
/// played by clicks on its board.
#[repr(C)]
#[derive(Debug)]
pub struct ActionTargetsExt {
    /// Writes into `out` a JSON array with one entry per id of `ids` (`count`,
    /// caller-owned; legal actions of `player`): the array of board element
    /// ids that action involves, in the order a person would click them
    /// (from, then to), each an `id` of `player`'s SVG board; the entry of
    /// an id that is not a legal action is unspecified (often empty). Only
    /// reads `state`.
    pub action_targets: unsafe extern "C" fn(
        state: *const StateHandle,
        player: u32,
        ids: *const u64,
        count: usize,
        out: *mut PluginBuf,
    ) -> i32,
}

/// [`EXT_EVALUATE`]: a game offers it to have search bots score the
/// positions where they cut off a playout; without it a cut-off playout
/// counts as a draw.
#[repr(C)]
#[derive(Debug)]
pub struct EvaluateExt {
    /// Writes into `values_out` (caller-owned, `count` entries, one per seat)
    /// the game's estimate of each seat's final standing from `state`, from 0
    /// (certain last place) to 1 (certain win), each finite; for cutting off
    /// a search's playouts. A `count` other than the state's number of seats
    /// is refused with [`CODE_INTERNAL`]
    /// and a message, `values_out` then unspecified. Only reads `state`.
    pub evaluate: unsafe extern "C" fn(
        state: *const StateHandle,
        values_out: *mut f64,
        count: usize,
        out: *mut PluginBuf,
    ) -> i32,
}
