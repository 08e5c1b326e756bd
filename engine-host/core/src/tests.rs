//! The match core's own tests: sequences, simultaneous turns with clocks,
//! the legal-action cache and bot turns, on in-process games.

use std::collections::BTreeMap;
use std::sync::Arc;

use tabletop_sdk::{
    ActionId, Chance, DynGame, Game, GameError, InProcess, Manifest, Move, Player, PlayerResult,
    Setup, Status, serde_json,
};

use crate::tokens::hash_token;
use crate::*;

/// A small sequential game with a shorthand, written here because two
/// game crates cannot link into one test binary (each exports the entry
/// symbol): seat 0 places 1, 2, 3, 4 in order (one per action, like
/// War's placements, ruling W3), then seat 1 does; then it is over.
/// Shorthands expand to fixed lists, so the host's own checks of a
/// sequence can be tested.
#[derive(Default)]
struct Placing;

/// Numbers placed so far by each seat.
#[derive(Debug, Clone, Default)]
struct Placed([u64; 2]);

const PLACES: u64 = 4;

impl Placed {
    fn mover(&self) -> Option<Player> {
        (0..2).find(|&p| self.0[p as usize] < PLACES)
    }
}

impl Game for Placing {
    type State = Placed;
    type View<'a> = serde_json::Value;
    const EXTENSIONS: &'static [tabletop_sdk::Extension] =
        &[tabletop_sdk::Extension::ExpandNotation];
    fn manifest(&self) -> Manifest {
        Manifest {
            name: "placing".into(),
            version: "0".into(),
            min_players: 2,
            max_players: 2,
            options: Vec::new(),
            rules_summary: "Place 1 to 4, seat 0 then seat 1.".into(),
            simultaneous: false,
            hidden_information: false,
            chance: false,
            removable_players: false,
        }
    }
    fn new_state(&self, _: &Setup) -> Result<Placed, GameError> {
        Ok(Placed::default())
    }
    fn parse_position(&self, _: &Setup, text: &str) -> Result<Placed, GameError> {
        let (a, b) = text
            .split_once(' ')
            .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
            .ok_or_else(|| GameError::invalid_position("two numbers"))?;
        Ok(Placed([a, b]))
    }
    fn position_to_string(&self, s: &Placed) -> String {
        format!("{} {}", s.0[0], s.0[1])
    }
    fn status(&self, s: &Placed) -> Status {
        match s.mover() {
            Some(p) => Status::ToMove(tabletop_sdk::PlayerSet::single(p)),
            None => Status::Terminal,
        }
    }
    fn chance(&self, _: &Placed) -> Chance {
        Chance::Sampled
    }
    fn results(&self, _: &Placed) -> Vec<PlayerResult> {
        vec![
            PlayerResult {
                rank: 1,
                score: 0.0
            };
            2
        ]
    }
    fn legal_actions(&self, s: &Placed, p: Player, out: &mut Vec<ActionId>) {
        out.clear();
        if s.mover() == Some(p) {
            out.push(s.0[p as usize] + 1);
        }
    }
    fn apply(&self, s: &mut Placed, moves: &[Move]) -> Result<(), GameError> {
        let [Move { player, action }] = moves else {
            return Err(GameError::illegal("one move at a time"));
        };
        if s.mover() != Some(*player) {
            return Err(GameError::not_your_turn("not your turn"));
        }
        let next = s.0[*player as usize] + 1;
        if *action != next {
            return Err(GameError::illegal(format!("the next number is {next}")));
        }
        s.0[*player as usize] = next;
        Ok(())
    }
    fn apply_chance(&self, _: &mut Placed, _: u64) -> Result<(), GameError> {
        Err(GameError::illegal("no chance"))
    }
    fn action_to_string(&self, _: &Placed, _: Player, a: ActionId) -> Result<String, GameError> {
        Ok(a.to_string())
    }
    fn parse_action(&self, s: &Placed, p: Player, t: &str) -> Result<ActionId, GameError> {
        let action: ActionId = t
            .parse()
            .map_err(|_| GameError::invalid_notation(format!("`{t}` is not a number")))?;
        if s.mover() != Some(p) {
            return Err(GameError::not_your_turn("not your turn"));
        }
        let next = s.0[p as usize] + 1;
        if action != next {
            return Err(GameError::illegal(format!("the next number is {next}")));
        }
        Ok(action)
    }
    fn expand_notation(
        &self,
        _: &Placed,
        _: Player,
        text: &str,
    ) -> Result<Option<Vec<String>>, GameError> {
        let list: &[&str] = match text {
            "good" => &["1", "2"],
            "bad" => &["1", "3"],
            "empty" => &[],
            _ => return Ok(None),
        };
        Ok(Some(list.iter().map(|s| s.to_string()).collect()))
    }
    fn view(&self, s: &Placed, _: Viewer) -> serde_json::Value {
        serde_json::json!(s.0)
    }
    fn render_text(&self, s: &Placed, _: Viewer) -> String {
        self.position_to_string(s)
    }
}

fn new_match() -> Match {
    placing_match(placing_setup())
}

fn placing_setup() -> MatchSetup {
    MatchSetup {
        match_id: "m".into(),
        game: "placing".into(),
        plugin_version: "0".into(),
        players: 2,
        options: BTreeMap::new(),
        seed: 1,
        start_position: None,
        created_at_ms: 0,
        time_control: None,
        labels: Default::default(),
        open_seat_deadline: None,
        spectator_delay: None,
        seat_players: Vec::new(),
    }
}

fn placing_match(setup: MatchSetup) -> Match {
    let game: Arc<dyn DynGame> = Arc::new(InProcess::new(Placing));
    Match::create(game, setup, vec![Some([0; 32]), Some([1; 32])]).unwrap()
}

fn sequence(m: &mut Match, text: &str, expected: Option<u64>) -> HostResult<()> {
    let steps = m.expand_notation(0, text)?.expect("a shorthand");
    m.submit_sequence(0, text, &steps, expected)
}

#[test]
fn a_sequence_is_applied_step_by_step_each_with_its_own_version_and_event() {
    let mut m = new_match();
    let mut events = m.subscribe(true).receiver;
    sequence(&mut m, "good", Some(0)).unwrap();
    assert_eq!(m.version(), 2);
    let notations: Vec<&str> = m
        .log()
        .iter()
        .map(|e| match &e.kind {
            LogKind::Moves { moves } => moves[0].notation.as_str(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(notations, ["1", "2"], "ruling W3: one entry per placement");
    for version in [1, 2] {
        assert_eq!(events.try_recv().unwrap().version, version);
    }
    assert!(events.try_recv().is_err());
}

#[test]
fn a_sequential_games_log_entry_holds_its_move_inline() {
    // A match keeps its whole log: a heap block per entry made a played
    // action cost ~320 bytes of the server's memory (BENCHMARKS.md).
    let mut m = new_match();
    sequence(&mut m, "good", Some(0)).unwrap();
    for entry in m.log() {
        let LogKind::Moves { moves } = &entry.kind else {
            panic!("{entry:?}");
        };
        assert_eq!(moves.len(), 1);
        assert!(!moves.spilled(), "one move is stored in the entry itself");
        assert!(!moves[0].notation.is_heap_allocated(), "{:?}", moves[0]);
    }
    // The log's JSON (records, the durable store) is what it was with a
    // `Vec` and a `String`.
    let json = serde_json::to_value(&m.log()[0]).unwrap();
    assert_eq!(json["moves"][0]["notation"], "1");
    let back: LogEntry = serde_json::from_value(json).unwrap();
    assert_eq!(back, m.log()[0]);
}

#[test]
fn a_failing_step_refuses_the_whole_sequence_and_changes_nothing() {
    let mut m = new_match();
    let mut events = m.subscribe(true).receiver;
    let position = m.position().unwrap();
    let refused = sequence(&mut m, "bad", None).unwrap_err();
    assert!(
        matches!(&refused, HostError::StepRefused { step: 2, steps: 2, cause, .. }
            if matches!(**cause, HostError::IllegalAction(_))),
        "{refused:?}"
    );
    assert!(
        refused.to_string().contains("step 2 of 2 (`3`)")
            && refused.to_string().contains("the next number is 2"),
        "{refused:?}"
    );
    assert_eq!(m.version(), 0);
    assert_eq!(m.position().unwrap(), position);
    assert!(events.try_recv().is_err(), "no event for a refused request");

    let stale = sequence(&mut m, "good", Some(5)).unwrap_err();
    assert!(matches!(
        &stale,
        HostError::StaleVersion {
            expected: 5,
            current: 0
        }
    ));
    let empty = sequence(&mut m, "empty", None).unwrap_err();
    assert!(matches!(&empty, HostError::InvalidNotation(why) if why.contains("no action")));
    let not_yours = m.submit_sequence(1, "good", &["1".into()], None);
    assert!(matches!(
        not_yours,
        Err(HostError::NotYourTurn { seat: 1, .. })
    ));
    assert_eq!(m.version(), 0);
}

/// A running 3-seat Lanza match (simultaneous orders, ruling L5) whose
/// clock takes a seat out; every seat's clock starts at `t0`.
fn lanza_match(t0: i64) -> Match {
    lanza_match_timed(
        t0,
        Some(TimeControl {
            per_move_ms: 0,
            bank_ms: 1_000,
            increment_ms: 0,
            on_timeout: OnTimeout::Out,
        }),
    )
}

/// A running 3-seat Lanza match under `time_control`, created at `t0`.
fn lanza_match_timed(t0: i64, time_control: Option<TimeControl>) -> Match {
    let setup = MatchSetup {
        match_id: "m".into(),
        game: "lanza".into(),
        plugin_version: "test".into(),
        players: 3,
        options: BTreeMap::new(),
        seed: 5,
        start_position: None,
        created_at_ms: t0,
        time_control,
        labels: Default::default(),
        open_seat_deadline: None,
        spectator_delay: None,
        seat_players: Vec::new(),
    };
    let game: Arc<dyn DynGame> = Arc::new(InProcess::new(lanza::Lanza));
    // Created at `t0`, with every seat to move: every clock runs from `t0`.
    Match::create(game, setup, vec![Some([1; 32]); 3]).unwrap()
}

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

/// The legal actions as listed before lists were kept: straight from the
/// state, one seat at a time.
fn listed_fresh(m: &Match, seat: Player) -> Vec<(ActionId, String)> {
    if m.lifecycle() != Lifecycle::Running
        || m.held_actions().iter().any(|h| h.seat == seat)
        || !m.movers().unwrap().contains(seat)
    {
        return Vec::new();
    }
    let mut ids = Vec::new();
    m.state().legal_actions(seat, &mut ids).unwrap();
    ids.iter()
        .map(|&id| (id, m.state().action_to_string(seat, id).unwrap()))
        .collect()
}

#[test]
fn kept_legal_actions_always_equal_a_fresh_listing() {
    let mut m = lanza_match_timed(now_ms(), None);
    assert!(!m.keeps_legal_actions(), "nobody asked yet");
    assert_eq!(m.kept_legal_actions(0, LegalDetail::IdsOnly), None);
    let ids_of = |list: Vec<(ActionId, String)>| -> Vec<(ActionId, String)> {
        list.into_iter()
            .map(|(id, _)| (id, String::new()))
            .collect()
    };
    let mut pick = 0x9e37_79b9_u64;
    let mut asked = false;
    for _ in 0..400 {
        if m.lifecycle() != Lifecycle::Running {
            break;
        }
        for seat in 0..3 {
            let fresh = listed_fresh(&m, seat);
            if asked {
                // Kept through the last submit: the ids are answered
                // without the plugin; notation only once written.
                assert_eq!(
                    m.kept_legal_actions(seat, LegalDetail::IdsOnly),
                    Some(ids_of(fresh.clone())),
                    "seat {seat} at version {}",
                    m.version()
                );
                let full = m.kept_legal_actions(seat, LegalDetail::Full);
                assert!(full.is_none() || full == Some(fresh.clone()));
            }
            assert_eq!(
                m.legal_actions(seat, LegalDetail::IdsOnly).unwrap(),
                ids_of(fresh.clone())
            );
            assert_eq!(m.legal_actions(seat, LegalDetail::Full).unwrap(), fresh);
            assert_eq!(
                m.kept_legal_actions(seat, LegalDetail::Full),
                Some(fresh),
                "notation written once is kept for the version"
            );
        }
        asked = true;
        let movers: Vec<Player> = m.movers().unwrap().iter().collect();
        for seat in movers {
            let list = m.legal_actions(seat, LegalDetail::IdsOnly).unwrap();
            if list.is_empty() {
                continue;
            }
            pick ^= pick << 13;
            pick ^= pick >> 7;
            pick ^= pick << 17;
            let id = list[(pick % list.len() as u64) as usize].0;
            m.submit(seat, id, None).unwrap();
            m.refresh_kept_legal_actions();
            // A seat that has acted in a simultaneous turn has nothing
            // left to do until the turn resolves.
            if m.held_actions().iter().any(|h| h.seat == seat) {
                assert_eq!(
                    m.kept_legal_actions(seat, LegalDetail::Full),
                    Some(Vec::new())
                );
            }
        }
    }
    assert_eq!(
        m.lifecycle(),
        Lifecycle::Finished,
        "the match was played out"
    );
    m.refresh_kept_legal_actions();
    assert!(!m.keeps_legal_actions(), "a finished match keeps nothing");
    assert_eq!(m.kept_legal_actions(0, LegalDetail::Full), Some(Vec::new()));
}

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

/// A time control at the documented maximum plays without overflow, and
/// times from a hostile record (the extremes of `i64`) neither panic nor
/// end the match: the arithmetic saturates.
#[test]
fn clocks_at_the_extremes_saturate_instead_of_overflowing() {
    use crate::clock::MAX_TIME_CONTROL_MS;
    let too_long = TimeControl {
        per_move_ms: i64::MAX,
        bank_ms: 0,
        increment_ms: 0,
        on_timeout: OnTimeout::Lose,
    };
    assert!(too_long.validate().unwrap_err().contains("at most"));
    let longest = TimeControl {
        per_move_ms: MAX_TIME_CONTROL_MS,
        bank_ms: MAX_TIME_CONTROL_MS,
        increment_ms: MAX_TIME_CONTROL_MS,
        on_timeout: OnTimeout::Lose,
    };
    assert_eq!(longest.validate(), Ok(()));
    let mut m = placing_match(MatchSetup {
        time_control: Some(longest),
        ..placing_setup()
    });
    // Seat 0's clock runs; restarted at the extremes of `i64`.
    m.resume_clocks(i64::MIN);
    assert!(!m.expire_clock(i64::MIN).unwrap());
    m.resume_clocks(i64::MAX);
    assert!(m.clock_remaining(0, i64::MIN).is_some());
    assert!(m.clock_deadline().is_some());
    // The clocks' own arithmetic at the extremes: `clock::tests`.
}

/// A two-seat Lanza match (simultaneous orders) with seat 1 played by
/// the bot `random`.
fn lanza_with_bot() -> Match {
    let game: Arc<dyn DynGame> = Arc::new(InProcess::new(lanza::Lanza));
    let setup = MatchSetup {
        match_id: "m".into(),
        game: "lanza".into(),
        plugin_version: "1".into(),
        players: 2,
        options: Default::default(),
        seed: 3,
        start_position: None,
        created_at_ms: 0,
        time_control: None,
        labels: Default::default(),
        open_seat_deadline: None,
        spectator_delay: None,
        seat_players: vec![SeatPlayer {
            seat: 1,
            display_name: "random".into(),
            external_id: String::new(),
            bot: "random".into(),
        }],
    };
    let hashes = vec![Some(hash_token("a")), Some(hash_token("unknown"))];
    Match::create(game, setup, hashes).unwrap()
}

#[test]
fn a_bot_seat_acts_until_it_has_acted_in_a_simultaneous_turn() {
    let mut m = lanza_with_bot();
    assert!(m.has_bots());
    assert_eq!(m.bot_seats_to_act().unwrap(), vec![1]);
    assert!(m.bot_turn(0, 1).unwrap().is_none(), "seat 0 is a client's");
    let turn = m.bot_turn(1, 1).unwrap().expect("the bot is to move");
    assert_eq!((turn.seat, turn.version, turn.players), (1, m.version(), 2));
    assert_eq!(turn.spec, "random");
    let mut legal = Vec::new();
    turn.state.legal_actions(1, &mut legal).unwrap();
    let version = m.version();
    assert_eq!(
        m.submit(1, legal[0], Some(version)).unwrap(),
        Submitted::Pending
    );
    assert!(m.bot_seats_to_act().unwrap().is_empty());
    assert!(m.bot_turn(1, 1).unwrap().is_none());
}

#[test]
fn a_bot_searches_a_resample_not_the_match_state() {
    let m = lanza_with_bot();
    let seen = m.state().view(tabletop_sdk::Viewer::Seat(1)).unwrap();
    for random in 0..4 {
        let turn = m.bot_turn(1, random).unwrap().unwrap();
        // Whatever was dealt anew, the seat sees what it saw.
        let view = turn.state.view(tabletop_sdk::Viewer::Seat(1)).unwrap();
        assert_eq!(view, seen);
    }
}
