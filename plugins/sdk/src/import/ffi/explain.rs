//! The host's side of the seat-names (`tabletop.seat-names/1`) and
//! explain-refusal (`tabletop.explain-refusal/2`) extensions: what a game
//! calls its seats, and why it refuses an attempted action.

use crate::GameError;
use crate::abi::{PluginBuf, StrRef};

use super::{RawPlugin, RawState};

impl RawPlugin {
    /// The JSON array of the game's names for the seats of a `players`-seat
    /// match; `None` for a plugin that does not offer the extension.
    pub(crate) fn seat_names_json(&self, players: u32) -> Result<Option<String>, GameError> {
        let Some(ext) = self.seat_names else {
            return Ok(None);
        };
        let mut out = PluginBuf::EMPTY;
        // SAFETY: the plugin's own extension table; the function touches no
        // handle; a writable, empty buffer that `finish_text` releases
        // through the plugin's `free_buf`.
        let code = unsafe { (ext.seat_names)(players, &mut out) };
        self.finish_text(code, out).map(Some)
    }
}

impl RawState {
    /// The plugin's refusal of action id `action` of `player` as JSON:
    /// empty when the action is legal, `None` for a plugin that does not
    /// offer the extension.
    pub(crate) fn explain_action_json(
        &self,
        player: u32,
        action: u64,
    ) -> Result<Option<String>, GameError> {
        let Some(ext) = self.plugin.explain_refusal else {
            return Ok(None);
        };
        let mut out = PluginBuf::EMPTY;
        // SAFETY: the plugin's own extension table; a live handle of this
        // plugin, only read, with no other call on it while `&self` is
        // borrowed; a writable, empty buffer released by `finish_text`.
        let code = unsafe { (ext.explain_action)(self.ptr(), player, action, &mut out) };
        self.plugin.finish_text(code, out).map(Some)
    }

    /// The plugin's refusal of notation `text` of `player` as JSON, as
    /// [`RawState::explain_action_json`].
    pub(crate) fn explain_notation_json(
        &self,
        player: u32,
        text: &str,
    ) -> Result<Option<String>, GameError> {
        let Some(ext) = self.plugin.explain_refusal else {
            return Ok(None);
        };
        let mut out = PluginBuf::EMPTY;
        // SAFETY: as in `explain_action_json`; `text` is lent for the call
        // and outlives it.
        let code =
            unsafe { (ext.explain_notation)(self.ptr(), player, StrRef::new(text), &mut out) };
        self.plugin.finish_text(code, out).map(Some)
    }

    /// How many action ids the match can use; 0 for a plugin that does not
    /// offer the extension.
    pub(crate) fn action_space(&self) -> Result<u64, GameError> {
        let Some(ext) = self.plugin.explain_refusal else {
            return Ok(0);
        };
        let mut count = 0u64;
        let mut out = PluginBuf::EMPTY;
        // SAFETY: as in `explain_action_json`; `count` is a writable local.
        let code = unsafe { (ext.action_space)(self.ptr(), &mut count, &mut out) };
        self.plugin.finish_text(code, out)?;
        Ok(count)
    }
}
