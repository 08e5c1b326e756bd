//! Small holes at the edges of trust, each closed: an open seat listed
//! twice, a display name that reorders or hides text, a plugin path that
//! would forge log lines, and a refused export that names who may export.

use tabletop_proto::v1 as pb;
use tabletop_tests::{Host, HostOptions, as_admin};
use tonic::Code;

use crate::support::{create, reason, spectator};

#[tokio::test]
async fn an_open_seat_listed_twice_is_refused_not_given_two_join_codes() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    let refused = matches
        .create_match(as_admin(pb::CreateMatchRequest {
            game: "focus".into(),
            players: 2,
            open_seats: vec![1, 1],
            ..Default::default()
        }))
        .await
        .expect_err("one seat, one code");
    assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
    assert_eq!(reason(&refused), "INVALID_SETUP");
    assert!(refused.message().contains("twice"), "{}", refused.message());
}

#[tokio::test]
async fn display_names_that_reorder_or_hide_text_are_refused() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    for name in ["ana\u{202E}lave", "a\u{200B}na"] {
        let refused = matches
            .create_match(as_admin(pb::CreateMatchRequest {
                game: "focus".into(),
                players: 2,
                seat_players: vec![pb::SeatPlayer {
                    seat: 0,
                    display_name: name.into(),
                    ..Default::default()
                }],
                ..Default::default()
            }))
            .await
            .expect_err("a name that passes for another's");
        assert_eq!(reason(&refused), "INVALID_SETUP", "{name:?}: {refused:?}");
    }
}

#[tokio::test]
async fn a_plugin_path_cannot_forge_a_line_of_the_hosts_log() {
    let root = tempfile::tempdir().expect("temp dir");
    let log = root.path().join("host.log");
    let host = Host::start_with(HostOptions {
        log_file: Some(log.clone()),
        ..Default::default()
    })
    .await;
    let forged = "/nonexistent.so\r\nERROR forged: the admin token is hunter2";
    let refused = host
        .admin()
        .await
        .load_plugin(as_admin(pb::LoadPluginRequest {
            path: forged.into(),
            ..Default::default()
        }))
        .await
        .expect_err("no such file");
    assert_eq!(refused.code(), Code::NotFound, "{refused:?}");
    let logged = std::fs::read_to_string(&log).expect("the host's log");
    assert!(
        logged.contains("nonexistent.so"),
        "the refusal is logged:\n{logged}"
    );
    assert!(
        !logged.lines().any(|line| line.starts_with("ERROR forged")),
        "a caller's path wrote a line of its own:\n{logged}"
    );
}

#[tokio::test]
async fn a_refused_export_of_a_running_match_names_organizers_too() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    let (running, _) = create(&mut matches, "focus", 2, 3).await;
    let refused = matches
        .export_record(pb::ExportRecordRequest {
            match_id: running,
            ..Default::default()
        })
        .await
        .expect_err("a running match's record is not public");
    assert!(
        refused.message().contains("organizer"),
        "{}",
        refused.message()
    );
}

#[tokio::test]
async fn the_admin_token_comes_from_a_private_file_and_never_shows_in_the_arguments() {
    use std::os::unix::fs::PermissionsExt;
    let root = tempfile::tempdir().expect("temp dir");
    let file = root.path().join("admin-token");
    std::fs::write(&file, "token-from-a-file-4821\n").expect("write the token");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let host = Host::start_with(HostOptions {
        args: vec!["--admin-token-file".into(), file.display().to_string()],
        // The harness's token in the environment, emptied: one token only.
        env: vec![("TABLETOP_ADMIN_TOKEN".into(), String::new())],
        ..Default::default()
    })
    .await;
    let arguments = std::fs::read(format!("/proc/{}/cmdline", host.pid())).expect("cmdline");
    assert!(
        !String::from_utf8_lossy(&arguments).contains("token-from-a-file"),
        "the token shows in the process's arguments"
    );
    let mut admin = host.admin().await;
    admin
        .list_plugins(tabletop_tests::with_credential(
            "token-from-a-file-4821",
            pb::ListPluginsRequest::default(),
        ))
        .await
        .expect("the file's token is the admin's");
    let refused = admin
        .list_plugins(as_admin(pb::ListPluginsRequest::default()))
        .await
        .expect_err("another token is not");
    assert_eq!(refused.code(), Code::PermissionDenied, "{refused:?}");
}

#[tokio::test]
async fn an_anonymous_match_nobody_joins_is_aborted_after_the_hosts_wait() {
    let host = Host::start_with(HostOptions {
        args: vec!["--anonymous-open-seat-wait-s".into(), "1".into()],
        ..Default::default()
    })
    .await;
    let mut matches = host.matches().await;
    let waiting = || pb::CreateMatchRequest {
        game: "focus".into(),
        players: 2,
        open_seats: vec![1],
        ..Default::default()
    };
    let anonymous = matches
        .create_match(waiting())
        .await
        .expect("anyone may create")
        .into_inner()
        .match_id;
    let organized = matches
        .create_match(as_admin(waiting()))
        .await
        .expect("the admin creates")
        .into_inner()
        .match_id;
    assert!(
        spectator(&mut matches, &anonymous)
            .await
            .open_seat_deadline_ms
            .is_some(),
        "the anonymous match shows its deadline"
    );
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let view = spectator(&mut matches, &anonymous).await;
        if view.state == pb::MatchState::Finished as i32 {
            assert!(!view.abort_reason.is_empty(), "{view:?}");
            break;
        }
        assert!(
            std::time::Instant::now() < until,
            "the match still waits: {view:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let view = spectator(&mut matches, &organized).await;
    assert_eq!(view.state, pb::MatchState::Waiting as i32, "{view:?}");
    assert_eq!(
        view.open_seat_deadline_ms, None,
        "an organizer's wait is its own"
    );
}
