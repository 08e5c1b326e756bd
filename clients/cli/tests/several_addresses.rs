//! The CLI given several server addresses (`--server a,b`), against the
//! real engine-host binary with the real built plugins (found next to the
//! CLI in target/<profile>; build first: `cargo build --workspace`): an
//! address where nothing listens is passed over, and a host killed in the
//! middle of a match is replaced by the next address — calls made during
//! the outage and a watch open across it go on there.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn cli_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tabletop"))
}

/// target/<profile>, where the workspace's build puts the host and the
/// game plugins.
fn profile_dir() -> PathBuf {
    cli_binary()
        .parent()
        .expect("the CLI lives in a directory")
        .to_path_buf()
}

/// A port nothing listens on (bound, then let go).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// A running engine-host, killed when dropped.
struct Host {
    child: Child,
    /// `127.0.0.1:PORT`.
    address: String,
}

impl Host {
    /// Starts a host on `listen` (`127.0.0.1:0` for any port) keeping its
    /// matches in `data_dir`.
    fn start(listen: &str, data_dir: &Path) -> Host {
        let binary = profile_dir().join("engine-host");
        assert!(
            binary.is_file(),
            "{} is missing: run `cargo build --workspace` first",
            binary.display()
        );
        let mut child = Command::new(&binary)
            .args(["--listen", listen, "--plugin-dir"])
            .arg(profile_dir())
            .arg("--data-dir")
            .arg(data_dir)
            .env("TABLETOP_ADMIN_TOKEN", "x")
            .env("RUST_LOG", "warn")
            // One cache of passing plugin checks with the other tests.
            .env(
                "TABLETOP_PLUGIN_CHECK_CACHE",
                profile_dir().join("plugin-check-cache"),
            )
            .stdout(Stdio::piped())
            .spawn()
            .expect("engine-host starts");
        let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let first = lines.next().and_then(Result::ok).unwrap_or_default();
        // Drained, so the host never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        let address = first
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("engine-host did not start: `{first}`"))
            .to_string();
        Host { child, address }
    }

    /// Kills the host at once, as a crash would.
    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The CLI with `servers` and `args`, its environment cleared of
/// settings that would change what it does.
fn cli(servers: &str) -> Command {
    let mut command = Command::new(cli_binary());
    command
        .args(["--server", servers])
        .env_remove("TABLETOP_ADMIN_TOKEN")
        .env_remove("TABLETOP_CREDENTIAL")
        .env_remove("TABLETOP_TOKEN")
        .env_remove("TABLETOP_CA_FILE");
    command
}

fn succeeded(output: Output, what: &str) -> serde_json::Value {
    assert!(
        output.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{what}: not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// Creates a two-seat Focus match, with `credential` if not empty (the
/// CLI then gives the creation a request id); its id and seat tokens.
fn new_focus(servers: &str, credential: &str) -> (String, Vec<String>) {
    let created = succeeded(
        cli(servers)
            .args(["--json", "--credential", credential, "new", "focus"])
            .output()
            .expect("run"),
        "new",
    );
    let tokens = created["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|s| s["token"].as_str().expect("token").to_string())
        .collect();
    (
        created["match_id"].as_str().expect("id").to_string(),
        tokens,
    )
}

/// The first legal action's notation of the seat holding `token`.
fn first_legal(servers: &str, match_id: &str, token: &str) -> String {
    let legal = succeeded(
        cli(servers)
            .args(["--json", "legal", match_id, "--token", token])
            .output()
            .expect("run"),
        "legal",
    );
    legal["actions"][0]["notation"]
        .as_str()
        .expect("a legal action")
        .to_string()
}

/// Whose seat is to move, and the version, as a spectator sees it.
fn spectator_view(servers: &str, match_id: &str) -> serde_json::Value {
    succeeded(
        cli(servers)
            .args(["--json", "show", match_id])
            .output()
            .expect("run"),
        "show",
    )
}

#[test]
fn an_address_with_nothing_listening_is_passed_over_for_the_next() {
    let data = tempfile::tempdir().expect("temp dir");
    let host = Host::start("127.0.0.1:0", &data.path().join("data"));
    let servers = format!("127.0.0.1:{},{}", free_port(), host.address);
    let started = Instant::now();
    let (match_id, tokens) = new_focus(&servers, "x");
    let notation = first_legal(&servers, &match_id, &tokens[0]);
    let moved = succeeded(
        cli(&servers)
            .args([
                "--json", "move", &match_id, &notation, "--token", &tokens[0],
            ])
            .output()
            .expect("run"),
        "move",
    );
    assert_eq!(moved["view"]["version"], 1, "{moved}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "a refused connection is passed over at once, not waited on: {:?}",
        started.elapsed()
    );
}

#[test]
fn a_single_address_with_nothing_listening_fails_at_once_and_names_it() {
    let address = format!("127.0.0.1:{}", free_port());
    let started = Instant::now();
    let output = cli(&address).arg("games").output().expect("run");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot connect to") && stderr.contains(&address),
        "{stderr}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_killed_host_is_replaced_by_the_next_address_for_calls_and_a_watch() {
    let data = tempfile::tempdir().expect("temp dir");
    let mut first = Host::start("127.0.0.1:0", &data.path().join("data"));
    let second_address = format!("127.0.0.1:{}", free_port());
    let servers = format!("{},{}", first.address, second_address);
    let (match_id, tokens) = new_focus(&servers, "");
    // A watch open across the outage, as a spectator.
    let mut watch = cli(&servers)
        .args(["--json", "watch", &match_id])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the watch");
    let (messages, watched) = mpsc::channel::<serde_json::Value>();
    let stdout = watch.stdout.take().expect("stdout");
    // One pretty-printed JSON document per message.
    std::thread::spawn(move || {
        let documents = serde_json::Deserializer::from_reader(stdout).into_iter();
        for value in documents.map_while(Result::ok) {
            if messages.send(value).is_err() {
                return;
            }
        }
    });
    let snapshot = watched
        .recv_timeout(Duration::from_secs(10))
        .expect("the watch's snapshot");
    assert_eq!(snapshot["version"], 0);
    let notation = first_legal(&servers, &match_id, &tokens[0]);

    first.kill();
    // The move is made while no host serves the match: the CLI goes round
    // the addresses until the next one, started a moment later on the
    // same store, answers.
    let mover = cli(&servers)
        .args([
            "--json", "move", &match_id, &notation, "--token", &tokens[0],
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the move");
    std::thread::sleep(Duration::from_millis(1500));
    let _second = Host::start(&second_address, &data.path().join("data"));
    let moved = succeeded(mover.wait_with_output().expect("the move ends"), "move");
    assert_eq!(moved["view"]["version"], 1, "applied once: {moved}");
    assert_eq!(spectator_view(&servers, &match_id)["version"], 1);

    // The watch resumed on the second host after its snapshot: the move
    // arrives, once.
    let until = Instant::now() + Duration::from_secs(20);
    let event = loop {
        let left = until.saturating_duration_since(Instant::now());
        let Ok(next) = watched.recv_timeout(left) else {
            let _ = watch.kill();
            let output = watch.wait_with_output().expect("the watch's end");
            panic!(
                "the watch did not go on through the next address: {}",
                String::from_utf8_lossy(&output.stderr)
            )
        };
        if next["version"] != 0 {
            break next;
        }
    };
    assert_eq!(event["version"], 1, "the move, after the snapshot: {event}");
    assert!(event["event"].is_object(), "a transition: {event}");
    let _ = watch.kill();
    let _ = watch.wait();
}
