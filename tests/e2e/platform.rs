//! What a tournament platform drives matches with: labels, paged listings,
//! idempotent creation.

use std::collections::{BTreeSet, HashMap};

use tabletop_proto::v1 as pb;
use tabletop_proto::v1::matches_client::MatchesClient;
use tabletop_tests::{ADMIN_TOKEN, Host, HostOptions};
use tonic::transport::Channel;

use crate::support::reason;

fn labels(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Every page of a listing with `request`'s filters, in order.
async fn every_page(
    matches: &mut MatchesClient<Channel>,
    request: pb::ListMatchesRequest,
) -> Vec<pb::MatchSummary> {
    let mut all = Vec::new();
    let mut token = String::new();
    loop {
        let page = matches
            .list_matches(pb::ListMatchesRequest {
                page_token: token,
                ..request.clone()
            })
            .await
            .expect("a page")
            .into_inner();
        assert!(
            page.matches.len() <= request.page_size.max(1) as usize || request.page_size == 0,
            "a page holds at most page_size matches"
        );
        all.extend(page.matches);
        if page.next_page_token.is_empty() {
            return all;
        }
        token = page.next_page_token;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_matches_pages_through_ten_thousand_matches_by_every_filter() {
    const MATCHES: usize = 10_000;
    // Ten thousand creations in well under a minute: beyond the default
    // per-credential quota, which this test is not about.
    let host = Host::start_with(HostOptions {
        args: vec!["--creates-per-minute".into(), "0".into()],
        ..Default::default()
    })
    .await;
    let channel = host.channel().await;
    // Created 16 at a time: every tenth is round 1 of the tournament, every
    // fifth is a Lanza match left waiting for a player.
    let mut created: Vec<(usize, String)> = Vec::with_capacity(MATCHES);
    let mut tasks = tokio::task::JoinSet::new();
    for worker in 0..16 {
        let mut matches = MatchesClient::new(channel.clone());
        tasks.spawn(async move {
            let mut ids = Vec::new();
            for i in (worker..MATCHES).step_by(16) {
                let round = if i % 10 == 0 { "1" } else { "2" };
                let request = pb::CreateMatchRequest {
                    game: if i % 5 == 0 { "lanza" } else { "focus" }.into(),
                    players: 2,
                    open_seats: if i % 5 == 0 { vec![1] } else { vec![] },
                    labels: labels(&[("tournament", "spring"), ("round", round)]),
                    ..Default::default()
                };
                let id = matches
                    .create_match(request)
                    .await
                    .unwrap_or_else(|e| panic!("create {i}: {e}"))
                    .into_inner()
                    .match_id;
                ids.push((i, id));
            }
            ids
        });
    }
    while let Some(ids) = tasks.join_next().await {
        created.extend(ids.expect("a creating task"));
    }
    let mut matches = MatchesClient::new(channel);

    let everything = every_page(
        &mut matches,
        pb::ListMatchesRequest {
            page_size: 1000,
            ..Default::default()
        },
    )
    .await;
    let listed: BTreeSet<&str> = everything.iter().map(|m| m.match_id.as_str()).collect();
    assert_eq!(listed.len(), everything.len(), "no match is listed twice");
    assert_eq!(
        listed,
        created.iter().map(|(_, id)| id.as_str()).collect(),
        "the pages together list every match"
    );
    assert!(
        everything
            .windows(2)
            .all(|w| (w[0].created_at_ms, &w[0].match_id) < (w[1].created_at_ms, &w[1].match_id)),
        "oldest first, by creation time then id"
    );

    let round_one = every_page(
        &mut matches,
        pb::ListMatchesRequest {
            page_size: 300,
            labels: labels(&[("round", "1"), ("tournament", "spring")]),
            ..Default::default()
        },
    )
    .await;
    let expected: BTreeSet<&str> = created
        .iter()
        .filter(|(i, _)| i % 10 == 0)
        .map(|(_, id)| id.as_str())
        .collect();
    assert_eq!(
        round_one
            .iter()
            .map(|m| m.match_id.as_str())
            .collect::<BTreeSet<_>>(),
        expected,
        "a label filter selects exactly the labelled matches"
    );
    assert!(round_one.iter().all(|m| m.labels["round"] == "1"));

    let waiting_lanza = every_page(
        &mut matches,
        pb::ListMatchesRequest {
            page_size: 700,
            game: "lanza".into(),
            state: pb::MatchState::Waiting as i32,
            ..Default::default()
        },
    )
    .await;
    assert_eq!(waiting_lanza.len(), MATCHES / 5, "game and state filters");
    assert!(waiting_lanza.iter().all(|m| m.open_seats == vec![1]));

    // A window of creation times: the middle of the listing.
    let from = everything[2_500].created_at_ms;
    let before = everything[7_500].created_at_ms;
    let window = every_page(
        &mut matches,
        pb::ListMatchesRequest {
            page_size: 1000,
            created_from_ms: Some(from),
            created_before_ms: Some(before),
            ..Default::default()
        },
    )
    .await;
    let expected = everything
        .iter()
        .filter(|m| m.created_at_ms >= from && m.created_at_ms < before)
        .count();
    assert_eq!(window.len(), expected, "a creation-time window");
    assert!(!window.is_empty());

    // The default page is 100; a page never approaches the message limit.
    let first = matches
        .list_matches(pb::ListMatchesRequest::default())
        .await
        .expect("first page")
        .into_inner();
    assert_eq!(first.matches.len(), 100);
    let huge = matches
        .list_matches(pb::ListMatchesRequest {
            page_size: u32::MAX,
            ..Default::default()
        })
        .await
        .expect("a page of the largest size")
        .into_inner();
    assert_eq!(huge.matches.len(), 1000, "page sizes are capped at 1000");
    assert!(prost::Message::encoded_len(&huge) < 1 << 20);

    // A token is bound to the filters it was issued for.
    let refused = matches
        .list_matches(pb::ListMatchesRequest {
            page_token: first.next_page_token.clone(),
            game: "focus".into(),
            ..Default::default()
        })
        .await
        .expect_err("a token with other filters");
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    assert_eq!(reason(&refused), "INVALID_PAGE_TOKEN");
    let refused = matches
        .list_matches(pb::ListMatchesRequest {
            page_token: "not a token".into(),
            ..Default::default()
        })
        .await
        .expect_err("a made-up token");
    assert_eq!(reason(&refused), "INVALID_PAGE_TOKEN");
}

#[tokio::test]
async fn labels_show_in_views_records_and_listings_and_bad_ones_are_refused() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    let tags = labels(&[("tournament", "winter-open"), ("table", "7")]);
    let created = matches
        .create_match(pb::CreateMatchRequest {
            game: "war".into(),
            players: 2,
            labels: tags.clone(),
            ..Default::default()
        })
        .await
        .expect("create")
        .into_inner();
    assert_eq!(created.view.expect("view").labels, tags);
    let view = crate::support::spectator(&mut matches, &created.match_id).await;
    assert_eq!(view.labels, tags, "the view shows the labels");
    let record = matches
        .export_record(pb::ExportRecordRequest {
            match_id: created.match_id.clone(),
            admin_token: ADMIN_TOKEN.into(),
        })
        .await
        .expect("export")
        .into_inner()
        .record_json;
    let record: serde_json::Value = serde_json::from_str(&record).expect("record JSON");
    assert_eq!(
        record["labels"]["table"], "7",
        "the record keeps the labels"
    );

    let bad: [(&str, HashMap<String, String>); 4] = [
        ("an upper-case key", labels(&[("Round", "1")])),
        ("an empty key", labels(&[("", "1")])),
        ("a long value", labels(&[("round", &"x".repeat(257))])),
        (
            "too many labels",
            (0..17)
                .map(|i| (format!("k{i}"), "v".to_string()))
                .collect(),
        ),
    ];
    let before = matches
        .list_matches(pb::ListMatchesRequest::default())
        .await
        .expect("list")
        .into_inner()
        .matches
        .len();
    for (what, labels) in bad {
        let refused = matches
            .create_match(pb::CreateMatchRequest {
                game: "war".into(),
                players: 2,
                labels,
                ..Default::default()
            })
            .await
            .expect_err(what);
        assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{what}");
        assert!(refused.message().len() < 400, "{what}: a short message");
    }
    let after = matches
        .list_matches(pb::ListMatchesRequest::default())
        .await
        .expect("list")
        .into_inner()
        .matches
        .len();
    assert_eq!(before, after, "a refused creation creates nothing");
}

fn idempotent_request(request_id: &str, seed: u64) -> pb::CreateMatchRequest {
    pb::CreateMatchRequest {
        game: "lanzeloth".into(),
        players: 3,
        seed: Some(seed),
        open_seats: vec![2],
        labels: labels(&[("round", "3")]),
        request_id: request_id.into(),
        ..Default::default()
    }
}

#[tokio::test]
async fn a_retried_create_returns_the_same_match_and_tokens_also_after_sigkill() {
    let data = tempfile::tempdir().expect("temp dir");
    let options = HostOptions {
        data_dir: Some(data.path().join("data")),
        ..HostOptions::default()
    };
    let mut host = Host::start_with(options.clone()).await;
    let mut matches = host.matches().await;
    let first = matches
        .create_match(tabletop_tests::as_admin(idempotent_request(
            "platform-42/round-3/table-1",
            7,
        )))
        .await
        .expect("create")
        .into_inner();
    let retry = matches
        .create_match(tabletop_tests::as_admin(idempotent_request(
            "platform-42/round-3/table-1",
            7,
        )))
        .await
        .expect("retry")
        .into_inner();
    assert_eq!(retry.match_id, first.match_id, "the same match");
    assert_eq!(retry.seats, first.seats, "the same seats and tokens");
    assert_eq!(first.seats.len(), 2, "tokens for the two taken seats");

    // The tokens work: seat 0 may see its own view.
    matches
        .get_view(pb::GetViewRequest {
            match_id: first.match_id.clone(),
            seat_token: first.seats[0].token.clone(),
            ..Default::default()
        })
        .await
        .expect("the retried token works");

    let other = matches
        .create_match(tabletop_tests::as_admin(idempotent_request(
            "platform-42/round-3/table-1",
            8,
        )))
        .await
        .expect_err("a different request under the same id");
    assert_eq!(other.code(), tonic::Code::AlreadyExists);
    assert_eq!(reason(&other), "REQUEST_ID_REUSED");
    assert!(
        other.message().contains(&first.match_id),
        "{}",
        other.message()
    );

    host.kill();
    let host = Host::start_with(options).await;
    let mut matches = host.matches().await;
    let after = matches
        .create_match(tabletop_tests::as_admin(idempotent_request(
            "platform-42/round-3/table-1",
            7,
        )))
        .await
        .expect("retry after a restart")
        .into_inner();
    assert_eq!(after.match_id, first.match_id);
    assert_eq!(after.seats, first.seats, "the same tokens after a restart");
    let listed = matches
        .list_matches(pb::ListMatchesRequest::default())
        .await
        .expect("list")
        .into_inner()
        .matches;
    assert_eq!(listed.len(), 1, "every retry answered with the one match");
    let too_long = matches
        .create_match(tabletop_tests::as_admin(idempotent_request(
            &"r".repeat(129),
            7,
        )))
        .await
        .expect_err("a request id over 128 bytes");
    assert_eq!(too_long.code(), tonic::Code::InvalidArgument);
}
