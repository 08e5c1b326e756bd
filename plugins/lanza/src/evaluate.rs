//! A quick estimate of each seat's standing, for search bots that cut off
//! their playouts (the SDK's evaluate extension).
//!
//! Pieces never leave the game for good (captured ones come back, ruling
//! L10), so the chips are the whole score (L9, L11): each chip of lead
//! weighs about as much as the next capture. A seat taken out races no
//! more and has nothing.

use tabletop_sdk::standings_from_strengths;

use crate::position::Position;

/// How much one chip of difference moves the estimate: a one-chip lead is
/// worth about 0.71 against an equal opponent.
const SCALE: f64 = 0.9;

/// Each seat's estimated standing in 0..=1.
pub(crate) fn evaluate(state: &Position) -> Vec<f64> {
    let strengths: Vec<f64> = (0..state.players())
        .map(|seat| {
            if state.is_out(seat) {
                0.0
            } else {
                (SCALE * f64::from(state.chips(seat))).exp()
            }
        })
        .collect();
    standings_from_strengths(&strengths)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set_up(players: u32) -> Position {
        let mut position = Position::start(players, 300).unwrap();
        position.apply_setup(7).unwrap();
        position
    }

    #[test]
    fn the_start_is_even_for_every_player_count() {
        for players in 2..=4 {
            let values = evaluate(&set_up(players));
            assert_eq!(values, vec![0.5; players as usize]);
        }
    }

    #[test]
    fn a_chip_ahead_rates_higher_and_a_seat_out_lowest() {
        let mut setup = set_up(3).to_setup();
        setup.chips[2] = 1;
        let mut state = Position::new(setup, 300).unwrap();
        let values = evaluate(&state);
        assert!(values[2] > 0.6 && values[0] == values[1], "{values:?}");
        state.remove(0).unwrap();
        let values = evaluate(&state);
        assert_eq!(values[0], 0.0);
        assert!(values[1] > 0.5 && values[2] > values[1], "{values:?}");
    }
}
