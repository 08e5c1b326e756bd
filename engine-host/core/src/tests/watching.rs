//! What viewers are told: the live feed, late replays and spectator delays.
use super::*;

/// Every event each viewer received live, as comparable text.
fn drain(
    feed: &mut tokio::sync::broadcast::Receiver<Arc<MatchEvent>>,
    m: &Match,
) -> Vec<Vec<String>> {
    let mut per_viewer = vec![Vec::new(); m.setup().players as usize + 1];
    while let Ok(event) = feed.try_recv() {
        for (index, viewer) in m.viewers().enumerate() {
            per_viewer[index].push(format!("{:?}", event.for_viewer(viewer)));
        }
    }
    per_viewer
}

#[test]
fn a_late_replay_tells_every_viewer_exactly_what_the_live_feed_told_them() {
    // One piece: one match played live and then replayed, compared event
    // by event; a scenario split into helpers would hide what is compared.
    // Four Lanza seats (simultaneous orders, ruling L5), two of them taken
    // after creation, a bank clock that takes seats out mid-turn, and a
    // resignation at the end: every kind of event a match has.
    let t0 = now_ms();
    let setup = MatchSetup {
        match_id: "m".into(),
        game: "lanza".into(),
        plugin_version: "test".into(),
        plugin_sha256: None,
        players: 4,
        options: BTreeMap::new(),
        seed: 9,
        start_position: None,
        created_at_ms: t0,
        time_control: Some(TimeControl {
            per_move_ms: 0,
            bank_ms: 60_000,
            increment_ms: 500,
            on_timeout: OnTimeout::Out,
        }),
        labels: Default::default(),
        open_seat_deadline: None,
        spectator_delay: None,
        tenant: String::new(),
        creator: String::new(),
        seat_players: Vec::new(),
    };
    let game: Arc<dyn DynGame> = Arc::new(InProcess::new(lanza::Lanza));
    let hashes = vec![Some([1; 32]), Some([2; 32]), None, None];
    let mut m = Match::create(game, setup, hashes).unwrap();
    // Lanza deals at creation (a chance outcome), before anyone can watch.
    let subscription = m.subscribe(true);
    let _views = subscription.views;
    let mut feed = subscription.receiver;
    let subscribed_after = m.event_seq();
    assert_eq!(subscribed_after, 1);
    let mut live = drain(&mut feed, &m);
    let mut record = |m: &Match, feed: &mut _| {
        for (all, new) in live.iter_mut().zip(drain(feed, m)) {
            all.extend(new);
        }
    };
    m.join(Some(3), [4; 32], &Default::default()).unwrap();
    m.join(None, [3; 32], &Default::default()).unwrap();
    record(&m, &mut feed);
    let mut later = 0;
    for turn in 0..12 {
        if m.lifecycle() != Lifecycle::Running {
            break;
        }
        let movers: Vec<Player> = m.movers().unwrap().iter().collect();
        // In turns 2 and 5 one mover never orders and runs out of time.
        let idle = [2, 5].contains(&turn).then(|| movers[movers.len() - 1]);
        for &seat in &movers {
            if Some(seat) == idle || m.lifecycle() != Lifecycle::Running {
                continue;
            }
            let actions = m.legal_actions(seat, LegalDetail::IdsOnly).unwrap();
            let (action, _) = actions[(turn * 7 + seat as usize) % actions.len()].clone();
            m.submit(seat, action, None).unwrap();
        }
        if idle.is_some() {
            later += 120_000;
            m.expire_clock(now_ms() + later).unwrap();
        }
        record(&m, &mut feed);
    }
    if m.lifecycle() == Lifecycle::Running {
        let seat = m.movers().unwrap().iter().next().unwrap();
        m.resign(seat).unwrap();
        record(&m, &mut feed);
    }
    assert!(
        m.log()
            .iter()
            .any(|e| matches!(e.kind, LogKind::Out { .. })),
        "a seat was taken out: {:?}",
        m.log()
    );

    let history = m.history();
    assert_eq!(history.last_seq(), m.event_seq());
    for (index, viewer) in m.viewers().enumerate() {
        let all = history.events(viewer, 0, usize::MAX, true).unwrap();
        assert_eq!(all.len() as u64, m.event_seq(), "{viewer:?}");
        for event in &all {
            if let ViewerUpdate::Transition { event_json, .. } = &event.update {
                assert!(!event_json.contains("invalid"), "{event_json}");
            }
        }
        let replayed: Vec<String> = history
            .events(viewer, subscribed_after, usize::MAX, true)
            .unwrap()
            .iter()
            .map(|e| format!("{e:?}"))
            .collect();
        if let Some(at) = (0..replayed.len()).find(|&i| live[index].get(i) != Some(&replayed[i])) {
            panic!(
                "{viewer:?}: event {} differs\nreplayed: {}\nlive:     {}",
                at + 1,
                replayed[at],
                live[index].get(at).map_or("(none)", String::as_str)
            );
        }
        assert_eq!(replayed, live[index], "{viewer:?}");
        // A page from the middle is the same events.
        let page = history.events(viewer, 6, 3, true).unwrap();
        let page: Vec<String> = page.iter().map(|e| format!("{e:?}")).collect();
        assert_eq!(page, live[index][5..8], "{viewer:?}");
    }

    // What the store keeps rebuilds the same match, numbering included.
    let restored = Match::restore(
        Arc::clone(m.game()),
        m.setup().clone(),
        m.seats().iter().map(|s| s.token_hash).collect(),
        m.joins(),
        m.log(),
        m.held_actions(),
    )
    .unwrap();
    assert_eq!(restored.event_seq(), m.event_seq());
    assert_eq!(restored.position().unwrap(), m.position().unwrap());

    // The spectator delay counts events from the log without a walk: the
    // same numbers, past the joins, held moves and seats taken out.
    for version in 0..=m.version() {
        assert_eq!(
            m.seq_of_version(version),
            history.seq_of_version(version).unwrap(),
            "version {version}"
        );
    }
}

#[test]
fn live_events_carry_views_only_while_a_watcher_wants_them() {
    let mut m = new_match();
    let bare = m.subscribe(false);
    let with_views = m.subscribe(true);
    let mut bare_feed = bare.receiver;
    m.submit(0, 1, None).unwrap();
    let event = bare_feed.try_recv().unwrap();
    assert!(matches!(
        &event.for_viewer(Viewer::Spectator).update,
        ViewerUpdate::Transition { view: Some(_), .. }
    ));
    // The one watcher that wanted views has gone: nobody pays for them.
    drop(with_views);
    m.submit(0, 2, None).unwrap();
    let event = bare_feed.try_recv().unwrap();
    assert!(matches!(
        &event.for_viewer(Viewer::Spectator).update,
        ViewerUpdate::Transition { view: None, .. }
    ));
}

/// A Placing match whose spectators see it `delay` behind, after `moves`
/// moves (each seat's first legal action in turn).
fn delayed_match(delay: SpectatorDelay, moves: usize) -> Match {
    let mut m = placing_match(MatchSetup {
        spectator_delay: Some(delay),
        ..placing_setup()
    });
    for _ in 0..moves {
        let seat = m.movers().unwrap().iter().next().unwrap();
        let (action, _) = m.legal_actions(seat, LegalDetail::IdsOnly).unwrap()[0].clone();
        m.submit(seat, action, None).unwrap();
    }
    m
}

#[test]
fn spectators_see_a_delayed_match_behind_and_seats_see_it_live() {
    let m = delayed_match(SpectatorDelay { moves: 2, ms: 0 }, 5);
    let horizon = m.spectator_horizon(now_ms());
    assert_eq!((horizon.version, horizon.seq), (3, 3));
    assert!(horizon.delayed);
    let spectator = m.view(Viewer::Spectator).unwrap();
    assert_eq!(spectator.version, 3);
    assert!(spectator.delayed);
    let past = |viewer, version| m.view_at_version(viewer, version, ViewDetail::Full);
    assert_eq!(
        spectator.view_json,
        past(Viewer::Spectator, 3).unwrap().view_json
    );
    let seat = m.view(Viewer::Seat(1)).unwrap();
    assert_eq!((seat.version, seat.delayed), (5, false));
    assert_eq!(
        seat.spectator_delay,
        Some(SpectatorDelay { moves: 2, ms: 0 })
    );
    // A past view beyond the delay is refused, without the live version.
    let refused = past(Viewer::Spectator, 4).unwrap_err().to_string();
    assert!(
        refused.contains("version 3") && !refused.contains('5'),
        "{refused}"
    );
    assert_eq!(past(Viewer::Seat(0), 5).unwrap().version, 5);
    // The director's answer is the match as it is.
    let undelayed = m
        .undelayed_view(Viewer::Spectator, ViewDetail::Full)
        .unwrap();
    assert_eq!((undelayed.version, undelayed.delayed), (5, false));
}

#[test]
fn a_time_delay_shows_each_version_once_its_entry_is_old_enough() {
    let m = delayed_match(
        SpectatorDelay {
            moves: 0,
            ms: 1_000,
        },
        2,
    );
    let (first, last) = (m.log()[0].at_ms, m.log()[1].at_ms);
    let horizon = m.spectator_horizon(first + 999);
    assert_eq!(
        (horizon.version, horizon.next_at_ms),
        (0, Some(first + 1_000))
    );
    assert_eq!(m.spectator_horizon(last + 1_000).version, 2);
    assert_eq!(m.spectator_horizon(last + 1_000).next_at_ms, None);
}

#[test]
fn a_finished_match_shows_everything_to_spectators() {
    let m = delayed_match(
        SpectatorDelay {
            moves: 3,
            ms: 60_000,
        },
        2 * PLACES as usize,
    );
    assert_eq!(m.lifecycle(), Lifecycle::Finished);
    let horizon = m.spectator_horizon(now_ms());
    assert_eq!(horizon.version, m.version());
    assert_eq!(horizon.seq, m.event_seq());
    assert!(!horizon.delayed);
    let view = m.view(Viewer::Spectator).unwrap();
    assert_eq!((view.version, view.delayed), (m.version(), false));
}

#[test]
fn a_setup_without_a_delay_reads_and_writes_as_before() {
    let setup = new_match().setup().clone();
    let json = serde_json::to_value(&setup).unwrap();
    assert!(json.get("spectator_delay").is_none(), "{json}");
    let back: MatchSetup = serde_json::from_value(json).unwrap();
    assert_eq!(back.spectator_delay, None);
    let delayed = delayed_match(SpectatorDelay { moves: 0, ms: 500 }, 0)
        .setup()
        .clone();
    let json = serde_json::to_value(&delayed).unwrap();
    assert_eq!(json["spectator_delay"], serde_json::json!({"ms": 500}));
}
