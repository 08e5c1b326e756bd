//! The deterministic random source behind the deal (ruling Z2) and resampling.
//!
//! The host hands a chance node one `u64`; everything random is derived from it
//! with splitmix64 (`rand_xoshiro`'s), so a match log replays identically on
//! any machine.

use rand_xoshiro::SplitMix64;
use rand_xoshiro::rand_core::{RngCore, SeedableRng};

/// A value in `0..bound` (bound > 0) drawn from `rng`, by multiply-high so
/// the bias is negligible for the small bounds used here.
pub(crate) fn below(rng: &mut SplitMix64, bound: usize) -> usize {
    ((u128::from(rng.next_u64()) * bound as u128) >> 64) as usize
}

/// Fisher–Yates shuffle of `items` driven by `seed`.
pub(crate) fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut rng = SplitMix64::seed_from_u64(seed);
    for i in (1..items.len()).rev() {
        let j = below(&mut rng, i + 1);
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffle_is_a_deterministic_permutation() {
        let mut a: Vec<u32> = (0..50).collect();
        let mut b = a.clone();
        shuffle(&mut a, 42);
        shuffle(&mut b, 42);
        assert_eq!(a, b);
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..50).collect::<Vec<_>>());
        let mut c: Vec<u32> = (0..50).collect();
        shuffle(&mut c, 43);
        assert_ne!(a, c, "different seeds give different orders");
    }

    #[test]
    fn a_shuffle_is_the_one_recorded_matches_were_dealt_with() {
        // The order the hand-written splitmix64 gave: a deal must not change
        // under a recorded match.
        let mut items: Vec<u32> = (0..10).collect();
        shuffle(&mut items, 42);
        assert_eq!(items, [8, 3, 6, 5, 4, 0, 9, 2, 1, 7]);
    }

    #[test]
    fn below_stays_in_range() {
        let mut rng = SplitMix64::seed_from_u64(7);
        for bound in 1..40 {
            assert!(below(&mut rng, bound) < bound);
        }
    }
}
