//! A state living inside an imported plugin, used through [`DynState`]:
//! each method is one crossing of the ABI (`ffi`), its JSON answers parsed
//! into the SDK's types.

use std::any::Any;

use crate::dynamic::DynState;
use crate::error::GameError;
use crate::types::{
    ActionId, Attempt, Chance, Move, Player, PlayerResult, Refusal, SeatOut, Status, Transition,
    Viewer,
};

use super::ffi::RawState;
use super::parse_json;

/// A state living inside a plugin.
#[derive(Debug)]
struct ImportedState(RawState);

/// The plugin state behind a `&dyn DynState`, if it is one.
fn raw_state(state: &dyn DynState) -> Option<&RawState> {
    state
        .as_any()
        .downcast_ref::<ImportedState>()
        .map(|state| &state.0)
}

/// `raw` as a [`DynState`].
pub(super) fn boxed(raw: RawState) -> Box<dyn DynState> {
    Box::new(ImportedState(raw))
}

impl DynState for ImportedState {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn clone_state(&self) -> Result<Box<dyn DynState>, GameError> {
        Ok(boxed(self.0.clone_state()?))
    }

    fn status(&self) -> Result<Status, GameError> {
        Ok(self.0.status())
    }

    fn chance(&self) -> Result<Chance, GameError> {
        self.0.chance()
    }

    fn results(&self) -> Result<Vec<PlayerResult>, GameError> {
        parse_json("results", &self.0.results_json()?)
    }

    fn legal_actions(&self, player: Player, out: &mut Vec<ActionId>) -> Result<(), GameError> {
        self.0.legal_actions(player, out)
    }

    fn lend_legal_actions(&mut self, player: Player) -> Result<&[ActionId], GameError> {
        self.0.lend_legal_actions(player)
    }

    fn apply(&mut self, moves: &[Move]) -> Result<(), GameError> {
        self.0.apply(moves)
    }

    fn apply_and_lend_legal(
        &mut self,
        moves: &[Move],
        player: Option<Player>,
    ) -> Result<(Status, &[ActionId]), GameError> {
        self.0.ply(moves, player)
    }

    fn apply_chance(&mut self, outcome: u64) -> Result<(), GameError> {
        self.0.apply_chance(outcome)
    }

    fn view(&self, viewer: Viewer) -> Result<String, GameError> {
        self.0.view(viewer)
    }

    fn render_text(&self, viewer: Viewer) -> Result<String, GameError> {
        self.0.render_text(viewer)
    }

    fn event(
        &self,
        before: &dyn DynState,
        transition: &Transition,
        viewer: Viewer,
    ) -> Result<String, GameError> {
        let before = raw_state(before)
            .ok_or_else(|| GameError::internal("`before` is not a plugin state"))?;
        self.0.event(before, transition, viewer)
    }

    fn position(&self) -> Result<String, GameError> {
        self.0.position()
    }

    fn action_to_string(&self, player: Player, action: ActionId) -> Result<String, GameError> {
        self.0.action_to_string(player, action)
    }

    fn actions_to_strings(
        &self,
        player: Player,
        ids: &[ActionId],
        text: &mut String,
        ends: &mut Vec<u32>,
    ) -> Result<(), GameError> {
        self.0.actions_to_strings(player, ids, text, ends)
    }

    fn parse_action(&self, player: Player, text: &str) -> Result<ActionId, GameError> {
        self.0.parse_action(player, text)
    }

    fn expand_notation(
        &self,
        player: Player,
        text: &str,
    ) -> Result<Option<Vec<String>>, GameError> {
        match self.0.expand_notation(player, text)? {
            None => Ok(None),
            Some(json) => parse_json("expansion", &json).map(Some),
        }
    }

    fn resample(&self, viewer: Viewer, random: u64) -> Result<Box<dyn DynState>, GameError> {
        Ok(boxed(self.0.resample(viewer, random)?))
    }

    fn remove_player(&mut self, player: Player) -> Result<(), GameError> {
        self.0.remove_player(player)
    }

    fn seats_out(&self) -> Result<Vec<SeatOut>, GameError> {
        match self.0.seats_out_json()? {
            None => Ok(Vec::new()),
            Some(json) => parse_json("seats out", &json),
        }
    }

    fn explain_refusal(
        &self,
        player: Player,
        attempt: Attempt<'_>,
    ) -> Result<Option<Refusal>, GameError> {
        let json = match attempt {
            Attempt::Id(action) => self.0.explain_action_json(player, action)?,
            Attempt::Text(text) => self.0.explain_notation_json(player, text)?,
        };
        match json {
            Some(json) if !json.is_empty() => parse_json("refusal", &json).map(Some),
            _ => Ok(None),
        }
    }

    fn action_space(&self) -> Result<u64, GameError> {
        self.0.action_space()
    }

    fn evaluate(&self, values: &mut [f64]) -> Result<bool, GameError> {
        self.0.evaluate(values)
    }

    fn render_svg(&self, viewer: Viewer) -> Result<Option<String>, GameError> {
        self.0.render_svg(viewer)
    }

    fn action_targets(
        &self,
        player: Player,
        ids: &[ActionId],
    ) -> Result<Option<Vec<Vec<String>>>, GameError> {
        let Some(json) = self.0.action_targets_json(player, ids)? else {
            return Ok(None);
        };
        let targets: Vec<Vec<String>> = parse_json("action targets", &json)?;
        if targets.len() != ids.len() {
            return Err(GameError::internal(format!(
                "the plugin wrote targets for {} actions; {} were asked for",
                targets.len(),
                ids.len()
            )));
        }
        Ok(Some(targets))
    }
}
