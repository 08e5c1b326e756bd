//! An operator's backup of a running host's store: taken while play goes
//! on, never over an existing file, and a host started from it resumes
//! every match as it stood when the copy was taken.

use tabletop_proto::v1 as pb;
use tabletop_tests::{ADMIN_TOKEN, Host, HostOptions};
use tonic::Code;

use crate::support::{create, play_first_legal, spectator};

/// Plays the first legal action of the seat to move; returns the new version.
async fn play_one(host: &Host, match_id: &str, tokens: &[String]) -> u64 {
    let mut matches = host.matches().await;
    play_first_legal(&mut matches, match_id, tokens)
        .await
        .expect("the action is taken")
        .view
        .expect("the answer carries the view")
        .version
}

fn backup_request(path: &std::path::Path) -> pb::BackupRequest {
    pb::BackupRequest {
        admin_token: ADMIN_TOKEN.into(),
        path: path.display().to_string(),
    }
}

#[tokio::test]
async fn a_backup_taken_during_play_starts_a_host_that_resumes_from_it() {
    let temp = tempfile::tempdir().unwrap();
    let host = Host::start_with(HostOptions {
        data_dir: Some(temp.path().join("data")),
        ..Default::default()
    })
    .await;
    let mut matches = host.matches().await;
    let (match_id, tokens) = create(&mut matches, "focus", 2, 7).await;
    for _ in 0..3 {
        play_one(&host, &match_id, &tokens).await;
    }
    let at_backup = spectator(&mut matches, &match_id).await;

    let file = temp.path().join("backup.sqlite3");
    let mut admin = host.admin().await;
    let written = admin
        .backup(backup_request(&file))
        .await
        .expect("a backup of a running host")
        .into_inner();
    assert_eq!(written.matches, 1);
    assert_eq!(written.bytes, std::fs::metadata(&file).unwrap().len());

    // Play goes on after the copy, and a second backup never overwrites.
    let after = play_one(&host, &match_id, &tokens).await;
    assert!(after > at_backup.version);
    let refused = admin.backup(backup_request(&file)).await.unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
    assert!(
        refused.message().contains("exists"),
        "{}",
        refused.message()
    );
    let wrong_token = admin
        .backup(pb::BackupRequest {
            admin_token: "not the token".into(),
            path: temp.path().join("other.sqlite3").display().to_string(),
        })
        .await
        .unwrap_err();
    assert_eq!(
        wrong_token.code(),
        Code::PermissionDenied,
        "{wrong_token:?}"
    );
    drop(host);

    // A host whose store is the backup resumes the match as it stood then.
    let restored_data = temp.path().join("restored");
    std::fs::create_dir_all(&restored_data).unwrap();
    std::fs::copy(&file, restored_data.join("matches.sqlite3")).unwrap();
    let restored = Host::start_with(HostOptions {
        data_dir: Some(restored_data),
        ..Default::default()
    })
    .await;
    let mut matches = restored.matches().await;
    let view = spectator(&mut matches, &match_id).await;
    assert_eq!(view.version, at_backup.version);
    assert_eq!(view.view_json, at_backup.view_json);
    let next = play_one(&restored, &match_id, &tokens).await;
    assert_eq!(
        next,
        at_backup.version + 1,
        "the match plays on from the copy"
    );
}

#[tokio::test]
async fn a_host_on_the_memory_store_has_nothing_to_back_up() {
    let host = Host::start_with(HostOptions {
        args: vec!["--store".into(), "memory".into()],
        ..Default::default()
    })
    .await;
    let temp = tempfile::tempdir().unwrap();
    let file = temp.path().join("backup.sqlite3");
    let refused = host
        .admin()
        .await
        .backup(backup_request(&file))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::FailedPrecondition, "{refused:?}");
    assert!(
        refused.message().contains("memory store"),
        "{}",
        refused.message()
    );
    assert!(!file.exists());
}

#[tokio::test]
async fn a_backup_where_no_file_can_be_made_is_refused_as_a_bad_path() {
    let host = Host::start().await;
    let mut admin = host.admin().await;
    let temp = tempfile::tempdir().unwrap();
    let busy = temp.path().join("busy.sqlite3");
    std::fs::write(temp.path().join("busy.sqlite3.partial"), b"another backup").unwrap();
    for path in [
        temp.path().join("no such directory").join("backup.sqlite3"),
        temp.path().join("x".repeat(300)),
        temp.path().join("nodir/../w"),
        std::path::PathBuf::from("relative.sqlite3"),
        busy.clone(),
    ] {
        let refused = admin.backup(backup_request(&path)).await.unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
        assert!(
            refused.message().contains("cannot back up"),
            "{}",
            refused.message()
        );
        assert!(!path.exists());
    }
    // Nothing was left behind, and the other backup's copy is untouched.
    let mut left: Vec<_> = std::fs::read_dir(temp.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, ["busy.sqlite3.partial"]);
    assert_eq!(
        std::fs::read(temp.path().join("busy.sqlite3.partial")).unwrap(),
        b"another backup"
    );
}
