//! Drawing chance outcomes from a match's seed, the same way in the host and in
//! the conformance kit.
//!
//! Each chance node of a match gets its own ChaCha20 stream, `(seed, index)`,
//! so outcome `n` can be drawn again (after a restart, say) without replaying
//! the draws before it.

use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

use crate::error::GameError;
use crate::types::Chance;

/// The outcome of the `index`-th chance node of a match seeded with `seed`.
///
/// For [`Chance::Explicit`] the outcome is picked by its probability; for
/// [`Chance::Sampled`] it is a uniform `u64`. An explicit distribution that is
/// empty or has no positive weight is a plugin bug and is reported as one.
pub fn draw(chance: &Chance, seed: u64, index: u64) -> Result<u64, GameError> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    rng.set_stream(index);
    match chance {
        Chance::Sampled => Ok(rng.next_u64()),
        Chance::Explicit(outcomes) => {
            let total: f64 = outcomes.iter().map(|(_, p)| p.max(0.0)).sum();
            if outcomes.is_empty() || total <= 0.0 || !total.is_finite() {
                return Err(GameError::internal(
                    "chance node lists no outcome with positive probability",
                ));
            }
            let mut point = rng.random::<f64>() * total;
            for &(outcome, p) in outcomes {
                let p = p.max(0.0);
                if point < p {
                    return Ok(outcome);
                }
                point -= p;
            }
            // Rounding can leave `point` a hair above the last weight.
            Ok(outcomes
                .iter()
                .rev()
                .find(|(_, p)| *p > 0.0)
                .map(|(o, _)| *o)
                .unwrap_or(outcomes[0].0))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_and_index_draw_the_same_outcome() {
        let a = draw(&Chance::Sampled, 7, 3).unwrap();
        let b = draw(&Chance::Sampled, 7, 3).unwrap();
        let c = draw(&Chance::Sampled, 7, 4).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn explicit_draws_follow_the_weights() {
        let chance = Chance::Explicit(vec![(10, 0.75), (20, 0.25)]);
        let tens = (0..4000)
            .filter(|&i| draw(&chance, 1, i).unwrap() == 10)
            .count();
        assert!((2800..3200).contains(&tens), "got {tens} of 4000");
    }

    #[test]
    fn explicit_without_weight_is_an_error() {
        assert!(draw(&Chance::Explicit(vec![]), 1, 0).is_err());
        assert!(draw(&Chance::Explicit(vec![(1, 0.0)]), 1, 0).is_err());
    }
}
