//! A damaged store degrades, it does not stop the host: a malformed match
//! row makes only that match unavailable, a damaged WAL is named in the log,
//! a fresh or lost store is logged as such; a store that cannot be opened at
//! all stops the start with a message that names the file.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use tabletop_proto::v1 as pb;
use tabletop_tests::{ADMIN_TOKEN, Host, HostOptions, engine_host_binary};
use tonic::Code;

use crate::support::{play_first_legal, reason, view_of};

/// A host on `data_dir` (kept across restarts) whose log goes to `log`.
async fn host_on(data_dir: &Path, log: Option<&Path>, rust_log: &str) -> Host {
    Host::start_with(HostOptions {
        data_dir: Some(data_dir.to_path_buf()),
        env: vec![("RUST_LOG".into(), rust_log.into())],
        log_file: log.map(Path::to_path_buf),
        ..Default::default()
    })
    .await
}

/// Creates a Focus match and plays its first move; returns its id and
/// the seat tokens.
async fn focus_with_a_move(host: &Host) -> (String, Vec<String>) {
    crate::store_pages::focus_with_moves(host, 1).await
}

fn listed(matches: &[pb::MatchSummary], id: &str) -> pb::MatchSummary {
    matches
        .iter()
        .find(|m| m.match_id == id)
        .unwrap_or_else(|| panic!("{id} is not listed"))
        .clone()
}

/// A match row whose setup does not parse, and another whose log entry
/// does not: the host starts, logs both with their ids and reasons, lists
/// them as unavailable and answers UNAVAILABLE for them, and the third
/// match plays on.
#[tokio::test]
async fn a_malformed_match_row_makes_only_that_match_unavailable_and_the_host_starts() {
    let root = tempfile::tempdir().expect("temp dir");
    let data = root.path().join("data");
    let mut host = host_on(&data, None, "warn").await;
    let (bad_setup, _) = focus_with_a_move(&host).await;
    let (bad_log, _) = focus_with_a_move(&host).await;
    let (good, good_tokens) = focus_with_a_move(&host).await;
    assert!(host.terminate().await, "a clean stop");
    {
        let conn = rusqlite::Connection::open(data.join("matches.sqlite3")).expect("open");
        conn.execute(
            "UPDATE matches SET setup_json = '{\"broken' WHERE match_id = ?1",
            [&bad_setup],
        )
        .expect("damage a setup");
        conn.execute(
            "UPDATE log SET entry_json = 'not json' WHERE match_id = ?1",
            [&bad_log],
        )
        .expect("damage a log entry");
    }
    let log = root.path().join("host.log");
    let host = host_on(&data, Some(&log), "warn").await;
    let text = std::fs::read_to_string(&log).expect("the host's log");
    for (id, what) in [(&bad_setup, "setup"), (&bad_log, "log entry")] {
        let line = text
            .lines()
            .find(|l| l.contains("match unavailable") && l.contains(id.as_str()))
            .unwrap_or_else(|| panic!("no log line names {id}:\n{text}"));
        assert!(line.contains(what), "{line}");
    }

    let mut matches = host.matches().await;
    let all = matches
        .list_matches(pb::ListMatchesRequest::default())
        .await
        .expect("the listing works")
        .into_inner()
        .matches;
    for (id, what) in [(&bad_setup, "setup"), (&bad_log, "log entry")] {
        let summary = listed(&all, id);
        assert_eq!(summary.state, pb::MatchState::Unavailable as i32, "{id}");
        assert!(summary.unavailable_reason.contains(what), "{summary:?}");
        let refused = view_of(&mut matches, id, "", None)
            .await
            .expect_err("unavailable");
        assert_eq!(refused.code(), Code::Unavailable);
        assert_eq!(reason(&refused), "MATCH_UNAVAILABLE");
        let info = tabletop_tests::error_info(&refused).expect("ErrorInfo");
        assert_eq!(info.metadata.get("match_id"), Some(id));
    }
    assert_eq!(listed(&all, &good).state, pb::MatchState::Running as i32);
    play_first_legal(&mut matches, &good, &good_tokens)
        .await
        .expect("the healthy match plays on");
}

/// A match store that is not a database stops the start at once, with a
/// message naming the file, SQLite's words and what to do.
#[tokio::test]
async fn a_match_store_that_cannot_be_opened_stops_the_host_naming_the_file() {
    let root = tempfile::tempdir().expect("temp dir");
    let data = root.path().join("data");
    std::fs::create_dir_all(&data).expect("data dir");
    std::fs::write(data.join("matches.sqlite3"), vec![b'#'; 8192]).expect("garbage");
    let plugins = root.path().join("plugins");
    std::fs::create_dir_all(&plugins).expect("plugin dir");
    let mut child = Command::new(engine_host_binary())
        .args(["--listen", "127.0.0.1:0", "--admin-token", ADMIN_TOKEN])
        .arg("--data-dir")
        .arg(&data)
        .arg("--plugin-dir")
        .arg(&plugins)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("engine-host starts");
    let mut status = None;
    for _ in 0..600 {
        if let Ok(Some(exited)) = child.try_wait() {
            status = Some(exited);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let Some(status) = status else {
        let _ = child.kill();
        panic!("the host did not stop on a store it cannot open");
    };
    assert!(!status.success());
    let output = child.wait_with_output().expect("output");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("matches.sqlite3") && stderr.contains("not a database"),
        "{stderr}"
    );
    assert!(stderr.contains("move it"), "{stderr}");
    assert!(
        !String::from_utf8_lossy(&output.stdout).contains("listening on"),
        "it never served"
    );
}

/// A data directory the host creates is logged as fresh, with a new match
/// store; one an earlier host used whose store is gone is warned about.
#[tokio::test]
async fn a_fresh_data_directory_and_a_lost_store_are_logged() {
    let root = tempfile::tempdir().expect("temp dir");
    let data = root.path().join("data");
    let first = root.path().join("first.log");
    let mut host = host_on(&data, Some(&first), "info").await;
    focus_with_a_move(&host).await;
    assert!(host.terminate().await, "a clean stop");
    let text = std::fs::read_to_string(&first).expect("log");
    assert!(text.contains("a fresh data directory"), "{text}");
    assert!(text.contains("a new match store"), "{text}");
    assert!(!text.contains("used by an earlier host"), "{text}");

    std::fs::remove_file(data.join("matches.sqlite3")).expect("lose the store");
    let second = root.path().join("second.log");
    let host = host_on(&data, Some(&second), "info").await;
    let text = std::fs::read_to_string(&second).expect("log");
    assert!(text.contains("used by an earlier host"), "{text}");
    assert!(!text.contains("a fresh data directory"), "{text}");
    let listed = host
        .matches()
        .await
        .list_matches(pb::ListMatchesRequest::default())
        .await
        .expect("list")
        .into_inner()
        .matches;
    assert!(listed.is_empty(), "no matches, as the log says");
}

/// A WAL cut short mid-frame (after a crash, by damage to the file) is
/// named in the log with what SQLite does about it, a copy is kept, and
/// the host starts.
#[tokio::test]
async fn a_damaged_wal_is_named_in_the_log_and_the_host_starts() {
    let root = tempfile::tempdir().expect("temp dir");
    let data = root.path().join("data");
    let mut host = host_on(&data, None, "warn").await;
    for _ in 0..3 {
        focus_with_a_move(&host).await;
    }
    host.kill();
    let wal = data.join("matches.sqlite3-wal");
    let len = std::fs::metadata(&wal).expect("a WAL after a kill").len();
    assert!(len > 1000, "the WAL holds frames ({len} bytes)");
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&wal)
        .expect("open the WAL");
    file.set_len(len - 100).expect("cut the WAL");
    drop(file);
    let log = root.path().join("host.log");
    let host = host_on(&data, Some(&log), "warn").await;
    let text = std::fs::read_to_string(&log).expect("log");
    assert!(text.contains("WAL is damaged"), "{text}");
    assert!(text.contains("partial frame"), "{text}");
    let kept = std::fs::read_dir(&data)
        .expect("data dir")
        .filter_map(Result::ok)
        .any(|e| e.file_name().to_string_lossy().contains("-wal.damaged-"));
    assert!(kept, "a copy of the damaged WAL is kept");
    host.matches()
        .await
        .list_matches(pb::ListMatchesRequest::default())
        .await
        .expect("the host serves");
}
