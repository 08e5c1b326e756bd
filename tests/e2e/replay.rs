//! A match's history is complete for every viewer at any time: a late
//! watcher (`from_version = 0`) and a page-by-page reader (`ListEvents`)
//! get, byte for byte, the events a live watcher got, also after SIGKILL
//! and a restart; a finished match the host let go of answers every read
//! as before; the in-memory store drops the oldest finished matches and
//! says so.

use std::time::Duration;

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use tabletop_proto::v1 as pb;
use tabletop_tests::{ADMIN_TOKEN, Host, HostOptions};
use tokio::task::JoinHandle;
use tokio_stream::StreamExt;
use tonic::Code;

use crate::support::{legal, spectator, submit};

/// Starts watching live as `token`'s holder; the handle yields every
/// message after the snapshot, until the stream ends.
async fn watch_live(host: &Host, match_id: &str, token: &str) -> JoinHandle<Vec<pb::WatchEvent>> {
    let mut stream = host
        .watch()
        .await
        .watch_match(pb::WatchMatchRequest {
            match_id: match_id.to_string(),
            seat_token: token.to_string(),
            ..Default::default()
        })
        .await
        .expect("watch")
        .into_inner();
    let first = stream.next().await.expect("a first message").expect("ok");
    assert!(matches!(
        first.kind,
        Some(pb::watch_event::Kind::Snapshot(_))
    ));
    assert_eq!(first.seq, 0, "a snapshot is not an event");
    tokio::spawn(async move {
        let mut events = Vec::new();
        while let Some(Ok(event)) = stream.next().await {
            events.push(event);
        }
        events
    })
}

/// Every past event as `token`'s holder was told it, page by page.
async fn list_all(host: &Host, match_id: &str, token: &str) -> Vec<pb::WatchEvent> {
    let mut watch = host.watch().await;
    let mut events: Vec<pb::WatchEvent> = Vec::new();
    loop {
        let page = watch
            .list_events(pb::ListEventsRequest {
                match_id: match_id.to_string(),
                seat_token: token.to_string(),
                after_seq: events.last().map_or(0, |e| e.seq),
                page_size: 7,
                include_views: true,
                ..Default::default()
            })
            .await
            .expect("list events")
            .into_inner();
        assert!(page.events.len() <= 7, "a page holds at most its size");
        let done =
            page.events.is_empty() || page.events.last().map(|e| e.seq) == Some(page.last_seq);
        events.extend(page.events);
        if done {
            return events;
        }
    }
}

/// Every event from the first, watched after the fact: the stream replays
/// them and ends, since the match is over.
async fn watch_from_zero(host: &Host, match_id: &str, token: &str) -> Vec<pb::WatchEvent> {
    let stream = host
        .watch()
        .await
        .watch_match(pb::WatchMatchRequest {
            match_id: match_id.to_string(),
            seat_token: token.to_string(),
            from_version: Some(0),
            ..Default::default()
        })
        .await
        .expect("watch from 0")
        .into_inner();
    tokio::time::timeout(
        Duration::from_secs(30),
        stream.map(|e| e.expect("event")).collect(),
    )
    .await
    .expect("a finished match's replay ends")
}

/// Checks that `live` (what a watcher got from when it subscribed) is the
/// tail of `replayed` (the whole history), message for message.
fn assert_live_is_replayed(viewer: &str, live: &[pb::WatchEvent], replayed: &[pb::WatchEvent]) {
    assert!(!live.is_empty(), "{viewer}: the live watcher saw events");
    let seqs: Vec<u64> = replayed.iter().map(|e| e.seq).collect();
    let expected: Vec<u64> = (1..=replayed.len() as u64).collect();
    assert_eq!(seqs, expected, "{viewer}: numbered 1, 2, … with no gap");
    let from = live[0].seq as usize - 1;
    assert_eq!(
        live.len(),
        replayed.len() - from,
        "{viewer}: the live watcher saw every event after it subscribed"
    );
    for (live, replayed) in live.iter().zip(&replayed[from..]) {
        assert_eq!(live, replayed, "{viewer}: event {}", live.seq);
    }
}

fn kinds(events: &[pb::WatchEvent]) -> Vec<String> {
    events
        .iter()
        .map(|e| match &e.kind {
            Some(pb::watch_event::Kind::Transition(t)) => {
                let json: serde_json::Value =
                    serde_json::from_str(&t.event_json).unwrap_or_default();
                json["type"].as_str().unwrap_or("?").to_string()
            }
            Some(pb::watch_event::Kind::SeatActed(_)) => "seat_acted".into(),
            Some(pb::watch_event::Kind::Snapshot(_)) => "snapshot".into(),
            None => "none".into(),
        })
        .collect()
}

#[tokio::test]
async fn a_late_replay_equals_the_live_stream_for_every_viewer_also_after_sigkill() {
    let root = tempfile::tempdir().expect("temp dir");
    let options = HostOptions {
        plugin_dir: Some(Host::fresh_plugin_dir(root.path())),
        data_dir: Some(root.path().join("data")),
        ..Default::default()
    };
    let mut host = Host::start_with(options.clone()).await;
    let mut matches = host.matches().await;

    // Lanza for three (simultaneous orders, ruling L5) with seat 2 taken
    // after creation and a bank clock that takes a seat out: seat 2 never
    // orders and runs out mid-turn; seat 1 resigns at the end, which takes
    // it out too and leaves seat 0 to win as Lanza says.
    let created = matches
        .create_match(tabletop_tests::as_admin(pb::CreateMatchRequest {
            game: "lanza".into(),
            players: 3,
            seed: Some(21),
            open_seats: vec![2],
            time_control: Some(pb::TimeControl {
                per_move_ms: 0,
                bank_ms: 1_500,
                increment_ms: 60_000,
                on_timeout: pb::OnTimeout::Out as i32,
            }),
            ..Default::default()
        }))
        .await
        .expect("create")
        .into_inner();
    let lanza = created.match_id.clone();
    let join_code = created.join_codes[0].code.clone();
    let mut tokens = vec![String::new(); 3];
    for seat in created.seats {
        tokens[seat.seat as usize] = seat.token;
    }
    let mut live = Vec::new();
    for token in [tokens[0].clone(), tokens[1].clone(), String::new()] {
        live.push((token.clone(), watch_live(&host, &lanza, &token).await));
    }
    tokens[2] = matches
        .join_match(pb::JoinMatchRequest {
            match_id: lanza.clone(),
            seat: Some(2),
            join_code,
            ..Default::default()
        })
        .await
        .expect("join")
        .into_inner()
        .token;
    live.push((
        tokens[2].clone(),
        watch_live(&host, &lanza, &tokens[2]).await,
    ));
    let mut rng = StdRng::seed_from_u64(3);
    for turn in 0..6 {
        let view = spectator(&mut matches, &lanza).await;
        if view.state != pb::MatchState::Running as i32 {
            break;
        }
        for &seat in &view.to_move {
            if turn == 0 && seat == 2 {
                continue;
            }
            let token = &tokens[seat as usize];
            let list = legal(&mut matches, &lanza, token).await.expect("legal");
            let action = list.actions.choose(&mut rng).expect("an order").id;
            submit(&mut matches, &lanza, token, action, None)
                .await
                .expect("order");
        }
        if turn == 0 {
            // Seat 2's bank runs out; the turn of seats 0 and 1 completes.
            let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
            while spectator(&mut matches, &lanza).await.version < 2 {
                assert!(tokio::time::Instant::now() < deadline, "seat 2 ran out");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
    if spectator(&mut matches, &lanza).await.state == pb::MatchState::Running as i32 {
        matches
            .resign(pb::ResignRequest {
                match_id: lanza.clone(),
                seat_token: tokens[1].clone(),
            })
            .await
            .expect("resign");
    }

    // War: South's whole layout in one request (a shorthand, ruling W3).
    let war = crate::support::create(&mut matches, "war", 2, 4).await;
    let war_live = watch_live(&host, &war.0, "").await;
    matches
        .submit_action(pb::SubmitActionRequest {
            match_id: war.0.clone(),
            seat_token: war.1[0].clone(),
            action: Some(pb::submit_action_request::Action::Notation(
                "III/CIIIIIC/IIIIIII/CACCAIC".into(),
            )),
            ..Default::default()
        })
        .await
        .expect("layout");
    matches
        .resign(pb::ResignRequest {
            match_id: war.0.clone(),
            seat_token: war.1[1].clone(),
        })
        .await
        .expect("resign");

    // Focus with a per-move clock that loses: the first mover never moves.
    let focus = matches
        .create_match(tabletop_tests::as_admin(pb::CreateMatchRequest {
            game: "focus".into(),
            players: 2,
            seed: Some(5),
            time_control: Some(pb::TimeControl {
                per_move_ms: 300,
                bank_ms: 0,
                increment_ms: 0,
                on_timeout: pb::OnTimeout::Lose as i32,
            }),
            ..Default::default()
        }))
        .await
        .expect("create focus")
        .into_inner();
    let focus_live = watch_live(&host, &focus.match_id, "").await;
    let focus_live = tokio::time::timeout(Duration::from_secs(20), focus_live)
        .await
        .expect("the clock ends the match")
        .expect("focus watcher");
    let focus_listed = list_all(&host, &focus.match_id, "").await;
    assert_live_is_replayed("focus", &focus_live, &focus_listed);
    assert_eq!(kinds(&focus_listed), ["timeout"]);

    let mut replays = Vec::new();
    for (token, watcher) in live {
        let label = format!("lanza as {token:.8}");
        let live = tokio::time::timeout(Duration::from_secs(20), watcher)
            .await
            .expect("the live stream ends with the match")
            .expect("watcher");
        let listed = list_all(&host, &lanza, &token).await;
        assert_live_is_replayed(&label, &live, &listed);
        assert_eq!(
            watch_from_zero(&host, &lanza, &token).await,
            listed,
            "{label}"
        );
        replays.push((token, listed));
    }
    // Without views: the same events, each transition's view left out.
    let bare: Vec<pb::WatchEvent> = host
        .watch()
        .await
        .watch_match(pb::WatchMatchRequest {
            match_id: lanza.clone(),
            seat_token: replays[0].0.clone(),
            from_version: Some(0),
            omit_views: true,
            ..Default::default()
        })
        .await
        .expect("watch without views")
        .into_inner()
        .map(|e| e.expect("event"))
        .collect()
        .await;
    let stripped: Vec<pb::WatchEvent> = replays[0]
        .1
        .iter()
        .cloned()
        .map(|mut e| {
            if let Some(pb::watch_event::Kind::Transition(t)) = &mut e.kind {
                t.view = None;
            }
            e
        })
        .collect();
    assert_eq!(bare, stripped);

    let every_kind = kinds(&replays[0].1);
    for kind in [
        "setup",
        "joined",
        "seat_acted",
        "out",
        "turn",
        "resigned_out",
    ] {
        assert!(
            every_kind.iter().any(|k| k == kind),
            "the history has a `{kind}` event: {every_kind:?}"
        );
    }
    let war_live = war_live.await.expect("war watcher");
    let war_listed = list_all(&host, &war.0, "").await;
    assert_live_is_replayed("war", &war_live, &war_listed);
    assert!(
        war_listed.len() > 24,
        "one event per placement of the layout"
    );

    // SIGKILL and a restart: the same history, byte for byte, from the store.
    host.kill();
    let host = Host::start_with(options).await;
    for (token, before) in &replays {
        assert_eq!(&list_all(&host, &lanza, token).await, before);
        assert_eq!(&watch_from_zero(&host, &lanza, token).await, before);
    }
    assert_eq!(list_all(&host, &war.0, "").await, war_listed);
    assert_eq!(list_all(&host, &focus.match_id, "").await, focus_listed);
}

/// Whether the host holds `match_id` in memory: the admin's plugin
/// listing names the matches in memory.
async fn in_memory(host: &Host, match_id: &str) -> bool {
    host.admin()
        .await
        .list_plugins(pb::ListPluginsRequest {
            admin_token: ADMIN_TOKEN.into(),
        })
        .await
        .expect("list plugins")
        .into_inner()
        .plugins
        .iter()
        .any(|p| p.match_ids.iter().any(|id| id == match_id))
}

async fn until_unloaded(host: &Host, match_id: &str) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while in_memory(host, match_id).await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the finished match leaves memory"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn an_unloaded_finished_match_answers_every_read_as_before() {
    let host = Host::start_with(HostOptions {
        args: vec!["--finished-retention".into(), "0".into()],
        ..Default::default()
    })
    .await;
    let mut matches = host.matches().await;
    let (id, tokens) = crate::support::create(&mut matches, "lanzeloth", 3, 8).await;
    let mut rng = StdRng::seed_from_u64(9);
    crate::support::play_to_end(&mut matches, &id, &tokens, &mut rng, 2_000).await;

    // Everything a client can read, for every viewer, while it is in memory
    // (a finished match stays there while it is watched; it is not, here).
    let viewers: Vec<String> = tokens.iter().cloned().chain([String::new()]).collect();
    let reads = |host: &Host| {
        let (host_url, id, viewers) = (host.url.clone(), id.clone(), viewers.clone());
        async move {
            let channel = tonic::transport::Channel::from_shared(host_url)
                .expect("url")
                .connect()
                .await
                .expect("connect");
            let mut matches = pb::matches_client::MatchesClient::new(channel.clone());
            let mut out = Vec::new();
            for token in &viewers {
                for at_version in [None, Some(0), Some(5)] {
                    let view = matches
                        .get_view(pb::GetViewRequest {
                            match_id: id.clone(),
                            seat_token: token.clone(),
                            at_version,
                            svg: false,
                        })
                        .await
                        .expect("view")
                        .into_inner();
                    out.push(format!("{view:?}"));
                }
            }
            let record = matches
                .export_record(pb::ExportRecordRequest {
                    match_id: id.clone(),
                    admin_token: String::new(),
                })
                .await
                .expect("a finished match's record is public")
                .into_inner();
            out.push(record.record_json);
            let listed = matches
                .list_matches(pb::ListMatchesRequest::default())
                .await
                .expect("list")
                .into_inner();
            out.push(format!(
                "{:?}",
                listed.matches.iter().find(|m| m.match_id == id)
            ));
            out
        }
    };
    let before = reads(&host).await;
    let events_before = list_all(&host, &id, &tokens[1]).await;

    until_unloaded(&host, &id).await;
    assert_eq!(list_all(&host, &id, &tokens[1]).await, events_before);
    until_unloaded(&host, &id).await;
    assert_eq!(reads(&host).await, before);
    until_unloaded(&host, &id).await;
    assert_eq!(watch_from_zero(&host, &id, &tokens[1]).await, events_before);
    // A move on it is refused as on any finished match.
    let refused = submit(&mut matches, &id, &tokens[0], 0, None)
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::FailedPrecondition, "{refused:?}");
}

#[tokio::test]
async fn the_memory_store_drops_the_oldest_finished_matches_and_says_they_expired() {
    let host = Host::start_with(HostOptions {
        args: [
            "--store",
            "memory",
            "--memory-finished-cap",
            "1",
            "--finished-retention",
            "0",
        ]
        .map(String::from)
        .to_vec(),
        ..Default::default()
    })
    .await;
    let mut matches = host.matches().await;
    let mut finished = Vec::new();
    for seed in [1, 2] {
        let (id, tokens) = crate::support::create(&mut matches, "focus", 2, seed).await;
        matches
            .resign(pb::ResignRequest {
                match_id: id.clone(),
                seat_token: tokens[0].clone(),
            })
            .await
            .expect("resign");
        finished.push(id);
    }
    let running = crate::support::create(&mut matches, "focus", 2, 3).await.0;
    until_unloaded(&host, &finished[0]).await;
    let expired = matches
        .get_view(pb::GetViewRequest {
            match_id: finished[0].clone(),
            ..Default::default()
        })
        .await
        .expect_err("the oldest finished match is gone");
    assert_eq!(expired.code(), Code::NotFound);
    assert!(
        expired.message().contains("expired"),
        "{}",
        expired.message()
    );
    let info = tabletop_tests::error_info(&expired).expect("error info");
    assert_eq!(info.reason, "MATCH_EXPIRED");
    until_unloaded(&host, &finished[1]).await;
    let kept = spectator(&mut matches, &finished[1]).await;
    assert_eq!(
        kept.state,
        pb::MatchState::Finished as i32,
        "the newest is kept"
    );
    assert_eq!(
        spectator(&mut matches, &running).await.state,
        pb::MatchState::Running as i32,
        "a running match is never dropped"
    );
}

/// The bytes of text an event carries: its description and its view's.
fn text_bytes(event: &pb::WatchEvent) -> usize {
    match &event.kind {
        Some(pb::watch_event::Kind::Transition(t)) => {
            t.event_json.len()
                + t.view
                    .as_ref()
                    .map_or(0, |v| v.view_json.len() + v.text.len())
        }
        _ => 0,
    }
}

#[tokio::test]
async fn a_page_of_large_views_ends_at_a_mebibyte_and_the_pages_hold_every_event_once() {
    const PAGE_BYTES: usize = 1 << 20;
    let host = Host::start().await;
    let match_id = crate::support::finished_random_war(&host, 3).await;
    let mut watch = host.watch().await;
    let page = |after_seq: u64, include_views: bool| pb::ListEventsRequest {
        match_id: match_id.clone(),
        after_seq,
        page_size: 1000,
        include_views,
        ..Default::default()
    };
    let bare = watch
        .list_events(page(0, false))
        .await
        .expect("the events without views")
        .into_inner();
    let everything: Vec<u64> = bare.events.iter().map(|e| e.seq).collect();
    assert_eq!(
        everything,
        (1..=bare.last_seq).collect::<Vec<_>>(),
        "without views, one page holds the whole match"
    );
    let mut seen = Vec::new();
    let mut pages = 0;
    while seen.last().copied().unwrap_or(0) < bare.last_seq {
        let events = watch
            .list_events(page(seen.last().copied().unwrap_or(0), true))
            .await
            .expect("a page of events with views")
            .into_inner()
            .events;
        let bytes: usize = events.iter().map(text_bytes).sum();
        let last = events.last().map_or(0, text_bytes);
        assert!(
            !events.is_empty() && bytes - last < PAGE_BYTES,
            "a page ends with the event that reaches 1 MiB ({bytes} bytes in {} events)",
            events.len()
        );
        seen.extend(events.iter().map(|e| e.seq));
        pages += 1;
    }
    assert!(
        pages > 1,
        "War's views do not fit one page of a thousand events"
    );
    assert_eq!(seen, everything, "every event once, in order");
}
