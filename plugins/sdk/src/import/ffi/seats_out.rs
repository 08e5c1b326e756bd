//! The host's side of the seats-out extension (`tabletop.seats-out/1`):
//! which seats a plugin's rules have taken out of a state.

use crate::GameError;
use crate::abi::PluginBuf;

use super::RawState;

impl RawState {
    /// The JSON array of the seats out of the game and why, as the plugin
    /// writes it; `None` for a plugin that does not offer the extension
    /// (its rules put nobody out).
    pub(crate) fn seats_out_json(&self) -> Result<Option<String>, GameError> {
        let Some(ext) = self.plugin.seats_out else {
            return Ok(None);
        };
        let mut out = PluginBuf::EMPTY;
        // SAFETY: the plugin's own extension table; a live handle of this
        // plugin, only read, with no other call on it while `&self` is
        // borrowed; a writable, empty buffer that `finish_text` releases
        // through the plugin's `free_buf`.
        let code = unsafe { (ext.seats_out)(self.ptr(), &mut out) };
        self.plugin.finish_text(code, out).map(Some)
    }
}
