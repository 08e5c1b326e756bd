//! The C ABI between engine-host and a game plugin.
//!
//! A plugin exports one symbol, [`ENTRY_SYMBOL`], an `extern "C" fn() -> *const
//! PluginApi`. The table starts with the ABI version and its own size; function
//! pointers follow and new ones are only ever appended (a minor version bump).
//! The host refuses a plugin whose [`PluginApi::abi_major`] differs from
//! [`ABI_MAJOR`], and never calls a function beyond the table's `size`.
//!
//! # Versions
//! - **2.0**: the hot path crosses the boundary once per call and copies
//!   nothing it need not. `legal_actions` lends the plugin's own array (kept
//!   per handle) instead of filling a caller buffer from thread-local scratch
//!   (a dlopen'ed library reaches thread-locals through `__tls_get_addr`), and
//!   `apply`/`apply_chance` report the new status, so a caller that tracks
//!   it never calls `status` between moves.
//! - **2.1**: `expand_notation` appended.
//! - **2.2**: `remove_player` appended.
//! - **2.3**: `new_state_raw` and `chance_outcomes` appended: the per-match
//!   setup and every chance node cross as plain arrays instead of JSON text
//!   (serialising and parsing them cost more than a short random match's
//!   moves), and a new state reports its status in the same call.
//! - **2.4**: `apply_and_lend_legal` appended: one crossing per ply. It
//!   applies a joint action, reports the new status and lends the legal
//!   actions of one player of the new state (the lowest-numbered mover, or a
//!   player the caller names), which a playout or search loop would otherwise
//!   ask for in a second call. `actions_to_strings` appended: the notation of
//!   a whole list of actions in one call instead of one call per action.
//! - **2.5**: `ply` appended: `apply_and_lend_legal` with its whole answer
//!   (status, lent list, or error code and message) returned in two
//!   registers as a [`RawPly`] instead of written through pointers, so a
//!   ply's crossing stores and reloads nothing and the caller initialises
//!   no buffers for it.
//! - 1.0: the first table.
//!
//! # Conventions for every function
//! - **Return value**: an `i32` status, [`CODE_OK`] or an [`ErrorKind`](crate::ErrorKind)
//!   code. On failure the function writes a UTF-8 message into its `out` buffer.
//! - **Borrowed input**: [`StrRef`] and pointer+length pairs are owned by the
//!   caller and only read during the call.
//! - **Plugin-owned output**: a [`PluginBuf`] written to `out` is allocated by the
//!   plugin and must be released with [`PluginApi::free_buf`] exactly once, by
//!   the caller, from any thread. An untouched `out` stays `PluginBuf::EMPTY`.
//! - **State handles** ([`StateHandle`]) are created by `new_state`,
//!   `clone_state` and `resample` and owned by the caller until passed to
//!   `free_state`. A handle may be used from any thread, but by one call at a
//!   time; different handles may be used concurrently.
//! - **No unwinding**: every function catches panics and reports
//!   [`ErrorKind::Panic`](crate::ErrorKind::Panic). After a panic inside a call
//!   that mutates a state, that handle is poisoned: later calls on it fail with
//!   [`ErrorKind::Poisoned`](crate::ErrorKind::Poisoned) and it may only be freed.

/// The major ABI version: a plugin with another major version is refused.
pub const ABI_MAJOR: u32 = 2;
/// The minor ABI version: functions appended since 2.0.
///
/// Each appended function says in its docs which minor version added it. A
/// host reads a function only when the plugin's [`PluginApi::size`] covers it,
/// and otherwise uses that function's documented fallback.
/// 2.1 appended [`PluginApi::expand_notation`].
/// 2.2 appended [`PluginApi::remove_player`].
/// 2.3 appended [`PluginApi::new_state_raw`] and [`PluginApi::chance_outcomes`].
/// 2.4 appended [`PluginApi::apply_and_lend_legal`] and
/// [`PluginApi::actions_to_strings`].
/// 2.5 appended [`PluginApi::ply`].
pub const ABI_MINOR: u32 = 5;
/// The name of the one exported entry function.
pub const ENTRY_SYMBOL: &str = "tabletop_plugin_entry";

/// The status code of success.
pub const CODE_OK: i32 = 0;

/// The signature of [`ENTRY_SYMBOL`]. The returned table is static: it lives as
/// long as the library, which the host never unloads. Callable from any thread.
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

/// One player's action in a joint action: [`Move`](crate::Move) itself, which
/// is `#[repr(C)]` (`player: u32`, then `action: u64`), so joint actions cross
/// the boundary without a copy.
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
    /// For [`STATUS_TO_MOVE`]: bitmask of the players to move.
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

/// [`PluginApi::apply_and_lend_legal`]'s `player` meaning "the lowest-numbered
/// player to move in the new state".
pub const LEND_FIRST_MOVER: u32 = u32::MAX;

/// What [`PluginApi::apply_and_lend_legal`] writes: the new status and a lent
/// legal-action list, in one caller-owned struct so the call passes its
/// arguments in registers.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct RawApplied {
    /// The state's status after the joint action.
    pub status: RawStatus,
    /// `count` legal action ids of the player asked for (the caller's seat,
    /// or the lowest bit of `status.movers`), ascending, owned by the plugin
    /// (see [`PluginApi::apply_and_lend_legal`] for how long). May dangle
    /// when `count` is 0.
    pub ids: *const u64,
    /// How many ids are lent.
    pub count: usize,
}

impl RawApplied {
    /// Nothing written yet.
    pub const EMPTY: RawApplied = RawApplied {
        status: RawStatus {
            kind: STATUS_TERMINAL,
            movers: 0,
        },
        ids: std::ptr::null(),
        count: 0,
    };
}

/// [`RawPly`]'s kind (bits 0–1 of [`RawPly::word`]) for a call that failed:
/// the other three kinds are the status kinds ([`STATUS_TO_MOVE`],
/// [`STATUS_CHANCE`], [`STATUS_TERMINAL`]).
pub const PLY_FAILED: u32 = 3;

/// The largest length [`RawPly`] can carry (30 bits): lent ids, or bytes of
/// an error message.
pub const PLY_MAX_LEN: usize = (1 << 30) - 1;

/// What [`PluginApi::ply`] returns: 16 bytes of two integer words, which
/// the C calling conventions of x86-64 and AArch64 return in two registers
/// (`rax:rdx`, `x0:x1`).
///
/// [`RawPly::word`] packs, from the lowest bit:
/// - bits 0–1, the kind: a status kind ([`STATUS_TO_MOVE`],
///   [`STATUS_CHANCE`], [`STATUS_TERMINAL`]) on success, [`PLY_FAILED`] on
///   failure;
/// - bits 2–31, a length (at most [`PLY_MAX_LEN`]): on success how many
///   legal ids are lent at [`RawPly::lent`], on failure how many bytes of
///   UTF-8 message are lent there;
/// - bits 32–63: on success the movers' bitmask when the kind is
///   [`STATUS_TO_MOVE`] (0 otherwise), on failure the
///   [`ErrorKind`](crate::ErrorKind) code.
///
/// Both lent arrays are the plugin's own and belong to the handle, like
/// `legal_actions`' answer: valid until the next call with the handle or
/// its `free_state` (a failure on a null handle lends a static message).
/// `lent` may dangle when the length is 0.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawPly {
    /// The lent ids (`*const u64`), or the message's bytes (`*const u8`).
    pub lent: *const std::ffi::c_void,
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

    /// A success that lends nothing: a status other than "to move", or a
    /// seat that is not to move. `lent` dangles, as an empty list may.
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
/// draws a uniformly random `u64` (no outcomes are lent).
pub const CHANCE_SAMPLED: u32 = 1;

/// One listed outcome of a chance node and its probability.
///
/// A `#[repr(C)]` pair rather than `(u64, f64)`, whose layout Rust does not
/// promise.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RawOutcome {
    /// The outcome, as passed to `apply_chance`.
    pub outcome: u64,
    /// Its probability (positive; a node's probabilities sum to 1).
    pub probability: f64,
}

/// The host's log sink: `level` is 1 error, 2 warn, 3 info, 4 debug, 5 trace;
/// `message` is borrowed for the call. Must be callable from any thread.
pub type LogFn = extern "C" fn(level: u32, message: StrRef);

/// The function table a plugin exports. Fields are only ever appended.
///
/// Every function is callable from any thread; see the module docs for the
/// conventions on status codes, buffers and handles.
#[repr(C)]
#[derive(Debug)]
pub struct PluginApi {
    /// [`ABI_MAJOR`] of the SDK the plugin was built with.
    pub abi_major: u32,
    /// [`ABI_MINOR`] of the SDK the plugin was built with.
    pub abi_minor: u32,
    /// `size_of::<PluginApi>()` in the plugin: the host calls no function that
    /// lies beyond it.
    pub size: usize,

    /// Releases a buffer this plugin returned. Null/empty buffers are ignored.
    pub free_buf: extern "C" fn(buf: PluginBuf),
    /// Installs the host's log sink (or removes it with `None`). Process-wide.
    pub set_logger: extern "C" fn(logger: Option<LogFn>),
    /// Writes the manifest as JSON (see `Manifest`) into `out`.
    pub manifest: extern "C" fn(out: *mut PluginBuf) -> i32,

    /// Creates a state. `setup_json` is `{"players": n, "options": {"name": "text"}}`
    /// with raw option texts, validated by the plugin; `position` is a position
    /// text or null for the game's start. On success writes a new handle,
    /// owned by the caller, into `*state_out`.
    pub new_state: extern "C" fn(
        setup_json: StrRef,
        position: StrRef,
        state_out: *mut *mut StateHandle,
        out: *mut PluginBuf,
    ) -> i32,
    /// Writes a new, independent copy of `state` into `*state_out`.
    pub clone_state: extern "C" fn(
        state: *const StateHandle,
        state_out: *mut *mut StateHandle,
        out: *mut PluginBuf,
    ) -> i32,
    /// Destroys a handle. Null is ignored. The handle must not be used after.
    pub free_state: extern "C" fn(state: *mut StateHandle),

    /// Writes the status of `state` into `*status_out`.
    pub status: extern "C" fn(
        state: *const StateHandle,
        status_out: *mut RawStatus,
        out: *mut PluginBuf,
    ) -> i32,
    /// Writes the chance node as JSON (`{"Explicit":[[outcome,p],…]}` or `"Sampled"`).
    pub chance: extern "C" fn(state: *const StateHandle, out: *mut PluginBuf) -> i32,
    /// Writes the results as JSON (`[{"rank":1,"score":3.0},…]`).
    pub results: extern "C" fn(state: *const StateHandle, out: *mut PluginBuf) -> i32,
    /// Lends `player`'s legal action ids, ascending: writes a pointer to
    /// `*count_out` ids into `*ids_out`. The array is owned by the plugin and
    /// belongs to `state`: it stays valid until the next call with this handle
    /// or its `free_state`, so the caller copies what it keeps. An empty answer
    /// may come with a dangling (non-null, unreadable) pointer.
    pub legal_actions: extern "C" fn(
        state: *const StateHandle,
        player: u32,
        ids_out: *mut *const u64,
        count_out: *mut usize,
        out: *mut PluginBuf,
    ) -> i32,
    /// Applies a joint action (`moves`, `count` entries, caller-owned) and writes
    /// the new status into `*status_out`, so a caller that tracks the status
    /// needs no `status` call per transition. On error the state (and
    /// `*status_out`) is unchanged.
    pub apply: extern "C" fn(
        state: *mut StateHandle,
        moves: *const RawMove,
        count: usize,
        status_out: *mut RawStatus,
        out: *mut PluginBuf,
    ) -> i32,
    /// Applies a chance outcome and writes the new status into `*status_out`.
    /// On error the state (and `*status_out`) is unchanged.
    pub apply_chance: extern "C" fn(
        state: *mut StateHandle,
        outcome: u64,
        status_out: *mut RawStatus,
        out: *mut PluginBuf,
    ) -> i32,

    /// Writes the JSON view for `viewer` (a seat, or `u32::MAX` for a spectator).
    pub view: extern "C" fn(state: *const StateHandle, viewer: u32, out: *mut PluginBuf) -> i32,
    /// Writes the text rendering for `viewer`.
    pub render_text:
        extern "C" fn(state: *const StateHandle, viewer: u32, out: *mut PluginBuf) -> i32,
    /// Writes the JSON event `viewer` saw when `transition` took `before` to
    /// `after` (two handles of this plugin).
    pub event: extern "C" fn(
        before: *const StateHandle,
        transition: *const RawTransition,
        after: *const StateHandle,
        viewer: u32,
        out: *mut PluginBuf,
    ) -> i32,

    /// Writes the position text of `state`.
    pub position: extern "C" fn(state: *const StateHandle, out: *mut PluginBuf) -> i32,
    /// Writes the text of `action` for `player`.
    pub action_to_string: extern "C" fn(
        state: *const StateHandle,
        player: u32,
        action: u64,
        out: *mut PluginBuf,
    ) -> i32,
    /// Parses `text` as a legal action of `player`, writing its id to `*action_out`.
    pub parse_action: extern "C" fn(
        state: *const StateHandle,
        player: u32,
        text: StrRef,
        action_out: *mut u64,
        out: *mut PluginBuf,
    ) -> i32,
    /// Writes into `*state_out` a new state consistent with all `viewer` knows,
    /// drawn with `random`.
    pub resample: extern "C" fn(
        state: *const StateHandle,
        viewer: u32,
        random: u64,
        state_out: *mut *mut StateHandle,
        out: *mut PluginBuf,
    ) -> i32,

    /// *Added in 2.1.* Expands a shorthand of `player` (see
    /// `Game::expand_notation`): a `text` (caller-owned, borrowed for the call)
    /// that stands for several single-action notations in a row.
    ///
    /// On [`CODE_OK`], `out` stays `PluginBuf::EMPTY` when the text is not a
    /// shorthand; otherwise it holds a plugin-owned JSON array of strings, the
    /// single-action notations in order (the caller frees it with `free_buf`).
    /// On failure `out` holds the message. It only reads `state` (never
    /// changes it); like every function it may be called from any thread, one
    /// call at a time per handle.
    ///
    /// **Fallback:** a plugin whose table `size` does not cover this field
    /// (ABI 2.0) has no shorthands: the host treats every text as "not a
    /// shorthand".
    pub expand_notation: extern "C" fn(
        state: *const StateHandle,
        player: u32,
        text: StrRef,
        out: *mut PluginBuf,
    ) -> i32,

    /// *Added in 2.2.* Takes seat `player` out of the running game in `state` (see
    /// `Game::remove_player`); the others play on. Mutates `state` like
    /// `apply`: the caller holds the handle for the call (one call at a time
    /// per handle, from any thread), and a panic inside poisons it. On error
    /// (no such seat, already out, game over, or
    /// [`ErrorKind::Unsupported`](crate::ErrorKind::Unsupported) for a game
    /// whose manifest says `removable_players: false`) the state is unchanged
    /// and a message is written to `out`, plugin-owned as always.
    ///
    /// **Fallback:** a plugin whose table `size` does not cover this field
    /// (ABI 2.0 and 2.1) cannot remove players, whatever its manifest says.
    pub remove_player: RemovePlayerFn,

    /// *Added in 2.3.* Creates a state like `new_state`, with the setup as plain
    /// data instead of JSON, and reports its status like `apply`.
    ///
    /// `players` seats; `options` points to `option_count` [`RawOption`]s
    /// (null when `option_count` is 0), raw texts validated by the plugin, each
    /// name at most once. Like every [`StrRef`] they, and `position` (a
    /// position text, or null for the game's start), are owned by the caller
    /// and only read during the call. On success writes a new handle, owned
    /// by the caller until `free_state`, into `*state_out` and its status into
    /// `*status_out`; on failure neither is written and `out` holds the
    /// message (plugin-owned, freed with `free_buf`). Callable from any
    /// thread; it touches no existing handle.
    ///
    /// **Fallback:** for a plugin whose table `size` does not cover this field
    /// (ABI 2.0 to 2.2) the host writes the setup as JSON for `new_state` and
    /// asks `status` once.
    pub new_state_raw: NewStateRawFn,

    /// *Added in 2.3.* Lends the chance node of `state` (whose status is
    /// chance) as plain data instead of the JSON of `chance`.
    ///
    /// Writes [`CHANCE_EXPLICIT`] or [`CHANCE_SAMPLED`] into `*kind_out`. For
    /// an explicit node writes a pointer to `*count_out` [`RawOutcome`]s into
    /// `*outcomes_out`, in the game's order; for a sampled one `*count_out`
    /// is 0 (and the pointer may dangle). The array is owned by the plugin and
    /// belongs to `state`, like `legal_actions`' answer: it stays valid until
    /// the next call with this handle or its `free_state`, so the caller
    /// copies what it keeps. It only reads `state`; one call at a time per
    /// handle, from any thread. On failure nothing is lent and `out` holds
    /// the message.
    ///
    /// **Fallback:** for a plugin whose table `size` does not cover this field
    /// (ABI 2.0 to 2.2) the host parses the JSON of `chance`.
    pub chance_outcomes: ChanceOutcomesFn,

    /// *Added in 2.4.* Applies a joint action like `apply` and, in the same
    /// call, lends legal actions of the new state like `legal_actions`: one
    /// crossing per ply instead of two.
    ///
    /// `moves` (`count` entries) is owned by the caller and only read during
    /// the call. `player` names whose legal actions to lend: a seat, or
    /// [`LEND_FIRST_MOVER`] for the lowest-numbered player to move. On
    /// [`CODE_OK`] the plugin writes into `*applied_out` (caller-owned) the
    /// new status and, when that status is "to move", that player's legal
    /// ids (empty for a seat not to move); otherwise `count` is 0 (and `ids`
    /// may dangle). With several players to move
    /// (simultaneous turns) the caller asks `legal_actions` for the others.
    ///
    /// The lent array is the plugin's own and belongs to `state`, exactly like
    /// `legal_actions`' answer (the same per-handle storage): valid until the
    /// next call with this handle or its `free_state`. Mutates `state` like
    /// `apply`: one call at a time per handle, from any thread, and a panic
    /// inside poisons the handle. On error the state is unchanged, nothing is
    /// lent, `*applied_out` is not written and `out` holds the message
    /// (plugin-owned, freed with `free_buf`).
    ///
    /// **Fallback:** for a plugin whose table `size` does not cover this field
    /// (ABI 2.0 to 2.3) the host calls `apply`, then `legal_actions` when the
    /// new status is "to move": the same answer in two crossings.
    pub apply_and_lend_legal: ApplyAndLendLegalFn,

    /// *Added in 2.4.* Writes the notation of `count` actions of `player` at
    /// once, as `action_to_string` would one by one: one crossing for a whole
    /// legal list.
    ///
    /// `ids` (`count` entries) is owned by the caller and only read during
    /// the call. On [`CODE_OK`] the plugin writes the texts, concatenated in
    /// order, into `out` (plugin-owned, freed with `free_buf`; untouched when
    /// every text is empty), and into `ends_out[i]` (a caller-owned array of
    /// `count` `u32`s) the byte offset in `out` where the text of `ids[i]`
    /// ends, so text `i` is `out[ends_out[i - 1]..ends_out[i]]` (from 0 for
    /// the first). On failure (an id `action_to_string` refuses, or more than
    /// `u32::MAX` bytes of text) `out` holds the message and `ends_out` is
    /// unspecified. It only reads `state`; one call at a time per handle,
    /// from any thread.
    ///
    /// **Fallback:** for a plugin whose table `size` does not cover this field
    /// (ABI 2.0 to 2.3) the host calls `action_to_string` once per action.
    pub actions_to_strings: ActionsToStringsFn,

    /// *Added in 2.5.* [`PluginApi::apply_and_lend_legal`] with its answer
    /// returned as a [`RawPly`] (two registers) instead of written through
    /// `applied_out` and `out`: the same work, the same meaning of `moves`,
    /// `count` and `player` (a seat, or [`LEND_FIRST_MOVER`]). `moves` must
    /// point to `count` readable entries, and be non-null and aligned even
    /// when `count` is 0 (as a slice's pointer is): unlike the older
    /// functions, `ply` does not test it.
    ///
    /// On success the kind is the new status's, and for "to move" the ids
    /// of the asked player are lent (none for a seat not to move; none for
    /// the other statuses). On failure the kind is [`PLY_FAILED`], the high
    /// word holds the error code and the message's bytes are lent instead
    /// of the ids; the state is unchanged unless the call panicked. Nothing
    /// is allocated for the caller and nothing is to be freed: every lent
    /// array belongs to `state` (see [`RawPly`] for how long it stays
    /// valid). A legal list longer than [`PLY_MAX_LEN`] fails with
    /// [`ErrorKind::Internal`](crate::ErrorKind::Internal).
    ///
    /// Mutates `state` like `apply`: one call at a time per handle, from
    /// any thread. A panic anywhere in the call poisons the handle (later
    /// calls on it fail with [`ErrorKind::Poisoned`](crate::ErrorKind::Poisoned)).
    ///
    /// **Fallback:** for a plugin whose table `size` does not cover this
    /// field (ABI 2.0 to 2.4) the host calls `apply_and_lend_legal` (2.4),
    /// or else `apply` and then `legal_actions`.
    pub ply: PlyFn,
}

/// The signature of [`PluginApi::remove_player`] (ABI 2.2).
pub type RemovePlayerFn =
    extern "C" fn(state: *mut StateHandle, player: u32, out: *mut PluginBuf) -> i32;

/// The signature of [`PluginApi::new_state_raw`] (ABI 2.3).
pub type NewStateRawFn = extern "C" fn(
    players: u32,
    options: *const RawOption,
    option_count: usize,
    position: StrRef,
    state_out: *mut *mut StateHandle,
    status_out: *mut RawStatus,
    out: *mut PluginBuf,
) -> i32;

/// The signature of [`PluginApi::chance_outcomes`] (ABI 2.3).
pub type ChanceOutcomesFn = extern "C" fn(
    state: *const StateHandle,
    kind_out: *mut u32,
    outcomes_out: *mut *const RawOutcome,
    count_out: *mut usize,
    out: *mut PluginBuf,
) -> i32;

/// The signature of [`PluginApi::apply_and_lend_legal`] (ABI 2.4).
pub type ApplyAndLendLegalFn = extern "C" fn(
    state: *mut StateHandle,
    moves: *const RawMove,
    count: usize,
    player: u32,
    applied_out: *mut RawApplied,
    out: *mut PluginBuf,
) -> i32;

/// The signature of [`PluginApi::ply`] (ABI 2.5).
pub type PlyFn = extern "C" fn(
    state: *mut StateHandle,
    moves: *const RawMove,
    count: usize,
    player: u32,
) -> RawPly;

/// The signature of [`PluginApi::actions_to_strings`] (ABI 2.4).
pub type ActionsToStringsFn = extern "C" fn(
    state: *const StateHandle,
    player: u32,
    ids: *const u64,
    count: usize,
    ends_out: *mut u32,
    out: *mut PluginBuf,
) -> i32;

// SAFETY: the table holds only function pointers and integers; it is immutable
// and every function is documented as callable from any thread.
unsafe impl Sync for PluginApi {}
// SAFETY: as above: no interior state, nothing tied to a thread.
unsafe impl Send for PluginApi {}
