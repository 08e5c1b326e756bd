//! Shorthand sequences: one notation that stands for several actions of the
//! same seat (War's whole setup layout), checked whole on a copy of the
//! state, then applied step by step, all or nothing.

use tabletop_sdk::text::quote;
use tabletop_sdk::{ActionId, Attempt, Move, Player, PlayerSet, Status, chance};

use crate::Match;
use crate::error::{HostError, HostResult};

impl Match {
    /// Expands a shorthand of `seat` (see `Game::expand_notation`): `None` when
    /// `notation` is not one and stands for a single action.
    pub fn expand_notation(&self, seat: Player, notation: &str) -> HostResult<Option<Vec<String>>> {
        self.check_may_act(seat, None)?;
        Ok(self.state.expand_notation(seat, notation)?)
    }

    /// Submits the actions a shorthand `text` of `seat` stands for (`steps`,
    /// from [`Match::expand_notation`]) as one request, all or nothing: every
    /// step is first checked on a copy of the state (the seat must be the one
    /// mover before each); if one fails, the whole request is refused with an
    /// error naming that step and nothing changes. Then each step is applied
    /// as its own action: its own log entry, version and watch event.
    /// `expected_version` applies to the state before the first step.
    /// Simultaneous turns are refused: a sequence cannot be held step by step.
    pub fn submit_sequence(
        &mut self,
        seat: Player,
        text: &str,
        steps: &[String],
        expected_version: Option<u64>,
    ) -> HostResult<()> {
        self.check_may_act(seat, expected_version)?;
        if self.movers()?.len() != 1 {
            return Err(HostError::Unsupported(format!(
                "`{}` stands for several actions, which a simultaneous turn cannot take: \
                 submit one action",
                quote(text.trim())
            )));
        }
        if steps.is_empty() {
            return Err(HostError::InvalidNotation(format!(
                "`{}` stands for no action",
                quote(text.trim())
            )));
        }
        let ids = self.check_sequence(seat, text, steps)?;
        for id in ids {
            // Checked above on an identical copy: a refusal here is a plugin
            // fault (non-deterministic rules), reported as such.
            self.submit(seat, id, None)?;
        }
        Ok(())
    }

    /// Plays `steps` on a copy of the state, drawing any chance after a step
    /// exactly as the real application will; returns their action ids.
    pub(crate) fn check_sequence(
        &self,
        seat: Player,
        text: &str,
        steps: &[String],
    ) -> HostResult<Vec<ActionId>> {
        let mut state = self.state.clone_state()?;
        let mut draws = self.chance_draws;
        let mut ids = Vec::with_capacity(steps.len());
        for (index, step) in steps.iter().enumerate() {
            let refuse = |cause: HostError| HostError::StepRefused {
                text: text.trim().to_string(),
                step: index + 1,
                steps: steps.len(),
                notation: step.clone(),
                cause: Box::new(cause),
            };
            match state.status()? {
                Status::ToMove(set) if set == PlayerSet::single(seat) => {}
                Status::ToMove(_) => {
                    return Err(refuse(HostError::NotToMove(format!(
                        "{} is not the one to move then",
                        self.seat_label(seat)
                    ))));
                }
                _ => {
                    return Err(refuse(HostError::NotToMove(
                        "the game is over by then".into(),
                    )));
                }
            }
            let id = state.parse_action(seat, step).map_err(|e| {
                refuse(crate::refusal::explained(
                    state.as_ref(),
                    seat,
                    Attempt::Text(step),
                    e,
                ))
            })?;
            state
                .apply(&[Move {
                    player: seat,
                    action: id,
                }])
                .map_err(|e| {
                    refuse(crate::refusal::explained(
                        state.as_ref(),
                        seat,
                        Attempt::Id(id),
                        e,
                    ))
                })?;
            ids.push(id);
            while state.status()? == Status::Chance {
                let node = state.chance()?;
                let outcome = chance::draw(&node, self.setup.seed, draws)?;
                state.apply_chance(outcome)?;
                draws += 1;
            }
        }
        Ok(ids)
    }
}
