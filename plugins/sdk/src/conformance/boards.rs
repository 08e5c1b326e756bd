//! Checks of a game's board (the svg-board and action-targets extensions):
//! every viewer's SVG is well-formed, rooted at `<svg>`, bounded and the
//! same when drawn again; every target a legal action names is an element
//! id of the mover's board, and the same when asked again. That a board
//! leaks nothing is checked with the rest of a viewer's observation, across
//! resampled states (`hidden`).

use std::collections::BTreeSet;

use super::context::{Ctx, viewers};
use super::svg::parse_svg;
use super::{Failure, Summary};
use crate::abi::MAX_SVG_BYTES;
use crate::dynamic::DynState;
use crate::types::{Status, Viewer};

/// Checks every viewer's board of `state` and the targets of every mover's
/// legal actions.
pub(super) fn check_board(
    ctx: &Ctx<'_>,
    state: &dyn DynState,
    summary: &mut Summary,
) -> Result<(), Failure> {
    let mut boards: Vec<(Viewer, Option<BTreeSet<String>>)> = Vec::new();
    for viewer in viewers(ctx.players) {
        let Some(svg) = ctx.ok("render_svg", state.render_svg(viewer))? else {
            boards.push((viewer, None));
            continue;
        };
        if svg.len() > MAX_SVG_BYTES {
            return Err(ctx.fail(format!(
                "the board for {viewer:?} has {} bytes, more than the {MAX_SVG_BYTES} a board \
                 may have",
                svg.len()
            )));
        }
        let parsed = parse_svg(&svg).map_err(|e| {
            ctx.fail(format!(
                "the board for {viewer:?} is not a well-formed SVG document: {e}\n  {}",
                excerpt(&svg)
            ))
        })?;
        if ctx.ok("render_svg", state.render_svg(viewer))?.as_deref() != Some(svg.as_str()) {
            return Err(ctx.fail(format!(
                "the board for {viewer:?} differs when drawn again from the same state"
            )));
        }
        summary.boards_drawn += 1;
        boards.push((viewer, Some(parsed.ids)));
    }
    ctx.recorder.enter("action-targets");
    let Status::ToMove(movers) = ctx.ok("status", state.status())? else {
        return Ok(());
    };
    let mut legal = Vec::new();
    for p in movers.iter() {
        ctx.ok("legal_actions", state.legal_actions(p, &mut legal))?;
        let Some(targets) = ctx.ok("action_targets", state.action_targets(p, &legal))? else {
            continue;
        };
        if targets.len() != legal.len() {
            return Err(ctx.fail(format!(
                "action_targets gives {} lists for seat {p}'s {} legal actions",
                targets.len(),
                legal.len()
            )));
        }
        if ctx
            .ok("action_targets", state.action_targets(p, &legal))?
            .as_ref()
            != Some(&targets)
        {
            return Err(ctx.fail(format!(
                "the targets of seat {p}'s actions differ when asked again"
            )));
        }
        let board = boards
            .iter()
            .find(|(viewer, _)| *viewer == Viewer::Seat(p))
            .and_then(|(_, ids)| ids.as_ref());
        let Some(ids) = board else {
            if targets.iter().any(|t| !t.is_empty()) {
                return Err(ctx.fail(format!(
                    "seat {p}'s actions name board elements, but the game draws no board"
                )));
            }
            continue;
        };
        for (&action, named) in legal.iter().zip(&targets) {
            if let Some(missing) = named.iter().find(|id| !ids.contains(*id)) {
                let notation = state
                    .action_to_string(p, action)
                    .unwrap_or_else(|_| action.to_string());
                return Err(ctx.fail(format!(
                    "action {notation} of seat {p} names the target {missing:?}, which is no \
                     element id of that seat's board (targets {named:?})"
                )));
            }
        }
        summary.targets_checked += targets.len() as u64;
    }
    Ok(())
}

/// The start of a long document, for a failure message.
fn excerpt(svg: &str) -> &str {
    let mut end = svg.len().min(400);
    while !svg.is_char_boundary(end) {
        end -= 1;
    }
    &svg[..end]
}
