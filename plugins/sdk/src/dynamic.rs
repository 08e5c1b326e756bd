//! Object-safe views of a game, so one driver (the host, the conformance kit)
//! can run a game in-process or through a loaded plugin without knowing which.
//!
//! [`InProcess`] adapts any [`Game`]; engine-host's loader adapts a plugin's C
//! table. Both return JSON views as text, so their outputs compare byte for byte.

use std::any::Any;
use std::collections::BTreeMap;
use std::sync::Arc;

use crate::error::GameError;
use crate::extension::Extended;
#[cfg(doc)]
use crate::game::Game;
use crate::game::chance_to_act;
use crate::manifest::{Manifest, Setup};
use crate::types::{
    ActionId, Attempt, Chance, Move, Player, PlayerResult, Refusal, SeatOut, Status, Transition,
    Viewer,
};

/// A game that can create states: a plugin, or a game linked in-process.
pub trait DynGame: Send + Sync {
    /// The game's manifest.
    fn manifest(&self) -> &Manifest;

    /// A new state for `players` with raw `options` (validated against the
    /// manifest), from the game's start or from `position`.
    fn new_state(
        &self,
        players: u32,
        options: &BTreeMap<String, String>,
        position: Option<&str>,
    ) -> Result<Box<dyn DynState>, GameError>;

    /// See [`SeatNames::seat_names`](crate::SeatNames::seat_names): empty for a game that does not offer the
    /// extension.
    fn seat_names(&self, players: u32) -> Result<Vec<String>, GameError>;
}

/// One game state behind a uniform interface. Every method mirrors the
/// [`Game`] method of the same name; `Err` with a fault kind
/// ([`crate::ErrorKind::is_fault`]) reports a plugin bug.
pub trait DynState: Send {
    /// For downcasting `before` in [`DynState::event`].
    fn as_any(&self) -> &dyn Any;
    /// Names what the state is of (a match id), for reports of faults in
    /// its calls; copies and resamples keep it. Nothing by default.
    fn set_label(&mut self, label: &str) {
        let _ = label;
    }
    /// An independent copy.
    fn clone_state(&self) -> Result<Box<dyn DynState>, GameError>;
    /// See [`Game::status`].
    fn status(&self) -> Result<Status, GameError>;
    /// See [`Game::chance`].
    fn chance(&self) -> Result<Chance, GameError>;
    /// See [`Game::results`].
    fn results(&self) -> Result<Vec<PlayerResult>, GameError>;
    /// See [`Game::legal_actions`]: copies the list into `out`, for callers
    /// that keep it.
    fn legal_actions(&self, player: Player, out: &mut Vec<ActionId>) -> Result<(), GameError>;
    /// See [`Game::legal_actions`]: lends the list instead of copying it. It
    /// lives in the state (a plugin's own array, or a vector of the
    /// in-process state) and is overwritten by the next lending call; the
    /// `&mut self` borrow keeps every other call away while it is read.
    fn lend_legal_actions(&mut self, player: Player) -> Result<&[ActionId], GameError>;
    /// See [`Game::apply`].
    fn apply(&mut self, moves: &[Move]) -> Result<(), GameError>;
    /// Applies a joint action, then returns the new status and lends, when it
    /// is [`Status::ToMove`], the legal actions of `player` (or, for `None`,
    /// of the lowest-numbered mover), like [`DynState::lend_legal_actions`];
    /// otherwise the list is empty. A plugin does all of it in one call
    /// (`ply`, its answer in registers); this default applies, asks the
    /// status, then lends. With several movers
    /// the caller lends the others' lists itself. On error
    /// nothing is lent (and, if the move was refused, the state is
    /// unchanged).
    fn apply_and_lend_legal(
        &mut self,
        moves: &[Move],
        player: Option<Player>,
    ) -> Result<(Status, &[ActionId]), GameError> {
        self.apply(moves)?;
        let status = self.status()?;
        let Status::ToMove(movers) = status else {
            return Ok((status, &[]));
        };
        match player.or(movers.first()) {
            Some(player) => Ok((status, self.lend_legal_actions(player)?)),
            None => Ok((status, &[])),
        }
    }
    /// See [`Game::apply_chance`].
    fn apply_chance(&mut self, outcome: u64) -> Result<(), GameError>;
    /// See [`Game::view`]; JSON text.
    fn view(&self, viewer: Viewer) -> Result<String, GameError>;
    /// See [`Game::render_text`].
    fn render_text(&self, viewer: Viewer) -> Result<String, GameError>;
    /// See [`Game::event`]: `self` is the state after `transition`, `before` a
    /// state of the same game before it. JSON text.
    fn event(
        &self,
        before: &dyn DynState,
        transition: &Transition,
        viewer: Viewer,
    ) -> Result<String, GameError>;
    /// See [`Game::position_to_string`].
    fn position(&self) -> Result<String, GameError>;
    /// See [`Game::action_to_string`].
    fn action_to_string(&self, player: Player, action: ActionId) -> Result<String, GameError>;
    /// The notation of each of `ids` (actions of `player`), as
    /// [`DynState::action_to_string`] gives it, appended to `text`; after
    /// each, its end offset in `text` is pushed to `ends`. A plugin does it
    /// in one call; this default loops `action_to_string`. On error
    /// `text` and `ends` may hold part of the answer.
    fn actions_to_strings(
        &self,
        player: Player,
        ids: &[ActionId],
        text: &mut String,
        ends: &mut Vec<u32>,
    ) -> Result<(), GameError> {
        for &id in ids {
            text.push_str(&self.action_to_string(player, id)?);
            ends.push(
                u32::try_from(text.len())
                    .map_err(|_| GameError::internal("the notation exceeds 4 GiB"))?,
            );
        }
        Ok(())
    }
    /// See [`Game::parse_action`].
    fn parse_action(&self, player: Player, text: &str) -> Result<ActionId, GameError>;
    /// See [`ExpandNotation::expand_notation`](crate::ExpandNotation::expand_notation): `None` when `text` is not a shorthand.
    fn expand_notation(&self, player: Player, text: &str)
    -> Result<Option<Vec<String>>, GameError>;
    /// See [`Resample::resample`](crate::Resample::resample).
    fn resample(&self, viewer: Viewer, random: u64) -> Result<Box<dyn DynState>, GameError>;
    /// See [`RemovePlayer::remove_player`](crate::RemovePlayer::remove_player). On error the state is unchanged.
    fn remove_player(&mut self, player: Player) -> Result<(), GameError>;
    /// See [`SeatsOut::seats_out`](crate::SeatsOut::seats_out): empty for a game that does not offer the
    /// extension.
    fn seats_out(&self) -> Result<Vec<SeatOut>, GameError>;
    /// See [`ExplainRefusal::explain_refusal`](crate::ExplainRefusal::explain_refusal): `None` for a legal attempt and for a
    /// game that does not offer the extension.
    fn explain_refusal(
        &self,
        player: Player,
        attempt: Attempt<'_>,
    ) -> Result<Option<Refusal>, GameError>;
    /// See [`ExplainRefusal::action_space`](crate::ExplainRefusal::action_space): 0 for a game that does not offer the
    /// extension.
    fn action_space(&self) -> Result<u64, GameError>;
    /// See [`Evaluate::evaluate`](crate::Evaluate::evaluate): writes one value per seat into `values`
    /// (its length is the state's number of seats) and returns `true`, or
    /// returns `false` and leaves `values` alone for a game that does not
    /// offer the extension. A length other than the number of seats is
    /// refused. The values are the game's; a caller that must not trust a
    /// plugin checks them.
    fn evaluate(&self, values: &mut [f64]) -> Result<bool, GameError>;
    /// See [`SvgBoard::render_svg`](crate::SvgBoard::render_svg): `None` for a game that does not offer the
    /// extension.
    fn render_svg(&self, viewer: Viewer) -> Result<Option<String>, GameError>;
    /// See [`ActionTargets::action_targets`](crate::ActionTargets::action_targets): one list of element ids per id of
    /// `ids` (actions of `player`), in order; `None` for a game that does
    /// not offer the extension.
    fn action_targets(
        &self,
        player: Player,
        ids: &[ActionId],
    ) -> Result<Option<Vec<Vec<String>>>, GameError>;
}

/// A [`Game`] linked into this process, behind [`DynGame`].
#[derive(Debug)]
pub struct InProcess<G: Extended> {
    game: Arc<G>,
    manifest: Manifest,
}

impl<G: Extended> InProcess<G> {
    /// Wraps `game`.
    pub fn new(game: G) -> InProcess<G> {
        let manifest = crate::export::manifest_of(&game);
        InProcess {
            game: Arc::new(game),
            manifest,
        }
    }
}

impl<G: Extended> Default for InProcess<G> {
    fn default() -> Self {
        InProcess::new(G::default())
    }
}

impl<G: Extended> DynGame for InProcess<G> {
    fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    fn new_state(
        &self,
        players: u32,
        options: &BTreeMap<String, String>,
        position: Option<&str>,
    ) -> Result<Box<dyn DynState>, GameError> {
        let setup = Setup::validate(&self.manifest, players, options)?;
        let state = match position {
            Some(text) => self.game.parse_position(&setup, text)?,
            None => self.game.new_state(&setup)?,
        };
        Ok(Box::new(InProcessState {
            game: Arc::clone(&self.game),
            state,
            legal: Vec::new(),
        }))
    }

    fn seat_names(&self, players: u32) -> Result<Vec<String>, GameError> {
        Ok(G::EXTENSIONS
            .seat_names
            .map_or_else(Vec::new, |names| names(&self.game, players)))
    }
}

/// A state of an [`InProcess`] game.
struct InProcessState<G: Extended> {
    game: Arc<G>,
    state: G::State,
    /// The list [`DynState::lend_legal_actions`] lends, kept per state like
    /// a plugin's.
    legal: Vec<ActionId>,
}

impl<G: Extended> InProcessState<G> {
    fn wrap(&self, state: G::State) -> Box<dyn DynState> {
        Box::new(InProcessState {
            game: Arc::clone(&self.game),
            state,
            legal: Vec::new(),
        })
    }
}

impl<G: Extended> DynState for InProcessState<G> {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn clone_state(&self) -> Result<Box<dyn DynState>, GameError> {
        Ok(self.wrap(self.state.clone()))
    }

    fn status(&self) -> Result<Status, GameError> {
        Ok(self.game.status(&self.state))
    }

    fn chance(&self) -> Result<Chance, GameError> {
        chance_to_act(&*self.game, &self.state)?;
        Ok(self.game.chance(&self.state))
    }

    fn results(&self) -> Result<Vec<PlayerResult>, GameError> {
        Ok(self.game.results(&self.state))
    }

    fn legal_actions(&self, player: Player, out: &mut Vec<ActionId>) -> Result<(), GameError> {
        self.game.legal_actions(&self.state, player, out);
        Ok(())
    }

    fn lend_legal_actions(&mut self, player: Player) -> Result<&[ActionId], GameError> {
        self.game
            .legal_actions(&self.state, player, &mut self.legal);
        Ok(&self.legal)
    }

    fn apply(&mut self, moves: &[Move]) -> Result<(), GameError> {
        self.game.apply(&mut self.state, moves)
    }

    fn apply_chance(&mut self, outcome: u64) -> Result<(), GameError> {
        chance_to_act(&*self.game, &self.state)?;
        self.game.apply_chance(&mut self.state, outcome)
    }

    fn view(&self, viewer: Viewer) -> Result<String, GameError> {
        serde_json::to_string(&self.game.view(&self.state, viewer))
            .map_err(|e| GameError::internal(format!("the view does not serialise: {e}")))
    }

    fn render_text(&self, viewer: Viewer) -> Result<String, GameError> {
        Ok(self.game.render_text(&self.state, viewer))
    }

    fn event(
        &self,
        before: &dyn DynState,
        transition: &Transition,
        viewer: Viewer,
    ) -> Result<String, GameError> {
        let before = before
            .as_any()
            .downcast_ref::<InProcessState<G>>()
            .ok_or_else(|| GameError::internal("`before` is a state of another game"))?;
        Ok(self
            .game
            .event(&before.state, transition, &self.state, viewer)
            .to_string())
    }

    fn position(&self) -> Result<String, GameError> {
        Ok(self.game.position_to_string(&self.state))
    }

    fn action_to_string(&self, player: Player, action: ActionId) -> Result<String, GameError> {
        self.game.action_to_string(&self.state, player, action)
    }

    fn parse_action(&self, player: Player, text: &str) -> Result<ActionId, GameError> {
        self.game.parse_action(&self.state, player, text)
    }

    // The extensions behave as a plugin's do: a game that does not list one
    // is answered as the host answers a plugin without it.

    fn expand_notation(
        &self,
        player: Player,
        text: &str,
    ) -> Result<Option<Vec<String>>, GameError> {
        match G::EXTENSIONS.expand_notation {
            Some(expand) => expand(&self.game, &self.state, player, text),
            None => Ok(None),
        }
    }

    fn resample(&self, viewer: Viewer, random: u64) -> Result<Box<dyn DynState>, GameError> {
        match G::EXTENSIONS.resample {
            Some(resample) => Ok(self.wrap(resample(&self.game, &self.state, viewer, random))),
            None => self.clone_state(),
        }
    }

    fn remove_player(&mut self, player: Player) -> Result<(), GameError> {
        match G::EXTENSIONS.remove_player {
            Some(remove) => remove(&self.game, &mut self.state, player),
            None => Err(GameError::unsupported(
                "this game cannot take a player out of a running game",
            )),
        }
    }

    fn seats_out(&self) -> Result<Vec<SeatOut>, GameError> {
        Ok(G::EXTENSIONS
            .seats_out
            .map_or_else(Vec::new, |out| out(&self.game, &self.state)))
    }

    fn explain_refusal(
        &self,
        player: Player,
        attempt: Attempt<'_>,
    ) -> Result<Option<Refusal>, GameError> {
        Ok(G::EXTENSIONS
            .explain_refusal
            .and_then(|explain| explain(&self.game, &self.state, player, attempt)))
    }

    fn action_space(&self) -> Result<u64, GameError> {
        Ok(G::EXTENSIONS
            .action_space
            .map_or(0, |space| space(&self.game, &self.state)))
    }

    fn evaluate(&self, values: &mut [f64]) -> Result<bool, GameError> {
        let Some(evaluate) = G::EXTENSIONS.evaluate else {
            return Ok(false);
        };
        let estimate = evaluate(&self.game, &self.state);
        if estimate.len() != values.len() {
            return Err(GameError::internal(format!(
                "evaluate gives {} values; {} were asked for, one per seat",
                estimate.len(),
                values.len()
            )));
        }
        values.copy_from_slice(&estimate);
        Ok(true)
    }

    fn render_svg(&self, viewer: Viewer) -> Result<Option<String>, GameError> {
        Ok(G::EXTENSIONS
            .render_svg
            .map(|render| render(&self.game, &self.state, viewer)))
    }

    fn action_targets(
        &self,
        player: Player,
        ids: &[ActionId],
    ) -> Result<Option<Vec<Vec<String>>>, GameError> {
        Ok(G::EXTENSIONS.action_targets.map(|targets| {
            ids.iter()
                .map(|&id| targets(&self.game, &self.state, player, id))
                .collect()
        }))
    }
}
