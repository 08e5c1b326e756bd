//! Checks that a state is consistent with itself: its clone, its position
//! text, the one-call ply against its parts, and its results at the end.

use super::Failure;
use super::context::{Ctx, fingerprint};
use crate::dynamic::DynState;
use crate::types::{Move, Status};

/// `apply_and_lend_legal` from `before` agrees with `apply` (which took
/// `before` to `after`) followed by `status` and `legal_actions`, for the
/// first mover and for every seat named.
pub(super) fn check_apply_and_lend(
    ctx: &Ctx<'_>,
    before: &dyn DynState,
    moves: &[Move],
    after: &dyn DynState,
) -> Result<(), Failure> {
    let status = ctx.ok("status", after.status())?;
    let mut expected = Vec::new();
    for asked in std::iter::once(None).chain((0..ctx.players).map(Some)) {
        let mut twin = ctx.ok("clone_state", before.clone_state())?;
        let (lent_status, lent) = ctx.ok(
            &format!("apply_and_lend_legal {moves:?} for {asked:?}"),
            twin.apply_and_lend_legal(moves, asked),
        )?;
        if lent_status != status {
            return Err(ctx.fail(format!(
                "apply_and_lend_legal reports {lent_status:?}, apply then status {status:?}"
            )));
        }
        expected.clear();
        if let Status::ToMove(movers) = status
            && let Some(player) = asked.or(movers.first())
        {
            ctx.ok("legal_actions", after.legal_actions(player, &mut expected))?;
        }
        if lent != expected.as_slice() {
            return Err(ctx.fail(format!(
                "apply_and_lend_legal for {asked:?} lends {lent:?}, apply then legal_actions \
                 gives {expected:?}"
            )));
        }
    }
    Ok(())
}

/// The position text reads back to a state that prints the same and looks
/// the same to every viewer.
pub(super) fn check_position_round_trip(
    ctx: &Ctx<'_>,
    state: &dyn DynState,
) -> Result<(), Failure> {
    let text = ctx.ok("position", state.position())?;
    let parsed = ctx
        .game
        .new_state(ctx.players, ctx.options, Some(&text))
        .map_err(|e| {
            ctx.fail(format!(
                "position does not parse back ({}): {text}",
                e.message
            ))
        })?;
    let again = ctx.ok("position", parsed.position())?;
    if again != text {
        return Err(ctx.fail(format!(
            "position does not round-trip:\n  printed: {text}\n  reparsed: {again}"
        )));
    }
    if fingerprint(ctx, parsed.as_ref())? != fingerprint(ctx, state)? {
        return Err(ctx.fail(format!(
            "a state parsed from its position has different views: {text}"
        )));
    }
    Ok(())
}

/// A clone looks the same as its original to every viewer.
pub(super) fn check_clone(ctx: &Ctx<'_>, state: &dyn DynState) -> Result<(), Failure> {
    let copy = ctx.ok("clone_state", state.clone_state())?;
    if fingerprint(ctx, copy.as_ref())? != fingerprint(ctx, state)? {
        return Err(ctx.fail("a clone differs from its original"));
    }
    Ok(())
}

/// A finished match ranks every seat, someone first, and nobody may act.
pub(super) fn check_results(ctx: &Ctx<'_>, state: &dyn DynState) -> Result<(), Failure> {
    let results = ctx.ok("results", state.results())?;
    if results.len() != ctx.players as usize {
        return Err(ctx.fail(format!(
            "{} results for {} players",
            results.len(),
            ctx.players
        )));
    }
    if results.iter().any(|r| r.rank == 0 || r.rank > ctx.players) {
        return Err(ctx.fail(format!(
            "a rank is outside 1..={}: {results:?}",
            ctx.players
        )));
    }
    if results.iter().all(|r| r.rank != 1) {
        return Err(ctx.fail(format!("nobody is in first place: {results:?}")));
    }
    let mut legal = Vec::new();
    for p in 0..ctx.players {
        ctx.ok("legal_actions", state.legal_actions(p, &mut legal))?;
        if !legal.is_empty() {
            return Err(ctx.fail(format!("player {p} has legal actions after the end")));
        }
    }
    Ok(())
}
