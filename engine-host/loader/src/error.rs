//! Why a plugin file was refused: the checks on the file before it loads,
//! and the SDK's refusals while it opens.

use std::fmt;

use tabletop_sdk::import::ImportError;

/// Why a plugin file was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// The file could not be read or copied.
    Io(String),
    /// The path names something other than a regular file: what it is.
    NotAFile(&'static str),
    /// The file is larger than a plugin file may be.
    TooLarge {
        /// Its size.
        bytes: u64,
        /// The largest allowed ([`crate::file::max_plugin_bytes`]).
        max: u64,
    },
    /// Opening it as a game failed: not a shared library, not a Tabletop
    /// plugin, an incompatible ABI or a bad manifest.
    Import(ImportError),
    /// The file's content is not what was checked before the load.
    Changed,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Io(e) => write!(f, "cannot read the file: {e}"),
            LoadError::NotAFile(kind) => {
                write!(
                    f,
                    "{kind}, not a regular file: a plugin is a shared library file"
                )
            }
            LoadError::TooLarge { bytes, max } => write!(
                f,
                "the file has {bytes} bytes, more than the {max} a plugin file may have \
                 (--max-plugin-bytes)"
            ),
            LoadError::Import(refused) => refused.fmt(f),
            LoadError::Changed => f.write_str("the file changed after it was checked"),
        }
    }
}

impl std::error::Error for LoadError {}

impl From<ImportError> for LoadError {
    fn from(refused: ImportError) -> LoadError {
        LoadError::Import(refused)
    }
}
