//! The foundation: catalog, complete matches of every game, watching,
//! and every kind of bad input with its own status code.

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use tabletop_proto::v1 as pb;
use tabletop_tests::{ADMIN_TOKEN, Host, HostOptions, workspace_game_crates};
use tokio_stream::StreamExt;
use tonic::Code;

use crate::support::{create, play_to_end, spectator, watch_as_spectator};

async fn games(host: &Host) -> Vec<pb::GameInfo> {
    host.catalog()
        .await
        .list_games(pb::ListGamesRequest {})
        .await
        .expect("list games")
        .into_inner()
        .games
}

#[tokio::test]
async fn catalog_lists_every_game_plugin_of_the_workspace() {
    let host = Host::start().await;
    let names: Vec<String> = games(&host).await.into_iter().map(|g| g.name).collect();
    let expected = workspace_game_crates();
    assert!(!expected.is_empty());
    assert_eq!(names, expected, "every built game plugin is served");
    let mut catalog = host.catalog().await;
    for name in &expected {
        let info = catalog
            .get_game(pb::GetGameRequest {
                game: name.clone(),
                version: None,
            })
            .await
            .expect("get game")
            .into_inner();
        assert_eq!(&info.name, name);
        assert!(info.min_players >= 1 && info.min_players <= info.max_players);
        assert!(!info.rules_summary.is_empty(), "{name} has a rules summary");
        assert_eq!(info.versions.last(), Some(&info.version));
        for option in &info.options {
            assert!(
                !option.description.is_empty(),
                "{name}.{} documented",
                option.name
            );
        }
    }
    let missing = catalog
        .get_game(pb::GetGameRequest {
            game: "no-such-game".into(),
            version: None,
        })
        .await
        .unwrap_err();
    assert_eq!(missing.code(), Code::NotFound);
}

#[tokio::test]
async fn random_matches_of_every_game_play_to_the_end() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    let mut rng = StdRng::seed_from_u64(2);
    for game in games(&host).await {
        for players in [game.min_players, game.max_players] {
            let (id, tokens) = create(&mut matches, &game.name, players, 7).await;
            let (actions, view) = play_to_end(&mut matches, &id, &tokens, &mut rng, 50_000).await;
            assert!(actions > 0, "{} played no action", game.name);
            assert_eq!(
                view.results.len(),
                players as usize,
                "{} results",
                game.name
            );
            assert!(view.results.iter().any(|r| r.rank == 1));
            // A finished match's record is public and replays.
            let record = matches
                .export_record(pb::ExportRecordRequest {
                    match_id: id.clone(),
                    admin_token: String::new(),
                })
                .await
                .expect("anyone may export a finished match")
                .into_inner()
                .record_json;
            let record: serde_json::Value = serde_json::from_str(&record).expect("record is JSON");
            assert_eq!(record["game"], game.name.as_str());
            assert_eq!(
                record["actions"].as_array().map(Vec::len),
                Some(view.version as usize)
            );
        }
    }
}

#[tokio::test]
async fn a_watcher_on_another_connection_sees_every_state_change() {
    let host = Host::start().await;
    let game = games(&host).await.remove(0);
    let mut matches = host.matches().await;
    let (id, tokens) = create(&mut matches, &game.name, game.min_players, 11).await;
    let mut stream = watch_as_spectator(&mut host.watch().await, &id).await;
    let first = stream.next().await.expect("first message").expect("ok");
    let Some(pb::watch_event::Kind::Snapshot(snapshot)) = first.kind else {
        panic!("the first message is a snapshot: {first:?}");
    };
    let mut rng = StdRng::seed_from_u64(3);
    let (_, final_view) = play_to_end(&mut matches, &id, &tokens, &mut rng, 50_000).await;
    let mut expected_version = snapshot.version;
    let mut last_view = None;
    while let Some(message) = stream.next().await {
        let message = message.expect("stream ok");
        match message.kind.expect("kind") {
            pb::watch_event::Kind::Transition(t) => {
                expected_version += 1;
                assert_eq!(
                    message.version, expected_version,
                    "no state change is skipped"
                );
                serde_json::from_str::<serde_json::Value>(&t.event_json).expect("event JSON");
                last_view = t.view;
            }
            pb::watch_event::Kind::SeatActed(_) => {}
            pb::watch_event::Kind::Snapshot(s) => panic!("unexpected resync at {}", s.version),
        }
    }
    assert_eq!(
        expected_version, final_view.version,
        "the stream ends at the end"
    );
    let last_view = last_view.expect("at least one transition");
    assert_eq!(last_view.state, pb::MatchState::Finished as i32);
    assert_eq!(last_view.view_json, final_view.view_json);
}

/// A sequential game of the catalog (for out-of-turn checks).
async fn sequential_game(host: &Host) -> pb::GameInfo {
    games(host)
        .await
        .into_iter()
        .find(|g| !g.simultaneous)
        .expect("a sequential game is installed")
}

#[tokio::test]
async fn bad_inputs_get_their_own_status_and_change_nothing() {
    let host = Host::start().await;
    let game = sequential_game(&host).await;
    let mut matches = host.matches().await;

    let code_of = |r: Result<tonic::Response<pb::CreateMatchResponse>, tonic::Status>| {
        r.expect_err("refused").code()
    };
    let create = |game: &str, players: u32, options: &[(&str, &str)]| pb::CreateMatchRequest {
        game: game.to_string(),
        players,
        options: options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..Default::default()
    };
    assert_eq!(
        code_of(matches.create_match(create("no-such-game", 2, &[])).await),
        Code::NotFound
    );
    assert_eq!(
        code_of(
            matches
                .create_match(create(&game.name, game.max_players + 1, &[]))
                .await
        ),
        Code::InvalidArgument
    );
    assert_eq!(
        code_of(
            matches
                .create_match(create(
                    &game.name,
                    game.min_players,
                    &[("no_such_option", "1")]
                ))
                .await
        ),
        Code::InvalidArgument
    );
    if let Some(int_option) = game.options.iter().find(|o| o.r#type == "integer") {
        let too_big = (int_option.max.expect("max") + 1).to_string();
        assert_eq!(
            code_of(
                matches
                    .create_match(create(
                        &game.name,
                        game.min_players,
                        &[(&int_option.name, &too_big)]
                    ))
                    .await
            ),
            Code::InvalidArgument
        );
    }
    let malformed_position = pb::CreateMatchRequest {
        start_position: Some("}}} not a position {{{".into()),
        ..create(&game.name, game.min_players, &[])
    };
    assert_eq!(
        code_of(matches.create_match(malformed_position).await),
        Code::InvalidArgument
    );

    let (id, tokens) = create_running(&mut matches, &game).await;
    let before = spectator(&mut matches, &id).await;
    let mover = before.to_move[0] as usize;
    let idle = (0..tokens.len()).find(|&s| s != mover).expect("two seats");
    let legal = matches
        .list_legal_actions(pb::ListLegalActionsRequest {
            match_id: id.clone(),
            seat_token: tokens[mover].clone(),
            ids_only: false,
        })
        .await
        .expect("legal")
        .into_inner();
    let illegal_id = legal.actions.iter().map(|a| a.id).max().unwrap_or(0) + 1;
    let submit = |token: &str, action: pb::submit_action_request::Action, expected: Option<u64>| {
        pb::SubmitActionRequest {
            match_id: id.clone(),
            seat_token: token.to_string(),
            action: Some(action),
            expected_version: expected,
            ..Default::default()
        }
    };
    use pb::submit_action_request::Action;
    let first = legal.actions[0].clone();
    let cases: Vec<(&str, pb::SubmitActionRequest, Code)> = vec![
        (
            "malformed notation",
            submit(
                &tokens[mover],
                Action::Notation("%%% nonsense %%%".into()),
                None,
            ),
            Code::InvalidArgument,
        ),
        (
            "illegal action id",
            submit(&tokens[mover], Action::ActionId(illegal_id), None),
            Code::InvalidArgument,
        ),
        (
            "action out of turn",
            submit(&tokens[idle], Action::ActionId(first.id), None),
            Code::FailedPrecondition,
        ),
        (
            "wrong token",
            submit("not-a-token", Action::ActionId(first.id), None),
            Code::PermissionDenied,
        ),
        (
            "missing token",
            submit("", Action::ActionId(first.id), None),
            Code::Unauthenticated,
        ),
        (
            "stale expected version",
            submit(
                &tokens[mover],
                Action::ActionId(first.id),
                Some(before.version + 5),
            ),
            Code::FailedPrecondition,
        ),
        (
            "no action",
            pb::SubmitActionRequest {
                action: None,
                ..submit(&tokens[mover], Action::ActionId(first.id), None)
            },
            Code::InvalidArgument,
        ),
        (
            "unknown match",
            pb::SubmitActionRequest {
                match_id: "no-such-match".into(),
                ..submit(&tokens[mover], Action::ActionId(first.id), None)
            },
            Code::NotFound,
        ),
    ];
    for (what, request, code) in cases {
        let status = matches.submit_action(request).await.expect_err(what);
        assert_eq!(status.code(), code, "{what}: {}", status.message());
        assert!(!status.message().is_empty(), "{what} explains itself");
        let after = spectator(&mut matches, &id).await;
        assert_eq!(after, before, "{what} changed the match");
    }
    // A token of another match holds no seat here.
    let (_, other_tokens) = create_running(&mut matches, &game).await;
    let status = matches
        .submit_action(submit(
            &other_tokens[mover],
            Action::ActionId(first.id),
            None,
        ))
        .await
        .expect_err("foreign token");
    assert_eq!(status.code(), Code::PermissionDenied);
    // The legal action by notation works.
    let response = matches
        .submit_action(submit(
            &tokens[mover],
            Action::Notation(first.notation.clone()),
            Some(before.version),
        ))
        .await
        .expect("legal action by notation")
        .into_inner();
    assert!(response.view.expect("view").version > before.version);
}

async fn create_running(
    matches: &mut tabletop_proto::v1::matches_client::MatchesClient<tonic::transport::Channel>,
    game: &pb::GameInfo,
) -> (String, Vec<String>) {
    create(matches, &game.name, game.min_players, 5).await
}

#[tokio::test]
async fn open_seats_are_joined_resignation_ends_the_match() {
    let host = Host::start().await;
    let game = sequential_game(&host).await;
    let mut matches = host.matches().await;
    let created = matches
        .create_match(pb::CreateMatchRequest {
            game: game.name.clone(),
            players: 2,
            open_seats: vec![1],
            ..Default::default()
        })
        .await
        .expect("create with an open seat")
        .into_inner();
    assert_eq!(created.seats.len(), 1);
    assert_eq!(
        created.view.expect("view").state,
        pb::MatchState::Waiting as i32
    );
    let joined = matches
        .join_match(pb::JoinMatchRequest {
            match_id: created.match_id.clone(),
            seat: None,
            join_code: created.join_codes[0].code.clone(),
            ..Default::default()
        })
        .await
        .expect("join")
        .into_inner();
    assert_eq!(joined.seat, 1);
    assert_eq!(
        joined.view.expect("view").state,
        pb::MatchState::Running as i32
    );
    let reused = matches
        .join_match(pb::JoinMatchRequest {
            match_id: created.match_id.clone(),
            seat: None,
            join_code: created.join_codes[0].code.clone(),
            ..Default::default()
        })
        .await
        .expect_err("a join code admits once");
    assert_eq!(reused.code(), Code::PermissionDenied);
    let again = matches
        .join_match(pb::JoinMatchRequest {
            match_id: created.match_id.clone(),
            seat: None,
            ..Default::default()
        })
        .await
        .expect_err("no seat left");
    assert_eq!(again.code(), Code::FailedPrecondition);
    let view = matches
        .resign(pb::ResignRequest {
            match_id: created.match_id.clone(),
            seat_token: joined.token.clone(),
        })
        .await
        .expect("resign")
        .into_inner();
    assert_eq!(view.state, pb::MatchState::Finished as i32);
    let ranks: Vec<u32> = view.results.iter().map(|r| r.rank).collect();
    assert_eq!(ranks, vec![1, 2], "the resigning seat loses");
    assert!(view.results[1].resigned);
}

#[tokio::test]
async fn records_of_running_matches_need_the_admin_token() {
    let host = Host::start().await;
    let game = sequential_game(&host).await;
    let mut matches = host.matches().await;
    let (id, _) = create_running(&mut matches, &game).await;
    let export = |token: &str| pb::ExportRecordRequest {
        match_id: id.clone(),
        admin_token: token.to_string(),
    };
    let status = matches.export_record(export("")).await.unwrap_err();
    assert_eq!(status.code(), Code::Unauthenticated);
    let status = matches.export_record(export("wrong")).await.unwrap_err();
    assert_eq!(status.code(), Code::PermissionDenied);
    let record = matches
        .export_record(export(ADMIN_TOKEN))
        .await
        .expect("admin exports")
        .into_inner();
    assert!(record.record_json.contains("\"seed\""));
}

#[tokio::test]
async fn admin_lists_plugins_and_refuses_a_broken_file() {
    let temp = tempfile::tempdir().expect("temp");
    let plugin_dir = Host::fresh_plugin_dir(temp.path());
    // A broken file and a foreign file in the plugin directory are refused at
    // start; the host serves the rest.
    std::fs::write(
        plugin_dir.join(format!("libbroken.{}", std::env::consts::DLL_EXTENSION)),
        b"not a shared library",
    )
    .expect("write");
    let host = Host::start_with(HostOptions {
        plugin_dir: Some(plugin_dir.clone()),
        ..Default::default()
    })
    .await;
    assert_eq!(games(&host).await.len(), workspace_game_crates().len());
    let mut admin = host.admin().await;
    let status = admin
        .list_plugins(pb::ListPluginsRequest {
            admin_token: String::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::Unauthenticated);
    let plugins = admin
        .list_plugins(pb::ListPluginsRequest {
            admin_token: ADMIN_TOKEN.into(),
        })
        .await
        .expect("list plugins")
        .into_inner()
        .plugins;
    assert_eq!(plugins.len(), workspace_game_crates().len());
    assert!(
        plugins
            .iter()
            .all(|p| p.sha256.len() == 64 && p.loaded_at_ms > 0)
    );
    let refused = admin
        .load_plugin(pb::LoadPluginRequest {
            admin_token: ADMIN_TOKEN.into(),
            path: plugin_dir
                .join(format!("libbroken.{}", std::env::consts::DLL_EXTENSION))
                .display()
                .to_string(),
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert!(
        refused.message().contains("refused"),
        "{}",
        refused.message()
    );
    let again = admin
        .load_plugin(pb::LoadPluginRequest {
            admin_token: ADMIN_TOKEN.into(),
            path: plugins[0].file.clone(),
        })
        .await
        .expect("reload")
        .into_inner();
    assert!(again.already_loaded);
}

#[tokio::test]
async fn health_and_reflection_answer() {
    use tonic_health::pb::health_client::HealthClient;
    use tonic_reflection::pb::v1alpha::{
        ServerReflectionRequest, server_reflection_client::ServerReflectionClient,
        server_reflection_request::MessageRequest, server_reflection_response::MessageResponse,
    };
    let host = Host::start().await;
    let health = HealthClient::new(host.channel().await)
        .check(tonic_health::pb::HealthCheckRequest {
            service: "tabletop.v1.Matches".into(),
        })
        .await
        .expect("health")
        .into_inner();
    assert_eq!(health.status, 1, "SERVING");
    let mut reflection = ServerReflectionClient::new(host.channel().await);
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut responses = reflection
        .server_reflection_info(tokio_stream::iter(vec![request]))
        .await
        .expect("reflection v1alpha")
        .into_inner();
    let response = responses.next().await.expect("a response").expect("ok");
    let Some(MessageResponse::ListServicesResponse(list)) = response.message_response else {
        panic!("unexpected reflection answer");
    };
    let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    for service in [
        "tabletop.v1.Catalog",
        "tabletop.v1.Matches",
        "tabletop.v1.Watch",
        "tabletop.v1.Admin",
    ] {
        assert!(names.iter().any(|n| n == service), "{service} in {names:?}");
    }
}

#[tokio::test]
async fn sigterm_shuts_the_host_down_gracefully() {
    let mut host = Host::start().await;
    assert!(!games(&host).await.is_empty());
    assert!(
        host.terminate().await,
        "engine-host exits cleanly on SIGTERM"
    );
}

/// The `ErrorInfo` a refusal carries: domain `tabletop`, its reason, its
/// metadata.
fn error_info(status: &tonic::Status) -> tonic_types::ErrorInfo {
    tabletop_tests::error_info(status).unwrap_or_else(|| panic!("no ErrorInfo in {status:?}"))
}

#[tokio::test]
async fn a_stale_version_is_refused_with_the_current_version_in_its_error_info() {
    let host = Host::start().await;
    let game = sequential_game(&host).await;
    let mut matches = host.matches().await;
    let (id, tokens) = create_running(&mut matches, &game).await;
    let before = spectator(&mut matches, &id).await;
    let mover = before.to_move[0] as usize;
    let legal = crate::support::legal(&mut matches, &id, &tokens[mover])
        .await
        .expect("legal actions");
    let action = legal.actions[0].id;

    let stale = crate::support::submit(
        &mut matches,
        &id,
        &tokens[mover],
        action,
        Some(before.version + 5),
    )
    .await
    .expect_err("a stale version is refused");
    assert_eq!(stale.code(), Code::FailedPrecondition, "{stale:?}");
    let info = error_info(&stale);
    assert_eq!(info.reason, "STALE_VERSION");
    assert_eq!(
        info.metadata.get("expected_version"),
        Some(&(before.version + 5).to_string())
    );
    // A bot reads the match's version from the error, not from its text, and
    // tries again from there.
    let current: u64 = info
        .metadata
        .get("current_version")
        .expect("current_version")
        .parse()
        .expect("a number");
    assert_eq!(current, before.version);
    let accepted = crate::support::submit(&mut matches, &id, &tokens[mover], action, Some(current))
        .await
        .expect("the action at the current version");
    assert!(accepted.view.expect("view").version > current);

    // Other refusals name their facts too.
    let idle = (mover + 1) % tokens.len();
    let now = spectator(&mut matches, &id).await;
    if !now.to_move.contains(&(idle as u32)) && now.state == pb::MatchState::Running as i32 {
        let not_yours = crate::support::submit(&mut matches, &id, &tokens[idle], 0, None)
            .await
            .expect_err("out of turn");
        assert_eq!(not_yours.code(), Code::FailedPrecondition);
        let info = error_info(&not_yours);
        assert_eq!(info.reason, "NOT_YOUR_TURN");
        assert_eq!(info.metadata.get("seat"), Some(&idle.to_string()));
    }
    let unknown = crate::support::submit(&mut matches, "no-such-match", &tokens[mover], 0, None)
        .await
        .expect_err("unknown match");
    assert_eq!(unknown.code(), Code::NotFound);
    let info = error_info(&unknown);
    assert_eq!(info.reason, "UNKNOWN_MATCH");
    assert_eq!(
        info.metadata.get("match_id").map(String::as_str),
        Some("no-such-match")
    );
    let bad_token = crate::support::submit(&mut matches, &id, "not-a-token", 0, None)
        .await
        .expect_err("wrong token");
    assert_eq!(bad_token.code(), Code::PermissionDenied);
    let info = error_info(&bad_token);
    assert_eq!(info.reason, "BAD_TOKEN");
    assert_eq!(
        info.metadata.get("credential").map(String::as_str),
        Some("seat")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_ends_open_watch_streams_at_once_and_the_host_exits_promptly() {
    let mut host = Host::start().await;
    let game = sequential_game(&host).await;
    let mut matches = host.matches().await;
    let (id, _) = create_running(&mut matches, &game).await;
    // Two watchers on their own connections: a spectator and a resuming one.
    let mut streams = Vec::new();
    for from_version in [None, Some(0)] {
        let mut stream = host
            .watch()
            .await
            .watch_match(pb::WatchMatchRequest {
                match_id: id.clone(),
                seat_token: String::new(),
                from_version,
                after_seq: None,
                omit_views: false,
            })
            .await
            .expect("watch")
            .into_inner();
        if from_version.is_none() {
            let first = stream.message().await.expect("first event");
            assert!(first.is_some(), "a snapshot first");
        }
        streams.push(tokio::spawn(async move {
            // Read until the stream ends: it would wait for the match's next
            // move forever, were it not for the shutdown.
            loop {
                match stream.message().await {
                    Ok(Some(_)) => continue,
                    Ok(None) => return Ok(()),
                    Err(status) => return Err(status),
                }
            }
        }));
    }
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;

    let started = std::time::Instant::now();
    assert!(
        host.terminate().await,
        "engine-host exits cleanly on SIGTERM"
    );
    let took = started.elapsed();
    // The grace period for calls in flight is 5 s: open Watch streams must not
    // hold the shutdown for it.
    assert!(
        took < std::time::Duration::from_millis(2500),
        "the host took {took:?} to exit with open Watch streams"
    );
    for stream in streams {
        let ended = tokio::time::timeout(std::time::Duration::from_secs(5), stream)
            .await
            .expect("the stream ended")
            .expect("the reader did not panic");
        let status = ended.expect_err("a Watch stream ends with a status at shutdown");
        assert_eq!(status.code(), Code::Unavailable, "{status:?}");
        assert_eq!(status.message(), "the server is shutting down");
        assert_eq!(error_info(&status).reason, "SHUTTING_DOWN");
    }
}

/// Why each seat is out, by seat (`None`: it plays on).
fn out_reasons(view: &pb::MatchView) -> Vec<Option<pb::SeatOutReason>> {
    view.seats
        .iter()
        .map(|s| {
            let reason = pb::SeatOutReason::try_from(s.out_reason).expect("a known reason");
            assert_eq!(
                s.out,
                reason != pb::SeatOutReason::Unspecified,
                "`out` and `out_reason` agree: {s:?}"
            );
            s.out.then_some(reason)
        })
        .collect()
}

async fn resign(
    matches: &mut tabletop_proto::v1::matches_client::MatchesClient<tonic::transport::Channel>,
    match_id: &str,
    token: &str,
) -> Result<pb::MatchView, tonic::Status> {
    matches
        .resign(pb::ResignRequest {
            match_id: match_id.to_string(),
            seat_token: token.to_string(),
        })
        .await
        .map(tonic::Response::into_inner)
}

/// The seat to move plays a random legal action; returns the seat.
async fn play_one(
    matches: &mut tabletop_proto::v1::matches_client::MatchesClient<tonic::transport::Channel>,
    match_id: &str,
    tokens: &[String],
    rng: &mut StdRng,
) -> u32 {
    let view = spectator(matches, match_id).await;
    let seat = view.to_move[0];
    let token = &tokens[seat as usize];
    let legal = crate::support::legal(matches, match_id, token)
        .await
        .expect("legal actions");
    let action = legal.actions.choose(rng).expect("a legal action");
    crate::support::submit(matches, match_id, token, action.id, None)
        .await
        .unwrap_or_else(|e| panic!("seat {seat} plays {}: {e}", action.notation));
    seat
}

#[tokio::test]
async fn a_four_player_focus_resignation_leaves_three_playing() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    let (id, tokens) = create(&mut matches, "focus", 4, 9).await;
    let mut rng = StdRng::seed_from_u64(9);
    play_one(&mut matches, &id, &tokens, &mut rng).await;

    // Seat 1 (player 2, partner of player 1: ruling F3) resigns; it alone
    // leaves, the match runs on.
    let view = resign(&mut matches, &id, &tokens[1]).await.expect("resign");
    assert_eq!(view.state, pb::MatchState::Running as i32);
    assert_eq!(
        out_reasons(&view),
        [None, Some(pb::SeatOutReason::Resigned), None, None]
    );
    assert!(view.seats[1].resigned);
    assert!(view.results.is_empty(), "no results while it plays on");

    // The three others move on, seat 1 never again; it has nothing left to
    // resign.
    let mut movers = std::collections::BTreeSet::new();
    for _ in 0..9 {
        movers.insert(play_one(&mut matches, &id, &tokens, &mut rng).await);
    }
    assert_eq!(movers, [0, 2, 3].into());
    let again = resign(&mut matches, &id, &tokens[1])
        .await
        .expect_err("a seat out cannot resign");
    assert_eq!(again.code(), Code::FailedPrecondition);
    let view = spectator(&mut matches, &id).await;
    assert_eq!(view.state, pb::MatchState::Running as i32);
    assert_eq!(out_reasons(&view)[1], Some(pb::SeatOutReason::Resigned));

    // Watchers are told the seat went out, not that the match ended.
    let events = host
        .watch()
        .await
        .list_events(pb::ListEventsRequest {
            match_id: id.clone(),
            page_size: 1000,
            ..Default::default()
        })
        .await
        .expect("events")
        .into_inner()
        .events;
    let host_events: Vec<serde_json::Value> = events
        .iter()
        .filter_map(|e| match &e.kind {
            Some(pb::watch_event::Kind::Transition(t)) => {
                serde_json::from_str::<serde_json::Value>(&t.event_json).ok()
            }
            _ => None,
        })
        .filter(|json| json["type"] == "resigned_out" || json["type"] == "resigned")
        .collect();
    assert_eq!(
        host_events,
        [serde_json::json!({ "type": "resigned_out", "seat": 1 })]
    );

    // The other team resigns, one by one: the last of it ends the game as
    // Focus ranks (README, "Results" and "A player taken out"): the team
    // with a member still in wins, the resigned partner sharing the win.
    let view = resign(&mut matches, &id, &tokens[2]).await.expect("resign");
    assert_eq!(view.state, pb::MatchState::Running as i32);
    let view = resign(&mut matches, &id, &tokens[3]).await.expect("resign");
    assert_eq!(view.state, pb::MatchState::Finished as i32);
    let results: Vec<(u32, u32, bool)> = view
        .results
        .iter()
        .map(|r| (r.seat, r.rank, r.resigned))
        .collect();
    assert_eq!(
        results,
        [(0, 1, false), (1, 1, true), (2, 3, true), (3, 3, true)]
    );
    let resigned = Some(pb::SeatOutReason::Resigned);
    assert_eq!(out_reasons(&view), [None, resigned, resigned, resigned]);
}
