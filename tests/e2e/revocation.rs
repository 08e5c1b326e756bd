//! Revocation ends what the credential opened: a revoked organizer
//! credential is refused by every call that presents it (also one that
//! needs no credential), and the streams it opened end within a second
//! with the refusal a new call gets; a re-issued seat token ends the
//! watch it opened the same way. Streams opened with anything else go on.

use std::time::{Duration, Instant};

use tabletop_proto::v1 as pb;
use tabletop_proto::v1::director_client::DirectorClient;
use tabletop_proto::v1::matches_client::MatchesClient;
use tabletop_tests::{Host, as_admin, error_info, with_credential};
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::{Code, Streaming};

use crate::support::{issue_organizer, play_first_legal, reason, submit};

/// How soon a stream must end once what opened it is withdrawn.
const WITHIN: Duration = Duration::from_secs(1);

/// How long a stream that goes on is given to deliver its next message.
const PATIENCE: Duration = Duration::from_secs(10);

/// The status `stream` ends with within `limit`; the messages before it
/// (already on their way when it ended) are skipped. Panics if it ends
/// without an error or goes on past `limit`.
async fn ends_within<T: std::fmt::Debug>(
    stream: &mut Streaming<T>,
    limit: Duration,
) -> tonic::Status {
    let ended = tokio::time::timeout(limit, async {
        loop {
            match stream.next().await {
                Some(Ok(_)) => {}
                Some(Err(status)) => return status,
                None => panic!("the stream ended without saying why"),
            }
        }
    })
    .await;
    ended.unwrap_or_else(|_| panic!("the stream was still open after {limit:?}"))
}

/// The next message of a stream that must go on.
async fn next_message<T>(stream: &mut Streaming<T>, what: &str) -> T {
    tokio::time::timeout(PATIENCE, stream.next())
        .await
        .unwrap_or_else(|_| panic!("{what}: nothing within {PATIENCE:?}"))
        .unwrap_or_else(|| panic!("{what}: the stream ended"))
        .unwrap_or_else(|status| panic!("{what}: {status:?}"))
}

/// Whether two refusals are the same answer: code, reason and the
/// credential they name.
fn same_refusal(a: &tonic::Status, b: &tonic::Status) -> bool {
    let credential = |s: &tonic::Status| {
        error_info(s)
            .and_then(|info| info.metadata.get("credential").cloned())
            .unwrap_or_default()
    };
    a.code() == b.code() && reason(a) == reason(b) && credential(a) == credential(b)
}

/// A running two-seat Focus match the organizer `secret` created, in its
/// tenant: (id, the seat tokens).
async fn organizer_match(
    matches: &mut MatchesClient<Channel>,
    secret: &str,
) -> (String, Vec<String>) {
    let created = matches
        .create_match(with_credential(
            secret,
            pb::CreateMatchRequest {
                game: "focus".into(),
                players: 2,
                ..Default::default()
            },
        ))
        .await
        .expect("the organizer creates")
        .into_inner();
    let tokens = created.seats.iter().map(|s| s.token.clone()).collect();
    (created.match_id, tokens)
}

fn watch_request(match_id: &str, seat_token: &str) -> pb::WatchMatchRequest {
    pb::WatchMatchRequest {
        match_id: match_id.to_string(),
        seat_token: seat_token.to_string(),
        ..Default::default()
    }
}

async fn revoke(host: &Host, credential_id: &str) {
    host.admin()
        .await
        .revoke_credential(as_admin(pb::RevokeCredentialRequest {
            credential_id: credential_id.to_string(),
            ..Default::default()
        }))
        .await
        .expect("the admin revokes");
}

#[tokio::test]
async fn revoking_a_credential_ends_its_feed_and_watch_within_a_second_with_bad_token() {
    let host = Host::start().await;
    let (revoked_id, revoked) = issue_organizer(&host, "spring open").await;
    let (_, kept) = issue_organizer(&host, "autumn cup").await;
    let mut matches = host.matches().await;
    let (match_id, _) = organizer_match(&mut matches, &revoked).await;
    organizer_match(&mut matches, &kept).await;
    let mut director = DirectorClient::new(host.channel().await);
    let follow = |secret: &str| with_credential(secret, pb::FollowLifecycleRequest::default());
    let mut feed = director
        .follow_lifecycle(follow(&revoked))
        .await
        .expect("the organizer follows the feed")
        .into_inner();
    let mut kept_feed = director
        .follow_lifecycle(follow(&kept))
        .await
        .expect("another organizer follows the feed")
        .into_inner();
    let mut watch = host
        .watch()
        .await
        .watch_match(with_credential(&revoked, watch_request(&match_id, "")))
        .await
        .expect("the organizer watches")
        .into_inner();
    // Both streams deliver while the credential holds.
    let created = next_message(&mut feed, "the feed before the revocation").await;
    assert_eq!(created.match_id, match_id);
    let snapshot = next_message(&mut watch, "the watch before the revocation").await;
    assert!(matches!(
        snapshot.kind,
        Some(pb::watch_event::Kind::Snapshot(_))
    ));
    next_message(&mut kept_feed, "the other organizer's feed").await;

    revoke(&host, &revoked_id).await;
    let revoked_at = Instant::now();
    let feed_end = ends_within(&mut feed, WITHIN).await;
    let watch_end = ends_within(&mut watch, WITHIN.saturating_sub(revoked_at.elapsed())).await;
    assert!(
        revoked_at.elapsed() <= WITHIN,
        "both streams ended within a second of the revocation"
    );
    for end in [&feed_end, &watch_end] {
        assert_eq!(end.code(), Code::PermissionDenied, "{end:?}");
        assert_eq!(reason(end), "BAD_TOKEN", "{end:?}");
    }
    // The answer a new call with the credential gets.
    let new_feed = director
        .follow_lifecycle(follow(&revoked))
        .await
        .expect_err("a revoked credential follows nothing");
    assert!(
        same_refusal(&feed_end, &new_feed),
        "{feed_end:?} / {new_feed:?}"
    );
    let new_watch = host
        .watch()
        .await
        .watch_match(with_credential(&revoked, watch_request(&match_id, "")))
        .await
        .expect_err("a revoked credential watches nothing");
    assert!(
        same_refusal(&watch_end, &new_watch),
        "{watch_end:?} / {new_watch:?}"
    );

    // A stream of another credential goes on, and is told what follows.
    let (later, _) = organizer_match(&mut matches, &kept).await;
    loop {
        let event = next_message(&mut kept_feed, "the other organizer's feed after").await;
        if event.match_id == later {
            break;
        }
    }
}

#[tokio::test]
async fn a_revoked_credential_is_refused_by_every_call_also_one_that_needs_none() {
    let host = Host::start().await;
    let (id, organizer) = issue_organizer(&host, "spring open").await;
    let mut matches = host.matches().await;
    let (match_id, _) = organizer_match(&mut matches, &organizer).await;
    let mut catalog = host.catalog().await;
    let list_games = || pb::ListGamesRequest::default();
    catalog
        .list_games(with_credential(&organizer, list_games()))
        .await
        .expect("a valid credential lists the games");

    revoke(&host, &id).await;
    let mut refusals = vec![
        catalog
            .list_games(with_credential(&organizer, list_games()))
            .await
            .map(|_| ()),
        catalog
            .get_game(with_credential(
                &organizer,
                pb::GetGameRequest {
                    game: "focus".into(),
                    version: None,
                },
            ))
            .await
            .map(|_| ()),
        matches
            .list_matches(with_credential(
                &organizer,
                pb::ListMatchesRequest::default(),
            ))
            .await
            .map(|_| ()),
        matches
            .get_view(with_credential(
                &organizer,
                pb::GetViewRequest {
                    match_id: match_id.clone(),
                    ..Default::default()
                },
            ))
            .await
            .map(|_| ()),
        host.watch()
            .await
            .list_events(with_credential(
                &organizer,
                pb::ListEventsRequest {
                    match_id: match_id.clone(),
                    ..Default::default()
                },
            ))
            .await
            .map(|_| ()),
        matches
            .create_match(with_credential(
                &organizer,
                pb::CreateMatchRequest {
                    game: "focus".into(),
                    players: 2,
                    ..Default::default()
                },
            ))
            .await
            .map(|_| ()),
    ];
    // A made-up credential is refused the same way.
    refusals.push(
        catalog
            .list_games(with_credential("not-a-credential", list_games()))
            .await
            .map(|_| ()),
    );
    for refused in refusals {
        let status = refused.expect_err("a revoked or unknown credential is refused");
        assert_eq!(status.code(), Code::PermissionDenied, "{status:?}");
        assert_eq!(reason(&status), "BAD_TOKEN", "{status:?}");
        let credential = error_info(&status).and_then(|i| i.metadata.get("credential").cloned());
        assert_eq!(credential.as_deref(), Some("bearer"), "{status:?}");
    }
    // Without a credential the same calls are served.
    catalog
        .list_games(list_games())
        .await
        .expect("an anonymous caller lists the games");
    matches
        .list_matches(pb::ListMatchesRequest::default())
        .await
        .expect("an anonymous caller lists the matches");
}

#[tokio::test]
async fn reissuing_a_seat_token_ends_the_watch_it_opened_within_a_second() {
    let host = Host::start().await;
    let (_, organizer) = issue_organizer(&host, "club").await;
    let mut matches = host.matches().await;
    let (match_id, mut tokens) = organizer_match(&mut matches, &organizer).await;
    let mut watch = host.watch().await;
    let mut as_seat_0 = watch
        .watch_match(watch_request(&match_id, &tokens[0]))
        .await
        .expect("seat 0 watches")
        .into_inner();
    let mut as_seat_1 = watch
        .watch_match(watch_request(&match_id, &tokens[1]))
        .await
        .expect("seat 1 watches")
        .into_inner();
    next_message(&mut as_seat_0, "seat 0's snapshot").await;
    next_message(&mut as_seat_1, "seat 1's snapshot").await;

    let old = tokens[0].clone();
    let reissued = crate::support::reissue(&host, &organizer, &match_id, 0)
        .await
        .expect("the organizer re-issues seat 0's token");
    let ended = ends_within(&mut as_seat_0, WITHIN).await;
    assert_eq!(ended.code(), Code::PermissionDenied, "{ended:?}");
    assert_eq!(reason(&ended), "BAD_TOKEN", "{ended:?}");
    let new_watch = watch
        .watch_match(watch_request(&match_id, &old))
        .await
        .expect_err("the old token watches nothing");
    assert!(
        same_refusal(&ended, &new_watch),
        "{ended:?} / {new_watch:?}"
    );
    let stale_submit = submit(&mut matches, &match_id, &old, 0, None)
        .await
        .expect_err("the old token plays nothing");
    assert!(
        same_refusal(&ended, &stale_submit),
        "{ended:?} / {stale_submit:?}"
    );

    // The other seat's watch goes on, and so does a watch with the new token.
    tokens[0] = reissued.token;
    let mut as_new_seat_0 = watch
        .watch_match(watch_request(&match_id, &tokens[0]))
        .await
        .expect("the new token watches")
        .into_inner();
    next_message(&mut as_new_seat_0, "the new token's snapshot").await;
    play_first_legal(&mut matches, &match_id, &tokens)
        .await
        .expect("the match goes on");
    for (stream, who) in [(&mut as_seat_1, "seat 1"), (&mut as_new_seat_0, "seat 0")] {
        let event = next_message(stream, who).await;
        assert!(
            matches!(event.kind, Some(pb::watch_event::Kind::Transition(_))),
            "{who} is told the move: {event:?}"
        );
    }
}
