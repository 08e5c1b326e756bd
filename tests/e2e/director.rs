//! A tournament director's view of the host: the lifecycle feed followed
//! across a SIGKILL, and the controls (abort, adjudicate, pause, resume,
//! add time, the open-seat deadline), each logged, replayed and shown; and
//! the admin's lift of a quarantine.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rand::SeedableRng;
use tabletop_proto::v1 as pb;
use tabletop_proto::v1::director_client::DirectorClient;
use tabletop_proto::v1::lifecycle_event::Kind;
use tabletop_proto::v1::matches_client::MatchesClient;
use tabletop_tests::{ADMIN_TOKEN, Host, HostOptions};
use tokio_stream::StreamExt;
use tonic::transport::Channel;

use crate::support::{E2E_MAX_TURNS, play_to_end, reason, spectator};

const GAMES: [&str; 4] = ["focus", "lanza", "lanzeloth", "war"];

/// Creates a running two-seat match of `game` with `labels` (and a short
/// turn limit where the game has one); returns its id and tokens.
async fn create_labelled(
    matches: &mut MatchesClient<Channel>,
    game: &str,
    labels: &[(&str, &str)],
) -> (String, Vec<String>) {
    let labels: HashMap<String, String> = labels
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let options: HashMap<String, String> = if game == "war" {
        HashMap::new()
    } else {
        [("max_turns".to_string(), E2E_MAX_TURNS.to_string())].into()
    };
    let created = matches
        .create_match(pb::CreateMatchRequest {
            game: game.into(),
            players: 2,
            options,
            labels,
            ..Default::default()
        })
        .await
        .unwrap_or_else(|e| panic!("create {game}: {e}"))
        .into_inner();
    let mut tokens = vec![String::new(); 2];
    for seat in created.seats {
        tokens[seat.seat as usize] = seat.token;
    }
    (created.match_id, tokens)
}

/// Follows the feed from `after` with `labels` into `seen` until the stream
/// ends (the host is killed); returns how it ended.
async fn follow(
    channel: Channel,
    after: u64,
    labels: HashMap<String, String>,
    seen: Arc<Mutex<Vec<pb::LifecycleEvent>>>,
) -> Option<tonic::Status> {
    let mut director = DirectorClient::new(channel);
    let mut stream = match director
        .follow_lifecycle(pb::FollowLifecycleRequest {
            admin_token: ADMIN_TOKEN.into(),
            after_cursor: after,
            labels,
            ..Default::default()
        })
        .await
    {
        Ok(stream) => stream.into_inner(),
        Err(status) => return Some(status),
    };
    while let Some(event) = stream.next().await {
        match event {
            Ok(event) => seen.lock().expect("seen").push(event),
            Err(status) => return Some(status),
        }
    }
    None
}

/// Waits until `seen` holds events that end every match of `ids` (finished
/// or aborted).
async fn wait_until_ended(seen: &Arc<Mutex<Vec<pb::LifecycleEvent>>>, ids: &[String]) {
    for _ in 0..600 {
        let ended = {
            let seen = seen.lock().expect("seen");
            ids.iter().all(|id| {
                seen.iter().any(|e| {
                    &e.match_id == id
                        && matches!(e.kind, Some(Kind::Finished(_) | Kind::Aborted(_)))
                })
            })
        };
        if ended {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let seen = seen.lock().expect("seen");
    panic!(
        "the feed did not report the end of every match of {ids:?}: {} events, the last {:?}",
        seen.len(),
        seen.last()
    );
}

async fn director(host: &Host) -> DirectorClient<Channel> {
    DirectorClient::new(host.channel().await)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_feed_follower_sees_every_event_once_across_a_sigkill_with_the_right_results() {
    feed_across_a_sigkill(Vec::new()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_a_feed_follower_sees_every_event_once_across_a_sigkill() {
    let database = tokio::task::spawn_blocking(tabletop_test_postgres::database)
        .await
        .expect("a test database");
    feed_across_a_sigkill(vec!["--store".into(), database.url.clone()]).await;
}

/// A follower of the lifecycle feed, from its start, across a SIGKILL of
/// a host run with `args`: every event once, with the right results.
async fn feed_across_a_sigkill(args: Vec<String>) {
    let data = tempfile::tempdir().expect("temp dir");
    let options = HostOptions {
        data_dir: Some(data.path().join("data")),
        args,
        ..HostOptions::default()
    };
    let tournament = [("tournament", "autumn")];
    let filter: HashMap<String, String> = [("tournament".to_string(), "autumn".to_string())].into();
    let mut host = Host::start_with(options.clone()).await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let follower = tokio::spawn(follow(
        host.channel().await,
        0,
        filter.clone(),
        Arc::clone(&seen),
    ));
    let mut matches = host.matches().await;
    let mut director_client = director(&host).await;
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let mut ended = Vec::new();
    // Every game: one played to its end, one resigned, one aborted, one
    // adjudicated; and a match of another tournament the filter leaves out.
    for game in GAMES {
        let (played, tokens) = create_labelled(&mut matches, game, &tournament).await;
        play_to_end(&mut matches, &played, &tokens, &mut rng, 5_000).await;
        let (resigned, tokens) = create_labelled(&mut matches, game, &tournament).await;
        matches
            .resign(pb::ResignRequest {
                match_id: resigned.clone(),
                seat_token: tokens[1].clone(),
            })
            .await
            .expect("resign");
        let (aborted, _) = create_labelled(&mut matches, game, &tournament).await;
        director_client
            .abort_match(pb::AbortMatchRequest {
                admin_token: ADMIN_TOKEN.into(),
                match_id: aborted.clone(),
                reason: "a table collapsed".into(),
            })
            .await
            .expect("abort");
        let (adjudicated, _) = create_labelled(&mut matches, game, &tournament).await;
        director_client
            .adjudicate_match(pb::AdjudicateMatchRequest {
                admin_token: ADMIN_TOKEN.into(),
                match_id: adjudicated.clone(),
                results: vec![
                    pb::PlayerResult {
                        seat: 0,
                        rank: 2,
                        ..Default::default()
                    },
                    pb::PlayerResult {
                        seat: 1,
                        rank: 1,
                        score: 1.0,
                        ..Default::default()
                    },
                ],
            })
            .await
            .expect("adjudicate");
        create_labelled(&mut matches, game, &[("tournament", "other")]).await;
        ended.extend([played, resigned, aborted, adjudicated]);
    }
    // Matches still running when the host dies.
    let mut running = Vec::new();
    for game in GAMES {
        running.push(create_labelled(&mut matches, game, &tournament).await);
    }
    wait_until_ended(&seen, &ended).await;
    host.kill();
    let ended_by = follower.await.expect("follower task");
    assert!(
        ended_by.is_some(),
        "the stream ends with an error when the host dies"
    );
    let last = seen.lock().expect("seen").last().expect("events").cursor;

    let host = Host::start_with(options).await;
    let follower = tokio::spawn(follow(
        host.channel().await,
        last,
        filter.clone(),
        Arc::clone(&seen),
    ));
    let mut matches = host.matches().await;
    for (id, tokens) in &running {
        matches
            .resign(pb::ResignRequest {
                match_id: id.clone(),
                seat_token: tokens[0].clone(),
            })
            .await
            .expect("resign after the restart");
    }
    let running_ids: Vec<String> = running.iter().map(|(id, _)| id.clone()).collect();
    wait_until_ended(&seen, &running_ids).await;
    follower.abort();

    // What the follower saw is exactly what a new follower reads back from
    // the store: every event once, in order, nothing of other tournaments.
    let all = Arc::new(Mutex::new(Vec::new()));
    let reader = tokio::spawn(follow(host.channel().await, 0, filter, Arc::clone(&all)));
    let expected_count = {
        let mut count = 0;
        for _ in 0..200 {
            count = all.lock().expect("all").len();
            if count >= seen.lock().expect("seen").len() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        count
    };
    reader.abort();
    let seen = seen.lock().expect("seen").clone();
    let all = all.lock().expect("all").clone();
    assert_eq!(expected_count, seen.len());
    assert_eq!(
        seen, all,
        "the follower saw every stored event once, in order"
    );
    assert!(seen.windows(2).all(|w| w[0].cursor < w[1].cursor));
    assert!(seen.iter().all(|e| e.labels["tournament"] == "autumn"));

    // Per match: created once, ended once, with the results its view shows.
    let mut by_match: BTreeMap<&str, Vec<&pb::LifecycleEvent>> = BTreeMap::new();
    for event in &seen {
        by_match.entry(&event.match_id).or_default().push(event);
    }
    assert_eq!(by_match.len(), GAMES.len() * 5);
    for (id, events) in &by_match {
        let created = events
            .iter()
            .filter(|e| matches!(e.kind, Some(Kind::Created(_))))
            .count();
        assert_eq!(created, 1, "{id} created once");
        let ends: Vec<&Kind> = events
            .iter()
            .filter_map(|e| e.kind.as_ref())
            .filter(|k| matches!(k, Kind::Finished(_) | Kind::Aborted(_)))
            .collect();
        assert_eq!(ends.len(), 1, "{id} ended once: {events:?}");
        let view = spectator(&mut matches, id).await;
        match ends[0] {
            Kind::Finished(finished) => {
                assert_eq!(finished.results, view.results, "{id}: the feed's results");
                assert_eq!(finished.adjudicated, view.adjudicated);
            }
            Kind::Aborted(aborted) => {
                assert_eq!(aborted.reason, view.abort_reason);
                assert!(view.results.is_empty(), "an aborted match has no result");
            }
            _ => unreachable!(),
        }
    }
}

/// A running Focus match with a 60 s bank per seat.
async fn clocked_focus(matches: &mut MatchesClient<Channel>) -> (String, Vec<String>) {
    let created = matches
        .create_match(pb::CreateMatchRequest {
            game: "focus".into(),
            players: 2,
            time_control: Some(pb::TimeControl {
                bank_ms: 60_000,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .expect("create")
        .into_inner();
    let tokens = created.seats.into_iter().map(|s| s.token).collect();
    (created.match_id, tokens)
}

fn clock(view: &pb::MatchView, seat: usize) -> i64 {
    view.seats[seat].clock_remaining_ms.expect("a clock")
}

#[tokio::test]
async fn pause_stops_the_clocks_and_actions_and_survives_a_restart_until_resumed() {
    let data = tempfile::tempdir().expect("temp dir");
    let options = HostOptions {
        data_dir: Some(data.path().join("data")),
        ..HostOptions::default()
    };
    let mut host = Host::start_with(options.clone()).await;
    let mut matches = host.matches().await;
    let mut director_client = director(&host).await;
    let (id, tokens) = clocked_focus(&mut matches).await;
    let pause = pb::PauseMatchRequest {
        admin_token: ADMIN_TOKEN.into(),
        match_id: id.clone(),
    };
    let paused = director_client
        .pause_match(pause.clone())
        .await
        .expect("pause")
        .into_inner();
    assert!(paused.paused);
    let again = director_client
        .pause_match(pause)
        .await
        .expect_err("a second pause");
    assert_eq!(reason(&again), "CONTROL_REFUSED");
    let legal = crate::support::legal(&mut matches, &id, &tokens[0])
        .await
        .expect("legal actions while paused");
    let refused = crate::support::submit(&mut matches, &id, &tokens[0], legal.actions[0].id, None)
        .await
        .expect_err("an action while paused");
    assert_eq!(reason(&refused), "MATCH_PAUSED");
    tokio::time::sleep(Duration::from_millis(400)).await;
    let view = spectator(&mut matches, &id).await;
    assert_eq!(
        clock(&view, 0),
        clock(&paused, 0),
        "a paused clock stands still"
    );

    // The pause is in the log: a restart brings the match back paused.
    host.kill();
    let host = Host::start_with(options).await;
    let mut matches = host.matches().await;
    let mut director_client = director(&host).await;
    let view = spectator(&mut matches, &id).await;
    assert!(view.paused, "still paused after the restart");
    let resumed = director_client
        .resume_match(pb::ResumeMatchRequest {
            admin_token: ADMIN_TOKEN.into(),
            match_id: id.clone(),
        })
        .await
        .expect("resume")
        .into_inner();
    assert!(!resumed.paused);
    let added = director_client
        .add_time(pb::AddTimeRequest {
            admin_token: ADMIN_TOKEN.into(),
            match_id: id.clone(),
            seat: 1,
            added_ms: 30_000,
        })
        .await
        .expect("add time")
        .into_inner();
    assert!(clock(&added, 1) >= 89_000, "{}", clock(&added, 1));
    let legal = crate::support::legal(&mut matches, &id, &tokens[0])
        .await
        .expect("legal actions");
    crate::support::submit(&mut matches, &id, &tokens[0], legal.actions[0].id, None)
        .await
        .expect("an action once resumed");

    // Each control is an event of the match's history, for every viewer.
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
    let types: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.kind {
            Some(pb::watch_event::Kind::Transition(t)) => {
                let json: serde_json::Value = serde_json::from_str(&t.event_json).ok()?;
                Some(json["type"].as_str()?.to_string())
            }
            _ => None,
        })
        .collect();
    for control in ["paused", "resumed", "time_added"] {
        assert!(types.iter().any(|t| t == control), "{control} in {types:?}");
    }
}

#[tokio::test]
async fn abort_and_adjudication_end_a_match_in_its_view_record_and_import() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    let mut director_client = director(&host).await;
    let (id, _) = create_labelled(&mut matches, "lanza", &[]).await;
    let bad = [
        vec![(0, 1)],
        vec![(0, 1), (0, 2)],
        vec![(0, 0), (1, 1)],
        vec![(0, 1), (1, 3)],
    ];
    for ranks in bad {
        let refused = director_client
            .adjudicate_match(pb::AdjudicateMatchRequest {
                admin_token: ADMIN_TOKEN.into(),
                match_id: id.clone(),
                results: ranks
                    .iter()
                    .map(|&(seat, rank)| pb::PlayerResult {
                        seat,
                        rank,
                        ..Default::default()
                    })
                    .collect(),
            })
            .await
            .expect_err("malformed results");
        assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{ranks:?}");
    }
    let wrong_token = director_client
        .abort_match(pb::AbortMatchRequest {
            admin_token: "not the admin".into(),
            match_id: id.clone(),
            reason: String::new(),
        })
        .await
        .expect_err("a wrong admin token");
    assert_eq!(wrong_token.code(), tonic::Code::PermissionDenied);
    assert_eq!(
        spectator(&mut matches, &id).await.state,
        pb::MatchState::Running as i32,
        "refused controls change nothing"
    );

    let adjudicated = director_client
        .adjudicate_match(pb::AdjudicateMatchRequest {
            admin_token: ADMIN_TOKEN.into(),
            match_id: id.clone(),
            results: vec![
                pb::PlayerResult {
                    seat: 0,
                    rank: 1,
                    ..Default::default()
                },
                pb::PlayerResult {
                    seat: 1,
                    rank: 1,
                    ..Default::default()
                },
            ],
        })
        .await
        .expect("a shared first place")
        .into_inner();
    assert_eq!(adjudicated.state, pb::MatchState::Finished as i32);
    assert!(adjudicated.adjudicated);
    assert_eq!(adjudicated.results.len(), 2);

    let (aborted, _) = create_labelled(&mut matches, "war", &[]).await;
    let view = director_client
        .abort_match(pb::AbortMatchRequest {
            admin_token: ADMIN_TOKEN.into(),
            match_id: aborted.clone(),
            reason: "power cut in hall B".into(),
        })
        .await
        .expect("abort")
        .into_inner();
    assert_eq!(view.state, pb::MatchState::Finished as i32);
    assert_eq!(view.abort_reason, "power cut in hall B");
    assert!(view.results.is_empty());
    let again = director_client
        .abort_match(pb::AbortMatchRequest {
            admin_token: ADMIN_TOKEN.into(),
            match_id: aborted.clone(),
            reason: String::new(),
        })
        .await
        .expect_err("an aborted match is over");
    assert_eq!(reason(&again), "MATCH_OVER");

    // Both records carry the control, and import replays it.
    for (match_id, entry) in [(&id, "adjudicate"), (&aborted, "abort")] {
        let record = matches
            .export_record(pb::ExportRecordRequest {
                match_id: match_id.clone(),
                admin_token: String::new(),
            })
            .await
            .expect("export a finished match")
            .into_inner()
            .record_json;
        let parsed: serde_json::Value = serde_json::from_str(&record).expect("record JSON");
        let last = parsed["actions"]
            .as_array()
            .and_then(|a| a.last())
            .expect("an action");
        assert_eq!(last["type"], entry);
        let imported = matches
            .import_record(pb::ImportRecordRequest {
                record_json: record,
                admin_token: ADMIN_TOKEN.into(),
            })
            .await
            .expect("import")
            .into_inner();
        let view = spectator(&mut matches, &imported.match_id).await;
        let original = spectator(&mut matches, match_id).await;
        assert_eq!(view.results, original.results);
        assert_eq!(view.abort_reason, original.abort_reason);
        assert_eq!(view.adjudicated, original.adjudicated);
    }
}

#[tokio::test]
async fn the_open_seat_deadline_aborts_or_starts_without_the_absent_seats() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    let deadline = |on_deadline: pb::OnDeadline| pb::OpenSeatDeadline {
        within_ms: 1_000,
        on_deadline: on_deadline as i32,
    };
    let create =
        |game: &str, players: u32, open: Vec<u32>, on: pb::OnDeadline| pb::CreateMatchRequest {
            game: game.into(),
            players,
            open_seats: open,
            open_seat_deadline: Some(deadline(on)),
            ..Default::default()
        };
    let aborted = matches
        .create_match(create("war", 2, vec![1], pb::OnDeadline::Abort))
        .await
        .expect("create")
        .into_inner();
    let forfeit = matches
        .create_match(create("lanza", 2, vec![0], pb::OnDeadline::StartWithout))
        .await
        .expect("create")
        .into_inner();
    let without = matches
        .create_match(create("focus", 3, vec![2], pb::OnDeadline::StartWithout))
        .await
        .expect("create")
        .into_inner();
    let joined = matches
        .create_match(create("lanza", 2, vec![1], pb::OnDeadline::Abort))
        .await
        .expect("create")
        .into_inner();
    let waiting = spectator(&mut matches, &aborted.match_id).await;
    assert!(waiting.open_seat_deadline_ms.is_some());
    matches
        .join_match(pb::JoinMatchRequest {
            match_id: joined.match_id.clone(),
            seat: Some(1),
            join_code: joined.join_codes[0].code.clone(),
            ..Default::default()
        })
        .await
        .expect("join in time");
    let refused = matches
        .create_match(pb::CreateMatchRequest {
            open_seats: vec![],
            ..create("war", 2, vec![], pb::OnDeadline::Abort)
        })
        .await
        .expect_err("a deadline without open seats");
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);

    tokio::time::sleep(Duration::from_millis(1_600)).await;
    let view = spectator(&mut matches, &aborted.match_id).await;
    assert_eq!(view.state, pb::MatchState::Finished as i32);
    assert!(
        view.abort_reason.contains("deadline"),
        "{}",
        view.abort_reason
    );
    let view = spectator(&mut matches, &forfeit.match_id).await;
    assert_eq!(view.state, pb::MatchState::Finished as i32);
    let ranks: Vec<(u32, u32)> = view.results.iter().map(|r| (r.seat, r.rank)).collect();
    assert_eq!(ranks, [(0, 2), (1, 1)], "the seat that came wins");
    let view = spectator(&mut matches, &without.match_id).await;
    assert_eq!(view.state, pb::MatchState::Running as i32);
    assert!(view.seats[2].out, "the absent seat is out");
    assert!(!view.to_move.contains(&2));
    let view = spectator(&mut matches, &joined.match_id).await;
    assert_eq!(view.state, pb::MatchState::Running as i32, "filled in time");
}

/// Three Focus players; player 2 (seat 1) owns no tower and holds no
/// reserve, so the rules put them out when the turn reaches them (F7).
const FOCUS_PLAYER_2_ABOUT_TO_GO_OUT: &str = ".,.,.,./.,.,.,.,.,./.,.,11111,2211,.,.,.,./\
.,.,.,.,.,3333,.,./.,2223,.,.,3121,.,33,./.,.,.,.,.,.,.,./.,.,.,.,.,./.,.,.,. 1 \
reserves=0,0,0 captures=0,4,1/2,0,4/2,3,0 removed=8,6,9";

#[tokio::test]
async fn the_feed_says_when_the_rules_put_a_seat_out_while_the_others_play_on() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    let created = matches
        .create_match(pb::CreateMatchRequest {
            game: "focus".into(),
            players: 3,
            start_position: Some(FOCUS_PLAYER_2_ABOUT_TO_GO_OUT.into()),
            labels: [("table".to_string(), "f7".to_string())].into(),
            ..Default::default()
        })
        .await
        .expect("Focus hides nothing: anyone may give its position")
        .into_inner();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let following = tokio::spawn(follow(
        host.channel().await,
        0,
        [("table".to_string(), "f7".to_string())].into(),
        Arc::clone(&seen),
    ));
    matches
        .submit_action(pb::SubmitActionRequest {
            match_id: created.match_id.clone(),
            seat_token: created.seats[0].token.clone(),
            action: Some(pb::submit_action_request::Action::Notation("c6-c7".into())),
            ..Default::default()
        })
        .await
        .expect("the move that leaves player 2 without a move");
    let view = spectator(&mut matches, &created.match_id).await;
    assert_eq!(view.state, pb::MatchState::Running as i32, "two play on");
    assert_eq!(view.seats[1].out_reason, pb::SeatOutReason::Rule as i32);
    let mut outs = Vec::new();
    for _ in 0..200 {
        outs = seen
            .lock()
            .expect("seen")
            .iter()
            .filter_map(|e| match &e.kind {
                Some(Kind::SeatOut(out)) => Some((out.seat, out.reason)),
                _ => None,
            })
            .collect();
        if !outs.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    following.abort();
    assert_eq!(outs, vec![(1, pb::OutReason::Rule as i32)]);
}

/// No call quarantines a match (the host does when a plugin's worker dies
/// in one of its calls: `tabletop-core`'s tests play that through), so what
/// the API shows end to end is the lift: the admin's alone, and refused for
/// a match that is not quarantined, which lists and shows as it was.
#[tokio::test]
async fn lifting_a_quarantine_is_the_admins_alone_and_refused_for_a_match_not_quarantined() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    let mut admin = host.admin().await;
    let (id, _) = create_labelled(&mut matches, "focus", &[("cup", "quarantine")]).await;
    let lift = |match_id: &str| pb::LiftQuarantineRequest {
        admin_token: String::new(),
        match_id: match_id.to_string(),
        plugin_version: String::new(),
    };

    let refused = admin
        .lift_quarantine(tabletop_tests::as_admin(lift(&id)))
        .await
        .expect_err("the match is not quarantined");
    assert_eq!(refused.code(), tonic::Code::FailedPrecondition);
    assert_eq!(reason(&refused), "CONTROL_REFUSED");
    assert!(refused.message().contains("not quarantined"), "{refused:?}");
    let unknown = admin
        .lift_quarantine(tabletop_tests::as_admin(lift("no-such-match")))
        .await
        .expect_err("no such match");
    assert_eq!(reason(&unknown), "UNKNOWN_MATCH");

    let (_, organizer) = crate::support::issue_organizer(&host, "quarantine cup").await;
    let by_organizer = admin
        .lift_quarantine(tabletop_tests::with_credential(&organizer, lift(&id)))
        .await
        .expect_err("an organizer does not lift a quarantine");
    assert_eq!(by_organizer.code(), tonic::Code::PermissionDenied);
    assert_eq!(reason(&by_organizer), "NOT_PERMITTED");
    let anonymous = admin
        .lift_quarantine(tonic::Request::new(lift(&id)))
        .await
        .expect_err("an anonymous caller does not lift a quarantine");
    assert_eq!(anonymous.code(), tonic::Code::Unauthenticated);
    assert_eq!(reason(&anonymous), "TOKEN_REQUIRED");

    let view = spectator(&mut matches, &id).await;
    assert_eq!(view.state, pb::MatchState::Running as i32);
    assert_eq!(view.quarantine_reason, "");
    let listed = |state: pb::MatchState| pb::ListMatchesRequest {
        state: state as i32,
        labels: [("cup".to_string(), "quarantine".to_string())].into(),
        ..Default::default()
    };
    let quarantined = matches
        .list_matches(listed(pb::MatchState::Quarantined))
        .await
        .expect("list the quarantined")
        .into_inner();
    assert!(quarantined.matches.is_empty(), "{quarantined:?}");
    let running = matches
        .list_matches(listed(pb::MatchState::Running))
        .await
        .expect("list the running")
        .into_inner();
    assert_eq!(running.matches.len(), 1);
    assert_eq!(running.matches[0].match_id, id);
}
