//! The log sink an imported plugin is given: its lines go to `tracing`
//! (target `plugin`), where the host's subscriber writes them.

use crate::abi::StrRef;

use super::{RawPlugin, borrowed_bytes};

impl RawPlugin {
    /// Sends the plugin's log lines to `tracing`.
    pub(crate) fn log_to_tracing(&self) {
        self.set_logger(log_from_plugin);
    }
}

/// The log sink given to every plugin: callable from any thread, and it
/// never unwinds (tracing does not panic on a line).
///
/// # Safety
/// `message` is lent for the call, as the ABI's `LogFn` says.
unsafe extern "C" fn log_from_plugin(level: u32, message: StrRef) {
    // SAFETY: the plugin lends the message for the call; it is copied here.
    let text = String::from_utf8_lossy(unsafe { borrowed_bytes(message) }).into_owned();
    match level {
        1 => tracing::error!(target: "plugin", "{text}"),
        2 => tracing::warn!(target: "plugin", "{text}"),
        3 => tracing::info!(target: "plugin", "{text}"),
        4 => tracing::debug!(target: "plugin", "{text}"),
        _ => tracing::trace!(target: "plugin", "{text}"),
    }
}
