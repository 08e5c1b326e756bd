//! One random match with every check: the heart of the kit.

use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

use super::boards::check_board;
use super::claims;
use super::consistency::{
    check_apply_and_lend, check_clone, check_position_round_trip, check_results,
};
use super::context::{Ctx, apply, fingerprint};
use super::evaluated::check_evaluation;
use super::explained::check_refusals_explained;
use super::hidden::{check_events, check_hidden_information};
use super::notation::check_notation;
use super::refusals::{check_illegal_refused, check_unlisted_outcome_refused};
use super::report::Played;
use super::{Config, Failure, Summary};
use crate::chance;
use crate::dynamic::DynState;
use crate::types::{Chance, Move, Status, Transition};

/// Plays one random match from the start, checking at every decision (the
/// costly checks at every `check_every`-th), then replays its log.
pub(super) fn play_one(
    ctx: &mut Ctx<'_>,
    config: &Config,
    summary: &mut Summary,
) -> Result<(), Failure> {
    let mut rng = ChaCha8Rng::seed_from_u64(ctx.seed ^ 0x7ab1_e70b);
    let start = ctx.ok(
        "new_state",
        ctx.game.new_state(ctx.players, ctx.options, None),
    )?;
    let mut state = ctx.ok("clone_state", start.clone_state())?;
    let mut log: Vec<Transition> = Vec::new();
    let mut chance_index = 0u64;
    let mut ever_moved: Vec<bool> = vec![false; ctx.players as usize];
    let mut dropped_out = false;
    let mut legal = Vec::new();
    if !ctx.game.manifest().removable_players {
        // The manifest says no: `remove_player` must refuse, not fault, and
        // leave the state as it was.
        ctx.hard("illegal-refused", || {
            let before = fingerprint(ctx, state.as_ref())?;
            ctx.refused(
                "remove_player in a game whose manifest says removable_players: false",
                state.remove_player(0),
            )?;
            if fingerprint(ctx, state.as_ref())? != before {
                return Err(ctx.fail("a refused remove_player changed the state"));
            }
            Ok(())
        })?;
    }

    loop {
        let check =
            ctx.step < config.check_first || ctx.step.is_multiple_of(config.check_every.max(1));
        if check {
            let state = state.as_ref();
            ctx.soft("position-round-trip", || {
                check_position_round_trip(ctx, state)
            })?;
            ctx.soft("clone", || check_clone(ctx, state))?;
            ctx.soft("views", || check_views_are_json(ctx, state))?;
            ctx.soft("svg-board", || check_board(ctx, state, summary))?;
            ctx.soft("hidden-information", || {
                check_hidden_information(ctx, config, state, &mut rng, summary)
            })?;
        }
        let status = ctx.ok("status", state.status())?;
        let transition = match status {
            Status::Terminal => {
                ctx.soft("results", || check_results(ctx, state.as_ref()))?;
                break;
            }
            Status::Chance => {
                ctx.soft("manifest-claims", || claims::chance_met(ctx))?;
                let node = ctx.ok("chance", state.chance())?;
                if check && let Chance::Explicit(outcomes) = &node {
                    let intact = ctx.soft("illegal-refused", || {
                        check_unlisted_outcome_refused(ctx, state.as_ref(), outcomes)
                    })?;
                    if !intact {
                        return Ok(());
                    }
                }
                let outcome = ctx.ok("draw", chance::draw(&node, ctx.seed, chance_index))?;
                chance_index += 1;
                summary.chance_nodes += 1;
                Transition::Chance(outcome)
            }
            Status::ToMove(movers) => {
                if check {
                    ctx.soft("evaluate", || {
                        check_evaluation(ctx, state.as_ref(), summary)
                    })?;
                }
                if movers.is_empty() {
                    return Err(ctx.fail("status says players are to move, but names none"));
                }
                if movers.len() > 1 {
                    ctx.soft("manifest-claims", || claims::simultaneous_met(ctx, movers))?;
                    summary.simultaneous_turns += 1;
                }
                let mut moves = Vec::new();
                for p in 0..ctx.players {
                    ctx.ok("legal_actions", state.legal_actions(p, &mut legal))?;
                    if !movers.contains(p) {
                        if !legal.is_empty() {
                            return Err(ctx.fail(format!(
                                "player {p} is not to move but has {} legal actions",
                                legal.len()
                            )));
                        }
                        if ever_moved[p as usize] {
                            dropped_out = true;
                        }
                        continue;
                    }
                    ever_moved[p as usize] = true;
                    let lent = ctx.ok("lend_legal_actions", state.lend_legal_actions(p))?;
                    if lent != legal.as_slice() {
                        return Err(ctx.fail(format!(
                            "player {p}: lend_legal_actions lends {lent:?}, legal_actions copies {legal:?}"
                        )));
                    }
                    if legal.is_empty() {
                        return Err(
                            ctx.fail(format!("player {p} is to move but has no legal action"))
                        );
                    }
                    if legal.windows(2).any(|w| w[0] >= w[1]) {
                        return Err(ctx.fail(format!(
                            "legal actions of player {p} are not ascending and unique: {legal:?}"
                        )));
                    }
                    if check {
                        ctx.soft("notation", || {
                            check_notation(ctx, state.as_ref(), p, &legal)
                        })?;
                        ctx.soft("refusals-explained", || {
                            check_refusals_explained(
                                ctx,
                                state.as_ref(),
                                p,
                                &legal,
                                &mut rng,
                                summary,
                            )
                        })?;
                    }
                    let action = *legal.choose(&mut rng).expect("legal is not empty");
                    moves.push(Move { player: p, action });
                }
                if check {
                    let intact = ctx.soft("illegal-refused", || {
                        check_illegal_refused(ctx, state.as_mut(), &moves, &mut rng)
                    })?;
                    if !intact {
                        // The state may have changed: the match cannot go on.
                        return Ok(());
                    }
                }
                Transition::Moves(moves)
            }
        };
        let before = ctx.ok("clone_state", state.clone_state())?;
        note_transition(ctx, state.as_ref(), &transition);
        apply(ctx, state.as_mut(), &transition)?;
        if check {
            ctx.soft("determinism", || {
                check_same_again(ctx, before.as_ref(), &transition, state.as_ref())
            })?;
        }
        if check && let Transition::Moves(moves) = &transition {
            ctx.soft("apply-and-lend", || {
                check_apply_and_lend(ctx, before.as_ref(), moves, state.as_ref())
            })?;
        }
        if check {
            ctx.soft("events", || {
                check_events(
                    ctx,
                    config,
                    before.as_ref(),
                    &transition,
                    state.as_ref(),
                    &mut rng,
                )
            })?;
        }
        log.push(transition);
        ctx.step += 1;
        summary.transitions += 1;
        if ctx.step > config.max_steps {
            return Err(ctx.fail_as(
                "match-length",
                format!(
                    "the match did not end within {} transitions",
                    config.max_steps
                ),
            ));
        }
    }

    // Replaying the log reproduces the match exactly.
    ctx.soft("determinism", || {
        let mut replay = ctx.ok("clone_state", start.clone_state())?;
        for transition in &log {
            apply(ctx, replay.as_mut(), transition)?;
        }
        if fingerprint(ctx, replay.as_ref())? != fingerprint(ctx, state.as_ref())? {
            return Err(ctx.fail("replaying the log from the start gives a different final state"));
        }
        Ok(())
    })?;
    summary.matches += 1;
    if dropped_out {
        summary.matches_with_dropout += 1;
    }
    Ok(())
}

/// Notes `transition` (with its actions' texts) among the steps played.
pub(super) fn note_transition(ctx: &mut Ctx<'_>, state: &dyn DynState, transition: &Transition) {
    let step = ctx.step;
    match transition {
        Transition::Moves(moves) => {
            for m in moves {
                let text = state
                    .action_to_string(m.player, m.action)
                    .unwrap_or_default();
                ctx.note(Played::Move {
                    step,
                    player: m.player,
                    action: m.action,
                    text,
                });
            }
        }
        Transition::Chance(outcome) => ctx.note(Played::Chance {
            step,
            outcome: *outcome,
        }),
    }
}

/// Applying `transition` to another copy of `before` gives the same state
/// as `after`: a transition depends on nothing but the state and itself.
fn check_same_again(
    ctx: &Ctx<'_>,
    before: &dyn DynState,
    transition: &Transition,
    after: &dyn DynState,
) -> Result<(), Failure> {
    let mut again = ctx.ok("clone_state", before.clone_state())?;
    apply(ctx, again.as_mut(), transition)?;
    if fingerprint(ctx, again.as_ref())? != fingerprint(ctx, after)? {
        return Err(ctx.fail(format!(
            "applying {transition:?} again to the same state gives a different state: the \
             outcome depends on something besides the state and the action"
        )));
    }
    Ok(())
}

/// Every viewer's view is a JSON document: the host sends it as JSON.
fn check_views_are_json(ctx: &Ctx<'_>, state: &dyn DynState) -> Result<(), Failure> {
    for viewer in super::context::viewers(ctx.players) {
        let view = ctx.ok("view", state.view(viewer))?;
        if let Err(e) = serde_json::from_str::<serde_json::Value>(&view) {
            return Err(ctx.fail(format!("the view for {viewer:?} is not JSON ({e}): {view}")));
        }
    }
    Ok(())
}
