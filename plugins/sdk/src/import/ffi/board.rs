//! The host's side of the svg-board (`tabletop.svg-board/1`) and
//! action-targets (`tabletop.action-targets/1`) extensions: a plugin's
//! drawing of its board for a viewer, and the board elements each legal
//! action involves. Both answers go to clients as they are, so both are
//! bounded and must be valid UTF-8: a plugin that breaks either gets a
//! clear error, never a lossy or unbounded copy.

use crate::abi::{MAX_SVG_BYTES, PluginBuf};
use crate::{ErrorKind, GameError, Viewer};

use super::{RawPlugin, RawState};

/// The most bytes of targets JSON per action asked about: far more than a
/// few element ids need.
pub(crate) const MAX_TARGET_BYTES_PER_ACTION: usize = 4096;

impl RawPlugin {
    /// The text of a plugin buffer of at most `max` bytes, released through
    /// the plugin either way; `what` names it in the error.
    fn take_bounded(
        &self,
        code: i32,
        buf: PluginBuf,
        max: usize,
        what: &str,
    ) -> Result<String, GameError> {
        if code != crate::abi::CODE_OK {
            return self.finish_text(code, buf);
        }
        if buf.ptr.is_null() {
            return Ok(String::new());
        }
        let len = buf.len;
        let text = if len > max {
            Err(GameError::internal(format!(
                "the plugin's {what}: {len} bytes, more than the {max} allowed"
            )))
        } else {
            // SAFETY: a non-null PluginBuf from this plugin points to `len`
            // initialised bytes that stay valid until it is passed to
            // `free_buf` below.
            let bytes = unsafe { std::slice::from_raw_parts(buf.ptr, len) };
            std::str::from_utf8(bytes).map(str::to_owned).map_err(|e| {
                GameError::internal(format!("the plugin's {what}: not valid UTF-8 ({e})"))
            })
        };
        // SAFETY: the buffer came from this plugin and is released once; what
        // is kept was copied above.
        unsafe { (self.api.free_buf)(buf) };
        text
    }
}

impl RawState {
    /// The plugin's SVG board for `viewer`; `None` for a plugin that does
    /// not offer the extension. Refused when larger than
    /// [`MAX_SVG_BYTES`] or not UTF-8.
    pub(crate) fn render_svg(&self, viewer: Viewer) -> Result<Option<String>, GameError> {
        let Some(ext) = self.plugin.svg_board else {
            return Ok(None);
        };
        let mut out = PluginBuf::EMPTY;
        // SAFETY: the plugin's own extension table; a live handle of this
        // plugin, only read, with no other call on it while `&self` is
        // borrowed; a writable, empty buffer that `take_bounded` releases
        // through the plugin's `free_buf`.
        let code = unsafe { (ext.render_svg)(self.ptr(), viewer.code(), &mut out) };
        self.plugin
            .take_bounded(code, out, MAX_SVG_BYTES, "SVG board")
            .map(Some)
    }

    /// The plugin's targets of each of `ids` (actions of `player`) as the
    /// JSON it writes; `None` for a plugin that does not offer the
    /// extension.
    pub(crate) fn action_targets_json(
        &self,
        player: u32,
        ids: &[u64],
    ) -> Result<Option<String>, GameError> {
        let Some(ext) = self.plugin.action_targets else {
            return Ok(None);
        };
        let max = MAX_TARGET_BYTES_PER_ACTION.saturating_mul(ids.len().max(1));
        let mut out = PluginBuf::EMPTY;
        // SAFETY: as in `render_svg`; `ids` is lent for the call and
        // outlives it, its pointer valid (and aligned) even when empty.
        let code =
            unsafe { (ext.action_targets)(self.ptr(), player, ids.as_ptr(), ids.len(), &mut out) };
        let text = self.plugin.take_bounded(code, out, max, "action targets")?;
        if text.is_empty() {
            return Err(GameError::new(
                ErrorKind::Internal,
                "the plugin wrote no action targets",
            ));
        }
        Ok(Some(text))
    }
}
