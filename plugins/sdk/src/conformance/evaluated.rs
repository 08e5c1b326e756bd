//! Checks of a game's evaluation (the evaluate extension): one finite value
//! in 0..=1 per seat, the same on every call for the same state.
//!
//! The values may depend on hidden information: a search bot evaluates the
//! worlds it resampled for its own seat, never the real state, so what the
//! evaluation reads of a world is the bot's own guess.

use super::context::Ctx;
use super::{Failure, Summary};
use crate::dynamic::DynState;

/// A game offering the extension evaluates `state` (not terminal) with one
/// finite value in 0..=1 per seat, and the same values when asked again.
pub(super) fn check_evaluation(
    ctx: &Ctx<'_>,
    state: &dyn DynState,
    summary: &mut Summary,
) -> Result<(), Failure> {
    let mut values = vec![f64::NAN; ctx.players as usize];
    if !ctx.ok("evaluate", state.evaluate(&mut values))? {
        return Ok(());
    }
    if let Some((seat, value)) = values
        .iter()
        .enumerate()
        .find(|(_, v)| !(v.is_finite() && (0.0..=1.0).contains(*v)))
    {
        return Err(ctx.fail(format!(
            "evaluate gives seat {seat} the value {value}: each value is finite and in 0..=1 \
             ({values:?})"
        )));
    }
    let mut again = vec![f64::NAN; values.len()];
    ctx.ok("evaluate", state.evaluate(&mut again))?;
    if again != values {
        return Err(ctx.fail(format!(
            "evaluate gives different values for the same state: {values:?}, then {again:?}"
        )));
    }
    summary.evaluations += 1;
    Ok(())
}
