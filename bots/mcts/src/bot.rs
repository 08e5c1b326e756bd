//! A bot: a named way of choosing a seat's action, read from a spec.

use std::fmt;
use std::str::FromStr;

use tabletop_sdk::{ActionId, DynState, GameError, Player, PlayerSet, Status};

use crate::rng::Rng;
use crate::search::{Choice, search};
use crate::spec::{MctsConfig, SpecError, parse_mcts, unknown, write_mcts};

/// A bot that can play any game through [`DynState`].
#[derive(Debug, Clone, PartialEq)]
pub enum Bot {
    /// A uniformly random legal action.
    Random,
    /// The search (see the [crate] documentation) with these settings.
    Mcts(MctsConfig),
}

impl Bot {
    /// The bot a spec names (the [crate] documentation lists the forms):
    /// `random`, `mcts`, `mcts:2000`, `mcts:500ms:depth=40`.
    pub fn from_spec(spec: &str) -> Result<Bot, SpecError> {
        match spec.trim() {
            "random" => Ok(Bot::Random),
            "mcts" => Ok(Bot::Mcts(MctsConfig::DEFAULT)),
            other => match other.strip_prefix("mcts:") {
                Some(rest) => parse_mcts(rest).map(Bot::Mcts),
                None => Err(unknown(other)),
            },
        }
    }

    /// The spec that names this bot; [`Bot::from_spec`] reads it back.
    pub fn spec(&self) -> String {
        match self {
            Bot::Random => "random".to_string(),
            Bot::Mcts(config) => write_mcts(config),
        }
    }

    /// The action of `seat` in `state`, a state of a `players`-seat match
    /// in which `seat` is to move (alone or with others: then the bot
    /// chooses its own seat's action). The same `seed` gives the same action
    /// for a bot with an iteration budget. The bot uses only what `seat`
    /// sees: its legal actions and resamples of `state` for its seat.
    pub fn choose(
        &self,
        state: &dyn DynState,
        players: u32,
        seat: Player,
        seed: u64,
    ) -> Result<ActionId, GameError> {
        self.think(state, players, seat, seed).map(|c| c.action)
    }

    /// [`Bot::choose`], with what the choice cost.
    pub fn think(
        &self,
        state: &dyn DynState,
        players: u32,
        seat: Player,
        seed: u64,
    ) -> Result<Choice, GameError> {
        self.think_within(state, players, seat, seed, None)
    }

    /// [`Bot::think`], stopping the search after `limit` at the latest
    /// (a seat's clock, a host's cap on thinking), whatever its budget: at
    /// least one iteration runs. With a limit an iteration budget may run
    /// fewer iterations, and the choice then depends on the machine's speed.
    pub fn think_within(
        &self,
        state: &dyn DynState,
        players: u32,
        seat: Player,
        seed: u64,
        limit: Option<std::time::Duration>,
    ) -> Result<Choice, GameError> {
        if players == 0 || players > PlayerSet::MAX_PLAYERS || seat >= players {
            return Err(GameError::not_your_turn(format!(
                "seat {seat} is not a seat of a {players}-seat match"
            )));
        }
        match state.status()? {
            Status::ToMove(movers) if movers.contains(seat) => {}
            _ => {
                return Err(GameError::not_your_turn(format!(
                    "seat {seat} is not to move"
                )));
            }
        }
        let mut legal = Vec::new();
        state.legal_actions(seat, &mut legal)?;
        if legal.is_empty() {
            return Err(GameError::internal(format!(
                "seat {seat} is to move but has no legal action"
            )));
        }
        match self {
            Bot::Random => Ok(Choice {
                action: legal[Rng::new(seed).below(legal.len())],
                iterations: 0,
                nodes: 0,
                visits: Vec::new(),
                elapsed: std::time::Duration::ZERO,
            }),
            Bot::Mcts(config) => search(state, players, seat, &legal, seed, config, limit),
        }
    }
}

impl fmt::Display for Bot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.spec())
    }
}

impl FromStr for Bot {
    type Err = SpecError;

    fn from_str(spec: &str) -> Result<Bot, SpecError> {
        Bot::from_spec(spec)
    }
}
