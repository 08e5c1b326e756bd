//! What a finished or cut-off playout is worth to each seat, on one scale
//! from 0 to 1 for every player count.
//!
//! A finished game scores each seat by the fraction of its opponents it
//! finished ahead of, a shared place counting half: 1 for a win, 0.5 for a
//! draw and 0 for a loss with two players; with more, first of four scores 1,
//! second 2/3, a seat tied for first with one other and ahead of two 5/6. A
//! cut-off playout is scored by the game's evaluation (the same scale) when
//! the game offers one, and as a draw, 0.5 for everyone, otherwise.

use tabletop_sdk::{DynState, GameError, PlayerResult};

/// Each seat's score from the ranks of a finished game, into `scores` (one
/// per seat). A missing result (a faulty game) counts as last place.
pub(crate) fn from_results(results: &[PlayerResult], scores: &mut [f64]) {
    let n = scores.len();
    if n < 2 {
        scores.fill(0.5);
        return;
    }
    let rank = |seat: usize| results.get(seat).map_or(u32::MAX, |r| r.rank);
    for (seat, score) in scores.iter_mut().enumerate() {
        let mine = rank(seat);
        let beaten: f64 = (0..n)
            .filter(|&other| other != seat)
            .map(|other| match rank(other).cmp(&mine) {
                std::cmp::Ordering::Greater => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Less => 0.0,
            })
            .sum();
        *score = beaten / (n - 1) as f64;
    }
}

/// Each seat's score at a cut-off: the game's evaluation when it offers one
/// (a value that is not finite counts as 0.5, others are clamped to 0..=1,
/// since a plugin's values are not trusted), else 0.5 for everyone.
pub(crate) fn at_cut_off(state: &dyn DynState, scores: &mut [f64]) -> Result<(), GameError> {
    if !state.evaluate(scores)? {
        scores.fill(0.5);
        return Ok(());
    }
    for value in scores.iter_mut() {
        *value = if value.is_finite() {
            value.clamp(0.0, 1.0)
        } else {
            0.5
        };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranks(ranks: &[u32]) -> Vec<PlayerResult> {
        ranks
            .iter()
            .map(|&rank| PlayerResult { rank, score: 0.0 })
            .collect()
    }

    fn scores(of: &[u32]) -> Vec<f64> {
        let mut out = vec![0.0; of.len()];
        from_results(&ranks(of), &mut out);
        out
    }

    #[test]
    fn two_players_score_a_win_a_draw_and_a_loss() {
        assert_eq!(scores(&[1, 2]), [1.0, 0.0]);
        assert_eq!(scores(&[1, 1]), [0.5, 0.5]);
    }

    #[test]
    fn more_players_score_the_share_of_opponents_beaten() {
        let four = scores(&[2, 1, 4, 3]);
        let expected = [2.0 / 3.0, 1.0, 0.0, 1.0 / 3.0];
        for (got, want) in four.iter().zip(expected) {
            assert!((got - want).abs() < 1e-12, "{four:?}");
        }
        assert_eq!(
            scores(&[1, 1, 3, 3]),
            [5.0 / 6.0, 5.0 / 6.0, 1.0 / 6.0, 1.0 / 6.0]
        );
    }

    #[test]
    fn a_missing_result_counts_as_last() {
        let mut out = vec![0.0; 3];
        from_results(&ranks(&[1, 2]), &mut out);
        assert_eq!(out, [1.0, 0.5, 0.0]);
    }
}
