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
mod seat_names;
mod svg;

use std::collections::BTreeMap;

use crate::dynamic::DynGame;
use context::Ctx;
use random_match::play_one;
use removals::play_with_removals;

pub use agree::agree;
pub use built_plugin::built_plugin_path;
#[cfg(feature = "import")]
pub use built_plugin::open_built_plugin;
pub use claims::Claims;
pub use readme::{ReadmePosition, check_readme_positions, readme_positions};

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
    /// The first seed; match `i` uses `seed + i`.
    pub seed: u64,
    /// The claims of the manifest that the run must see borne out at least
    /// once (default: all of them). A run whose player counts or options
    /// cannot show a claimed behaviour (Focus meets chance only under a
    /// two-player option) clears that flag. A claim the manifest does not
    /// make is never required, and a behaviour it denies fails whenever it
    /// shows, whatever this says.
    pub claims_to_meet: Claims,
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
            seed: 1,
            claims_to_meet: Claims::of(manifest),
        }
    }
}

/// What a successful run covered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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

/// A failed check: where (game, players, options, seed, step) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// Human-readable location and problem.
    pub message: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// Runs the whole kit against `game`: the random matches with every check,
/// then the manifest's claims of `true` against what they showed, then, for a
/// game that can take players out, the matches with removals.
pub fn run(game: &dyn DynGame, config: &Config) -> Result<Summary, Failure> {
    let mut summary = Summary::default();
    for &players in &config.player_counts {
        for options in &config.option_sets {
            for i in 0..config.matches {
                let mut ctx = Ctx {
                    game,
                    players,
                    options,
                    seed: config.seed.wrapping_add(u64::from(i)),
                    step: 0,
                };
                if i == 0 {
                    seat_names::check_seat_names(&ctx)?;
                }
                play_one(&mut ctx, config, &mut summary)?;
            }
        }
    }
    claims::check_claims_met(game, config, &summary)?;
    if game.manifest().removable_players {
        for &players in &config.player_counts {
            for options in &config.option_sets {
                for i in 0..config.matches {
                    let mut ctx = Ctx {
                        game,
                        players,
                        options,
                        seed: config.seed.wrapping_add(u64::from(i)) ^ 0x0be5_eed5,
                        step: 0,
                    };
                    play_with_removals(&mut ctx, config, &mut summary)?;
                }
            }
        }
    }
    Ok(summary)
}
