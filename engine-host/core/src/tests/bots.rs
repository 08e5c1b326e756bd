//! Bot seats in simultaneous turns.
use super::*;

/// A two-seat Lanza match (simultaneous orders) with seat 1 played by
/// the bot `random`.
fn lanza_with_bot() -> Match {
    let game: Arc<dyn DynGame> = Arc::new(InProcess::new(lanza::Lanza));
    let setup = MatchSetup {
        match_id: "m".into(),
        game: "lanza".into(),
        plugin_version: "1".into(),
        plugin_sha256: None,
        players: 2,
        options: Default::default(),
        seed: 3,
        start_position: None,
        created_at_ms: 0,
        time_control: None,
        labels: Default::default(),
        open_seat_deadline: None,
        spectator_delay: None,
        tenant: String::new(),
        creator: String::new(),
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
