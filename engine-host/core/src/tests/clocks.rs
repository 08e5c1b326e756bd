//! Clocks at the extremes.
use super::*;

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
