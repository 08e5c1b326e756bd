//! The limits in front of the services: a refused call is answered by the
//! layer with its code, `ErrorInfo` and `RetryInfo`, counts against its
//! own credential only, and leaves one line in the host's log.

use std::time::Duration;

use tabletop_proto::v1 as pb;
use tabletop_tests::{Host, HostOptions, as_admin, with_credential};
use tonic::Code;
use tonic_types::StatusExt;

use crate::support::{issue_organizer, reason};

fn new_focus() -> pb::CreateMatchRequest {
    pb::CreateMatchRequest {
        game: "focus".into(),
        players: 2,
        view_detail: pb::ViewDetail::Summary as i32,
        ..Default::default()
    }
}

/// The retry delay a refusal asks for.
fn retry_delay(status: &tonic::Status) -> Duration {
    status
        .get_error_details()
        .retry_info()
        .and_then(|r| r.retry_delay)
        .unwrap_or_else(|| panic!("no RetryInfo in {status:?}"))
}

fn metadata(status: &tonic::Status, key: &str) -> String {
    tabletop_tests::error_info(status)
        .and_then(|info| info.metadata.get(key).cloned())
        .unwrap_or_default()
}

#[tokio::test]
async fn a_credential_past_its_creations_per_minute_is_refused_alone_and_told_when_to_retry() {
    let root = tempfile::tempdir().expect("temp dir");
    let log_file = root.path().join("host.log");
    let host = Host::start_with(HostOptions {
        args: vec!["--creates-per-minute".into(), "3".into()],
        log_file: Some(log_file.clone()),
        ..Default::default()
    })
    .await;
    let (flooder_id, flooder) = issue_organizer(&host, "flooder").await;
    let (_, calm) = issue_organizer(&host, "calm").await;
    let mut matches = host.matches().await;
    for n in 0..3 {
        matches
            .create_match(with_credential(&flooder, new_focus()))
            .await
            .unwrap_or_else(|e| panic!("creation {n} within the quota: {e}"));
    }
    let refused = matches
        .create_match(with_credential(&flooder, new_focus()))
        .await
        .expect_err("the fourth creation of the minute");
    assert_eq!(refused.code(), Code::ResourceExhausted, "{refused:?}");
    assert_eq!(reason(&refused), "CREATION_QUOTA");
    assert_eq!(metadata(&refused, "credential"), flooder_id);
    assert_eq!(metadata(&refused, "max"), "3");
    let delay = retry_delay(&refused);
    assert!(
        delay > Duration::ZERO && delay <= Duration::from_secs(20),
        "a token comes back every 20 s: {delay:?}"
    );
    // Other calls of the same credential, and every other caller, go on.
    let listed = matches
        .list_matches(with_credential(&flooder, pb::ListMatchesRequest::default()))
        .await
        .expect("a call that creates nothing");
    assert_eq!(
        listed.into_inner().matches.len(),
        3,
        "the refusal created nothing"
    );
    matches
        .create_match(with_credential(&calm, new_focus()))
        .await
        .expect("another credential creates");
    matches
        .create_match(as_admin(new_focus()))
        .await
        .expect("the admin creates");
    matches
        .create_match(new_focus())
        .await
        .expect("anonymous callers have a quota of their own");
    let log = std::fs::read_to_string(&log_file).expect("the host's log");
    assert!(
        !log.contains('\u{1b}'),
        "a log written to a file has no terminal escape codes:\n{log}"
    );
    let lines: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("call refused by a limit"))
        .collect();
    assert_eq!(lines.len(), 1, "one line for the refusal:\n{log}");
    assert!(
        lines[0].contains("credential_creates_per_minute"),
        "{}",
        lines[0]
    );
    assert!(
        lines[0].contains(&format!(
            "rpc{{method=tabletop.v1.Matches/CreateMatch credential={flooder_id}}}"
        )),
        "the line names the call it was written in: {}",
        lines[0]
    );
}

#[tokio::test]
async fn a_json_log_line_carries_its_fields_and_the_call_it_was_written_in() {
    let root = tempfile::tempdir().expect("temp dir");
    let log_file = root.path().join("host.log");
    let host = Host::start_with(HostOptions {
        args: vec![
            "--creates-per-minute".into(),
            "1".into(),
            "--log-format".into(),
            "json".into(),
        ],
        log_file: Some(log_file.clone()),
        ..Default::default()
    })
    .await;
    let (flooder_id, flooder) = issue_organizer(&host, "flooder").await;
    let mut matches = host.matches().await;
    matches
        .create_match(with_credential(&flooder, new_focus()))
        .await
        .expect("within the quota");
    matches
        .create_match(with_credential(&flooder, new_focus()))
        .await
        .expect_err("past the quota");
    let log = std::fs::read_to_string(&log_file).expect("the host's log");
    let lines: Vec<serde_json::Value> = log
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect();
    let refusal = lines
        .iter()
        .find(|line| line["message"] == "call refused by a limit")
        .unwrap_or_else(|| panic!("no refusal line in\n{log}"));
    assert_eq!(refusal["level"], "WARN", "{refusal}");
    assert_eq!(
        refusal["limit"], "credential_creates_per_minute",
        "{refusal}"
    );
    assert_eq!(refusal["max"], 1, "a number stays a number: {refusal}");
    assert_eq!(refusal["span"]["name"], "rpc", "{refusal}");
    assert_eq!(
        refusal["span"]["method"], "tabletop.v1.Matches/CreateMatch",
        "{refusal}"
    );
    assert_eq!(
        refusal["span"]["credential"],
        flooder_id.as_str(),
        "{refusal}"
    );
}

#[tokio::test]
async fn past_the_live_match_cap_creations_wait_until_a_match_ends() {
    let host = Host::start_with(HostOptions {
        args: vec!["--max-live-matches".into(), "2".into()],
        ..Default::default()
    })
    .await;
    let mut matches = host.matches().await;
    let mut first = None;
    for _ in 0..2 {
        let created = matches
            .create_match(as_admin(new_focus()))
            .await
            .expect("under the cap")
            .into_inner();
        first.get_or_insert(created);
    }
    let refused = matches
        .create_match(as_admin(new_focus()))
        .await
        .expect_err("a third live match");
    assert_eq!(refused.code(), Code::ResourceExhausted);
    assert_eq!(reason(&refused), "LIVE_MATCH_LIMIT");
    assert!(retry_delay(&refused) > Duration::ZERO);
    let first = first.expect("a match");
    matches
        .resign(pb::ResignRequest {
            match_id: first.match_id.clone(),
            seat_token: first.seats[0].token.clone(),
        })
        .await
        .expect("resigning ends a two-seat match");
    matches
        .create_match(as_admin(new_focus()))
        .await
        .expect("a finished match no longer counts");
}

#[tokio::test]
async fn calls_past_the_rate_are_refused_with_the_wait_for_the_next_token() {
    let host = Host::start_with(HostOptions {
        args: vec!["--credential-rate".into(), "2".into()],
        ..Default::default()
    })
    .await;
    let mut catalog = host.catalog().await;
    let mut refused = None;
    // Two tokens, refilled at two a second: twenty calls in a row cannot
    // all pass unless they take ten seconds.
    for _ in 0..20 {
        if let Err(status) = catalog.list_games(pb::ListGamesRequest {}).await {
            refused = Some(status);
            break;
        }
    }
    let refused = refused.expect("a call past the rate");
    assert_eq!(refused.code(), Code::ResourceExhausted);
    assert_eq!(reason(&refused), "RATE_LIMITED");
    assert_eq!(metadata(&refused, "credential"), "anonymous");
    // The wait for one token is 500 ms at two a second; the calls before
    // may have left the bucket in debt for the CPU they took past a cheap
    // call's share (a loaded machine), by at most a second's worth of
    // tokens (`cost.rs`). The exact wait is `a_key_over_its_rate_waits_for_the_next_token`'s.
    let delay = retry_delay(&refused);
    assert!(
        delay > Duration::ZERO && delay <= Duration::from_millis(1500),
        "{delay:?}"
    );
    catalog
        .list_games(as_admin(pb::ListGamesRequest {}))
        .await
        .expect("the admin's calls count apart");
}

#[tokio::test]
async fn a_reply_over_the_cap_is_refused_and_a_smaller_one_is_not() {
    let host = Host::start_with(HostOptions {
        args: vec!["--max-reply-bytes".into(), "2048".into()],
        ..Default::default()
    })
    .await;
    let mut matches = host.matches().await;
    let war = |detail: pb::ViewDetail| pb::CreateMatchRequest {
        game: "war".into(),
        players: 2,
        view_detail: detail as i32,
        ..Default::default()
    };
    let refused = matches
        .create_match(war(pb::ViewDetail::Full))
        .await
        .expect_err("War's full view is larger than 2 KiB");
    assert_eq!(refused.code(), Code::ResourceExhausted, "{refused:?}");
    assert_eq!(reason(&refused), "REPLY_TOO_LARGE");
    matches
        .create_match(war(pb::ViewDetail::Summary))
        .await
        .expect("a summary fits");
}

/// The flood, as a test can show it (its effect on latency is measured by
/// `tabletop-bench flood`, BENCHMARKS.md): while one organizer floods
/// CreateMatch from many tasks, another organizer creates and plays, and
/// none of its calls is refused; the flood's calls are, each with a reason
/// and a retry delay.
#[tokio::test]
async fn a_credential_flooding_creation_is_refused_while_another_plays_on() {
    let host = Host::start_with(HostOptions {
        args: vec![
            "--creates-per-minute".into(),
            "5".into(),
            "--credential-rate".into(),
            "200".into(),
        ],
        ..Default::default()
    })
    .await;
    let (_, flooder) = issue_organizer(&host, "flooder").await;
    let (_, calm) = issue_organizer(&host, "calm").await;
    let mut floods = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let mut matches = host.matches().await;
        let flooder = flooder.clone();
        floods.spawn(async move {
            let (mut created, mut refused) = (0, Vec::new());
            // Each refusal is held up to a second: ten calls a task.
            for _ in 0..10 {
                match matches
                    .create_match(with_credential(&flooder, new_focus()))
                    .await
                {
                    Ok(_) => created += 1,
                    Err(status) => refused.push(status),
                }
            }
            (created, refused)
        });
    }
    let mut matches = host.matches().await;
    for _ in 0..3 {
        let created = matches
            .create_match(with_credential(&calm, new_focus()))
            .await
            .expect("the calm organizer creates during the flood")
            .into_inner();
        let mut view = created.view.expect("a view");
        for _ in 0..10 {
            let seat = view.to_move[0];
            let token = &created
                .seats
                .iter()
                .find(|s| s.seat == seat)
                .expect("a token")
                .token;
            let legal = matches
                .list_legal_actions(with_credential(
                    &calm,
                    pb::ListLegalActionsRequest {
                        match_id: created.match_id.clone(),
                        seat_token: token.clone(),
                        ids_only: true,
                    },
                ))
                .await
                .expect("legal actions during the flood")
                .into_inner();
            view = matches
                .submit_action(with_credential(
                    &calm,
                    pb::SubmitActionRequest {
                        match_id: created.match_id.clone(),
                        seat_token: token.clone(),
                        action: Some(pb::submit_action_request::Action::ActionId(
                            legal.action_ids[0],
                        )),
                        expected_version: Some(legal.version),
                        view_detail: pb::ViewDetail::Summary as i32,
                    },
                ))
                .await
                .expect("a submit during the flood")
                .into_inner()
                .view
                .expect("a view");
        }
    }
    let (mut created, mut refused) = (0, Vec::new());
    while let Some(done) = floods.join_next().await {
        let (c, r) = done.expect("a flooding task");
        created += c;
        refused.extend(r);
    }
    assert_eq!(created + refused.len(), 80);
    assert!(created <= 6 && !refused.is_empty(), "{created} created");
    for status in &refused {
        assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
        assert!(
            ["CREATION_QUOTA", "RATE_LIMITED"].contains(&reason(status).as_str()),
            "{status:?}"
        );
        assert!(retry_delay(status) > Duration::ZERO);
    }
}

/// GetView with `token` until one is refused (at most 40 calls).
async fn view_until_refused(
    matches: &mut tabletop_proto::v1::matches_client::MatchesClient<tonic::transport::Channel>,
    match_id: &str,
    token: &str,
) -> Option<tonic::Status> {
    for _ in 0..40 {
        match crate::support::view_of(matches, match_id, token, None).await {
            Err(status) if status.code() == Code::ResourceExhausted => return Some(status),
            _ => {}
        }
    }
    None
}

/// A player acting with a seat token is its seat's own key: a spectator
/// flooding the server, another player past its rate, or calls with
/// made-up tokens hold up no player, and each is refused on its own key.
#[tokio::test]
async fn players_are_limited_per_seat_not_with_every_spectator() {
    let host = Host::start_with(HostOptions {
        args: vec!["--credential-rate".into(), "5".into()],
        ..Default::default()
    })
    .await;
    let mut matches = host.matches().await;
    let created = matches
        .create_match(as_admin(new_focus()))
        .await
        .expect("create")
        .into_inner();
    let mut tokens = vec![String::new(); 2];
    for seat in created.seats {
        tokens[seat.seat as usize] = seat.token;
    }
    let id = created.match_id;

    let spectator = view_until_refused(&mut matches, &id, "")
        .await
        .expect("a spectator past the rate is refused");
    assert_eq!(reason(&spectator), "RATE_LIMITED");
    assert_eq!(metadata(&spectator, "credential"), "anonymous");
    for token in &tokens {
        for _ in 0..4 {
            crate::support::view_of(&mut matches, &id, token, None)
                .await
                .expect("a player is not held up by the spectators' key");
        }
    }

    let flooding = view_until_refused(&mut matches, &id, &tokens[0])
        .await
        .expect("a player past its seat's rate is refused");
    assert_eq!(reason(&flooding), "RATE_LIMITED");
    assert_eq!(metadata(&flooding, "credential"), "seat", "never its token");
    crate::support::view_of(&mut matches, &id, &tokens[1], None)
        .await
        .expect("the other seat plays on");

    let made_up = view_until_refused(&mut matches, &id, "a-token-no-seat-holds")
        .await
        .expect("made-up tokens share one bucket");
    assert_eq!(metadata(&made_up, "credential"), "unproven seat token");
    crate::support::view_of(&mut matches, &id, &tokens[1], None)
        .await
        .expect("the other seat still plays on");
}

#[tokio::test]
async fn a_call_is_charged_by_its_cost_so_heavy_reads_run_out_of_rate_where_light_calls_do_not() {
    let host = Host::start_with(HostOptions {
        args: vec![
            "--store".into(),
            "memory".into(),
            "--credential-rate".into(),
            "200".into(),
        ],
        ..Default::default()
    })
    .await;
    let mut matches = host.matches().await;
    let match_id = crate::support::finished_random_war(&host, 5).await;
    let (heavy_id, heavy) = issue_organizer(&host, "heavy").await;
    let (_, light) = issue_organizer(&host, "light").await;
    let mut watch = host.watch().await;
    let every_event_with_views = || pb::ListEventsRequest {
        match_id: match_id.clone(),
        page_size: 100,
        include_views: true,
        ..Default::default()
    };
    // Each answer is a page's most, a mebibyte of views, and their
    // replay: a few spend a second's rate.
    let mut served = 0;
    let refused = loop {
        match watch
            .list_events(with_credential(&heavy, every_event_with_views()))
            .await
        {
            Ok(page) => {
                let bytes: usize = page
                    .into_inner()
                    .events
                    .iter()
                    .map(|e| match &e.kind {
                        Some(pb::watch_event::Kind::Transition(t)) => t
                            .view
                            .as_ref()
                            .map_or(0, |v| v.view_json.len() + v.text.len()),
                        _ => 0,
                    })
                    .sum();
                assert!(bytes >= 1 << 19, "a heavy answer: {bytes} bytes of views");
                served += 1;
                assert!(served < 10, "ten heavy answers within a rate of 200 calls");
            }
            Err(status) => break status,
        }
    };
    assert_eq!(reason(&refused), "RATE_LIMITED", "{refused:?}");
    assert_eq!(metadata(&refused, "credential"), heavy_id);
    // As many light calls as the heavy ones, and a hundred more, pass.
    for n in 0..served + 100 {
        matches
            .get_view(with_credential(
                &light,
                pb::GetViewRequest {
                    match_id: match_id.clone(),
                    ..Default::default()
                },
            ))
            .await
            .unwrap_or_else(|e| panic!("light call {n}: {e}"));
    }
}
