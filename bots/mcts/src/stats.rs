//! The statistics of a bot's results against another: its score with a 95%
//! interval, and the Elo difference a score implies. The arena example and
//! `tabletop arena` both report with these.

/// The score of a seat in a finished game with `ranks` (1 = first, shared
/// places share a rank): the fraction of its opponents it finished ahead of,
/// a shared place counting half. With two players 1, 0.5, 0 for a win, a
/// draw, a loss.
pub fn seat_score(ranks: &[u32], seat: usize) -> f64 {
    let mine = ranks[seat];
    let opponents = ranks.len().saturating_sub(1).max(1) as f64;
    let beaten: f64 = ranks
        .iter()
        .enumerate()
        .filter(|&(s, _)| s != seat)
        .map(|(_, &rank)| match rank.cmp(&mine) {
            std::cmp::Ordering::Greater => 1.0,
            std::cmp::Ordering::Equal => 0.5,
            std::cmp::Ordering::Less => 0.0,
        })
        .sum();
    beaten / opponents
}

/// The Elo difference a score implies, capped at ±999 (a score of 0 or 1).
pub fn elo(score: f64) -> f64 {
    if score <= 0.0 {
        -999.0
    } else if score >= 1.0 {
        999.0
    } else {
        (-400.0 * (1.0 / score - 1.0).log10()).clamp(-999.0, 999.0)
    }
}

/// A mean score and its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// The mean.
    pub mean: f64,
    /// The interval's lower bound.
    pub low: f64,
    /// The interval's upper bound.
    pub high: f64,
}

/// The mean of `scores` (each 0 to 1) and its 95% interval: Wilson's score
/// interval, which stays meaningful when every game was won (a normal
/// approximation would then shrink to a point). With draws it is a little
/// wider than it needs to be. No scores: the mean 0.5 in the interval 0 to 1.
pub fn interval(scores: &[f64]) -> Interval {
    const Z: f64 = 1.96;
    if scores.is_empty() {
        return Interval {
            mean: 0.5,
            low: 0.0,
            high: 1.0,
        };
    }
    let n = scores.len() as f64;
    let mean = scores.iter().sum::<f64>() / n;
    let shrink = 1.0 + Z * Z / n;
    let centre = (mean + Z * Z / (2.0 * n)) / shrink;
    let half = Z * (mean * (1.0 - mean) / n + Z * Z / (4.0 * n * n)).sqrt() / shrink;
    Interval {
        mean,
        low: (centre - half).max(0.0),
        high: (centre + half).min(1.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seat_scores_the_share_of_opponents_it_beat() {
        assert_eq!(seat_score(&[1, 2], 0), 1.0);
        assert_eq!(seat_score(&[1, 1], 1), 0.5);
        assert_eq!(seat_score(&[2, 1, 3], 0), 0.5);
        assert_eq!(seat_score(&[3, 1, 2], 0), 0.0);
    }

    #[test]
    fn the_interval_holds_the_mean_and_stays_open_at_the_edges() {
        let all_won = interval(&[1.0; 20]);
        assert_eq!(all_won.mean, 1.0);
        assert!(all_won.low < 1.0 && all_won.low > 0.8, "{all_won:?}");
        let even = interval(&[1.0, 0.0, 1.0, 0.0]);
        assert!(even.low < 0.5 && even.high > 0.5);
        assert_eq!(elo(0.5), 0.0);
        assert!((elo(0.76) - 200.0).abs() < 1.0);
        assert_eq!(elo(1.0), 999.0);
    }
}
