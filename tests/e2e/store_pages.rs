//! Damage below the rows: a page of the store's file that does not parse,
//! a WAL gone missing, a file the host may not write. Each costs what it
//! touches and no more, and the log says so, naming the file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use tabletop_proto::v1 as pb;
use tabletop_proto::v1::director_client::DirectorClient;
use tabletop_tests::{ADMIN_TOKEN, Host, HostOptions, engine_host_binary, with_credential};
use tokio_stream::StreamExt;
use tonic::Code;

use crate::support::{play_first_legal, reason, view_of};

/// A host on `data_dir` whose log goes to `log`.
async fn host_on(data_dir: &Path, log: Option<&Path>) -> Host {
    Host::start_with(HostOptions {
        data_dir: Some(data_dir.to_path_buf()),
        log_file: log.map(Path::to_path_buf),
        ..Default::default()
    })
    .await
}

/// Creates a Focus match and plays `moves` moves in it; returns its id
/// and seat tokens.
pub(crate) async fn focus_with_moves(host: &Host, moves: usize) -> (String, Vec<String>) {
    let mut matches = host.matches().await;
    let created = matches
        .create_match(pb::CreateMatchRequest {
            game: "focus".into(),
            players: 2,
            ..Default::default()
        })
        .await
        .expect("create")
        .into_inner();
    let mut tokens = vec![String::new(); 2];
    for seat in created.seats {
        tokens[seat.seat as usize] = seat.token;
    }
    for _ in 0..moves {
        play_first_legal(&mut matches, &created.match_id, &tokens)
            .await
            .expect("a move");
    }
    (created.match_id, tokens)
}

/// The store's file in `data`.
fn store(data: &Path) -> PathBuf {
    data.join("matches.sqlite3")
}

/// The leaf pages of `tree` (a table or index) in the store, in key order,
/// once the WAL is folded into the file.
fn leaves(db: &Path, tree: &str) -> Vec<i64> {
    let conn = rusqlite::Connection::open(db).expect("open the store");
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
        .expect("checkpoint");
    conn.prepare("SELECT pageno FROM dbstat WHERE name = ?1 AND pagetype = 'leaf' ORDER BY path")
        .expect("dbstat")
        .query_map([tree], |row| row.get(0))
        .expect("pages")
        .collect::<rusqlite::Result<_>>()
        .expect("pages")
}

/// Overwrites page `page` of `db` with bytes that parse as nothing.
fn damage_page(db: &Path, page: i64) {
    let size: i64 = rusqlite::Connection::open(db)
        .expect("open")
        .query_row("PRAGMA page_size", [], |row| row.get(0))
        .expect("page size");
    let mut bytes = std::fs::read(db).expect("read the store");
    let at = ((page - 1) * size) as usize;
    bytes[at..at + size as usize].fill(0xA5);
    std::fs::write(db, bytes).expect("write the store");
}

async fn listed(host: &Host) -> BTreeMap<String, pb::MatchSummary> {
    host.matches()
        .await
        .list_matches(pb::ListMatchesRequest {
            page_size: 1000,
            ..Default::default()
        })
        .await
        .expect("the listing works")
        .into_inner()
        .matches
        .into_iter()
        .map(|m| (m.match_id.clone(), m))
        .collect()
}

/// Every match that wrote a row of the log in a damaged page is
/// unavailable, named in the log with the damage; a match the log's marks
/// show wrote nothing near it loads and plays on.
#[tokio::test]
async fn a_damaged_page_of_the_log_costs_only_the_matches_that_wrote_near_it() {
    let root = tempfile::tempdir().expect("temp dir");
    let data = root.path().join("data");
    let mut host = host_on(&data, None).await;
    let mut tokens = BTreeMap::new();
    for _ in 0..24 {
        let (id, seat_tokens) = focus_with_moves(&host, 8).await;
        tokens.insert(id, seat_tokens);
    }
    assert!(host.terminate().await, "a clean stop");

    let db = store(&data);
    let log_leaves = leaves(&db, "log");
    assert!(log_leaves.len() >= 4, "the log spans pages: {log_leaves:?}");
    // Who wrote which row, and which matches each mark names, read before
    // the damage.
    let conn = rusqlite::Connection::open(&db).expect("open");
    let rows: Vec<(i64, String)> = conn
        .prepare("SELECT rowid, match_id FROM log ORDER BY rowid")
        .expect("log")
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .expect("rows")
        .collect::<rusqlite::Result<_>>()
        .expect("rows");
    let marks: Vec<(i64, i64, BTreeSet<String>)> = conn
        .prepare("SELECT from_log_row, to_log_row, match_ids FROM log_marks")
        .expect("marks")
        .query_map([], |row| {
            let ids: String = row.get(2)?;
            Ok((
                row.get(0)?,
                row.get(1)?,
                serde_json::from_str(&ids).expect("ids"),
            ))
        })
        .expect("marks")
        .collect::<rusqlite::Result<_>>()
        .expect("marks");
    drop(conn);
    assert!(!marks.is_empty(), "the writer marked the log");
    damage_page(&db, log_leaves[log_leaves.len() * 3 / 4]);

    let log = root.path().join("host.log");
    let host = host_on(&data, Some(&log)).await;
    let text = std::fs::read_to_string(&log).expect("the host's log");
    let damage = text
        .lines()
        .find(|l| l.contains("of its log do not read"))
        .unwrap_or_else(|| panic!("no line names the damaged rows:\n{text}"));
    assert!(damage.contains("matches.sqlite3"), "{damage}");
    // "rows A–B of its log": the rows the host could not read.
    let span = damage
        .split("damaged: rows ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("no rows named: {damage}"));
    let (first, last) = span.split_once('–').expect("a range of rows");
    let (first, last): (i64, i64) = (first.parse().expect("row"), last.parse().expect("row"));

    let all = listed(&host).await;
    assert_eq!(all.len(), 24, "every match is listed");
    let unavailable: BTreeSet<&String> = all
        .iter()
        .filter(|(_, m)| m.state == pb::MatchState::Unavailable as i32)
        .map(|(id, _)| id)
        .collect();
    let wrote_there: BTreeSet<&String> = rows
        .iter()
        .filter(|(rowid, _)| (first..=last).contains(rowid))
        .map(|(_, id)| id)
        .collect();
    assert!(!wrote_there.is_empty());
    for id in &wrote_there {
        assert!(
            unavailable.contains(id),
            "{id} lost rows and is not unavailable"
        );
        let line = text
            .lines()
            .find(|l| l.contains("match unavailable") && l.contains(id.as_str()))
            .unwrap_or_else(|| panic!("no log line names {id}"));
        assert!(
            line.contains("damaged part") && line.contains("matches.sqlite3"),
            "{line}"
        );
    }
    let near: BTreeSet<&String> = marks
        .iter()
        .filter(|(from, to, _)| *to >= first && *from <= last)
        .flat_map(|(_, _, ids)| ids)
        .collect();
    assert!(
        unavailable.len() < all.len() / 2,
        "damage to one page cost {} of {} matches",
        unavailable.len(),
        all.len()
    );

    let mut matches = host.matches().await;
    let lost = wrote_there.iter().next().expect("one");
    let refused = view_of(&mut matches, lost, "", None)
        .await
        .expect_err("unavailable");
    assert_eq!(refused.code(), Code::Unavailable);
    assert_eq!(reason(&refused), "MATCH_UNAVAILABLE");
    let mut played = 0;
    for (id, seat_tokens) in &tokens {
        if near.contains(id) {
            continue;
        }
        assert!(
            !unavailable.contains(id),
            "{id} wrote nowhere near the damage"
        );
        play_first_legal(&mut matches, id, seat_tokens)
            .await
            .expect("a match away from the damage plays on");
        played += 1;
    }
    assert!(played > 0, "some match was away from the damage");
}

/// A damaged page of the seats: a match missing a seat's row is
/// unavailable, named with the damage; the host starts and the rest play on.
#[tokio::test]
async fn a_damaged_page_of_the_seats_costs_only_the_matches_whose_seats_it_held() {
    let root = tempfile::tempdir().expect("temp dir");
    let data = root.path().join("data");
    let mut host = host_on(&data, None).await;
    let mut tokens = BTreeMap::new();
    for _ in 0..120 {
        let (id, seat_tokens) = focus_with_moves(&host, 1).await;
        tokens.insert(id, seat_tokens);
    }
    assert!(host.terminate().await, "a clean stop");
    let db = store(&data);
    let seat_leaves = leaves(&db, "seats");
    assert!(
        seat_leaves.len() >= 3,
        "the seats span pages: {seat_leaves:?}"
    );
    damage_page(&db, seat_leaves[seat_leaves.len() / 2]);

    let log = root.path().join("host.log");
    let host = host_on(&data, Some(&log)).await;
    let all = listed(&host).await;
    assert_eq!(all.len(), 120, "every match is listed");
    let unavailable: Vec<&pb::MatchSummary> = all
        .values()
        .filter(|m| m.state == pb::MatchState::Unavailable as i32)
        .collect();
    assert!(
        !unavailable.is_empty() && unavailable.len() < 60,
        "{} of 120 unavailable",
        unavailable.len()
    );
    for summary in &unavailable {
        assert!(summary.unavailable_reason.contains("seats"), "{summary:?}");
    }
    let text = std::fs::read_to_string(&log).expect("the host's log");
    assert!(
        text.contains("of its seats do not read") && text.contains("matches.sqlite3"),
        "{text}"
    );
    let mut matches = host.matches().await;
    let (id, seat_tokens) = tokens
        .iter()
        .find(|(id, _)| all[*id].state == pb::MatchState::Running as i32)
        .expect("a match whose seats read");
    play_first_legal(&mut matches, id, seat_tokens)
        .await
        .expect("it plays on");
}

/// A damaged index costs no match: the host finds every match by a scan
/// of its table, lists them all, and a finished one still reads back by
/// id; an id that was never made is still not found.
#[tokio::test]
async fn a_damaged_index_costs_no_match() {
    let root = tempfile::tempdir().expect("temp dir");
    let data = root.path().join("data");
    let mut host = host_on(&data, None).await;
    let mut made = Vec::new();
    for _ in 0..12 {
        made.push(focus_with_moves(&host, 1).await);
    }
    let mut director = DirectorClient::new(host.channel().await);
    for (id, _) in made.iter().take(6) {
        director
            .abort_match(pb::AbortMatchRequest {
                admin_token: ADMIN_TOKEN.into(),
                match_id: id.clone(),
                reason: "ended to be read back from the store".into(),
            })
            .await
            .expect("abort");
    }
    assert!(host.terminate().await, "a clean stop");
    let db = store(&data);
    for index in ["sqlite_autoindex_matches_1", "matches_by_creation"] {
        for page in leaves(&db, index) {
            damage_page(&db, page);
        }
    }

    let log = root.path().join("host.log");
    let host = host_on(&data, Some(&log)).await;
    let text = std::fs::read_to_string(&log).expect("the host's log");
    assert!(
        text.contains("the match store is damaged") && text.contains("matches.sqlite3"),
        "{text}"
    );
    assert!(text.contains("rebuilt the file from its tables"), "{text}");
    let kept = std::fs::read_dir(&data)
        .expect("data dir")
        .filter_map(Result::ok)
        .any(|e| e.file_name().to_string_lossy().contains(".damaged-"));
    assert!(kept, "the damaged file is kept");
    let all = listed(&host).await;
    let mut matches = host.matches().await;
    for (id, seat_tokens) in &made {
        let summary = all.get(id).unwrap_or_else(|| panic!("{id} is not listed"));
        assert_ne!(summary.state, pb::MatchState::Unavailable as i32, "{id}");
        view_of(&mut matches, id, &seat_tokens[0], None)
            .await
            .unwrap_or_else(|e| panic!("{id} does not read back: {e}"));
    }
    let (running, running_tokens) = &made[11];
    play_first_legal(&mut matches, running, running_tokens)
        .await
        .expect("a running match plays on");
    focus_with_moves(&host, 1).await;
    let missing = view_of(&mut matches, "m-never-made", "", None)
        .await
        .expect_err("no such match");
    assert_eq!(missing.code(), Code::NotFound);
}

/// A damaged page of the lifecycle feed: the feed steps over its rows,
/// logs which, and goes on to the events after it and to new ones.
#[tokio::test]
async fn a_damaged_page_of_the_feed_is_stepped_over_and_the_feed_goes_on() {
    let root = tempfile::tempdir().expect("temp dir");
    let data = root.path().join("data");
    let mut host = host_on(&data, None).await;
    for _ in 0..40 {
        focus_with_moves(&host, 0).await;
    }
    assert!(host.terminate().await, "a clean stop");
    let db = store(&data);
    let before: i64 = rusqlite::Connection::open(&db)
        .expect("open")
        .query_row("SELECT COUNT(*) FROM lifecycle", [], |row| row.get(0))
        .expect("count");
    let feed_leaves = leaves(&db, "lifecycle");
    assert!(
        feed_leaves.len() >= 3,
        "the feed spans pages: {feed_leaves:?}"
    );
    damage_page(&db, feed_leaves[feed_leaves.len() / 2]);

    let log = root.path().join("host.log");
    let host = host_on(&data, Some(&log)).await;
    let (after_restart, _) = focus_with_moves(&host, 0).await;
    let mut feed = DirectorClient::new(host.channel().await)
        .follow_lifecycle(with_credential(
            ADMIN_TOKEN,
            pb::FollowLifecycleRequest::default(),
        ))
        .await
        .expect("the feed opens")
        .into_inner();
    let mut seen = Vec::new();
    while let Ok(Some(event)) = tokio::time::timeout(Duration::from_secs(2), feed.next()).await {
        let event = event.expect("the feed answers no error");
        seen.push(event.match_id);
        if seen.last() == Some(&after_restart) {
            break;
        }
    }
    assert!(
        seen.contains(&after_restart),
        "the feed reached the events after the damage"
    );
    assert!(
        (seen.len() as i64) < before,
        "the damaged rows are not made up ({} events, {before} rows before)",
        seen.len()
    );
    let text = std::fs::read_to_string(&log).expect("the host's log");
    let line = text
        .lines()
        .find(|l| l.contains("lifecycle feed"))
        .unwrap_or_else(|| panic!("no line names the feed's damage:\n{text}"));
    assert!(
        line.contains("matches.sqlite3") && line.contains("damaged part"),
        "{line}"
    );
}

/// The `lost_log_rows` a host logged at start, if it logged a loss.
fn lost_log_rows(text: &str) -> Option<u64> {
    let line = text
        .lines()
        .find(|l| l.contains("lost acknowledged writes"))?;
    let at = line.find("lost_log_rows=")? + "lost_log_rows=".len();
    line[at..]
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// A WAL deleted while the host is stopped loses the writes only it held;
/// the next start says how many and until when, once.
#[tokio::test]
async fn a_wal_lost_while_the_host_was_stopped_is_reported_with_the_writes_it_cost() {
    let root = tempfile::tempdir().expect("temp dir");
    let data = root.path().join("data");
    let mut host = host_on(&data, None).await;
    for _ in 0..5 {
        focus_with_moves(&host, 2).await;
    }
    host.kill();
    let wal = data.join("matches.sqlite3-wal");
    assert!(
        std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0) > 0,
        "a killed host leaves its WAL"
    );
    std::fs::remove_file(&wal).expect("lose the WAL");

    let log = root.path().join("first.log");
    let mut host = host_on(&data, Some(&log)).await;
    let text = std::fs::read_to_string(&log).expect("log");
    let lost = lost_log_rows(&text).unwrap_or_else(|| panic!("no loss reported:\n{text}"));
    assert!(lost >= 10, "ten moves were acknowledged and lost: {lost}");
    assert!(text.contains("matches.sqlite3-wal"), "{text}");
    assert!(host.terminate().await);

    let again = root.path().join("second.log");
    let _host = host_on(&data, Some(&again)).await;
    let text = std::fs::read_to_string(&again).expect("log");
    assert_eq!(lost_log_rows(&text), None, "reported once:\n{text}");
}

/// A WAL deleted while the host runs: the writes acknowledged after it
/// live only in the deleted file, and the next start reports them.
#[tokio::test]
async fn a_wal_deleted_while_the_host_runs_is_reported_at_the_next_start() {
    let root = tempfile::tempdir().expect("temp dir");
    let data = root.path().join("data");
    let mut host = host_on(&data, None).await;
    focus_with_moves(&host, 1).await;
    std::fs::remove_file(data.join("matches.sqlite3-wal")).expect("delete the WAL");
    for _ in 0..3 {
        focus_with_moves(&host, 2).await;
    }
    host.kill();
    let log = root.path().join("host.log");
    let host = host_on(&data, Some(&log)).await;
    let text = std::fs::read_to_string(&log).expect("log");
    let lost = lost_log_rows(&text).unwrap_or_else(|| panic!("no loss reported:\n{text}"));
    assert!(
        lost >= 6,
        "six moves were acknowledged after the deletion: {lost}"
    );
    listed(&host).await;
}

/// Makes `file` unwritable even to root where the system allows it
/// (immutable); answers whether it could.
fn make_unwritable(file: &Path) -> bool {
    let immutable = Command::new("chattr")
        .arg("+i")
        .arg(file)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !immutable {
        let mut mode = std::fs::metadata(file).expect("meta").permissions();
        mode.set_readonly(true);
        std::fs::set_permissions(file, mode).expect("read-only");
    }
    std::fs::OpenOptions::new().append(true).open(file).is_err()
}

/// A store file the host may not write stops the start with a message
/// that calls it unwritable, not damaged.
#[tokio::test]
async fn an_unwritable_store_is_named_as_unwritable_not_damaged() {
    let root = tempfile::tempdir().expect("temp dir");
    let data = root.path().join("data");
    let mut host = host_on(&data, None).await;
    focus_with_moves(&host, 1).await;
    assert!(host.terminate().await);
    let db = store(&data);
    if !make_unwritable(&db) {
        eprintln!("skipped: this system lets the test's user write any file (root without chattr)");
        return;
    }
    let plugins = Host::fresh_plugin_dir(root.path());
    let output = Command::new(engine_host_binary())
        .args(["--listen", "127.0.0.1:0"])
        .env("TABLETOP_ADMIN_TOKEN", ADMIN_TOKEN)
        .arg("--data-dir")
        .arg(&data)
        .arg("--plugin-dir")
        .arg(&plugins)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("engine-host runs");
    let _ = Command::new("chattr").arg("-i").arg(&db).status();
    assert!(!output.status.success(), "the host does not start");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("matches.sqlite3") && stderr.contains("not writable"),
        "{stderr}"
    );
    assert!(!stderr.contains("move it"), "not called damaged: {stderr}");
}

/// Runs `tabletop store check` with `args`; answers its exit code and
/// its JSON report.
fn store_check(args: &[&std::ffi::OsStr]) -> (i32, serde_json::Value) {
    let output = Command::new(crate::cli::cli_binary())
        .args(["--json", "store", "check"])
        .args(args)
        .output()
        .expect("tabletop runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output.status.code().unwrap_or(-1), report)
}

/// `tabletop store check` finds a whole file whole, names every match a
/// damaged page costs (those the host itself finds unavailable), and
/// salvages the rest into a new file a host serves them from, playable.
#[tokio::test]
async fn store_check_names_the_damaged_matches_and_salvages_the_rest() {
    let root = tempfile::tempdir().expect("temp dir");
    let data = root.path().join("data");
    let mut host = host_on(&data, None).await;
    let mut tokens = BTreeMap::new();
    for _ in 0..16 {
        let (id, seat_tokens) = focus_with_moves(&host, 8).await;
        tokens.insert(id, seat_tokens);
    }
    assert!(host.terminate().await, "a clean stop");
    let db = store(&data);
    let (code, report) = store_check(&[db.as_os_str()]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["intact_matches"], 16, "{report}");
    assert_eq!(report["damaged"], false, "{report}");

    let log_leaves = leaves(&db, "log");
    damage_page(&db, log_leaves[log_leaves.len() / 2]);
    let salvaged = root.path().join("salvaged.sqlite3");
    let (code, report) = store_check(&[
        db.as_os_str(),
        "--salvage-to".as_ref(),
        salvaged.as_os_str(),
    ]);
    assert_eq!(code, 1, "{report}");
    let damaged: BTreeSet<String> = report["damaged_matches"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|m| m["match_id"].as_str().expect("an id").to_string())
        .collect();
    assert!(!damaged.is_empty() && damaged.len() < 16, "{report}");
    assert_eq!(report["intact_matches"], 16 - damaged.len(), "{report}");
    assert!(report["lost_rows"].to_string().contains("log"), "{report}");

    // The host on the damaged file finds the same matches unavailable.
    let on_damaged = host_on(&data, None).await;
    let unavailable: BTreeSet<String> = listed(&on_damaged)
        .await
        .into_iter()
        .filter(|(_, m)| m.state == pb::MatchState::Unavailable as i32)
        .map(|(id, _)| id)
        .collect();
    assert_eq!(unavailable, damaged);
    drop(on_damaged);

    let fresh = root.path().join("fresh");
    std::fs::create_dir_all(&fresh).expect("dir");
    std::fs::rename(&salvaged, store(&fresh)).expect("put the salvaged file in place");
    let host = host_on(&fresh, None).await;
    let all = listed(&host).await;
    assert_eq!(all.len(), 16 - damaged.len());
    let mut matches = host.matches().await;
    for (id, seat_tokens) in &tokens {
        if damaged.contains(id) {
            assert!(!all.contains_key(id));
            continue;
        }
        assert_eq!(all[id].state, pb::MatchState::Running as i32, "{id}");
        play_first_legal(&mut matches, id, seat_tokens)
            .await
            .expect("a salvaged match plays on");
    }
}
