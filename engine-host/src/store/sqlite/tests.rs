//! What only the durable store does (what survives a reopen, files from
//! older hosts, one store per file); everything every store does is the
//! conformance suite's.

use super::*;
use tabletop_core::{HeldAction, LogEntry, LogKind, LoggedMove};

use crate::store::LifecycleKind;
use crate::store::conformance::stored;

crate::store_conformance!(|dir: &Path| SqliteStore::open(&dir.join("matches.sqlite3")).unwrap());

fn new(stored: &StoredMatch) -> NewMatch<'_> {
    NewMatch {
        stored,
        lifecycle: &[],
        request: None,
    }
}

/// Creates `m` in `store` and waits until it is durable.
fn create(store: &SqliteStore, m: &StoredMatch) {
    store.create_match(&new(m)).and_then(Commit::wait).unwrap();
}

/// The latest migration refinery recorded as run on the file at `path`.
fn recorded_schema_version(path: &Path) -> u32 {
    Connection::open(path)
        .unwrap()
        .query_row(
            "SELECT MAX(version) FROM refinery_schema_history",
            [],
            |row| row.get(0),
        )
        .unwrap()
}

fn entries(entries: &[LogEntry]) -> Change<'_> {
    Change {
        entries,
        ..Change::default()
    }
}

fn entry(version: u64) -> LogEntry {
    LogEntry {
        version,
        at_ms: 3,
        kind: LogKind::Chance { outcome: version },
    }
}

fn tempfile_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "tabletop-store-test-{}-{}",
        std::process::id(),
        rand::random::<u32>()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn store_round_trips_and_batches_concurrent_writers() {
    round_trip_concurrent_writers(INLINE_FSYNC_BELOW);
}

#[test]
fn writes_are_durable_whether_the_writer_or_the_syncer_fsyncs() {
    // ZERO: every batch goes to the syncer; MAX: the writer fsyncs all.
    round_trip_concurrent_writers(Duration::ZERO);
    round_trip_concurrent_writers(Duration::MAX);
}

fn round_trip_concurrent_writers(inline_fsync_below: Duration) {
    let dir = tempfile_dir();
    let path = dir.join("matches.sqlite3");
    let store = Arc::new(SqliteStore::open_with(&path, inline_fsync_below).unwrap());
    create(&store, &stored("a", "g", 1, true));
    let join = SeatJoin {
        seat: 1,
        at_ms: 4,
        display_name: "Ada".into(),
        external_id: "p-17".into(),
        bot: String::new(),
    };
    store.join_seat("a", join.clone(), [9; 32], &[]).unwrap();
    let held = [HeldAction {
        seat: 1,
        action: 5,
        at_ms: 6,
        at_version: 49,
    }];
    let threads: Vec<_> = (0..4u32)
        .map(|t| {
            let store = Arc::clone(&store);
            std::thread::spawn(move || {
                create(&store, &stored(&format!("m{t}"), "g", 2, false));
                for v in 2..50u64 {
                    let entry = LogEntry {
                        version: v,
                        at_ms: 3,
                        kind: LogKind::Moves {
                            moves: smallvec::smallvec![LoggedMove {
                                seat: t % 2,
                                action: v,
                                notation: compact_str::format_compact!("a{v}"),
                                at_ms: 3,
                                held: None,
                            }],
                        },
                    };
                    let change = Change {
                        entries: &[entry],
                        pending: Some(&held),
                        ..Change::default()
                    };
                    store
                        .append(&format!("m{t}"), &change)
                        .and_then(Commit::wait)
                        .unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    // A write to an unknown match is refused, and only that write fails.
    let refused = store
        .append("nowhere", &entries(&stored("a", "g", 1, true).log))
        .unwrap();
    let accepted = store.append("a", &entries(&[entry(2)])).unwrap();
    assert!(refused.wait().is_err());
    accepted.wait().unwrap();
    drop(store);
    let reopened = SqliteStore::open(&path).unwrap();
    let all: Vec<StoredMatch> = reopened
        .load_unfinished()
        .unwrap()
        .into_iter()
        .map(|m| m.expect("every match reads back"))
        .collect();
    assert_eq!(all.len(), 5);
    let a = &all[0];
    assert_eq!(a.setup.match_id, "a");
    assert_eq!(a.seat_hashes, vec![Some([7; 32]), Some([9; 32])]);
    assert_eq!(a.joins, vec![join]);
    let mut log = stored("a", "g", 1, true).log;
    log.push(entry(2));
    assert_eq!(a.log, log);
    for m in &all[1..] {
        assert_eq!(m.log.len(), 49);
        assert_eq!(m.pending, held);
        assert_eq!(reopened.load(&m.setup.match_id).unwrap().as_ref(), Some(m));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_finished_match_reads_back_by_id_after_a_reopen_and_is_not_loaded_at_start() {
    let dir = tempfile_dir();
    let path = dir.join("matches.sqlite3");
    let store = SqliteStore::open(&path).unwrap();
    for id in ["running", "done"] {
        create(&store, &stored(id, "g", 1, false));
    }
    let log = [stored("done", "g", 1, false).log, vec![entry(2)]].concat();
    let results = [tabletop_core::SeatResult {
        seat: 0,
        rank: 1,
        score: 0.0,
        resigned: false,
    }];
    let finish = Change {
        entries: &[entry(2)],
        results: &results,
        finished_log: Some(&log),
        ..Change::default()
    };
    store
        .append("done", &finish)
        .and_then(Commit::wait)
        .unwrap();
    drop(store);
    let reopened = SqliteStore::open(&path).unwrap();
    let unfinished: Vec<String> = reopened
        .load_unfinished()
        .unwrap()
        .into_iter()
        .map(|m| m.expect("every match reads back").setup.match_id)
        .collect();
    assert_eq!(unfinished, ["running"]);
    let done = reopened.load("done").unwrap().unwrap();
    assert_eq!(done.log, log);
    assert_eq!(done.results.len(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_file_with_the_keyed_log_table_still_reads_and_appends() {
    let dir = tempfile_dir();
    let path = dir.join("matches.sqlite3");
    // The log table as files written before the append-ordered one.
    let old = Connection::open(&path).unwrap();
    old.execute_batch(
        "CREATE TABLE log (
            match_id   TEXT NOT NULL REFERENCES matches(match_id),
            version    INTEGER NOT NULL,
            entry_json TEXT NOT NULL,
            PRIMARY KEY (match_id, version)
        );",
    )
    .unwrap();
    drop(old);
    let store = SqliteStore::open(&path).unwrap();
    create(&store, &stored("a", "g", 1, true));
    store
        .append("a", &entries(&[entry(2), entry(3)]))
        .and_then(Commit::wait)
        .unwrap();
    // That table still refuses a repeated version, as it always did.
    assert!(
        store
            .append("a", &entries(&[entry(3)]))
            .and_then(Commit::wait)
            .is_err()
    );
    drop(store);
    let loaded = SqliteStore::open(&path)
        .unwrap()
        .load("a")
        .unwrap()
        .unwrap();
    let mut log = stored("a", "g", 1, true).log;
    log.extend([entry(2), entry(3)]);
    assert_eq!(loaded.log, log);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_second_store_on_the_same_file_is_refused_and_the_first_goes_on() {
    let dir = tempfile_dir();
    let path = dir.join("matches.sqlite3");
    let first = SqliteStore::open(&path).unwrap();
    create(&first, &stored("a", "g", 1, true));
    let refused = SqliteStore::open(&path).expect_err("the file is the first store's");
    assert!(
        refused
            .to_string()
            .contains("in use by another engine-host"),
        "{refused}"
    );
    first
        .append("a", &entries(&[entry(2)]))
        .and_then(Commit::wait)
        .unwrap();
    assert_eq!(first.load("a").unwrap().unwrap().log.len(), 2);
    drop(first);
    let reopened = SqliteStore::open(&path).expect("free again once the first closed");
    assert_eq!(reopened.load("a").unwrap().unwrap().log.len(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A row that does not read back makes that one match damaged, named with
/// the reason, in the start's load, a listing and a read by id; every other
/// match reads as before.
#[test]
fn a_malformed_row_damages_only_its_match() {
    let dir = tempfile_dir();
    let path = dir.join("matches.sqlite3");
    let store = SqliteStore::open(&path).unwrap();
    for id in ["bad-setup", "bad-log", "good"] {
        create(&store, &stored(id, "g", 1, false));
    }
    drop(store);
    {
        let conn = Connection::open(&path).unwrap();
        conn.execute(
            "UPDATE matches SET setup_json = '{\"match_id\": tru' WHERE match_id = 'bad-setup'",
            [],
        )
        .unwrap();
        conn.execute(
            "UPDATE log SET entry_json = x'00ff' WHERE match_id = 'bad-log'",
            [],
        )
        .unwrap();
    }
    let reopened = SqliteStore::open(&path).unwrap();
    let loaded = reopened.load_unfinished().unwrap();
    let mut readable = Vec::new();
    let mut damaged = Vec::new();
    for m in loaded {
        match m {
            Ok(m) => readable.push(m.setup.match_id),
            Err(d) => damaged.push((d.match_id, d.game, d.reason)),
        }
    }
    assert_eq!(readable, ["good"]);
    damaged.sort();
    assert_eq!(damaged.len(), 2, "{damaged:?}");
    assert_eq!(
        (damaged[0].0.as_str(), damaged[0].1.as_str()),
        ("bad-log", "g")
    );
    assert!(damaged[0].2.contains("log entry"), "{}", damaged[0].2);
    assert_eq!(damaged[1].0, "bad-setup");
    assert!(damaged[1].2.contains("setup"), "{}", damaged[1].2);
    for id in ["bad-setup", "bad-log"] {
        match reopened.load(id) {
            Err(HostError::MatchUnavailable { match_id, .. }) => assert_eq!(match_id, id),
            other => panic!("{id}: {other:?}"),
        }
    }
    let listed = reopened.list(&MatchQuery::default()).unwrap();
    let bad = listed
        .iter()
        .find(|s| s.setup.match_id == "bad-setup")
        .expect("the damaged match is listed");
    assert!(
        bad.unreadable
            .as_deref()
            .is_some_and(|r| r.contains("setup"))
    );
    assert_eq!(listed.len(), 3);
    drop(reopened);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The WAL the store writes checks as SQLite's own (the checksums agree),
/// and the same WAL cut mid-frame is named as damaged.
#[test]
fn the_stores_own_wal_checks_and_a_cut_one_does_not() {
    let dir = tempfile_dir();
    let path = dir.join("matches.sqlite3");
    let store = SqliteStore::open(&path).unwrap();
    for id in ["a", "b", "c"] {
        create(&store, &stored(id, "g", 1, false));
    }
    // Read while the store is open: closing it checkpoints the WAL away.
    let bytes = std::fs::read(beside(&path, "-wal")).unwrap();
    drop(store);
    let copy = dir.join("copy-wal");
    std::fs::write(&copy, &bytes).unwrap();
    let wal::WalCheck::Whole { frames } = wal::check_wal(&copy) else {
        panic!("the store's own WAL fails the check");
    };
    assert!(frames > 0);
    std::fs::write(&copy, &bytes[..bytes.len() - 100]).unwrap();
    assert!(matches!(wal::check_wal(&copy), wal::WalCheck::Damaged(_)));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A file that is not a database stops the open with the file's name and
/// what to do.
#[test]
fn a_store_that_is_not_a_database_is_refused_by_name() {
    let dir = tempfile_dir();
    let path = dir.join("matches.sqlite3");
    std::fs::write(&path, vec![b'x'; 8192]).unwrap();
    let refused = SqliteStore::open(&path).unwrap_err().to_string();
    assert!(refused.contains("matches.sqlite3"), "{refused}");
    assert!(refused.contains("not a database"), "{refused}");
    assert!(refused.contains("move it"), "{refused}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// What a host that kept the schema version only in `user_version` left:
/// the same tables, no refinery record. It opens, its matches read back and
/// take writes, and the record is filled in without running a migration.
#[test]
fn a_store_versioned_only_by_user_version_opens_with_its_matches() {
    let dir = tempfile_dir();
    let path = dir.join("matches.sqlite3");
    let store = SqliteStore::open(&path).unwrap();
    create(&store, &stored("a", "g", 1, true));
    drop(store);
    let old = Connection::open(&path).unwrap();
    old.execute_batch("DROP TABLE refinery_schema_history")
        .unwrap();
    let user_version: u32 = old
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .unwrap();
    assert_eq!(user_version, migrations::latest());
    drop(old);

    let store = SqliteStore::open(&path).unwrap();
    store
        .append("a", &entries(&[entry(2)]))
        .and_then(Commit::wait)
        .unwrap();
    let mut log = stored("a", "g", 1, true).log;
    log.push(entry(2));
    assert_eq!(store.load("a").unwrap().unwrap().log, log);
    drop(store);
    assert_eq!(recorded_schema_version(&path), migrations::latest());
    let _ = std::fs::remove_dir_all(&dir);
}

/// What a host from before matches recorded their plugin build left (schema
/// version 6: no `plugin_sha256` column, setups without the field): the file
/// is brought to the latest version, migration 7 leaves the match's build
/// NULL, and the match reads back whole, recording no build, so the host
/// replays it through its version's one build as before.
#[test]
fn a_store_from_before_builds_were_recorded_migrates_and_its_matches_read_back_without_one() {
    let dir = tempfile_dir();
    let path = dir.join("matches.sqlite3");
    let mut old_match = stored("a", "g", 1, true);
    old_match.setup.plugin_sha256 = None;
    let store = SqliteStore::open(&path).unwrap();
    create(&store, &old_match);
    drop(store);
    let old = Connection::open(&path).unwrap();
    old.execute_batch(
        "ALTER TABLE matches DROP COLUMN plugin_sha256; \
         ALTER TABLE credentials DROP COLUMN tenant; \
         DROP TABLE log_marks; \
         DELETE FROM refinery_schema_history WHERE version >= 7; \
         PRAGMA user_version = 6;",
    )
    .unwrap();
    let setup_json: String = old
        .query_row("SELECT setup_json FROM matches", [], |row| row.get(0))
        .unwrap();
    assert!(!setup_json.contains("plugin_sha256"), "{setup_json}");
    drop(old);

    let store = SqliteStore::open(&path).unwrap();
    let loaded = store.load("a").unwrap().unwrap();
    assert_eq!(loaded.setup.plugin_sha256, None);
    assert_eq!(loaded.setup, old_match.setup);
    assert_eq!(loaded.log, old_match.log);
    store
        .append("a", &entries(&[entry(2)]))
        .and_then(Commit::wait)
        .unwrap();
    drop(store);
    assert_eq!(recorded_schema_version(&path), migrations::latest());
    let build: Option<String> = Connection::open(&path)
        .unwrap()
        .query_row(
            "SELECT plugin_sha256 FROM matches WHERE match_id = 'a'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(build, None);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A match created with a build keeps its hash in the setup and in the
/// column the migration added.
#[test]
fn a_match_records_the_content_hash_of_its_plugin_build() {
    let dir = tempfile_dir();
    let path = dir.join("matches.sqlite3");
    let store = SqliteStore::open(&path).unwrap();
    create(&store, &stored("a", "g", 1, true));
    drop(store);
    let store = SqliteStore::open(&path).unwrap();
    let loaded = store.load("a").unwrap().unwrap();
    assert_eq!(
        loaded.setup.plugin_sha256.as_deref(),
        Some(crate::store::conformance::BUILD_SHA256)
    );
    drop(store);
    let column: Option<String> = Connection::open(&path)
        .unwrap()
        .query_row("SELECT plugin_sha256 FROM matches", [], |row| row.get(0))
        .unwrap();
    assert_eq!(
        column.as_deref(),
        Some(crate::store::conformance::BUILD_SHA256)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// What a host from before tenants left (schema version 7: credentials
/// without a tenant, setups and lifecycle rows without one): migration 8
/// makes each credential a tenant of its own, gives the match created with
/// a credential's request id that credential's tenant (setup and lifecycle
/// rows), and leaves every other match in the admin's tenant.
#[test]
fn a_store_from_before_tenants_migrates_credentials_and_matches_into_their_tenants() {
    let dir = tempfile_dir();
    let path = dir.join("matches.sqlite3");
    let store = SqliteStore::open(&path).unwrap();
    store
        .issue_credential(&StoredCredential {
            credential_id: "cred-0123456789ab".into(),
            name: "spring open".into(),
            role: "organizer".into(),
            secret_hash: [3; 32],
            issued_at_ms: 1,
            revoked_at_ms: None,
            tenant: "ignored-by-the-downgrade".into(),
        })
        .unwrap();
    let by_organizer = stored("a", "g", 1, true);
    let by_admin = stored("b", "g", 2, true);
    let created = |id: &str| LifecycleEvent {
        match_id: id.into(),
        at_ms: 1,
        game: "g".into(),
        labels: Default::default(),
        tenant: String::new(),
        kind: LifecycleKind::Created {
            players: 2,
            plugin_version: "1.0.0".into(),
            seat_players: vec![],
        },
    };
    for (m, request_id) in [
        (&by_organizer, "cred-0123456789ab/r1"),
        (&by_admin, "admin/r1"),
    ] {
        store
            .create_match(&NewMatch {
                stored: m,
                lifecycle: &[created(&m.setup.match_id)],
                request: Some(&StoredRequest {
                    request_id: request_id.into(),
                    request_hash: [1; 32],
                    match_id: m.setup.match_id.clone(),
                    response: Vec::new(),
                }),
            })
            .and_then(Commit::wait)
            .unwrap();
    }
    drop(store);
    let old = Connection::open(&path).unwrap();
    old.execute_batch(
        "ALTER TABLE credentials DROP COLUMN tenant; \
         DROP TABLE log_marks; \
         DELETE FROM refinery_schema_history WHERE version >= 8; \
         PRAGMA user_version = 7;",
    )
    .unwrap();
    drop(old);

    let store = SqliteStore::open(&path).unwrap();
    let credentials = store.credentials().unwrap();
    assert_eq!(credentials[0].tenant, "cred-0123456789ab");
    assert_eq!(
        store.load("a").unwrap().unwrap().setup.tenant,
        "cred-0123456789ab"
    );
    assert_eq!(store.load("b").unwrap().unwrap().setup.tenant, "");
    let rows = store.lifecycle_after(0, 10).unwrap();
    let tenant_of = |id: &str| {
        rows.iter()
            .find(|r| r.event.match_id == id)
            .map(|r| r.event.tenant.clone())
    };
    assert_eq!(tenant_of("a").as_deref(), Some("cred-0123456789ab"));
    assert_eq!(tenant_of("b").as_deref(), Some(""));
    drop(store);
    assert_eq!(recorded_schema_version(&path), migrations::latest());
    let _ = std::fs::remove_dir_all(&dir);
}
