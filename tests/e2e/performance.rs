//! The response options a fast client relies on, and the inline-call watchdog.

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use tabletop_proto::v1 as pb;
use tabletop_tests::{ADMIN_TOKEN, Host, HostOptions};

use crate::support::{create, legal, spectator, submit};

/// A bot that picks from ListLegalActions does not need the game's view after
/// each of its actions: a summary response leaves out the costly part (a
/// plugin call for the JSON view and one for the text) and keeps the rest.
#[tokio::test]
async fn summary_submit_responses_leave_out_the_game_view() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    let (id, tokens) = create(&mut matches, "war", 2, 9).await;
    let mut version = None;
    for (turn, detail) in [
        pb::ViewDetail::Summary,
        pb::ViewDetail::Unspecified,
        pb::ViewDetail::Summary,
        pb::ViewDetail::Full,
    ]
    .into_iter()
    .enumerate()
    {
        let view = spectator(&mut matches, &id).await;
        let seat = view.to_move[0] as usize;
        let legal = legal(&mut matches, &id, &tokens[seat])
            .await
            .expect("legal");
        let response = matches
            .submit_action(pb::SubmitActionRequest {
                match_id: id.clone(),
                seat_token: tokens[seat].clone(),
                action: Some(pb::submit_action_request::Action::ActionId(
                    legal.actions[0].id,
                )),
                expected_version: Some(legal.version),
                view_detail: detail as i32,
            })
            .await
            .unwrap_or_else(|e| panic!("submit {turn} ({detail:?}): {e}"))
            .into_inner();
        let after = response.view.expect("a view");
        assert_eq!(after.version, legal.version + 1, "turn {turn}");
        assert_eq!(after.viewer_seat, Some(seat as u32));
        assert!(
            !after.to_move.is_empty(),
            "who moves next is in every detail"
        );
        assert_eq!(after.seats.len(), 2);
        if detail == pb::ViewDetail::Summary {
            assert!(
                after.view_json.is_empty(),
                "turn {turn}: {}",
                after.view_json
            );
            assert!(after.text.is_empty(), "turn {turn}: {}", after.text);
        } else {
            assert!(
                after.view_json.contains("\"segments\""),
                "war's full view has its board's points and lines"
            );
            assert!(!after.text.is_empty());
        }
        if let Some(previous) = version {
            assert!(after.version > previous);
        }
        version = Some(after.version);
    }

    let unknown = matches
        .submit_action(pb::SubmitActionRequest {
            match_id: id.clone(),
            seat_token: tokens[0].clone(),
            action: Some(pb::submit_action_request::Action::ActionId(0)),
            expected_version: None,
            view_detail: 99,
        })
        .await
        .expect_err("an unknown detail is refused");
    assert_eq!(unknown.code(), tonic::Code::InvalidArgument);
    let view = spectator(&mut matches, &id).await;
    assert_eq!(
        Some(view.version),
        version,
        "the refused call changed nothing"
    );
}

/// ListLegalActions is answered from lists a match keeps between moves, on
/// the server's async workers. Those answers must be exactly what a fresh
/// listing gives at every version (here: a copy imported from the record,
/// which has never listed anything), for every seat of a simultaneous game,
/// and the token checks must hold on that path too.
#[tokio::test]
async fn kept_legal_actions_answer_exactly_like_a_fresh_listing() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    let (id, tokens) = create(&mut matches, "lanza", 3, 19).await;
    let mut rng = StdRng::seed_from_u64(19);
    let mut rounds = 0;
    loop {
        let view = spectator(&mut matches, &id).await;
        if view.state == pb::MatchState::Finished as i32 || rounds == 8 {
            break;
        }
        rounds += 1;
        let record_json = matches
            .export_record(pb::ExportRecordRequest {
                match_id: id.clone(),
                admin_token: ADMIN_TOKEN.into(),
            })
            .await
            .expect("export")
            .into_inner()
            .record_json;
        let copy = matches
            .import_record(pb::ImportRecordRequest {
                record_json,
                admin_token: ADMIN_TOKEN.into(),
            })
            .await
            .expect("import")
            .into_inner();
        let mut copy_tokens = vec![String::new(); 3];
        for seat in copy.seats {
            copy_tokens[seat.seat as usize] = seat.token;
        }
        for seat in 0..3 {
            let first = legal(&mut matches, &id, &tokens[seat])
                .await
                .expect("legal");
            let again = legal(&mut matches, &id, &tokens[seat])
                .await
                .expect("again");
            let fresh = legal(&mut matches, &copy.match_id, &copy_tokens[seat])
                .await
                .expect("fresh");
            assert_eq!(first, again, "round {rounds}, seat {seat}");
            assert_eq!(first.version, view.version, "round {rounds}");
            assert_eq!(
                (first.version, first.seat, &first.actions),
                (fresh.version, fresh.seat, &fresh.actions),
                "round {rounds}, seat {seat}: kept and fresh lists differ"
            );
        }
        // The kept path checks tokens like any other.
        let wrong = legal(&mut matches, &id, "not-a-token").await.unwrap_err();
        assert_eq!(wrong.code(), tonic::Code::PermissionDenied, "{wrong}");
        let missing = legal(&mut matches, &id, "").await.unwrap_err();
        assert_eq!(missing.code(), tonic::Code::Unauthenticated, "{missing}");
        let crossed = legal(&mut matches, &copy.match_id, &tokens[0])
            .await
            .unwrap_err();
        assert_eq!(crossed.code(), tonic::Code::PermissionDenied, "{crossed}");

        for &seat in &view.to_move {
            let token = &tokens[seat as usize];
            let list = legal(&mut matches, &id, token).await.expect("legal");
            let Some(action) = list.actions.choose(&mut rng) else {
                continue;
            };
            let answer = submit(&mut matches, &id, token, action.id, Some(list.version))
                .await
                .unwrap_or_else(|e| panic!("submit {}: {e}", action.notation));
            if answer.pending {
                let after = legal(&mut matches, &id, token).await.expect("legal");
                assert!(
                    after.actions.is_empty(),
                    "seat {seat} has acted this turn: {after:?}"
                );
            }
        }
    }
    assert!(rounds >= 2, "at least two rounds were compared");
}

/// A tournament runner creating matches by the thousand can ask for a
/// summary view in CreateMatch, as in SubmitAction; the default is full.
#[tokio::test]
async fn create_match_answers_with_the_view_detail_asked_for() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    for detail in [pb::ViewDetail::Summary, pb::ViewDetail::Unspecified] {
        let created = matches
            .create_match(tabletop_tests::as_admin(pb::CreateMatchRequest {
                game: "lanza".into(),
                players: 2,
                seed: Some(4),
                view_detail: detail as i32,
                ..Default::default()
            }))
            .await
            .expect("create")
            .into_inner();
        let view = created.view.expect("a view");
        assert_eq!(created.seats.len(), 2);
        assert!(!view.to_move.is_empty(), "{detail:?}");
        let summary = detail == pb::ViewDetail::Summary;
        assert_eq!(view.view_json.is_empty(), summary, "{detail:?}");
        assert_eq!(view.text.is_empty(), summary, "{detail:?}");
    }
    let refused = matches
        .create_match(pb::CreateMatchRequest {
            game: "lanza".into(),
            players: 2,
            view_detail: 42,
            ..Default::default()
        })
        .await
        .expect_err("an unknown detail is refused");
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
}

/// A bot that picks by id asks for `ids_only`: the same ids as a full
/// listing, in the same order, packed in `action_ids` with no `actions`
/// (so no notation); a full listing of the same version afterwards still
/// carries the notation, and no `action_ids`.
#[tokio::test]
async fn ids_only_lists_are_the_full_lists_without_notation() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    let (id, tokens) = create(&mut matches, "focus", 2, 9).await;
    let mut rng = StdRng::seed_from_u64(9);
    for turn in 0..12 {
        let view = spectator(&mut matches, &id).await;
        let seat = view.to_move[0] as usize;
        let ids_only = matches
            .list_legal_actions(pb::ListLegalActionsRequest {
                match_id: id.clone(),
                seat_token: tokens[seat].clone(),
                ids_only: true,
            })
            .await
            .expect("ids only")
            .into_inner();
        let full = legal(&mut matches, &id, &tokens[seat]).await.expect("full");
        assert_eq!(ids_only.version, full.version, "turn {turn}");
        assert_eq!(ids_only.seat, full.seat);
        assert!(!full.actions.is_empty());
        assert!(ids_only.actions.is_empty(), "turn {turn}");
        assert!(full.action_ids.is_empty(), "turn {turn}");
        assert!(full.actions.iter().all(|a| !a.notation.is_empty()));
        let full_ids: Vec<u64> = full.actions.iter().map(|a| a.id).collect();
        assert_eq!(ids_only.action_ids, full_ids, "turn {turn}");
        let pick = full.actions.choose(&mut rng).expect("an action").id;
        submit(&mut matches, &id, &tokens[seat], pick, Some(full.version))
            .await
            .unwrap_or_else(|e| panic!("turn {turn}: {e}"));
    }
    let refused = matches
        .list_legal_actions(pb::ListLegalActionsRequest {
            match_id: id,
            seat_token: "not a token".into(),
            ids_only: true,
        })
        .await
        .expect_err("a wrong token is refused on the ids-only path too");
    assert_eq!(refused.code(), tonic::Code::PermissionDenied);
}

/// Calls run on the async worker that received them while their plugin
/// keeps within the inline limit. One that runs past it moves that plugin
/// version's calls to the blocking pool, where the call deadline holds
/// again; the host and every other game go on as before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plugin_call_over_the_inline_limit_moves_that_plugin_to_the_pool() {
    let (counter, _) = crate::durable::fixtures().await;
    let root = tempfile::tempdir().expect("temp dir");
    let plugin_dir = Host::fresh_plugin_dir(root.path());
    std::fs::copy(
        &counter,
        plugin_dir.join(format!("counter.{}", std::env::consts::DLL_EXTENSION)),
    )
    .expect("copy fixture");
    let host = Host::start_with(HostOptions {
        plugin_dir: Some(plugin_dir),
        data_dir: None,
        args: ["--inline-limit-ms", "20", "--call-deadline-ms", "400"]
            .map(String::from)
            .to_vec(),
        ..Default::default()
    })
    .await;
    let mut matches = host.matches().await;
    let created = matches
        .create_match(pb::CreateMatchRequest {
            game: "counter".into(),
            players: 2,
            options: [("think_ms".to_string(), "800".to_string())].into(),
            ..Default::default()
        })
        .await
        .expect("create a slow counter")
        .into_inner();
    let token = |seat: u32| -> String {
        created
            .seats
            .iter()
            .find(|s| s.seat == seat)
            .expect("a token per seat")
            .token
            .clone()
    };
    let tick = |seat: u32, version: u64| pb::SubmitActionRequest {
        match_id: created.match_id.clone(),
        seat_token: token(seat),
        action: Some(pb::submit_action_request::Action::Notation("tick".into())),
        expected_version: Some(version),
        view_detail: pb::ViewDetail::Summary as i32,
    };

    // Trusted so far: it runs inline, where no deadline can cut it short,
    // so it takes its 800 ms and succeeds. The watchdog sees it overrun.
    let first = matches.submit_action(tick(0, 0)).await.expect("first tick");
    assert_eq!(first.into_inner().view.expect("a view").version, 1);

    // From now on counter's calls go to the pool: the same slow action is
    // cut off by the 400 ms deadline.
    let second = matches
        .submit_action(tick(1, 1))
        .await
        .expect_err("a call over the deadline on the pool is refused");
    assert_eq!(second.code(), tonic::Code::Internal);
    assert!(
        second.message().contains("did not answer within"),
        "{}",
        second.message()
    );

    // Other games are still served inline and at once.
    let (id, tokens) = create(&mut matches, "focus", 2, 3).await;
    let list = legal(&mut matches, &id, &tokens[0]).await.expect("legal");
    let after = submit(&mut matches, &id, &tokens[0], list.actions[0].id, Some(0))
        .await
        .expect("focus plays on");
    assert_eq!(after.view.expect("a view").version, 1);
}
