//! The checks of [`smoke_check`](super::smoke_check) after loading: the
//! options' defaults, then the SDK's conformance kit
//! ([`tabletop_sdk::conformance`]) on a time budget: the same checks
//! `tabletop plugin check` runs, every extension the game offers called on
//! the positions the kit checks.

use std::time::Duration;

use tabletop_sdk::conformance::{self, Claims, Config};
use tabletop_sdk::{DynGame, Manifest};

use super::Refusal;

/// Random matches per player count the kit plays when the budget allows.
const MATCHES: u32 = 2;

/// The kit's config for the host's check of `game`: [`MATCHES`] matches
/// per player count with default options, the costly checks at each of
/// the first 8 transitions and then every 32nd, no match started after
/// `budget` (but one per player count always). Claims of `true` are not
/// required to show (a host loses nothing by a claim the matches did not
/// bear out); a behaviour the manifest denies fails whenever it shows.
pub(super) fn config(game: &dyn DynGame, budget: Duration) -> Config {
    let mut config = Config::for_plugin_check(game, MATCHES, 1);
    config.once_option_sets.clear();
    config.check_first = 8;
    config.check_every = 32;
    config.claims_to_meet = Claims {
        chance: false,
        simultaneous: false,
        hidden_information: false,
    };
    config.time_budget = Some(budget);
    config
}

/// The checks after loading: the options, then the kit. Returns (matches,
/// transitions); the first failure of each check that failed is the
/// refusal, each named.
pub(super) fn play_checks(game: &dyn DynGame, budget: Duration) -> Result<(u32, u64), Refusal> {
    check_options(game.manifest())?;
    let report = conformance::run_all(game, &config(game, budget), &|_| {});
    if !report.failures.is_empty() {
        let named: Vec<String> = report
            .failures
            .iter()
            .map(|f| format!("check `{}` failed: {}", f.check, f.message))
            .collect();
        return Err(Refusal::Misbehaved(named.join("; ")));
    }
    let matches = u32::try_from(report.summary.matches).unwrap_or(u32::MAX);
    Ok((matches, report.summary.transitions))
}

/// Every option's default must be a value of the option: matches are
/// created with the defaults.
pub(super) fn check_options(manifest: &Manifest) -> Result<(), Refusal> {
    for spec in &manifest.options {
        spec.parse(&spec.default.to_text()).map_err(|e| {
            Refusal::Misbehaved(format!(
                "the default of option `{}` is not one of its values: {e}",
                spec.name
            ))
        })?;
    }
    Ok(())
}
