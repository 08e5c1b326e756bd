//! A set of a board's points as one bit per point.
//!
//! The move generator gathers a unit's end points (W4) or landing points (W6)
//! here: a cavalry or rail move reaches one point by several paths, and the
//! list must hold each action once and in id order, which for one unit is
//! the order of the end points. A bit set keeps them unique as they come and
//! gives them back in order, where a list would have to be sorted and
//! deduplicated for every unit of every turn.
//!
//! A position also keeps each side's occupied points as one (see
//! [`crate::position::Position`]): the generator walks a side's units from it
//! rather than every point, and counts units (W11) by its bits.

use crate::board::MAX_POINTS;

const WORDS: usize = 4;

// Point numbers are bytes below MAX_POINTS: all fit in the set.
const _: () = assert!(MAX_POINTS <= WORDS * 64);

/// A set of point numbers, iterated in ascending order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct PointSet([u64; WORDS]);

impl PointSet {
    /// Adds `point`.
    #[inline]
    pub(crate) fn insert(&mut self, point: u8) {
        self.0[usize::from(point >> 6)] |= 1 << (point & 63);
    }

    /// Takes `point` out.
    #[inline]
    pub(crate) fn remove(&mut self, point: u8) {
        self.0[usize::from(point >> 6)] &= !(1 << (point & 63));
    }

    /// How many points the set holds.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether `point` is in the set.
    #[inline]
    pub(crate) fn contains(&self, point: u8) -> bool {
        self.0[usize::from(point >> 6)] & (1 << (point & 63)) != 0
    }

    /// Whether the two sets share a point.
    #[inline]
    pub(crate) fn meets(&self, other: &PointSet) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| a & b != 0)
    }

    /// Whether the set is empty.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.0 == [0; WORDS]
    }

    /// The points of `self` not in `other`.
    #[inline]
    pub(crate) fn without(self, other: PointSet) -> PointSet {
        PointSet(std::array::from_fn(|i| self.0[i] & !other.0[i]))
    }

    /// Every point number not in the set (up to the set's capacity, past
    /// any board's points: meant to be intersected with a board's sets).
    #[inline]
    pub(crate) fn complement(self) -> PointSet {
        PointSet(self.0.map(|w| !w))
    }

    /// The points, in ascending order.
    #[inline]
    pub(crate) fn iter(&self) -> Points {
        Points {
            words: self.0,
            word: 0,
        }
    }
}

impl FromIterator<u8> for PointSet {
    fn from_iter<I: IntoIterator<Item = u8>>(points: I) -> PointSet {
        let mut set = PointSet::default();
        for p in points {
            set.insert(p);
        }
        set
    }
}

impl std::ops::BitAnd for PointSet {
    type Output = PointSet;

    /// The points in both.
    #[inline]
    fn bitand(self, other: PointSet) -> PointSet {
        PointSet(std::array::from_fn(|i| self.0[i] & other.0[i]))
    }
}

impl std::ops::BitOrAssign for PointSet {
    /// Adds the points of `other`.
    #[inline]
    fn bitor_assign(&mut self, other: PointSet) {
        for (w, o) in self.0.iter_mut().zip(other.0) {
            *w |= o;
        }
    }
}

/// The points of a [`PointSet`], in ascending order.
#[derive(Debug, Clone)]
pub(crate) struct Points {
    /// The words not yet given back, the given bits cleared.
    words: [u64; WORDS],
    /// The first word that may still hold a bit.
    word: usize,
}

impl Iterator for Points {
    type Item = u8;

    #[inline]
    fn next(&mut self) -> Option<u8> {
        while let Some(&bits) = self.words.get(self.word) {
            if bits != 0 {
                self.words[self.word] = bits & (bits - 1);
                return Some((self.word * 64 + bits.trailing_zeros() as usize) as u8);
            }
            self.word += 1;
        }
        None
    }

    /// Word by word, each word's bits until it is spent: what `for_each`
    /// runs on. The compiler unrolls it over the few words, where `next`
    /// goes back through its state for every point and empty word.
    #[inline]
    fn fold<B, F: FnMut(B, u8) -> B>(self, init: B, mut f: F) -> B {
        let mut acc = init;
        for (i, &word) in self.words.iter().enumerate().skip(self.word) {
            let mut bits = word;
            while bits != 0 {
                acc = f(acc, (i * 64 + bits.trailing_zeros() as usize) as u8);
                bits &= bits - 1;
            }
        }
        acc
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = PointSet(self.words).len();
        (n, Some(n))
    }
}

impl ExactSizeIterator for Points {}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// Against the standard ordered set, on every word's edges and a spread
    /// of points inserted out of order and twice.
    #[test]
    fn iterates_like_an_ordered_set() {
        let mut set = PointSet::default();
        let mut expected = BTreeSet::new();
        assert!(set.is_empty());
        assert_eq!(set.iter().count(), 0);
        let points = (0..MAX_POINTS as u32).map(|i| (i * 97 % MAX_POINTS as u32) as u8);
        for (n, p) in [0, 63, 64, 127, 128, 191, 192, 249, 249, 0]
            .into_iter()
            .chain(points.step_by(7))
            .enumerate()
        {
            set.insert(p);
            expected.insert(p);
            assert_eq!(set.len(), expected.len());
            assert!(!set.is_empty() && set.contains(p));
            assert_eq!(set.contains(p ^ 1), expected.contains(&(p ^ 1)));
            if n % 5 == 0 {
                assert_eq!(
                    set.iter().collect::<Vec<_>>(),
                    Vec::from_iter(expected.clone())
                );
            }
        }
        assert_eq!(
            set.iter().collect::<Vec<_>>(),
            Vec::from_iter(expected.clone())
        );
        // `fold` (what `for_each` runs) gives the same points, whole or
        // after some taken by `next`, across a word's edge.
        let folded = |it: Points| it.fold(Vec::new(), |mut v, p| (v.push(p), v).1);
        assert_eq!(folded(set.iter()), Vec::from_iter(expected.clone()));
        let mut it = set.iter();
        let skipped = set.iter().take_while(|&p| p <= 64).count();
        it.by_ref().take(skipped).for_each(drop);
        assert_eq!(
            folded(it),
            Vec::from_iter(expected.iter().copied().skip(skipped))
        );
        for p in [0, 63, 64, 249, 100] {
            set.remove(p);
            expected.remove(&p);
            assert!(!set.contains(p));
            assert_eq!(set.len(), expected.len());
        }
        assert_eq!(
            set.iter().collect::<Vec<_>>(),
            Vec::from_iter(expected.clone())
        );
        let mut other = PointSet::default();
        other.insert(100);
        // The operators against the ordered set's.
        let others = BTreeSet::from([100]);
        let mut both = set;
        both |= other;
        assert_eq!(
            both.iter().collect::<Vec<_>>(),
            Vec::from_iter(expected.union(&others).copied())
        );
        assert_eq!((both & other).iter().collect::<Vec<_>>(), [100]);
        assert_eq!(both.without(other), set);
        assert_eq!(
            both.complement().iter().count(),
            WORDS * 64 - expected.len() - 1
        );
        assert!(both.complement().contains(255) && !both.complement().contains(100));
        assert!(!set.meets(&other) && !other.meets(&set));
        other.insert(set.iter().last().unwrap());
        assert!(set.meets(&other) && other.meets(&set));
    }
}
