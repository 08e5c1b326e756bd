//! One worker process as the host sees it: started with a cleared
//! environment, its standard input a listening socket and its output
//! captured; called over a pool of connections, each call with a deadline;
//! killed when a call overruns, and told apart when it dies: which call was
//! in it, and how it ended.

use std::ffi::OsString;
use std::io::{BufReader, BufWriter, Write};
use std::os::fd::OwnedFd;
use std::os::unix::net::{UnixListener, UnixStream};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use tabletop_sdk::GameError;

use super::output::capture;
use super::protocol::{Answer, Handle, Reply, Request, game_error, read_frame, write_frame};

/// How to start a worker: the program (engine-host, which serves as
/// `engine-host plugin-worker`), its bounds and its deadline per call.
#[derive(Debug, Clone)]
pub struct WorkerSpec {
    /// The program to run.
    pub program: PathBuf,
    /// Its arguments before `--memory-mib N -- FILE`.
    pub args: Vec<OsString>,
    /// The cap on each worker's address space, in MiB (`None`: none).
    pub memory_mib: Option<u64>,
    /// The longest one call may take before its worker is killed.
    pub call_deadline: Duration,
    /// Where the workers' sockets are made (a directory only this user can
    /// enter).
    pub socket_dir: PathBuf,
    /// Lines of a worker's output logged per second, at most.
    pub output_lines_per_second: u32,
}

/// How a worker ended, once it has.
#[derive(Debug, Clone)]
pub(crate) struct Death {
    /// The signal or exit code, or why the host killed it.
    pub how: String,
    /// The matches (labels) of the calls in the worker when its end was
    /// seen: when there is one call, or all are one match's, that match's
    /// call ended it.
    pub in_flight: Vec<Option<String>>,
    /// Whether the host killed it for overrunning a call's deadline.
    pub killed_for_deadline: bool,
    /// Whether a culprit call has reported the fault: one death is one
    /// fault, however many of its match's calls it ended.
    pub reported: Arc<AtomicBool>,
}

impl Death {
    /// Whether the call of match `label` that saw this death ended it.
    fn blames(&self, label: Option<&str>) -> bool {
        match self.in_flight.as_slice() {
            [_] => true,
            calls => label.is_some() && calls.iter().all(|call| call.as_deref() == label),
        }
    }
}

/// Why a call has no answer.
#[derive(Debug)]
pub(crate) enum CallError {
    /// The worker answered with the game's error.
    Game(GameError),
    /// The worker had already ended before the call was sent: make the
    /// state again in a fresh one and call again.
    Stale,
    /// The worker ended during the call. `culprit`: this call ended it
    /// (the one whose deadline passed, or the only call in it, or one of
    /// the only match's calls in it).
    Died { death: Death, culprit: bool },
}

/// One worker process.
#[derive(Debug)]
pub(crate) struct Process {
    /// Which of its plugin's workers this is (1, 2, …).
    generation: u64,
    /// `game@version`, for the log.
    label: String,
    child: Mutex<Child>,
    socket: PathBuf,
    idle: Mutex<Vec<Connection>>,
    next_handle: AtomicU64,
    /// The match (label) of each call in the worker.
    in_flight: Mutex<Vec<Option<String>>>,
    death: OnceLock<Death>,
    call_deadline: Duration,
    started: Instant,
}

#[derive(Debug)]
struct Connection {
    reader: BufReader<UnixStream>,
    writer: BufWriter<UnixStream>,
    buffer: Vec<u8>,
    /// The socket's read and write timeouts as last set: most calls have
    /// the default deadline, and setting it again costs two system calls.
    timeouts: Option<Duration>,
}

/// Tells apart the sockets of the workers of one host.
static SOCKETS: AtomicU64 = AtomicU64::new(0);

impl Process {
    /// Starts a worker for the plugin file `file` (a private copy).
    pub(crate) fn start(
        spec: &WorkerSpec,
        file: &Path,
        label: &str,
        generation: u64,
    ) -> std::io::Result<Arc<Process>> {
        std::fs::create_dir_all(&spec.socket_dir)?;
        set_private(&spec.socket_dir)?;
        let socket = spec.socket_dir.join(format!(
            "{}-{}.sock",
            std::process::id(),
            SOCKETS.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_file(&socket);
        let listener = UnixListener::bind(&socket)?;
        // The worker runs wherever; it is given the file's full path.
        let file = std::path::absolute(file)?;
        let mut command = Command::new(&spec.program);
        command.args(&spec.args);
        if let Some(mib) = spec.memory_mib {
            command.arg("--memory-mib").arg(mib.to_string());
        }
        command
            .arg("--")
            .arg(&file)
            // No credentials, no configuration: the worker needs nothing
            // from the host's environment.
            .env_clear()
            .stdin(Stdio::from(OwnedFd::from(listener)))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(e) => {
                let _ = std::fs::remove_file(&socket);
                return Err(e);
            }
        };
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let process = Arc::new(Process {
            generation,
            label: label.to_string(),
            child: Mutex::new(child),
            socket,
            idle: Mutex::new(Vec::new()),
            next_handle: AtomicU64::new(1),
            in_flight: Mutex::new(Vec::new()),
            death: OnceLock::new(),
            call_deadline: spec.call_deadline,
            started: Instant::now(),
        });
        let rate = spec.output_lines_per_second;
        if let Some(stdout) = stdout {
            capture(stdout, label, "stdout", rate, None);
        }
        if let Some(stderr) = stderr {
            // Its stderr ends when it does: a worker that ends between
            // calls is noticed (and reaped) then, not at its next call.
            let noticed = Arc::downgrade(&process);
            let on_end = move || {
                if let Some(process) = noticed.upgrade() {
                    process.died(String::new(), false, None);
                }
            };
            capture(stderr, label, "stderr", rate, Some(Box::new(on_end)));
        }
        Ok(process)
    }

    /// The worker's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .id()
    }

    /// Whether it still serves (as far as the host has seen).
    pub(crate) fn is_alive(&self) -> bool {
        self.death.get().is_none()
    }

    /// How long it has run.
    pub(crate) fn age(&self) -> Duration {
        self.started.elapsed()
    }

    /// A handle for a new state in this worker.
    pub(crate) fn new_handle(&self) -> Handle {
        self.next_handle.fetch_add(1, Ordering::Relaxed)
    }

    /// Calls the worker with the default deadline, for the match labelled
    /// `label` (none: not a match's call).
    pub(crate) fn call(&self, request: &Request, label: Option<&str>) -> Result<Answer, CallError> {
        self.call_within(request, self.call_deadline, label)
    }

    /// Calls the worker for the match labelled `label`; a call without an
    /// answer within `deadline` kills it.
    pub(crate) fn call_within(
        &self,
        request: &Request,
        deadline: Duration,
        label: Option<&str>,
    ) -> Result<Answer, CallError> {
        if !self.is_alive() {
            return Err(CallError::Stale);
        }
        let Ok(mut connection) = self.connection() else {
            // Its socket refuses connections: it has ended.
            self.died(String::new(), false, None);
            return Err(CallError::Stale);
        };
        // A call counts as in flight until its outcome is recorded: were it
        // let go before its `died`, the stderr watcher could record the
        // death in between without it, and blame nobody.
        self.calls().push(label.map(str::to_string));
        let answered = connection.exchange(request, deadline);
        let outcome = match answered {
            Ok(reply) => {
                self.idle
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(connection);
                reply.map_err(|e| CallError::Game(game_error(e)))
            }
            // The request never reached a live worker: it had ended before.
            Err(Exchange::Unsent) => {
                self.call_ended(label);
                self.died(String::new(), false, None);
                return Err(CallError::Stale);
            }
            Err(Exchange::Unanswered(e)) if is_timeout(&e) => Err(self.died(
                format!(
                    "killed: no answer within {} ms to {}",
                    deadline.as_millis(),
                    request.name()
                ),
                true,
                label,
            )),
            Err(Exchange::Unanswered(_)) => Err(self.died(String::new(), false, label)),
        };
        self.call_ended(label);
        outcome
    }

    fn calls(&self) -> std::sync::MutexGuard<'_, Vec<Option<String>>> {
        self.in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// A call of `label` is no longer in the worker.
    fn call_ended(&self, label: Option<&str>) {
        let mut calls = self.calls();
        if let Some(at) = calls.iter().position(|call| call.as_deref() == label) {
            calls.swap_remove(at);
        }
    }

    /// Tells the worker to forget a state, without waiting.
    pub(crate) fn forget(&self, handle: Handle) {
        if !self.is_alive() {
            return;
        }
        if let Ok(mut connection) = self.connection()
            && write_frame(&mut connection.writer, &Request::Drop { handle })
                .and_then(|()| connection.writer.flush())
                .is_ok()
        {
            self.idle
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(connection);
        }
    }

    /// Ends the worker (the host retires it, or stops).
    pub(crate) fn stop(&self) {
        self.died("stopped by the host".into(), false, None);
    }

    fn connection(&self) -> std::io::Result<Connection> {
        if let Some(connection) = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop()
        {
            return Ok(connection);
        }
        let stream = UnixStream::connect(&self.socket)?;
        Ok(Connection {
            reader: BufReader::new(stream.try_clone()?),
            writer: BufWriter::new(stream),
            buffer: Vec::new(),
            timeouts: None,
        })
    }

    /// Records the worker's end (the first to see it kills and reaps it)
    /// and says what the call that saw it is told. `killed_by`: why this
    /// call killed it (empty: it ended by itself); `by_deadline`: this
    /// call's deadline passed; `label`: the match whose call saw it (none:
    /// no call, or not a match's).
    fn died(&self, killed_by: String, by_deadline: bool, label: Option<&str>) -> CallError {
        let mut first = false;
        let death = self.death.get_or_init(|| {
            first = true;
            // Calls in it when its end was seen (a calling one included).
            let in_flight = self.calls().clone();
            let how = self.reap(&killed_by);
            Death {
                how,
                in_flight,
                killed_for_deadline: by_deadline,
                reported: Arc::default(),
            }
        });
        if first {
            self.idle
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clear();
            let _ = std::fs::remove_file(&self.socket);
            tracing::info!(plugin = %self.label, generation = self.generation, how = %death.how, "a plugin worker ended");
        }
        let culprit = (first && by_deadline) || (!death.killed_for_deadline && death.blames(label));
        CallError::Died {
            death: death.clone(),
            culprit,
        }
    }

    /// Kills the worker (it may have ended already) and says how it ended.
    fn reap(&self, killed_by: &str) -> String {
        let mut child = self.child.lock().unwrap_or_else(PoisonError::into_inner);
        // An end of its own shows within moments; give it those before the
        // kill, so the log says what it did rather than that it was killed.
        if killed_by.is_empty() {
            let until = Instant::now() + Duration::from_millis(200);
            while Instant::now() < until {
                if let Ok(Some(status)) = child.try_wait() {
                    return describe(status);
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        let _ = child.kill();
        let status = child.wait();
        match (killed_by.is_empty(), status) {
            (false, _) => killed_by.to_string(),
            (true, Ok(status)) => describe(status),
            (true, Err(e)) => format!("ended, status unknown: {e}"),
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if self.is_alive() {
            self.stop();
        }
    }
}

/// Why an exchange on a connection has no reply.
enum Exchange {
    /// The request could not be written: the worker had hung up.
    Unsent,
    /// The request was written; no reply came.
    Unanswered(std::io::Error),
}

impl Connection {
    fn exchange(&mut self, request: &Request, deadline: Duration) -> Result<Reply, Exchange> {
        if self.timeouts != Some(deadline) {
            let stream = self.reader.get_ref();
            stream
                .set_read_timeout(Some(deadline))
                .and_then(|()| stream.set_write_timeout(Some(deadline)))
                .map_err(|_| Exchange::Unsent)?;
            self.timeouts = Some(deadline);
        }
        write_frame(&mut self.writer, request)
            .and_then(|()| self.writer.flush())
            .map_err(|_| Exchange::Unsent)?;
        read_frame::<Reply>(&mut self.reader, &mut self.buffer)
            .and_then(|reply| {
                reply.ok_or_else(|| {
                    std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the worker hung up")
                })
            })
            .map_err(Exchange::Unanswered)
    }
}

fn is_timeout(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
    )
}

/// How a process ended, for a person: `signal 11 (SIGSEGV)`, `exit code 0`.
fn describe(status: ExitStatus) -> String {
    if let Some(signal) = status.signal() {
        let name = nix::sys::signal::Signal::try_from(signal)
            .map(|s| s.as_str())
            .unwrap_or("?");
        return format!("signal {signal} ({name})");
    }
    match status.code() {
        Some(code) => format!("exit code {code}"),
        None => status.to_string(),
    }
}

/// Makes `dir` enterable by this user only.
fn set_private(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
}
