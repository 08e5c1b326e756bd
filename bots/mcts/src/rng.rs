//! The search's own random numbers: SplitMix64 (`rand_xoshiro`'s), seeded
//! by the caller, so a search with an iteration budget is reproducible on
//! every machine.

use rand_xoshiro::SplitMix64;
use rand_xoshiro::rand_core::{RngCore, SeedableRng};

/// A SplitMix64 generator.
#[derive(Debug, Clone)]
pub(crate) struct Rng(SplitMix64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(SplitMix64::seed_from_u64(seed))
    }

    #[inline]
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A uniform index below `n` (which is not 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// A uniform number in `[0, 1)`.
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SplitMix64 as the reference (`splitmix64.c`) defines it: the state
    /// is the seed, and each draw adds the golden gamma and mixes.
    fn reference(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    #[test]
    fn the_numbers_are_the_reference_splitmix64_of_the_seed() {
        let mut rng = Rng::new(1_234_567);
        let known: [u64; 5] = [
            6_457_827_717_110_365_317,
            3_203_168_211_198_807_973,
            9_817_491_932_198_370_423,
            4_593_380_528_125_082_431,
            16_408_922_859_458_223_821,
        ];
        for expected in known {
            assert_eq!(rng.next_u64(), expected);
        }
        for seed in [0, 1, 42, u64::MAX] {
            let (mut rng, mut state) = (Rng::new(seed), seed);
            for _ in 0..100 {
                assert_eq!(rng.next_u64(), reference(&mut state), "seed {seed}");
            }
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_numbers_and_indices_stay_in_range() {
        let (mut a, mut b) = (Rng::new(5), Rng::new(5));
        for _ in 0..1000 {
            assert_eq!(a.next_u64(), b.next_u64());
            assert!(a.below(7) < 7);
            let u = a.unit();
            assert!((0.0..1.0).contains(&u));
            b.below(7);
            b.unit();
        }
        assert_ne!(Rng::new(5).next_u64(), Rng::new(6).next_u64());
    }
}
