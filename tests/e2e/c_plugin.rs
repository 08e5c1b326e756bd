//! Plugins written in C against the generated header
//! (`examples/c-plugin/*.c`, `include/tabletop_plugin.h`), built here with
//! the system C compiler, pass the host's vetting and play matches over
//! gRPC like games built with the Rust SDK: Nim (the core table alone) and
//! Connect Four (every extension the host calls), hot-added into a running
//! host and played to the end against a bot, its board drawn and clicked by
//! its action targets, its refusals explained.

use std::collections::BTreeSet;
use std::time::Duration;

use tabletop_proto::v1 as pb;
use tabletop_tests::{Host, HostOptions, build_c_example, error_info, legal};
use tonic::Code;

fn notation(match_id: &str, token: &str, text: &str) -> pb::SubmitActionRequest {
    pb::SubmitActionRequest {
        match_id: match_id.to_string(),
        seat_token: token.to_string(),
        action: Some(pb::submit_action_request::Action::Notation(text.into())),
        ..Default::default()
    }
}

#[tokio::test]
async fn a_plugin_written_in_c_against_the_header_plays_a_match() {
    let temp = tempfile::tempdir().unwrap();
    let plugin_dir = temp.path().join("plugins");
    std::fs::create_dir_all(&plugin_dir).unwrap();
    build_c_example("nim.c", &plugin_dir);
    let host = Host::start_with(HostOptions {
        plugin_dir: Some(plugin_dir),
        ..Default::default()
    })
    .await;

    let game = host
        .catalog()
        .await
        .get_game(pb::GetGameRequest {
            game: "nim".into(),
            version: None,
        })
        .await
        .expect("the C plugin is in the catalog")
        .into_inner();
    assert_eq!(
        (game.name.as_str(), game.version.as_str()),
        ("nim", "1.0.0")
    );

    let mut matches = host.matches().await;
    let created = matches
        .create_match(pb::CreateMatchRequest {
            game: "nim".into(),
            players: 2,
            options: [("stones".to_string(), "5".to_string())].into(),
            ..Default::default()
        })
        .await
        .expect("create a nim match")
        .into_inner();
    let id = created.match_id;
    let mut tokens = vec![String::new(); 2];
    for seat in created.seats {
        tokens[seat.seat as usize] = seat.token;
    }

    // The plugin's own refusals reach the client with their message.
    let refused = matches
        .submit_action(notation(&id, &tokens[0], "4"))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
    assert!(
        refused.message().contains("1, 2 or 3"),
        "{}",
        refused.message()
    );

    matches
        .submit_action(notation(&id, &tokens[0], "2"))
        .await
        .expect("seat 0 takes 2");
    let last = matches
        .submit_action(notation(&id, &tokens[1], "3"))
        .await
        .expect("seat 1 takes the last 3")
        .into_inner();
    let view = last.view.expect("the view after the last move");
    assert_eq!(view.state, pb::MatchState::Finished as i32);
    let view_json: serde_json::Value = serde_json::from_str(&view.view_json).unwrap();
    assert_eq!(view_json, serde_json::json!({"stones": 0, "winner": 1}));
    let ranks: Vec<(u32, u32)> = view.results.iter().map(|r| (r.seat, r.rank)).collect();
    assert_eq!(ranks, [(0, 2), (1, 1)], "whoever takes the last stone wins");
}

/// Every element `id` of an SVG document written with double quotes.
fn element_ids(svg: &str) -> BTreeSet<String> {
    svg.split(" id=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_owned)
        .collect()
}

/// The view of the seat holding `token`, with its board.
async fn board(
    matches: &mut tabletop_proto::v1::matches_client::MatchesClient<tonic::transport::Channel>,
    match_id: &str,
    token: &str,
) -> pb::MatchView {
    matches
        .get_view(pb::GetViewRequest {
            match_id: match_id.to_string(),
            seat_token: token.to_string(),
            at_version: None,
            svg: true,
        })
        .await
        .expect("the view with its board")
        .into_inner()
}

#[tokio::test]
async fn a_c_plugin_with_every_extension_is_hot_added_and_played_to_the_end_against_a_bot() {
    let temp = tempfile::tempdir().unwrap();
    let plugin_dir = temp.path().join("plugins");
    std::fs::create_dir_all(&plugin_dir).unwrap();
    let host = Host::start_with(HostOptions {
        plugin_dir: Some(plugin_dir.clone()),
        ..Default::default()
    })
    .await;

    // Hot-added: built elsewhere, then moved in whole, as `cp` then `mv` would.
    let built = build_c_example("connect_four.c", temp.path());
    std::fs::rename(&built, plugin_dir.join(built.file_name().unwrap())).unwrap();
    let mut catalog = host.catalog().await;
    let game = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            if let Ok(game) = catalog
                .get_game(pb::GetGameRequest {
                    game: "connect-four".into(),
                    version: None,
                })
                .await
            {
                return game.into_inner();
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the copied plugin is added to the running host");
    assert!(game.svg_board && game.action_targets, "{game:?}");

    let mut matches = host.matches().await;
    let created = matches
        .create_match(pb::CreateMatchRequest {
            game: "connect-four".into(),
            players: 2,
            bots: vec![pb::SeatBot {
                seat: 1,
                spec: "mcts:50".into(),
            }],
            ..Default::default()
        })
        .await
        .expect("create a match against the search bot")
        .into_inner();
    let id = created.match_id;
    let token = created
        .seats
        .iter()
        .find(|seat| seat.seat == 0)
        .expect("a token for the human seat")
        .token
        .clone();

    // A refusal is explained with the game's own reason.
    let refused = matches
        .submit_action(pb::SubmitActionRequest {
            match_id: id.clone(),
            seat_token: token.clone(),
            action: Some(pb::submit_action_request::Action::ActionId(9)),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
    let info = error_info(&refused).expect("an ErrorInfo");
    assert_eq!(info.reason, "NO_SUCH_COLUMN", "{refused:?}");
    assert_eq!(info.metadata["refusal"], "ILLEGAL_ACTION");
    assert!(refused.message().contains("seven columns"), "{refused:?}");
    let unreadable = matches
        .submit_action(notation(&id, &token, "z"))
        .await
        .unwrap_err();
    let info = error_info(&unreadable).expect("an ErrorInfo");
    assert_eq!(info.reason, "NOT_A_COLUMN", "{unreadable:?}");
    assert_eq!(info.metadata["refusal"], "INVALID_NOTATION");

    // Seat 0 drops where its board's targets say, until the end.
    let mut moves = 0;
    let finished = tokio::time::timeout(Duration::from_secs(120), async {
        loop {
            let view = board(&mut matches, &id, &token).await;
            let svg = view.svg.as_deref().expect("a board");
            assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"), "{svg}");
            if view.state == pb::MatchState::Finished as i32 {
                return view;
            }
            if !view.to_move.contains(&0) {
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
            let ids = element_ids(svg);
            let list = legal(&mut matches, &id, &token).await.unwrap();
            for action in &list.actions {
                assert_eq!(action.targets, [format!("col-{}", action.notation)]);
                assert!(ids.contains(&action.targets[0]), "{ids:?}");
            }
            // Always the leftmost free column: the bot has something to
            // block, and the match ends either way.
            let action = list.actions.first().expect("a legal drop");
            matches
                .submit_action(pb::SubmitActionRequest {
                    match_id: id.clone(),
                    seat_token: token.clone(),
                    action: Some(pb::submit_action_request::Action::ActionId(action.id)),
                    expected_version: Some(list.version),
                    ..Default::default()
                })
                .await
                .expect("a legal drop is played");
            moves += 1;
        }
    })
    .await
    .expect("the match ends");
    assert!(moves >= 4, "seat 0 dropped {moves} discs");
    assert_eq!(finished.results.len(), 2);
    let view: serde_json::Value = serde_json::from_str(&finished.view_json).unwrap();
    assert!(
        view.get("winner").is_some() || view.get("draw").is_some(),
        "{view}"
    );
}
