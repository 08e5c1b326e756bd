//! Vetting a plugin file before the host loads it: the file is opened and
//! played a little in a short-lived child process, and only a file that
//! passes there is loaded into the host.
//!
//! Why a process: a damaged library can fault inside `dlopen` itself — in
//! the dynamic loader's relocation or its own assertions, before any code of
//! ours runs — and nothing inside a process survives that. In a child, the
//! same fault costs the child, and the parent reads what happened from its
//! exit status.
//!
//! - The child side is [`smoke_check`] (load, manifest, the SDK's
//!   conformance kit on a time budget) and [`run_child`] (a memory cap, a
//!   watchdog, the check, and one verdict line on stdout,
//!   [`VERDICT_PREFIX`] then JSON).
//! - The parent side is [`Vetter`]: it runs a program that calls
//!   [`run_child`] (engine-host runs itself with a hidden subcommand), kills
//!   it at a timeout, and turns what happened into a [`Report`] or a
//!   [`Refusal`] that says why. A pass is kept in a cache of verdicts
//!   ([`Vetter::with_verdict_cache`]), keyed by the file's SHA-256, the
//!   kit's version and the budget, so the same file is checked once.
//!
//! A pass says the file loads and passes the kit's checks on the matches
//! the budget allowed; it cannot prove that a part those matches never
//! reached is sound.

use std::ffi::OsString;
use std::fmt;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tabletop_sdk::DynGame;

use crate::plugin::Plugin;

mod cache;
mod kit;

/// What starts the child's verdict line on stdout; the JSON verdict follows.
/// A plugin may print to stdout too: the parent reads the last such line.
pub const VERDICT_PREFIX: &str = "tabletop-vet-verdict: ";

/// The default time the kit may spend starting matches in a check, in ms
/// (each player count plays one match whatever the budget).
pub const DEFAULT_BUDGET_MS: u64 = 1_500;

/// The default cap on the checking process's address space, in MiB.
pub const DEFAULT_MEMORY_MIB: u64 = 2_048;

/// How much of each of the child's output streams the parent keeps (the
/// end of it): the verdict is the last line of stdout, and the end of
/// stderr says why a process died.
const OUTPUT_KEPT: usize = 64 * 1024;

/// How many lines from the end of the child's stderr a crash reports.
const STDERR_LINES: usize = 3;

/// The exit code of a child whose watchdog fired (its parent is gone or
/// stopped waiting).
const EXIT_WATCHDOG: i32 = 124;

/// What a file that passed is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// The game's name.
    pub game: String,
    /// Its version.
    pub version: String,
    /// Hex SHA-256 of the content the child checked: the host loads the
    /// file only if it still has this content.
    pub sha256: String,
    /// How many matches the kit played.
    pub matches: u32,
    /// How many transitions they had in all.
    pub transitions: u64,
}

/// Why a file was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The loader refused the file: its message.
    Load(String),
    /// The plugin loaded but failed a check of the kit: which and how.
    Misbehaved(String),
    /// The checking process died without a verdict, or after one.
    Crashed {
        /// The signal or exit code.
        how: String,
        /// The last lines the process wrote to stderr.
        stderr: String,
    },
    /// The checking process gave no verdict in time and was killed.
    Hung {
        /// How long it had.
        timeout: Duration,
    },
    /// The file's content is not what was checked (it changed in between).
    Changed,
    /// The check itself could not run (the checking program would not start).
    Unchecked(String),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Load(why) => f.write_str(why),
            Refusal::Misbehaved(what) => write!(f, "failed the conformance kit: {what}"),
            Refusal::Crashed { how, stderr } if stderr.is_empty() => {
                write!(f, "crashed the checking process ({how})")
            }
            Refusal::Crashed { how, stderr } => {
                write!(f, "crashed the checking process ({how}): {stderr}")
            }
            Refusal::Hung { timeout } => write!(
                f,
                "hung: no verdict within {} ms, the checking process was killed",
                timeout.as_millis()
            ),
            Refusal::Changed => f.write_str("the file changed while it was being checked"),
            Refusal::Unchecked(why) => write!(f, "could not be checked: {why}"),
        }
    }
}

impl std::error::Error for Refusal {}

/// The child's one line of output, after [`VERDICT_PREFIX`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
enum Verdict {
    Passed(Report),
    Refused { reason: String },
    Misbehaved { reason: String },
}

// ---------------------------------------------------------------- child side

/// Loads `file` (its private copy goes to `cache_dir`), checks that its
/// options' defaults are values of theirs, and runs the SDK's conformance
/// kit on it for about `budget` (see `kit::config`): seeded random
/// matches at every player count, with every check of the kit. The first
/// failure of each check that failed is the misbehaviour.
///
/// Errors are [`Refusal::Load`] or [`Refusal::Misbehaved`]. Run it in a
/// process of its own ([`run_child`]): loading a damaged file can kill the
/// process.
pub fn smoke_check(file: &Path, cache_dir: &Path, budget: Duration) -> Result<Report, Refusal> {
    let plugin =
        Plugin::load_with_cache(file, cache_dir).map_err(|e| Refusal::Load(e.to_string()))?;
    let (matches, transitions) = kit::play_checks(&*plugin, budget)?;
    Ok(Report {
        game: plugin.manifest().name.clone(),
        version: plugin.manifest().version.clone(),
        sha256: plugin.sha256().to_string(),
        matches,
        transitions,
    })
}

/// Caps this process's address space at `mib` MiB: a plugin that allocates
/// without bound fails its check instead of taking the machine's memory.
#[cfg(unix)]
pub(crate) fn cap_memory(mib: u64) -> std::io::Result<()> {
    let bytes = mib.saturating_mul(1 << 20);
    nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_AS, bytes, bytes)
        .map_err(std::io::Error::from)
}

#[cfg(not(unix))]
pub(crate) fn cap_memory(_: u64) -> std::io::Result<()> {
    Ok(())
}

/// What a checking process is given besides its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChildLimits {
    /// Ends the process after this long, whatever it is doing.
    pub watchdog: Option<Duration>,
    /// The kit's time budget.
    pub budget: Duration,
    /// The cap on the address space, in MiB (`None`: none).
    pub memory_mib: Option<u64>,
}

/// The whole life of a checking process: arms a watchdog that ends the
/// process after `watchdog` (so a hung check ends even when its parent is
/// gone and cannot kill it) and the memory cap, runs [`smoke_check`] with
/// the budget, prints the verdict line
/// on stdout and returns the exit code (0: passed).
pub fn run_child(file: &Path, cache_dir: &Path, limits: ChildLimits) -> i32 {
    if let Some(mib) = limits.memory_mib
        && let Err(e) = cap_memory(mib)
    {
        eprintln!("vet: cannot cap the memory at {mib} MiB: {e}");
        return 2;
    }
    if let Some(limit) = limits.watchdog {
        let armed = std::thread::Builder::new()
            .name("vet-watchdog".into())
            .spawn(move || {
                std::thread::sleep(limit);
                eprintln!("vet: no verdict within {} ms; giving up", limit.as_millis());
                std::process::exit(EXIT_WATCHDOG);
            });
        if let Err(e) = armed {
            eprintln!("vet: cannot start the watchdog: {e}");
        }
    }
    let verdict = match smoke_check(file, cache_dir, limits.budget) {
        Ok(report) => Verdict::Passed(report),
        Err(Refusal::Load(reason)) => Verdict::Refused { reason },
        Err(Refusal::Misbehaved(reason)) => Verdict::Misbehaved { reason },
        Err(other) => Verdict::Misbehaved {
            reason: other.to_string(),
        },
    };
    let passed = matches!(verdict, Verdict::Passed(_));
    let line = match serde_json::to_string(&verdict) {
        Ok(json) => format!("{VERDICT_PREFIX}{json}\n"),
        Err(e) => {
            eprintln!("vet: cannot write the verdict: {e}");
            return 2;
        }
    };
    let mut stdout = std::io::stdout().lock();
    if stdout
        .write_all(line.as_bytes())
        .and_then(|()| stdout.flush())
        .is_err()
    {
        return 2;
    }
    if passed { 0 } else { 1 }
}

// --------------------------------------------------------------- parent side

/// Runs plugin files through a checking child process before the host loads
/// them. Each check runs `PROGRAM ARGS… --cache DIR --timeout-ms N
/// --budget-ms N --memory-mib N -- FILE`;
/// the program must call [`run_child`] with those (engine-host:
/// `engine-host vet-plugin`). At most `parallel` checks run at once; more
/// wait for a turn.
#[derive(Debug)]
pub struct Vetter {
    program: PathBuf,
    args: Vec<OsString>,
    timeout: Duration,
    budget: Duration,
    memory_mib: u64,
    verdicts: Option<PathBuf>,
    parallel: usize,
    running: Mutex<usize>,
    turn: Condvar,
}

/// Tells apart the scratch directories of the checks of one process.
static SCRATCH: AtomicUsize = AtomicUsize::new(0);

/// One running check's place among the `parallel`.
struct Turn<'v>(&'v Vetter);

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        let mut running = self.0.running.lock().unwrap_or_else(|e| e.into_inner());
        *running -= 1;
        self.0.turn.notify_one();
    }
}

impl Vetter {
    /// Checks with `program args…`, killing a check after `timeout`; as many
    /// checks at once as the machine has cores.
    pub fn new(program: PathBuf, args: Vec<OsString>, timeout: Duration) -> Vetter {
        let parallel = std::thread::available_parallelism().map_or(2, usize::from);
        Vetter {
            program,
            args,
            timeout,
            budget: Duration::from_millis(DEFAULT_BUDGET_MS),
            memory_mib: DEFAULT_MEMORY_MIB,
            verdicts: None,
            parallel,
            running: Mutex::new(0),
            turn: Condvar::new(),
        }
    }

    /// The same with at most `parallel` checks at once (at least one).
    #[must_use]
    pub fn with_parallel(mut self, parallel: usize) -> Vetter {
        self.parallel = parallel.max(1);
        self
    }

    /// The same with the kit's time budget `budget` and the checking
    /// process's address space capped at `memory_mib` MiB.
    #[must_use]
    pub fn with_budget(mut self, budget: Duration, memory_mib: u64) -> Vetter {
        self.budget = budget;
        self.memory_mib = memory_mib;
        self
    }

    /// The same keeping each pass in `dir`, under the file's SHA-256, the
    /// kit's version and the budget: a file whose pass is kept there is not
    /// checked again. Checks of the same content wait for each other, so
    /// hosts that start at once check a file once.
    #[must_use]
    pub fn with_verdict_cache(mut self, dir: PathBuf) -> Vetter {
        self.verdicts = Some(dir);
        self
    }

    /// How long a check may take.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    fn take_turn(&self) -> Turn<'_> {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        while *running >= self.parallel {
            running = self.turn.wait(running).unwrap_or_else(|e| e.into_inner());
        }
        *running += 1;
        Turn(self)
    }

    /// Checks `file` in a child process. The child's private copy goes to a
    /// directory of its own under `scratch`, removed afterwards, so a
    /// refused file leaves nothing behind.
    pub fn vet(&self, file: &Path, scratch: &Path) -> Result<Report, Refusal> {
        let Some(dir) = &self.verdicts else {
            return self.vet_uncached(file, scratch);
        };
        let cache = cache::Verdicts::new(dir, self.budget);
        let key = match cache.key(file) {
            Ok(key) => key,
            // The file cannot be read: the check says why.
            Err(_) => return self.vet_uncached(file, scratch),
        };
        let _lock = cache.lock(&key);
        if let Some(report) = cache.get(&key) {
            return Ok(report);
        }
        let vetted = self.vet_uncached(file, scratch);
        if let Ok(report) = &vetted
            && key.starts_with(&report.sha256)
            && let Err(e) = cache.put(&key, report)
        {
            tracing::warn!(dir = %dir.display(), error = %e, "cannot keep a plugin check's verdict");
        }
        vetted
    }

    fn vet_uncached(&self, file: &Path, scratch: &Path) -> Result<Report, Refusal> {
        let _turn = self.take_turn();
        let dir = scratch.join(format!(
            "vet-{}-{}",
            std::process::id(),
            SCRATCH.fetch_add(1, Ordering::Relaxed)
        ));
        if let Err(e) = std::fs::create_dir_all(&dir) {
            return Err(Refusal::Unchecked(format!(
                "cannot create {}: {e}",
                dir.display()
            )));
        }
        let vetted = self.run_child(file, &dir);
        if let Err(e) = std::fs::remove_dir_all(&dir) {
            tracing::warn!(dir = %dir.display(), error = %e, "cannot remove a plugin check's scratch directory");
        }
        vetted
    }

    /// [`Vetter::vet`] for each of `files`, several at once; the answers in
    /// the order of `files`.
    pub fn vet_all(&self, files: &[PathBuf], scratch: &Path) -> Vec<Result<Report, Refusal>> {
        let next = AtomicUsize::new(0);
        let answers: Mutex<Vec<Option<Result<Report, Refusal>>>> =
            Mutex::new(vec![None; files.len()]);
        std::thread::scope(|scope| {
            for _ in 0..self.parallel.min(files.len()) {
                scope.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(file) = files.get(i) else { break };
                        let answer = self.vet(file, scratch);
                        answers.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(answer);
                    }
                });
            }
        });
        answers
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .into_iter()
            .map(|a| a.unwrap_or_else(|| Err(Refusal::Unchecked("the check did not run".into()))))
            .collect()
    }

    fn run_child(&self, file: &Path, cache: &Path) -> Result<Report, Refusal> {
        // The child's own watchdog fires a little after the parent's
        // timeout: it only matters when the parent is gone.
        let watchdog = self.timeout + Duration::from_secs(1);
        let mut child = Command::new(&self.program)
            .args(&self.args)
            .arg("--cache")
            .arg(cache)
            .arg("--timeout-ms")
            .arg(watchdog.as_millis().to_string())
            .arg("--budget-ms")
            .arg(self.budget.as_millis().to_string())
            .arg("--memory-mib")
            .arg(self.memory_mib.to_string())
            .arg("--")
            .arg(file)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                Refusal::Unchecked(format!("cannot start {}: {e}", self.program.display()))
            })?;
        let stdout = Tail::read(child.stdout.take());
        let stderr = Tail::read(child.stderr.take());
        let deadline = Instant::now() + self.timeout;
        let mut pause = Duration::from_millis(1);
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() >= deadline => {
                    // Kill, then reap: no zombie is left behind.
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
                Ok(None) => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(20));
                }
                Err(e) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(Refusal::Unchecked(format!(
                        "cannot wait for the checking process: {e}"
                    )));
                }
            }
        };
        let (stdout, stderr) = (stdout.finish(), stderr.finish());
        match status {
            None => Err(Refusal::Hung {
                timeout: self.timeout,
            }),
            Some(status) => judge(Exit::of(status), &stdout, &stderr),
        }
    }
}

/// The end of one of the child's output streams, read on a thread of its
/// own so that the child never blocks on a full pipe.
struct Tail(Option<mpsc::Receiver<Vec<u8>>>);

impl Tail {
    fn read(stream: Option<impl Read + Send + 'static>) -> Tail {
        let Some(mut stream) = stream else {
            return Tail(None);
        };
        let (send, receive) = mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("vet-output".into())
            .spawn(move || {
                let mut kept = Vec::new();
                let mut chunk = [0u8; 8192];
                loop {
                    match stream.read(&mut chunk) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            kept.extend_from_slice(&chunk[..n]);
                            if kept.len() > 2 * OUTPUT_KEPT {
                                kept.drain(..kept.len() - OUTPUT_KEPT);
                            }
                        }
                    }
                }
                if kept.len() > OUTPUT_KEPT {
                    kept.drain(..kept.len() - OUTPUT_KEPT);
                }
                let _ = send.send(kept);
            });
        Tail(spawned.ok().map(|_| receive))
    }

    /// What was read. A process the child started may hold the pipe open
    /// after the child is gone: the end of the stream is awaited briefly.
    fn finish(self) -> Vec<u8> {
        self.0
            .and_then(|r| r.recv_timeout(Duration::from_secs(1)).ok())
            .unwrap_or_default()
    }
}

/// How a child process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exit {
    /// It exited with this code.
    Code(i32),
    /// A signal killed it.
    Signal(i32),
    /// Neither is known.
    Unknown,
}

impl Exit {
    fn of(status: ExitStatus) -> Exit {
        #[cfg(unix)]
        if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(&status) {
            return Exit::Signal(signal);
        }
        status.code().map_or(Exit::Unknown, Exit::Code)
    }
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Exit::Code(code) => write!(f, "exit code {code}"),
            Exit::Signal(signal) => match signal_name(signal) {
                Some(name) => write!(f, "{name}, signal {signal}"),
                None => write!(f, "signal {signal}"),
            },
            Exit::Unknown => f.write_str("ended abnormally"),
        }
    }
}

/// The usual name of a signal that ends a crashing process (Linux numbers).
fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        24 => "SIGXCPU",
        25 => "SIGXFSZ",
        31 => "SIGSYS",
        _ => return None,
    })
}

/// The verdict from how the child ended and what it wrote. A refusal the
/// child wrote stands, however it ended (a library the loader opened and
/// then refused may still fault while the process exits). A pass counts
/// only with exit code 0: a plugin that crashes at exit would crash the
/// host at its exit. No verdict at all is a crash.
fn judge(exit: Exit, stdout: &[u8], stderr: &[u8]) -> Result<Report, Refusal> {
    let crashed = |how: String| Refusal::Crashed {
        how,
        stderr: stderr_tail(stderr),
    };
    let line = String::from_utf8_lossy(stdout)
        .lines()
        .rev()
        .find_map(|line| line.strip_prefix(VERDICT_PREFIX).map(str::to_string));
    let verdict = line.map(|line| serde_json::from_str::<Verdict>(&line));
    match (verdict, exit) {
        (Some(Ok(Verdict::Refused { reason })), _) => Err(Refusal::Load(printable(&reason))),
        (Some(Ok(Verdict::Misbehaved { reason })), _) => {
            Err(Refusal::Misbehaved(printable(&reason)))
        }
        (Some(Ok(Verdict::Passed(report))), Exit::Code(0)) => Ok(report),
        (Some(Ok(Verdict::Passed(_))), _) => Err(crashed(format!("{exit} after passing"))),
        (_, Exit::Signal(_) | Exit::Unknown) => Err(crashed(exit.to_string())),
        (None, Exit::Code(_)) => Err(crashed(format!("{exit}, no verdict"))),
        (Some(Err(e)), Exit::Code(_)) => Err(Refusal::Unchecked(format!(
            "the checking process wrote a malformed verdict: {e}"
        ))),
    }
}

/// The longest text of the child's that a refusal quotes, in characters.
const QUOTED: usize = 400;

/// `text` fit for one log line: control characters escaped (a damaged
/// library's garbage reaches the loader's messages), at most [`QUOTED`]
/// characters, from the start.
fn printable(text: &str) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == QUOTED {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The last few non-empty lines of `stderr`, on one line, printable, short.
fn stderr_tail(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let mut lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .rev()
        .take(STDERR_LINES)
        .collect();
    lines.reverse();
    let joined: String = lines
        .join(" | ")
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let count = joined.chars().count();
    match joined.char_indices().nth(count.saturating_sub(QUOTED)) {
        Some((cut, _)) if cut > 0 => format!("…{}", &joined[cut..]),
        _ => joined,
    }
}

#[cfg(test)]
mod tests;
