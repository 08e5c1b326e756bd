//! A PostgreSQL database of its own for each test, on a real server.
//!
//! [`database`] answers a fresh, empty database on:
//! - the server `TABLETOP_TEST_POSTGRES` names (a `postgres://` URL of a
//!   role that may create databases), when it is set: `scripts/test` starts
//!   one cluster with `scripts/postgres` and sets it, so one server serves
//!   the whole run;
//! - otherwise a private cluster this process starts once, on first use
//!   ([`Cluster::start`]), in a temporary directory on a free port, and
//!   stops when it exits.
//!
//! A test that stops and starts its server (to see a store through the
//! database going away) starts a [`Cluster`] of its own, so it never
//! disturbs the tests sharing the other one.
//!
//! PostgreSQL refuses to run as root. Run as root (as the project's
//! machines and CI run), `initdb` and `pg_ctl` run as the `postgres` user
//! through `runuser`, in a directory that user owns; run as anyone else,
//! they run as that user. The binaries are Debian's, found under
//! `/usr/lib/postgresql/<version>/bin` (the highest version), or on `PATH`.
//!
//! A cluster is stopped (`pg_ctl stop -m immediate`) when its [`Cluster`]
//! is dropped, and the shared one when the process exits (`atexit`).
//! Because a test process can also die without running either (SIGKILL,
//! an abort), every cluster is watched by a small shell loop that stops it
//! once the process that started it is gone: nothing is left running.
//!
//! The test clusters run with `fsync=off`: a test restarts the server
//! (`pg_ctl stop -m immediate` leaves the committed WAL in the OS's cache,
//! which a restart replays), it never cuts the machine's power.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The variable naming a server to create test databases on.
pub const SERVER_VARIABLE: &str = "TABLETOP_TEST_POSTGRES";

/// A database made for one test. Dropping it drops the database (best
/// effort: a private cluster's go with the cluster anyway).
#[derive(Debug)]
pub struct TestDatabase {
    /// Its URL, for a store to open.
    pub url: String,
    /// Its name.
    pub name: String,
    /// The server's URL (its maintenance database), to drop it from.
    server: String,
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let (server, name) = (self.server.clone(), self.name.clone());
        off_runtime(move || {
            if let Ok(mut client) = postgres::Client::connect(&server, postgres::NoTls) {
                let _ = client
                    .batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"));
            }
        });
    }
}

/// Runs `work` on a thread of its own: the synchronous client starts a
/// runtime of its own, which tokio refuses on a thread of an async test.
fn off_runtime<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    match std::thread::spawn(work).join() {
        Ok(answer) => answer,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// A fresh database on the server `TABLETOP_TEST_POSTGRES` names or on
/// this process's private cluster (see the crate docs). Panics with the
/// reason when neither can be had: a test without its database cannot run.
pub fn database() -> TestDatabase {
    let server = match std::env::var(SERVER_VARIABLE) {
        Ok(url) if !url.is_empty() => url,
        _ => shared_cluster().url(),
    };
    create_database(&server).unwrap_or_else(|e| panic!("no test database on {server}: {e}"))
}

/// A new database on the server at `server` (a URL whose database is the
/// one to connect to while creating it).
pub fn create_database(server: &str) -> Result<TestDatabase, String> {
    let server = server.to_string();
    off_runtime(move || create_database_here(&server))
}

fn create_database_here(server: &str) -> Result<TestDatabase, String> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let name = format!(
        "tabletop_test_{}_{}_{nanos}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let mut client = postgres::Client::connect(server, postgres::NoTls)
        .map_err(|e| format!("cannot connect: {e}"))?;
    client
        .batch_execute(&format!("CREATE DATABASE \"{name}\""))
        .map_err(|e| format!("cannot create database {name}: {e}"))?;
    Ok(TestDatabase {
        url: with_database(server, &name),
        name,
        server: server.to_string(),
    })
}

/// `url` with its database (the path after the host) replaced by `name`.
pub fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let host_end = base[scheme_end..]
        .find('/')
        .map_or(base.len(), |i| scheme_end + i);
    let mut out = format!("{}/{name}", &base[..host_end]);
    if let Some(query) = query {
        out.push('?');
        out.push_str(query);
    }
    out
}

/// This process's private cluster, started on first use and stopped when
/// the process exits.
fn shared_cluster() -> &'static Cluster {
    static SHARED: OnceLock<Cluster> = OnceLock::new();
    SHARED.get_or_init(|| {
        let cluster = Cluster::start().unwrap_or_else(|e| panic!("{e}"));
        let _ = SHARED_STOP.set(cluster.stopper.clone());
        stop_at_exit();
        cluster
    })
}

/// Registers the stop of the shared cluster with `atexit`: statics are
/// never dropped.
#[cfg(unix)]
fn stop_at_exit() {
    extern "C" fn stop_shared() {
        if let Some(cluster) = SHARED_STOP.get() {
            cluster.stop();
        }
    }
    // SAFETY: `stop_shared` is an `extern "C"` function taking nothing and
    // returning nothing, as `atexit` requires; it touches only a
    // `OnceLock` that is set before registration and never changed after.
    let _ = unsafe { libc::atexit(stop_shared) };
}

#[cfg(not(unix))]
fn stop_at_exit() {}

/// What the `atexit` handler stops: the shared cluster's directory and
/// binaries (the `Cluster` itself lives in a static that is never dropped).
static SHARED_STOP: OnceLock<Stopper> = OnceLock::new();

/// Enough of a cluster to stop it.
#[derive(Debug, Clone)]
struct Stopper {
    bin: PathBuf,
    data: PathBuf,
    dir: PathBuf,
    as_postgres: bool,
}

impl Stopper {
    fn stop(&self) {
        let _ = run(
            self.as_postgres,
            &self.bin.join("pg_ctl"),
            &[
                "stop",
                "-D",
                &self.data.to_string_lossy(),
                "-m",
                "immediate",
                "-w",
            ],
        );
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A PostgreSQL cluster of this process: its own data directory, port and
/// socket directory. Stopped and removed when dropped.
#[derive(Debug)]
pub struct Cluster {
    port: u16,
    stopper: Stopper,
    log: PathBuf,
}

impl Cluster {
    /// Starts a new cluster in a temporary directory on a free port (see
    /// the crate docs). The error says what failed and what to do.
    pub fn start() -> Result<Cluster, String> {
        let bin = bin_dir()?;
        let as_postgres = running_as_root();
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!("tabletop-pg-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        if as_postgres {
            let owned = Command::new("chown")
                .args(["postgres:", &dir.to_string_lossy()])
                .status()
                .map_err(|e| format!("cannot run chown: {e}"))?;
            if !owned.success() {
                return Err(format!(
                    "cannot give {} to the postgres user (is there one? `apt-get install \
                     postgresql` makes it)",
                    dir.display()
                ));
            }
        }
        let data = dir.join("data");
        let log = dir.join("server.log");
        let stopper = Stopper {
            bin: bin.clone(),
            data: data.clone(),
            dir: dir.clone(),
            as_postgres,
        };
        run(
            as_postgres,
            &bin.join("initdb"),
            &[
                "-D",
                &data.to_string_lossy(),
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
                "--no-instructions",
            ],
        )?;
        let port = free_port()?;
        let cluster = Cluster { port, stopper, log };
        watch_for_exit(&cluster.stopper);
        cluster.pg_ctl_start()?;
        Ok(cluster)
    }

    /// Its URL, as the `postgres` superuser on its maintenance database.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// Stops the server at once, as a crash would (`-m immediate`), and
    /// keeps its data to start again.
    pub fn stop_server(&self) -> Result<(), String> {
        run(
            self.stopper.as_postgres,
            &self.stopper.bin.join("pg_ctl"),
            &[
                "stop",
                "-D",
                &self.stopper.data.to_string_lossy(),
                "-m",
                "immediate",
                "-w",
            ],
        )
        .map(drop)
    }

    /// Starts the server again on the same port, and waits until it takes
    /// connections.
    pub fn start_server(&self) -> Result<(), String> {
        self.pg_ctl_start()
    }

    fn pg_ctl_start(&self) -> Result<(), String> {
        let options = format!(
            "-p {} -c listen_addresses=127.0.0.1 -c unix_socket_directories={} -c fsync=off \
             -c max_connections=200",
            self.port,
            self.stopper.dir.display()
        );
        run(
            self.stopper.as_postgres,
            &self.stopper.bin.join("pg_ctl"),
            &[
                "start",
                "-D",
                &self.stopper.data.to_string_lossy(),
                "-l",
                &self.log.to_string_lossy(),
                "-o",
                &options,
                "-w",
                "-t",
                "60",
            ],
        )
        .map_err(|e| {
            let log = std::fs::read_to_string(&self.log).unwrap_or_default();
            format!("{e}\nserver log:\n{log}")
        })?;
        // `pg_ctl -w` waits for the server to accept connections; one more
        // check that this URL reaches it.
        let url = self.url();
        off_runtime(move || answers(&url))
    }
}

/// Waits until the server at `url` takes connections.
fn answers(url: &str) -> Result<(), String> {
    let started = Instant::now();
    loop {
        match postgres::Client::connect(url, postgres::NoTls) {
            Ok(_) => return Ok(()),
            Err(e) if started.elapsed() > Duration::from_secs(30) => {
                return Err(format!("the test cluster does not answer at {url}: {e}"));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.stopper.stop();
    }
}

/// Starts a shell loop that stops the cluster once this process is gone,
/// however it ended.
fn watch_for_exit(stopper: &Stopper) {
    let pg_ctl = stopper.bin.join("pg_ctl");
    let stop = format!(
        "'{}' stop -D '{}' -m immediate >/dev/null 2>&1",
        pg_ctl.display(),
        stopper.data.display()
    );
    let stop = if stopper.as_postgres {
        format!("runuser -u postgres -- {stop}")
    } else {
        stop
    };
    let script = format!(
        "while kill -0 {pid} 2>/dev/null; do sleep 1; done; {stop}; rm -rf '{dir}'",
        pid = std::process::id(),
        dir = stopper.dir.display()
    );
    let _ = Command::new("sh")
        .args(["-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
}

/// Runs `program` with `args`, as the `postgres` user when `as_postgres`;
/// the error holds its output.
fn run(as_postgres: bool, program: &Path, args: &[&str]) -> Result<String, String> {
    let mut command = if as_postgres {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    };
    // The cluster's children must not hold the test's output pipes open:
    // a test harness waits for them to close.
    let output = command
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(format!(
            "{} {} failed ({}): {}{}",
            program.display(),
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// Whether this process runs as root.
fn running_as_root() -> bool {
    #[cfg(unix)]
    {
        // SAFETY: `geteuid` takes nothing, cannot fail and touches no memory.
        unsafe { libc::geteuid() == 0 }
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// The directory of PostgreSQL's server binaries: Debian's
/// `/usr/lib/postgresql/<version>/bin` of the highest version, else where
/// `initdb` is on `PATH`.
pub fn bin_dir() -> Result<PathBuf, String> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_string_lossy().parse::<u32>().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Ok(bin);
    }
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .find(|dir| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file())
        .ok_or_else(|| {
            "PostgreSQL's server binaries (initdb, pg_ctl) are not installed: run \
             scripts/postgres (it installs them), or set TABLETOP_TEST_POSTGRES to a server's URL"
                .to_string()
        })
}

/// A TCP port nobody listens on now.
fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .map_err(|e| format!("cannot find a free port: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_gets_another_database() {
        assert_eq!(
            with_database("postgres://u@h:5/postgres", "t"),
            "postgres://u@h:5/t"
        );
        assert_eq!(with_database("postgres://u@h:5", "t"), "postgres://u@h:5/t");
        assert_eq!(
            with_database("postgresql://h/x?sslmode=disable", "t"),
            "postgresql://h/t?sslmode=disable"
        );
    }
}
