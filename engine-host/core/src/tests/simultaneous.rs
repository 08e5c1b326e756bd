//! Simultaneous turns: seats out, resigning and the last seat in.
use super::*;

#[test]
fn out_completes_a_simultaneous_turn_the_others_had_finished() {
    let mut m = lanza_match(now_ms());
    assert_eq!(m.movers().unwrap().len(), 3);
    for seat in [1, 2] {
        let action = m.legal_actions(seat, LegalDetail::IdsOnly).unwrap()[0].0;
        assert_eq!(m.submit(seat, action, None).unwrap(), Submitted::Pending);
    }
    let version = m.version();
    // Seat 0's bank is long gone: it is taken out, and the turn of seats
    // 1 and 2 is complete without it.
    assert!(m.expire_clock(now_ms() + 60_000).unwrap());
    assert_eq!(m.log()[version as usize].kind, LogKind::Out { seat: 0 });
    assert!(
        matches!(m.log()[version as usize + 1].kind, LogKind::Moves { ref moves } if moves.len() == 2),
        "{:?}",
        m.log()
    );
    assert!(m.held_actions().is_empty());
    assert_eq!(m.seats()[0].out, Some(OutReason::Clock));
    assert_eq!(m.lifecycle(), Lifecycle::Running);
    assert!(!m.movers().unwrap().contains(0), "seat 0 never moves again");

    // The log replays to the same match, removal included.
    let replayed = Match::replay(
        Arc::clone(m.game()),
        m.setup().clone(),
        vec![Some([1; 32]); 3],
        m.log(),
    )
    .unwrap();
    assert_eq!(replayed.position().unwrap(), m.position().unwrap());
    assert_eq!(replayed.seats()[0].out, Some(OutReason::Clock));
}

#[test]
fn a_resignation_completes_a_simultaneous_turn_the_others_had_finished() {
    let mut m = lanza_match(now_ms());
    for seat in [0, 2] {
        let action = m.legal_actions(seat, LegalDetail::IdsOnly).unwrap()[0].0;
        assert_eq!(m.submit(seat, action, None).unwrap(), Submitted::Pending);
    }
    let version = m.version();
    // Seat 1 resigns with its order still missing: it alone leaves, and the
    // turn of seats 0 and 2 is complete without it.
    m.resign(1).unwrap();
    assert_eq!(
        m.log()[version as usize].kind,
        LogKind::ResignOut { seat: 1 }
    );
    assert!(
        matches!(m.log()[version as usize + 1].kind, LogKind::Moves { ref moves } if moves.len() == 2),
        "{:?}",
        m.log()
    );
    assert_eq!(m.lifecycle(), Lifecycle::Running);
    assert!(m.seats()[1].resigned);
    let out: Vec<Option<OutReason>> = m
        .view(Viewer::Spectator)
        .unwrap()
        .seats
        .iter()
        .map(|s| s.out)
        .collect();
    assert_eq!(out, [None, Some(OutReason::Resigned), None]);
    assert!(!m.movers().unwrap().contains(1), "seat 1 never moves again");
    assert!(
        m.clock_remaining(1, now_ms()) == Some(0),
        "its clock is stopped for good"
    );

    let replayed = Match::replay(
        Arc::clone(m.game()),
        m.setup().clone(),
        vec![Some([1; 32]); 3],
        m.log(),
    )
    .unwrap();
    assert_eq!(replayed.position().unwrap(), m.position().unwrap());
    assert_eq!(replayed.seats()[1].out, Some(OutReason::Resigned));
    assert!(replayed.seats()[1].resigned);
}

#[test]
fn a_resignation_while_paused_waits_for_the_resume_where_it_would_leave_alone() {
    let t0 = now_ms();
    let mut m = lanza_match(t0);
    m.pause(t0).unwrap();
    let version = m.version();
    assert!(matches!(m.resign(1), Err(HostError::MatchPaused)));
    assert_eq!(m.version(), version, "nothing was logged");
    assert!(!m.seats()[1].resigned);
    m.resume(t0).unwrap();
    m.resign(1).unwrap();
    assert_eq!(m.lifecycle(), Lifecycle::Running);
}

#[test]
fn the_last_seat_in_ends_the_match_as_the_plugin_says() {
    let t0 = now_ms();
    let mut m = lanza_match(t0);
    // Nobody orders: every clock runs out; the first expiry takes one seat
    // out, the next leaves one seat, and Lanza ends the game.
    assert!(m.expire_clock(t0 + 60_000).unwrap());
    assert_eq!(m.lifecycle(), Lifecycle::Running);
    assert!(m.expire_clock(t0 + 60_000).unwrap());
    assert_eq!(m.lifecycle(), Lifecycle::Finished);
    assert!(
        !m.expire_clock(t0 + 120_000).unwrap(),
        "no clock runs any more"
    );
    let out: Vec<u32> = m
        .log()
        .iter()
        .filter_map(|e| match e.kind {
            LogKind::Out { seat } => Some(seat),
            _ => None,
        })
        .collect();
    assert_eq!(out.len(), 2);
    let last_in = (0..3).find(|s| !out.contains(s)).unwrap();
    assert_eq!(m.results()[last_in as usize].rank, 1);
    assert_eq!(
        m.results()[out[0] as usize].rank,
        3,
        "the first out ranks last"
    );
    assert_eq!(m.results()[out[1] as usize].rank, 2);
}
