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
    STATUS_CHANCE, STATUS_TERMINAL, STATUS_TO_MOVE, StateHandle, StrRef, TRANSITION_CHANCE,
    TRANSITION_MOVES,
};
use tabletop_sdk::{ErrorKind, GameError, Move, PlayerSet, Status, Transition, Viewer};

use super::LoadError;

/// An opened plugin library and its function table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawPlugin {
    api: &'static PluginApi,
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
        if size < std::mem::size_of::<PluginApi>() {
            return Err(LoadError::Incompatible(format!(
                "plugin table has {size} bytes, host needs {}",
                std::mem::size_of::<PluginApi>()
            )));
        }
        // SAFETY: same major version and a table at least as large as ours: every
        // field we read exists with the documented type, and the table is static.
        let api: &'static PluginApi = unsafe { &*table.as_ptr() };
        Ok(RawPlugin { api })
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

    /// Takes ownership of a new handle and reads its status once.
    fn wrap(&self, handle: *mut StateHandle) -> Result<RawState, GameError> {
        let handle = NonNull::new(handle)
            .ok_or_else(|| GameError::internal("plugin returned success but no state"))?;
        let mut state = RawState {
            plugin: *self,
            handle,
            status: Status::Terminal,
        };
        let mut raw = RawStatus::default();
        let mut out = PluginBuf::EMPTY;
        let code = (self.api.status)(state.ptr(), &mut raw, &mut out);
        self.finish(code, out)?;
        state.status = decode_status(raw)?;
        Ok(state)
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
    /// untouched `out`) this is one comparison, so it is inlined.
    #[inline]
    fn finish(&self, code: i32, out: PluginBuf) -> Result<(), GameError> {
        if code == CODE_OK && out.ptr.is_null() {
            Ok(())
        } else {
            self.finish_slow(code, out)
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
    status: Status,
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
        let handle = NonNull::new(handle)
            .ok_or_else(|| GameError::internal("plugin returned success but no state"))?;
        // A copy has the original's status: no need to ask.
        Ok(RawState {
            plugin: self.plugin,
            handle,
            status: self.status,
        })
    }

    /// The status, as last reported by the plugin.
    #[inline]
    pub(crate) fn status(&self) -> Status {
        self.status
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

    #[inline]
    pub(crate) fn legal_actions(&self, player: u32, ids: &mut Vec<u64>) -> Result<(), GameError> {
        let mut lent: *const u64 = std::ptr::null();
        let mut count = 0usize;
        let mut out = PluginBuf::EMPTY;
        let code =
            (self.plugin.api.legal_actions)(self.ptr(), player, &mut lent, &mut count, &mut out);
        self.plugin.finish(code, out)?;
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
        self.plugin.finish(code, out)?;
        self.status = decode_status(raw)?;
        Ok(())
    }

    #[inline]
    pub(crate) fn apply_chance(&mut self, outcome: u64) -> Result<(), GameError> {
        let mut raw = RawStatus::default();
        let mut out = PluginBuf::EMPTY;
        let code =
            (self.plugin.api.apply_chance)(self.handle.as_ptr(), outcome, &mut raw, &mut out);
        self.plugin.finish(code, out)?;
        self.status = decode_status(raw)?;
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

    pub(crate) fn resample(&self, viewer: Viewer, random: u64) -> Result<RawState, GameError> {
        let mut handle = std::ptr::null_mut();
        let mut out = PluginBuf::EMPTY;
        let code =
            (self.plugin.api.resample)(self.ptr(), viewer.code(), random, &mut handle, &mut out);
        self.plugin.finish(code, out)?;
        self.plugin.wrap(handle)
    }
}

#[inline]
fn decode_status(raw: RawStatus) -> Result<Status, GameError> {
    match raw.kind {
        STATUS_TO_MOVE => Ok(Status::ToMove(PlayerSet(raw.movers))),
        STATUS_CHANCE => Ok(Status::Chance),
        STATUS_TERMINAL => Ok(Status::Terminal),
        other => Err(GameError::internal(format!("unknown status kind {other}"))),
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
