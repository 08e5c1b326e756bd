//! Quarantined matches: what they refuse, their clocks, their bots, their
//! log, how they end, and that nothing calls their plugin.
use std::any::Any;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use tabletop_sdk::{Attempt, DynState, Refusal, SeatOut, Transition, Viewer};

use super::*;

/// A game whose every call (a new state, or any call on a state) is
/// counted once the fuse is armed: a quarantined match must make none.
struct Fused {
    inner: Arc<dyn DynGame>,
    fuse: Arc<Fuse>,
}

#[derive(Default)]
struct Fuse {
    armed: AtomicBool,
    calls: AtomicUsize,
}

impl Fuse {
    fn arm(&self) {
        self.armed.store(true, Ordering::SeqCst);
    }

    fn count(&self) {
        if self.armed.load(Ordering::SeqCst) {
            self.calls.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

struct FusedState {
    inner: Box<dyn DynState>,
    fuse: Arc<Fuse>,
}

impl FusedState {
    fn wrap(&self, inner: Box<dyn DynState>) -> Box<dyn DynState> {
        Box::new(FusedState {
            inner,
            fuse: Arc::clone(&self.fuse),
        })
    }

    /// The state under the fuse, counting the call about to be made.
    fn call(&self) -> &dyn DynState {
        self.fuse.count();
        self.inner.as_ref()
    }

    fn call_mut(&mut self) -> &mut dyn DynState {
        self.fuse.count();
        self.inner.as_mut()
    }
}

impl DynGame for Fused {
    fn manifest(&self) -> &Manifest {
        self.inner.manifest()
    }

    fn new_state(
        &self,
        players: u32,
        options: &BTreeMap<String, String>,
        position: Option<&str>,
    ) -> Result<Box<dyn DynState>, GameError> {
        self.fuse.count();
        Ok(Box::new(FusedState {
            inner: self.inner.new_state(players, options, position)?,
            fuse: Arc::clone(&self.fuse),
        }))
    }

    fn seat_names(&self, players: u32) -> Result<Vec<String>, GameError> {
        // The game's names, read once when the plugin is loaded: no call
        // on a match's state.
        self.inner.seat_names(players)
    }
}

impl DynState for FusedState {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn clone_state(&self) -> Result<Box<dyn DynState>, GameError> {
        Ok(self.wrap(self.call().clone_state()?))
    }
    fn status(&self) -> Result<Status, GameError> {
        self.call().status()
    }
    fn chance(&self) -> Result<Chance, GameError> {
        self.call().chance()
    }
    fn results(&self) -> Result<Vec<PlayerResult>, GameError> {
        self.call().results()
    }
    fn legal_actions(&self, player: Player, out: &mut Vec<ActionId>) -> Result<(), GameError> {
        self.call().legal_actions(player, out)
    }
    fn lend_legal_actions(&mut self, player: Player) -> Result<&[ActionId], GameError> {
        self.call_mut().lend_legal_actions(player)
    }
    fn apply(&mut self, moves: &[Move]) -> Result<(), GameError> {
        self.call_mut().apply(moves)
    }
    fn apply_chance(&mut self, outcome: u64) -> Result<(), GameError> {
        self.call_mut().apply_chance(outcome)
    }
    fn view(&self, viewer: Viewer) -> Result<String, GameError> {
        self.call().view(viewer)
    }
    fn render_text(&self, viewer: Viewer) -> Result<String, GameError> {
        self.call().render_text(viewer)
    }
    fn event(
        &self,
        before: &dyn DynState,
        transition: &Transition,
        viewer: Viewer,
    ) -> Result<String, GameError> {
        let before = before
            .as_any()
            .downcast_ref::<FusedState>()
            .ok_or_else(|| GameError::internal("a state of another game"))?;
        self.call().event(before.inner.as_ref(), transition, viewer)
    }
    fn position(&self) -> Result<String, GameError> {
        self.call().position()
    }
    fn action_to_string(&self, player: Player, action: ActionId) -> Result<String, GameError> {
        self.call().action_to_string(player, action)
    }
    fn parse_action(&self, player: Player, text: &str) -> Result<ActionId, GameError> {
        self.call().parse_action(player, text)
    }
    fn expand_notation(
        &self,
        player: Player,
        text: &str,
    ) -> Result<Option<Vec<String>>, GameError> {
        self.call().expand_notation(player, text)
    }
    fn resample(&self, viewer: Viewer, random: u64) -> Result<Box<dyn DynState>, GameError> {
        Ok(self.wrap(self.call().resample(viewer, random)?))
    }
    fn remove_player(&mut self, player: Player) -> Result<(), GameError> {
        self.call_mut().remove_player(player)
    }
    fn seats_out(&self) -> Result<Vec<SeatOut>, GameError> {
        self.call().seats_out()
    }
    fn explain_refusal(
        &self,
        player: Player,
        attempt: Attempt<'_>,
    ) -> Result<Option<Refusal>, GameError> {
        self.call().explain_refusal(player, attempt)
    }
    fn action_space(&self) -> Result<u64, GameError> {
        self.call().action_space()
    }
    fn evaluate(&self, values: &mut [f64]) -> Result<bool, GameError> {
        self.call().evaluate(values)
    }
    fn render_svg(&self, viewer: Viewer) -> Result<Option<String>, GameError> {
        self.call().render_svg(viewer)
    }
    fn action_targets(
        &self,
        player: Player,
        ids: &[ActionId],
    ) -> Result<Option<Vec<Vec<String>>>, GameError> {
        self.call().action_targets(player, ids)
    }
}

/// A bank of a minute per seat, no increment.
const BANK: TimeControl = TimeControl {
    per_move_ms: 0,
    bank_ms: 60_000,
    increment_ms: 0,
    on_timeout: OnTimeout::Lose,
};

/// A Placing match created at `t0` with a minute's bank per seat, seat 0's
/// clock running from `t0`, played through a fuse.
fn fused_match(t0: i64) -> (Match, Arc<Fuse>) {
    let fuse = Arc::new(Fuse::default());
    let game: Arc<dyn DynGame> = Arc::new(Fused {
        inner: Arc::new(InProcess::new(Placing)),
        fuse: Arc::clone(&fuse),
    });
    let setup = MatchSetup {
        created_at_ms: t0,
        time_control: Some(BANK),
        ..placing_setup()
    };
    let m = Match::create(
        game,
        setup,
        vec![Some(hash_token("a")), Some(hash_token("b"))],
    )
    .unwrap();
    (m, fuse)
}

fn is_quarantined_for(error: HostError, reason: &str) -> bool {
    matches!(error, HostError::MatchQuarantined { reason: r, .. } if r == reason)
}

/// When the matches whose clocks a test reads were created (their moves,
/// made now, are not timed).
const T0: i64 = 1_000_000;
const WHY: &str = "the plugin's worker died in `view`";

#[test]
fn a_quarantined_match_refuses_actions_resignations_and_legal_actions_with_its_reason() {
    let t0 = now_ms();
    let (mut m, _) = fused_match(t0);
    m.submit(0, 1, Some(0)).unwrap();
    m.quarantine(WHY, now_ms()).unwrap();
    assert!(m.is_quarantined());
    assert_eq!(m.quarantine_reason(), Some(WHY));
    let version = m.version();
    assert!(is_quarantined_for(m.submit(0, 2, None).unwrap_err(), WHY));
    assert!(is_quarantined_for(m.parse_action(0, "2").unwrap_err(), WHY));
    assert!(is_quarantined_for(
        m.expand_notation(0, "all").unwrap_err(),
        WHY
    ));
    let steps = vec!["2".to_string(), "3".to_string()];
    let refused = m.submit_sequence(0, "2 3", &steps, None).unwrap_err();
    assert!(is_quarantined_for(refused, WHY));
    assert!(is_quarantined_for(m.resign(1).unwrap_err(), WHY));
    assert_eq!(m.kept_legal_actions(0, LegalDetail::Full), None);
    let refused = m.legal_actions(0, LegalDetail::Full).unwrap_err();
    assert!(is_quarantined_for(refused, WHY));
    assert_eq!(m.version(), version, "nothing a refusal changed");
}

#[test]
fn a_quarantine_stops_the_clocks_and_a_release_restarts_them_where_they_stopped() {
    let (mut m, _) = fused_match(T0);
    m.quarantine(WHY, T0 + 1_000).unwrap();
    // Stopped where the quarantine found them, however long it lasts: a
    // quarantined seat never loses on time.
    assert_eq!(m.clock_remaining(0, T0 + 3_600_000), Some(59_000));
    assert_eq!(m.clock_deadline(), None);
    assert!(!m.expire_clock(T0 + 3_600_000).unwrap());
    m.release(T0 + 10_000).unwrap();
    assert!(!m.is_quarantined());
    assert_eq!(m.quarantine_reason(), None);
    assert_eq!(m.clock_remaining(0, T0 + 10_000), Some(59_000));
    assert_eq!(m.clock_deadline(), Some((T0 + 10_000 + 59_000, 0)));
}

#[test]
fn a_release_of_a_paused_match_leaves_its_clocks_stopped_until_the_resume() {
    let (mut m, _) = fused_match(T0);
    m.pause(T0 + 1_000).unwrap();
    m.quarantine(WHY, T0 + 2_000).unwrap();
    // A pause and a quarantine stop the clocks once, where the first did.
    assert_eq!(m.clock_remaining(0, T0 + 5_000), Some(59_000));
    m.release(T0 + 5_000).unwrap();
    assert!(m.is_paused());
    assert_eq!(m.clock_deadline(), None);
    assert_eq!(m.clock_remaining(0, T0 + 9_000), Some(59_000));
    m.resume(T0 + 9_000).unwrap();
    assert_eq!(m.clock_deadline(), Some((T0 + 9_000 + 59_000, 0)));
}

#[test]
fn pausing_resuming_and_adding_time_are_refused_while_quarantined() {
    let (mut m, _) = fused_match(T0);
    m.pause(T0 + 1).unwrap();
    m.quarantine(WHY, T0 + 2).unwrap();
    let refused = |e: HostError| matches!(e, HostError::ControlRefused(why) if why.contains(WHY));
    assert!(refused(m.resume(T0 + 3).unwrap_err()));
    assert!(refused(m.add_time(0, 1_000, T0 + 3).unwrap_err()));
    m.release(T0 + 4).unwrap();
    m.resume(T0 + 5).unwrap();
    m.quarantine(WHY, T0 + 6).unwrap();
    assert!(refused(m.pause(T0 + 7).unwrap_err()));
}

#[test]
fn a_second_quarantine_and_one_of_a_finished_match_are_refused_and_a_long_reason_is_cut() {
    let (mut m, _) = fused_match(T0);
    assert!(matches!(
        m.release(T0).unwrap_err(),
        HostError::ControlRefused(why) if why.contains("not quarantined")
    ));
    let long = "é".repeat(400);
    m.quarantine(&long, T0 + 1).unwrap();
    let kept = m.quarantine_reason().unwrap();
    assert!(kept.len() <= crate::director::MAX_ABORT_REASON);
    assert!(kept.ends_with('…') && long.starts_with(kept.trim_end_matches('…')));
    assert!(matches!(
        m.quarantine(WHY, T0 + 2).unwrap_err(),
        HostError::ControlRefused(why) if why.contains("already quarantined")
    ));
    m.abort("the plugin is broken", T0 + 3).unwrap();
    assert!(matches!(
        m.quarantine(WHY, T0 + 4).unwrap_err(),
        HostError::ControlRefused(why) if why.contains("over")
    ));
}

#[test]
fn a_quarantined_match_is_shown_without_calling_its_plugin() {
    let t0 = now_ms();
    let (mut m, fuse) = fused_match(t0);
    m.submit(0, 1, Some(0)).unwrap();
    let subscription = m.subscribe(true);
    let _views = subscription.views;
    let mut feed = subscription.receiver;
    m.quarantine(WHY, now_ms()).unwrap();
    fuse.arm();

    for viewer in [Viewer::Seat(0), Viewer::Seat(1), Viewer::Spectator] {
        for detail in [ViewDetail::Full, ViewDetail::Summary, ViewDetail::Board] {
            let view = m.view_with(viewer, detail).unwrap();
            assert_eq!(view.quarantine_reason.as_deref(), Some(WHY));
            assert_eq!(view.view_json, "");
            assert_eq!((view.position, view.svg), (None, None));
            assert!(view.to_move.is_empty() && view.seats.iter().all(|s| !s.to_move));
            assert_eq!(view.version, m.version());
            assert!(view.seats[0].clock_remaining_ms.is_some());
            if detail != ViewDetail::Summary {
                assert!(view.text.contains("quarantined") && view.text.contains(WHY));
            }
        }
        let now = m.view_at_version(viewer, m.version(), ViewDetail::Board);
        assert_eq!(now.unwrap().quarantine_reason.as_deref(), Some(WHY));
    }
    // Its watchers are told the quarantine, with views, and nothing else.
    let told = feed.try_recv().unwrap();
    assert!(feed.try_recv().is_err());
    for update in &told.updates {
        let ViewerUpdate::Transition { event_json, view } = update else {
            panic!("a quarantine is a transition: {update:?}");
        };
        assert_eq!(
            event_json,
            &format!(r#"{{"type":"quarantined","reason":"{WHY}"}}"#)
        );
        assert_eq!(
            view.as_ref().unwrap().quarantine_reason.as_deref(),
            Some(WHY)
        );
    }
    let history = m.history();
    let events = history
        .events(Viewer::Spectator, m.event_seq() - 1, 10, true)
        .unwrap();
    assert_eq!(events.len(), 1);
    assert!(m.bot_seats_to_act().unwrap().is_empty());
    m.refresh_kept_legal_actions();
    assert!(m.legal_actions(1, LegalDetail::IdsOnly).is_err());
    assert!(m.expire_clock(t0 + 3_600_000).is_ok());
    let record = Record::of(&m).unwrap();
    assert_eq!(record.final_position, "");
    assert_eq!(
        fuse.calls(),
        0,
        "the plugin was called for a quarantined match"
    );
    // The fuse counts: released, the match's view asks the plugin again.
    m.release(now_ms()).unwrap();
    m.view(Viewer::Spectator).unwrap();
    assert!(fuse.calls() > 0);
}

#[test]
fn a_quarantined_match_is_aborted_or_adjudicated_without_calling_its_plugin() {
    for adjudicate in [false, true] {
        let (mut m, fuse) = fused_match(T0);
        let subscription = m.subscribe(true);
        let _views = subscription.views;
        m.quarantine(WHY, T0 + 10).unwrap();
        fuse.arm();
        if adjudicate {
            let results = (0..2)
                .map(|seat| SeatResult {
                    seat,
                    rank: seat + 1,
                    score: 0.0,
                    resigned: false,
                })
                .collect();
            m.adjudicate(results, T0 + 20).unwrap();
            assert!(m.is_adjudicated());
        } else {
            m.abort("its plugin is broken", T0 + 20).unwrap();
            assert_eq!(m.abort_reason(), Some("its plugin is broken"));
        }
        assert_eq!(m.lifecycle(), Lifecycle::Finished);
        assert!(!m.is_quarantined());
        // It ended quarantined: still shown, and told, without its plugin.
        assert!(m.is_sealed());
        let view = m.view(Viewer::Spectator).unwrap();
        assert_eq!(view.lifecycle, Lifecycle::Finished);
        assert!(view.text.contains("ended while it was quarantined"));
        let history = m.history();
        let end = history
            .events(Viewer::Seat(0), m.event_seq() - 2, 10, true)
            .unwrap();
        assert_eq!(end.len(), 2);
        assert!(end[1].finished);
        assert!(m.release(T0 + 30).is_err());
        assert_eq!(
            fuse.calls(),
            0,
            "the plugin was called to end a quarantined match"
        );
    }
}

#[test]
fn a_quarantined_match_tells_its_quarantine_but_not_the_history_before_it_until_released() {
    let t0 = now_ms();
    let (mut m, fuse) = fused_match(t0);
    m.submit(0, 1, Some(0)).unwrap();
    m.submit(0, 2, Some(1)).unwrap();
    m.quarantine(WHY, now_ms()).unwrap();
    fuse.arm();
    let history = m.history();
    let last = m.event_seq();
    let quarantine = history.events(Viewer::Seat(1), last - 1, 10, true).unwrap();
    assert_eq!(quarantine.len(), 1);
    assert_eq!(quarantine[0].seq, last);
    assert!(is_quarantined_for(
        history.events(Viewer::Seat(1), 0, 10, true).unwrap_err(),
        WHY
    ));
    assert_eq!(history.seq_of_version(m.version()).unwrap(), last);
    assert!(is_quarantined_for(
        m.view_at_version(Viewer::Seat(1), 1, ViewDetail::Full)
            .unwrap_err(),
        WHY
    ));
    assert_eq!(fuse.calls(), 0);

    // Released, the whole history is told again, the quarantine with the
    // view its watchers were given.
    m.release(now_ms()).unwrap();
    let history = m.history();
    let replayed = history.events(Viewer::Seat(1), 0, 10, true).unwrap();
    assert_eq!(replayed.len() as u64, m.event_seq());
    let at_quarantine = &replayed[last as usize - 1];
    assert_eq!(format!("{at_quarantine:?}"), format!("{:?}", quarantine[0]));
    let view = m
        .view_at_version(Viewer::Seat(1), m.version() - 1, ViewDetail::Full)
        .unwrap();
    assert_eq!(view.quarantine_reason.as_deref(), Some(WHY));
    assert!(m.view(Viewer::Seat(1)).unwrap().quarantine_reason.is_none());
}

#[test]
fn replaying_a_quarantined_matchs_log_quarantines_it_again() {
    let t0 = now_ms();
    let (mut m, _) = fused_match(t0);
    m.submit(0, 1, Some(0)).unwrap();
    m.quarantine(WHY, now_ms()).unwrap();
    let token_hashes = m.seats().iter().map(|s| s.token_hash).collect();
    let restored = Match::restore(
        Arc::clone(m.game()),
        m.setup().clone(),
        token_hashes,
        m.joins(),
        m.log(),
        m.held_actions(),
    )
    .unwrap();
    assert!(restored.is_quarantined());
    assert_eq!(restored.quarantine_reason(), Some(WHY));
    assert_eq!(restored.event_seq(), m.event_seq());
    assert_eq!(restored.clock_deadline(), None);
    assert_eq!(
        restored.clock_remaining(0, t0 + 3_600_000),
        m.clock_remaining(0, t0 + 3_600_000)
    );
    let (told, live) = (restored.history(), m.history());
    let last = m.event_seq() - 1;
    assert_eq!(
        format!(
            "{:?}",
            told.events(Viewer::Spectator, last, 1, true).unwrap()
        ),
        format!(
            "{:?}",
            live.events(Viewer::Spectator, last, 1, true).unwrap()
        )
    );

    // So does a record's replay (an import).
    let record = Record::parse(&Record::of(&m).unwrap().to_json()).unwrap();
    let hashes = vec![Some([0; 32]); 2];
    let imported = Match::replay(
        Arc::clone(m.game()),
        record.setup("m2".into()),
        hashes,
        &record.actions,
    )
    .unwrap();
    assert!(imported.is_quarantined());
    record.verify(&imported).unwrap();

    // A record that plays on in quarantine was not written by a host: it is
    // refused, without asking the plugin to apply what follows.
    let mut played_on = record.actions.clone();
    let mut move_again = played_on[0].clone();
    move_again.version = played_on.len() as u64 + 1;
    played_on.push(move_again);
    let refused = Match::replay(
        Arc::clone(m.game()),
        record.setup("m3".into()),
        vec![Some([0; 32]); 2],
        &played_on,
    )
    .unwrap_err();
    assert!(
        matches!(&refused, HostError::InvalidRecord(why) if why.contains("quarantined")),
        "{refused:?}"
    );
}

#[test]
fn no_bot_searches_a_quarantined_match() {
    let game: Arc<dyn DynGame> = Arc::new(InProcess::new(lanza::Lanza));
    let setup = MatchSetup {
        game: "lanza".into(),
        seed: 3,
        seat_players: vec![SeatPlayer {
            seat: 1,
            display_name: "random".into(),
            external_id: String::new(),
            bot: "random".into(),
        }],
        ..placing_setup()
    };
    let hashes = vec![Some(hash_token("a")), Some(hash_token("bot"))];
    let mut m = Match::create(game, setup, hashes).unwrap();
    assert_eq!(m.bot_seats_to_act().unwrap(), vec![1]);
    m.quarantine(WHY, now_ms()).unwrap();
    assert!(m.bot_seats_to_act().unwrap().is_empty());
    assert!(m.bot_turn(1, 7).unwrap().is_none());
    m.release(now_ms()).unwrap();
    assert_eq!(m.bot_seats_to_act().unwrap(), vec![1]);
}

#[test]
fn a_match_quarantined_while_it_waits_for_players_refuses_joins_and_is_only_aborted() {
    let game: Arc<dyn DynGame> = Arc::new(InProcess::new(Placing));
    let mut m = Match::create(game, placing_setup(), vec![Some([0; 32]), None]).unwrap();
    m.quarantine(WHY, now_ms()).unwrap();
    let player = SeatPlayer::default();
    assert!(is_quarantined_for(
        m.join(Some(1), [1; 32], &player).unwrap_err(),
        WHY
    ));
    assert!(matches!(
        m.release(now_ms()).unwrap_err(),
        HostError::ControlRefused(why) if why.contains("waited for players")
    ));
    m.abort("never started", now_ms()).unwrap();
    assert_eq!(m.lifecycle(), Lifecycle::Finished);
}
