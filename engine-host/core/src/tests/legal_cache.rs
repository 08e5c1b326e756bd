//! The kept legal actions equal a fresh listing.
use super::*;

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
