//! A host on PostgreSQL while its database stops and starts again: every
//! change meanwhile is refused with `STORE_UNAVAILABLE` and stores nothing,
//! health says `NOT_SERVING`, and once the database is back the host
//! serves again by itself, the match going on from what was stored and
//! its watchers following it; crashed under load, it keeps every
//! acknowledged action; and what an action costs in commits and round
//! trips.

use std::time::{Duration, Instant};

use rand::SeedableRng;
use tabletop_proto::v1 as pb;
use tabletop_test_postgres::{Cluster, create_database};
use tabletop_tests::{Host, HostOptions};
use tonic::Code;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

use crate::support::{
    create, issue_in_tenant, play_first_legal, play_to_end, reason, spectator, watch_as_spectator,
};

/// Waits until the host's health service says `status` for the server as a
/// whole.
pub(crate) async fn health_becomes(host: &Host, status: ServingStatus, patience: Duration) {
    let until = Instant::now() + patience;
    let mut health = HealthClient::new(host.channel().await);
    loop {
        let now = health
            .check(tonic_health::pb::HealthCheckRequest {
                service: String::new(),
            })
            .await
            .map(|answer| answer.into_inner().status);
        if now.as_ref().is_ok_and(|now| *now == status as i32) {
            return;
        }
        assert!(
            Instant::now() < until,
            "health did not become {status:?} within {patience:?} (it says {now:?})"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A PostgreSQL cluster of the test's own (to stop and start without
/// disturbing other tests) and a database on it.
pub(crate) async fn private_cluster() -> (Cluster, tabletop_test_postgres::TestDatabase) {
    let cluster = tokio::task::spawn_blocking(Cluster::start)
        .await
        .expect("the cluster's start")
        .expect("a private PostgreSQL cluster");
    let server = cluster.url();
    let database = tokio::task::spawn_blocking(move || create_database(&server))
        .await
        .expect("the database's creation")
        .expect("a database");
    (cluster, database)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_restart_refuses_changes_meanwhile_and_play_resumes_by_itself() {
    let (cluster, database) = private_cluster().await;
    let host = Host::start_with(HostOptions {
        args: vec!["--store".into(), database.url.clone()],
        ..Default::default()
    })
    .await;
    let mut matches = host.matches().await;
    let (match_id, tokens) = create(&mut matches, "focus", 2, 5).await;
    for n in 0..4 {
        play_first_legal(&mut matches, &match_id, &tokens)
            .await
            .unwrap_or_else(|e| panic!("move {n} while the database is up: {e}"));
    }
    let stored = spectator(&mut matches, &match_id).await.version;
    // A spectator watching throughout: the refused move leaves the match
    // out of memory, and the stream follows it as it is read back.
    let mut watch = watch_as_spectator(&mut host.watch().await, &match_id).await;

    let stopping = &cluster;
    std::thread::scope(|scope| scope.spawn(|| stopping.stop_server()).join())
        .expect("the stop")
        .expect("the database stops");
    let refused = play_first_legal(&mut matches, &match_id, &tokens)
        .await
        .expect_err("a move while the database is down");
    assert_eq!(refused.code(), Code::Unavailable, "{refused:?}");
    assert_eq!(reason(&refused), "STORE_UNAVAILABLE", "{refused:?}");
    health_becomes(&host, ServingStatus::NotServing, Duration::from_secs(10)).await;
    // Known down: refused before anything is made of it.
    let refused = play_first_legal(&mut matches, &match_id, &tokens)
        .await
        .expect_err("a move while the database is known down");
    assert_eq!(reason(&refused), "STORE_UNAVAILABLE", "{refused:?}");

    std::thread::scope(|scope| scope.spawn(|| stopping.start_server()).join())
        .expect("the start")
        .expect("the database starts again");
    health_becomes(&host, ServingStatus::Serving, Duration::from_secs(20)).await;
    let view = spectator(&mut matches, &match_id).await;
    assert_eq!(
        view.version, stored,
        "the refused move was not stored, and the match is as stored"
    );

    let mut again = watch_as_spectator(&mut host.watch().await, &match_id).await;
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let (_, end) = play_to_end(&mut matches, &match_id, &tokens, &mut rng, 5_000).await;
    assert_eq!(
        end.state,
        pb::MatchState::Finished as i32,
        "played on to its end"
    );
    // The watcher was told the refused move as it was made: its stream
    // ends saying so, and a new watch follows the match as stored.
    let mut told = Vec::new();
    let ended = loop {
        match watch.message().await {
            Ok(Some(event)) => told.push(event.version),
            Ok(None) => panic!("the stream ended without saying what it told was lost"),
            Err(status) => break status,
        }
    };
    assert_eq!(
        told,
        [stored, stored + 1],
        "the snapshot and the refused move"
    );
    assert_eq!(reason(&ended), "STORE_UNAVAILABLE", "{ended:?}");
    assert!(ended.message().contains("were not stored"), "{ended:?}");
    let mut followed = Vec::new();
    while let Some(event) = again.message().await.expect("the new watch goes on") {
        followed.push(event.version);
    }
    let expected: Vec<u64> = (stored..=end.version).collect();
    assert_eq!(followed, expected, "a snapshot, then every version once");
    drop(host);
    drop(database);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_database_crash_under_load_keeps_every_acknowledged_action_and_play_goes_on() {
    let (cluster, database) = private_cluster().await;
    crate::durable::acknowledged_actions_survive(
        &database.url,
        crate::durable::Interruption::RestartTheDatabase(&cluster),
    )
    .await;
}

/// The per-action cost on PostgreSQL that BENCHMARKS.md reports, held here
/// as a bound: one player's actions, one after another, each one commit in
/// one round trip (an action that only adds log entries is one statement,
/// committed as it returns).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_action_on_postgres_costs_one_commit_in_one_round_trip() {
    let database = tokio::task::spawn_blocking(tabletop_test_postgres::database)
        .await
        .expect("a test database");
    let host = Host::start_with(HostOptions {
        args: vec![
            "--store".into(),
            database.url.clone(),
            "--metrics-listen".into(),
            "127.0.0.1:0".into(),
        ],
        ..Default::default()
    })
    .await;
    let address = host.metrics_address.clone().expect("a metrics address");
    let mut matches = host.matches().await;
    let (match_id, tokens) = create(&mut matches, "focus", 2, 9).await;
    // Warm: every statement an action runs is prepared.
    play_first_legal(&mut matches, &match_id, &tokens)
        .await
        .expect("a first move");
    let before = crate::support::scrape(&address).await;
    const ACTIONS: f64 = 20.0;
    for n in 0..ACTIONS as u32 {
        play_first_legal(&mut matches, &match_id, &tokens)
            .await
            .unwrap_or_else(|e| panic!("move {n}: {e}"));
    }
    let after = crate::support::scrape(&address).await;
    let moved = |name: &str| {
        after.get(name).copied().unwrap_or(0.0) - before.get(name).copied().unwrap_or(0.0)
    };
    let commits = moved("tabletop_store_commit_seconds_count");
    assert_eq!(
        commits, ACTIONS,
        "one commit per action, none for the reads"
    );
    let round_trips = moved("tabletop_store_round_trips_total") / ACTIONS;
    assert!(
        (1.0..=1.2).contains(&round_trips),
        "round trips per action: {round_trips}"
    );
}

/// One admin token serves every host on a database: the first host's. A
/// host with no token of its own takes it (and keeps no copy), and a host
/// given another one is refused at its start, saying why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_host_on_a_database_accepts_the_first_hosts_admin_token_and_no_other() {
    let database = tokio::task::spawn_blocking(tabletop_test_postgres::database)
        .await
        .expect("a test database");
    let store = vec!["--store".to_string(), database.url.clone()];
    // The harness gives every host the same admin token.
    let first = Host::start_with(HostOptions {
        args: store.clone(),
        ..Default::default()
    })
    .await;
    let root = tempfile::tempdir().expect("temp dir");
    let data = root.path().join("data");
    let second = Host::start_with(HostOptions {
        data_dir: Some(data.clone()),
        args: store.clone(),
        env: vec![("TABLETOP_ADMIN_TOKEN".into(), String::new())],
        ..Default::default()
    })
    .await;
    // The first host's token is the admin's on the second.
    let (_, _, issued_secret) = issue_in_tenant(&second, "through the second", "north").await;
    assert!(!issued_secret.is_empty());
    assert!(
        !data.join("admin-token").exists(),
        "a host that takes the store's token keeps no copy of its own"
    );
    drop((first, second));

    let refused = std::process::Command::new(tabletop_tests::engine_host_binary())
        .args(["--listen", "127.0.0.1:0", "--plugin-poll-ms", "0"])
        .arg("--data-dir")
        .arg(root.path().join("another"))
        .arg("--plugin-dir")
        .arg(root.path())
        .args(&store)
        .env("TABLETOP_ADMIN_TOKEN", "another-admin-token")
        .output()
        .expect("the host runs");
    assert!(
        !refused.status.success(),
        "a host with another token starts"
    );
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("not the one the other hosts on its store accept"),
        "{stderr}"
    );
}
