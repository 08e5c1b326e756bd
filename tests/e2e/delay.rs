//! A spectator delay over the real API: spectators (views, past views,
//! watch streams, pages of events, listings) see a running match behind,
//! by versions or by time; seats see it live; once it is over, everyone
//! sees everything.

use std::time::{Duration, Instant};

use tabletop_proto::v1 as pb;
use tabletop_proto::v1::matches_client::MatchesClient;
use tabletop_tests::{Host, as_admin};
use tonic::transport::Channel;
use tonic::{Code, Streaming};

use crate::support::{play_first_legal, spectator, view_of, watch_as_spectator};

/// Creates a 2-seat Focus match (no chance: one version per move) whose
/// spectators see it `delay` behind; returns its id and seat tokens.
async fn create_delayed(
    matches: &mut MatchesClient<Channel>,
    delay: pb::SpectatorDelay,
) -> Result<(String, Vec<String>), tonic::Status> {
    let created = matches
        .create_match(pb::CreateMatchRequest {
            game: "focus".into(),
            players: 2,
            spectator_delay: Some(delay),
            ..Default::default()
        })
        .await?
        .into_inner();
    let mut tokens = vec![String::new(); 2];
    for seat in created.seats {
        tokens[seat.seat as usize] = seat.token;
    }
    Ok((created.match_id, tokens))
}

/// The seat to move plays its first legal action; returns the new version.
async fn play_one(matches: &mut MatchesClient<Channel>, match_id: &str, tokens: &[String]) -> u64 {
    play_first_legal(matches, match_id, tokens)
        .await
        .unwrap()
        .view
        .unwrap()
        .version
}

/// The next message of a stream within `wait`; `None` if none came.
async fn next_within(
    stream: &mut Streaming<pb::WatchEvent>,
    wait: Duration,
) -> Option<pb::WatchEvent> {
    match tokio::time::timeout(wait, stream.message()).await {
        Ok(message) => message.expect("stream"),
        Err(_) => None,
    }
}

#[tokio::test]
async fn a_move_delay_keeps_spectators_two_versions_behind_and_seats_live() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    let mut watch = host.watch().await;
    let delay = pb::SpectatorDelay { moves: 2, ms: 0 };
    let (match_id, tokens) = create_delayed(&mut matches, delay).await.unwrap();
    let mut stream = watch_as_spectator(&mut watch, &match_id).await;
    let snapshot = next_within(&mut stream, Duration::from_secs(5))
        .await
        .unwrap();
    let Some(pb::watch_event::Kind::Snapshot(first)) = snapshot.kind else {
        panic!("{snapshot:?}");
    };
    assert_eq!(first.version, 0);
    assert!(first.delayed);
    assert_eq!(first.spectator_delay, Some(delay));

    let mut version = 0;
    for _ in 0..6 {
        version = play_one(&mut matches, &match_id, &tokens).await;
    }
    assert_eq!(version, 6);
    let seat = view_of(&mut matches, &match_id, &tokens[1], None)
        .await
        .unwrap();
    assert_eq!((seat.version, seat.delayed), (6, false));
    let shown = spectator(&mut matches, &match_id).await;
    assert_eq!((shown.version, shown.delayed), (4, true));
    let past = view_of(&mut matches, &match_id, "", Some(4)).await.unwrap();
    assert_eq!(shown.view_json, past.view_json);
    let refused = view_of(&mut matches, &match_id, "", Some(5))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert!(!refused.message().contains('6'), "{}", refused.message());
    assert_eq!(
        view_of(&mut matches, &match_id, &tokens[0], Some(6))
            .await
            .unwrap()
            .version,
        6
    );
    // The admin token does not lift the delay on a public call.
    let as_director = matches
        .get_view(as_admin(pb::GetViewRequest {
            match_id: match_id.clone(),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!((as_director.version, as_director.delayed), (4, true));
    // A watch resumed past the delay is refused, by version or by event.
    for (from_version, after_seq) in [(Some(5), None), (None, Some(5))] {
        let refused = host
            .watch()
            .await
            .watch_match(pb::WatchMatchRequest {
                match_id: match_id.clone(),
                from_version,
                after_seq,
                ..Default::default()
            })
            .await
            .map(|_| ())
            .unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
    }
    // Resumed within it, it tells the events up to the delay.
    let mut resumed = host
        .watch()
        .await
        .watch_match(pb::WatchMatchRequest {
            match_id: match_id.clone(),
            from_version: Some(2),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let mut told = Vec::new();
    while let Some(event) = next_within(&mut resumed, Duration::from_millis(700)).await {
        told.push(event.version);
    }
    assert_eq!(told, [3, 4]);

    // The listing and a page of events show the spectators' version.
    let listed = matches
        .list_matches(pb::ListMatchesRequest::default())
        .await
        .unwrap()
        .into_inner();
    let summary = listed
        .matches
        .iter()
        .find(|m| m.match_id == match_id)
        .unwrap();
    assert_eq!(summary.version, 4);
    let page = host
        .watch()
        .await
        .list_events(pb::ListEventsRequest {
            match_id: match_id.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(page.last_seq, 4);
    let versions: Vec<u64> = page.events.iter().map(|e| e.version).collect();
    assert_eq!(versions, [1, 2, 3, 4]);

    // The stream told versions 1 to 4, and nothing of 5 or 6.
    let mut told = Vec::new();
    while let Some(event) = next_within(&mut stream, Duration::from_millis(700)).await {
        told.push(event.version);
    }
    assert_eq!(told, [1, 2, 3, 4]);
    // One more move shows version 5, without the client asking.
    play_one(&mut matches, &match_id, &tokens).await;
    let event = next_within(&mut stream, Duration::from_secs(3))
        .await
        .unwrap();
    assert_eq!(event.version, 5);
    assert!(
        next_within(&mut stream, Duration::from_millis(300))
            .await
            .is_none()
    );

    // Once the match is over, spectators see all of it.
    matches
        .resign(pb::ResignRequest {
            match_id: match_id.clone(),
            seat_token: tokens[0].clone(),
        })
        .await
        .unwrap();
    let over = spectator(&mut matches, &match_id).await;
    assert_eq!(over.state, pb::MatchState::Finished as i32);
    assert_eq!((over.version, over.delayed), (8, false));
    let mut rest = Vec::new();
    while let Some(event) = next_within(&mut stream, Duration::from_secs(3)).await {
        rest.push(event.version);
    }
    assert_eq!(rest, [6, 7, 8], "the rest, then the stream ends");
}

#[tokio::test]
async fn a_time_delay_shows_a_move_to_spectators_once_it_is_old_enough() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    let mut watch = host.watch().await;
    let delay = pb::SpectatorDelay { moves: 0, ms: 1500 };
    let (match_id, tokens) = create_delayed(&mut matches, delay).await.unwrap();
    let mut stream = watch_as_spectator(&mut watch, &match_id).await;
    let snapshot = next_within(&mut stream, Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(snapshot.version, 0);

    let before_move = Instant::now();
    assert_eq!(play_one(&mut matches, &match_id, &tokens).await, 1);
    tokio::time::sleep(Duration::from_millis(500).saturating_sub(before_move.elapsed())).await;
    let early = spectator(&mut matches, &match_id).await;
    assert_eq!((early.version, early.delayed), (0, true));
    let seat = view_of(&mut matches, &match_id, &tokens[0], None)
        .await
        .unwrap();
    assert_eq!(seat.version, 1);

    let event = next_within(&mut stream, Duration::from_secs(3))
        .await
        .expect("shown");
    let lag = before_move.elapsed();
    assert_eq!(event.version, 1);
    // The move was logged after `before_move`; a millisecond of slack for
    // the server's clock reading in whole milliseconds.
    assert!(lag >= Duration::from_millis(1499), "shown after {lag:?}");
    assert!(lag <= Duration::from_secs(3), "shown after {lag:?}");
    assert_eq!(spectator(&mut matches, &match_id).await.version, 1);
}

#[tokio::test]
async fn a_delay_out_of_range_is_refused() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    for (moves, ms) in [(1001, 0), (0, 3_600_001), (0, -1)] {
        let refused = create_delayed(&mut matches, pb::SpectatorDelay { moves, ms })
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument, "{moves} {ms}");
        assert!(
            refused.message().contains("spectator delay"),
            "{}",
            refused.message()
        );
    }
    assert!(
        create_delayed(
            &mut matches,
            pb::SpectatorDelay {
                moves: 1000,
                ms: 3_600_000
            }
        )
        .await
        .is_ok()
    );
}
