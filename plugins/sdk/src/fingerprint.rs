//! Which build of a game crate a plugin file comes from, so a test of the
//! built plugin can prove it runs the plugin its own build made.
//!
//! [`export_game!`](crate::export_game) exports, beside the ABI's entry, the
//! symbol [`FINGERPRINT_SYMBOL`]: the [`BuildFingerprint`] of its game type.
//! The fingerprint hashes the type's [`TypeId`], which rustc derives from the
//! crate's `-C metadata`: cargo gives each build of a crate (its version,
//! features, profile, dependencies, flags) its own, while one build's rlib and
//! cdylib come from one compiler run and share it. The same game type linked
//! into a test therefore has the fingerprint of its own build's cdylib and of
//! no other build's.
//!
//! The symbol is not part of the plugin ABI ([`crate::abi`]): a host never
//! needs it, and a plugin written without the SDK need not export it.

use std::any::TypeId;
use std::fmt;
use std::hash::{DefaultHasher, Hash, Hasher};

use crate::abi::StrRef;

/// The name of the symbol `export_game!` exports: a [`FingerprintFn`].
pub const FINGERPRINT_SYMBOL: &str = "tabletop_build_fingerprint";

/// The signature of [`FINGERPRINT_SYMBOL`]: takes nothing, allocates nothing,
/// cannot unwind, and returns the same answer on every call.
pub type FingerprintFn = unsafe extern "C" fn() -> RawBuildFingerprint;

/// A [`BuildFingerprint`] as it crosses the C ABI.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct RawBuildFingerprint {
    /// [`BuildFingerprint::type_hash`].
    pub type_hash: u64,
    /// The game type's name: a static string of the plugin, valid as long as
    /// the library is loaded.
    pub type_name: StrRef,
}

/// What identifies one build of a game type (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildFingerprint {
    type_hash: u64,
    type_name: String,
}

impl BuildFingerprint {
    /// The fingerprint of `G` as built into the running program.
    pub fn of<G: 'static>() -> BuildFingerprint {
        BuildFingerprint {
            type_hash: type_hash::<G>(),
            type_name: std::any::type_name::<G>().to_owned(),
        }
    }

    /// The hash of the game type's `TypeId`: what tells builds apart.
    pub fn type_hash(&self) -> u64 {
        self.type_hash
    }

    /// The game type's path (`focus::Focus`), the same in every build: for
    /// messages.
    pub fn type_name(&self) -> &str {
        &self.type_name
    }

    /// The raw form `export_game!` exports for `G`.
    #[doc(hidden)]
    pub fn raw_of<G: 'static>() -> RawBuildFingerprint {
        RawBuildFingerprint {
            type_hash: type_hash::<G>(),
            type_name: StrRef::new(std::any::type_name::<G>()),
        }
    }

    /// Reads a fingerprint a plugin exported.
    ///
    /// # Safety
    /// A non-null `raw.type_name.ptr` points to `raw.type_name.len` readable
    /// bytes.
    #[cfg(feature = "import")]
    pub(crate) unsafe fn from_raw(raw: RawBuildFingerprint) -> BuildFingerprint {
        let name = if raw.type_name.ptr.is_null() {
            &[][..]
        } else {
            // SAFETY: the caller's guarantee.
            unsafe { std::slice::from_raw_parts(raw.type_name.ptr, raw.type_name.len) }
        };
        BuildFingerprint {
            type_hash: raw.type_hash,
            type_name: String::from_utf8_lossy(name).into_owned(),
        }
    }
}

impl fmt::Display for BuildFingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} #{:016x}", self.type_name, self.type_hash)
    }
}

/// `TypeId` has no stable bits to read; its hash under the standard
/// library's fixed-key hasher is the same wherever one toolchain computes it.
fn type_hash<G: 'static>() -> u64 {
    let mut hasher = DefaultHasher::new();
    TypeId::of::<G>().hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    struct One;
    struct Other;

    #[test]
    fn a_fingerprint_tells_types_apart_and_survives_the_crossing() {
        assert_eq!(BuildFingerprint::of::<One>(), BuildFingerprint::of::<One>());
        assert_ne!(
            BuildFingerprint::of::<One>().type_hash(),
            BuildFingerprint::of::<Other>().type_hash()
        );
        let raw = BuildFingerprint::raw_of::<One>();
        assert_eq!(raw.type_hash, BuildFingerprint::of::<One>().type_hash());
        #[cfg(feature = "import")]
        {
            // SAFETY: `raw` names a static string of this program.
            let read = unsafe { BuildFingerprint::from_raw(raw) };
            assert_eq!(read, BuildFingerprint::of::<One>());
            assert!(read.to_string().contains("::One #"), "{read}");
        }
    }
}
