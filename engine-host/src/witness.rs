//! The witness of a host on a shared store: a small process the host starts
//! (`engine-host host-witness`) that outlives it only to tell the database
//! that it died, so the other hosts need not wait out its lease.
//!
//! The host keeps the write end of a pipe whose read end is the witness's
//! stdin, and writes to it each id it takes among the database's hosts.
//! When the host dies (a crash, SIGKILL, an out-of-memory kill) the kernel
//! closes the pipe; the witness then marks the host's rows stale, and when
//! the host died inside a trusted plugin call, its fatal-signal handler
//! (`crash_note`) will have written the call's breadcrumb to the pipe first:
//! the witness leaves that call in the match's lease, and the next holder
//! quarantines the match instead of replaying it into the same crash. A
//! host that stops by itself has left the database already; the witness
//! finds nothing of it. A host paused or cut off keeps its pipe open: its
//! lease decides, as without a witness. A witness killed while its host
//! lives is reaped and started anew (see [`start`]).

use std::collections::VecDeque;
use std::io::{BufRead, Read};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tabletop_core::HostError;
use tabletop_loader::crumb::Crumb;

use crate::store::postgres::PostgresStore;

/// The hidden subcommand of the witness process.
pub const WITNESS_SUBCOMMAND: &str = "host-witness";

/// The environment variable the witness reads the store's URL from (not
/// its arguments: the URL may hold a password, and arguments are public).
const STORE_VARIABLE: &str = "TABLETOP_WITNESS_STORE";

/// The line prefix of a host id on the pipe.
const HOST_LINE: &str = "host\t";

/// The most ids the witness keeps: the latest (a host takes a new one
/// each time its row went stale).
const MAX_IDS: usize = 64;

/// The longest line the witness reads whole (an id, or a breadcrumb of at
/// most 256 bytes); a longer one is read past.
const MAX_LINE: usize = 1024;

/// The environment variable the witness reads the host's lease time (ms)
/// from: past it, the lease tells the others what the witness would.
const LEASE_VARIABLE: &str = "TABLETOP_WITNESS_LEASE_MS";

/// The ids this host told its witness (the latest [`MAX_IDS`]), told
/// again to a witness started anew.
static TOLD: Mutex<VecDeque<String>> = Mutex::new(VecDeque::new());

/// Most witnesses started anew within [`RESTART_WINDOW`] before the host
/// stops starting them (one that keeps ending at once is broken, not
/// unlucky).
const MAX_RESTARTS: usize = 3;
const RESTART_WINDOW: Duration = Duration::from_secs(60);

/// Starts the witness of this host on the store at `url`, whose leases
/// last `lease`, and a thread that waits on it: a witness that ends while
/// the host lives (killed by someone) is reaped and started anew, and told
/// the host's ids again.
pub fn start(url: &str, lease: Duration) -> std::io::Result<()> {
    let mut child = spawn(url, lease)?;
    let url = url.to_string();
    std::thread::Builder::new()
        .name("witness-keeper".into())
        .spawn(move || {
            let mut restarts: VecDeque<Instant> = VecDeque::new();
            loop {
                let ended = child.wait();
                restarts.retain(|at| at.elapsed() < RESTART_WINDOW);
                if restarts.len() >= MAX_RESTARTS {
                    tracing::error!(
                        "this host's witness keeps ending ({ended:?}); not started again: if the \
                         host dies, the others take its matches only after its lease"
                    );
                    return;
                }
                tracing::warn!("this host's witness ended ({ended:?}); starting another");
                std::thread::sleep(Duration::from_secs(1));
                restarts.push_back(Instant::now());
                match spawn(&url, lease) {
                    Ok(next) => {
                        child = next;
                        let told = TOLD.lock().unwrap_or_else(|e| e.into_inner());
                        for id in told.iter() {
                            write_id(id);
                        }
                    }
                    Err(e) => {
                        tracing::error!(error = %e, "cannot start this host's witness again");
                        return;
                    }
                }
            }
        })?;
    Ok(())
}

/// Starts one witness; the pipe's write end goes to `crash_note`.
fn spawn(url: &str, lease: Duration) -> std::io::Result<Child> {
    let (reader, writer) = std::io::pipe()?;
    let child = Command::new(std::env::current_exe()?)
        .arg(WITNESS_SUBCOMMAND)
        .env(STORE_VARIABLE, url)
        .env(LEASE_VARIABLE, lease.as_millis().to_string())
        .stdin(reader)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()?;
    crate::crash_note::arm_witness(writer);
    Ok(child)
}

/// Tells the witness an id this host took.
pub fn tell(host_id: &str) {
    let mut told = TOLD.lock().unwrap_or_else(|e| e.into_inner());
    if told.len() == MAX_IDS {
        told.pop_front();
    }
    told.push_back(host_id.to_string());
    write_id(host_id);
}

fn write_id(host_id: &str) {
    crate::crash_note::tell_witness(format!("{HOST_LINE}{host_id}\n").as_bytes());
}

/// The witness process: waits for the host to die, then tells the database.
pub fn run() -> std::process::ExitCode {
    // Signals sent to the host's process group (a terminal's Ctrl-C) are
    // the host's to act on: the witness ends when its pipe does.
    crate::crash_note::ignore_stop_signals();
    let Ok(url) = std::env::var(STORE_VARIABLE) else {
        eprintln!("engine-host {WITNESS_SUBCOMMAND}: started without a store");
        return std::process::ExitCode::FAILURE;
    };
    let (host_ids, died_in) = what_the_host_said(std::io::stdin().lock());
    if host_ids.is_empty() {
        return std::process::ExitCode::SUCCESS;
    }
    let died_in = died_in.map(|(crumb, how)| {
        let call = format!("{}'s {} ({how})", crumb.plugin, crumb.call);
        (crumb.match_id, call)
    });
    let died_in = died_in
        .as_ref()
        .map(|(match_id, call)| (match_id.as_str(), call.as_str()));
    // A database that is down is tried again until the lease would have
    // told the others anyway.
    let lease_ms = std::env::var(LEASE_VARIABLE)
        .ok()
        .and_then(|ms| ms.parse().ok())
        .unwrap_or(5_000);
    let until = Instant::now() + Duration::from_millis(lease_ms);
    loop {
        match PostgresStore::record_death(&url, &host_ids, died_in) {
            Ok(()) => {
                if let Some((match_id, call)) = died_in {
                    eprintln!(
                        "engine-host {WITNESS_SUBCOMMAND}: the host died in its plugin {call} on \
                         match {match_id}; the match's next holder quarantines it"
                    );
                }
                return std::process::ExitCode::SUCCESS;
            }
            Err(HostError::StoreUnavailable(_)) if Instant::now() < until => {
                std::thread::sleep(Duration::from_millis(500));
            }
            Err(e) => {
                eprintln!(
                    "engine-host {WITNESS_SUBCOMMAND}: cannot tell the database that the host \
                     died ({e}); its lease will"
                );
                return std::process::ExitCode::FAILURE;
            }
        }
    }
}

/// The latest ids the host took, and the breadcrumb of the trusted plugin
/// call it died in (one with a match), from what it wrote to the pipe, read
/// to its end (the host's death) in bounded memory.
fn what_the_host_said(mut pipe: impl BufRead) -> (Vec<String>, Option<(Crumb, String)>) {
    let mut ids = VecDeque::new();
    let mut died_in = None;
    let mut line = Vec::new();
    loop {
        line.clear();
        match (&mut pipe)
            .take(MAX_LINE as u64)
            .read_until(b'\n', &mut line)
        {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if line.len() == MAX_LINE && line.last() != Some(&b'\n') {
            // Too long to be ours: read past the rest of it.
            let _ = pipe.skip_until(b'\n');
            continue;
        }
        let text = String::from_utf8_lossy(&line);
        match text.trim_end().strip_prefix(HOST_LINE) {
            Some(id) => {
                if ids.len() == MAX_IDS {
                    ids.pop_front();
                }
                ids.push_back(id.to_string());
            }
            None => {
                died_in = Crumb::parse(&text).filter(|(crumb, _)| !crumb.match_id.is_empty());
            }
        }
    }
    (ids.into(), died_in)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pipe_gives_every_id_and_the_call_the_host_died_in() {
        let said = "host\th-1\nhost\th-2\ntiles@1.0.0\tm-9\tapply\tsignal 11 (SIGSEGV)\n";
        let (ids, died_in) = what_the_host_said(said.as_bytes());
        assert_eq!(ids, ["h-1", "h-2"]);
        let (crumb, how) = died_in.expect("a breadcrumb");
        assert_eq!(
            (
                crumb.plugin.as_str(),
                crumb.match_id.as_str(),
                crumb.call.as_str()
            ),
            ("tiles@1.0.0", "m-9", "apply")
        );
        assert_eq!(how, "signal 11 (SIGSEGV)");
    }

    #[test]
    fn a_host_that_died_outside_a_match_names_no_call() {
        let (ids, died_in) =
            what_the_host_said("host\th-1\ntiles@1.0.0\t\tmanifest\texit\n".as_bytes());
        assert_eq!(ids, ["h-1"]);
        assert!(died_in.is_none());
        assert_eq!(what_the_host_said("".as_bytes()).0, Vec::<String>::new());
    }

    #[test]
    fn a_long_life_keeps_the_latest_ids_in_bounded_memory() {
        let mut said = String::new();
        for n in 0..10_000 {
            said.push_str(&format!("host\th-{n}\n"));
        }
        said.push_str(&"x".repeat(100_000));
        said.push_str("\nhost\th-last\n");
        let (ids, _) = what_the_host_said(said.as_bytes());
        assert_eq!(ids.len(), MAX_IDS);
        assert_eq!(ids.last().map(String::as_str), Some("h-last"));
        assert_eq!(ids[0], format!("h-{}", 10_000 - MAX_IDS + 1));
    }
}
