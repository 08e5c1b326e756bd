//! Helpers for Tabletop's end-to-end tests: start the real `engine-host`
//! binary on a free port with the real built plugins, and connect to it.
//!
//! ```no_run
//! # async fn demo() {
//! let host = tabletop_tests::Host::start().await;
//! let mut catalog = host.catalog().await;
//! # }
//! ```

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use tabletop_proto::v1 as pb;
use tabletop_proto::v1::{
    admin_client::AdminClient, catalog_client::CatalogClient, matches_client::MatchesClient,
    watch_client::WatchClient,
};
use tonic::transport::Channel;

pub mod playthrough;
pub mod reason_tables;

/// The admin token every test host is started with.
pub const ADMIN_TOKEN: &str = "e2e-admin-token";

/// `message` as a request carrying `secret` as `authorization: Bearer` metadata.
pub fn with_credential<T>(secret: &str, message: T) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request.metadata_mut().insert(
        "authorization",
        format!("Bearer {secret}")
            .parse()
            .expect("an ASCII credential"),
    );
    request
}

/// `message` as a request from the admin: what a test needs to choose a seed.
pub fn as_admin<T>(message: T) -> tonic::Request<T> {
    with_credential(ADMIN_TOKEN, message)
}

/// The `ErrorInfo` of a status from the host, checked against the host's
/// table of reasons ([`engine_host::grpc::reason::Reason`]): panics when
/// the host sent a reason the table lacks, or a metadata key the table
/// does not give that reason. `None`: the status has no `ErrorInfo` (one
/// tonic made, not the host).
pub fn error_info(status: &tonic::Status) -> Option<tonic_types::ErrorInfo> {
    use tonic_types::StatusExt;
    let info = status.get_details_error_info()?;
    assert_eq!(info.domain, "tabletop", "{status:?}");
    let sent = engine_host::grpc::reason::Reason::check_sent(
        &info.reason,
        info.metadata.keys().map(String::as_str),
        info.metadata.get("refusal").map(String::as_str),
    );
    if let Err(lacking) = sent {
        panic!("{lacking}, yet the host sent it: {status:?}");
    }
    Some(info)
}

/// `target/<profile>`, found from the running binary: a test binary lives in
/// its `deps/`, a tool binary (`playthroughs`) in it directly.
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("binary path");
    let dir = exe.parent().expect("a binary lives in a directory");
    if dir.file_name().is_some_and(|name| name == "deps") {
        dir.parent()
            .expect("deps/ lives in target/<profile>")
            .to_path_buf()
    } else {
        dir.to_path_buf()
    }
}

/// The built `engine-host` binary beside the test binaries.
pub fn engine_host_binary() -> PathBuf {
    target_dir().join(format!("engine-host{}", std::env::consts::EXE_SUFFIX))
}

/// The workspace root.
pub fn workspace_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace")
        .to_path_buf()
}

/// The game crates of the workspace: every folder under `plugins/` whose
/// Cargo.toml builds a cdylib (the SDK is not one).
pub fn workspace_game_crates() -> Vec<String> {
    let mut crates: Vec<String> = std::fs::read_dir(workspace_dir().join("plugins"))
        .expect("plugins/ exists")
        .filter_map(|e| e.ok())
        .filter(|e| {
            std::fs::read_to_string(e.path().join("Cargo.toml"))
                .is_ok_and(|toml| toml.contains("cdylib"))
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    crates.sort();
    crates
}

/// The built plugin file of a game crate. Panics (the test fails, never skips)
/// when it was not built.
pub fn built_plugin(crate_name: &str) -> PathBuf {
    tabletop_sdk::conformance::built_plugin_path(crate_name)
}

/// A running engine-host, killed on drop.
#[derive(Debug)]
pub struct Host {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    /// The plugin directory it watches.
    pub plugin_dir: PathBuf,
    /// Its data directory.
    pub data_dir: PathBuf,
    /// `ADDR` of its metrics endpoint, when started with `--metrics-listen`.
    pub metrics_address: Option<String>,
    /// `ADDR` of its web page and gRPC-web, when started with `--web-listen`.
    pub web_address: Option<String>,
    _temp: Option<tempfile::TempDir>,
}

/// How to start a host.
#[derive(Debug, Clone, Default)]
pub struct HostOptions {
    /// Use this plugin directory instead of a fresh one with every built game.
    pub plugin_dir: Option<PathBuf>,
    /// Use this data directory instead of a fresh one.
    pub data_dir: Option<PathBuf>,
    /// Extra arguments.
    pub args: Vec<String>,
    /// Extra environment variables (`RUST_LOG` is `warn` unless set here).
    pub env: Vec<(String, String)>,
    /// Write the host's log (its stderr) to this file instead of the test's
    /// stderr.
    pub log_file: Option<PathBuf>,
}

impl Host {
    /// Starts a host with every built game plugin in a fresh plugin directory.
    pub async fn start() -> Host {
        Host::start_with(HostOptions::default()).await
    }

    /// A fresh directory holding a copy of every built game plugin.
    pub fn fresh_plugin_dir(root: &Path) -> PathBuf {
        let dir = root.join("plugins");
        std::fs::create_dir_all(&dir).expect("plugin dir");
        for name in workspace_game_crates() {
            let built = built_plugin(&name);
            std::fs::copy(&built, dir.join(built.file_name().expect("file name")))
                .expect("copy plugin");
        }
        dir
    }

    /// Starts a host as `options` say.
    pub async fn start_with(options: HostOptions) -> Host {
        let temp = tempfile::tempdir().expect("temp dir");
        let plugin_dir = options
            .plugin_dir
            .clone()
            .unwrap_or_else(|| Host::fresh_plugin_dir(temp.path()));
        let data_dir = options
            .data_dir
            .clone()
            .unwrap_or_else(|| temp.path().join("data"));
        let binary = engine_host_binary();
        assert!(
            binary.is_file(),
            "{} is missing: run `cargo build --workspace` first",
            binary.display()
        );
        let stderr = match &options.log_file {
            Some(file) => Stdio::from(std::fs::File::create(file).expect("create the log file")),
            None => Stdio::inherit(),
        };
        let mut child = Command::new(&binary)
            .arg("--listen")
            .arg("127.0.0.1:0")
            .arg("--plugin-dir")
            .arg(&plugin_dir)
            .arg("--data-dir")
            .arg(&data_dir)
            .args(&options.args)
            // In the environment, as the README says: arguments are
            // readable by every user of the machine.
            .env("TABLETOP_ADMIN_TOKEN", ADMIN_TOKEN)
            .env("RUST_LOG", "warn")
            // One cache of passing plugin checks for every host of the run:
            // each built plugin is checked once, not at every host start.
            .env(
                "TABLETOP_PLUGIN_CHECK_CACHE",
                target_dir().join("plugin-check-cache"),
            )
            .envs(options.env.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("engine-host starts");
        let stdout = child.stdout.take().expect("stdout");
        let with_metrics = options.args.iter().any(|a| a == "--metrics-listen");
        let with_web = options.args.iter().any(|a| a == "--web-listen");
        let (address, metrics_line, web_line) = tokio::task::spawn_blocking(move || {
            let mut lines = BufReader::new(stdout).lines();
            let line = lines.next().and_then(Result::ok).unwrap_or_default();
            // The metrics address follows the gRPC one, and the web one both.
            let metrics =
                with_metrics.then(|| lines.next().and_then(Result::ok).unwrap_or_default());
            let web = with_web.then(|| lines.next().and_then(Result::ok).unwrap_or_default());
            // Keep draining so the host never blocks on a full pipe.
            std::thread::spawn(move || for _ in lines {});
            (line, metrics, web)
        })
        .await
        .expect("read address");
        let metrics_address = metrics_line.map(|line| {
            line.strip_prefix("metrics on ")
                .unwrap_or_else(|| panic!("no metrics address: second line `{line}`"))
                .to_string()
        });
        let web_address = web_line.map(|line| {
            line.strip_prefix("web on ")
                .unwrap_or_else(|| panic!("no web address: `{line}`"))
                .to_string()
        });
        let address = address
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("engine-host did not start: first line `{address}`"))
            .to_string();
        Host {
            child,
            url: format!("http://{address}"),
            plugin_dir,
            data_dir,
            metrics_address,
            web_address,
            _temp: Some(temp),
        }
    }

    /// A new connection.
    pub async fn channel(&self) -> Channel {
        for _ in 0..50 {
            if let Ok(channel) = Channel::from_shared(self.url.clone())
                .expect("url")
                .connect()
                .await
            {
                return channel;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("cannot connect to {}", self.url)
    }

    /// A catalog client on a new connection.
    pub async fn catalog(&self) -> CatalogClient<Channel> {
        CatalogClient::new(self.channel().await)
    }

    /// A matches client on a new connection.
    pub async fn matches(&self) -> MatchesClient<Channel> {
        MatchesClient::new(self.channel().await)
    }

    /// A watch client on a new connection.
    pub async fn watch(&self) -> WatchClient<Channel> {
        WatchClient::new(self.channel().await)
    }

    /// An admin client on a new connection.
    pub async fn admin(&self) -> AdminClient<Channel> {
        AdminClient::new(self.channel().await)
    }

    /// The host's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends SIGTERM and waits up to `limit` for the host to exit; its exit
    /// status, or `None` if it was still running then.
    pub async fn terminate_within(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        let started = std::time::Instant::now();
        while started.elapsed() < limit {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        None
    }

    /// Whether the host process is still running (it has not exited or
    /// been killed by a signal).
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Kills the host at once (SIGKILL), as a crash would.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Asks the host to stop (SIGTERM) and waits (at most a minute) for it to
    /// exit; returns whether it exited successfully. Waiting is async so the
    /// test's own connections keep running their part of the shutdown.
    pub async fn terminate(&mut self) -> bool {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        for _ in 0..600 {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.success();
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        false
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Asks for the legal actions (with notation) of the seat holding `token`.
pub async fn legal(
    matches: &mut MatchesClient<Channel>,
    match_id: &str,
    token: &str,
) -> Result<pb::ListLegalActionsResponse, tonic::Status> {
    matches
        .list_legal_actions(pb::ListLegalActionsRequest {
            match_id: match_id.to_string(),
            seat_token: token.to_string(),
            ids_only: false,
        })
        .await
        .map(tonic::Response::into_inner)
}

/// Builds a C example into `dir` as a shared library, every warning an
/// error and every symbol hidden but the exported entry point.
pub fn build_c_example(source: &str, dir: &Path) -> PathBuf {
    let stem = source.trim_end_matches(".c");
    let library = dir.join(format!("lib{stem}.{}", std::env::consts::DLL_EXTENSION));
    compile_c(
        &workspace_dir().join("examples/c-plugin").join(source),
        &[],
        &library,
    );
    library
}

/// Compiles the plugin source `source` with the macro definitions
/// `defines` into the shared library `library`: the strict build every C
/// plugin of the tests gets.
fn compile_c(source: &Path, defines: &[String], library: &Path) {
    let output = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args([
            "-shared",
            "-fPIC",
            "-fvisibility=hidden",
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-pedantic",
            "-Werror",
        ])
        .args(defines)
        .arg("-I")
        .arg(workspace_dir().join("include"))
        .arg("-o")
        .arg(library)
        .arg(source)
        .output()
        .expect("a C compiler (cc) to build a C plugin");
    assert!(
        output.status.success(),
        "{} does not compile:\n{}",
        source.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Builds the faulty Connect Four fixture
/// (`tests/fixtures/faulty-plugin/faulty_connect_four.c`) into
/// `dir/libfaulty_<kind>_<place>.so` with the flags of [`build_c_example`]:
/// a game named `faulty-<kind>-<place>` that plays exactly as
/// `connect-four` except on one rare path, so it passes the host's
/// conformance check.
///
/// `kind` is what it does there: `segv` (a store through a null pointer),
/// `abort`, `exit` (`exit(0)`), `loop` (spins forever), `memory` (takes and
/// touches 200 MB, never freed, at every call on the path, then plays on) or
/// `flood` (writes 1 MB to stdout at every call on the path, then plays on;
/// each manifest call also prints a line to stdout). `place` is the call:
/// `apply` (the `ply` applying the trigger move), `svg` (the svg-board
/// extension's render, on the trigger state) or `evaluate` (the evaluate
/// extension, on the trigger state or one ply past it).
///
/// The trigger: the first six plies all in column `g` (index 6, the
/// rightmost), filling it. The trigger move is the sixth `g`, the game's sixth
/// ply; the trigger state is the board just after it, holding exactly those
/// six discs (a later board does not count: the state keeps no history).
/// A test plays `g` six times (five, and a search bot to move, for
/// `evaluate`); random play gets there once in 7^6 matches. The game's
/// version is 1.0.0; [`build_fixed_plugin`] builds its fix.
pub fn build_faulty_plugin(kind: &str, place: &str, dir: &Path) -> PathBuf {
    build_faulty(kind, place, false, dir)
}

/// `dir/libfaulty_<kind>_<place>_fixed.so`: version 1.0.1 of the game
/// [`build_faulty_plugin`] builds, which plays on where 1.0.0 misbehaves
/// (the fixed build a quarantined match moves to).
pub fn build_fixed_plugin(kind: &str, place: &str, dir: &Path) -> PathBuf {
    build_faulty(kind, place, true, dir)
}

fn build_faulty(kind: &str, place: &str, fixed: bool, dir: &Path) -> PathBuf {
    const KINDS: [&str; 6] = ["segv", "abort", "exit", "loop", "memory", "flood"];
    const PLACES: [&str; 3] = ["apply", "svg", "evaluate"];
    assert!(
        KINDS.contains(&kind),
        "no fault kind `{kind}`: one of {KINDS:?}"
    );
    assert!(
        PLACES.contains(&place),
        "no fault place `{place}`: one of {PLACES:?}"
    );
    let root = workspace_dir();
    let source = root.join("tests/fixtures/faulty-plugin/faulty_connect_four.c");
    let library = dir.join(format!(
        "libfaulty_{kind}_{place}{}.{}",
        if fixed { "_fixed" } else { "" },
        std::env::consts::DLL_EXTENSION
    ));
    let mut defines = vec![
        format!("-DFAULT_KIND=FAULT_{}", kind.to_uppercase()),
        format!("-DFAULT_WHERE=WHERE_{}", place.to_uppercase()),
    ];
    if fixed {
        defines.push("-DFAULT_FIXED".into());
    }
    compile_c(&source, &defines, &library);
    library
}
