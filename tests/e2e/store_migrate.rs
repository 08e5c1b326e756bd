//! `tabletop store migrate`: a host's SQLite store moved into PostgreSQL
//! offline, and a host on the database serving it exactly as before — the
//! same listings, views and feed under the same cursors, request ids
//! answering their matches, credentials with their tenants and
//! revocations, and play going on.

use std::collections::HashMap;
use std::process::Output;
use std::time::Duration;

use rand::SeedableRng;
use tabletop_proto::v1 as pb;
use tabletop_proto::v1::director_client::DirectorClient;
use tabletop_proto::v1::matches_client::MatchesClient;
use tabletop_tests::{ADMIN_TOKEN, Host, HostOptions, as_admin, with_credential, workspace_dir};
use tokio_stream::StreamExt;
use tonic::transport::Channel;

use crate::cli::cli_binary;
use crate::support::{issue_in_tenant, play_first_legal, play_to_end, reason, spectator};

/// Runs `tabletop store migrate --from FROM --to TO`.
async fn migrate(from: &std::path::Path, to: &str) -> Output {
    tokio::process::Command::new(cli_binary())
        .args(["store", "migrate", "--from"])
        .arg(from)
        .args(["--to", to])
        .output()
        .await
        .expect("the CLI runs")
}

async fn new_database() -> tabletop_test_postgres::TestDatabase {
    tokio::task::spawn_blocking(tabletop_test_postgres::database)
        .await
        .expect("a test database")
}

/// Every lifecycle event the feed has after `after`, read until it has
/// been quiet for a moment.
async fn feed_after(host: &Host, after: u64) -> Vec<pb::LifecycleEvent> {
    let mut director = DirectorClient::new(host.channel().await);
    let mut stream = director
        .follow_lifecycle(pb::FollowLifecycleRequest {
            admin_token: ADMIN_TOKEN.into(),
            after_cursor: after,
            ..Default::default()
        })
        .await
        .expect("the feed")
        .into_inner();
    let mut events = Vec::new();
    while let Ok(Some(event)) =
        tokio::time::timeout(Duration::from_millis(700), stream.next()).await
    {
        events.push(event.expect("a feed event"));
    }
    events
}

/// Every match as the admin lists it, in one page.
async fn listing(matches: &mut MatchesClient<Channel>) -> Vec<pb::MatchSummary> {
    matches
        .list_matches(as_admin(pb::ListMatchesRequest {
            page_size: 1_000,
            ..Default::default()
        }))
        .await
        .expect("the admin lists matches")
        .into_inner()
        .matches
}

fn create_request(game: &str, request_id: &str, open_seats: Vec<u32>) -> pb::CreateMatchRequest {
    pb::CreateMatchRequest {
        game: game.into(),
        players: 2,
        seed: Some(7),
        request_id: request_id.into(),
        labels: [("round".to_string(), "3".to_string())].into(),
        open_seats,
        ..Default::default()
    }
}

/// Everything a platform saw of the host: the listing, each match's view,
/// the whole feed.
#[derive(Debug, PartialEq)]
struct Seen {
    listing: Vec<pb::MatchSummary>,
    views: Vec<pb::MatchView>,
    feed: Vec<pb::LifecycleEvent>,
}

async fn seen(host: &Host) -> Seen {
    let mut matches = host.matches().await;
    let listing = listing(&mut matches).await;
    let mut views = Vec::new();
    for summary in &listing {
        views.push(spectator(&mut matches, &summary.match_id).await);
    }
    Seen {
        listing,
        views,
        feed: feed_after(host, 0).await,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_this_host_wrote_moves_into_postgres_and_is_served_as_before() {
    let temp = tempfile::tempdir().expect("temp dir");
    let data_dir = temp.path().join("data");
    let on_file = HostOptions {
        data_dir: Some(data_dir.clone()),
        ..HostOptions::default()
    };
    let mut host = Host::start_with(on_file).await;
    let (_, _, north) = issue_in_tenant(&host, "north desk", "north").await;
    let (south_id, _, south) = issue_in_tenant(&host, "south desk", "south").await;
    host.admin()
        .await
        .revoke_credential(as_admin(pb::RevokeCredentialRequest {
            credential_id: south_id,
            ..Default::default()
        }))
        .await
        .expect("the admin revokes");
    let mut matches = host.matches().await;
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    // North's matches, each under a request id: one played to its end, one
    // running, one waiting for a player.
    let mut created = HashMap::new();
    for (game, request_id, open) in [
        ("war", "north-1", vec![]),
        ("focus", "north-2", vec![]),
        ("lanza", "north-3", vec![1]),
    ] {
        let answer = matches
            .create_match(with_credential(
                &north,
                create_request(game, request_id, open),
            ))
            .await
            .unwrap_or_else(|e| panic!("create {game}: {e}"))
            .into_inner();
        created.insert(request_id, answer);
    }
    let tokens = |answer: &pb::CreateMatchResponse| {
        let mut tokens = vec![String::new(); 2];
        for seat in &answer.seats {
            tokens[seat.seat as usize] = seat.token.clone();
        }
        tokens
    };
    let finished = created["north-1"].match_id.clone();
    play_to_end(
        &mut matches,
        &finished,
        &tokens(&created["north-1"]),
        &mut rng,
        5_000,
    )
    .await;
    let running = created["north-2"].match_id.clone();
    let running_tokens = tokens(&created["north-2"]);
    for _ in 0..3 {
        play_first_legal(&mut matches, &running, &running_tokens)
            .await
            .expect("a move on the file");
    }
    let before = seen(&host).await;
    assert_eq!(before.listing.len(), 3);
    assert!(before.feed.len() >= 6, "{:?}", before.feed);
    assert!(host.terminate().await, "the host stops");

    let database = new_database().await;
    let moved = migrate(&data_dir, &database.url).await;
    let said = String::from_utf8_lossy(&moved.stdout);
    assert!(
        moved.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&moved.stderr)
    );
    assert!(said.contains("moved 3 matches (1 finished"), "{said}");
    assert!(said.contains("2 credentials, 3 request ids"), "{said}");
    let again = migrate(&data_dir, &database.url).await;
    assert_eq!(
        again.status.code(),
        Some(2),
        "a second migration is refused"
    );
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("is not empty"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );

    // The key a retried creation's tokens come from moved into the database
    // too: a host with a data directory of its own, the first on the
    // database, answers the retry alike.
    let mut elsewhere = Host::start_with(HostOptions {
        args: vec!["--store".into(), database.url.clone()],
        ..HostOptions::default()
    })
    .await;
    let retried = elsewhere
        .matches()
        .await
        .create_match(with_credential(
            &north,
            create_request("focus", "north-2", vec![]),
        ))
        .await
        .expect("the retry is answered by another host")
        .into_inner();
    assert_eq!(retried.match_id, created["north-2"].match_id);
    assert_eq!(retried.seats, created["north-2"].seats);
    assert!(elsewhere.terminate().await, "the host stops");

    // The same data directory: its admin token stays with the host.
    let host = Host::start_with(HostOptions {
        data_dir: Some(data_dir.clone()),
        args: vec!["--store".into(), database.url.clone()],
        ..HostOptions::default()
    })
    .await;
    let after = seen(&host).await;
    assert_eq!(
        after, before,
        "the host on PostgreSQL shows what the file did"
    );
    // A follower resumes from its cursor where it was.
    let cursor = before.feed[2].cursor;
    assert_eq!(feed_after(&host, cursor).await, before.feed[3..].to_vec());

    let mut matches = host.matches().await;
    // A retried creation answers the same match, with the same tokens (and
    // the match as it is now).
    let retried = matches
        .create_match(with_credential(
            &north,
            create_request("focus", "north-2", vec![]),
        ))
        .await
        .expect("the retry is answered")
        .into_inner();
    assert_eq!(retried.match_id, created["north-2"].match_id);
    assert_eq!(retried.seats, created["north-2"].seats);
    // North's credential still works and sees its tenant's matches; south's
    // is still revoked.
    let north_sees = matches
        .list_matches(with_credential(&north, pb::ListMatchesRequest::default()))
        .await
        .expect("north lists")
        .into_inner()
        .matches;
    assert_eq!(north_sees.len(), 3);
    let refused = matches
        .list_matches(with_credential(&south, pb::ListMatchesRequest::default()))
        .await
        .expect_err("a revoked credential stays revoked");
    assert_eq!(reason(&refused), "BAD_TOKEN", "{refused:?}");
    // Play goes on: the running match takes moves, the waiting one its
    // player, and the feed numbers its new rows after the old ones.
    play_first_legal(&mut matches, &running, &running_tokens)
        .await
        .expect("a move on PostgreSQL");
    matches
        .join_match(with_credential(
            &north,
            pb::JoinMatchRequest {
                match_id: created["north-3"].match_id.clone(),
                ..Default::default()
            },
        ))
        .await
        .expect("the open seat is taken");
    let last = before.feed.last().expect("events").cursor;
    let newer = feed_after(&host, last).await;
    assert!(!newer.is_empty(), "the join's rows follow the old ones");
    assert_eq!(newer[0].cursor, last + 1, "{newer:?}");
    assert_eq!(
        spectator(&mut matches, &running).await.version,
        before
            .views
            .iter()
            .find(|v| v.match_id == running)
            .expect("the running match's view")
            .version
            + 1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abi_2_data_directory_moves_into_postgres_and_every_match_plays_on() {
    let temp = tempfile::tempdir().expect("temp dir");
    let data_dir = crate::durable::abi_2_data_dir(temp.path());
    let database = new_database().await;
    let moved = migrate(&data_dir.join("matches.sqlite3"), &database.url).await;
    assert!(
        moved.status.success(),
        "{}",
        String::from_utf8_lossy(&moved.stderr)
    );
    assert!(
        String::from_utf8_lossy(&moved.stdout).contains("moved 18 matches"),
        "{}",
        String::from_utf8_lossy(&moved.stdout)
    );
    let host = Host::start_with(HostOptions {
        data_dir: Some(data_dir),
        args: vec!["--store".into(), database.url.clone()],
        ..HostOptions::default()
    })
    .await;
    crate::durable::abi_2_matches_play_on_as_recorded(&host).await;
}

#[tokio::test]
async fn a_migration_into_an_unreachable_database_or_from_no_store_is_refused_and_says_why() {
    let temp = tempfile::tempdir().expect("temp dir");
    let missing = migrate(&temp.path().join("nothing"), "postgres://u@127.0.0.1:1/db").await;
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("no match store at"),
        "{}",
        String::from_utf8_lossy(&missing.stderr)
    );
    let fixture = workspace_dir().join("tests/fixtures/store-abi2");
    std::fs::copy(
        fixture.join("matches.sqlite3"),
        temp.path().join("matches.sqlite3"),
    )
    .expect("copy the fixture");
    let unreachable = migrate(temp.path(), "postgres://u@127.0.0.1:1/db").await;
    assert_eq!(unreachable.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&unreachable.stderr).contains("cannot connect to PostgreSQL"),
        "{}",
        String::from_utf8_lossy(&unreachable.stderr)
    );
    let not_a_url = migrate(temp.path(), "matches.db").await;
    assert_eq!(not_a_url.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&not_a_url.stderr).contains("postgres:// URL"),
        "{}",
        String::from_utf8_lossy(&not_a_url.stderr)
    );
}
