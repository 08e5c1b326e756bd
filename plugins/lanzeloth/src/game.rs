//! The [`Game`] implementation that the export macro turns into the plugin.

use serde_json::{Value, json};
use tabletop_sdk::{
    ActionId, Chance, Game, GameError, Manifest, Move, Player, PlayerResult, PlayerSet, Setup,
    Status, Transition, Viewer,
};

use crate::actions::Action;
use crate::notation::{action_from_text, action_to_text};
use crate::position::{Phase, Position};
use crate::rules::{MAX_PLAYERS, MIN_PLAYERS, Rules};
use crate::turn::PlayError;
use crate::view::steps_json;

/// The Lanzeloth game (the Esel tile game) for 2–6 players.
#[derive(Debug, Default, Clone, Copy)]
pub struct Lanzeloth;

const RULES_SUMMARY: &str = "\
All tiles (1–20, six of each by default) are shuffled and dealt face down; nobody, \
not even the owner, sees a face-down tile. On your turn `flip` your top tile. A 1 \
starts a middle stack; a middle stack grows upward by one; another player's open \
pile takes a tile one higher or lower. Priority: new middle stack, oldest middle \
stack, then the nearest player to your left. A tile that fits goes there and you \
continue: `play-open` (your open pile's top, if it fits) or `flip`. A tile that fits \
nowhere goes on your open pile and the turn passes left. With esel=penalty you \
choose the place (`place new|m<k>|p<k>`); a wrong choice makes you the donkey: you \
take the donkey tile and one tile from each other player. An empty face-down stack \
is refilled by turning your open pile over. The first player without tiles wins; \
the others rank by tiles (or points) left, the donkey counting 5.";

fn play_error(error: PlayError) -> GameError {
    match error {
        PlayError::NotYourTurn(m) => GameError::not_your_turn(m),
        PlayError::Illegal(m) => GameError::illegal(m),
    }
}

impl Game for Lanzeloth {
    type State = Position;

    fn manifest(&self) -> Manifest {
        Manifest {
            name: "lanzeloth".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            min_players: MIN_PLAYERS,
            max_players: MAX_PLAYERS,
            options: Rules::option_specs(),
            rules_summary: RULES_SUMMARY.into(),
            simultaneous: false,
            hidden_information: true,
            chance: true,
        }
    }

    fn new_state(&self, setup: &Setup) -> Result<Position, GameError> {
        Ok(Position::new(Rules::from_setup(setup)?))
    }

    fn parse_position(&self, setup: &Setup, text: &str) -> Result<Position, GameError> {
        let rules = Rules::from_setup(setup)?;
        Position::from_text(rules, text).map_err(|e| GameError::invalid_position(e.to_string()))
    }

    fn position_to_string(&self, state: &Position) -> String {
        state.to_text()
    }

    fn status(&self, state: &Position) -> Status {
        match state.phase() {
            Phase::Deal | Phase::FirstPlayer => Status::Chance,
            Phase::Play { turn, .. } => Status::ToMove(PlayerSet::single(turn)),
            Phase::Over { .. } => Status::Terminal,
        }
    }

    fn chance(&self, state: &Position) -> Chance {
        // Outside a chance node there is nothing to draw; Sampled is harmless
        // because apply_chance refuses it.
        state.chance_node().unwrap_or(Chance::Sampled)
    }

    fn results(&self, state: &Position) -> Vec<PlayerResult> {
        state.results()
    }

    fn legal_actions(&self, state: &Position, player: Player, out: &mut Vec<ActionId>) {
        state.legal_actions(player, out);
    }

    fn apply(&self, state: &mut Position, moves: &[Move]) -> Result<(), GameError> {
        let Phase::Play { turn, .. } = state.phase() else {
            return Err(GameError::not_your_turn("no player is to move now"));
        };
        match moves {
            [single] => state.play(single.player, single.action).map_err(play_error),
            _ => Err(GameError::illegal(format!(
                "one move per action, by the player on turn (P{}); got {}",
                turn + 1,
                moves.len()
            ))),
        }
    }

    fn apply_chance(&self, state: &mut Position, outcome: u64) -> Result<(), GameError> {
        state
            .apply_chance(outcome)
            .map_err(|e| GameError::illegal(e.to_string()))
    }

    fn action_to_string(
        &self,
        _state: &Position,
        _player: Player,
        action: ActionId,
    ) -> Result<String, GameError> {
        Action::from_id(action)
            .map(action_to_text)
            .ok_or_else(|| GameError::illegal(format!("{action} is not a lanzeloth action id")))
    }

    fn parse_action(
        &self,
        state: &Position,
        player: Player,
        text: &str,
    ) -> Result<ActionId, GameError> {
        let action = action_from_text(text).ok_or_else(|| {
            GameError::invalid_notation(format!(
                "`{}` is not an action: flip, play-open, place new, place m<k>, place p<k>",
                text.escape_debug()
            ))
        })?;
        let id = action.id();
        let mut legal = Vec::new();
        state.legal_actions(player, &mut legal);
        if legal.contains(&id) {
            Ok(id)
        } else {
            Err(GameError::illegal(format!(
                "`{}` is not legal for P{} now",
                action_to_text(action),
                u64::from(player) + 1
            )))
        }
    }

    fn view(&self, state: &Position, viewer: Viewer) -> Value {
        state.view(viewer)
    }

    fn render_text(&self, state: &Position, viewer: Viewer) -> String {
        state.render(viewer)
    }

    /// Describes the transition as the public steps it caused (a revealed
    /// tile's number, never a face-down one); the same for every viewer,
    /// since nobody sees face-down tiles (Z11).
    fn event(
        &self,
        before: &Position,
        transition: &Transition,
        after: &Position,
        _viewer: Viewer,
    ) -> Value {
        match transition {
            Transition::Chance(_) => match before.phase() {
                Phase::Deal => json!({
                    "type": "deal",
                    "tiles_each": after.rules().tiles_each(),
                    "removed": after.rules().removed_count(),
                    "first_player": after.turn(),
                }),
                _ => json!({ "type": "first-player", "player": after.turn() }),
            },
            Transition::Moves(moves) => {
                let Some(m) = moves.first() else {
                    return json!({ "type": "moves", "moves": [] });
                };
                let mut replay = before.clone();
                match replay.play_logged(m.player, m.action) {
                    Ok(steps) => json!({
                        "type": "move",
                        "player": m.player,
                        "action": Action::from_id(m.action).map(action_to_text),
                        "steps": steps_json(&steps),
                    }),
                    Err(_) => json!({ "type": "move", "player": m.player, "action": Value::Null }),
                }
            }
        }
    }

    fn resample(&self, state: &Position, _viewer: Viewer, random: u64) -> Position {
        state.resample(random)
    }
}
