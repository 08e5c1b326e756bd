//! Processes the tool measures: spawning a server, and reading its memory
//! and CPU time (each with its plugin workers', summed) and the machine's
//! CPU model from /proc through `procfs` (Linux; elsewhere the figures are
//! absent).

use std::collections::VecDeque;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// A server this tool started; killed when dropped.
#[derive(Debug)]
pub struct Spawned {
    /// The process.
    pub child: Child,
    /// Its process id.
    pub pid: u32,
    /// `http://ADDR` as printed by the server.
    pub url: String,
    /// A scratch data directory removed on drop.
    data_dir: Option<std::path::PathBuf>,
}

impl Drop for Spawned {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
        if let Some(dir) = &self.data_dir {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// The limits a spawned engine-host is started with before the caller's
/// own flags (a later flag wins): the load tool's players share one
/// anonymous key and create hundreds of matches a second, far past the
/// host's per-credential defaults, which are set for a platform's clients.
/// The server-wide limits stay as they are.
pub const BENCH_LIMITS: [&str; 6] = [
    "--credential-rate",
    "0",
    "--creates-per-minute",
    "0",
    "--credential-calls-in-flight",
    "0",
];

/// The lines a spawned server wrote on stderr, kept as they come (the
/// latest [`HostLog::KEPT`]).
#[derive(Debug, Clone, Default)]
pub struct HostLog {
    lines: Arc<Mutex<VecDeque<String>>>,
}

impl HostLog {
    /// The most lines kept; older ones are dropped.
    pub const KEPT: usize = 100_000;

    /// The lines kept so far.
    pub fn lines(&self) -> Vec<String> {
        self.lines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .cloned()
            .collect()
    }

    /// Keeps `line`.
    pub fn push(&self, line: String) {
        let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        if lines.len() == Self::KEPT {
            lines.pop_front();
        }
        lines.push_back(line);
    }
}

/// Starts `program args.. --listen 127.0.0.1:0` and waits (up to 60 s) for its
/// `listening on ADDR` line. With `data_dir` (engine-host), [`BENCH_LIMITS`]
/// come before `args`, and a fresh scratch directory is passed as
/// `--data-dir` and removed afterwards.
pub async fn spawn(program: &Path, args: &[String], data_dir: bool) -> Result<Spawned, String> {
    start(program, args, data_dir, None).await
}

/// [`spawn`]s an engine-host (with a scratch data directory) and keeps the
/// lines it writes on stderr, its log.
pub async fn spawn_logged(program: &Path, args: &[String]) -> Result<(Spawned, HostLog), String> {
    let log = HostLog::default();
    let spawned = start(program, args, true, Some(log.clone())).await?;
    Ok((spawned, log))
}

async fn start(
    program: &Path,
    args: &[String],
    data_dir: bool,
    log: Option<HostLog>,
) -> Result<Spawned, String> {
    let mut command = Command::new(program);
    if data_dir {
        command.args(BENCH_LIMITS);
    }
    // An admin token goes in the environment, as the README says: the
    // server warns of one in its arguments, which every user can read.
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--admin-token" => {
                if let Some(token) = rest.next() {
                    command.env("TABLETOP_ADMIN_TOKEN", token);
                }
            }
            _ => {
                command.arg(arg);
            }
        }
    }
    command.arg("--listen").arg("127.0.0.1:0");
    let dir = if data_dir {
        let dir = std::env::temp_dir().join(format!(
            "tabletop-bench-{}-{}",
            std::process::id(),
            rand::random::<u32>()
        ));
        command.arg("--data-dir").arg(&dir);
        Some(dir)
    } else {
        None
    };
    command
        .stdout(Stdio::piped())
        .stderr(if log.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdin(Stdio::null())
        .kill_on_drop(true);
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
    let pid = child.id().ok_or("the server exited at once")?;
    if let (Some(log), Some(stderr)) = (log, child.stderr.take()) {
        let mut lines = BufReader::new(stderr).lines();
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                log.push(line);
            }
        });
    }
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut lines = BufReader::new(stdout).lines();
    let wait = async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(addr) = line.strip_prefix("listening on ") {
                return Some(addr.trim().to_string());
            }
        }
        None
    };
    let addr = tokio::time::timeout(Duration::from_secs(60), wait)
        .await
        .map_err(|_| {
            format!(
                "{} did not print `listening on` within 60 s",
                program.display()
            )
        })?
        .ok_or_else(|| format!("{} exited before listening", program.display()))?;
    // Keep draining stdout so the server never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Ok(Spawned {
        child,
        pid,
        url: format!("http://{addr}"),
        data_dir: dir,
    })
}

/// Kills process `pid` outright (SIGKILL), as a crash would end it.
#[cfg(unix)]
pub fn kill(pid: u32) -> Result<(), String> {
    let raw = i32::try_from(pid).map_err(|_| format!("no process {pid}"))?;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(raw),
        nix::sys::signal::Signal::SIGKILL,
    )
    .map_err(|e| format!("cannot kill process {pid}: {e}"))
}

/// Elsewhere the tool kills nothing.
#[cfg(not(unix))]
pub fn kill(pid: u32) -> Result<(), String> {
    Err(format!("cannot kill process {pid}: only on unix"))
}

/// The resident set size of a process, in bytes (`VmRSS`).
pub fn rss_bytes(pid: u32) -> Option<u64> {
    os::status(pid).and_then(|s| s.rss_kib).map(kib_to_bytes)
}

/// The peak resident set size of a process, in bytes (`VmHWM`).
pub fn peak_rss_bytes(pid: u32) -> Option<u64> {
    os::status(pid)
        .and_then(|s| s.peak_rss_kib)
        .map(kib_to_bytes)
}

/// The resident set size of this process, in bytes.
pub fn own_rss_bytes() -> Option<u64> {
    os::own_status().and_then(|s| s.rss_kib).map(kib_to_bytes)
}

/// User + system CPU seconds of a process so far (`/proc/<pid>/stat`).
pub fn cpu_seconds(pid: u32) -> Option<f64> {
    os::cpu_seconds(pid)
}

/// CPU seconds of a process and its child processes so far.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TreeCpu {
    /// The process and its children together.
    pub total: f64,
    /// Of it, the children: those it has waited for, and those running now.
    pub children: f64,
}

/// User + system CPU seconds of a process and of its child processes (an
/// engine-host's plugin workers, whose calls are part of its work): a
/// child's CPU is counted while it runs and, once the process has reaped
/// it, in the process's own `cutime`/`cstime`, so a worker that ends
/// between two readings is still counted. A child that ends and is not
/// reaped by the second reading is missed.
pub fn tree_cpu_seconds(pid: u32) -> Option<TreeCpu> {
    os::tree_cpu_seconds(pid)
}

/// Resident memory of a process and of its child processes (an
/// engine-host's plugin workers) together, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TreeRss {
    /// The sum of their resident set sizes now (`VmRSS`).
    pub rss_bytes: u64,
    /// The sum of each one's own peak (`VmHWM`): at least the peak of the
    /// sum, more when they peaked at different times.
    pub peaks_bytes: u64,
    /// The child processes counted.
    pub children: u32,
}

/// [`TreeRss`] of `pid` and its children running now.
pub fn tree_rss(pid: u32) -> Option<TreeRss> {
    os::tree_rss(pid)
}

/// The model name of the first CPU (`/proc/cpuinfo`), if known.
pub fn cpu_model() -> Option<String> {
    os::cpu_model()
}

/// The memory figures of `/proc/<pid>/status`, in kibibytes as /proc gives
/// them.
struct Memory {
    rss_kib: Option<u64>,
    peak_rss_kib: Option<u64>,
}

fn kib_to_bytes(kib: u64) -> u64 {
    kib * 1024
}

#[cfg(target_os = "linux")]
mod os {
    use procfs::Current;
    use procfs::process::Process;

    use super::{Memory, TreeCpu};

    fn process(pid: u32) -> Option<Process> {
        Process::new(i32::try_from(pid).ok()?).ok()
    }

    fn memory(process: Process) -> Option<Memory> {
        let status = process.status().ok()?;
        Some(Memory {
            rss_kib: status.vmrss,
            peak_rss_kib: status.vmhwm,
        })
    }

    pub fn status(pid: u32) -> Option<Memory> {
        memory(process(pid)?)
    }

    pub fn own_status() -> Option<Memory> {
        memory(Process::myself().ok()?)
    }

    pub fn cpu_seconds(pid: u32) -> Option<f64> {
        let stat = process(pid)?.stat().ok()?;
        Some((stat.utime + stat.stime) as f64 / procfs::ticks_per_second() as f64)
    }

    pub fn tree_cpu_seconds(pid: u32) -> Option<TreeCpu> {
        let stat = process(pid)?.stat().ok()?;
        let reaped = |s: &procfs::process::Stat| u64::try_from(s.cutime + s.cstime).unwrap_or(0);
        let own = stat.utime + stat.stime;
        let mut children = reaped(&stat);
        let parent = i32::try_from(pid).ok()?;
        for child in procfs::process::all_processes().ok()?.flatten() {
            // A process that ended while the listing was read has no stat.
            if let Ok(s) = child.stat()
                && s.ppid == parent
            {
                children += s.utime + s.stime + reaped(&s);
            }
        }
        let ticks = procfs::ticks_per_second() as f64;
        Some(TreeCpu {
            total: (own + children) as f64 / ticks,
            children: children as f64 / ticks,
        })
    }

    pub fn tree_rss(pid: u32) -> Option<super::TreeRss> {
        let own = status(pid)?;
        let mut tree = super::TreeRss {
            rss_bytes: super::kib_to_bytes(own.rss_kib.unwrap_or(0)),
            peaks_bytes: super::kib_to_bytes(own.peak_rss_kib.unwrap_or(0)),
            children: 0,
        };
        let parent = i32::try_from(pid).ok()?;
        for child in procfs::process::all_processes().ok()?.flatten() {
            if let Ok(s) = child.stat()
                && s.ppid == parent
                && let Some(memory) = memory(child)
            {
                tree.rss_bytes += super::kib_to_bytes(memory.rss_kib.unwrap_or(0));
                tree.peaks_bytes += super::kib_to_bytes(memory.peak_rss_kib.unwrap_or(0));
                tree.children += 1;
            }
        }
        Some(tree)
    }

    pub fn cpu_model() -> Option<String> {
        let info = procfs::CpuInfo::current().ok()?;
        info.model_name(0).map(|m| m.trim().to_string())
    }
}

/// Elsewhere there is no /proc: every figure is absent.
#[cfg(not(target_os = "linux"))]
mod os {
    use super::Memory;

    pub fn status(_pid: u32) -> Option<Memory> {
        None
    }

    pub fn own_status() -> Option<Memory> {
        None
    }

    pub fn cpu_seconds(_pid: u32) -> Option<f64> {
        None
    }

    pub fn tree_cpu_seconds(_pid: u32) -> Option<super::TreeCpu> {
        None
    }

    pub fn tree_rss(_pid: u32) -> Option<super::TreeRss> {
        None
    }

    pub fn cpu_model() -> Option<String> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_own_cpu_and_memory() {
        if cfg!(target_os = "linux") {
            let me = std::process::id();
            let own = own_rss_bytes().expect("this process's RSS");
            assert!(own > 0);
            // The peak read after the RSS is at least that RSS.
            let rss = rss_bytes(me).expect("this process's RSS by pid");
            let peak = peak_rss_bytes(me).expect("this process's peak RSS");
            assert!(peak >= rss, "peak {peak} < RSS {rss}");
            assert!(cpu_seconds(me).is_some());
        }
    }

    #[test]
    fn a_process_tree_counts_a_child_running_and_reaped() {
        if cfg!(target_os = "linux") {
            let me = std::process::id();
            let mut busy = std::process::Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .spawn()
                .expect("sh starts");
            // /proc counts CPU in ticks: wait for the child's first.
            let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
            let running = loop {
                let tree = tree_cpu_seconds(me).expect("this process's tree");
                if tree.children > 0.0 || std::time::Instant::now() > until {
                    break tree;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            };
            let _ = busy.kill();
            let _ = busy.wait();
            assert!(running.children > 0.0, "{running:?}");
            assert!(running.total >= running.children, "{running:?}");
            // Reaped, it is in this process's `cutime`.
            let reaped = tree_cpu_seconds(me).expect("this process's tree");
            assert!(
                reaped.children >= running.children,
                "{reaped:?} < {running:?}"
            );
        }
    }

    #[test]
    fn a_process_tree_sums_its_childrens_memory() {
        if cfg!(target_os = "linux") {
            let me = std::process::id();
            let alone = tree_rss(me).expect("this process's tree");
            let mut child = std::process::Command::new("sleep")
                .arg("30")
                .spawn()
                .expect("sleep starts");
            let with = tree_rss(me).expect("this process's tree");
            let _ = child.kill();
            let _ = child.wait();
            // Other tests' children may come and go meanwhile: the sleep is
            // one child at least.
            assert!(with.children >= 1, "{with:?} vs {alone:?}");
            assert!(with.peaks_bytes >= with.rss_bytes, "{with:?}");
            assert!(with.rss_bytes > 0, "{with:?}");
        }
    }

    #[test]
    fn memory_is_in_bytes() {
        if cfg!(target_os = "linux") {
            // A kibibyte count would be a thousand times smaller: no test
            // process runs in under a megabyte.
            assert!(own_rss_bytes().is_some_and(|b| b > 1 << 20));
        }
    }
}
