//! The note a host leaves when it dies inside a call into a trusted
//! plugin (one that runs in the host, not in a worker), so its next start
//! names the plugin, the match and the call and quarantines that match
//! instead of replaying it into the same crash.
//!
//! The calls leave their breadcrumb in thread-local memory
//! ([`tabletop_loader::crumb`]). Here, a handler of the fatal signals
//! (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) and an `atexit` hook (a
//! plugin that calls `exit`) copy the dying thread's breadcrumb into a file
//! opened at start — and, on a store several hosts share, into the pipe of
//! the host's witness (`witness`), for the host that takes the match next —
//! with `write(2)`, which a signal handler may call; then the signal takes
//! its course. This module and `malloc` hold the crate's
//! `unsafe`: installing a signal handler has no safe wrapper that allows
//! writing from it.

#![allow(unsafe_code)]

use std::io::Read;
use std::os::fd::{IntoRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};

use tabletop_loader::crumb::{Crumb, write_current};

/// The note file's descriptor (-1: none).
static NOTE_FD: AtomicI32 = AtomicI32::new(-1);

/// The write end of the witness's pipe (-1: none; see `witness`).
static WITNESS_FD: AtomicI32 = AtomicI32::new(-1);

/// The signals a plugin's fault raises.
const FATAL: [libc::c_int; 5] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGILL,
    libc::SIGFPE,
    libc::SIGABRT,
];

/// The note file in the data directory.
pub fn note_path(data_dir: &Path) -> PathBuf {
    data_dir.join("crash-note")
}

/// What the note of the host's last run says, if it died in a trusted
/// plugin call: the breadcrumb and how it died. Clears the note.
pub fn take_last(data_dir: &Path) -> Option<(Crumb, String)> {
    let path = note_path(data_dir);
    let mut text = String::new();
    std::fs::File::open(&path)
        .ok()?
        .take(4096)
        .read_to_string(&mut text)
        .ok()?;
    let _ = std::fs::remove_file(&path);
    Crumb::parse(&text)
}

/// Opens the note file and installs the handlers. Call once at start,
/// after [`take_last`].
pub fn install(data_dir: &Path) -> std::io::Result<()> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .open(note_path(data_dir))?;
    NOTE_FD.store(file.into_raw_fd(), Ordering::SeqCst);
    for signal in FATAL {
        // SAFETY: `on_fatal_signal` only calls async-signal-safe functions
        // (write, sigaction via `restore_default`) and reads thread-local
        // memory without allocating; SA_RESETHAND makes the next delivery
        // of the signal take its default action (and so end the process).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_fatal_signal as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_RESETHAND | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(signal, &action, std::ptr::null_mut()) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
    }
    // SAFETY: `on_exit` only reads thread-local memory and calls write(2).
    if unsafe { libc::atexit(on_exit) } != 0 {
        return Err(std::io::Error::other("atexit refused the hook"));
    }
    Ok(())
}

/// Gives the handlers the write end of the witness's pipe: they write the
/// breadcrumb there too, for the other hosts of a shared store.
pub fn arm_witness(pipe: std::io::PipeWriter) {
    let fd = pipe.into_raw_fd();
    // SAFETY: `fd` is the pipe's open descriptor, owned here. Non-blocking:
    // a witness that stopped reading costs a lost line, never a host (or a
    // dying host's handler) stuck in write(2).
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
    }
    let current = WITNESS_FD.load(Ordering::SeqCst);
    if current < 0 {
        WITNESS_FD.store(fd, Ordering::SeqCst);
        return;
    }
    // A witness started anew: its pipe takes the number the writers
    // already hold, in one step (closing the old number instead would let
    // a write in flight land in whatever file took the number next).
    // SAFETY: both are descriptors this module owns; dup3 replaces
    // `current` atomically and keeps it close-on-exec (plugin workers must
    // not hold the pipe open), then the spare number is closed.
    unsafe {
        libc::dup3(fd, current, libc::O_CLOEXEC);
        libc::close(fd);
    }
}

/// Writes `bytes` to the witness's pipe, if there is one. A failed write
/// costs only the witness's knowledge.
pub fn tell_witness(bytes: &[u8]) {
    let fd: RawFd = WITNESS_FD.load(Ordering::SeqCst);
    if fd < 0 {
        return;
    }
    // SAFETY: `bytes` is valid for its length; the descriptor is the
    // pipe's, kept open for the process's life (a new witness's pipe takes
    // the same number: see `arm_witness`). Writes of at most PIPE_BUF
    // bytes are atomic, so a line never mixes with a handler's.
    unsafe {
        libc::write(fd, bytes.as_ptr().cast(), bytes.len());
    }
}

/// Makes SIGINT, SIGTERM and SIGHUP leave this process (the witness) be.
pub fn ignore_stop_signals() {
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: SIG_IGN is a valid disposition for these signals, and
        // this process installs no handler of its own for them.
        unsafe {
            libc::signal(signal, libc::SIG_IGN);
        }
    }
}

/// Writes the current thread's breadcrumb and `how` to the note and to the
/// witness.
fn write_note(how: &[u8]) {
    let mut line = [0u8; 256];
    let mut len = write_current(&mut line);
    if len == 0 {
        return;
    }
    for part in [b"\t".as_slice(), how, b"\n"] {
        let take = part.len().min(line.len() - len);
        line[len..len + take].copy_from_slice(&part[..take]);
        len += take;
    }
    for fd in [
        NOTE_FD.load(Ordering::SeqCst),
        WITNESS_FD.load(Ordering::SeqCst),
    ] {
        if fd < 0 {
            continue;
        }
        // SAFETY: `line[..len]` is initialised memory of this frame;
        // write(2) is async-signal-safe. A short or failed write loses the
        // note only.
        unsafe {
            libc::write(fd, line.as_ptr().cast(), len);
        }
    }
}

extern "C" fn on_fatal_signal(
    signal: libc::c_int,
    _info: *mut libc::siginfo_t,
    _context: *mut libc::c_void,
) {
    let how: &[u8] = match signal {
        libc::SIGSEGV => b"signal 11 (SIGSEGV)",
        libc::SIGBUS => b"signal 7 (SIGBUS)",
        libc::SIGILL => b"signal 4 (SIGILL)",
        libc::SIGFPE => b"signal 8 (SIGFPE)",
        libc::SIGABRT => b"signal 6 (SIGABRT)",
        _ => b"a fatal signal",
    };
    write_note(how);
    // Returning re-runs the faulting instruction (or lets abort go on),
    // now under the default action: the process ends with the signal.
}

extern "C" fn on_exit() {
    write_note(b"exit (the plugin ended the process)");
}
