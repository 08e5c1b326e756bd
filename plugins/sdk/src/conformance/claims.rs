//! The manifest's claims against what the random matches showed.
//!
//! A claim of `false` is broken the moment the behaviour shows (a chance
//! node, several players to move at once, a state resampled for a viewer
//! that differs from the original), and the check fails there, naming the
//! match and step. A claim of `true` is broken by a whole run that never
//! shows the behaviour, and is checked once the random matches are over.

use super::context::Ctx;
use super::{Config, Failure, Summary};
use crate::dynamic::DynGame;
use crate::manifest::Manifest;
use crate::types::{PlayerSet, Viewer};

/// The behaviours a manifest claims, one flag each: chance nodes, several
/// players to move at once, information some viewer may not see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Claims {
    /// [`Manifest::chance`].
    pub chance: bool,
    /// [`Manifest::simultaneous`].
    pub simultaneous: bool,
    /// [`Manifest::hidden_information`].
    pub hidden_information: bool,
}

impl Claims {
    /// The claims `manifest` makes.
    pub fn of(manifest: &Manifest) -> Claims {
        Claims {
            chance: manifest.chance,
            simultaneous: manifest.simultaneous,
            hidden_information: manifest.hidden_information,
        }
    }
}

/// A chance node was met: the manifest must claim `chance`.
pub(super) fn chance_met(ctx: &Ctx<'_>) -> Result<(), Failure> {
    if ctx.game.manifest().chance {
        return Ok(());
    }
    Err(ctx.fail_as(
        "manifest-claims",
        "the manifest claims `chance: false`, but a chance node was met",
    ))
}

/// Several players are to move at once: the manifest must claim
/// `simultaneous`.
pub(super) fn simultaneous_met(ctx: &Ctx<'_>, movers: PlayerSet) -> Result<(), Failure> {
    if ctx.game.manifest().simultaneous {
        return Ok(());
    }
    Err(ctx.fail_as(
        "manifest-claims",
        format!(
            "the manifest claims `simultaneous: false`, but seats {:?} are to move at once",
            movers.iter().collect::<Vec<_>>()
        ),
    ))
}

/// A state resampled for `viewer` differs from the original: something was
/// hidden from that viewer, so the manifest must claim `hidden_information`.
pub(super) fn hidden_information_met(
    ctx: &Ctx<'_>,
    viewer: Viewer,
    original: &str,
    resampled: &str,
) -> Result<(), Failure> {
    if ctx.game.manifest().hidden_information {
        return Ok(());
    }
    Err(ctx.fail_as(
        "manifest-claims",
        format!(
            "the manifest claims `hidden_information: false`, but a state resampled for {viewer:?} \
         differs from the original\n  original: {original}\n  resampled: {resampled}"
        ),
    ))
}

/// Every claim of `true` that `config` asks to meet showed at least once in
/// the run `summary` describes.
pub(super) fn check_claims_met(
    game: &dyn DynGame,
    config: &Config,
    summary: &Summary,
) -> Result<(), Failure> {
    let claimed = Claims::of(game.manifest());
    let wanted = config.claims_to_meet;
    let unmet = if claimed.chance && wanted.chance && summary.chance_nodes == 0 {
        Some(("chance", "no chance node was met"))
    } else if claimed.simultaneous && wanted.simultaneous && summary.simultaneous_turns == 0 {
        Some(("simultaneous", "no two players were ever to move at once"))
    } else if claimed.hidden_information
        && wanted.hidden_information
        && summary.differing_resamples == 0
    {
        Some((
            "hidden_information",
            "every state resampled for every viewer equalled the original: nothing was hidden",
        ))
    } else {
        None
    };
    let Some((claim, what)) = unmet else {
        return Ok(());
    };
    Err(Failure::new(
        "manifest-claims",
        format!(
            "{} conformance: players={:?} options={:?}: the manifest claims `{claim}: true`, but \
             {what} in {} random matches (a run whose player counts or options cannot show it \
             clears `Config::claims_to_meet.{claim}`)",
            game.manifest().name,
            config.player_counts,
            config.option_sets,
            summary.matches
        ),
    ))
}
