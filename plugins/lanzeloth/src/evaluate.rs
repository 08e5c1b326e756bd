//! A quick estimate of each seat's standing, for search bots that cut off
//! their playouts (the SDK's evaluate extension).
//!
//! The game ranks by score, lower first (ruling Z9: the tiles held or their
//! points, the donkey tile adding 5), and the first to hold nothing wins, so
//! the estimate compares scores: a seat scoring `a` against one scoring `b`
//! is rated `(1 + b) / (2 + a + b)`, which depends on their ratio and so
//! suits both scorings. The scores read the face-down tiles, which a bot
//! sees only in a world it resampled. A seat taken out has nothing.

use tabletop_sdk::standings_from_strengths;

use crate::position::Position;

/// Each seat's estimated standing in 0..=1.
pub(crate) fn evaluate(state: &Position) -> Vec<f64> {
    let strengths: Vec<f64> = (0..state.rules().players)
        .map(|seat| {
            if state.is_out(seat) {
                0.0
            } else {
                1.0 / (1.0 + f64::from(state.score(seat)))
            }
        })
        .collect();
    standings_from_strengths(&strengths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Phase;
    use crate::rules::Rules;

    #[test]
    fn before_the_deal_every_seat_is_even() {
        let values = evaluate(&Position::new(Rules::standard(4)));
        assert_eq!(values, vec![0.5; 4]);
    }

    #[test]
    fn a_lower_score_always_rates_higher_and_a_seat_out_lowest() {
        let mut state = Position::new(Rules::standard(3));
        state.apply_chance(11).unwrap();
        state.apply_chance(0).unwrap();
        let mut legal = Vec::new();
        let mut compared = 0;
        for step in 0..300 {
            let Phase::Play { turn, .. } = state.phase() else {
                break;
            };
            let values = evaluate(&state);
            for a in 0..3 {
                for b in 0..3 {
                    if state.score(a) < state.score(b) {
                        assert!(values[a as usize] > values[b as usize], "step {step}");
                        compared += 1;
                    }
                }
            }
            state.legal_actions(turn, &mut legal);
            state.play(turn, legal[step % legal.len()]).unwrap();
        }
        assert!(compared > 100, "the scores differed only {compared} times");
        if let Phase::Play { .. } = state.phase() {
            state.remove(1).unwrap();
            assert_eq!(evaluate(&state)[1], 0.0);
        }
    }
}
