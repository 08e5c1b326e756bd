//! [`RemoteState`] as a [`DynState`]: each call one request to the worker
//! (through `RemoteState::call`, which makes the state again in a fresh
//! worker when its own ended), answered from what is known of the state
//! where the worker already said it.

use std::any::Any;
use std::sync::Arc;

use tabletop_sdk::{
    ActionId, Attempt, Chance, DynState, ErrorKind, GameError, Move, Player, PlayerResult, Refusal,
    SeatOut, Status, Transition, Viewer,
};

use super::{Known, Notations, RemoteState, interrupted, out_of_turn};
use crate::isolation::protocol::{Answer, AttemptText, Origin, Recipe, Request, Step};

impl DynState for RemoteState {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn set_label(&mut self, label: &str) {
        self.label = Some(Arc::from(label));
    }

    fn clone_state(&self) -> Result<Box<dyn DynState>, GameError> {
        self.derive(self.recipe.clone(), |of, handle| Request::Clone {
            of,
            handle,
        })
    }

    fn status(&self) -> Result<Status, GameError> {
        if let Some(status) = self.known.borrow().status {
            return Ok(status);
        }
        match self.call(|handle| Request::Status { handle })? {
            Answer::Status(status) => {
                self.known.borrow_mut().status = Some(status);
                Ok(status)
            }
            _ => Err(out_of_turn()),
        }
    }

    fn chance(&self) -> Result<Chance, GameError> {
        match self.call(|handle| Request::Chance { handle })? {
            Answer::Chance(chance) => Ok(chance),
            _ => Err(out_of_turn()),
        }
    }

    fn results(&self) -> Result<Vec<PlayerResult>, GameError> {
        match self.call(|handle| Request::Results { handle })? {
            Answer::Results(results) => Ok(results),
            _ => Err(out_of_turn()),
        }
    }

    fn legal_actions(&self, player: Player, out: &mut Vec<ActionId>) -> Result<(), GameError> {
        out.clear();
        out.extend_from_slice(&self.known_legal(player)?);
        Ok(())
    }

    fn lend_legal_actions(&mut self, player: Player) -> Result<&[ActionId], GameError> {
        self.legal = self.known_legal(player)?;
        Ok(&self.legal)
    }

    fn apply(&mut self, moves: &[Move]) -> Result<(), GameError> {
        self.apply_and_lend_legal(moves, None).map(|_| ())
    }

    fn apply_and_lend_legal(
        &mut self,
        moves: &[Move],
        player: Option<Player>,
    ) -> Result<(Status, &[ActionId]), GameError> {
        match self.call(|handle| Request::ApplyAndLegal {
            handle,
            moves: moves.to_vec(),
            player,
        }) {
            Ok(Answer::Changed(changed)) => {
                self.record(Step::Apply(moves.to_vec()));
                let status = changed.status;
                // The lent list keeps its allocation from move to move.
                self.legal.clear();
                self.legal.extend_from_slice(&changed.legal);
                *self.known.get_mut() = Known::after_change(changed, player);
                Ok((status, &self.legal))
            }
            Ok(_) => Err(out_of_turn()),
            Err(e) => Err(e),
        }
    }

    fn apply_chance(&mut self, outcome: u64) -> Result<(), GameError> {
        match self.call(|handle| Request::ApplyChance { handle, outcome })? {
            Answer::Changed(changed) => {
                self.record(Step::Chance(outcome));
                *self.known.get_mut() = Known::after_change(changed, None);
                Ok(())
            }
            _ => Err(out_of_turn()),
        }
    }

    fn view(&self, viewer: Viewer) -> Result<String, GameError> {
        text(self.call(|handle| Request::View { handle, viewer })?)
    }

    fn render_text(&self, viewer: Viewer) -> Result<String, GameError> {
        text(self.call(|handle| Request::Text { handle, viewer })?)
    }

    fn event(
        &self,
        before: &dyn DynState,
        transition: &Transition,
        viewer: Viewer,
    ) -> Result<String, GameError> {
        let before = before
            .as_any()
            .downcast_ref::<RemoteState>()
            .ok_or_else(|| GameError::internal("`before` is a state of another game"))?;
        for _ in 0..2 {
            let (_, before_handle) = before.placed()?;
            let answer = self.call(|handle| Request::Event {
                handle,
                before: before_handle,
                transition: transition.clone(),
                viewer,
            });
            match answer {
                // `before` was in a worker that ended between the two
                // placements: place it again.
                Err(e)
                    if e.kind == ErrorKind::Internal
                        && !before.place.borrow().process.is_alive() =>
                {
                    continue;
                }
                answer => return text(answer?),
            }
        }
        Err(interrupted(&self.shared.label))
    }

    fn position(&self) -> Result<String, GameError> {
        text(self.call(|handle| Request::Position { handle })?)
    }

    fn action_to_string(&self, player: Player, action: ActionId) -> Result<String, GameError> {
        let known = self
            .known
            .borrow()
            .notations
            .as_ref()
            .and_then(|notations| notations.get(player, action))
            .map(str::to_string);
        if let Some(text) = known {
            return Ok(text);
        }
        text(self.call(|handle| Request::ActionText {
            handle,
            player,
            action,
        })?)
    }

    fn actions_to_strings(
        &self,
        player: Player,
        ids: &[ActionId],
        text: &mut String,
        ends: &mut Vec<u32>,
    ) -> Result<(), GameError> {
        match self.call(|handle| Request::ActionTexts {
            handle,
            player,
            ids: ids.to_vec(),
        })? {
            Answer::Texts(joined, offsets) => {
                let base = text.len() as u32;
                text.push_str(&joined);
                ends.extend(offsets.iter().map(|end| base + end));
                self.known.borrow_mut().notations =
                    Some(Notations::new(player, ids, joined, offsets));
                Ok(())
            }
            _ => Err(out_of_turn()),
        }
    }

    fn parse_action(&self, player: Player, text: &str) -> Result<ActionId, GameError> {
        match self.call(|handle| Request::ParseAction {
            handle,
            player,
            text: text.to_string(),
        })? {
            Answer::Action(action) => Ok(action),
            _ => Err(out_of_turn()),
        }
    }

    fn expand_notation(
        &self,
        player: Player,
        text: &str,
    ) -> Result<Option<Vec<String>>, GameError> {
        match self.call(|handle| Request::ExpandNotation {
            handle,
            player,
            text: text.to_string(),
        })? {
            Answer::Expanded(expanded) => Ok(expanded),
            _ => Err(out_of_turn()),
        }
    }

    fn resample(&self, viewer: Viewer, random: u64) -> Result<Box<dyn DynState>, GameError> {
        let recipe = Recipe {
            origin: Origin::Resampled {
                of: Box::new(self.recipe.clone()),
                viewer,
                random,
            },
            steps: Vec::new(),
        };
        self.derive(recipe, |of, handle| Request::Resample {
            of,
            handle,
            viewer,
            random,
        })
    }

    fn remove_player(&mut self, player: Player) -> Result<(), GameError> {
        self.call(|handle| Request::RemovePlayer { handle, player })?;
        self.record(Step::Remove(player));
        *self.known.get_mut() = Known::default();
        Ok(())
    }

    fn seats_out(&self) -> Result<Vec<SeatOut>, GameError> {
        if let Some(out) = &self.known.borrow().seats_out {
            return Ok(out.clone());
        }
        match self.call(|handle| Request::SeatsOut { handle })? {
            Answer::SeatsOut(out) => Ok(out),
            _ => Err(out_of_turn()),
        }
    }

    fn explain_refusal(
        &self,
        player: Player,
        attempt: Attempt<'_>,
    ) -> Result<Option<Refusal>, GameError> {
        let attempt = match attempt {
            Attempt::Id(id) => AttemptText::Id(id),
            Attempt::Text(text) => AttemptText::Text(text.to_string()),
        };
        match self.call(|handle| Request::ExplainRefusal {
            handle,
            player,
            attempt: attempt.clone(),
        })? {
            Answer::Refusal(refusal) => Ok(refusal),
            _ => Err(out_of_turn()),
        }
    }

    fn action_space(&self) -> Result<u64, GameError> {
        match self.call(|handle| Request::ActionSpace { handle })? {
            Answer::Number(space) => Ok(space),
            _ => Err(out_of_turn()),
        }
    }

    fn evaluate(&self, values: &mut [f64]) -> Result<bool, GameError> {
        let seats = values.len() as u32;
        match self.call(|handle| Request::Evaluate { handle, seats })? {
            Answer::Values(None) => Ok(false),
            Answer::Values(Some(found)) if found.len() == values.len() => {
                values.copy_from_slice(&found);
                Ok(true)
            }
            _ => Err(out_of_turn()),
        }
    }

    fn render_svg(&self, viewer: Viewer) -> Result<Option<String>, GameError> {
        match self.call(|handle| Request::Svg { handle, viewer })? {
            Answer::MaybeText(svg) => Ok(svg),
            _ => Err(out_of_turn()),
        }
    }

    fn action_targets(
        &self,
        player: Player,
        ids: &[ActionId],
    ) -> Result<Option<Vec<Vec<String>>>, GameError> {
        match self.call(|handle| Request::Targets {
            handle,
            player,
            ids: ids.to_vec(),
        })? {
            Answer::Targets(targets) => Ok(targets),
            _ => Err(out_of_turn()),
        }
    }
}

fn text(answer: Answer) -> Result<String, GameError> {
    match answer {
        Answer::Text(text) => Ok(text),
        _ => Err(out_of_turn()),
    }
}
