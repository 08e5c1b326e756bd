//! Checks that what is not legal is refused without a fault and without
//! changing the state: illegal ids, malformed joint actions, unlisted chance
//! outcomes.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::Failure;
use super::context::{Ctx, fingerprint};
use crate::dynamic::DynState;
use crate::error::ErrorKind;
use crate::types::{ActionId, Move};

/// Ids that are not legal for `player` (near the legal ones, and far away).
fn illegal_ids(legal: &[ActionId], rng: &mut ChaCha8Rng) -> Vec<ActionId> {
    let max = legal.iter().copied().max().unwrap_or(0);
    let mut candidates = vec![max.wrapping_add(1), u64::MAX, u64::MAX / 3, rng.random()];
    candidates.extend(legal.iter().map(|a| a.wrapping_add(1)));
    candidates.retain(|a| legal.binary_search(a).is_err());
    candidates.sort_unstable();
    candidates.dedup();
    candidates.truncate(8);
    candidates
}

/// Illegal ids within `moves` and malformed joint actions (empty, a mover
/// missing or named twice, a non-mover added) are refused, changing nothing.
pub(super) fn check_illegal_refused(
    ctx: &Ctx<'_>,
    state: &mut dyn DynState,
    moves: &[Move],
    rng: &mut ChaCha8Rng,
) -> Result<(), Failure> {
    let before = fingerprint(ctx, state)?;
    let mut attempts: Vec<(String, Vec<Move>)> = Vec::new();
    let mut legal = Vec::new();
    for (i, m) in moves.iter().enumerate() {
        ctx.ok("legal_actions", state.legal_actions(m.player, &mut legal))?;
        for bad in illegal_ids(&legal, rng) {
            let mut joint = moves.to_vec();
            joint[i].action = bad;
            attempts.push((format!("illegal id {bad} for player {}", m.player), joint));
        }
    }
    attempts.push(("an empty joint action".to_string(), Vec::new()));
    if moves.len() > 1 {
        attempts.push((
            "a joint action missing a mover".to_string(),
            moves[1..].to_vec(),
        ));
    }
    let mut repeated = moves.to_vec();
    repeated.push(moves[0]);
    attempts.push(("a joint action naming a player twice".to_string(), repeated));
    for p in (0..ctx.players).chain([ctx.players, u32::MAX]) {
        if moves.iter().all(|m| m.player != p) {
            let mut extra = moves.to_vec();
            extra.push(Move {
                player: p,
                action: moves[0].action,
            });
            attempts.push((format!("a joint action with non-mover {p}"), extra));
            break;
        }
    }
    for (what, joint) in attempts {
        ctx.refused(&what, state.apply(&joint))?;
        if fingerprint(ctx, state)? != before {
            return Err(ctx.fail(format!("{what} was refused but changed the state")));
        }
    }
    // Players are to move, so chance is not: both chance calls answer
    // NOT_YOUR_TURN, the code the ABI gives for it in every game.
    for (what, refusal) in [
        (
            "chance's outcomes asked while players are to move",
            state.chance().map(|_| ()),
        ),
        (
            "a chance outcome applied while players are to move",
            state.apply_chance(0),
        ),
    ] {
        let refusal = ctx.refused(what, refusal)?;
        if refusal.kind != ErrorKind::NotYourTurn {
            return Err(ctx.fail(format!(
                "{what} was refused with {:?}, not NotYourTurn: {}",
                refusal.kind, refusal.message
            )));
        }
        if fingerprint(ctx, state)? != before {
            return Err(ctx.fail(format!("{what} was refused but changed the state")));
        }
    }
    Ok(())
}

/// An explicit chance node refuses an outcome it does not list, changing
/// nothing.
pub(super) fn check_unlisted_outcome_refused(
    ctx: &Ctx<'_>,
    state: &dyn DynState,
    outcomes: &[(u64, f64)],
) -> Result<(), Failure> {
    let Some(unlisted) = [u64::MAX, 0, 1, 2, 1 << 40]
        .into_iter()
        .find(|o| outcomes.iter().all(|(listed, _)| listed != o))
    else {
        return Ok(());
    };
    let mut copy = ctx.ok("clone_state", state.clone_state())?;
    let before = fingerprint(ctx, copy.as_ref())?;
    ctx.refused(
        &format!("unlisted chance outcome {unlisted}"),
        copy.apply_chance(unlisted),
    )?;
    if fingerprint(ctx, copy.as_ref())? != before {
        return Err(ctx.fail("a refused chance outcome changed the state"));
    }
    Ok(())
}
