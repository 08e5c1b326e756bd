//! Checks that nothing hidden leaks: a viewer cannot tell a state from the
//! states resampled for them, by views, text, legal actions, error messages
//! or events, and resampling reads only what the viewer knows. Resamples
//! that differ from the original are what the `hidden_information` claim is
//! judged by.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::claims;
use super::context::{Ctx, observe, viewers};
use super::explained::check_explanations_agree;
use super::{Config, Failure, Summary};
use crate::dynamic::DynState;
use crate::types::{ActionId, Move, Player, Status, Transition, Viewer};

/// Each viewer sees `state` and the states resampled for them alike; a
/// resample whose position differs is counted in `summary` (and is a failure
/// for a game that claims to hide nothing).
pub(super) fn check_hidden_information(
    ctx: &Ctx<'_>,
    config: &Config,
    state: &dyn DynState,
    rng: &mut ChaCha8Rng,
    summary: &mut Summary,
) -> Result<(), Failure> {
    let position = ctx.ok("position", state.position())?;
    for viewer in viewers(ctx.players) {
        let original = observe(ctx, state, viewer)?;
        for _ in 0..config.resamples {
            let other = ctx.ok("resample", state.resample(viewer, rng.random()))?;
            let resampled = ctx.ok("position", other.position())?;
            if resampled != position {
                claims::hidden_information_met(ctx, viewer, &position, &resampled)?;
                summary.differing_resamples += 1;
            }
            let seen = observe(ctx, other.as_ref(), viewer)?;
            if seen != original {
                return Err(ctx.fail(format!(
                    "{viewer:?} can tell a resampled state apart (views, text, legal actions, \
                     error messages, board or targets differ): hidden information leaks\n  original: {original:?}\n  \
                     resampled: {seen:?}"
                )));
            }
            if let Viewer::Seat(p) = viewer {
                check_error_messages_agree(ctx, state, other.as_ref(), p, &original.legal)?;
                check_explanations_agree(ctx, state, other.as_ref(), p, &original.legal, rng)?;
            }
            check_resampling_blind(ctx, state, other.as_ref(), viewer, rng.random())?;
        }
    }
    Ok(())
}

/// Resampling reads only what `viewer` knows: `state` and `other`, which
/// `viewer` cannot tell apart, resample to the same position with the same
/// `random`. A search bot that starts every iteration from a resample then
/// plays the same in every world it cannot tell from the real one.
fn check_resampling_blind(
    ctx: &Ctx<'_>,
    state: &dyn DynState,
    other: &dyn DynState,
    viewer: Viewer,
    random: u64,
) -> Result<(), Failure> {
    let here = ctx.ok("resample", state.resample(viewer, random))?;
    let there = ctx.ok("resample", other.resample(viewer, random))?;
    let (here, there) = (
        ctx.ok("position", here.position())?,
        ctx.ok("position", there.position())?,
    );
    if here != there {
        return Err(ctx.fail(format!(
            "two states {viewer:?} cannot tell apart resample differently with the same random              {random}: the resample reads hidden information (a bot would play differently in              worlds it cannot tell apart)\n  from the original: {here}\n  from a resample: {there}"
        )));
    }
    Ok(())
}

/// Refusing the same illegal action must read the same in both worlds.
fn check_error_messages_agree(
    ctx: &Ctx<'_>,
    state: &dyn DynState,
    other: &dyn DynState,
    player: Player,
    legal: &[ActionId],
) -> Result<(), Failure> {
    let movers = match ctx.ok("status", state.status())? {
        Status::ToMove(movers) => movers,
        _ => return Ok(()),
    };
    if movers.len() != 1 || !movers.contains(player) {
        return Ok(());
    }
    let bad = legal.iter().copied().max().unwrap_or(0).wrapping_add(1);
    let joint = [Move {
        player,
        action: bad,
    }];
    let mut a = ctx.ok("clone_state", state.clone_state())?;
    let mut b = ctx.ok("clone_state", other.clone_state())?;
    let ea = a.apply(&joint).err().map(|e| e.message);
    let eb = b.apply(&joint).err().map(|e| e.message);
    if ea != eb {
        return Err(ctx.fail(format!(
            "the error for illegal id {bad} differs between resampled states: {ea:?} vs {eb:?}"
        )));
    }
    Ok(())
}

/// Every viewer's event for `transition` is JSON, and reads the same in a
/// world resampled for the viewer in which the transition revealed the same.
pub(super) fn check_events(
    ctx: &Ctx<'_>,
    config: &Config,
    before: &dyn DynState,
    transition: &Transition,
    after: &dyn DynState,
    rng: &mut ChaCha8Rng,
) -> Result<(), Failure> {
    for viewer in viewers(ctx.players) {
        let event = ctx.ok("event", after.event(before, transition, viewer))?;
        if serde_json::from_str::<serde_json::Value>(&event).is_err() {
            return Err(ctx.fail(format!("event for {viewer:?} is not JSON: {event}")));
        }
        let view_after = ctx.ok("view", after.view(viewer))?;
        for _ in 0..config.resamples {
            let other_before = ctx.ok("resample", before.resample(viewer, rng.random()))?;
            let mut other_after = ctx.ok("clone_state", other_before.clone_state())?;
            let applied = match transition {
                Transition::Moves(moves) => other_after.apply(moves),
                Transition::Chance(outcome) => other_after.apply_chance(*outcome),
            };
            if let Err(e) = applied {
                if e.kind.is_fault() {
                    return Err(
                        ctx.fail(format!("apply on a resampled state faulted: {}", e.message))
                    );
                }
                continue;
            }
            // Only a transition that revealed the same to this viewer in both
            // worlds must be described the same way.
            if ctx.ok("view", other_after.view(viewer))? != view_after {
                continue;
            }
            let other_event = ctx.ok(
                "event",
                other_after.event(other_before.as_ref(), transition, viewer),
            )?;
            if other_event != event {
                return Err(ctx.fail(format!(
                    "the event for {viewer:?} differs between resampled worlds that look the same: \
                     hidden information leaks\n  original: {event}\n  resampled: {other_event}"
                )));
            }
        }
    }
    Ok(())
}
