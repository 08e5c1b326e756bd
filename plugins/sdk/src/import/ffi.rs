//! Every `unsafe` operation of the import side lives here: opening a
//! library, looking up its symbols, and crossing the C ABI of [`crate::abi`].
//! Its length is on purpose: the core table's crossings stay in one file to be
//! reviewed together (each extension's crossings have a file of their own).
//! The rest of the import side sees only the safe [`Library`], [`RawPlugin`]
//! and [`RawState`].
//!
//! Every call into a plugin is an `unsafe` block whose `// SAFETY:` comment
//! names the ABI rule it keeps. Two invariants carry most of them:
//! - a [`RawPlugin`]'s tables are a loaded plugin's static tables, whose
//!   functions keep the ABI's conventions (that is what loading a plugin
//!   trusts; engine-host vets a file in a child process before it loads it);
//! - a [`RawState`] owns a live handle of its plugin, and Rust's borrows make
//!   calls on it one at a time (`&mut self` for changes and lent answers).
//!
//! Libraries are never unloaded: `dlclose` is unsound with Rust thread-locals,
//! and a state handle must never outlive its code. The loaded tables are
//! therefore `'static`.

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::path::Path;
use std::ptr::NonNull;

use crate::abi::{
    ABI_MAJOR, ActionTargetsExt, CHANCE_EXPLICIT, CHANCE_SAMPLED, CODE_OK, ENTRY_SYMBOL,
    EXT_ACTION_TARGETS, EXT_EVALUATE, EXT_EXPAND_NOTATION, EXT_EXPLAIN_REFUSAL, EXT_REMOVE_PLAYER,
    EXT_RESAMPLE, EXT_SEAT_NAMES, EXT_SEATS_OUT, EXT_SVG_BOARD, EntryFn, EvaluateExt,
    ExpandNotationExt, ExplainRefusalExt, LEND_FIRST_MOVER, LEND_NOTHING, LogFn, PLY_FAILED,
    PluginApi, PluginBuf, RawMove, RawOption, RawOutcome, RawPly, RawStatus, RawTransition,
    RemovePlayerExt, ResampleExt, STATUS_CHANCE, STATUS_TERMINAL, STATUS_TO_MOVE, SeatNamesExt,
    SeatsOutExt, StateHandle, StrRef, SvgBoardExt, TRANSITION_CHANCE, TRANSITION_MOVES,
};
use crate::fingerprint::{BuildFingerprint, FINGERPRINT_SYMBOL, FingerprintFn};
use crate::{Chance, ErrorKind, GameError, Move, PlayerSet, Status, Transition, Viewer};

use super::ImportError;

/// The type of [`PluginApi::ply`].
type PlyFn = unsafe extern "C" fn(
    state: *mut StateHandle,
    moves: *const RawMove,
    count: usize,
    lend: u32,
) -> RawPly;

/// An opened plugin: its core table and the extensions the host uses.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawPlugin {
    api: &'static PluginApi,
    /// `api.ply`, kept beside the table pointer so a ply's call loads one
    /// pointer instead of two (the table's address, then the function's):
    /// the hot path of every playout.
    ply: PlyFn,
    remove_player: Option<&'static RemovePlayerExt>,
    expand_notation: Option<&'static ExpandNotationExt>,
    resample: Option<&'static ResampleExt>,
    seats_out: Option<&'static SeatsOutExt>,
    seat_names: Option<&'static SeatNamesExt>,
    explain_refusal: Option<&'static ExplainRefusalExt>,
    evaluate: Option<&'static EvaluateExt>,
    svg_board: Option<&'static SvgBoardExt>,
    action_targets: Option<&'static ActionTargetsExt>,
}

/// A library opened for good: never closed (see the module docs), so what
/// it lends may live as long as the process.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Library(&'static libloading::Library);

impl Library {
    /// Opens the library at `path`, which runs its initialisers.
    pub(crate) fn open(path: &Path) -> Result<Library, ImportError> {
        // SAFETY: loading a library runs its initialisers. What is opened is
        // the caller's choice of code to trust (`ImportedGame::open` says so):
        // engine-host opens only files from its plugin directory or an admin
        // request that passed its vetting child process, each from a private,
        // content-addressed copy that cannot change under the loader; the
        // conformance kit opens the file its own build just made.
        let library = unsafe { libloading::Library::new(path) }.map_err(|e| {
            let detail = std::error::Error::source(&e)
                .map(|s| format!(": {s}"))
                .unwrap_or_default();
            ImportError::Open(format!("{e}{detail}"))
        })?;
        Ok(Library(Box::leak(Box::new(library))))
    }

    /// The plugin's table, once its entry symbol and ABI version check out.
    pub(crate) fn plugin(self) -> Result<RawPlugin, ImportError> {
        // SAFETY: `EntryFn` is the documented signature of ENTRY_SYMBOL in every
        // Tabletop plugin. A foreign library that happens to export the name with
        // another signature is outside what any loader can detect.
        let entry = unsafe { self.0.get::<EntryFn>(ENTRY_SYMBOL.as_bytes()) }
            .map_err(|_| ImportError::NotAPlugin)?;
        // SAFETY: the entry takes no arguments and returns a pointer to a
        // static table (or null); it cannot unwind.
        let table = unsafe { entry() };
        let table = NonNull::new(table.cast_mut())
            .ok_or_else(|| ImportError::Incompatible("the entry returned no table".into()))?;
        // SAFETY: the entry of a Tabletop plugin returns a static table that
        // starts with the version header in every ABI version.
        unsafe { RawPlugin::adopt(table) }
    }

    /// The build fingerprint `export_game!` exports; `None` for a library
    /// without one (a plugin written without the SDK).
    pub(crate) fn build_fingerprint(self) -> Option<BuildFingerprint> {
        // SAFETY: `FingerprintFn` is the signature of FINGERPRINT_SYMBOL that
        // `export_game!` writes; as for the entry, a foreign library exporting
        // the name with another signature cannot be detected.
        let fingerprint =
            unsafe { self.0.get::<FingerprintFn>(FINGERPRINT_SYMBOL.as_bytes()) }.ok()?;
        // SAFETY: the function takes nothing and cannot unwind; the name it
        // returns is a static string of the library, which is never unloaded,
        // and is copied at once.
        Some(unsafe { BuildFingerprint::from_raw(fingerprint()) })
    }
}

impl RawPlugin {
    /// Takes a plugin's table for the host's use: checks its version and size,
    /// then looks up the extensions the host calls.
    ///
    /// # Safety
    /// `table` must point to a static table that starts with the ABI's version
    /// header (`abi_major`, `abi_minor`, `size`) and, if that header says ABI
    /// 3 and a size of at least a [`PluginApi`], is a whole [`PluginApi`]
    /// whose functions keep the ABI's conventions.
    pub(crate) unsafe fn adopt(table: NonNull<PluginApi>) -> Result<RawPlugin, ImportError> {
        // SAFETY: the header is three plain fields at the start of every
        // version's table (the caller's guarantee); the function pointers
        // are read only after the checks below.
        let (major, minor, size) = unsafe {
            let header = table.as_ptr();
            ((*header).abi_major, (*header).abi_minor, (*header).size)
        };
        if major != ABI_MAJOR {
            return Err(ImportError::Incompatible(format!(
                "the plugin speaks ABI {major}.{minor} and this host speaks ABI {ABI_MAJOR}.x; \
                 rebuild it with tabletop-sdk {ABI_MAJOR}"
            )));
        }
        if size < std::mem::size_of::<PluginApi>() {
            return Err(ImportError::Incompatible(format!(
                "the plugin's ABI {major}.{minor} table has {size} bytes, fewer than the {} \
                 of ABI {ABI_MAJOR}.0",
                std::mem::size_of::<PluginApi>()
            )));
        }
        // A null function pointer is not a valid Rust `fn`: the words are
        // read as integers before the table is taken as a `PluginApi`.
        // SAFETY: the table is static and at least our size (checked above).
        if let Some(name) = unsafe { first_null(table.as_ptr().cast(), CORE_FUNCTIONS) } {
            return Err(ImportError::Incompatible(format!(
                "the plugin's table has no `{name}` (a null function)"
            )));
        }
        // SAFETY: a static table of this major version and at least our size,
        // every function pointer non-null (checked above): every field holds
        // a valid value of the documented type.
        let api: &'static PluginApi = unsafe { &*table.as_ptr() };
        // SAFETY: each extension id is only ever answered with a static table
        // of the type the ABI documents for that id (or null).
        unsafe {
            Ok(RawPlugin {
                api,
                ply: api.ply,
                remove_player: extension(api, EXT_REMOVE_PLAYER, &["remove_player"])?,
                expand_notation: extension(api, EXT_EXPAND_NOTATION, &["expand_notation"])?,
                resample: extension(api, EXT_RESAMPLE, &["resample"])?,
                seats_out: extension(api, EXT_SEATS_OUT, &["seats_out"])?,
                seat_names: extension(api, EXT_SEAT_NAMES, &["seat_names"])?,
                explain_refusal: extension(
                    api,
                    EXT_EXPLAIN_REFUSAL,
                    &["explain_action", "explain_notation", "action_space"],
                )?,
                evaluate: extension(api, EXT_EVALUATE, &["evaluate"])?,
                svg_board: extension(api, EXT_SVG_BOARD, &["render_svg"])?,
                action_targets: extension(api, EXT_ACTION_TARGETS, &["action_targets"])?,
            })
        }
    }

    /// Whether the plugin offers the remove-player extension.
    pub(crate) fn has_remove_player(&self) -> bool {
        self.remove_player.is_some()
    }

    /// The ids of the extensions the plugin offers, of those the host uses.
    pub(crate) fn extension_ids(&self) -> Vec<&'static str> {
        [
            (self.remove_player.is_some(), EXT_REMOVE_PLAYER),
            (self.expand_notation.is_some(), EXT_EXPAND_NOTATION),
            (self.resample.is_some(), EXT_RESAMPLE),
            (self.seats_out.is_some(), EXT_SEATS_OUT),
            (self.seat_names.is_some(), EXT_SEAT_NAMES),
            (self.explain_refusal.is_some(), EXT_EXPLAIN_REFUSAL),
            (self.evaluate.is_some(), EXT_EVALUATE),
            (self.svg_board.is_some(), EXT_SVG_BOARD),
            (self.action_targets.is_some(), EXT_ACTION_TARGETS),
        ]
        .into_iter()
        .filter_map(|(offered, id)| offered.then_some(id))
        .collect()
    }

    /// The manifest JSON.
    pub(crate) fn manifest_json(&self) -> Result<String, GameError> {
        let mut out = PluginBuf::EMPTY;
        // SAFETY: `out` is a writable, empty buffer the call may fill.
        let code = unsafe { (self.api.manifest)(&mut out) };
        self.finish_text(code, out)
    }

    /// Installs a log sink.
    fn set_logger(&self, logger: LogFn) {
        // SAFETY: `logger` is callable from any thread and never unwinds, as
        // the ABI asks of a sink.
        unsafe { (self.api.set_logger)(Some(logger)) };
    }

    /// A new state for `players` with raw `options` (and a position text, if
    /// any), with its status, in one call.
    pub(crate) fn new_state(
        &self,
        players: u32,
        options: &BTreeMap<String, String>,
        position: Option<&str>,
    ) -> Result<RawState, GameError> {
        let position = position.map_or(StrRef::NULL, StrRef::new);
        let options: Vec<RawOption> = options
            .iter()
            .map(|(name, value)| RawOption {
                name: StrRef::new(name),
                value: StrRef::new(value),
            })
            .collect();
        let mut handle: *mut StateHandle = std::ptr::null_mut();
        let mut raw = RawStatus::default();
        let mut out = PluginBuf::EMPTY;
        // SAFETY: the options and position are lent for the call and outlive
        // it; the three out-pointers are writable locals.
        let code = unsafe {
            (self.api.new_state)(
                players,
                options.as_ptr(),
                options.len(),
                position,
                &mut handle,
                &mut raw,
                &mut out,
            )
        };
        self.finish(code, &mut out)?;
        let mut state = self.own(handle)?;
        // Decoded only once the handle is owned, so a bad status frees it.
        state.status = StatusWord::checked(raw)?;
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
        // SAFETY: the buffer came from this plugin and is released once; the
        // bytes were copied above.
        unsafe { (self.api.free_buf)(buf) };
        text
    }

    /// The result of a call that returns no text: on the common path
    /// (success, untouched `out`) one comparison, so it is inlined. `out` is
    /// read in place: taking it by value copied it to another stack slot on
    /// every call.
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

/// The core table's function pointers by name and offset.
const CORE_FUNCTIONS: &[(&str, usize)] = &[
    ("free_buf", std::mem::offset_of!(PluginApi, free_buf)),
    ("set_logger", std::mem::offset_of!(PluginApi, set_logger)),
    ("manifest", std::mem::offset_of!(PluginApi, manifest)),
    (
        "get_extension",
        std::mem::offset_of!(PluginApi, get_extension),
    ),
    ("new_state", std::mem::offset_of!(PluginApi, new_state)),
    ("clone_state", std::mem::offset_of!(PluginApi, clone_state)),
    ("free_state", std::mem::offset_of!(PluginApi, free_state)),
    ("status", std::mem::offset_of!(PluginApi, status)),
    (
        "chance_outcomes",
        std::mem::offset_of!(PluginApi, chance_outcomes),
    ),
    ("results", std::mem::offset_of!(PluginApi, results)),
    (
        "legal_actions",
        std::mem::offset_of!(PluginApi, legal_actions),
    ),
    ("ply", std::mem::offset_of!(PluginApi, ply)),
    (
        "apply_chance",
        std::mem::offset_of!(PluginApi, apply_chance),
    ),
    ("view", std::mem::offset_of!(PluginApi, view)),
    ("render_text", std::mem::offset_of!(PluginApi, render_text)),
    ("event", std::mem::offset_of!(PluginApi, event)),
    ("position", std::mem::offset_of!(PluginApi, position)),
    (
        "actions_to_strings",
        std::mem::offset_of!(PluginApi, actions_to_strings),
    ),
    (
        "parse_action",
        std::mem::offset_of!(PluginApi, parse_action),
    ),
];

/// The name of the first of `functions` (name and byte offset) whose
/// pointer in the table at `table` is null.
///
/// # Safety
/// `table` points to readable memory covering every offset given, plus a
/// pointer's size.
unsafe fn first_null(
    table: *const u8,
    functions: &[(&'static str, usize)],
) -> Option<&'static str> {
    functions.iter().find_map(|&(name, offset)| {
        // SAFETY: the caller's guarantee; the word is read as an integer, so
        // a null one is not taken for a function.
        let word = unsafe { table.add(offset).cast::<usize>().read_unaligned() };
        (word == 0).then_some(name)
    })
}

/// The extension table `api` answers for `id`, if it offers one. `functions`
/// names the table's function pointers in order (each extension table is
/// only function pointers); one that is null refuses the plugin.
///
/// # Safety
/// `api` is a loaded plugin's table, which answers `id` only with a static
/// table of type `T` (the type the ABI documents for `id`), or null.
unsafe fn extension<T>(
    api: &'static PluginApi,
    id: &str,
    functions: &[&'static str],
) -> Result<Option<&'static T>, ImportError> {
    // SAFETY: the id is lent for the call; `get_extension` never fails.
    let table: *const c_void = unsafe { (api.get_extension)(StrRef::new(id)) };
    if table.is_null() {
        return Ok(None);
    }
    let offsets: Vec<(&'static str, usize)> = functions
        .iter()
        .enumerate()
        .map(|(i, &name)| (name, i * std::mem::size_of::<usize>()))
        .collect();
    // SAFETY: a static `T` of `functions.len()` pointers (the caller's
    // guarantee).
    if let Some(name) = unsafe { first_null(table.cast(), &offsets) } {
        return Err(ImportError::Incompatible(format!(
            "the plugin's extension {id} has no `{name}` (a null function)"
        )));
    }
    // SAFETY: a static `T` whose function pointers are all non-null.
    Ok(unsafe { table.cast::<T>().as_ref() })
}

/// A state handle owned by the host; freed on drop through the plugin.
#[derive(Debug)]
pub(crate) struct RawState {
    plugin: RawPlugin,
    handle: NonNull<StateHandle>,
    /// The state's status, kept here because it only changes through calls
    /// that report it: asking is then free, not a call.
    status: StatusWord,
}

/// A validated [`RawStatus`] packed into one word.
///
/// Why not a [`Status`]: a ply stores the cached status and the caller's
/// `status()` loads it right after. Stored field by field and loaded as one
/// word, the load cannot be forwarded from the pending stores and stalls the
/// pipeline until they retire. One `u64` is stored and loaded whole.
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
        // SAFETY: the handle is live and owned by this value, which gives it
        // up here exactly once; nothing lent from it outlives `self`.
        unsafe { (self.plugin.api.free_state)(self.handle.as_ptr()) };
    }
}

impl RawState {
    fn ptr(&self) -> *const StateHandle {
        self.handle.as_ptr()
    }

    /// The status, as last reported by the plugin.
    #[inline]
    pub(crate) fn status(&self) -> Status {
        self.status.status()
    }

    pub(crate) fn clone_state(&self) -> Result<RawState, GameError> {
        let mut handle = std::ptr::null_mut();
        let mut out = PluginBuf::EMPTY;
        // SAFETY: a live handle of this plugin, read only, under `&self`;
        // writable out-pointers.
        let code = unsafe { (self.plugin.api.clone_state)(self.ptr(), &mut handle, &mut out) };
        self.plugin.finish(code, &mut out)?;
        let mut copy = self.plugin.own(handle)?;
        // A copy has the original's status: no need to ask.
        copy.status = self.status;
        Ok(copy)
    }

    /// Asks the plugin for the status, for a handle whose status is unknown.
    fn refresh_status(&mut self) -> Result<(), GameError> {
        let mut raw = RawStatus::default();
        let mut out = PluginBuf::EMPTY;
        // SAFETY: a live handle of this plugin; writable out-pointers.
        let code = unsafe { (self.plugin.api.status)(self.ptr(), &mut raw, &mut out) };
        self.plugin.finish(code, &mut out)?;
        self.status = StatusWord::checked(raw)?;
        Ok(())
    }

    /// The chance node, copied out of the plugin's lent array.
    pub(crate) fn chance(&self) -> Result<Chance, GameError> {
        let mut out = PluginBuf::EMPTY;
        let mut kind = u32::MAX;
        let mut lent: *const RawOutcome = std::ptr::null();
        let mut count = 0usize;
        // SAFETY: a live handle of this plugin under `&self` (no other call
        // on it until this returns), so the plugin may write its lent array
        // into it; writable out-pointers.
        let code = unsafe {
            (self.plugin.api.chance_outcomes)(
                self.handle.as_ptr(),
                &mut kind,
                &mut lent,
                &mut count,
                &mut out,
            )
        };
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
        // SAFETY: a live handle, read only; a writable buffer.
        let code = unsafe { (self.plugin.api.results)(self.ptr(), &mut out) };
        self.plugin.finish_text(code, out)
    }

    /// `player`'s legal actions, copied into `ids`.
    #[inline]
    pub(crate) fn legal_actions(&self, player: u32, ids: &mut Vec<u64>) -> Result<(), GameError> {
        let mut lent: *const u64 = std::ptr::null();
        let mut count = 0usize;
        let mut out = PluginBuf::EMPTY;
        // SAFETY: a live handle under `&self` (no other call on it until this
        // returns), so the plugin may write its lent list into it; writable
        // out-pointers.
        let code = unsafe {
            (self.plugin.api.legal_actions)(
                self.handle.as_ptr(),
                player,
                &mut lent,
                &mut count,
                &mut out,
            )
        };
        self.plugin.finish(code, &mut out)?;
        ids.clear();
        // SAFETY: on success the plugin lends `count` ids at `lent` until the
        // next call on this handle; they are copied before returning.
        ids.extend_from_slice(unsafe { lend(lent, count) }?);
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
        // SAFETY: a live handle; writable out-pointers.
        let code = unsafe {
            (self.plugin.api.legal_actions)(
                self.handle.as_ptr(),
                player,
                &mut lent,
                &mut count,
                &mut out,
            )
        };
        self.plugin.finish(code, &mut out)?;
        // SAFETY: the array stays valid until the next call on this handle,
        // which the returned borrow of `self` rules out.
        unsafe { lend(lent, count) }
    }

    /// Applies `moves` and lends the legal actions of `player` (or of the
    /// first mover, for `None`) in the new state, in one call whose answer
    /// comes back in registers. Returns the new status and the lent list
    /// (empty unless the new status is "to move").
    #[inline]
    pub(crate) fn ply(
        &mut self,
        moves: &[Move],
        player: Option<u32>,
    ) -> Result<(Status, &[u64]), GameError> {
        // Written so, rather than `unwrap_or`, it is one instruction shorter
        // (no masking of the option's tag).
        let lend = if player.is_none() {
            LEND_FIRST_MOVER
        } else {
            player.unwrap_or(0)
        };
        // SAFETY: a live handle held alone through `&mut self`; `Move` is the
        // ABI's `RawMove` (#[repr(C)]) and a slice's pointer is non-null and
        // aligned even when empty, as `ply` requires.
        let ply =
            unsafe { (self.plugin.ply)(self.handle.as_ptr(), moves.as_ptr(), moves.len(), lend) };
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

    /// Applies `moves`, lending nothing.
    #[inline]
    pub(crate) fn apply(&mut self, moves: &[Move]) -> Result<(), GameError> {
        // SAFETY: as in `ply`.
        let ply = unsafe {
            (self.plugin.api.ply)(
                self.handle.as_ptr(),
                moves.as_ptr(),
                moves.len(),
                LEND_NOTHING,
            )
        };
        self.settle(ply)
    }

    /// Applies a chance outcome, lending nothing.
    #[inline]
    pub(crate) fn apply_chance(&mut self, outcome: u64) -> Result<(), GameError> {
        // SAFETY: a live handle held alone through `&mut self`.
        let ply =
            unsafe { (self.plugin.api.apply_chance)(self.handle.as_ptr(), outcome, LEND_NOTHING) };
        self.settle(ply)
    }

    /// Records the status of a change that lent nothing, or its error.
    #[inline]
    fn settle(&mut self, ply: RawPly) -> Result<(), GameError> {
        if ply.kind() == PLY_FAILED {
            return Err(ply_error(ply));
        }
        self.status = StatusWord::of_ply(ply);
        Ok(())
    }

    pub(crate) fn view(&self, viewer: Viewer) -> Result<String, GameError> {
        let mut out = PluginBuf::EMPTY;
        // SAFETY: a live handle, read only; a writable buffer.
        let code = unsafe { (self.plugin.api.view)(self.ptr(), viewer.code(), &mut out) };
        self.plugin.finish_text(code, out)
    }

    pub(crate) fn render_text(&self, viewer: Viewer) -> Result<String, GameError> {
        let mut out = PluginBuf::EMPTY;
        // SAFETY: a live handle, read only; a writable buffer.
        let code = unsafe { (self.plugin.api.render_text)(self.ptr(), viewer.code(), &mut out) };
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
        // SAFETY: two live handles of this plugin (checked above), read only;
        // the transition and its moves are lent for the call; a writable
        // buffer.
        let code = unsafe {
            (self.plugin.api.event)(before.ptr(), &raw, self.ptr(), viewer.code(), &mut out)
        };
        self.plugin.finish_text(code, out)
    }

    pub(crate) fn position(&self) -> Result<String, GameError> {
        let mut out = PluginBuf::EMPTY;
        // SAFETY: a live handle, read only; a writable buffer.
        let code = unsafe { (self.plugin.api.position)(self.ptr(), &mut out) };
        self.plugin.finish_text(code, out)
    }

    pub(crate) fn action_to_string(&self, player: u32, action: u64) -> Result<String, GameError> {
        let mut text = String::new();
        self.actions_to_strings(player, &[action], &mut text, &mut Vec::with_capacity(1))?;
        Ok(text)
    }

    /// The notation of each of `ids`, appended to `text`, each end offset (in
    /// `text`) pushed to `ends`, in one call.
    pub(crate) fn actions_to_strings(
        &self,
        player: u32,
        ids: &[u64],
        text: &mut String,
        ends: &mut Vec<u32>,
    ) -> Result<(), GameError> {
        let too_long = || GameError::internal("the notation exceeds 4 GiB");
        let mut plugin_ends = vec![0u32; ids.len()];
        let mut out = PluginBuf::EMPTY;
        // SAFETY: a live handle, read only; `ids` is lent for the call and
        // `plugin_ends` has room for one end per id; a writable buffer.
        let code = unsafe {
            (self.plugin.api.actions_to_strings)(
                self.ptr(),
                player,
                ids.as_ptr(),
                ids.len(),
                plugin_ends.as_mut_ptr(),
                &mut out,
            )
        };
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
        // SAFETY: a live handle, read only; `text` is lent for the call;
        // writable out-pointers.
        let code = unsafe {
            (self.plugin.api.parse_action)(
                self.ptr(),
                player,
                StrRef::new(text),
                &mut action,
                &mut out,
            )
        };
        self.plugin.finish(code, &mut out)?;
        Ok(action)
    }

    /// The plugin's expansion of a shorthand: `None` when `text` is not one
    /// (or the plugin has no shorthands), else the JSON array of notations.
    pub(crate) fn expand_notation(
        &self,
        player: u32,
        text: &str,
    ) -> Result<Option<String>, GameError> {
        let Some(ext) = self.plugin.expand_notation else {
            return Ok(None);
        };
        let mut out = PluginBuf::EMPTY;
        // SAFETY: the plugin's own extension table; a live handle, read only;
        // `text` is lent for the call; a writable buffer.
        let code =
            unsafe { (ext.expand_notation)(self.ptr(), player, StrRef::new(text), &mut out) };
        if code == CODE_OK && out.ptr.is_null() {
            return Ok(None);
        }
        self.plugin.finish_text(code, out).map(Some)
    }

    /// Takes `player` out of the game; refused without a call when the plugin
    /// does not offer the extension.
    pub(crate) fn remove_player(&mut self, player: u32) -> Result<(), GameError> {
        let Some(ext) = self.plugin.remove_player else {
            return Err(GameError::unsupported(
                "this game cannot take a player out of a running game",
            ));
        };
        let mut raw = RawStatus::default();
        let mut out = PluginBuf::EMPTY;
        // SAFETY: the plugin's own extension table; a live handle held alone
        // through `&mut self`; writable out-pointers.
        let code = unsafe { (ext.remove_player)(self.handle.as_ptr(), player, &mut raw, &mut out) };
        self.plugin.finish(code, &mut out)?;
        self.status = StatusWord::checked(raw)?;
        Ok(())
    }

    /// A state consistent with what `viewer` knows, drawn with `random`: the
    /// plugin's resample extension, or a copy for a plugin that hides nothing.
    pub(crate) fn resample(&self, viewer: Viewer, random: u64) -> Result<RawState, GameError> {
        let Some(ext) = self.plugin.resample else {
            return self.clone_state();
        };
        let mut handle = std::ptr::null_mut();
        let mut out = PluginBuf::EMPTY;
        // SAFETY: the plugin's own extension table; a live handle, read only;
        // writable out-pointers.
        let code =
            unsafe { (ext.resample)(self.ptr(), viewer.code(), random, &mut handle, &mut out) };
        self.plugin.finish(code, &mut out)?;
        let mut state = self.plugin.own(handle)?;
        state.refresh_status()?;
        Ok(state)
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

/// The bytes of a string the plugin lends to the log callback.
///
/// # Safety
/// A non-null `text.ptr` must point to `text.len` readable bytes for `'a`.
unsafe fn borrowed_bytes<'a>(text: StrRef) -> &'a [u8] {
    if text.ptr.is_null() {
        return &[];
    }
    // SAFETY: the caller's guarantee above.
    unsafe { std::slice::from_raw_parts(text.ptr, text.len) }
}

mod board;
mod evaluate;
mod explain;
mod log_sink;
mod seats_out;
#[cfg(test)]
mod tests;
