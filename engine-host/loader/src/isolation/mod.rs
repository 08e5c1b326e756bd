//! Plugins in worker processes: the boundary for code the operator did not
//! write.
//!
//! A worker is a process (engine-host as `engine-host plugin-worker`) that
//! loads one plugin file and holds the states of the matches it serves;
//! the host keeps each match (log, seats, clocks) and asks the worker for
//! the game's answers over a unix socket. A worker gets a cleared
//! environment, a cap on its address space, and no descriptor but its
//! socket and its output pipes; its output is logged by the host, named and
//! rate-limited; a call that overruns its deadline kills it.
//!
//! When a worker dies, the call that killed it is answered with a fault
//! ([`tabletop_sdk::ErrorKind::ProcessDied`]) and reported to the host's
//! [`FaultSink`] with the match it was about, which the host quarantines;
//! every other state is made again in a fresh worker from its recipe (its
//! origin and the changes since) at its next call. Bot searches run inside
//! the worker ([`RemoteState::think`]).
//!
//! A plugin runs in the host instead only when the operator trusts its
//! build ([`TrustList`]): by name and content hash, or by being a copy of a
//! file in a trusted directory. Isolation contains faults — crashes,
//! endless loops, runaway memory, floods of output — not malice: a worker
//! runs as the host's user.

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

mod output;
mod process;
mod protocol;
mod remote;
mod worker;

pub use process::WorkerSpec;
pub use remote::{RemoteState, WorkerGame, WorkerStatus};
pub use worker::{EXIT_CANNOT_START, run_worker};

/// A worker's death in a call: what the host quarantines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// The game.
    pub game: String,
    /// Its version.
    pub version: String,
    /// The match whose call it was, when the state was labelled with it.
    pub match_id: Option<String>,
    /// The call (`apply`, `render_svg`, `bot search`, …).
    pub call: String,
    /// The signal or exit code, or why the host killed the worker.
    pub how: String,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the plugin {}@{} failed in {}: its worker died ({})",
            self.game, self.version, self.call, self.how
        )
    }
}

/// Where faults are reported as they happen.
pub type FaultSink = Arc<dyn Fn(&Fault) + Send + Sync>;

/// How many faults within how long stop a plugin from taking new matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultWindow {
    /// This many faults…
    pub faults: u32,
    /// …within this long.
    pub within: Duration,
}

impl Default for FaultWindow {
    fn default() -> Self {
        FaultWindow {
            faults: 3,
            within: Duration::from_secs(600),
        }
    }
}

/// The builds an operator trusts to run inside the host.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustList {
    /// `(game name, hex SHA-256)` pairs.
    builds: BTreeSet<(String, String)>,
    /// The SHA-256 of every file in the trusted directories.
    files: BTreeSet<String>,
    /// Every build is trusted (no isolation at all).
    everything: bool,
}

impl TrustList {
    /// Trusts nothing: every plugin runs in a worker.
    pub fn none() -> TrustList {
        TrustList::default()
    }

    /// Trusts every plugin: all run in the host, as without isolation.
    pub fn everything() -> TrustList {
        TrustList {
            everything: true,
            ..TrustList::default()
        }
    }

    /// Also trusts the build of `game` whose file has the SHA-256 `sha256`
    /// (hex, either case).
    pub fn with_build(mut self, game: &str, sha256: &str) -> TrustList {
        self.builds
            .insert((game.to_string(), sha256.to_ascii_lowercase()));
        self
    }

    /// Also trusts every file whose content is that of a file in `dir` as
    /// it is now.
    pub fn with_dir(mut self, dir: &Path) -> std::io::Result<TrustList> {
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_file() {
                let bytes = std::fs::read(&path)?;
                self.files.insert(crate::plugin::sha256_hex(&bytes));
            }
        }
        Ok(self)
    }

    /// Whether a file with content hash `sha256` may run in the host, and
    /// under which name (a build trusted by name must still say that name).
    pub(crate) fn trusts(&self, sha256: &str) -> Trusted {
        if self.everything || self.files.contains(sha256) {
            return Trusted::AnyName;
        }
        match self.builds.iter().find(|(_, hash)| hash == sha256) {
            Some((name, _)) => Trusted::AsName(name.clone()),
            None => Trusted::No,
        }
    }
}

/// What a trust list says of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Trusted {
    /// It runs in a worker.
    No,
    /// It runs in the host.
    AnyName,
    /// It runs in the host if its manifest names this game.
    AsName(String),
}

/// How plugins are run: in workers started by `spec`, except the builds
/// `trust` names; or all in the host (no spec).
#[derive(Clone, Default)]
pub struct Isolation {
    /// How to start a worker (`None`: every plugin runs in the host).
    pub spec: Option<WorkerSpec>,
    /// The builds that run in the host.
    pub trust: TrustList,
    /// When a plugin stops taking new matches.
    pub window: FaultWindow,
    /// Where faults go.
    pub sink: Option<FaultSink>,
}

impl fmt::Debug for Isolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Isolation")
            .field("spec", &self.spec)
            .field("trust", &self.trust)
            .field("window", &self.window)
            .finish_non_exhaustive()
    }
}

impl Isolation {
    /// Every plugin in the host: for tools and tests that load plugins
    /// they built.
    pub fn in_host() -> Isolation {
        Isolation::default()
    }
}
