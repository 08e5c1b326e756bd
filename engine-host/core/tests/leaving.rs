//! Leaving a game, on Focus in-process: a resignation in a match of three or
//! more seats takes only that seat out where the others can play on, and
//! every seat's view says whether it is out and why (the game's rules, its
//! resignation). Its own test binary because Focus and Lanza (the unit
//! tests' game) cannot link into one: each exports the plugin entry symbol.

use std::collections::BTreeMap;
use std::sync::Arc;

use tabletop_core::{
    HostError, LegalDetail, Lifecycle, LogKind, Match, MatchSetup, OutReason, Record, RuleOut,
    Viewer,
};
use tabletop_sdk::{DynGame, InProcess, Player};

fn setup(players: u32, start_position: Option<&str>) -> MatchSetup {
    MatchSetup {
        match_id: "m".into(),
        game: "focus".into(),
        plugin_version: "test".into(),
        plugin_sha256: None,
        players,
        options: BTreeMap::new(),
        seed: 3,
        start_position: start_position.map(str::to_string),
        created_at_ms: 0,
        time_control: None,
        labels: Default::default(),
        open_seat_deadline: None,
        tenant: String::new(),
        creator: String::new(),
        seat_players: Vec::new(),
        spectator_delay: None,
    }
}

fn game() -> Arc<dyn DynGame> {
    Arc::new(InProcess::new(focus::Focus))
}

fn tokens(players: u32) -> Vec<Option<[u8; 32]>> {
    (0..players).map(|p| Some([p as u8 + 1; 32])).collect()
}

fn focus_match(players: u32, start_position: Option<&str>) -> Match {
    Match::create(game(), setup(players, start_position), tokens(players)).unwrap()
}

fn mover(m: &Match) -> Player {
    m.view(Viewer::Spectator).unwrap().to_move[0]
}

/// The mover plays its first legal action.
fn play_one(m: &mut Match) {
    let seat = mover(m);
    let (action, _) = m.legal_actions(seat, LegalDetail::IdsOnly).unwrap()[0].clone();
    m.submit(seat, action, None).unwrap();
}

fn out(m: &Match) -> Vec<Option<OutReason>> {
    m.view(Viewer::Spectator)
        .unwrap()
        .seats
        .iter()
        .map(|s| s.out)
        .collect()
}

/// Every event each viewer was told, as comparable text.
fn drain(
    feed: &mut tokio::sync::broadcast::Receiver<Arc<tabletop_core::MatchEvent>>,
    players: u32,
) -> Vec<String> {
    let mut told = Vec::new();
    while let Ok(event) = feed.try_recv() {
        for viewer in (0..players).map(Viewer::Seat).chain([Viewer::Spectator]) {
            told.push(format!("{:?}", event.for_viewer(viewer)));
        }
    }
    told
}

#[test]
fn a_four_player_resignation_takes_only_that_seat_out_and_the_others_play_on() {
    let mut m = focus_match(4, None);
    let subscription = m.subscribe(true);
    let _views = subscription.views;
    let mut feed = subscription.receiver;
    play_one(&mut m);
    // A seat not to move resigns: it is out, the match runs on.
    let resigning = 1;
    assert_ne!(mover(&m), resigning);
    m.resign(resigning).unwrap();
    assert_eq!(
        m.log().last().unwrap().kind,
        LogKind::ResignOut { seat: resigning }
    );
    assert_eq!(m.lifecycle(), Lifecycle::Running);
    assert!(m.seats()[resigning as usize].resigned);
    assert_eq!(out(&m), [None, Some(OutReason::Resigned), None, None]);
    // It never moves again (Focus's turn order is 1, 3, 2, 4: ruling F3).
    for _ in 0..12 {
        assert_ne!(mover(&m), resigning, "the resigned seat is skipped");
        play_one(&mut m);
    }
    // It cannot resign twice.
    assert!(matches!(m.resign(resigning), Err(HostError::NotToMove(_))));
    // The mover resigns: the turn passes on without a move.
    let version = m.version();
    let resigning_mover = mover(&m);
    m.resign(resigning_mover).unwrap();
    assert_eq!(m.version(), version + 1);
    assert_eq!(m.lifecycle(), Lifecycle::Running, "two seats are still in");
    assert_ne!(mover(&m), resigning_mover);
    let live = drain(&mut feed, 4);

    // The log replays to the same match, and tells every viewer what the
    // live feed told them.
    let replayed = Match::replay(game(), setup(4, None), tokens(4), m.log()).unwrap();
    assert_eq!(replayed.position().unwrap(), m.position().unwrap());
    assert_eq!(
        replayed.view(Viewer::Spectator).unwrap(),
        m.view(Viewer::Spectator).unwrap()
    );
    let history = m.history();
    let mut replayed_events = Vec::new();
    for viewer in (0..4).map(Viewer::Seat).chain([Viewer::Spectator]) {
        replayed_events.push(history.events(viewer, 0, usize::MAX, true).unwrap());
    }
    let mut told = Vec::new();
    for index in 0..replayed_events[0].len() {
        for events in &replayed_events {
            told.push(format!("{:?}", events[index]));
        }
    }
    assert_eq!(told, live);

    // A record carries the new entry and replays.
    let record = Record::parse(&Record::of(&m).unwrap().to_json()).unwrap();
    assert!(
        record.to_json().contains("\"type\": \"resign_out\""),
        "{}",
        record.to_json()
    );
    let imported =
        Match::replay(game(), record.setup("n".into()), tokens(4), &record.actions).unwrap();
    record.verify(&imported).unwrap();
}

#[test]
fn a_team_whose_last_member_resigns_loses_as_focus_says() {
    // Four players: teams 1+2 (seats 0, 1) and 3+4 (seats 2, 3), ruling F7.
    let mut m = focus_match(4, None);
    m.resign(2).unwrap();
    m.resign(3).unwrap();
    assert_eq!(m.log().last().unwrap().kind, LogKind::ResignOut { seat: 3 });
    assert_eq!(m.lifecycle(), Lifecycle::Finished);
    let ranks: Vec<(u32, bool)> = m.results().iter().map(|r| (r.rank, r.resigned)).collect();
    assert_eq!(ranks, [(1, false), (1, false), (3, true), (3, true)]);
}

#[test]
fn a_resignation_ends_a_two_seat_match_and_one_that_leaves_one_seat_as_the_game_ranks() {
    let mut two = focus_match(2, None);
    two.resign(1).unwrap();
    assert_eq!(two.log().last().unwrap().kind, LogKind::Resign { seat: 1 });
    assert_eq!(two.lifecycle(), Lifecycle::Finished);
    let ranks: Vec<u32> = two.results().iter().map(|r| r.rank).collect();
    assert_eq!(ranks, [1, 2]);
    assert!(two.seats()[1].resigned);
    assert_eq!(out(&two), [None, None], "nobody plays on: nobody is out");

    let mut three = focus_match(3, None);
    three.resign(0).unwrap();
    assert_eq!(three.lifecycle(), Lifecycle::Running);
    three.resign(1).unwrap();
    assert_eq!(
        three.log().last().unwrap().kind,
        LogKind::ResignOut { seat: 1 }
    );
    assert_eq!(three.lifecycle(), Lifecycle::Finished);
    let ranks: Vec<u32> = three.results().iter().map(|r| r.rank).collect();
    assert_eq!(
        ranks,
        [3, 2, 1],
        "the last one in wins; who left first is last (F7)"
    );
}

/// Three players, player 2 (seat 1) owns no tower and holds no reserve but
/// is not out until the turn reaches them (ruling F7); player 1 is to move.
const PLAYER_2_ABOUT_TO_GO_OUT: &str = ".,.,.,./.,.,.,.,.,./.,.,11111,2211,.,.,.,./.,.,.,.,.,3333,.,./\
.,2223,.,.,3121,.,33,./.,.,.,.,.,.,.,./.,.,.,.,.,./.,.,.,. 1 reserves=0,0,0 \
captures=0,4,1/2,0,4/2,3,0 removed=8,6,9";

#[test]
fn a_seat_the_rules_put_out_is_out_by_rule_and_cannot_resign() {
    let mut m = focus_match(3, Some(PLAYER_2_ABOUT_TO_GO_OUT));
    assert_eq!(out(&m), [None, None, None]);
    let action = m.parse_action(0, "c6-c7").unwrap();
    m.submit(0, action, None).unwrap();
    assert_eq!(out(&m), [None, Some(OutReason::Rule), None]);
    assert_eq!(
        m.rule_outs(),
        [RuleOut {
            version: m.version(),
            seat: 1
        }],
        "noted with the turn that did it, for the lifecycle feed"
    );
    assert_eq!(mover(&m), 2, "player 2 is skipped (F7)");
    let restored = Match::restore(
        game(),
        m.setup().clone(),
        tokens(3),
        m.joins(),
        m.log(),
        &[],
    )
    .unwrap();
    assert_eq!(
        restored.rule_outs(),
        m.rule_outs(),
        "a replay notes the same"
    );
    let refused = m.add_time(1, 1_000, 0).expect_err("no time for a seat out");
    assert!(
        refused.to_string().contains("out of the game by its rules"),
        "{refused}"
    );
    assert!(matches!(m.resign(1), Err(HostError::NotToMove(_))));
    // With one seat out by the rules, a resignation leaves one: the match
    // ends, the seat the rules put out last.
    m.resign(2).unwrap();
    assert_eq!(m.log().last().unwrap().kind, LogKind::ResignOut { seat: 2 });
    assert_eq!(m.lifecycle(), Lifecycle::Finished);
    let ranks: Vec<u32> = m.results().iter().map(|r| r.rank).collect();
    assert_eq!(ranks, [1, 3, 2]);
}
