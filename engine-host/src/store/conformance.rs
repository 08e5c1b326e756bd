//! The store conformance suite: what every [`Store`] must do, written once
//! and run on every implementation (`store_conformance!` in its tests), so
//! that a new store (a server database) is checked by the same tests as
//! SQLite and memory.
//!
//! Each check takes a fresh, empty store. What survives a restart is a
//! property of the durable store alone and is tested there.

use tabletop_core::{
    HeldAction, Lifecycle, LogEntry, LogKind, LoggedMove, MatchSetup, SeatJoin, SeatResult,
};

use super::{
    Change, Commit, LifecycleEvent, LifecycleKind, ListedState, MatchQuery, NewMatch, OutReason,
    Store, StoredCredential, StoredMatch, StoredRequest,
};

/// Generates one `#[test]` per check for the store `make(dir)` opens in a
/// fresh directory `dir`.
#[macro_export]
#[doc(hidden)]
macro_rules! store_conformance {
    ($make:expr) => {
        $crate::store_conformance!(@tests $make;
            created_matches_load_back_as_stored,
            appends_extend_the_log_and_held_actions_stay_until_changed,
            a_joined_seat_loads_back_with_its_place_in_the_join_order,
            a_write_to_an_unknown_match_fails_alone,
            finished_matches_are_not_loaded_at_start,
            listings_filter_and_page_in_creation_order,
            a_quarantined_match_is_listed_quarantined_and_loaded_at_start_until_released,
            lifecycle_rows_are_numbered_in_commit_order,
            a_request_id_answers_once,
            join_codes_are_kept_until_the_seat_is_taken,
            a_reissued_token_replaces_the_old_one,
            credentials_are_kept_hashed_and_revoked_for_good,
        );
    };
    (@tests $make:expr; $($check:ident),* $(,)?) => {
        $(
            #[test]
            fn $check() {
                let dir = std::env::temp_dir().join(format!(
                    "tabletop-store-{}-{}-{}",
                    stringify!($check),
                    std::process::id(),
                    std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_nanos())
                ));
                std::fs::create_dir_all(&dir).unwrap();
                {
                    let store = ($make)(&dir);
                    $crate::store::conformance::$check(&store);
                }
                let _ = std::fs::remove_dir_all(&dir);
            }
        )*
    };
}

/// The plugin file hash [`stored`] matches record.
pub const BUILD_SHA256: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

/// A two-seat match of game `game` created at `created_at_ms` with a
/// build whose file hashes to [`BUILD_SHA256`], with seat 1 open when
/// `open`, and one chance entry.
pub fn stored(id: &str, game: &str, created_at_ms: i64, open: bool) -> StoredMatch {
    StoredMatch {
        setup: MatchSetup {
            match_id: id.into(),
            game: game.into(),
            plugin_version: "1.0.0".into(),
            plugin_sha256: Some(BUILD_SHA256.into()),
            players: 2,
            options: Default::default(),
            seed: u64::MAX,
            start_position: None,
            created_at_ms,
            time_control: None,
            labels: Default::default(),
            open_seat_deadline: None,
            spectator_delay: None,
            tenant: String::new(),
            creator: String::new(),
            seat_players: vec![],
        },
        seat_hashes: vec![Some([7; 32]), if open { None } else { Some([8; 32]) }],
        join_code_hashes: vec![],
        joins: vec![],
        log: vec![chance(1)],
        pending: vec![],
        results: vec![],
    }
}

/// `seat` taken at `at_ms` by a player who said who they are.
fn join(seat: u32, at_ms: i64) -> SeatJoin {
    SeatJoin {
        seat,
        at_ms,
        display_name: format!("player {seat}"),
        external_id: format!("ext-{seat}"),
        // Odd seats are taken by the host's bot, so the spec round-trips.
        bot: if seat % 2 == 1 {
            "mcts:20".into()
        } else {
            String::new()
        },
    }
}

fn chance(version: u64) -> LogEntry {
    LogEntry {
        version,
        at_ms: 3,
        kind: LogKind::Chance { outcome: version },
    }
}

fn moves(version: u64, seat: u32) -> LogEntry {
    LogEntry {
        version,
        at_ms: 4,
        kind: LogKind::Moves {
            moves: smallvec::smallvec![LoggedMove {
                seat,
                action: version,
                notation: compact_str::format_compact!("a{version}"),
                at_ms: 4,
                held: Some(0),
            }],
        },
    }
}

pub fn results() -> Vec<SeatResult> {
    vec![
        SeatResult {
            seat: 0,
            rank: 1,
            score: 1.0,
            resigned: false,
        },
        SeatResult {
            seat: 1,
            rank: 2,
            score: 0.0,
            resigned: true,
        },
    ]
}

fn event(id: &str, kind: LifecycleKind) -> LifecycleEvent {
    LifecycleEvent {
        match_id: id.into(),
        at_ms: 5,
        game: "g".into(),
        labels: [("round".to_string(), "1".to_string())].into(),
        tenant: String::new(),
        kind,
    }
}

fn create(store: &dyn Store, stored: &StoredMatch) {
    store
        .create_match(&NewMatch {
            stored,
            lifecycle: &[],
            request: None,
        })
        .and_then(Commit::wait)
        .unwrap();
}

fn append(store: &dyn Store, id: &str, change: Change<'_>) {
    store.append(id, &change).and_then(Commit::wait).unwrap();
}

/// Creates a finished match `id`.
pub fn create_finished(store: &dyn Store, id: &str) {
    let m = stored(id, "g", 1, false);
    create(store, &m);
    append(
        store,
        id,
        Change {
            results: &results(),
            finished_log: Some(&m.log),
            ..Change::default()
        },
    );
}

/// What is created loads back as it was.
pub fn created_matches_load_back_as_stored(store: &dyn Store) {
    let a = stored("a", "g", 1, true);
    create(store, &a);
    assert_eq!(store.load("a").unwrap(), Some(a));
    assert_eq!(store.load("b").unwrap(), None, "never stored");
}

/// Entries append in order; held actions change only when a change says
/// so; results end the match.
pub fn appends_extend_the_log_and_held_actions_stay_until_changed(store: &dyn Store) {
    create(store, &stored("a", "g", 1, false));
    let held = [HeldAction {
        seat: 1,
        action: 5,
        at_ms: 6,
        at_version: 2,
    }];
    append(
        store,
        "a",
        Change {
            entries: &[moves(2, 0)],
            pending: Some(&held),
            ..Change::default()
        },
    );
    append(
        store,
        "a",
        Change {
            entries: &[chance(3)],
            ..Change::default()
        },
    );
    let loaded = store.load("a").unwrap().unwrap();
    assert_eq!(loaded.log, vec![chance(1), moves(2, 0), chance(3)]);
    assert_eq!(loaded.pending, held, "None leaves them as they were");
    assert_eq!(loaded.state(), Lifecycle::Running);
    append(
        store,
        "a",
        Change {
            pending: Some(&[]),
            results: &results(),
            finished_log: Some(&[chance(1), moves(2, 0), chance(3)]),
            ..Change::default()
        },
    );
    let loaded = store.load("a").unwrap().unwrap();
    assert_eq!(loaded.log, vec![chance(1), moves(2, 0), chance(3)]);
    assert_eq!(loaded.pending, vec![]);
    assert_eq!(loaded.results, results());
    assert_eq!(loaded.state(), Lifecycle::Finished);
}

/// A seat taken after creation keeps its token and its place in the order.
pub fn a_joined_seat_loads_back_with_its_place_in_the_join_order(store: &dyn Store) {
    let mut m = stored("a", "g", 1, true);
    m.setup.players = 3;
    m.seat_hashes = vec![None, Some([1; 32]), None];
    create(store, &m);
    let second = join(0, 9);
    let first = join(2, 9);
    store.join_seat("a", first.clone(), [3; 32], &[]).unwrap();
    assert_eq!(
        store.load("a").unwrap().unwrap().state(),
        Lifecycle::Waiting
    );
    store.join_seat("a", second.clone(), [4; 32], &[]).unwrap();
    let loaded = store.load("a").unwrap().unwrap();
    assert_eq!(
        loaded.seat_hashes,
        vec![Some([4; 32]), Some([1; 32]), Some([3; 32])]
    );
    assert_eq!(
        loaded.joins,
        vec![first, second],
        "join order, not seat order"
    );
    assert_eq!(loaded.state(), Lifecycle::Running);
}

/// A write to a match the store does not have fails, and only that write.
pub fn a_write_to_an_unknown_match_fails_alone(store: &dyn Store) {
    create(store, &stored("a", "g", 1, true));
    let refused = store.append(
        "nowhere",
        &Change {
            entries: &[chance(2)],
            ..Change::default()
        },
    );
    assert!(refused.and_then(Commit::wait).is_err());
    assert!(
        store
            .append("nowhere", &Change::default())
            .and_then(Commit::wait)
            .is_err()
    );
    assert!(
        store
            .join_seat("nowhere", join(1, 1), [1; 32], &[])
            .is_err()
    );
    append(
        store,
        "a",
        Change {
            entries: &[chance(2)],
            ..Change::default()
        },
    );
    assert_eq!(store.load("a").unwrap().unwrap().log.len(), 2);
}

/// At start a host loads only what is not finished.
pub fn finished_matches_are_not_loaded_at_start(store: &dyn Store) {
    create(store, &stored("waiting", "g", 1, true));
    create(store, &stored("running", "g", 2, false));
    create_finished(store, "finished");
    let mut loaded: Vec<String> = store
        .load_unfinished()
        .unwrap()
        .into_iter()
        .map(|m| m.expect("every match reads back").setup.match_id)
        .collect();
    loaded.sort();
    assert_eq!(loaded, ["running", "waiting"]);
    assert!(store.load("finished").unwrap().is_some(), "asked for by id");
}

/// Listings select by game, stage and creation time, oldest first, in
/// pages that resume after the last match of the one before.
pub fn listings_filter_and_page_in_creation_order(store: &dyn Store) {
    // Created out of order, and two at the same time (ordered by id).
    create(store, &stored("m3", "focus", 30, false));
    create(store, &stored("m1", "lanza", 10, true));
    create(store, &stored("m2b", "focus", 20, false));
    create(store, &stored("m2a", "focus", 20, false));
    append(
        store,
        "m3",
        Change {
            entries: &[chance(2)],
            results: &results(),
            finished_log: Some(&[chance(1), chance(2)]),
            ..Change::default()
        },
    );
    let ids = |query: MatchQuery| -> Vec<String> {
        store
            .list(&query)
            .unwrap()
            .into_iter()
            .map(|m| m.setup.match_id)
            .collect()
    };
    assert_eq!(ids(MatchQuery::default()), ["m1", "m2a", "m2b", "m3"]);
    let focus = MatchQuery {
        game: Some("focus".into()),
        ..MatchQuery::default()
    };
    assert_eq!(ids(focus.clone()), ["m2a", "m2b", "m3"]);
    let finished = MatchQuery {
        state: Some(ListedState::Finished),
        ..MatchQuery::default()
    };
    assert_eq!(ids(finished), ["m3"]);
    let waiting = MatchQuery {
        state: Some(ListedState::Waiting),
        ..MatchQuery::default()
    };
    assert_eq!(ids(waiting), ["m1"]);
    let window = MatchQuery {
        created_from_ms: Some(20),
        created_before_ms: Some(30),
        ..MatchQuery::default()
    };
    assert_eq!(ids(window), ["m2a", "m2b"]);
    let first_page = MatchQuery {
        limit: 2,
        ..focus.clone()
    };
    assert_eq!(ids(first_page), ["m2a", "m2b"]);
    let next_page = MatchQuery {
        limit: 2,
        after: Some((20, "m2b".into())),
        ..focus
    };
    assert_eq!(ids(next_page), ["m3"]);
    let summary = store.list(&MatchQuery::default()).unwrap();
    assert_eq!(summary[0].open_seats, [1]);
    assert_eq!(summary[0].state, ListedState::Waiting);
    assert_eq!(summary[3].final_version, Some(2));
    assert_eq!(summary[2].final_version, None, "running");
    assert_eq!(summary[3].state, ListedState::Finished);
}

/// A quarantine lists its match as quarantined, not running, and the match
/// is loaded at start like any unfinished one; a release lists it running
/// again.
pub fn a_quarantined_match_is_listed_quarantined_and_loaded_at_start_until_released(
    store: &dyn Store,
) {
    create(store, &stored("q", "g", 1, false));
    create(store, &stored("r", "g", 2, false));
    let quarantine = LogEntry {
        version: 2,
        at_ms: 5,
        kind: LogKind::Quarantine {
            reason: "the plugin's worker died".into(),
        },
    };
    let quarantined = event(
        "q",
        LifecycleKind::Quarantined {
            reason: "the plugin's worker died".into(),
        },
    );
    append(
        store,
        "q",
        Change {
            entries: std::slice::from_ref(&quarantine),
            lifecycle: std::slice::from_ref(&quarantined),
            ..Change::default()
        },
    );
    let ids = |state: ListedState| -> Vec<String> {
        let query = MatchQuery {
            state: Some(state),
            ..MatchQuery::default()
        };
        let listed = store.list(&query).unwrap();
        listed.into_iter().map(|m| m.setup.match_id).collect()
    };
    assert_eq!(ids(ListedState::Quarantined), ["q"]);
    assert_eq!(ids(ListedState::Running), ["r"]);
    let loaded = store.load("q").unwrap().unwrap();
    assert_eq!(loaded.listed_state(), ListedState::Quarantined);
    assert_eq!(loaded.state(), Lifecycle::Running);
    let mut unfinished: Vec<String> = store
        .load_unfinished()
        .unwrap()
        .into_iter()
        .map(|m| m.expect("every match reads back").setup.match_id)
        .collect();
    unfinished.sort();
    assert_eq!(unfinished, ["q", "r"]);

    let release = LogEntry {
        version: 3,
        at_ms: 6,
        kind: LogKind::Release {
            build: Some(tabletop_core::PluginBuild {
                version: "1.0.1".into(),
                sha256: Some(BUILD_SHA256.into()),
            }),
        },
    };
    append(
        store,
        "q",
        Change {
            entries: std::slice::from_ref(&release),
            lifecycle: &[event("q", LifecycleKind::Released)],
            ..Change::default()
        },
    );
    assert!(ids(ListedState::Quarantined).is_empty());
    assert_eq!(ids(ListedState::Running), ["q", "r"]);
}

/// Lifecycle rows are written with the change they describe and numbered
/// 1, 2, … in the order the changes were committed.
pub fn lifecycle_rows_are_numbered_in_commit_order(store: &dyn Store) {
    let m = stored("a", "g", 1, true);
    let created = event(
        "a",
        LifecycleKind::Created {
            players: 2,
            plugin_version: "1.0.0".into(),
            seat_players: vec![],
        },
    );
    store
        .create_match(&NewMatch {
            stored: &m,
            lifecycle: std::slice::from_ref(&created),
            request: None,
        })
        .and_then(Commit::wait)
        .unwrap();
    let filled = event(
        "a",
        LifecycleKind::SeatFilled {
            seat: 1,
            player: Default::default(),
        },
    );
    let started = event("a", LifecycleKind::Started);
    store
        .join_seat("a", join(1, 5), [2; 32], &[filled.clone(), started.clone()])
        .unwrap();
    let out = event(
        "a",
        LifecycleKind::SeatOut {
            seat: 1,
            reason: OutReason::Resigned,
        },
    );
    let finished = event(
        "a",
        LifecycleKind::Finished {
            results: results(),
            players: vec![],
            adjudicated: false,
        },
    );
    append(
        store,
        "a",
        Change {
            entries: &[chance(2)],
            results: &results(),
            lifecycle: &[out.clone(), finished.clone()],
            finished_log: Some(&[chance(1), chance(2)]),
            ..Change::default()
        },
    );
    // A refused write records nothing.
    let refused = store.append(
        "nowhere",
        &Change {
            lifecycle: std::slice::from_ref(&created),
            ..Change::default()
        },
    );
    assert!(refused.and_then(Commit::wait).is_err());
    let rows = store.lifecycle_after(0, 100).unwrap();
    let seqs: Vec<u64> = rows.iter().map(|r| r.seq).collect();
    assert_eq!(seqs, [1, 2, 3, 4, 5]);
    let events: Vec<LifecycleEvent> = rows.into_iter().map(|r| r.event).collect();
    assert_eq!(events, [created, filled, started, out, finished.clone()]);
    let page = store.lifecycle_after(2, 2).unwrap();
    assert_eq!(page.iter().map(|r| r.seq).collect::<Vec<_>>(), [3, 4]);
    let last = store.lifecycle_after(4, 100).unwrap();
    assert_eq!(last.len(), 1);
    assert_eq!(last[0].event, finished);
    assert!(store.lifecycle_after(5, 100).unwrap().is_empty());
}

/// A request id is stored with the match it created, and a second match
/// under the same id is refused with nothing written.
pub fn a_request_id_answers_once(store: &dyn Store) {
    let request = StoredRequest {
        request_id: "r1".into(),
        request_hash: [5; 32],
        match_id: "a".into(),
        response: b"tokens".to_vec(),
    };
    store
        .create_match(&NewMatch {
            stored: &stored("a", "g", 1, false),
            lifecycle: &[],
            request: Some(&request),
        })
        .and_then(Commit::wait)
        .unwrap();
    assert_eq!(store.request("r1").unwrap(), Some(request.clone()));
    assert_eq!(store.request("r2").unwrap(), None);
    let again = store.create_match(&NewMatch {
        stored: &stored("b", "g", 1, false),
        lifecycle: &[],
        request: Some(&request),
    });
    assert!(again.and_then(Commit::wait).is_err());
    assert_eq!(store.load("b").unwrap(), None, "nothing of it was written");
    assert_eq!(store.request("r1").unwrap(), Some(request));
}

/// An open seat's join code hash loads back with the match, and goes once
/// the seat is taken; players named at creation load back too.
pub fn join_codes_are_kept_until_the_seat_is_taken(store: &dyn Store) {
    let mut m = stored("a", "g", 1, true);
    m.join_code_hashes = vec![None, Some([9; 32])];
    m.setup.seat_players = vec![tabletop_core::SeatPlayer {
        seat: 0,
        display_name: "Ana".into(),
        external_id: "p-1".into(),
        bot: "random".into(),
    }];
    create(store, &m);
    assert_eq!(store.load("a").unwrap(), Some(m));
    store.join_seat("a", join(1, 5), [3; 32], &[]).unwrap();
    let loaded = store.load("a").unwrap().unwrap();
    assert!(
        loaded.join_code_hashes.iter().all(Option::is_none),
        "{:?}",
        loaded.join_code_hashes
    );
    assert_eq!(
        loaded.joins,
        vec![join(1, 5)],
        "the joining player's name and id"
    );
    assert_eq!(loaded.setup.seat_players[0].display_name, "Ana");
}

/// A re-issued token replaces the seat's hash; an open seat or an unknown
/// match has none to replace.
pub fn a_reissued_token_replaces_the_old_one(store: &dyn Store) {
    create(store, &stored("a", "g", 1, true));
    store.reissue_token("a", 0, [5; 32]).unwrap();
    assert_eq!(
        store.load("a").unwrap().unwrap().seat_hashes,
        vec![Some([5; 32]), None]
    );
    assert!(
        store.reissue_token("a", 1, [6; 32]).is_err(),
        "an open seat"
    );
    assert!(store.reissue_token("nowhere", 0, [6; 32]).is_err());
    assert_eq!(
        store.load("a").unwrap().unwrap().seat_hashes,
        vec![Some([5; 32]), None],
        "a refused re-issue changes nothing"
    );
}

/// Credentials load back as issued (a hash, never a secret), oldest first;
/// a revocation is kept and its time is the first one.
pub fn credentials_are_kept_hashed_and_revoked_for_good(store: &dyn Store) {
    let credential = |id: &str, at: i64| StoredCredential {
        credential_id: id.into(),
        name: format!("organizer {id}"),
        role: "organizer".into(),
        secret_hash: [at as u8; 32],
        issued_at_ms: at,
        revoked_at_ms: None,
        tenant: format!("tenant-{id}"),
    };
    assert!(store.credentials().unwrap().is_empty());
    store.issue_credential(&credential("c1", 1)).unwrap();
    store.issue_credential(&credential("c2", 2)).unwrap();
    assert!(
        store.issue_credential(&credential("c1", 3)).is_err(),
        "an id is issued once"
    );
    assert!(store.revoke_credential("c1", 10).unwrap());
    assert!(store.revoke_credential("c1", 20).unwrap());
    assert!(!store.revoke_credential("c9", 10).unwrap());
    let listed = store.credentials().unwrap();
    assert_eq!(
        listed,
        vec![
            StoredCredential {
                revoked_at_ms: Some(10),
                ..credential("c1", 1)
            },
            credential("c2", 2)
        ]
    );
}
