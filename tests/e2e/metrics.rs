//! The metrics endpoint, scraped before and after a known workload: every
//! counter moves by what the workload did.

use std::collections::HashMap;

use tabletop_proto::v1 as pb;
use tabletop_tests::{Host, HostOptions, as_admin};
use tokio_stream::StreamExt;

use crate::support::{legal, scrape, submit};

fn rpcs(method: &str, code: &str) -> String {
    let (service, method) = method.split_once('/').expect("service/method");
    format!(
        "tabletop_rpcs_total{{service=\"tabletop.v1.{service}\",method=\"{method}\",code=\"{code}\"}}"
    )
}

/// A host with a metrics listener, that listener's address, and the
/// metrics as they stand before a test's workload.
async fn metrics_host() -> (Host, String, HashMap<String, f64>) {
    let host = Host::start_with(HostOptions {
        args: vec!["--metrics-listen".into(), "127.0.0.1:0".into()],
        ..Default::default()
    })
    .await;
    let address = host.metrics_address.clone().expect("a metrics address");
    let before = scrape(&address).await;
    (host, address, before)
}

#[tokio::test]
async fn counters_move_by_what_a_known_workload_did() {
    let (host, address, before) = metrics_host().await;
    let moved = |after: &HashMap<String, f64>, name: &str| {
        after.get(name).copied().unwrap_or(0.0) - before.get(name).copied().unwrap_or(0.0)
    };

    // Two War matches (no chance, so every version is a seat's action).
    let mut matches = host.matches().await;
    let mut created = Vec::new();
    for seed in [1, 2] {
        created.push(
            matches
                .create_match(as_admin(pb::CreateMatchRequest {
                    game: "war".into(),
                    players: 2,
                    seed: Some(seed),
                    ..Default::default()
                }))
                .await
                .expect("create")
                .into_inner(),
        );
    }
    let (playing, resigned) = (&created[0], &created[1]);
    let mut watch = host.watch().await;
    let mut events = watch
        .watch_match(pb::WatchMatchRequest {
            match_id: playing.match_id.clone(),
            ..Default::default()
        })
        .await
        .expect("watch")
        .into_inner();
    events.next().await.expect("the snapshot").expect("ok");
    // Five actions, each after its legal-action list, and one refused.
    let token_of = |seat: u32| {
        playing
            .seats
            .iter()
            .find(|s| s.seat == seat)
            .map(|s| s.token.clone())
            .expect("a token per seat")
    };
    let mut view = playing.view.clone().expect("a view");
    for _ in 0..5 {
        let token = token_of(view.to_move[0]);
        let list = legal(&mut matches, &playing.match_id, &token)
            .await
            .expect("legal actions");
        let answer = submit(
            &mut matches,
            &playing.match_id,
            &token,
            list.actions[0].id,
            Some(list.version),
        )
        .await
        .expect("a legal action");
        view = answer.view.expect("a view");
    }
    let refused = submit(
        &mut matches,
        &playing.match_id,
        &token_of(view.to_move[0]),
        u64::MAX,
        None,
    )
    .await
    .expect_err("no such action");
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    matches
        .resign(pb::ResignRequest {
            match_id: resigned.match_id.clone(),
            seat_token: resigned.seats[0].token.clone(),
        })
        .await
        .expect("resign");

    let after = scrape(&address).await;
    for (name, expected) in [
        (rpcs("Matches/CreateMatch", "OK"), 2.0),
        (rpcs("Matches/ListLegalActions", "OK"), 5.0),
        (rpcs("Matches/SubmitAction", "OK"), 5.0),
        (rpcs("Matches/SubmitAction", "INVALID_ARGUMENT"), 1.0),
        (rpcs("Matches/Resign", "OK"), 1.0),
        (
            "tabletop_rpc_duration_seconds_count{service=\"tabletop.v1.Matches\",method=\"SubmitAction\"}"
                .to_string(),
            6.0,
        ),
        ("tabletop_actions_total{game=\"war\"}".to_string(), 5.0),
        ("tabletop_matches_created_total{game=\"war\"}".to_string(), 2.0),
        ("tabletop_matches_finished_total{game=\"war\"}".to_string(), 1.0),
        (
            "tabletop_plugin_call_seconds_count{game=\"war\",call=\"submit\"}".to_string(),
            6.0,
        ),
        (
            "tabletop_plugin_call_seconds_count{game=\"war\",call=\"create\"}".to_string(),
            2.0,
        ),
    ] {
        assert_eq!(moved(&after, &name), expected, "{name}");
    }
    // Gauges: what the host holds now.
    assert_eq!(after["tabletop_matches{state=\"live\"}"], 1.0);
    assert_eq!(after["tabletop_matches{state=\"finished\"}"], 1.0);
    assert_eq!(after["tabletop_watch_streams"], 1.0);
    // Every acknowledged write was committed and fsynced (the store batches
    // concurrent writes, so at least once each, at most once per write).
    for histogram in [
        "tabletop_store_commit_seconds",
        "tabletop_store_fsync_seconds",
    ] {
        let count = moved(&after, &format!("{histogram}_count"));
        assert!((1.0..=8.0).contains(&count), "{histogram}: {count}");
    }
}

#[tokio::test]
async fn bot_searches_are_counted_with_their_iterations() {
    let (host, address, before) = metrics_host().await;
    let mut matches = host.matches().await;
    // Two search bots of 16 iterations play a short Focus match by themselves.
    let created = matches
        .create_match(pb::CreateMatchRequest {
            game: "focus".into(),
            players: 2,
            options: [("max_turns".to_string(), "6".to_string())].into(),
            bots: crate::support::seat_bots(&[(0, "mcts:16"), (1, "mcts:16")]),
            ..Default::default()
        })
        .await
        .expect("create a bot match")
        .into_inner();
    let view = crate::support::finished_by_itself(
        &mut matches,
        &created.match_id,
        std::time::Duration::from_secs(120),
    )
    .await;
    let after = scrape(&address).await;
    let moved = |name: &str| {
        after.get(name).copied().unwrap_or(0.0) - before.get(name).copied().unwrap_or(0.0)
    };
    // Every move of the match was a bot's, and each came from a search (a
    // search whose version went stale is searched again, so there may be more).
    let searches = moved("tabletop_bot_search_seconds_count");
    assert!(view.version >= 1, "the bots moved");
    assert!(
        searches >= view.version as f64,
        "{searches} searches for {} moves",
        view.version
    );
    assert!(
        moved("tabletop_bot_search_iterations_total") >= searches,
        "every search ran iterations"
    );
}
