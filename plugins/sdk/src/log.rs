//! Logging from inside a plugin. A cdylib has its own copy of every static, so
//! a `tracing` subscriber installed by the host is invisible here; lines go
//! through the host's [`LogFn`] callback instead.

use std::sync::RwLock;

use crate::abi::{LogFn, StrRef};

static LOGGER: RwLock<Option<LogFn>> = RwLock::new(None);

/// Severity of a log line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u32)]
pub enum Level {
    /// Something failed.
    Error = crate::abi::LOG_ERROR,
    /// Something looks wrong.
    Warn = crate::abi::LOG_WARN,
    /// Worth knowing.
    Info = crate::abi::LOG_INFO,
    /// For developers.
    Debug = crate::abi::LOG_DEBUG,
    /// Very detailed.
    Trace = crate::abi::LOG_TRACE,
}

/// Sends one line to the host's log. Without a host (in-process tests) the line
/// is dropped.
pub fn log(level: Level, message: &str) {
    let logger = *LOGGER.read().unwrap_or_else(|e| e.into_inner());
    if let Some(logger) = logger {
        // SAFETY: the host installed this sink through `set_logger`, promising
        // it may be called from any thread while installed; the message is
        // lent for the call only.
        unsafe { logger(level as u32, StrRef::new(message)) };
    }
}

pub(crate) fn set_logger(logger: Option<LogFn>) {
    *LOGGER.write().unwrap_or_else(|e| e.into_inner()) = logger;
}
