//! A match records the exact plugin build it was created with (the content
//! hash of the plugin file), and two files that claim one game version with
//! different content are both named and never chosen by file-name order:
//! stored matches replay through the build they recorded, new matches of
//! that version are refused until one file is removed.
//!
//! The two builds are the fixture game `counter` 1.0.0 and a copy of it
//! with one byte appended (a shared library still loads with bytes after
//! its last section), so they claim the same game and version and differ
//! in content.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use tabletop_proto::v1 as pb;
use tabletop_tests::{Host, HostOptions};

use crate::durable::fixtures;
use crate::support::{reason, spectator};

/// The hex SHA-256 of a file's content.
fn sha256_of(file: &Path) -> String {
    hex::encode(Sha256::digest(std::fs::read(file).expect("read plugin")))
}

/// A host on `root`'s data directory whose plugin directory holds exactly
/// `plugins` (name, file), logging to `log`.
async fn host_on(root: &Path, plugins: &[(&str, &Path)], log: &Path) -> Host {
    let dir = root.join("plugins");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("plugin dir");
    for (name, file) in plugins {
        std::fs::copy(file, dir.join(name)).expect("copy plugin");
    }
    Host::start_with(HostOptions {
        plugin_dir: Some(dir),
        data_dir: Some(root.join("data")),
        log_file: Some(log.to_path_buf()),
        ..Default::default()
    })
    .await
}

fn counter_request() -> pb::CreateMatchRequest {
    pb::CreateMatchRequest {
        game: "counter".into(),
        players: 2,
        options: [("length".to_string(), "6".to_string())].into(),
        ..Default::default()
    }
}

/// Creates a counter match and says "tick" once as seat 0.
async fn create_and_tick(host: &Host) -> String {
    let created = host
        .matches()
        .await
        .create_match(counter_request())
        .await
        .expect("create counter")
        .into_inner();
    let token = created
        .seats
        .iter()
        .find(|s| s.seat == 0)
        .expect("seat 0")
        .token
        .clone();
    host.matches()
        .await
        .submit_action(pb::SubmitActionRequest {
            match_id: created.match_id.clone(),
            seat_token: token,
            action: Some(pb::submit_action_request::Action::Notation("tick".into())),
            expected_version: Some(0),
            ..Default::default()
        })
        .await
        .expect("tick");
    created.match_id
}

/// The build the spectator's view of `match_id` names.
async fn build_of(host: &Host, match_id: &str) -> String {
    spectator(&mut host.matches().await, match_id)
        .await
        .plugin_sha256
}

/// A new counter match, refused because two builds claim its version.
async fn refused_as_ambiguous(host: &Host) -> tonic::Status {
    let refused = host
        .matches()
        .await
        .create_match(counter_request())
        .await
        .expect_err("a new match of an ambiguous version is refused");
    assert_eq!(reason(&refused), "AMBIGUOUS_GAME_VERSION", "{refused:?}");
    refused
}

/// The fixture build and a second build of the same game and version.
async fn two_builds(root: &Path) -> (PathBuf, PathBuf) {
    let (v1, _) = fixtures().await;
    let other = root.join("counter-other-build");
    let mut bytes = std::fs::read(&v1).expect("read fixture");
    bytes.push(0);
    std::fs::write(&other, bytes).expect("write the other build");
    (v1, other)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_builds_of_one_version_are_both_named_new_matches_refused_stored_ones_replay_their_own()
{
    let root = tempfile::tempdir().expect("temp dir");
    let root = root.path();
    let (first, second) = two_builds(root).await;
    let (first_hash, second_hash) = (sha256_of(&first), sha256_of(&second));
    assert_ne!(first_hash, second_hash);
    let so = std::env::consts::DLL_EXTENSION;
    // Named so that the second build's file sorts first.
    let (first_name, second_name) = (format!("z-counter.{so}"), format!("a-counter.{so}"));

    // One match created with each build, each with its build alone.
    let mut host = host_on(root, &[(&first_name, &first)], &root.join("1.log")).await;
    let of_first = create_and_tick(&host).await;
    assert_eq!(
        build_of(&host, &of_first).await,
        first_hash,
        "the view names its build"
    );
    assert!(host.terminate().await);
    let mut host = host_on(root, &[(&second_name, &second)], &root.join("2.log")).await;
    let of_second = create_and_tick(&host).await;
    assert_eq!(build_of(&host, &of_second).await, second_hash);
    let record = host
        .matches()
        .await
        .export_record(pb::ExportRecordRequest {
            match_id: of_second.clone(),
            admin_token: tabletop_tests::ADMIN_TOKEN.into(),
        })
        .await
        .expect("export")
        .into_inner()
        .record_json;
    assert!(record.contains(&second_hash), "the record names its build");
    assert!(host.terminate().await);

    // Both files at once.
    let log = root.join("3.log");
    let mut host = host_on(
        root,
        &[(&first_name, &first), (&second_name, &second)],
        &log,
    )
    .await;
    let logged = std::fs::read_to_string(&log).expect("host log");
    assert!(
        logged.contains(&first_name) && logged.contains(&second_name),
        "both files are named in the log:\n{logged}"
    );
    for (id, hash) in [(&of_first, &first_hash), (&of_second, &second_hash)] {
        let view = spectator(&mut host.matches().await, id).await;
        assert_eq!(
            (view.state, view.version, &view.plugin_sha256),
            (pb::MatchState::Running as i32, 1, hash),
            "{id} replays through the build it recorded: {}",
            view.unavailable_reason
        );
    }
    let refused = refused_as_ambiguous(&host).await;
    assert!(
        refused.message().contains(&first_name) && refused.message().contains(&second_name),
        "{}",
        refused.message()
    );

    // One file removed: new matches are made with the one left.
    std::fs::remove_file(host.plugin_dir.join(&second_name)).expect("remove a build");
    let new = create_and_tick(&host).await;
    assert_eq!(build_of(&host, &new).await, first_hash);
    assert!(host.terminate().await);
}

/// The builds `GetGame` lists for counter 1.0.0.
async fn listed_builds(host: &Host) -> Vec<String> {
    host.catalog()
        .await
        .get_game(pb::GetGameRequest {
            game: "counter".into(),
            version: Some("1.0.0".into()),
        })
        .await
        .expect("counter is in the catalog")
        .into_inner()
        .builds
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_build_copied_into_a_running_host_is_listed_and_refuses_new_matches_until_removed()
{
    let root = tempfile::tempdir().expect("temp dir");
    let root = root.path();
    let (first, second) = two_builds(root).await;
    let (first_hash, second_hash) = (sha256_of(&first), sha256_of(&second));
    let so = std::env::consts::DLL_EXTENSION;
    let log = root.join("host.log");
    let mut host = host_on(root, &[(&format!("counter.{so}"), &first)], &log).await;
    assert_eq!(
        listed_builds(&host).await,
        std::slice::from_ref(&first_hash)
    );
    let running = create_and_tick(&host).await;

    // The copy goes in under a temporary name and is renamed into place, as
    // an operator's deploy would, so the watcher never sees half a file.
    let copied = host.plugin_dir.join(format!("counter-rebuilt.{so}"));
    let staging = root.join("staging");
    std::fs::copy(&second, &staging).expect("stage the second build");
    std::fs::rename(&staging, &copied).expect("copy the second build in");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while listed_builds(&host).await.len() < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "the second build was never listed:\n{}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let mut listed = listed_builds(&host).await;
    listed.sort();
    let mut expected = vec![first_hash.clone(), second_hash];
    expected.sort();
    assert_eq!(listed, expected, "both builds are listed");
    let logged = std::fs::read_to_string(&log).expect("host log");
    assert!(
        logged.contains(&format!("counter.{so}"))
            && logged.contains(&format!("counter-rebuilt.{so}")),
        "the log names both files:\n{logged}"
    );

    let refused = refused_as_ambiguous(&host).await;
    assert!(
        !refused
            .message()
            .contains(&*host.plugin_dir.to_string_lossy()),
        "the refusal names files, not the host's directories: {}",
        refused.message()
    );
    // The running match plays on with the build it was created with.
    let view = spectator(&mut host.matches().await, &running).await;
    assert_eq!(
        (view.state, view.plugin_sha256.as_str()),
        (pb::MatchState::Running as i32, first_hash.as_str())
    );

    std::fs::remove_file(&copied).expect("remove the second build");
    let new = create_and_tick(&host).await;
    assert_eq!(build_of(&host, &new).await, first_hash);
    assert!(host.terminate().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_replays_through_a_rebuild_of_its_version_and_the_other_hash_is_logged() {
    let root = tempfile::tempdir().expect("temp dir");
    let root = root.path();
    let (first, rebuilt) = two_builds(root).await;
    let (first_hash, rebuilt_hash) = (sha256_of(&first), sha256_of(&rebuilt));
    let so = std::env::consts::DLL_EXTENSION;
    let name = format!("counter.{so}");

    let mut host = host_on(root, &[(&name, &first)], &root.join("1.log")).await;
    let id = create_and_tick(&host).await;
    assert!(host.terminate().await);

    // The same file name, other content: a rebuild of the same version.
    let log = root.join("2.log");
    let mut host = host_on(root, &[(&name, &rebuilt)], &log).await;
    let view = spectator(&mut host.matches().await, &id).await;
    assert_eq!(
        (view.state, view.version),
        (pb::MatchState::Running as i32, 1),
        "the match replays through the rebuild: {}",
        view.unavailable_reason
    );
    assert_eq!(
        view.plugin_sha256, first_hash,
        "the view names the build the match was created with"
    );
    let logged = std::fs::read_to_string(&log).expect("host log");
    assert!(
        logged.contains(&first_hash) && logged.contains(&rebuilt_hash),
        "the log names both hashes:\n{logged}"
    );
    assert!(host.terminate().await);
}
