//! Checks of action notation: every legal action's text, alone and batched,
//! reads back to it, and garbage is refused as bad input.

use super::Failure;
use super::context::Ctx;
use crate::dynamic::DynState;
use crate::types::{ActionId, Player};

/// Every legal action of `player` prints alike alone and batched, parses
/// back to itself and is no shorthand; garbage is refused as bad input.
pub(super) fn check_notation(
    ctx: &Ctx<'_>,
    state: &dyn DynState,
    player: Player,
    legal: &[ActionId],
) -> Result<(), Failure> {
    // The batched notation of the whole list equals the per-action one.
    let mut batch = String::from("prefix ");
    let mut ends = Vec::new();
    ctx.ok(
        "actions_to_strings",
        state.actions_to_strings(player, legal, &mut batch, &mut ends),
    )?;
    if ends.len() != legal.len() {
        return Err(ctx.fail(format!(
            "actions_to_strings gave {} ends for {} actions",
            ends.len(),
            legal.len()
        )));
    }
    let mut start = "prefix ".len();
    for (&action, &end) in legal.iter().zip(&ends) {
        let one = ctx.ok("action_to_string", state.action_to_string(player, action))?;
        if batch.get(start..end as usize) != Some(one.as_str()) {
            return Err(ctx.fail(format!(
                "action {action}: actions_to_strings gives {:?}, action_to_string `{one}`",
                batch.get(start..end as usize)
            )));
        }
        start = end as usize;
    }
    if start != batch.len() {
        return Err(ctx.fail("actions_to_strings wrote text beyond its last end"));
    }
    for &action in legal {
        let text = ctx.ok("action_to_string", state.action_to_string(player, action))?;
        let parsed = state.parse_action(player, &text).map_err(|e| {
            ctx.fail(format!(
                "action {action} prints as `{text}`, which does not parse back: {}",
                e.message
            ))
        })?;
        if parsed != action {
            return Err(ctx.fail(format!(
                "action {action} prints as `{text}`, which parses to {parsed}"
            )));
        }
        // A single action's own notation is never a shorthand for others.
        let expanded = ctx.ok("expand_notation", state.expand_notation(player, &text))?;
        if let Some(list) = expanded {
            return Err(ctx.fail(format!(
                "action {action} prints as `{text}`, which expands as a shorthand to {list:?}"
            )));
        }
    }
    for garbage in ["", "\u{0}\u{7f}", "999999999999999999999999"] {
        // Garbage is no shorthand, or one refused as bad input (never a fault).
        if let Err(e) = state.expand_notation(player, garbage)
            && e.kind.is_fault()
        {
            return Err(ctx.fail(format!(
                "expanding `{garbage:?}` failed with a fault ({:?}): {}",
                e.kind, e.message
            )));
        }
    }
    for garbage in [
        "",
        "?? not an action ??",
        "\u{0}\u{7f}",
        "999999999999999999999999",
    ] {
        ctx.refused(
            &format!("parsing `{garbage:?}` as an action"),
            state.parse_action(player, garbage),
        )?;
    }
    Ok(())
}
