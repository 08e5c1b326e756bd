//! Where a check runs (game, players, options, seed, step), how it fails, and
//! the observations the checks compare.

use std::collections::BTreeMap;

use super::Failure;
use super::report::{Played, Progress, Recorder};
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
    /// The steps played from the start, for a failure to name.
    pub(super) played: Vec<Played>,
    pub(super) recorder: &'a Recorder<'a>,
}

impl<'a> Ctx<'a> {
    /// A match of `game` from its start, which tells the recorder's watcher
    /// it starts.
    pub(super) fn start(
        game: &'a dyn DynGame,
        players: u32,
        options: &'a BTreeMap<String, String>,
        seed: u64,
        removals: bool,
        recorder: &'a Recorder<'a>,
    ) -> Ctx<'a> {
        recorder.tell(&Progress::Match {
            players,
            options,
            seed,
            removals,
        });
        recorder
            .check
            .set(if removals { "removals" } else { "play" });
        Ctx {
            game,
            players,
            options,
            seed,
            step: 0,
            played: Vec::new(),
            recorder,
        }
    }

    /// A failure of the running check at this point of the match.
    pub(super) fn fail(&self, what: impl std::fmt::Display) -> Failure {
        self.fail_as(self.recorder.check.get(), what)
    }

    /// A failure of `check` at this point of the match.
    pub(super) fn fail_as(&self, check: &str, what: impl std::fmt::Display) -> Failure {
        Failure {
            check: check.to_string(),
            message: format!(
                "{} conformance: players={} options={:?} seed={} step={}: {what}",
                self.game.manifest().name,
                self.players,
                self.options,
                self.seed,
                self.step
            ),
            players: self.players,
            options: self.options.clone(),
            seed: self.seed,
            step: self.step,
            actions: self.played.clone(),
        }
    }

    /// Notes a step played, and tells the watcher.
    pub(super) fn note(&mut self, played: Played) {
        self.recorder.tell(&Progress::Played(&played));
        self.played.push(played);
    }

    /// Runs `check` under its name `name`. A failure is recorded and the
    /// match goes on (`Ok(false)`), unless the run stops at its first; a
    /// check that failed before in the run is skipped (`Ok(true)`), so each
    /// check reports its first failure and the others still run.
    pub(super) fn soft(
        &self,
        name: &'static str,
        check: impl FnOnce() -> Result<(), Failure>,
    ) -> Result<bool, Failure> {
        if self.recorder.has_failed(name) {
            return Ok(true);
        }
        let outer = self.recorder.enter(name);
        let result = check();
        self.recorder.enter(outer);
        match result {
            Ok(()) => Ok(true),
            Err(failure) if self.recorder.stop_at_first => Err(failure),
            Err(failure) => {
                self.recorder.record(failure);
                Ok(false)
            }
        }
    }

    /// Runs `check` under its name `name`; a failure ends the match.
    pub(super) fn hard<T>(
        &self,
        name: &'static str,
        check: impl FnOnce() -> Result<T, Failure>,
    ) -> Result<T, Failure> {
        let outer = self.recorder.enter(name);
        let result = check();
        self.recorder.enter(outer);
        result
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
