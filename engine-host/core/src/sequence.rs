//! Shorthand sequences: one notation that stands for several actions of the
//! same seat (War's whole setup layout), checked whole on a copy of the
//! state, then applied step by step, all or nothing
//! (`Match::submit_sequence`).

use tabletop_sdk::{ActionId, Attempt, DynState, Move, Player, PlayerSet, Status, chance};

use crate::error::{HostError, HostResult};
use crate::refusal::explained;

/// Where a sequence is checked: the match's state, the seed of its chance
/// stream and the index of its next draw.
pub(crate) struct SequenceStart<'a> {
    pub state: &'a dyn DynState,
    pub seed: u64,
    pub chance_draws: u64,
}

/// Plays `steps` of `seat` (the shorthand `text`, whose seat is named
/// by `seat_label` in messages, asked only for a refusal) on a copy of the state, drawing any chance
/// after a step exactly as the real application will; returns their action
/// ids, or the refusal of the first step that fails.
pub(crate) fn check_sequence(
    start: SequenceStart<'_>,
    seat: Player,
    seat_label: &dyn Fn() -> String,
    text: &str,
    steps: &[String],
) -> HostResult<Vec<ActionId>> {
    let mut state = start.state.clone_state()?;
    let mut draws = start.chance_draws;
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
                    seat_label()
                ))));
            }
            _ => {
                return Err(refuse(HostError::NotToMove(
                    "the game is over by then".into(),
                )));
            }
        }
        let id = state
            .parse_action(seat, step)
            .map_err(|e| refuse(explained(state.as_ref(), seat, Attempt::Text(step), e)))?;
        state
            .apply(&[Move {
                player: seat,
                action: id,
            }])
            .map_err(|e| refuse(explained(state.as_ref(), seat, Attempt::Id(id), e)))?;
        ids.push(id);
        while state.status()? == Status::Chance {
            let node = state.chance()?;
            let outcome = chance::draw(&node, start.seed, draws)?;
            state.apply_chance(outcome)?;
            draws += 1;
        }
    }
    Ok(ids)
}
