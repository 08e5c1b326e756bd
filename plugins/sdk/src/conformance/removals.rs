//! Matches in which random seats are taken out at random decisions, for
//! games whose manifest says `removable_players`.

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::consistency::{check_clone, check_position_round_trip, check_results};
use super::context::{Ctx, apply, fingerprint};
use super::random_match::note_transition;
use super::report::Played;
use super::{Config, Failure, Summary};
use crate::chance;
use crate::types::{Move, Player, Status, Transition};

/// One step of a match with removals, for its replay.
enum Step {
    Transition(Transition),
    Remove(Player),
}

/// A random match in which random seats are taken out at random decisions.
pub(super) fn play_with_removals(
    ctx: &mut Ctx<'_>,
    config: &Config,
    summary: &mut Summary,
) -> Result<(), Failure> {
    let mut rng = ChaCha8Rng::seed_from_u64(ctx.seed ^ 0x5eed_0f0f);
    let start = ctx.ok(
        "new_state",
        ctx.game.new_state(ctx.players, ctx.options, None),
    )?;
    let mut state = ctx.ok("clone_state", start.clone_state())?;
    let mut log: Vec<Step> = Vec::new();
    let mut removed: Vec<Player> = Vec::new();
    let mut chance_index = 0u64;
    let mut legal = Vec::new();
    loop {
        let status = ctx.ok("status", state.status())?;
        let step = match status {
            Status::Terminal => {
                check_results(ctx, state.as_ref())?;
                break;
            }
            Status::Chance => {
                let node = ctx.ok("chance", state.chance())?;
                let outcome = ctx.ok("draw", chance::draw(&node, ctx.seed, chance_index))?;
                chance_index += 1;
                Step::Transition(Transition::Chance(outcome))
            }
            Status::ToMove(movers) => {
                if let Some(&gone) = removed.iter().find(|&&p| movers.contains(p)) {
                    return Err(ctx.fail(format!("removed player {gone} is to move again")));
                }
                for &gone in &removed {
                    ctx.ok("legal_actions", state.legal_actions(gone, &mut legal))?;
                    if !legal.is_empty() {
                        return Err(ctx.fail(format!("removed player {gone} has legal actions")));
                    }
                }
                let still_in: Vec<Player> =
                    (0..ctx.players).filter(|p| !removed.contains(p)).collect();
                if still_in.len() > 1 && rng.random_ratio(1, 16) {
                    let seat = *still_in.choose(&mut rng).expect("seats are still in");
                    Step::Remove(seat)
                } else {
                    let mut moves = Vec::new();
                    for p in movers.iter() {
                        ctx.ok("legal_actions", state.legal_actions(p, &mut legal))?;
                        let Some(&action) = legal.choose(&mut rng) else {
                            return Err(
                                ctx.fail(format!("player {p} is to move but has no legal action"))
                            );
                        };
                        moves.push(Move { player: p, action });
                    }
                    Step::Transition(Transition::Moves(moves))
                }
            }
        };
        match &step {
            Step::Transition(transition) => {
                note_transition(ctx, state.as_ref(), transition);
                apply(ctx, state.as_mut(), transition)?;
            }
            Step::Remove(seat) => {
                ctx.note(Played::Remove {
                    step: ctx.step,
                    player: *seat,
                });
                ctx.ok(&format!("remove_player {seat}"), state.remove_player(*seat))?;
                removed.push(*seat);
                summary.removals += 1;
                check_position_round_trip(ctx, state.as_ref())?;
                check_clone(ctx, state.as_ref())?;
                let before = fingerprint(ctx, state.as_ref())?;
                for bad in [*seat, ctx.players, u32::MAX] {
                    ctx.refused(
                        &format!("removing seat {bad} (removed already or no such seat)"),
                        state.remove_player(bad),
                    )?;
                    if fingerprint(ctx, state.as_ref())? != before {
                        return Err(
                            ctx.fail(format!("a refused removal of seat {bad} changed the state"))
                        );
                    }
                }
            }
        }
        log.push(step);
        ctx.step += 1;
        if ctx.step > config.max_steps {
            return Err(ctx.fail(format!(
                "the match with removals did not end within {} steps",
                config.max_steps
            )));
        }
    }
    let mut replay = start;
    for step in &log {
        match step {
            Step::Transition(transition) => apply(ctx, replay.as_mut(), transition)?,
            Step::Remove(seat) => ctx.ok("remove_player", replay.remove_player(*seat))?,
        }
    }
    if fingerprint(ctx, replay.as_ref())? != fingerprint(ctx, state.as_ref())? {
        return Err(ctx.fail("replaying the log with its removals gives a different final state"));
    }
    Ok(())
}
