//! The conformance kit: one suite of checks every game runs, in-process and
//! through its built plugin (in the spirit of OpenSpiel's random-simulation
//! tests). A game crate gets all of it from one [`kit_tests!`](crate::kit_tests)
//! invocation in its tests.
//!
//! [`run`] plays many random matches for every configured player count and
//! option set, and at every decision checks that:
//! - each player to move has legal actions, ascending and unique, and players
//!   not to move have none;
//! - every legal action's text parses back to it, and ids that are not legal
//!   (and joint actions with a missing, extra or repeated player) are refused
//!   without changing the state;
//! - a clone is independent and equal; the position text round-trips to a state
//!   with identical views;
//! - **nothing leaks**: for every viewer, states resampled for that viewer give
//!   identical views, text, legal actions and error messages, and identical
//!   events for transitions that reveal nothing new to the viewer, and
//!   resample to the same state with the same random (resampling reads
//!   nothing hidden from the viewer);
//! - **refusals say why** (a game offering the explain-refusal extension):
//!   every id of the action space that is not legal for a player to move
//!   (all of a small space, a sample of a large one) is explained with a
//!   specific reason code, a legal one is not, legal texts are not, and
//!   texts that do not parse are, with the kind their `parse_action` refusal
//!   has; the explanations read the same in every world resampled for the
//!   player;
//! - a game that names its seats names each seat of every player count once,
//!   briefly and distinctly;
//! - a game that evaluates positions gives every seat one finite value in
//!   0..=1, the same when asked again (the values may read hidden
//!   information: bots evaluate worlds they resampled themselves);
//! - **boards** (a game offering the svg-board extension): every viewer's
//!   SVG is a well-formed document rooted at `<svg>`, at most
//!   [`MAX_SVG_BYTES`](crate::abi::MAX_SVG_BYTES), the same when drawn
//!   again and across the viewer's resampled states (it shows nothing
//!   hidden); with the action-targets extension every target of a mover's
//!   legal action is an element `id` of that mover's board, and the targets
//!   are the same when asked again and across resamples;
//! - explicit chance nodes refuse outcomes they do not list;
//! - every match ends within `max_steps` transitions and a terminal state has a
//!   result for every player, with someone in first place;
//! - replaying the log from the start gives identical states and views;
//! - no call ever reports a panic or a poisoned state;
//! - **the manifest's claims hold**: a game that says `chance: false` meets
//!   no chance node, `simultaneous: false` never has several players to move
//!   at once, and `hidden_information: false` has no state that a resample
//!   for some viewer changes (its position text differs). A claim of `true`
//!   must show at least once in the run: a chance node, a simultaneous turn,
//!   a resample that differs from the original (see [`Config::claims_to_meet`]);
//! - **removing a player** ([`crate::RemovePlayer::remove_player`]): a game whose
//!   manifest says `removable_players: false` refuses it without a fault and
//!   without changing the state. A game that says `true` plays further random
//!   matches in which, at random decisions, a random seat still in is removed
//!   (up to all but one): the state stays consistent (position round-trip,
//!   clone), removing that seat again or a seat that does not exist is refused
//!   and changes nothing, the removed seat is never to move again and has no
//!   legal actions, the match still ends, the results rank every seat, and
//!   replaying the log (removals included) gives the same final state.
//!
//! [`agree`] plays the same seeded random matches on a game's built plugin and
//! on the game linked in-process and checks that both give the same status,
//! legal actions and their notation, positions, views and text for every
//! viewer, events, refusals and results at every step: the ABI loses and
//! adds nothing.
//!
//! Simultaneous moves are driven as the host drives them: each mover's action is
//! collected, and only the full joint action reaches the game, so a pending
//! action never exists in any state a viewer can see.

mod agree;
mod boards;
mod built_plugin;
mod claims;
mod consistency;
mod context;
mod evaluated;
mod explained;
mod hidden;
mod notation;
mod random_match;
mod readme;
mod refusals;
mod removals;
mod report;
mod seat_names;
mod svg;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::dynamic::DynGame;
use context::Ctx;
use random_match::play_one;
use removals::play_with_removals;
use report::Recorder;

pub use agree::agree;
pub use built_plugin::built_plugin_path;
#[cfg(feature = "import")]
pub use built_plugin::open_built_plugin;
pub use claims::Claims;
pub use readme::{ReadmePosition, check_readme_positions, readme_positions};
pub use report::{CHECKS, Failure, Played, Progress, Report};

/// The version of the kit's checks: a verdict cached for a plugin file holds
/// only for the kit version that gave it. It changes whenever a check is
/// added or made stricter.
pub const KIT_VERSION: u32 = 1;

/// What to run.
#[derive(Debug, Clone)]
pub struct Config {
    /// Player counts to play (default: every count the manifest allows).
    pub player_counts: Vec<u32>,
    /// Option sets to play, raw `name = text` (default: one empty set).
    pub option_sets: Vec<BTreeMap<String, String>>,
    /// Random matches per player count and option set.
    pub matches: u32,
    /// Random matches per player count and option set that [`agree`] plays.
    /// It compares everything at every step, where the kit samples its
    /// costly checks, so it needs fewer matches.
    pub agreement_matches: u32,
    /// A match that has not ended after this many transitions fails.
    pub max_steps: u64,
    /// Resampled states compared per viewer at each checked decision.
    pub resamples: u32,
    /// Run the expensive checks (resampling, position round-trip, illegal ids)
    /// at every `check_every`-th transition; 1 checks every one.
    pub check_every: u64,
    /// The expensive checks also run at every one of a match's first
    /// `check_first` transitions, whatever `check_every` says (default 0).
    pub check_first: u64,
    /// The first seed; match `i` uses `seed + i`.
    pub seed: u64,
    /// The claims of the manifest that the run must see borne out at least
    /// once (default: all of them). A run whose player counts or options
    /// cannot show a claimed behaviour (Focus meets chance only under a
    /// two-player option) clears that flag. A claim the manifest does not
    /// make is never required, and a behaviour it denies fails whenever it
    /// shows, whatever this says.
    pub claims_to_meet: Claims,
    /// No match starts after this much time has passed since the run began,
    /// except each player count and option set's first (`None`: no limit).
    /// A run cut short this way checks fewer matches, and does not judge
    /// the manifest's claims of `true` unless every match was played.
    pub time_budget: Option<Duration>,
    /// Option sets played once per player count, in the first round only
    /// (default: none).
    pub once_option_sets: Vec<BTreeMap<String, String>>,
}

impl Config {
    /// Defaults for `game`: every player count, 8 matches each (2 for
    /// [`agree`]), 2 resamples, every claim of the manifest to be met.
    pub fn for_game(game: &dyn DynGame) -> Config {
        let manifest = game.manifest();
        Config {
            player_counts: (manifest.min_players..=manifest.max_players).collect(),
            option_sets: vec![BTreeMap::new()],
            matches: 8,
            agreement_matches: 2,
            max_steps: 100_000,
            resamples: 2,
            check_every: 1,
            check_first: 0,
            seed: 1,
            claims_to_meet: Claims::of(manifest),
            time_budget: None,
            once_option_sets: Vec::new(),
        }
    }
}

impl Config {
    /// The config of a check of any plugin file, knowing nothing of the game
    /// but its manifest (`tabletop plugin check`, the host's check before
    /// loading): every player count, `matches` matches each from `seed` on
    /// with default options, and one more match per player count for each
    /// non-default value of each yes/no or choice option, one change at a
    /// time (at most [`MAX_OPTION_VARIANTS`] of them), so that a behaviour
    /// only an option brings on (a random opening under one choice) shows.
    pub fn for_plugin_check(game: &dyn DynGame, matches: u32, seed: u64) -> Config {
        let mut config = Config::for_game(game);
        config.matches = matches.max(1);
        config.seed = seed;
        config.resamples = 1;
        // The costly checks at each of the first 24 transitions, then at
        // every 8th: long games stay within seconds, short ones are checked
        // throughout.
        config.check_every = 8;
        config.check_first = 24;
        config.once_option_sets = option_variants(game.manifest());
        config
    }
}

/// Whether `game` refuses to start a match of `players` with `options` as
/// bad input (an option that does not apply to that many players).
fn refuses(game: &dyn DynGame, players: u32, options: &BTreeMap<String, String>) -> bool {
    game.new_state(players, options, None)
        .is_err_and(|e| !e.kind.is_fault())
}

/// The most option sets besides the defaults that
/// [`Config::for_plugin_check`] plays.
pub const MAX_OPTION_VARIANTS: usize = 6;

/// One option set per non-default value of each yes/no or choice option.
fn option_variants(manifest: &crate::manifest::Manifest) -> Vec<BTreeMap<String, String>> {
    use crate::manifest::OptionKind;
    let mut sets = Vec::new();
    for spec in &manifest.options {
        let default = spec.default.to_text();
        let values: Vec<String> = match &spec.kind {
            OptionKind::Bool => vec!["true".into(), "false".into()],
            OptionKind::Choice(words) => words.clone(),
            OptionKind::Int { .. } | OptionKind::Text => Vec::new(),
        };
        for value in values.into_iter().filter(|v| *v != default) {
            sets.push(BTreeMap::from([(spec.name.clone(), value)]));
        }
    }
    sets.truncate(MAX_OPTION_VARIANTS);
    sets
}

/// What a successful run covered.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Matches played to the end.
    pub matches: u64,
    /// Transitions applied (moves and chance).
    pub transitions: u64,
    /// Chance outcomes drawn.
    pub chance_nodes: u64,
    /// Decisions where several players moved at once.
    pub simultaneous_turns: u64,
    /// Matches in which some player stopped being to move while others went on.
    pub matches_with_dropout: u64,
    /// Players removed with `remove_player` (games that declare
    /// `removable_players` only), over the matches played for it.
    pub removals: u64,
    /// Resampled states whose position differed from the original: something
    /// was hidden from the viewer they were drawn for.
    pub differing_resamples: u64,
    /// Refused attempts (ids and texts) the game explained with a specific
    /// reason (games offering the explain-refusal extension).
    pub explained_refusals: u64,
    /// States the game evaluated, each with well-formed values (games
    /// offering the evaluate extension).
    pub evaluations: u64,
    /// SVG boards drawn and checked (games offering the svg-board
    /// extension), one per viewer and checked state.
    pub boards_drawn: u64,
    /// Legal actions whose targets were found on the mover's board (games
    /// offering the action-targets extension).
    pub targets_checked: u64,
}

/// Runs the whole kit against `game` and returns at its first failure:
/// see [`run_all`].
pub fn run(game: &dyn DynGame, config: &Config) -> Result<Summary, Failure> {
    let report = run_with(game, config, &|_| {}, true);
    match report.failures.into_iter().next() {
        Some(failure) => Err(failure),
        None => Ok(report.summary),
    }
}

/// Runs the whole kit against `game`: the random matches with every check,
/// then the manifest's claims of `true` against what they showed, then, for a
/// game that can take players out, the matches with removals. A failed check
/// is recorded and the run goes on (a failure the match cannot go on from
/// ends that match only), so the report holds the first failure of every
/// check that fails. `watcher` hears of each match, check and step as it
/// happens.
pub fn run_all(game: &dyn DynGame, config: &Config, watcher: &dyn Fn(&Progress<'_>)) -> Report {
    run_with(game, config, watcher, false)
}

fn run_with(
    game: &dyn DynGame,
    config: &Config,
    watcher: &dyn Fn(&Progress<'_>),
    stop_at_first: bool,
) -> Report {
    let recorder = Recorder::new(watcher, stop_at_first);
    let mut summary = Summary::default();
    let started = Instant::now();
    let out_of_time = || config.time_budget.is_some_and(|b| started.elapsed() >= b);
    let mut cut_short = false;
    let stop = |recorder: &Recorder<'_>| stop_at_first && recorder.any_failed();
    'matches: for i in 0..config.matches {
        let once = if i == 0 {
            config.once_option_sets.as_slice()
        } else {
            &[]
        };
        for &players in &config.player_counts {
            for options in config.option_sets.iter().chain(once) {
                if stop(&recorder) {
                    break 'matches;
                }
                if i > 0 && out_of_time() {
                    cut_short = true;
                    break 'matches;
                }
                let variant = !config.option_sets.contains(options);
                if variant && refuses(game, players, options) {
                    // This option does not apply to this many players.
                    continue;
                }
                let mut ctx = Ctx::start(
                    game,
                    players,
                    options,
                    config.seed.wrapping_add(u64::from(i)),
                    false,
                    &recorder,
                );
                if i == 0 {
                    let named = ctx.soft("seat-names", || seat_names::check_seat_names(&ctx));
                    if let Err(failure) = named {
                        recorder.record(failure);
                    }
                }
                if let Err(failure) = play_one(&mut ctx, config, &mut summary) {
                    recorder.record(failure);
                }
            }
        }
    }
    if !cut_short && !stop(&recorder) {
        recorder.enter("manifest-claims");
        if let Err(failure) = claims::check_claims_met(game, config, &summary) {
            recorder.record(failure);
        }
    }
    if game.manifest().removable_players {
        let started = Instant::now();
        let out_of_time = || config.time_budget.is_some_and(|b| started.elapsed() >= b);
        'removals: for i in 0..config.matches {
            for &players in &config.player_counts {
                for options in &config.option_sets {
                    if stop(&recorder) || (i > 0 && out_of_time()) {
                        break 'removals;
                    }
                    let mut ctx = Ctx::start(
                        game,
                        players,
                        options,
                        config.seed.wrapping_add(u64::from(i)) ^ 0x0be5_eed5,
                        true,
                        &recorder,
                    );
                    if let Err(failure) = play_with_removals(&mut ctx, config, &mut summary) {
                        recorder.record(failure);
                    }
                }
            }
        }
    }
    Report {
        summary,
        failures: recorder.into_failures(),
    }
}
