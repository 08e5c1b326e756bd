//! Checks of the names a game gives its seats (the seat-names extension):
//! one per seat, each short, none repeated, so `seat 1 (B)` names one seat.

use super::Failure;
use super::context::Ctx;

/// The longest seat name: it is printed inside every message about a seat.
const LONGEST_NAME: usize = 12;

/// A game that names its seats names each seat of a `ctx.players` match
/// once, briefly and distinctly.
pub(super) fn check_seat_names(ctx: &Ctx<'_>) -> Result<(), Failure> {
    let names = ctx.ok("seat_names", ctx.game.seat_names(ctx.players))?;
    if names.is_empty() {
        return Ok(());
    }
    if names.len() != ctx.players as usize {
        return Err(ctx.fail(format!(
            "seat_names gives {} names for {} seats: {names:?}",
            names.len(),
            ctx.players
        )));
    }
    for (seat, name) in names.iter().enumerate() {
        let fits = !name.is_empty()
            && name.chars().count() <= LONGEST_NAME
            && name
                .chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == '_');
        if !fits {
            return Err(ctx.fail(format!(
                "seat {seat} is named `{name}`: a seat name is 1 to {LONGEST_NAME} letters, \
                 digits, `-` or `_`"
            )));
        }
        if names[..seat].contains(name) {
            return Err(ctx.fail(format!("two seats are named `{name}`: {names:?}")));
        }
    }
    Ok(())
}
