//! Where a check runs (game, players, options, seed, step), how it fails, and
//! the observations the checks compare.

use std::collections::BTreeMap;

use super::Failure;
use crate::dynamic::{DynGame, DynState};
use crate::error::GameError;
use crate::types::{ActionId, Transition, Viewer};

/// One match being checked: every failure names it.
pub(super) struct Ctx<'a> {
    pub(super) game: &'a dyn DynGame,
    pub(super) players: u32,
    pub(super) options: &'a BTreeMap<String, String>,
    pub(super) seed: u64,
    pub(super) step: u64,
}

impl Ctx<'_> {
    pub(super) fn fail(&self, what: impl std::fmt::Display) -> Failure {
        Failure {
            message: format!(
                "{} conformance: players={} options={:?} seed={} step={}: {what}",
                self.game.manifest().name,
                self.players,
                self.options,
                self.seed,
                self.step
            ),
        }
    }

    /// Unwraps a call that must succeed; any error (a panic above all) fails.
    pub(super) fn ok<T>(&self, call: &str, result: Result<T, GameError>) -> Result<T, Failure> {
        result.map_err(|e| self.fail(format!("{call} failed ({:?}): {}", e.kind, e.message)))
    }

    /// Checks that a call that should be refused was refused as bad input, not a fault.
    pub(super) fn refused<T: std::fmt::Debug>(
        &self,
        what: &str,
        result: Result<T, GameError>,
    ) -> Result<GameError, Failure> {
        match result {
            Ok(value) => Err(self.fail(format!("{what} was accepted ({value:?})"))),
            Err(e) if e.kind.is_fault() => Err(self.fail(format!(
                "{what} was refused with a fault ({:?}): {}",
                e.kind, e.message
            ))),
            Err(e) => Ok(e),
        }
    }
}

/// Everything a viewer can observe of a state; must not change across resamples.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Observation {
    pub(super) view: String,
    pub(super) text: String,
    pub(super) legal: Vec<ActionId>,
    pub(super) parse_error: Option<String>,
    pub(super) svg: Option<String>,
    pub(super) targets: Option<Vec<Vec<String>>>,
}

pub(super) fn observe(
    ctx: &Ctx<'_>,
    state: &dyn DynState,
    viewer: Viewer,
) -> Result<Observation, Failure> {
    let view = ctx.ok("view", state.view(viewer))?;
    let text = ctx.ok("render_text", state.render_text(viewer))?;
    let svg = ctx.ok("render_svg", state.render_svg(viewer))?;
    let (legal, parse_error, targets) = match viewer {
        Viewer::Seat(p) => {
            let mut legal = Vec::new();
            ctx.ok("legal_actions", state.legal_actions(p, &mut legal))?;
            let parse_error = state
                .parse_action(p, "?? not an action ??")
                .err()
                .map(|e| e.message);
            let targets = ctx.ok("action_targets", state.action_targets(p, &legal))?;
            (legal, parse_error, targets)
        }
        Viewer::Spectator => (Vec::new(), None, None),
    };
    Ok(Observation {
        view,
        text,
        legal,
        parse_error,
        svg,
        targets,
    })
}

/// Every seat, then the spectator.
pub(super) fn viewers(players: u32) -> impl Iterator<Item = Viewer> {
    (0..players)
        .map(Viewer::Seat)
        .chain(std::iter::once(Viewer::Spectator))
}

/// A fingerprint of a whole state: its position and every viewer's view.
pub(super) fn fingerprint(ctx: &Ctx<'_>, state: &dyn DynState) -> Result<String, Failure> {
    let mut out = ctx.ok("position", state.position())?;
    for viewer in viewers(ctx.players) {
        out.push('\n');
        out.push_str(&ctx.ok("view", state.view(viewer))?);
    }
    Ok(out)
}

/// Applies a logged transition, which must succeed.
pub(super) fn apply(
    ctx: &Ctx<'_>,
    state: &mut dyn DynState,
    transition: &Transition,
) -> Result<(), Failure> {
    match transition {
        Transition::Moves(moves) => ctx.ok(&format!("apply {moves:?}"), state.apply(moves)),
        Transition::Chance(outcome) => ctx.ok(
            &format!("apply_chance {outcome}"),
            state.apply_chance(*outcome),
        ),
    }
}
