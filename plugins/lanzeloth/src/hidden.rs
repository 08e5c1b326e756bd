//! Ruling Z11: what nobody can see, and resampling it.
//!
//! Nobody ever sees a face-down tile, not even its owner, so every viewer
//! knows exactly the same: the public history. The tiles never seen (dealt
//! face down and not yet revealed, and the removed ones) are exchangeable
//! given that history: every assignment of them to the unseen slots is
//! equally likely. A tile that was seen and then went face down again
//! (turned over, Z8, or given from an open pile, Z7) stays where it is.

use crate::position::{Phase, Position};
use crate::rng::shuffle;
use crate::tile::Number;

impl Position {
    /// Another state consistent with everything any viewer knows: the never-seen
    /// tiles are reshuffled among the never-seen slots with `random`. At the
    /// deal and at the end nothing is hidden, so the state is returned as is.
    pub fn resample(&self, random: u64) -> Position {
        let mut other = self.clone();
        if matches!(self.phase, Phase::Deal | Phase::Over { .. }) {
            return other;
        }
        let mut unseen: Vec<Number> = self
            .face_down
            .iter()
            .flatten()
            .filter(|t| !t.known)
            .map(|t| t.number)
            .chain(self.removed.iter().copied())
            .collect();
        // In a canonical order first: the result must not depend on where
        // the unseen tiles lie now, which no viewer knows.
        unseen.sort_unstable();
        shuffle(&mut unseen, random);
        let mut refill = unseen.into_iter();
        for slot in other.face_down.iter_mut().flatten().filter(|t| !t.known) {
            if let Some(t) = refill.next() {
                slot.number = t;
            }
        }
        for slot in &mut other.removed {
            if let Some(t) = refill.next() {
                *slot = t;
            }
        }
        other
    }
}
