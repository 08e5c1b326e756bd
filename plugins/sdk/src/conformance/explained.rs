//! Checks of a game that explains its refusals (the explain-refusal
//! extension): every id of the action space that is not legal, and every
//! text that does not read as a legal action, gets a specific reason code and
//! a short sentence; a legal one gets none; and the explanation is the same
//! in every world resampled for the player, so it reveals nothing hidden.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::context::Ctx;
use super::{Failure, Summary};
use crate::dynamic::DynState;
use crate::error::ErrorKind;
use crate::types::{ActionId, Attempt, Player, Refusal};

/// An action space this small is asked about id by id; a larger one by a
/// sample of [`SAMPLED_IDS`] ids and the neighbours of the legal ones.
const EXHAUSTIVE_UP_TO: u64 = 1024;
/// Random ids asked about in a large action space.
const SAMPLED_IDS: usize = 128;
/// The longest explanation a refusal may carry (a hostile text is quoted in
/// part, never whole).
const LONGEST_MESSAGE: usize = 1000;

/// Texts that no game reads as a legal action.
fn junk_texts() -> [String; 5] {
    [
        String::new(),
        "?".into(),
        "zz99-zz99".into(),
        "9 9 9 9 9 9 9 9 9".into(),
        "x".repeat(5_000),
    ]
}

/// The ids of the action space to ask about for a player with `legal`.
pub(super) fn ids_to_ask(space: u64, legal: &[ActionId], rng: &mut ChaCha8Rng) -> Vec<ActionId> {
    if space <= EXHAUSTIVE_UP_TO {
        return (0..space).collect();
    }
    let mut ids: Vec<ActionId> = (0..SAMPLED_IDS)
        .map(|_| rng.random_range(0..space))
        .collect();
    for &a in legal {
        ids.extend([a.wrapping_sub(1), a, a.wrapping_add(1)]);
    }
    ids.retain(|&a| a < space);
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// `refusal` is a well-formed explanation of an attempt that was refused.
fn check_well_formed(ctx: &Ctx<'_>, what: &str, refusal: &Refusal) -> Result<(), Failure> {
    if !refusal.is_specific() {
        return Err(ctx.fail(format!(
            "{what} is explained with the catch-all or malformed reason code `{}`: a refusal says \
             why with a specific UPPER_SNAKE code",
            refusal.reason
        )));
    }
    if refusal.message.trim().is_empty() || refusal.message.len() > LONGEST_MESSAGE {
        return Err(ctx.fail(format!(
            "{what} is explained with a message of {} bytes: one sentence, never empty, never \
             over {LONGEST_MESSAGE}",
            refusal.message.len()
        )));
    }
    Ok(())
}

/// Every id of `player`'s action space is explained as refused exactly when
/// it is not legal; texts that do not read as a legal action are explained,
/// with the kind their `parse_action` refusal has, and legal texts are not.
pub(super) fn check_refusals_explained(
    ctx: &Ctx<'_>,
    state: &dyn DynState,
    player: Player,
    legal: &[ActionId],
    rng: &mut ChaCha8Rng,
    summary: &mut Summary,
) -> Result<(), Failure> {
    let space = ctx.ok("action_space", state.action_space())?;
    if space == 0 {
        return Ok(());
    }
    if let Some(&beyond) = legal.iter().find(|&&a| a >= space) {
        return Err(ctx.fail(format!(
            "legal action {beyond} of player {player} is outside the action space of {space} ids"
        )));
    }
    for id in ids_to_ask(space, legal, rng) {
        let explained = ctx.ok(
            "explain_refusal",
            state.explain_refusal(player, Attempt::Id(id)),
        )?;
        let is_legal = legal.binary_search(&id).is_ok();
        match (is_legal, explained) {
            (true, None) => {}
            (true, Some(refusal)) => {
                return Err(ctx.fail(format!(
                    "legal action {id} of player {player} is explained as refused: {refusal:?}"
                )));
            }
            (false, None) => {
                return Err(ctx.fail(format!(
                    "action {id} is not legal for player {player}, but explain_refusal finds \
                     nothing wrong with it"
                )));
            }
            (false, Some(refusal)) => {
                let what = format!("illegal action {id} of player {player}");
                check_well_formed(ctx, &what, &refusal)?;
                if refusal.notation {
                    return Err(ctx.fail(format!(
                        "{what} is explained as a notation problem: an id has no notation"
                    )));
                }
                summary.explained_refusals += 1;
            }
        }
    }
    for &action in legal.iter().take(8) {
        let text = ctx.ok("action_to_string", state.action_to_string(player, action))?;
        let explained = ctx.ok(
            "explain_refusal",
            state.explain_refusal(player, Attempt::Text(&text)),
        )?;
        if let Some(refusal) = explained {
            return Err(ctx.fail(format!(
                "the legal text `{text}` of player {player} is explained as refused: {refusal:?}"
            )));
        }
    }
    for text in junk_texts() {
        let Err(error) = state.parse_action(player, &text) else {
            continue;
        };
        let shown: String = text.chars().take(20).collect();
        let what = format!("the text `{shown}` of player {player}");
        let Some(refusal) = ctx.ok(
            "explain_refusal",
            state.explain_refusal(player, Attempt::Text(&text)),
        )?
        else {
            return Err(ctx.fail(format!(
                "{what} is refused by parse_action ({}) but explain_refusal finds nothing wrong",
                error.message
            )));
        };
        check_well_formed(ctx, &what, &refusal)?;
        if refusal.notation != (error.kind == ErrorKind::InvalidNotation) {
            return Err(ctx.fail(format!(
                "{what}: parse_action refuses it as {:?}, explain_refusal says notation: {}",
                error.kind, refusal.notation
            )));
        }
        summary.explained_refusals += 1;
    }
    Ok(())
}

/// The explanations `player` gets for a sample of ids are the same in
/// `state` and in `other`, a world resampled for that player.
pub(super) fn check_explanations_agree(
    ctx: &Ctx<'_>,
    state: &dyn DynState,
    other: &dyn DynState,
    player: Player,
    legal: &[ActionId],
    rng: &mut ChaCha8Rng,
) -> Result<(), Failure> {
    let space = ctx.ok("action_space", state.action_space())?;
    if space == 0 {
        return Ok(());
    }
    let mut ids = ids_to_ask(space, legal, rng);
    ids.truncate(64);
    for id in ids {
        let here = ctx.ok(
            "explain_refusal",
            state.explain_refusal(player, Attempt::Id(id)),
        )?;
        let there = ctx.ok(
            "explain_refusal",
            other.explain_refusal(player, Attempt::Id(id)),
        )?;
        if here != there {
            return Err(ctx.fail(format!(
                "the explanation of action {id} for player {player} differs between resampled \
                 worlds: hidden information leaks\n  original: {here:?}\n  resampled: {there:?}"
            )));
        }
    }
    Ok(())
}
