//! The checking process of `tabletop plugin check`: caps its own memory and
//! CPU time, opens the plugin file, runs the conformance kit and writes
//! every event as one line on stdout ([`LINE_PREFIX`] then JSON), flushed
//! at once, so that its parent knows the check and the actions in progress
//! if the plugin kills the process.

use std::io::Write;
use std::path::PathBuf;

use serde_json::json;
use tabletop_sdk::DynGame;
use tabletop_sdk::conformance::{self, Config, Progress};
use tabletop_sdk::import::ImportedGame;

/// The hidden subcommand that runs the child: `tabletop CHILD_SUBCOMMAND
/// PLAYOUTS SEED CPU_SECONDS MEMORY_MIB FILE`.
pub const CHILD_SUBCOMMAND: &str = "__plugin-check-child";

/// What starts each of the child's lines; a plugin may print to stdout too.
pub const LINE_PREFIX: &str = "tabletop-check: ";

/// The exit code of a child that could not open the file.
pub const EXIT_UNOPENABLE: u8 = 3;

/// Writes one event line and flushes it.
fn emit(event: &serde_json::Value) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{LINE_PREFIX}{event}").and_then(|()| stdout.flush());
}

/// Caps the process's address space at `memory_mib` MiB and its CPU time at
/// `cpu_seconds` (SIGXCPU, then SIGKILL a second later).
fn cap(cpu_seconds: u64, memory_mib: u64) -> Result<(), String> {
    use nix::sys::resource::{Resource, setrlimit};
    let bytes = memory_mib.saturating_mul(1 << 20);
    setrlimit(Resource::RLIMIT_AS, bytes, bytes).map_err(|e| format!("memory cap: {e}"))?;
    setrlimit(Resource::RLIMIT_CPU, cpu_seconds, cpu_seconds + 1)
        .map_err(|e| format!("CPU cap: {e}"))?;
    Ok(())
}

/// The child's whole life; returns its exit code (0: it ran to the end,
/// whatever the checks found).
pub fn run(args: &[std::ffi::OsString]) -> u8 {
    let arg = |i: usize| args.get(i).and_then(|a| a.to_str()).unwrap_or_default();
    let number = |i: usize| arg(i).parse::<u64>().unwrap_or(0);
    let (playouts, seed, cpu_seconds, memory_mib) = (number(0), number(1), number(2), number(3));
    let Some(file) = args.get(4).map(PathBuf::from) else {
        eprintln!("usage: tabletop {CHILD_SUBCOMMAND} PLAYOUTS SEED CPU_SECONDS MEMORY_MIB FILE");
        return 2;
    };
    if let Err(e) = cap(cpu_seconds.max(1), memory_mib.max(64)) {
        eprintln!("tabletop: cannot cap the checking process: {e}");
        return 2;
    }
    emit(&json!({"event": "check", "name": "open"}));
    let game = match ImportedGame::open(&file) {
        Ok(game) => game,
        Err(e) => {
            emit(&json!({"event": "unopenable", "message": e.to_string()}));
            return EXIT_UNOPENABLE;
        }
    };
    let manifest = game.manifest();
    emit(&json!({
        "event": "opened",
        "game": manifest.name,
        "version": manifest.version,
    }));
    let config = Config::for_plugin_check(&game, u32::try_from(playouts).unwrap_or(u32::MAX), seed);
    let report = conformance::run_all(&game, &config, &watch);
    emit(&json!({"event": "done", "summary": report.summary}));
    0
}

/// Writes each event of the run as a line.
fn watch(progress: &Progress<'_>) {
    match progress {
        Progress::Match {
            players,
            options,
            seed,
            removals,
        } => emit(&json!({
            "event": "match",
            "players": players,
            "options": options,
            "seed": seed,
            "removals": removals,
        })),
        Progress::Check(name) => emit(&json!({"event": "check", "name": name})),
        Progress::Played(played) => emit(&json!({"event": "played", "step": played})),
        Progress::Failed(failure) => emit(&json!({"event": "failed", "failure": failure})),
    }
}
