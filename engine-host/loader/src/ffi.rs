//! Every `unsafe` operation of the host lives here: opening a library, looking
//! up its entry symbol, and crossing the C ABI of `tabletop_sdk::abi`. The rest
//! of the host sees only the safe [`RawPlugin`] and [`RawState`].
//!
//! Libraries are never unloaded: `dlclose` is unsound with Rust thread-locals,
//! and a state handle must never outlive its code. The loaded table is
//! therefore `'static`.

use std::collections::BTreeMap;
use std::path::Path;
use std::ptr::NonNull;

use tabletop_sdk::abi::{
    ABI_MAJOR, CHANCE_EXPLICIT, CHANCE_SAMPLED, CODE_OK, ENTRY_SYMBOL, EntryFn, LEND_FIRST_MOVER,
    PLY_FAILED, PluginApi, PluginBuf, RawApplied, RawMove, RawOption, RawOutcome, RawPly,
    RawStatus, RawTransition, STATUS_CHANCE, STATUS_TERMINAL, STATUS_TO_MOVE, StateHandle, StrRef,
    TRANSITION_CHANCE, TRANSITION_MOVES,
};
use tabletop_sdk::{Chance, ErrorKind, GameError, Move, PlayerSet, Status, Transition, Viewer};

use crate::plugin::LoadError;

/// The size of an ABI 2.0 table: every field before the first function
/// appended in a minor version. A smaller table is refused.
const SIZE_2_0: usize = std::mem::offset_of!(PluginApi, expand_notation);

/// Whether a table of `size` bytes holds the whole appended field that starts
/// at `offset` (every appended field is a function pointer).
fn covers(size: usize, offset: usize) -> bool {
    offset + std::mem::size_of::<extern "C" fn()>() <= size
}

/// Fallback for a 2.0 table's missing `expand_notation` (ABI 2.1): nothing
/// is a shorthand, which the ABI signals with an untouched `out`.
extern "C" fn no_expansion(
    _state: *const StateHandle,
    _player: u32,
    _text: StrRef,
    _out: *mut PluginBuf,
) -> i32 {
    CODE_OK
}

/// Takes a plugin's table of `size` bytes for the host's use. A table as
/// large as the host's is used in place. An older minor version's shorter
/// table is copied into a host-owned full table (leaked like the library:
/// both live as long as the process), whose appended functions the plugin
/// lacks are set to their documented fallbacks. The host thus never reads
/// beyond a plugin's table, and never holds a reference to more memory than
/// the plugin provides.
///
/// # Safety
/// `table` must point to a static table whose first `size` bytes are
/// readable, starting with the ABI header, of this host's major version.
unsafe fn adopt(table: NonNull<PluginApi>, size: usize) -> Result<&'static PluginApi, LoadError> {
    if size < SIZE_2_0 {
        return Err(LoadError::Incompatible(format!(
            "plugin table has {size} bytes, ABI 2.0 needs {SIZE_2_0}"
        )));
    }
    if size >= std::mem::size_of::<PluginApi>() {
        // SAFETY: the table is static and at least as large as ours: every
        // field we read exists with the documented type (same major version).
        return Ok(unsafe { &*table.as_ptr() });
    }
    let mut full = std::mem::MaybeUninit::<PluginApi>::uninit();
    let full_ptr = full.as_mut_ptr();
    // SAFETY: the caller guarantees `size` readable bytes at `table`, and
    // `size` is less than our table's size, so the copy stays inside both; the
    // two do not overlap (ours is a fresh local).
    unsafe {
        std::ptr::copy_nonoverlapping(table.as_ptr() as *const u8, full_ptr as *mut u8, size)
    };
    // Every field from here on is one the plugin's table does not hold whole:
    // write its fallback (a field cut by `size` is overwritten entirely).
    let expand_at = std::mem::offset_of!(PluginApi, expand_notation);
    if !covers(size, expand_at) {
        // SAFETY: `full_ptr` points to our own writable table; the field is
        // written through a raw pointer, never read while uninitialised.
        unsafe { std::ptr::addr_of_mut!((*full_ptr).expand_notation).write(no_expansion) };
    }
    if !covers(size, std::mem::offset_of!(PluginApi, remove_player)) {
        // SAFETY: as above.
        unsafe { std::ptr::addr_of_mut!((*full_ptr).remove_player).write(remove_player_absent) };
    }
    if !covers(size, std::mem::offset_of!(PluginApi, new_state_raw)) {
        // SAFETY: as above.
        unsafe { std::ptr::addr_of_mut!((*full_ptr).new_state_raw).write(new_state_raw_absent) };
    }
    if !covers(size, std::mem::offset_of!(PluginApi, chance_outcomes)) {
        // SAFETY: as above.
        unsafe {
            std::ptr::addr_of_mut!((*full_ptr).chance_outcomes).write(chance_outcomes_absent)
        };
    }
    if !covers(size, std::mem::offset_of!(PluginApi, apply_and_lend_legal)) {
        // SAFETY: as above.
        unsafe {
            std::ptr::addr_of_mut!((*full_ptr).apply_and_lend_legal)
                .write(apply_and_lend_legal_absent)
        };
    }
    if !covers(size, std::mem::offset_of!(PluginApi, actions_to_strings)) {
        // SAFETY: as above.
        unsafe {
            std::ptr::addr_of_mut!((*full_ptr).actions_to_strings).write(actions_to_strings_absent)
        };
    }
    if !covers(size, std::mem::offset_of!(PluginApi, ply)) {
        // SAFETY: as above.
        unsafe { std::ptr::addr_of_mut!((*full_ptr).ply).write(ply_absent) };
    }
    // SAFETY: the first `size >= SIZE_2_0` bytes came from a valid table of the
    // same major version (header and every 2.0 function pointer), and every
    // field at or beyond `SIZE_2_0` was written above, so each field holds a
    // valid value of its type (no padding lies between these pointer fields).
    let full = unsafe { full.assume_init() };
    Ok(Box::leak(Box::new(full)))
}

/// An opened plugin library and its function table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawPlugin {
    api: &'static PluginApi,
    /// Whether the plugin's table reaches `remove_player` (ABI 2.2).
    has_remove_player: bool,
    /// Whether it reaches `new_state_raw` and `chance_outcomes` (ABI 2.3);
    /// without them setups and chance nodes go through JSON.
    has_raw_setup_and_chance: bool,
    /// Whether it reaches `apply_and_lend_legal` (ABI 2.4); without it a ply
    /// is `apply` and then `legal_actions`.
    has_apply_and_lend: bool,
    /// Whether it reaches `actions_to_strings` (ABI 2.4); without it a list's
    /// notation is one `action_to_string` call per action.
    has_actions_to_strings: bool,
    /// Whether it reaches `ply` (ABI 2.5); without it a ply is
    /// `apply_and_lend_legal` (2.4) or `apply` and `legal_actions`.
    has_ply: bool,
    /// `api.ply`, kept beside the table pointer so a ply's call loads one
    /// pointer instead of two: the plugin's, or [`ply_absent`].
    ply: tabletop_sdk::abi::PlyFn,
}

impl RawPlugin {
    fn with_table(api: &'static PluginApi, size: usize) -> RawPlugin {
        RawPlugin {
            api,
            has_remove_player: covers(size, std::mem::offset_of!(PluginApi, remove_player)),
            has_raw_setup_and_chance: covers(size, std::mem::offset_of!(PluginApi, new_state_raw))
                && covers(size, std::mem::offset_of!(PluginApi, chance_outcomes)),
            has_apply_and_lend: covers(size, std::mem::offset_of!(PluginApi, apply_and_lend_legal)),
            has_actions_to_strings: covers(
                size,
                std::mem::offset_of!(PluginApi, actions_to_strings),
            ),
            has_ply: covers(size, std::mem::offset_of!(PluginApi, ply)),
            ply: api.ply,
        }
    }
}

/// Stands in for `new_state_raw` in the host's copy of an older table. Never
/// called: [`RawPlugin::new_state`] checks
/// [`RawPlugin::has_raw_setup_and_chance`] first. Writes nothing.
extern "C" fn new_state_raw_absent(
    _players: u32,
    _options: *const RawOption,
    _option_count: usize,
    _position: StrRef,
    _state_out: *mut *mut StateHandle,
    _status_out: *mut RawStatus,
    _out: *mut PluginBuf,
) -> i32 {
    ErrorKind::Unsupported as i32
}

/// Stands in for `chance_outcomes` like [`new_state_raw_absent`]; never called.
extern "C" fn chance_outcomes_absent(
    _state: *const StateHandle,
    _kind_out: *mut u32,
    _outcomes_out: *mut *const RawOutcome,
    _count_out: *mut usize,
    _out: *mut PluginBuf,
) -> i32 {
    ErrorKind::Unsupported as i32
}

/// Stands in for `apply_and_lend_legal` like [`new_state_raw_absent`]; never
/// called: [`RawState::apply_and_lend_legal`] checks
/// [`RawPlugin::has_apply_and_lend`] first. Writes nothing.
extern "C" fn apply_and_lend_legal_absent(
    _state: *mut StateHandle,
    _moves: *const RawMove,
    _count: usize,
    _player: u32,
    _applied_out: *mut RawApplied,
    _out: *mut PluginBuf,
) -> i32 {
    ErrorKind::Unsupported as i32
}

/// Stands in for `actions_to_strings` like [`new_state_raw_absent`]; never
/// called: [`RawState::actions_to_strings`] checks
/// [`RawPlugin::has_actions_to_strings`] first. Writes nothing.
extern "C" fn actions_to_strings_absent(
    _state: *const StateHandle,
    _player: u32,
    _ids: *const u64,
    _count: usize,
    _ends_out: *mut u32,
    _out: *mut PluginBuf,
) -> i32 {
    ErrorKind::Unsupported as i32
}

/// Stands in for `ply` like [`new_state_raw_absent`]; never called:
/// [`RawState::apply_and_lend_legal`] checks [`RawPlugin::has_ply`] first,
/// and the engine calls [`RawState::ply`] only on a state whose type says
/// the plugin has it. If called, it fails and changes nothing. (Calling it
/// unconditionally and falling back on its failure was tried: keeping the
/// moves for the fallback alive across the call cost the hot path more
/// registers to save than the check it spared.)
extern "C" fn ply_absent(
    _state: *mut StateHandle,
    _moves: *const RawMove,
    _count: usize,
    _player: u32,
) -> RawPly {
    RawPly::failed(ErrorKind::Unsupported as i32, "no ply before ABI 2.5")
}

/// Stands in for `remove_player` in the host's copy of an older table, so the
/// copy is a complete `PluginApi`. Never called: [`RawState::remove_player`]
/// checks [`RawPlugin::has_remove_player`] first. Writes no buffer.
extern "C" fn remove_player_absent(
    _state: *mut StateHandle,
    _player: u32,
    _out: *mut PluginBuf,
) -> i32 {
    ErrorKind::Unsupported as i32
}

impl RawPlugin {
    /// Opens the library at `path` (a private copy, never the user's file) and
    /// checks its entry symbol and ABI version.
    pub(crate) fn open(path: &Path) -> Result<RawPlugin, LoadError> {
        // SAFETY: loading a library runs its initialisers. We only load files
        // from the plugin directory or an admin request — code the operator chose
        // to trust — and each from a private, content-addressed copy, so the file
        // cannot change under the loader.
        let library = unsafe { libloading::Library::new(path) }.map_err(|e| {
            let detail = std::error::Error::source(&e)
                .map(|s| format!(": {s}"))
                .unwrap_or_default();
            LoadError::Open(format!("{e}{detail}"))
        })?;
        // Never unloaded (see the module docs): the table and every state handle
        // may live as long as the process.
        let library: &'static libloading::Library = Box::leak(Box::new(library));
        // SAFETY: `EntryFn` is the documented signature of ENTRY_SYMBOL in every
        // Tabletop plugin. A foreign library that happens to export the name with
        // another signature is outside what any loader can detect.
        let entry = unsafe { library.get::<EntryFn>(ENTRY_SYMBOL.as_bytes()) }
            .map_err(|_| LoadError::NotAPlugin)?;
        // SAFETY: calling the entry takes no arguments and returns a pointer to a
        // static table (or null); the shim behind it cannot unwind.
        let table = unsafe { entry() };
        let Some(table) = NonNull::new(table as *mut PluginApi) else {
            return Err(LoadError::Incompatible(
                "the entry returned no table".into(),
            ));
        };
        // SAFETY: the table is static and starts with the three plain header
        // fields in every ABI version, so reading them is valid whatever the
        // plugin's version; the function pointers are read only after the
        // version and size checks below.
        let (major, minor, size) = unsafe {
            let header = table.as_ptr();
            ((*header).abi_major, (*header).abi_minor, (*header).size)
        };
        if major != ABI_MAJOR {
            return Err(LoadError::Incompatible(format!(
                "plugin ABI {major}.{minor}, host ABI {ABI_MAJOR}.x"
            )));
        }
        // SAFETY: the table is static and the plugin declares `size` readable
        // bytes; `adopt` checks that they hold at least the 2.0 table.
        let api = unsafe { adopt(table, size) }?;
        Ok(RawPlugin::with_table(api, size))
    }

    /// Whether the plugin's table has `remove_player` (ABI 2.2 or later).
    pub(crate) fn has_remove_player(&self) -> bool {
        self.has_remove_player
    }

    /// The manifest JSON.
    pub(crate) fn manifest_json(&self) -> Result<String, GameError> {
        let mut out = PluginBuf::EMPTY;
        let code = (self.api.manifest)(&mut out);
        self.finish_text(code, out)
    }

    /// Installs the host's log sink.
    pub(crate) fn set_logger(&self, logger: tabletop_sdk::abi::LogFn) {
        (self.api.set_logger)(Some(logger));
    }

    /// A new state for `players` with raw `options` (and a position text, if
    /// any): one call with the setup as arrays (ABI 2.3), or else the setup
    /// as JSON and a second call for the status.
    pub(crate) fn new_state(
        &self,
        players: u32,
        options: &BTreeMap<String, String>,
        position: Option<&str>,
    ) -> Result<RawState, GameError> {
        let position = position.map_or(StrRef::NULL, StrRef::new);
        let mut handle: *mut StateHandle = std::ptr::null_mut();
        let mut out = PluginBuf::EMPTY;
        if !self.has_raw_setup_and_chance {
            let setup = serde_json::json!({ "players": players, "options": options }).to_string();
            let code = (self.api.new_state)(StrRef::new(&setup), position, &mut handle, &mut out);
            self.finish(code, &mut out)?;
            return self.wrap(handle);
        }
        let options: Vec<RawOption> = options
            .iter()
            .map(|(name, value)| RawOption {
                name: StrRef::new(name),
                value: StrRef::new(value),
            })
            .collect();
        let mut raw = RawStatus::default();
        let code = (self.api.new_state_raw)(
            players,
            options.as_ptr(),
            options.len(),
            position,
            &mut handle,
            &mut raw,
            &mut out,
        );
        self.finish(code, &mut out)?;
        let mut state = self.own(handle)?;
        // Decoded only once the handle is owned, so a bad status frees it.
        state.status = StatusWord::checked(raw)?;
        Ok(state)
    }

    /// Takes ownership of a new handle and reads its status once.
    fn wrap(&self, handle: *mut StateHandle) -> Result<RawState, GameError> {
        let mut state = self.own(handle)?;
        state.refresh_status()?;
        Ok(state)
    }

    /// Takes ownership of a new handle whose status is still to be set.
    fn own(&self, handle: *mut StateHandle) -> Result<RawState, GameError> {
        let handle = NonNull::new(handle)
            .ok_or_else(|| GameError::internal("plugin returned success but no state"))?;
        Ok(RawState {
            plugin: *self,
            handle,
            status: StatusWord::TERMINAL,
        })
    }

    /// Copies a plugin buffer into a String and releases it with the plugin's
    /// own allocator.
    fn take(&self, buf: PluginBuf) -> String {
        if buf.ptr.is_null() {
            return String::new();
        }
        // SAFETY: a non-null PluginBuf from this plugin points to `len`
        // initialised bytes that stay valid until we pass it to `free_buf`.
        let bytes = unsafe { std::slice::from_raw_parts(buf.ptr, buf.len) };
        // Valid UTF-8 (every SDK plugin writes Rust strings) is copied in one
        // pass; only a broken plugin pays for the lossy conversion.
        let text = match std::str::from_utf8(bytes) {
            Ok(text) => text.to_owned(),
            Err(_) => String::from_utf8_lossy(bytes).into_owned(),
        };
        (self.api.free_buf)(buf);
        text
    }

    /// The result of a call that returns no text: on the hot path (success,
    /// untouched `out`) this is one comparison, so it is inlined. `out` is
    /// read in place: taking it by value copied it to another stack slot on
    /// every call, and a store-forwarding stall on that copy was the hottest
    /// instruction of `apply` (perf, cpu-clock).
    #[inline]
    fn finish(&self, code: i32, out: &mut PluginBuf) -> Result<(), GameError> {
        if code == CODE_OK && out.ptr.is_null() {
            Ok(())
        } else {
            self.finish_slow(code, std::mem::replace(out, PluginBuf::EMPTY))
        }
    }

    #[cold]
    fn finish_slow(&self, code: i32, out: PluginBuf) -> Result<(), GameError> {
        let text = self.take(out);
        if code == CODE_OK {
            Ok(())
        } else {
            Err(GameError::new(ErrorKind::from_code(code), text))
        }
    }

    fn finish_text(&self, code: i32, out: PluginBuf) -> Result<String, GameError> {
        let text = self.take(out);
        if code == CODE_OK {
            Ok(text)
        } else {
            Err(GameError::new(ErrorKind::from_code(code), text))
        }
    }
}

/// A state handle owned by the host; freed on drop through the plugin.
#[derive(Debug)]
pub(crate) struct RawState {
    plugin: RawPlugin,
    handle: NonNull<StateHandle>,
    /// The state's status, kept here because it only changes through `apply`
    /// and `apply_chance`, which report it: asking is then free, not a call.
    status: StatusWord,
}

/// A validated [`RawStatus`] packed into one word.
///
/// Why not a [`Status`]: `apply` stores the cached status and the caller's
/// `status()` loads it right after. Stored field by field and loaded as one
/// word, the load cannot be forwarded from the pending stores and stalls the
/// pipeline until they retire: with `Status` that made the 6-instruction
/// `status()` 5% of a Lanzeloth playout's samples (perf, cpu-clock). One
/// `u64` is stored and loaded whole.
///
/// The low two bits are the kind and the high 32 the movers; bits 2–31 are
/// ignored, so a [`RawPly`]'s word (whose bits 2–31 are the lent length) is
/// stored as it comes.
#[derive(Debug, Clone, Copy)]
struct StatusWord(u64);

impl StatusWord {
    const TERMINAL: StatusWord = StatusWord(STATUS_TERMINAL as u64);

    /// Refuses a kind this host does not know (a broken plugin).
    #[inline]
    fn checked(raw: RawStatus) -> Result<StatusWord, GameError> {
        match raw.kind {
            STATUS_TO_MOVE | STATUS_CHANCE | STATUS_TERMINAL => Ok(StatusWord(
                u64::from(raw.kind) | (u64::from(raw.movers) << 32),
            )),
            other => Err(GameError::internal(format!("unknown status kind {other}"))),
        }
    }

    /// A successful [`RawPly`]'s word: its kind is a status kind.
    #[inline]
    fn of_ply(ply: RawPly) -> StatusWord {
        StatusWord(ply.word)
    }

    #[inline]
    fn status(self) -> Status {
        match self.0 as u32 & 3 {
            STATUS_TO_MOVE => Status::ToMove(PlayerSet((self.0 >> 32) as u32)),
            STATUS_CHANCE => Status::Chance,
            _ => Status::Terminal,
        }
    }
}

// SAFETY: the ABI allows a handle to be used from any thread, one call at a
// time; `&mut self`/`&self` borrows and the host's per-match lock provide that.
unsafe impl Send for RawState {}

impl Drop for RawState {
    fn drop(&mut self) {
        (self.plugin.api.free_state)(self.handle.as_ptr());
    }
}

impl RawState {
    fn ptr(&self) -> *const StateHandle {
        self.handle.as_ptr()
    }

    pub(crate) fn clone_state(&self) -> Result<RawState, GameError> {
        let mut handle = std::ptr::null_mut();
        let mut out = PluginBuf::EMPTY;
        let code = (self.plugin.api.clone_state)(self.ptr(), &mut handle, &mut out);
        self.plugin.finish(code, &mut out)?;
        let handle = NonNull::new(handle)
            .ok_or_else(|| GameError::internal("plugin returned success but no state"))?;
        // A copy has the original's status: no need to ask.
        Ok(RawState {
            plugin: self.plugin,
            handle,
            status: self.status,
        })
    }

    /// Asks the plugin for the status, for a new handle or after a change
    /// that does not report it.
    fn refresh_status(&mut self) -> Result<(), GameError> {
        let mut raw = RawStatus::default();
        let mut out = PluginBuf::EMPTY;
        let code = (self.plugin.api.status)(self.ptr(), &mut raw, &mut out);
        self.plugin.finish(code, &mut out)?;
        self.status = StatusWord::checked(raw)?;
        Ok(())
    }

    /// The status, as last reported by the plugin.
    #[inline]
    pub(crate) fn status(&self) -> Status {
        self.status.status()
    }

    /// The chance node: lent as an array (ABI 2.3), or else parsed from JSON.
    pub(crate) fn chance(&self) -> Result<Chance, GameError> {
        let mut out = PluginBuf::EMPTY;
        if !self.plugin.has_raw_setup_and_chance {
            let code = (self.plugin.api.chance)(self.ptr(), &mut out);
            let json = self.plugin.finish_text(code, out)?;
            return serde_json::from_str(&json).map_err(|e| {
                GameError::internal(format!("plugin returned a malformed chance node: {e}"))
            });
        }
        let mut kind = u32::MAX;
        let mut lent: *const RawOutcome = std::ptr::null();
        let mut count = 0usize;
        let code = (self.plugin.api.chance_outcomes)(
            self.ptr(),
            &mut kind,
            &mut lent,
            &mut count,
            &mut out,
        );
        self.plugin.finish(code, &mut out)?;
        match kind {
            CHANCE_SAMPLED => Ok(Chance::Sampled),
            CHANCE_EXPLICIT if count == 0 => Ok(Chance::Explicit(Vec::new())),
            CHANCE_EXPLICIT if lent.is_null() => {
                Err(GameError::internal("plugin lent a null outcome array"))
            }
            CHANCE_EXPLICIT => {
                // SAFETY: on success the plugin lends `count` initialised
                // RawOutcomes at `lent`, valid until our next call on this
                // handle; we copy them out before returning.
                let outcomes = unsafe { std::slice::from_raw_parts(lent, count) };
                Ok(Chance::Explicit(
                    outcomes
                        .iter()
                        .map(|o| (o.outcome, o.probability))
                        .collect(),
                ))
            }
            other => Err(GameError::internal(format!("unknown chance kind {other}"))),
        }
    }

    pub(crate) fn results_json(&self) -> Result<String, GameError> {
        let mut out = PluginBuf::EMPTY;
        let code = (self.plugin.api.results)(self.ptr(), &mut out);
        self.plugin.finish_text(code, out)
    }

    #[inline]
    pub(crate) fn legal_actions(&self, player: u32, ids: &mut Vec<u64>) -> Result<(), GameError> {
        let mut lent: *const u64 = std::ptr::null();
        let mut count = 0usize;
        let mut out = PluginBuf::EMPTY;
        let code =
            (self.plugin.api.legal_actions)(self.ptr(), player, &mut lent, &mut count, &mut out);
        self.plugin.finish(code, &mut out)?;
        ids.clear();
        if count > 0 {
            if lent.is_null() {
                return Err(GameError::internal("plugin lent a null action array"));
            }
            // SAFETY: on success the plugin lends `count` initialised u64s at
            // `lent`, valid until our next call on this handle; we copy them
            // out before returning.
            ids.extend_from_slice(unsafe { std::slice::from_raw_parts(lent, count) });
        }
        Ok(())
    }

    /// `player`'s legal actions, lent by the plugin without a copy: the
    /// `&mut self` borrow of the answer keeps every other call on the handle
    /// away until the caller is done with it, which is exactly the lifetime
    /// the ABI gives the array.
    #[inline]
    pub(crate) fn lend_legal_actions(&mut self, player: u32) -> Result<&[u64], GameError> {
        let mut lent: *const u64 = std::ptr::null();
        let mut count = 0usize;
        let mut out = PluginBuf::EMPTY;
        let code =
            (self.plugin.api.legal_actions)(self.ptr(), player, &mut lent, &mut count, &mut out);
        self.plugin.finish(code, &mut out)?;
        // SAFETY: as in `lend`; the array stays valid until the next call on
        // this handle, which the returned borrow of `self` rules out.
        unsafe { lend(lent, count) }
    }

    /// Applies `moves` and lends the legal actions of `player` (or of the
    /// first mover, for `None`) in the new state: one call with ABI 2.5
    /// (`ply`, the answer in registers), else `apply_and_lend_legal` (2.4),
    /// else `apply` and then `legal_actions` when the new status is "to
    /// move". Returns the new status and the lent list (empty otherwise).
    #[inline]
    pub(crate) fn apply_and_lend_legal(
        &mut self,
        moves: &[Move],
        player: Option<u32>,
    ) -> Result<(Status, &[u64]), GameError> {
        if !self.plugin.has_ply {
            return self.apply_and_lend_legal_2_4(moves, player);
        }
        self.ply(moves, player)
    }

    /// Whether the plugin has `ply` (ABI 2.5), which [`RawState::ply`] needs.
    pub(crate) fn has_ply(&self) -> bool {
        self.plugin.has_ply
    }

    /// [`RawState::apply_and_lend_legal`] through `ply`, for a caller that
    /// knows the plugin has it ([`RawState::has_ply`]): the engine's
    /// `PluginState` does, by its type, and spares every ply the test. On an
    /// older plugin this calls [`ply_absent`], which fails and changes
    /// nothing.
    #[inline]
    pub(crate) fn ply(
        &mut self,
        moves: &[Move],
        player: Option<u32>,
    ) -> Result<(Status, &[u64]), GameError> {
        // Written so, rather than `unwrap_or`, it is one instruction shorter
        // (no masking of the option's tag).
        let player = if player.is_none() {
            LEND_FIRST_MOVER
        } else {
            player.unwrap_or(0)
        };
        // `Move` is the ABI's `RawMove` (#[repr(C)]): the slice is lent as it is.
        let ply = (self.plugin.ply)(self.handle.as_ptr(), moves.as_ptr(), moves.len(), player);
        // The common answer, "to move" with a list, is decoded here; the
        // rest (chance, the end, an empty list, a failure) out of line, so
        // this path tests the kind once instead of decoding it into a
        // `Status` branch by branch.
        let count = ply.len();
        if ply.kind() == STATUS_TO_MOVE && count != 0 && !ply.lent.is_null() {
            self.status = StatusWord::of_ply(ply);
            // SAFETY: on success the plugin lends `count` ids at `lent` (not
            // null), valid until the next call on this handle, which the
            // returned borrow of `self` rules out.
            let legal = unsafe { std::slice::from_raw_parts(ply.lent.cast::<u64>(), count) };
            return Ok((Status::ToMove(PlayerSet(ply.high())), legal));
        }
        self.ply_otherwise(ply)
    }

    /// Every `ply` answer but "to move" with a list: a failure, or a status
    /// that lends nothing (or a null list, which is refused).
    #[inline(never)]
    fn ply_otherwise(&mut self, ply: RawPly) -> Result<(Status, &[u64]), GameError> {
        if ply.kind() == PLY_FAILED {
            return Err(ply_error(ply));
        }
        // Every other kind is a status kind: nothing to refuse.
        self.status = StatusWord::of_ply(ply);
        // SAFETY: on success the plugin lends `len` ids at `lent`, valid
        // until the next call on this handle, which the returned borrow of
        // `self` rules out.
        let legal = unsafe { lend(ply.lent.cast(), ply.len()) }?;
        Ok((self.status.status(), legal))
    }

    /// [`RawState::apply_and_lend_legal`] for a plugin older than ABI 2.5:
    /// `apply_and_lend_legal` (2.4), or two calls before that. Kept out of
    /// line so the `ply` path stays small.
    #[cold]
    #[inline(never)]
    fn apply_and_lend_legal_2_4(
        &mut self,
        moves: &[Move],
        player: Option<u32>,
    ) -> Result<(Status, &[u64]), GameError> {
        if !self.plugin.has_apply_and_lend {
            return self.apply_then_lend_legal(moves, player);
        }
        let mut applied = RawApplied::EMPTY;
        let mut out = PluginBuf::EMPTY;
        // `Move` is the ABI's `RawMove` (#[repr(C)]): the slice is lent as it is.
        let code = (self.plugin.api.apply_and_lend_legal)(
            self.handle.as_ptr(),
            moves.as_ptr(),
            moves.len(),
            player.unwrap_or(LEND_FIRST_MOVER),
            &mut applied,
            &mut out,
        );
        self.plugin.finish(code, &mut out)?;
        self.status = StatusWord::checked(applied.status)?;
        // SAFETY: on success the plugin lends `count` ids at `ids`, valid
        // until the next call on this handle, which the returned borrow of
        // `self` rules out.
        let legal = unsafe { lend(applied.ids, applied.count) }?;
        Ok((self.status.status(), legal))
    }

    /// [`RawState::apply_and_lend_legal`] for a plugin older than ABI 2.4:
    /// two calls. Kept out of line so the one-call path stays small.
    #[cold]
    #[inline(never)]
    fn apply_then_lend_legal(
        &mut self,
        moves: &[Move],
        player: Option<u32>,
    ) -> Result<(Status, &[u64]), GameError> {
        self.apply(moves)?;
        let status = self.status();
        let Status::ToMove(movers) = status else {
            return Ok((status, &[]));
        };
        match player.or(movers.first()) {
            Some(player) => Ok((status, self.lend_legal_actions(player)?)),
            None => Ok((status, &[])),
        }
    }

    #[inline]
    pub(crate) fn apply(&mut self, moves: &[Move]) -> Result<(), GameError> {
        // `Move` is the ABI's `RawMove` (#[repr(C)]): the slice is lent as it is.
        let mut raw = RawStatus::default();
        let mut out = PluginBuf::EMPTY;
        let code = (self.plugin.api.apply)(
            self.handle.as_ptr(),
            moves.as_ptr(),
            moves.len(),
            &mut raw,
            &mut out,
        );
        self.plugin.finish(code, &mut out)?;
        self.status = StatusWord::checked(raw)?;
        Ok(())
    }

    #[inline]
    pub(crate) fn apply_chance(&mut self, outcome: u64) -> Result<(), GameError> {
        let mut raw = RawStatus::default();
        let mut out = PluginBuf::EMPTY;
        let code =
            (self.plugin.api.apply_chance)(self.handle.as_ptr(), outcome, &mut raw, &mut out);
        self.plugin.finish(code, &mut out)?;
        self.status = StatusWord::checked(raw)?;
        Ok(())
    }

    pub(crate) fn view(&self, viewer: Viewer) -> Result<String, GameError> {
        let mut out = PluginBuf::EMPTY;
        let code = (self.plugin.api.view)(self.ptr(), viewer.code(), &mut out);
        self.plugin.finish_text(code, out)
    }

    pub(crate) fn render_text(&self, viewer: Viewer) -> Result<String, GameError> {
        let mut out = PluginBuf::EMPTY;
        let code = (self.plugin.api.render_text)(self.ptr(), viewer.code(), &mut out);
        self.plugin.finish_text(code, out)
    }

    /// The event `viewer` saw; `self` is the state after, `before` the state before.
    pub(crate) fn event(
        &self,
        before: &RawState,
        transition: &Transition,
        viewer: Viewer,
    ) -> Result<String, GameError> {
        if !std::ptr::eq(before.plugin.api, self.plugin.api) {
            return Err(GameError::internal("`before` is a state of another plugin"));
        }
        let raw = match transition {
            Transition::Moves(moves) => RawTransition {
                kind: TRANSITION_MOVES,
                moves: moves.as_ptr(),
                move_count: moves.len(),
                outcome: 0,
            },
            Transition::Chance(outcome) => RawTransition {
                kind: TRANSITION_CHANCE,
                moves: std::ptr::null(),
                move_count: 0,
                outcome: *outcome,
            },
        };
        let mut out = PluginBuf::EMPTY;
        let code = (self.plugin.api.event)(before.ptr(), &raw, self.ptr(), viewer.code(), &mut out);
        self.plugin.finish_text(code, out)
    }

    pub(crate) fn position(&self) -> Result<String, GameError> {
        let mut out = PluginBuf::EMPTY;
        let code = (self.plugin.api.position)(self.ptr(), &mut out);
        self.plugin.finish_text(code, out)
    }

    pub(crate) fn action_to_string(&self, player: u32, action: u64) -> Result<String, GameError> {
        let mut out = PluginBuf::EMPTY;
        let code = (self.plugin.api.action_to_string)(self.ptr(), player, action, &mut out);
        self.plugin.finish_text(code, out)
    }

    /// The notation of each of `ids`, appended to `text`, each end offset (in
    /// `text`) pushed to `ends`: one call with ABI 2.4, else one
    /// `action_to_string` per action.
    pub(crate) fn actions_to_strings(
        &self,
        player: u32,
        ids: &[u64],
        text: &mut String,
        ends: &mut Vec<u32>,
    ) -> Result<(), GameError> {
        let too_long = || GameError::internal("the notation exceeds 4 GiB");
        if !self.plugin.has_actions_to_strings {
            for &id in ids {
                text.push_str(&self.action_to_string(player, id)?);
                ends.push(u32::try_from(text.len()).map_err(|_| too_long())?);
            }
            return Ok(());
        }
        let mut plugin_ends = vec![0u32; ids.len()];
        let mut out = PluginBuf::EMPTY;
        let code = (self.plugin.api.actions_to_strings)(
            self.ptr(),
            player,
            ids.as_ptr(),
            ids.len(),
            plugin_ends.as_mut_ptr(),
            &mut out,
        );
        let base = text.len();
        let texts = self.plugin.finish_text(code, out)?;
        // The ends must climb within the text the plugin wrote: a broken
        // plugin must not make the host slice a string out of bounds.
        let mut last = 0u32;
        for &end in &plugin_ends {
            if end < last || end as usize > texts.len() || !texts.is_char_boundary(end as usize) {
                return Err(GameError::internal(
                    "plugin returned notation ends outside its text",
                ));
            }
            last = end;
        }
        if last as usize != texts.len() {
            return Err(GameError::internal(
                "plugin returned more notation text than its ends cover",
            ));
        }
        text.push_str(&texts);
        for end in plugin_ends {
            ends.push(u32::try_from(base + end as usize).map_err(|_| too_long())?);
        }
        Ok(())
    }

    pub(crate) fn parse_action(&self, player: u32, text: &str) -> Result<u64, GameError> {
        let mut action = 0u64;
        let mut out = PluginBuf::EMPTY;
        let code = (self.plugin.api.parse_action)(
            self.ptr(),
            player,
            StrRef::new(text),
            &mut action,
            &mut out,
        );
        self.plugin.finish(code, &mut out)?;
        Ok(action)
    }

    /// The plugin's expansion of a shorthand: `None` when `text` is not one,
    /// else the JSON array of notations (parsed by the caller).
    pub(crate) fn expand_notation(
        &self,
        player: u32,
        text: &str,
    ) -> Result<Option<String>, GameError> {
        let mut out = PluginBuf::EMPTY;
        let code =
            (self.plugin.api.expand_notation)(self.ptr(), player, StrRef::new(text), &mut out);
        if code == CODE_OK && out.ptr.is_null() {
            return Ok(None);
        }
        self.plugin.finish_text(code, out).map(Some)
    }

    /// Takes `player` out of the game (ABI 2.2). A plugin whose table is too
    /// short is refused here, without a call.
    pub(crate) fn remove_player(&mut self, player: u32) -> Result<(), GameError> {
        if !self.plugin.has_remove_player {
            return Err(GameError::unsupported(
                "the plugin was built before ABI 2.2 and cannot remove a player",
            ));
        }
        let mut out = PluginBuf::EMPTY;
        let code = (self.plugin.api.remove_player)(self.handle.as_ptr(), player, &mut out);
        self.plugin.finish(code, &mut out)?;
        // Removal changes the state without reporting a status: ask once.
        self.refresh_status()
    }

    pub(crate) fn resample(&self, viewer: Viewer, random: u64) -> Result<RawState, GameError> {
        let mut handle = std::ptr::null_mut();
        let mut out = PluginBuf::EMPTY;
        let code =
            (self.plugin.api.resample)(self.ptr(), viewer.code(), random, &mut handle, &mut out);
        self.plugin.finish(code, &mut out)?;
        self.plugin.wrap(handle)
    }
}

/// The `count` ids a plugin lent at `ids` as a slice: empty when `count` is 0
/// (the pointer may then dangle), refused when a non-empty list is null.
///
/// # Safety
/// When `count > 0` and `ids` is not null, `ids` must point to `count`
/// initialised `u64`s that stay valid and unchanged for `'a`.
#[inline]
unsafe fn lend<'a>(ids: *const u64, count: usize) -> Result<&'a [u64], GameError> {
    if count == 0 {
        return Ok(&[]);
    }
    if ids.is_null() {
        return Err(GameError::internal("plugin lent a null action array"));
    }
    // SAFETY: the caller guarantees `count` valid ids at the non-null `ids`
    // for `'a`.
    Ok(unsafe { std::slice::from_raw_parts(ids, count) })
}

/// The error a failed [`RawPly`] reports: its code and a copy of the
/// message it lends (valid until the next call on the handle).
#[cold]
#[inline(never)]
fn ply_error(ply: RawPly) -> GameError {
    let message = if ply.is_empty() || ply.lent.is_null() {
        String::from("plugin reported a failure without a message")
    } else {
        // SAFETY: a failed ply lends `len` bytes of message at `lent`, valid
        // until the next call on the handle; they are copied here at once.
        let bytes = unsafe { std::slice::from_raw_parts(ply.lent.cast::<u8>(), ply.len()) };
        String::from_utf8_lossy(bytes).into_owned()
    };
    let code = ply.high() as i32;
    if code == CODE_OK {
        return GameError::internal(format!("plugin failed with code 0: {message}"));
    }
    GameError::new(ErrorKind::from_code(code), message)
}

/// The bytes of a string the plugin lends to a callback.
pub(crate) fn borrowed_bytes<'a>(text: StrRef) -> &'a [u8] {
    if text.ptr.is_null() {
        return &[];
    }
    // SAFETY: the plugin lends `len` readable bytes for the duration of the
    // callback, and the caller copies them before returning.
    unsafe { std::slice::from_raw_parts(text.ptr, text.len) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fixture game's exported table (one game crate only: each defines
    /// the entry symbol, so two cannot link into one test binary), claiming
    /// `size` bytes (default: all of them), adopted as the loader adopts a
    /// loaded plugin's table.
    fn adopted(size: Option<usize>) -> Result<(&'static PluginApi, &'static PluginApi), LoadError> {
        let mut table = tabletop_sdk::export::plugin_api::<versioned_fixture::Counter>();
        if let Some(size) = size {
            table.size = size;
        }
        let table: &'static PluginApi = Box::leak(Box::new(table));
        // SAFETY: a static, complete table of this ABI: at least `size` bytes
        // are readable whatever `size` we claim (never more than the real one).
        let api = unsafe { adopt(NonNull::from(table), table.size) }?;
        Ok((table, api))
    }

    /// The fixture's options with a roll after every action, so matches
    /// meet explicit chance nodes.
    fn dice(length: Option<u32>) -> BTreeMap<String, String> {
        let mut options: BTreeMap<String, String> = [("dice".into(), "true".into())].into();
        if let Some(length) = length {
            options.insert("length".into(), length.to_string());
        }
        options
    }

    fn expand(api: &'static PluginApi, text: &str) -> Option<String> {
        let plugin = RawPlugin::with_table(api, api.size);
        let state = plugin.new_state(2, &BTreeMap::new(), None).unwrap();
        state.expand_notation(0, text).unwrap()
    }

    #[test]
    fn a_full_table_is_used_in_place() {
        let (table, api) = adopted(None).unwrap();
        assert!(std::ptr::eq(table, api));
        // The plugin's own functions, not the fallbacks (War's shorthand
        // crossing the ABI is tested in plugins/war/tests through the cdylib).
        assert!(!std::ptr::fn_addr_eq(
            api.expand_notation,
            no_expansion as extern "C" fn(*const StateHandle, u32, StrRef, *mut PluginBuf) -> i32
        ));
        assert!(!std::ptr::fn_addr_eq(
            api.remove_player,
            remove_player_absent as extern "C" fn(*mut StateHandle, u32, *mut PluginBuf) -> i32
        ));
        assert_eq!(expand(api, "tick"), None, "the fixture has no shorthands");
    }

    #[test]
    fn a_2_0_table_is_copied_and_expands_nothing() {
        let (table, api) = adopted(Some(SIZE_2_0)).unwrap();
        assert!(!std::ptr::eq(table, api), "a shorter table is copied");
        assert_eq!(api.size, SIZE_2_0);
        // The 2.0 functions are the plugin's own; the appended one falls back.
        assert!(std::ptr::fn_addr_eq(api.parse_action, table.parse_action));
        assert_eq!(expand(api, "tick"), None);
        assert!(std::ptr::fn_addr_eq(
            api.remove_player,
            remove_player_absent as extern "C" fn(*mut StateHandle, u32, *mut PluginBuf) -> i32
        ));
        // A size that cuts the appended field falls back too.
        let (_, api) = adopted(Some(SIZE_2_0 + 4)).unwrap();
        assert_eq!(expand(api, "tick"), None);
    }

    /// Plays one fixture match (moves picked and chance drawn from `seed`) on
    /// `plugin`, returning every chance node met and the final position text.
    fn chance_nodes_of_a_match(
        plugin: RawPlugin,
        options: &BTreeMap<String, String>,
        seed: u64,
    ) -> (Vec<Chance>, String) {
        let mut state = plugin.new_state(2, options, None).unwrap();
        let mut nodes = Vec::new();
        let mut legal = Vec::new();
        let mut pick = seed;
        loop {
            match state.status() {
                Status::Terminal => return (nodes, state.position().unwrap()),
                Status::Chance => {
                    let node = state.chance().unwrap();
                    let outcome =
                        tabletop_sdk::chance::draw(&node, seed, nodes.len() as u64).unwrap();
                    nodes.push(node);
                    state.apply_chance(outcome).unwrap();
                }
                Status::ToMove(movers) => {
                    let mut joint = Vec::new();
                    for player in movers.iter() {
                        state.legal_actions(player, &mut legal).unwrap();
                        pick = pick.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                        joint.push(Move {
                            player,
                            action: legal[(pick >> 33) as usize % legal.len()],
                        });
                    }
                    state.apply(&joint).unwrap();
                }
            }
        }
    }

    #[test]
    fn a_2_2_table_is_copied_and_sets_up_and_draws_through_json() {
        let raw_at = std::mem::offset_of!(PluginApi, new_state_raw);
        let (full_table, full_api) = adopted(None).unwrap();
        let (table, api) = adopted(Some(raw_at)).unwrap();
        assert!(!std::ptr::eq(table, api), "a shorter table is copied");
        assert!(std::ptr::fn_addr_eq(api.remove_player, table.remove_player));
        assert!(std::ptr::fn_addr_eq(
            api.new_state_raw,
            new_state_raw_absent as tabletop_sdk::abi::NewStateRawFn
        ));
        assert!(std::ptr::fn_addr_eq(
            api.chance_outcomes,
            chance_outcomes_absent as tabletop_sdk::abi::ChanceOutcomesFn
        ));
        let old = RawPlugin::with_table(api, api.size);
        assert!(!old.has_raw_setup_and_chance && old.has_remove_player);
        let new = RawPlugin::with_table(full_api, full_table.size);
        assert!(new.has_raw_setup_and_chance);
        // A size that cuts `chance_outcomes` falls back for both functions.
        let after_chance = std::mem::offset_of!(PluginApi, apply_and_lend_legal);
        let cut = RawPlugin::with_table(full_api, after_chance - 4);
        assert!(!cut.has_raw_setup_and_chance);

        // The JSON fallback and the arrays agree on setups, every chance node
        // (sampled and explicit) and so on the whole match.
        let (long, short) = (dice(None), dice(Some(6)));
        let mut explicit = 0;
        for seed in 1..=8 {
            for options in [&long, &short] {
                let through_json = chance_nodes_of_a_match(old, options, seed);
                assert_eq!(through_json, chance_nodes_of_a_match(new, options, seed));
                explicit += through_json
                    .0
                    .iter()
                    .filter(|n| matches!(n, Chance::Explicit(_)))
                    .count();
            }
        }
        assert!(explicit > 0, "the matches met an explicit chance node");

        // Bad setups are refused alike.
        let unknown: BTreeMap<String, String> = [("speed".into(), "1".into())].into();
        for (players, options) in [(2, &unknown), (9, &BTreeMap::new())] {
            let through_json = old.new_state(players, options, None).unwrap_err();
            let through_arrays = new.new_state(players, options, None).unwrap_err();
            assert_eq!(through_json.kind, through_arrays.kind);
            assert_eq!(through_json.message, through_arrays.message);
        }
    }

    /// Plays one fixture match on `plugin` with `apply_and_lend_legal` (the
    /// first mover picks from the lent list, the others from
    /// `lend_legal_actions`), checking every lent list against the copying
    /// `legal_actions`; returns every (status, lent list) after a ply and the
    /// final position text.
    fn lent_lists_of_a_match(
        plugin: RawPlugin,
        players: u32,
        seed: u64,
    ) -> (Vec<(Status, Vec<u64>)>, String) {
        let mut state = plugin.new_state(players, &dice(None), None).unwrap();
        let mut seen = Vec::new();
        let mut copied = Vec::new();
        let mut pick = seed;
        let mut next = |legal: &[u64]| {
            pick = pick.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            legal[(pick >> 33) as usize % legal.len()]
        };
        let mut first = None;
        let mut draws = 0;
        loop {
            match state.status() {
                Status::Terminal => return (seen, state.position().unwrap()),
                Status::Chance => {
                    let node = state.chance().unwrap();
                    let outcome = tabletop_sdk::chance::draw(&node, seed, draws).unwrap();
                    draws += 1;
                    state.apply_chance(outcome).unwrap();
                }
                Status::ToMove(movers) => {
                    let mut joint = Vec::new();
                    for player in movers.iter() {
                        let action = match first.take() {
                            Some(action) => action,
                            None => {
                                state.legal_actions(player, &mut copied).unwrap();
                                let lent = state.lend_legal_actions(player).unwrap();
                                assert_eq!(lent, copied.as_slice());
                                next(lent)
                            }
                        };
                        joint.push(Move { player, action });
                    }
                    let (status, lent) = state.apply_and_lend_legal(&joint, None).unwrap();
                    let lent = lent.to_vec();
                    assert_eq!(status, state.status());
                    if let Status::ToMove(movers) = status {
                        state
                            .legal_actions(movers.first().unwrap(), &mut copied)
                            .unwrap();
                        assert_eq!(lent, copied, "the first mover's list is lent");
                        first = Some(next(&lent));
                    } else {
                        assert!(lent.is_empty());
                    }
                    seen.push((status, lent));
                }
            }
        }
    }

    #[test]
    fn a_2_3_table_is_copied_and_applies_then_lends_in_two_calls() {
        let at = std::mem::offset_of!(PluginApi, apply_and_lend_legal);
        let (full_table, full_api) = adopted(None).unwrap();
        let (table, api) = adopted(Some(at)).unwrap();
        assert!(!std::ptr::eq(table, api), "a shorter table is copied");
        assert!(std::ptr::fn_addr_eq(
            api.chance_outcomes,
            table.chance_outcomes
        ));
        assert!(std::ptr::fn_addr_eq(
            api.apply_and_lend_legal,
            apply_and_lend_legal_absent as tabletop_sdk::abi::ApplyAndLendLegalFn
        ));
        let old = RawPlugin::with_table(api, api.size);
        assert!(!old.has_apply_and_lend && old.has_raw_setup_and_chance);
        let new = RawPlugin::with_table(full_api, full_table.size);
        assert!(new.has_apply_and_lend);
        // A size that cuts the field falls back too.
        let next = std::mem::offset_of!(PluginApi, actions_to_strings);
        let cut = RawPlugin::with_table(full_api, next - 4);
        assert!(!cut.has_apply_and_lend);
        assert!(!old.has_actions_to_strings && new.has_actions_to_strings);

        // One call and the two-call fallback lend the same lists, every ply,
        // with simultaneous turns (several movers) and chance nodes.
        let mut plies = 0;
        for players in [2, 4] {
            for seed in 1..=6 {
                let fallback = lent_lists_of_a_match(old, players, seed);
                assert_eq!(fallback, lent_lists_of_a_match(new, players, seed));
                plies += fallback.0.len();
            }
        }
        assert!(plies > 50, "the matches were played ({plies} plies)");

        // A named seat is lent its own list; a refused move lends nothing
        // and leaves the state alone.
        let mut state = new.new_state(2, &BTreeMap::new(), None).unwrap();
        while state.status() == Status::Chance {
            let node = state.chance().unwrap();
            let outcome = tabletop_sdk::chance::draw(&node, 1, 0).unwrap();
            state.apply_chance(outcome).unwrap();
        }
        let before = state.position().unwrap();
        let refused = state
            .apply_and_lend_legal(
                &[Move {
                    player: 0,
                    action: u64::MAX,
                }],
                Some(1),
            )
            .unwrap_err();
        assert!(!refused.kind.is_fault(), "{refused:?}");
        assert_eq!(state.position().unwrap(), before);
        let Status::ToMove(movers) = state.status() else {
            panic!("the first turn is to move");
        };
        let mut legal = Vec::new();
        let joint: Vec<Move> = movers
            .iter()
            .map(|player| {
                state.legal_actions(player, &mut legal).unwrap();
                Move {
                    player,
                    action: legal[0],
                }
            })
            .collect();
        let (status, lent) = state.apply_and_lend_legal(&joint, Some(1)).unwrap();
        let lent = lent.to_vec();
        assert!(
            matches!(status, Status::ToMove(m) if m.contains(1)),
            "{status:?}"
        );
        state.legal_actions(1, &mut legal).unwrap();
        assert_eq!(lent, legal, "seat 1's list, not the first mover's");

        // The notation of a whole list: one call (2.4), or one call per
        // action (the fallback), the same text and ends, appended after what
        // the caller's buffer held.
        let old_state = old.new_state(2, &BTreeMap::new(), Some(&state.position().unwrap()));
        let old_state = old_state.unwrap();
        for (plugin_state, batched) in [(&state, true), (&old_state, false)] {
            assert_eq!(plugin_state.plugin.has_actions_to_strings, batched);
            let mut text = String::from("x");
            let mut ends = vec![1];
            plugin_state
                .actions_to_strings(1, &legal, &mut text, &mut ends)
                .unwrap();
            let mut expected = String::from("x");
            let mut expected_ends = vec![1];
            for &id in &legal {
                expected.push_str(&plugin_state.action_to_string(1, id).unwrap());
                expected_ends.push(expected.len() as u32);
            }
            assert_eq!((text, ends), (expected, expected_ends));
        }
        let unknown = state.actions_to_strings(1, &[u64::MAX], &mut String::new(), &mut Vec::new());
        assert!(unknown.is_err(), "an unknown id is refused");
    }

    #[test]
    fn a_2_4_table_is_copied_and_plies_through_apply_and_lend_legal() {
        let at = std::mem::offset_of!(PluginApi, ply);
        let (full_table, full_api) = adopted(None).unwrap();
        let (table, api) = adopted(Some(at)).unwrap();
        assert!(!std::ptr::eq(table, api), "a shorter table is copied");
        assert!(std::ptr::fn_addr_eq(
            api.apply_and_lend_legal,
            table.apply_and_lend_legal
        ));
        assert!(std::ptr::fn_addr_eq(
            api.ply,
            ply_absent as tabletop_sdk::abi::PlyFn
        ));
        let old = RawPlugin::with_table(api, api.size);
        assert!(!old.has_ply && old.has_apply_and_lend);
        let new = RawPlugin::with_table(full_api, full_table.size);
        assert!(new.has_ply);
        // A size that cuts the field falls back too.
        let cut = RawPlugin::with_table(full_api, std::mem::size_of::<PluginApi>() - 4);
        assert!(!cut.has_ply && cut.has_apply_and_lend);

        // `ply` and 2.4's `apply_and_lend_legal` lend the same lists, every
        // ply, with simultaneous turns and chance nodes.
        let mut plies = 0;
        for players in [2, 4] {
            for seed in 1..=6 {
                let through_2_4 = lent_lists_of_a_match(old, players, seed);
                assert_eq!(through_2_4, lent_lists_of_a_match(new, players, seed));
                plies += through_2_4.0.len();
            }
        }
        assert!(plies > 50, "the matches were played ({plies} plies)");

        // A refused move: the same error both ways (the message lent by
        // `ply`, written to a buffer by 2.4), and the state unchanged.
        let mut refusals = Vec::new();
        for plugin in [old, new] {
            let mut state = plugin.new_state(2, &BTreeMap::new(), None).unwrap();
            while state.status() == Status::Chance {
                let node = state.chance().unwrap();
                let outcome = tabletop_sdk::chance::draw(&node, 1, 0).unwrap();
                state.apply_chance(outcome).unwrap();
            }
            let before = state.position().unwrap();
            let wrong = Move {
                player: 0,
                action: u64::MAX,
            };
            let refused = state.apply_and_lend_legal(&[wrong], None).unwrap_err();
            assert!(!refused.kind.is_fault(), "{refused:?}");
            assert!(!refused.message.is_empty());
            assert_eq!(state.position().unwrap(), before);
            refusals.push((refused.kind, refused.message));
        }
        assert_eq!(refusals[0], refusals[1]);
    }

    #[test]
    fn a_failed_ply_is_read_as_an_error_and_never_trusted() {
        let message = "no such move";
        let refused = ply_error(RawPly::failed(ErrorKind::IllegalAction as i32, message));
        assert_eq!(refused.kind, ErrorKind::IllegalAction);
        assert_eq!(refused.message, message);
        // Code 0 is success, not an error kind: a broken plugin.
        let zero = ply_error(RawPly::failed(CODE_OK, message));
        assert_eq!(zero.kind, ErrorKind::Internal);
        // No message, or a null one.
        let bare = RawPly {
            lent: std::ptr::null(),
            ..RawPly::failed(ErrorKind::Panic as i32, "lost!")
        };
        let bare = ply_error(bare);
        assert_eq!(bare.kind, ErrorKind::Panic);
        assert!(bare.message.contains("without a message"));
        // Bytes that are not UTF-8 are read lossily.
        let bytes = [b'a', 0xff, b'b'];
        let lossy = RawPly {
            lent: bytes.as_ptr().cast(),
            ..RawPly::failed(ErrorKind::Internal as i32, "abc")
        };
        assert_eq!(ply_error(lossy).message, "a\u{fffd}b");
    }

    #[test]
    fn a_table_shorter_than_2_0_is_refused() {
        let refused = adopted(Some(SIZE_2_0 - 8)).unwrap_err();
        assert!(
            matches!(&refused, LoadError::Incompatible(m) if m.contains("ABI 2.0 needs")),
            "{refused:?}"
        );
    }
}
