//! One search that plays every Tabletop game, through the SDK's
//! [`DynGame`](tabletop_sdk::DynGame) / [`DynState`](tabletop_sdk::DynState)
//! and nothing game-specific: a game linked in-process and a loaded plugin
//! are played alike, plugins added later included.
//!
//! The search is Monte Carlo tree search (UCT) made to fit what the plugin
//! contract carries:
//! - **chance** nodes draw their outcome from the game's distribution (a
//!   sampled node keeps a few outcomes in the tree and then draws among
//!   them);
//! - **simultaneous moves** by decoupled UCT: at a node where several seats
//!   move at once, each picks its action by UCB1 over its own statistics;
//! - **hidden information** by determinization: every iteration starts from
//!   a fresh resample of the state for the bot's seat (the game's resampler,
//!   [`DynState::resample`](tabletop_sdk::DynState::resample)), so the bot
//!   uses only what its seat sees. Actions count how often they were
//!   available and UCB uses that count (information-set MCTS);
//! - **playouts** play at random and are cut off after a configurable depth;
//!   the end is scored by the game's ranks when the game ended, else by the
//!   game's evaluation ([`DynState::evaluate`](tabletop_sdk::DynState::evaluate))
//!   when it offers one, else as a draw.
//!
//! **Scores.** A finished game scores each seat by the fraction of its
//! opponents it finished ahead of, a shared place counting half: with two
//! players 1 for a win, 0.5 for a draw, 0 for a loss; with three to six,
//! first scores 1, last 0, and each place in between its share. Each seat
//! maximises its own score (the search does not assume anyone plays against
//! the bot in particular).
//!
//! **Specs.** A bot is named by a short text, as seats, records and the arena
//! write it:
//!
//! ```text
//! random                 a uniformly random legal action
//! mcts                   the search with its defaults (1000 iterations)
//! mcts:2000              2000 iterations per move
//! mcts:500ms             half a second per move (also `2s`)
//! mcts:500ms:depth=40    playouts cut off after 40 transitions (default 20)
//! mcts:2000:c=1.2        exploration constant of UCB1 (default 0.7)
//! ```
//!
//! With an iteration budget the choice depends only on the state as the
//! seat sees it and the seed: the same on every run and machine. A time
//! budget runs as many iterations as fit.
//!
//! ```
//! use std::collections::BTreeMap;
//! use tabletop_mcts::Bot;
//! use tabletop_sdk::{DynGame, InProcess};
//!
//! let game = InProcess::new(war::War);
//! let state = game.new_state(2, &BTreeMap::new(), None).unwrap();
//! let bot = Bot::from_spec("mcts:50").unwrap();
//! let action = bot.choose(state.as_ref(), 2, 0, 7).unwrap();
//! assert_eq!(action, bot.choose(state.as_ref(), 2, 0, 7).unwrap());
//! ```

mod bot;
mod rng;
mod score;
mod search;
mod spec;
pub mod stats;
mod tree;

pub use bot::Bot;
pub use search::Choice;
pub use spec::{Budget, MctsConfig, SpecError};
