//! Turning a game's measure of each seat's strength into the per-seat
//! values [`Evaluate::evaluate`](crate::Evaluate::evaluate) returns.

/// Each seat's expected share of the opponents it finishes ahead of, when a
/// seat of strength `s` finishes ahead of one of strength `t` with
/// probability `s / (s + t)` (the Bradley–Terry model): for each seat, the
/// mean of that probability over every other seat. Two equal seats get 0.5
/// each, and the values of `n` seats add up to `n / 2`.
///
/// Strengths are `>= 0`; a seat of strength 0 (out of the game) loses to
/// every seat stronger than 0, and two seats of strength 0 are even. A
/// strength that is negative or not finite counts as 0. With one seat the
/// value is 0.5. Strengths of the form `exp(k * material)` make each
/// pairwise value a logistic of the material difference.
///
/// ```
/// use tabletop_sdk::standings_from_strengths;
///
/// assert_eq!(standings_from_strengths(&[1.0, 1.0]), vec![0.5, 0.5]);
/// assert_eq!(standings_from_strengths(&[3.0, 1.0]), vec![0.75, 0.25]);
/// // Three seats: the strongest is expected ahead of both others.
/// let values = standings_from_strengths(&[2.0, 1.0, 1.0]);
/// assert!(values[0] > 0.5 && values[1] == values[2] && values[1] < 0.5);
/// ```
pub fn standings_from_strengths(strengths: &[f64]) -> Vec<f64> {
    let clean = |s: f64| if s.is_finite() && s > 0.0 { s } else { 0.0 };
    let n = strengths.len();
    if n < 2 {
        return vec![0.5; n];
    }
    (0..n)
        .map(|i| {
            let si = clean(strengths[i]);
            let total: f64 = (0..n)
                .filter(|&j| j != i)
                .map(|j| {
                    let sj = clean(strengths[j]);
                    if si + sj > 0.0 { si / (si + sj) } else { 0.5 }
                })
                .sum();
            (total / (n - 1) as f64).clamp(0.0, 1.0)
        })
        .collect()
}
