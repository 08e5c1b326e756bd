//! Ranking seats by a key, ties sharing a place: the "1, 1, 3" competition
//! ranking that [`PlayerResult::rank`] uses.

use crate::types::PlayerResult;

/// Which way a ranking key points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Better {
    /// The largest key ranks first (chips, captures, a standing whose
    /// variants are listed worst first).
    Higher,
    /// The smallest key ranks first (penalty points, tiles left in hand).
    Lower,
}

/// The competition rank of each seat by its key: 1 plus the number of seats
/// whose key is strictly better. Equal keys share a rank and the ranks after
/// them are skipped (keys 5, 5, 2 with [`Better::Higher`] rank 1, 1, 3).
///
/// A key that mixes directions (winners first, then the rest by fewest
/// points) is a tuple or an enum with derived order, with
/// [`std::cmp::Reverse`] around the part that points the other way.
///
/// ```
/// use tabletop_sdk::{Better, competition_ranks};
///
/// assert_eq!(competition_ranks(&[5, 5, 2], Better::Higher), vec![1, 1, 3]);
/// assert_eq!(competition_ranks(&[5, 5, 2], Better::Lower), vec![2, 2, 1]);
/// ```
pub fn competition_ranks<K: Ord>(keys: &[K], better: Better) -> Vec<u32> {
    // Quadratic, as a table has at most 32 seats and results are asked for
    // once a match is over.
    keys.iter()
        .map(|mine| {
            let ahead = keys
                .iter()
                .filter(|other| match better {
                    Better::Higher => *other > mine,
                    Better::Lower => *other < mine,
                })
                .count();
            1 + ahead as u32
        })
        .collect()
}

/// Every seat's [`PlayerResult`] from its ranking key and its score, in seat
/// order: the rank by [`competition_ranks`], the score as given.
///
/// ```
/// use tabletop_sdk::{Better, PlayerResult, results_by_key};
///
/// // Chips won: most chips first, tied leaders share first place.
/// let chips = [2u32, 2, 1];
/// let results = results_by_key(chips.iter().map(|&c| (c, f64::from(c))), Better::Higher);
/// let ranks: Vec<u32> = results.iter().map(|r| r.rank).collect();
/// assert_eq!(ranks, vec![1, 1, 3]);
/// assert_eq!(results[2], PlayerResult { rank: 3, score: 1.0 });
/// ```
pub fn results_by_key<K: Ord>(
    seats: impl IntoIterator<Item = (K, f64)>,
    better: Better,
) -> Vec<PlayerResult> {
    let (keys, scores): (Vec<K>, Vec<f64>) = seats.into_iter().unzip();
    competition_ranks(&keys, better)
        .into_iter()
        .zip(scores)
        .map(|(rank, score)| PlayerResult { rank, score })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::cmp::Reverse;

    use super::*;

    #[test]
    fn ties_share_a_rank_and_skip_the_next() {
        assert_eq!(
            competition_ranks(&[3, 7, 7, 1, 3], Better::Higher),
            vec![3, 1, 1, 5, 3]
        );
        assert_eq!(
            competition_ranks(&[3, 7, 7, 1, 3], Better::Lower),
            vec![2, 4, 4, 1, 2]
        );
        assert_eq!(competition_ranks(&[0, 0, 0], Better::Higher), vec![1, 1, 1]);
        assert!(competition_ranks::<u32>(&[], Better::Higher).is_empty());
    }

    #[test]
    fn a_mixed_key_ranks_by_its_first_part_then_the_reversed_second() {
        // Winners first, then the others by fewest points.
        let keys = [(false, Reverse(4)), (true, Reverse(9)), (false, Reverse(2))];
        assert_eq!(competition_ranks(&keys, Better::Higher), vec![3, 1, 2]);
    }

    #[test]
    fn results_keep_seat_order_and_scores() {
        let results = results_by_key([(1, 0.5), (2, 1.0), (1, 0.25)], Better::Higher);
        assert_eq!(
            results,
            vec![
                PlayerResult {
                    rank: 2,
                    score: 0.5
                },
                PlayerResult {
                    rank: 1,
                    score: 1.0
                },
                PlayerResult {
                    rank: 2,
                    score: 0.25
                },
            ]
        );
    }
}
