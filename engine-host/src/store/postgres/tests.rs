//! The PostgreSQL store on a real server (`tabletop-test-postgres`: the
//! server `TABLETOP_TEST_POSTGRES` names, or a private cluster), a database
//! of its own per test.

use std::time::{Duration, Instant};

use tabletop_core::{HeldAction, HostError, LogEntry, LogKind};
use tabletop_test_postgres::{Cluster, TestDatabase, create_database, database};

use super::*;
use crate::store::conformance::stored;
use crate::store::{Lifecycle, LifecycleKind, Store};

/// A store on a new database. The database is left to the test server
/// (a private cluster goes at the process's exit, `scripts/test`'s at the
/// end of its run): the conformance suite keeps only the store.
fn open_on_new_database() -> PostgresStore {
    let database = database();
    let store = PostgresStore::open(&database.url).unwrap();
    std::mem::forget(database);
    store
}

crate::store_conformance!(|_dir: &std::path::Path| open_on_new_database());

fn chance(version: u64) -> LogEntry {
    LogEntry {
        version,
        at_ms: 3,
        kind: LogKind::Chance { outcome: version },
    }
}

fn event(id: &str, kind: LifecycleKind) -> LifecycleEvent {
    LifecycleEvent {
        match_id: id.into(),
        at_ms: 5,
        game: "g".into(),
        labels: Default::default(),
        tenant: String::new(),
        kind,
    }
}

fn append(
    store: &PostgresStore,
    id: &str,
    entries: &[LogEntry],
    lifecycle: &[LifecycleEvent],
) -> HostResult<()> {
    store
        .append(
            id,
            &Change {
                entries,
                lifecycle,
                ..Change::default()
            },
        )
        .and_then(Commit::wait)
}

fn create(store: &PostgresStore, id: &str) {
    store
        .create_match(&NewMatch {
            stored: &stored(id, "g", 1, false),
            lifecycle: &[event(id, LifecycleKind::Started)],
            request: None,
        })
        .and_then(Commit::wait)
        .unwrap();
}

/// Waits up to `within` for `reachable` to say `expected`.
fn wait_for_reachable(store: &PostgresStore, expected: bool, within: Duration) -> bool {
    let started = Instant::now();
    while started.elapsed() < within {
        if *store.reachable().borrow() == expected {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn the_store_survives_its_database_restarting() {
    // A cluster of its own: stopping it must disturb no other test.
    let cluster = Cluster::start().unwrap();
    let database = create_database(&cluster.url()).unwrap();
    let store = PostgresStore::open(&database.url).unwrap();
    create(&store, "a");
    append(&store, "a", &[chance(2)], &[]).unwrap();
    assert!(*store.reachable().borrow());

    cluster.stop_server().unwrap();
    assert!(
        wait_for_reachable(&store, false, PROBE_WHEN_IDLE * 3),
        "the outage is seen with no call made"
    );
    let refused = append(
        &store,
        "a",
        &[chance(3)],
        &[event("a", LifecycleKind::Paused)],
    );
    assert!(
        matches!(refused, Err(HostError::StoreUnavailable(_))),
        "{refused:?}"
    );
    assert!(matches!(
        store.load("a"),
        Err(HostError::StoreUnavailable(_))
    ));
    assert!(matches!(
        store.issue_credential(&StoredCredential {
            credential_id: "c".into(),
            name: "c".into(),
            role: "organizer".into(),
            secret_hash: [1; 32],
            issued_at_ms: 1,
            revoked_at_ms: None,
            tenant: "t".into(),
        }),
        Err(HostError::StoreUnavailable(_))
    ));
    assert!(!*store.reachable().borrow(), "reachable() says the outage");

    cluster.start_server().unwrap();
    assert!(
        wait_for_reachable(&store, true, Duration::from_secs(10)),
        "the store reconnects by itself, with no call made"
    );
    let loaded = store.load("a").unwrap().unwrap();
    assert_eq!(
        loaded.log,
        [chance(1), chance(2)],
        "the acknowledged write is kept, the refused one is not there"
    );
    assert_eq!(*store.lifecycle_tail().borrow(), 1);
    append(
        &store,
        "a",
        &[chance(3)],
        &[event("a", LifecycleKind::Paused)],
    )
    .unwrap();
    assert_eq!(
        *store.lifecycle_tail().borrow(),
        2,
        "numbered after the last committed"
    );

    // A restart between two writes: the writer's connection and the
    // pooled ones broke unseen, and the next calls succeed on new ones.
    cluster.stop_server().unwrap();
    cluster.start_server().unwrap();
    append(&store, "a", &[chance(4)], &[]).unwrap();
    let loaded = store.load("a").unwrap().unwrap();
    assert_eq!(loaded.log, [chance(1), chance(2), chance(3), chance(4)]);
    let rows = store.lifecycle_after(0, 10).unwrap();
    assert_eq!(rows.iter().map(|r| r.seq).collect::<Vec<_>>(), [1, 2]);
    assert!(*store.reachable().borrow());
    drop(store);
    drop(database);
}

#[test]
fn a_database_written_by_a_newer_host_is_refused() {
    let database: TestDatabase = database();
    drop(PostgresStore::open(&database.url).unwrap());
    let newer = latest_schema_version() + 1;
    let mut client = postgres::Client::connect(&database.url, postgres::NoTls).unwrap();
    client
        .execute(
            "INSERT INTO refinery_schema_history (version, name, applied_on, checksum) \
             VALUES ($1, 'from_the_future', '2030-01-01T00:00:00Z', '1')",
            &[&(newer as i32)],
        )
        .unwrap();
    let refused = PostgresStore::open(&database.url).unwrap_err();
    assert!(
        refused
            .to_string()
            .contains(&format!("schema version {newer}, written by a newer host")),
        "{refused}"
    );
}

#[test]
fn a_database_of_schema_version_1_is_brought_to_the_latest_with_its_matches() {
    let database = database();
    let store = PostgresStore::open(&database.url).unwrap();
    create(&store, "a");
    append(&store, "a", &[chance(2)], &[]).unwrap();
    drop(store);
    // The database as a host of schema version 1 left it: the rows of a
    // match name it through foreign keys, and no key is shared.
    let mut client = postgres::Client::connect(&database.url, postgres::NoTls).unwrap();
    let foreign_keys = |client: &mut postgres::Client| -> i64 {
        client
            .query_one(
                "SELECT COUNT(*) FROM pg_constraint WHERE contype = 'f' \
                 AND conrelid::regclass::text IN \
                 ('log', 'lifecycle', 'seats', 'match_labels', 'requests')",
                &[],
            )
            .unwrap()
            .get(0)
    };
    client
        .batch_execute(
            "DELETE FROM refinery_schema_history WHERE version >= 2; DROP TABLE shared_keys; \
             DROP TABLE hosts; DROP TABLE match_leases; \
             ALTER TABLE log ADD FOREIGN KEY (match_id) REFERENCES matches (match_id); \
             ALTER TABLE lifecycle ADD FOREIGN KEY (match_id) REFERENCES matches (match_id); \
             ALTER TABLE seats ADD FOREIGN KEY (match_id) REFERENCES matches (match_id); \
             ALTER TABLE match_labels ADD FOREIGN KEY (match_id) REFERENCES matches (match_id); \
             ALTER TABLE requests ADD FOREIGN KEY (match_id) REFERENCES matches (match_id)",
        )
        .unwrap();
    assert_eq!(foreign_keys(&mut client), 5);
    let store = PostgresStore::open(&database.url).unwrap();
    assert_eq!(foreign_keys(&mut client), 0, "version 2 drops them");
    assert_eq!(
        store.load("a").unwrap().unwrap().log,
        [chance(1), chance(2)]
    );
    append(&store, "a", &[chance(3)], &[]).unwrap();
    // The store refuses a match it does not hold by itself.
    let refused = append(&store, "nowhere", &[chance(1)], &[]).unwrap_err();
    assert!(
        refused.to_string().contains("no match nowhere"),
        "{refused}"
    );
    assert_eq!(store.load("a").unwrap().unwrap().log.len(), 3);
    assert!(store.load("nowhere").unwrap().is_none());
}

#[test]
fn the_feed_tail_follows_lifecycle_rows_another_host_commits() {
    let database = database();
    let here = PostgresStore::open(&database.url).unwrap();
    let elsewhere = PostgresStore::open(&database.url).unwrap();
    create(&elsewhere, "a");
    append(
        &elsewhere,
        "a",
        &[chance(2)],
        &[event("a", LifecycleKind::Paused)],
    )
    .unwrap();
    let last = *elsewhere.lifecycle_tail().borrow();
    assert_eq!(last, 2, "the creation's row and the pause");
    let mut tail = here.lifecycle_tail();
    let deadline = Instant::now() + Duration::from_secs(10);
    while *tail.borrow_and_update() < last {
        assert!(
            Instant::now() < deadline,
            "the tail stayed at {}",
            *tail.borrow()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let seqs: Vec<u64> = here
        .lifecycle_after(0, 10)
        .unwrap()
        .iter()
        .map(|r| r.seq)
        .collect();
    assert_eq!(seqs, [1, 2]);
    // And back: this host's rows reach the other.
    append(&here, "a", &[], &[event("a", LifecycleKind::Resumed)]).unwrap();
    let mut tail = elsewhere.lifecycle_tail();
    let deadline = Instant::now() + Duration::from_secs(10);
    while *tail.borrow_and_update() < 3 {
        assert!(
            Instant::now() < deadline,
            "the tail stayed at {}",
            *tail.borrow()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn every_store_on_a_database_shares_the_first_ones_key() {
    let database = database();
    let first = PostgresStore::open(&database.url).unwrap();
    let second = PostgresStore::open(&database.url).unwrap();
    assert_eq!(first.shared_key("request-key", [1; 32]).unwrap(), [1; 32]);
    assert_eq!(second.shared_key("request-key", [2; 32]).unwrap(), [1; 32]);
    assert_eq!(second.shared_key("another", [2; 32]).unwrap(), [2; 32]);
    drop(first);
    let reopened = PostgresStore::open(&database.url).unwrap();
    assert_eq!(
        reopened.shared_key("request-key", [3; 32]).unwrap(),
        [1; 32]
    );
}

#[test]
fn a_reopened_store_keeps_its_matches_and_numbers_lifecycle_rows_after_its_last() {
    let database = database();
    let store = PostgresStore::open(&database.url).unwrap();
    create(&store, "a");
    append(
        &store,
        "a",
        &[chance(2)],
        &[event("a", LifecycleKind::Paused)],
    )
    .unwrap();
    drop(store);
    let store = PostgresStore::open(&database.url).unwrap();
    assert_eq!(*store.lifecycle_tail().borrow(), 2);
    assert_eq!(
        store.load("a").unwrap().unwrap().log,
        [chance(1), chance(2)]
    );
    append(&store, "a", &[], &[event("a", LifecycleKind::Resumed)]).unwrap();
    let seqs: Vec<u64> = store
        .lifecycle_after(0, 10)
        .unwrap()
        .iter()
        .map(|r| r.seq)
        .collect();
    assert_eq!(seqs, [1, 2, 3]);
}

#[test]
fn an_entry_that_would_leave_a_hole_in_a_log_is_refused() {
    let store = open_on_new_database();
    create(&store, "a");
    let refused = append(&store, "a", &[chance(3)], &[]).unwrap_err();
    assert!(refused.to_string().contains("lacks version 2"), "{refused}");
    append(&store, "a", &[chance(2), chance(3)], &[]).unwrap();
    assert!(
        append(&store, "a", &[chance(3)], &[]).is_err(),
        "a version is written once"
    );
    assert_eq!(store.load("a").unwrap().unwrap().log.len(), 3);
}

#[test]
fn backup_is_refused_naming_pg_dump() {
    let store = open_on_new_database();
    let refused = store.backup(Path::new("/tmp/never")).unwrap_err();
    assert!(matches!(refused, HostError::Unsupported(_)), "{refused:?}");
    assert!(refused.to_string().contains("pg_dump"), "{refused}");
}

#[test]
fn a_malformed_url_or_an_absent_server_is_refused_with_the_reason() {
    assert!(matches!(
        PostgresStore::open("postgres://host:notaport/db"),
        Err(HostError::InvalidRequest(_))
    ));
    // Nothing listens on port 1.
    let refused = PostgresStore::open("postgres://u:secret@127.0.0.1:1/db").unwrap_err();
    assert!(
        matches!(refused, HostError::StoreUnavailable(_)),
        "{refused:?}"
    );
    assert!(refused.to_string().contains("127.0.0.1:1/db"), "{refused}");
    assert!(!refused.to_string().contains("secret"), "{refused}");
    assert!(is_postgres_url("postgres://h/d"));
    assert!(is_postgres_url("PostgreSQL://h/d"));
    assert!(!is_postgres_url("sqlite"));
}

#[test]
fn writes_queued_together_commit_in_order_and_a_failing_one_fails_alone() {
    let store = open_on_new_database();
    create(&store, "a");
    // Queued without waiting: the writer takes them in batches.
    let mut commits = Vec::new();
    let mut refused = None;
    for version in 2..=200u64 {
        let lifecycle = [event("a", LifecycleKind::Paused)];
        let entries = [chance(version)];
        let change = Change {
            entries: &entries,
            lifecycle: if version % 10 == 0 { &lifecycle } else { &[] },
            ..Change::default()
        };
        commits.push(store.append("a", &change).unwrap());
        if version == 100 {
            let nowhere = Change {
                entries: &[chance(1)],
                lifecycle: &lifecycle,
                ..Change::default()
            };
            refused = Some(store.append("nowhere", &nowhere).unwrap());
        }
    }
    for commit in commits {
        commit.wait().unwrap();
    }
    assert!(
        refused.unwrap().wait().is_err(),
        "the unknown match's write"
    );
    let log = store.load("a").unwrap().unwrap().log;
    assert_eq!(log, (1..=200).map(chance).collect::<Vec<_>>());
    let seqs: Vec<u64> = store
        .lifecycle_after(0, 100)
        .unwrap()
        .iter()
        .map(|r| r.seq)
        .collect();
    assert_eq!(
        seqs,
        (1..=21).collect::<Vec<_>>(),
        "no number lost to the refused write"
    );
    assert_eq!(*store.lifecycle_tail().borrow(), 21);
}

#[test]
fn matches_made_played_and_ended_in_shared_batches_keep_each_ones_order() {
    use crate::store::conformance::results;
    let store = open_on_new_database();
    // Queued without waiting, so the writer's batches mix creations, plain
    // appends and ends of different matches: it runs every match's leading
    // appends first and every lifecycle row of a batch last, each match's
    // writes still in their order.
    let mut commits = Vec::new();
    let mut live: Vec<(String, u64)> = Vec::new();
    let mut ended = Vec::new();
    for round in 0..40 {
        let id = format!("m{round}");
        commits.push(
            store
                .create_match(&NewMatch {
                    stored: &stored(&id, "g", 1, false),
                    lifecycle: &[event(&id, LifecycleKind::Started)],
                    request: None,
                })
                .unwrap(),
        );
        live.push((id, 1));
        for (id, version) in &mut live {
            *version += 1;
            let entries = [chance(*version)];
            let change = Change {
                entries: &entries,
                ..Change::default()
            };
            commits.push(store.append(id, &change).unwrap());
        }
        if round % 3 == 2 {
            let (id, version) = live.remove(0);
            let log: Vec<LogEntry> = (1..=version + 1).map(chance).collect();
            let finished = event(
                &id,
                LifecycleKind::Finished {
                    results: results(),
                    players: Vec::new(),
                    adjudicated: false,
                },
            );
            let change = Change {
                entries: &log[version as usize..],
                results: &results(),
                lifecycle: std::slice::from_ref(&finished),
                finished_log: Some(&log),
                ..Change::default()
            };
            commits.push(store.append(&id, &change).unwrap());
            ended.push((id, version + 1));
        }
    }
    for commit in commits {
        commit.wait().unwrap();
    }
    for (id, last) in live.iter().chain(&ended) {
        let stored = store.load(id).unwrap().unwrap();
        assert_eq!(
            stored.log,
            (1..=*last).map(chance).collect::<Vec<_>>(),
            "{id}"
        );
    }
    for (id, _) in &ended {
        assert_eq!(
            store.load(id).unwrap().unwrap().state(),
            Lifecycle::Finished
        );
    }
    let rows = store.lifecycle_after(0, 1000).unwrap();
    let seqs: Vec<u64> = rows.iter().map(|r| r.seq).collect();
    assert_eq!(seqs, (1..=(40 + ended.len() as u64)).collect::<Vec<_>>());
    for (id, _) in &ended {
        let at = |finished: bool| {
            rows.iter()
                .position(|r| {
                    r.event.match_id == *id
                        && matches!(r.event.kind, LifecycleKind::Finished { .. }) == finished
                })
                .unwrap()
        };
        assert!(at(false) < at(true), "{id}: started before it finished");
    }
    assert_eq!(*store.lifecycle_tail().borrow(), seqs.len() as u64);
}

#[test]
fn appends_queued_together_store_every_match_but_one_left_with_a_hole() {
    let store = open_on_new_database();
    for id in ["a", "b", "c"] {
        create(&store, id);
    }
    let plain = |id: &str, entries: &[LogEntry]| {
        store
            .append(
                id,
                &Change {
                    entries,
                    ..Change::default()
                },
            )
            .unwrap()
    };
    // Plain appends only, queued without waiting: the writer takes them in
    // batches of one statement each.
    let mut commits = Vec::new();
    let mut holed = None;
    let mut nowhere = None;
    for version in 2..=150u64 {
        for id in ["a", "b"] {
            commits.push(plain(id, &[chance(version)]));
        }
        match version {
            // A hole in c's log: that write alone is refused.
            70 => holed = Some(plain("c", &[chance(5)])),
            71 => commits.push(plain("c", &[chance(2), chance(3)])),
            // A match the store lacks: that write alone is refused.
            100 => nowhere = Some(plain("nowhere", &[chance(1)])),
            _ => {}
        }
    }
    for commit in commits {
        commit.wait().unwrap();
    }
    let refused = holed.unwrap().wait().unwrap_err();
    assert!(refused.to_string().contains("lacks version 4"), "{refused}");
    let refused = nowhere.unwrap().wait().unwrap_err();
    assert!(
        refused.to_string().contains("no match nowhere"),
        "{refused}"
    );
    for id in ["a", "b"] {
        let log = store.load(id).unwrap().unwrap().log;
        assert_eq!(log, (1..=150).map(chance).collect::<Vec<_>>(), "{id}");
    }
    let log = store.load("c").unwrap().unwrap().log;
    assert_eq!(log, (1..=3).map(chance).collect::<Vec<_>>());
    assert!(store.load("nowhere").unwrap().is_none());
}

#[test]
fn held_actions_queued_together_leave_each_match_with_its_last() {
    let store = open_on_new_database();
    for id in ["a", "b"] {
        create(&store, id);
    }
    let held = |seat: u32, action: u64| HeldAction {
        seat,
        action,
        at_ms: 6,
        at_version: 1,
    };
    // Queued without waiting: held actions alone (a seat acting in a
    // simultaneous turn), entries with held actions, and a match that
    // does not exist, which sends its batch through the general path.
    let mut commits = Vec::new();
    for round in 0..60u64 {
        for id in ["a", "b"] {
            let pending = [held(0, round), held(1, round + 1)];
            commits.push(
                store
                    .append(
                        id,
                        &Change {
                            pending: Some(&pending),
                            ..Change::default()
                        },
                    )
                    .unwrap(),
            );
            let entries = [chance(round + 2)];
            commits.push(
                store
                    .append(
                        id,
                        &Change {
                            entries: &entries,
                            pending: Some(&pending[..1]),
                            ..Change::default()
                        },
                    )
                    .unwrap(),
            );
        }
    }
    let nowhere = store
        .append(
            "nowhere",
            &Change {
                pending: Some(&[held(0, 1)]),
                ..Change::default()
            },
        )
        .unwrap();
    for commit in commits {
        commit.wait().unwrap();
    }
    assert!(nowhere.wait().is_err(), "an unknown match's held actions");
    for id in ["a", "b"] {
        let loaded = store.load(id).unwrap().unwrap();
        assert_eq!(loaded.log, (1..=61).map(chance).collect::<Vec<_>>(), "{id}");
        assert_eq!(loaded.pending, [held(0, 59)], "{id}");
    }
}

#[test]
fn a_hole_after_held_actions_in_one_batch_refuses_the_entries() {
    let store = open_on_new_database();
    create(&store, "a");
    let held = [HeldAction {
        seat: 0,
        action: 1,
        at_ms: 6,
        at_version: 1,
    }];
    // Queued together: the held actions first, then entries that leave a
    // hole (version 2 was never stored).
    let holding = store
        .append(
            "a",
            &Change {
                pending: Some(&held),
                ..Change::default()
            },
        )
        .unwrap();
    let holed = store
        .append(
            "a",
            &Change {
                entries: &[chance(3)],
                ..Change::default()
            },
        )
        .unwrap();
    let (holding, holed) = (holding.wait(), holed.wait());
    let refused = holed.expect_err("entries after a hole are never acknowledged");
    assert!(refused.to_string().contains("lacks version 2"), "{refused}");
    let loaded = store.load("a").unwrap().unwrap();
    assert_eq!(loaded.log, [chance(1)]);
    assert_eq!(loaded.pending.is_empty(), holding.is_err());
}

/// The host opens its store, and calls some of its methods, on async
/// workers: the synchronous client must run on the store's own threads
/// there (tokio refuses its runtime inside another).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_may_be_opened_and_called_on_an_async_worker() {
    let database = database();
    let store = PostgresStore::open(&database.url).unwrap();
    store
        .create_match(&NewMatch {
            stored: &stored("a", "g", 1, false),
            lifecycle: &[event("a", LifecycleKind::Started)],
            request: None,
        })
        .unwrap()
        .durable()
        .await
        .unwrap();
    assert_eq!(store.load("a").unwrap().unwrap().log, [chance(1)]);
    assert_eq!(store.list(&MatchQuery::default()).unwrap().len(), 1);
    assert_eq!(store.lifecycle_after(0, 10).unwrap().len(), 1);
    assert!(store.credentials().unwrap().is_empty());
    store
        .append(
            "a",
            &Change {
                entries: &[chance(2)],
                ..Change::default()
            },
        )
        .unwrap()
        .durable()
        .await
        .unwrap();
    drop(store);
}

/// A store on `url` that joined the database's hosts as `address`, with
/// the shortest lease.
fn joined(url: &str, address: &str) -> PostgresStore {
    let store = PostgresStore::open(url).unwrap();
    store.join(address, LEASE).unwrap();
    store
}

const LEASE: Duration = Duration::from_millis(300);

#[test]
fn only_the_host_holding_a_matchs_lease_stores_its_writes() {
    let database = database();
    let holder = joined(&database.url, "127.0.0.1:1");
    let other = joined(&database.url, "127.0.0.1:2");
    create(&holder, "a");
    let holder_id = holder.host_id().unwrap();
    assert!(
        matches!(other.claim("a").unwrap(), Claim::Elsewhere(h) if h.host_id == holder_id && h.address == "127.0.0.1:1")
    );
    // Both the one-statement append and the general path are fenced.
    let refused = append(&other, "a", &[chance(2)], &[]).unwrap_err();
    assert!(
        matches!(refused, HostError::MatchMoved { .. }),
        "{refused:?}"
    );
    let refused = append(
        &other,
        "a",
        &[chance(2)],
        &[event("a", LifecycleKind::Paused)],
    )
    .unwrap_err();
    assert!(
        matches!(refused, HostError::MatchMoved { .. }),
        "{refused:?}"
    );
    append(&holder, "a", &[chance(2)], &[]).unwrap();
    assert_eq!(holder.load("a").unwrap().unwrap().log.len(), 2);
}

#[test]
fn a_stale_holders_lease_is_taken_over_and_deaths_with_no_move_between_are_counted() {
    let database = database();
    let first = joined(&database.url, "127.0.0.1:1");
    create(&first, "a");
    // The first host dies: its row is no longer renewed.
    drop(first);
    let second = joined(&database.url, "127.0.0.1:2");
    assert!(
        matches!(second.claim("a").unwrap(), Claim::Elsewhere(_)),
        "held while the lease runs"
    );
    std::thread::sleep(LEASE * 2);
    assert_eq!(
        second.claim("a").unwrap(),
        Claim::Held {
            holders_died: 1,
            died_in: None
        }
    );
    assert_eq!(
        second.claim("a").unwrap(),
        Claim::Held {
            holders_died: 0,
            died_in: None
        },
        "held already"
    );
    drop(second);
    let third = joined(&database.url, "127.0.0.1:3");
    std::thread::sleep(LEASE * 2);
    assert_eq!(
        third.claim("a").unwrap(),
        Claim::Held {
            holders_died: 2,
            died_in: None
        },
        "no move between"
    );
    append(&third, "a", &[chance(2)], &[]).unwrap();
    drop(third);
    let fourth = joined(&database.url, "127.0.0.1:4");
    std::thread::sleep(LEASE * 2);
    assert_eq!(
        fourth.claim("a").unwrap(),
        Claim::Held {
            holders_died: 1,
            died_in: None
        },
        "a move between"
    );
    // A host restarted at its address takes its earlier run's leases at once.
    let restarted = joined(&database.url, "127.0.0.1:4");
    assert_eq!(
        restarted.claim("a").unwrap(),
        Claim::Held {
            holders_died: 0,
            died_in: None
        }
    );
    assert_eq!(
        restarted.holder("a").unwrap(),
        None,
        "no other host holds it"
    );
}

#[test]
fn a_host_that_leaves_gives_every_lease_up_at_once() {
    let database = database();
    let leaving = joined(&database.url, "127.0.0.1:1");
    create(&leaving, "a");
    create(&leaving, "b");
    let staying = joined(&database.url, "127.0.0.1:2");
    assert_eq!(leaving.leave().unwrap(), 2);
    assert_eq!(
        staying.claim("a").unwrap(),
        Claim::Held {
            holders_died: 0,
            died_in: None
        }
    );
    assert_eq!(
        staying.orphans(10).unwrap(),
        vec!["b".to_string()],
        "b is no host's"
    );
    let refused = append(&leaving, "a", &[chance(2)], &[]).unwrap_err();
    assert!(
        matches!(refused, HostError::MatchMoved { .. }),
        "{refused:?}"
    );
}
