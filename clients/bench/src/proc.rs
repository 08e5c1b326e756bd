//! Processes the tool measures: spawning a server and reading its peak memory
//! and CPU time from /proc (Linux; elsewhere the figures are absent).

use std::path::Path;
use std::process::Stdio;
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

/// Starts `program args.. --listen 127.0.0.1:0` and waits (up to 60 s) for its
/// `listening on ADDR` line. With `data_dir` (engine-host), [`BENCH_LIMITS`]
/// come before `args`, and a fresh scratch directory is passed as
/// `--data-dir` and removed afterwards.
pub async fn spawn(program: &Path, args: &[String], data_dir: bool) -> Result<Spawned, String> {
    let mut command = Command::new(program);
    if data_dir {
        command.args(BENCH_LIMITS);
    }
    command.args(args).arg("--listen").arg("127.0.0.1:0");
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
        .stderr(Stdio::null())
        .stdin(Stdio::null())
        .kill_on_drop(true);
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
    let pid = child.id().ok_or("the server exited at once")?;
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

/// A `VmXXX:` field of `/proc/<pid>/status` in bytes (`VmHWM` = peak RSS).
pub fn status_bytes(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status_field(&status, field)
}

/// The same for this process.
pub fn self_status_bytes(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status_field(&status, field)
}

fn status_field(status: &str, field: &str) -> Option<u64> {
    let line = status
        .lines()
        .find(|l| l.starts_with(field) && l[field.len()..].starts_with(':'))?;
    let kib: u64 = line[field.len() + 1..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

/// User + system CPU seconds of a process so far (`/proc/<pid>/stat`).
pub fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line (11, 12 here).
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    // Linux reports clock ticks; USER_HZ is 100 on every mainstream kernel.
    Some((utime + stime) / 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_status_fields_in_bytes() {
        let status = "Name:\tx\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n";
        assert_eq!(status_field(status, "VmHWM"), Some(2048 * 1024));
        assert_eq!(status_field(status, "VmRSS"), Some(1024 * 1024));
        assert_eq!(status_field(status, "VmSwap"), None);
    }

    #[test]
    fn reads_own_cpu_and_memory() {
        if cfg!(target_os = "linux") {
            assert!(self_status_bytes("VmRSS").is_some_and(|b| b > 0));
            assert!(cpu_seconds(std::process::id()).is_some());
        }
    }
}
