//! The host's side of the evaluate extension (`tabletop.evaluate/1`): a
//! plugin's estimate of each seat's final standing, for search bots that cut
//! off their playouts.

use crate::GameError;
use crate::abi::PluginBuf;

use super::RawState;

impl RawState {
    /// Writes the plugin's estimate for each seat into `values` (one per
    /// seat) and returns `true`; `false`, with `values` untouched, for a
    /// plugin that does not offer the extension. The values are the
    /// plugin's, unchecked.
    pub(crate) fn evaluate(&self, values: &mut [f64]) -> Result<bool, GameError> {
        let Some(ext) = self.plugin.evaluate else {
            return Ok(false);
        };
        let mut out = PluginBuf::EMPTY;
        // SAFETY: the plugin's own extension table; a live handle of this
        // plugin, only read, with no other call on it while `&self` is
        // borrowed; `values` is writable for its length, which is the count
        // passed; a writable, empty buffer that `finish` releases.
        let code =
            unsafe { (ext.evaluate)(self.ptr(), values.as_mut_ptr(), values.len(), &mut out) };
        self.plugin.finish(code, &mut out)?;
        Ok(true)
    }
}
