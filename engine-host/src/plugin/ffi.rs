//! Every `unsafe` operation of the host lives here: opening a library, looking
//! up its entry symbol, and crossing the C ABI of `tabletop_sdk::abi`. The rest
//! of the host sees only the safe [`RawPlugin`] and [`RawState`].
//!
//! Libraries are never unloaded: `dlclose` is unsound with Rust thread-locals,
//! and a state handle must never outlive its code. The loaded table is
//! therefore `'static`.

use std::path::Path;
use std::ptr::NonNull;

use tabletop_sdk::abi::{
    ABI_MAJOR, CODE_OK, ENTRY_SYMBOL, EntryFn, PluginApi, PluginBuf, RawStatus, RawTransition,
    SIZE_1_0, SIZE_1_1, STATUS_CHANCE, STATUS_TERMINAL, STATUS_TO_MOVE, StateHandle, StrRef,
    TRANSITION_CHANCE, TRANSITION_MOVES,
};
use tabletop_sdk::{ErrorKind, GameError, Move, PlayerSet, Status, Transition, Viewer};

use super::LoadError;

/// An opened plugin library and its function table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawPlugin {
    api: &'static PluginApi,
    /// Whether the plugin's table reaches `remove_player` (ABI 1.1).
    has_remove_player: bool,
}

/// Stands in for `remove_player` in the host's copy of a 1.0 table, so the
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
        if size < SIZE_1_0 {
            return Err(LoadError::Incompatible(format!(
                "plugin table has {size} bytes, an ABI 1.0 table has {SIZE_1_0}"
            )));
        }
        if size >= std::mem::size_of::<PluginApi>() {
            // SAFETY: same major version and a table at least as large as ours:
            // every field we read exists with the documented type, and the
            // table is static.
            let api: &'static PluginApi = unsafe { &*table.as_ptr() };
            return Ok(RawPlugin {
                api,
                has_remove_player: true,
            });
        }
        // An older minor version: the table ends before some of our fields, so
        // no `&PluginApi` may point at it. Copy the prefix it has into a
        // host-owned table (leaked once per load; plugins are never unloaded)
        // and fill the missing functions with host stubs that are never called.
        let mut copy = std::mem::MaybeUninit::<PluginApi>::uninit();
        // SAFETY: the plugin's table has `size` readable bytes (its own
        // `size_of`), SIZE_1_0 <= size < size_of::<PluginApi>(), so the copy
        // stays inside both tables; they do not overlap (ours is fresh).
        unsafe {
            std::ptr::copy_nonoverlapping(
                table.as_ptr() as *const u8,
                copy.as_mut_ptr() as *mut u8,
                size,
            );
        }
        let has_remove_player = size >= SIZE_1_1;
        if !has_remove_player {
            // SAFETY: a field write into our own uninitialised table, through a
            // raw pointer (no reference to the partly initialised value).
            unsafe {
                std::ptr::addr_of_mut!((*copy.as_mut_ptr()).remove_player)
                    .write(remove_player_absent);
            }
        }
        // SAFETY: every field is now initialised: the 1.0 header and functions
        // (and `remove_player` when `size >= SIZE_1_1`) came from the plugin's
        // table with the same layout (same major version, fields only appended),
        // the rest from the stubs above. The copy's `size` still says how much
        // the plugin provides.
        let api: &'static PluginApi = Box::leak(Box::new(unsafe { copy.assume_init() }));
        Ok(RawPlugin {
            api,
            has_remove_player,
        })
    }

    /// Whether the plugin's table has `remove_player` (ABI 1.1 or later).
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

    /// A new state from `setup_json` (and a position text, if any).
    pub(crate) fn new_state(
        &self,
        setup_json: &str,
        position: Option<&str>,
    ) -> Result<RawState, GameError> {
        let mut handle: *mut StateHandle = std::ptr::null_mut();
        let mut out = PluginBuf::EMPTY;
        let code = (self.api.new_state)(
            StrRef::new(setup_json),
            position.map_or(StrRef::NULL, StrRef::new),
            &mut handle,
            &mut out,
        );
        self.finish(code, out)?;
        self.wrap(handle)
    }

    fn wrap(&self, handle: *mut StateHandle) -> Result<RawState, GameError> {
        NonNull::new(handle)
            .map(|handle| RawState {
                plugin: *self,
                handle,
            })
            .ok_or_else(|| GameError::internal("plugin returned success but no state"))
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
        let text = String::from_utf8_lossy(bytes).into_owned();
        (self.api.free_buf)(buf);
        text
    }

    fn finish(&self, code: i32, out: PluginBuf) -> Result<(), GameError> {
        if code == CODE_OK {
            let _ = self.take(out);
            Ok(())
        } else {
            Err(GameError::new(ErrorKind::from_code(code), self.take(out)))
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
        self.plugin.finish(code, out)?;
        self.plugin.wrap(handle)
    }

    pub(crate) fn status(&self) -> Result<Status, GameError> {
        let mut raw = RawStatus::default();
        let mut out = PluginBuf::EMPTY;
        let code = (self.plugin.api.status)(self.ptr(), &mut raw, &mut out);
        self.plugin.finish(code, out)?;
        match raw.kind {
            STATUS_TO_MOVE => Ok(Status::ToMove(PlayerSet(raw.movers))),
            STATUS_CHANCE => Ok(Status::Chance),
            STATUS_TERMINAL => Ok(Status::Terminal),
            other => Err(GameError::internal(format!("unknown status kind {other}"))),
        }
    }

    pub(crate) fn chance_json(&self) -> Result<String, GameError> {
        let mut out = PluginBuf::EMPTY;
        let code = (self.plugin.api.chance)(self.ptr(), &mut out);
        self.plugin.finish_text(code, out)
    }

    pub(crate) fn results_json(&self) -> Result<String, GameError> {
        let mut out = PluginBuf::EMPTY;
        let code = (self.plugin.api.results)(self.ptr(), &mut out);
        self.plugin.finish_text(code, out)
    }

    pub(crate) fn legal_actions(&self, player: u32, ids: &mut Vec<u64>) -> Result<(), GameError> {
        ids.clear();
        if ids.capacity() < 64 {
            ids.reserve(64);
        }
        loop {
            let mut count = 0usize;
            let mut out = PluginBuf::EMPTY;
            let code = (self.plugin.api.legal_actions)(
                self.ptr(),
                player,
                ids.as_mut_ptr(),
                ids.capacity(),
                &mut count,
                &mut out,
            );
            if code == ErrorKind::BufferTooSmall as i32 {
                let _ = self.plugin.take(out);
                ids.reserve(count);
                continue;
            }
            self.plugin.finish(code, out)?;
            if count > ids.capacity() {
                return Err(GameError::internal("plugin wrote more actions than room"));
            }
            // SAFETY: on success the plugin wrote exactly `count` u64s at the
            // start of our buffer, and `count <= capacity` (checked above).
            unsafe { ids.set_len(count) };
            return Ok(());
        }
    }

    pub(crate) fn apply(&mut self, moves: &[Move]) -> Result<(), GameError> {
        // `Move` is the ABI's `RawMove` (#[repr(C)]): the slice is lent as it is.
        let mut out = PluginBuf::EMPTY;
        let code =
            (self.plugin.api.apply)(self.handle.as_ptr(), moves.as_ptr(), moves.len(), &mut out);
        self.plugin.finish(code, out)
    }

    pub(crate) fn apply_chance(&mut self, outcome: u64) -> Result<(), GameError> {
        let mut out = PluginBuf::EMPTY;
        let code = (self.plugin.api.apply_chance)(self.handle.as_ptr(), outcome, &mut out);
        self.plugin.finish(code, out)
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
        self.plugin.finish(code, out)?;
        Ok(action)
    }

    /// Takes `player` out of the game (ABI 1.1). A plugin whose table is too
    /// short is refused here, without a call.
    pub(crate) fn remove_player(&mut self, player: u32) -> Result<(), GameError> {
        if !self.plugin.has_remove_player {
            return Err(GameError::unsupported(
                "the plugin was built before ABI 1.1 and cannot remove a player",
            ));
        }
        let mut out = PluginBuf::EMPTY;
        let code = (self.plugin.api.remove_player)(self.handle.as_ptr(), player, &mut out);
        self.plugin.finish(code, out)
    }

    pub(crate) fn resample(&self, viewer: Viewer, random: u64) -> Result<RawState, GameError> {
        let mut handle = std::ptr::null_mut();
        let mut out = PluginBuf::EMPTY;
        let code =
            (self.plugin.api.resample)(self.ptr(), viewer.code(), random, &mut handle, &mut out);
        self.plugin.finish(code, out)?;
        self.plugin.wrap(handle)
    }
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
