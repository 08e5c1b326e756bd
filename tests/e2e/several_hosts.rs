//! Three hosts on one PostgreSQL database: any host answers any call for
//! any match (the holder serves it, the others forward), a host's death
//! costs no match and no acknowledged action, a host paused past its lease
//! cannot write, and a graceful stop hands the matches over with no error.

use std::time::{Duration, Instant};

use tabletop_proto::v1 as pb;
use tabletop_tests::{Host, HostOptions};
use tokio_stream::StreamExt;
use tonic::Code;

use crate::support::{create, play_first_legal, reason, spectator, watch_as_spectator};

/// The lease the tests' hosts hold their matches by: short, so failovers
/// take a second, not five.
const LEASE_MS: u64 = 1000;

/// A fresh database and `n` hosts on it.
async fn hosts(n: usize) -> (tabletop_test_postgres::TestDatabase, Vec<Host>) {
    let database = tokio::task::spawn_blocking(tabletop_test_postgres::database)
        .await
        .expect("a test database");
    let mut hosts = Vec::new();
    for _ in 0..n {
        hosts.push(host_on(&database.url).await);
    }
    (database, hosts)
}

async fn host_on(url: &str) -> Host {
    Host::start_with(HostOptions {
        args: vec![
            "--store".into(),
            url.to_string(),
            "--lease-ms".into(),
            LEASE_MS.to_string(),
        ],
        ..Default::default()
    })
    .await
}

/// Plays the first legal action through `host`, retrying while the call is
/// refused UNAVAILABLE (a host between owners) for up to `patience`.
async fn play_through(
    host: &Host,
    match_id: &str,
    tokens: &[String],
    patience: Duration,
) -> pb::SubmitActionResponse {
    let until = Instant::now() + patience;
    loop {
        let mut matches = host.matches().await;
        match play_first_legal(&mut matches, match_id, tokens).await {
            Ok(played) => return played,
            Err(status) if status.code() == Code::Unavailable && Instant::now() < until => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(status) => panic!("a move through {}: {status:?}", host.url),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_made_through_one_host_is_played_through_another_and_watched_through_a_third() {
    let (_database, hosts) = hosts(3).await;
    let (made, played, watched) = (&hosts[0], &hosts[1], &hosts[2]);
    let (match_id, tokens) = create(&mut made.matches().await, "focus", 2, 11).await;
    let mut watch = watch_as_spectator(&mut watched.watch().await, &match_id).await;
    let first = watch
        .next()
        .await
        .expect("a first message")
        .expect("the snapshot");
    let mut versions = Vec::new();
    for _ in 0..6 {
        let answer = play_through(played, &match_id, &tokens, Duration::from_secs(5)).await;
        versions.push(answer.view.expect("the submitter's view").version);
    }
    // Every move reaches the watcher on the third host, in order.
    let mut seen = Vec::new();
    while seen.len() < versions.len() {
        let event = tokio::time::timeout(Duration::from_secs(10), watch.next())
            .await
            .expect("an event within 10 s")
            .expect("the stream goes on")
            .expect("an event");
        if event.version > *seen.last().unwrap_or(&first.version) {
            seen.push(event.version);
        }
    }
    assert_eq!(seen, versions, "the watcher saw every move, in order");
    // All three hosts answer the same view.
    let mut views = Vec::new();
    for host in &hosts {
        views.push(spectator(&mut host.matches().await, &match_id).await);
    }
    assert!(
        views.iter().all(|view| view.version == versions[5]),
        "every host answers the match at its last version: {:?}",
        views.iter().map(|v| v.version).collect::<Vec<_>>()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_hosts_match_goes_on_through_another_within_the_lease() {
    let (_database, mut hosts) = hosts(2).await;
    let (match_id, tokens) = create(&mut hosts[0].matches().await, "focus", 2, 12).await;
    let start = spectator(&mut hosts[0].matches().await, &match_id)
        .await
        .version;
    let mut acknowledged = 0;
    for _ in 0..3 {
        play_through(&hosts[1], &match_id, &tokens, Duration::from_secs(5)).await;
        acknowledged += 1;
    }
    hosts[0].kill();
    let killed_at = Instant::now();
    let answer = play_through(&hosts[1], &match_id, &tokens, Duration::from_secs(10)).await;
    let failover = killed_at.elapsed();
    acknowledged += 1;
    assert!(
        failover < Duration::from_millis(LEASE_MS) + Duration::from_secs(3),
        "the first move after the kill was accepted {failover:?} later"
    );
    let view = answer.view.expect("a view");
    assert_eq!(
        view.version,
        start + acknowledged,
        "every acknowledged move is kept"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_paused_past_its_lease_cannot_write_and_gives_its_matches_up() {
    let (_database, hosts) = hosts(2).await;
    let (paused, other) = (&hosts[0], &hosts[1]);
    let (match_id, tokens) = create(&mut paused.matches().await, "focus", 2, 13).await;
    play_through(paused, &match_id, &tokens, Duration::from_secs(5)).await;
    let before = spectator(&mut paused.matches().await, &match_id).await;
    // The paused host's client: connected before the pause.
    let mut late_client = paused.matches().await;
    let to_move = before.to_move[0] as usize;
    let late_list = crate::support::legal(&mut late_client, &match_id, &tokens[to_move])
        .await
        .expect("legal actions");
    signal(paused, "STOP");
    tokio::time::sleep(Duration::from_millis(LEASE_MS * 2)).await;
    // The other host takes the match over and plays on.
    let moved = play_through(other, &match_id, &tokens, Duration::from_secs(10)).await;
    let moved_version = moved.view.expect("a view").version;
    signal(paused, "CONT");
    // The paused host's late write, at the version it knew: refused.
    let late = crate::support::submit(
        &mut late_client,
        &match_id,
        &tokens[to_move],
        late_list.actions[0].id,
        Some(late_list.version),
    )
    .await;
    let refused = late.expect_err("a late write of a host that lost its lease is refused");
    assert!(
        matches!(reason(&refused).as_str(), "MATCH_MOVED" | "STALE_VERSION"),
        "{refused:?}"
    );
    // And the paused host gives the match up: it answers what the holder has.
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let view = crate::support::view_of(&mut paused.matches().await, &match_id, "", None).await;
        if view
            .as_ref()
            .is_ok_and(|view| view.version == moved_version)
        {
            break;
        }
        assert!(
            Instant::now() < until,
            "the paused host still answers {view:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let stored = spectator(&mut other.matches().await, &match_id).await;
    assert_eq!(
        stored.version, moved_version,
        "nothing the paused host did was stored"
    );
}

fn signal(host: &Host, signal: &str) {
    let status = std::process::Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(host.pid().to_string())
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -{signal}");
}
