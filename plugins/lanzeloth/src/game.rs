//! The [`Game`] implementation that the export macro turns into the plugin.

use serde_json::Value;
use tabletop_sdk::{
    ActionId, ActionTargets, Attempt, Chance, Evaluate, ExplainRefusal, Game, GameError, Manifest,
    Move, Player, PlayerResult, PlayerSet, Refusal, RemovePlayer, Resample, SeatNames, Setup,
    Status, SvgBoard, Transition, Viewer, check_single_move,
};

use crate::actions::{Action, action_space};
use crate::events;
use crate::notation::{action_to_text, read_action};
use crate::position::{Phase, Position};
use crate::rules::{MAX_PLAYERS, MIN_PLAYERS, Rules};
use crate::seats;
use crate::svg;
use crate::turn::PlayError;
use crate::view::View;

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
choose the place (`place new|own|m<k>|p<k>`); a wrong choice makes you the donkey: you \
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
    type View<'a> = View<'a>;

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
            removable_players: true,
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
            // Says why: chance comes first, or the game is over.
            let why = moves
                .first()
                .and_then(|m| state.refusal(m.player, Action::Flip))
                .map_or_else(|| "no player is to move now".to_string(), |r| r.message);
            return Err(GameError::not_your_turn(why));
        };
        let only = check_single_move(turn, moves)?;
        state.play(only.player, only.action).map_err(play_error)
    }

    fn apply_chance(&self, state: &mut Position, outcome: u64) -> Result<(), GameError> {
        state
            .apply_chance(outcome)
            .map_err(|e| GameError::illegal(e.to_string()))
    }

    fn action_to_string(
        &self,
        _state: &Position,
        player: Player,
        action: ActionId,
    ) -> Result<String, GameError> {
        Action::from_id(action)
            .map(|a| action_to_text(a, player))
            .ok_or_else(|| GameError::illegal(format!("{action} is not a lanzeloth action id")))
    }

    /// Reads the text and checks it with the same [`Refusal`] that
    /// [`ExplainRefusal::explain_refusal`] gives, so the two never disagree.
    fn parse_action(
        &self,
        state: &Position,
        player: Player,
        text: &str,
    ) -> Result<ActionId, GameError> {
        let action = read_action(text, player)?;
        match state.refusal(player, action) {
            Some(refusal) => Err(refusal.into()),
            None => Ok(action.id()),
        }
    }

    fn view<'a>(&'a self, state: &'a Position, viewer: Viewer) -> View<'a> {
        state.view(viewer)
    }

    fn render_text(&self, state: &Position, viewer: Viewer) -> String {
        state.render(viewer)
    }

    /// Describes the transition as the public steps it caused (see the
    /// `events` module); the same for every viewer, since nobody sees
    /// face-down tiles (Z11).
    fn event(
        &self,
        before: &Position,
        transition: &Transition,
        after: &Position,
        _viewer: Viewer,
    ) -> Value {
        events::event(before, transition, after)
    }
}

impl RemovePlayer for Lanzeloth {
    /// The host's clock `out`: the player leaves the turn order and the
    /// others play on (see [`Position::remove`] and the README).
    fn remove_player(&self, state: &mut Position, player: Player) -> Result<(), GameError> {
        state.remove(player).map_err(play_error)
    }
}

impl Resample for Lanzeloth {
    fn resample(&self, state: &Position, _viewer: Viewer, random: u64) -> Position {
        state.resample(random)
    }
}

impl SeatNames for Lanzeloth {
    fn seat_names(&self, players: u32) -> Vec<String> {
        seats::seat_names(players)
    }
}

impl ExplainRefusal for Lanzeloth {
    fn explain_refusal(
        &self,
        state: &Position,
        player: Player,
        attempt: Attempt<'_>,
    ) -> Option<Refusal> {
        match attempt {
            Attempt::Id(id) => state.refusal_of_id(player, id),
            Attempt::Text(text) => state.refusal_of_text(player, text),
        }
    }

    fn action_space(&self, state: &Position) -> u64 {
        action_space(state.rules())
    }
}

impl Evaluate for Lanzeloth {
    fn evaluate(&self, state: &Position) -> Vec<f64> {
        crate::evaluate::evaluate(state)
    }
}

impl SvgBoard for Lanzeloth {
    /// The table for `viewer`, face-down stacks as backs for everyone
    /// (Z11; module `svg`).
    fn render_svg(&self, state: &Position, viewer: Viewer) -> String {
        svg::svg(state, viewer)
    }
}

impl ActionTargets for Lanzeloth {
    /// Stacks `stack-p1`, piles `open-p2`, middle stacks `middle-m1`, the
    /// new-stack place `middle-new` and the tile in `hand` (module `svg`).
    fn action_targets(&self, _state: &Position, player: Player, action: ActionId) -> Vec<String> {
        svg::action_targets(player, action)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Stage;
    use std::collections::BTreeMap;

    fn start(players: u32) -> Position {
        let mut raw = BTreeMap::new();
        raw.insert("first_player".to_string(), "1".to_string());
        let setup = Setup::validate(&Lanzeloth.manifest(), players, &raw).unwrap();
        let mut state = Lanzeloth.new_state(&setup).unwrap();
        while Lanzeloth.status(&state) == Status::Chance {
            Lanzeloth.apply_chance(&mut state, 42).unwrap();
        }
        state
    }

    /// Plays (pseudo-randomly) to the end; `gone` never moves.
    fn play_out(mut state: Position, gone: &[Player]) -> Position {
        let mut seed = 11u64;
        let mut legal = Vec::new();
        for _ in 0..200_000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            match Lanzeloth.status(&state) {
                Status::Terminal => return state,
                Status::Chance => panic!("no chance after the deal"),
                Status::ToMove(movers) => {
                    let p = movers.iter().next().unwrap();
                    assert!(!gone.contains(&p), "removed player {p} is on turn (Z6)");
                    Lanzeloth.legal_actions(&state, p, &mut legal);
                    let action = legal[(seed >> 33) as usize % legal.len()];
                    Lanzeloth
                        .apply(&mut state, &[Move { player: p, action }])
                        .unwrap();
                }
            }
        }
        panic!("the game did not end")
    }

    fn options(players: u32) -> Setup {
        let mut raw = BTreeMap::new();
        raw.insert("first_player".to_string(), "1".to_string());
        Setup::validate(&Lanzeloth.manifest(), players, &raw).unwrap()
    }

    #[test]
    fn a_removed_player_leaves_the_turn_order_and_the_others_play_on() {
        let mut state = start(3);
        assert_eq!(state.turn(), Some(0), "first_player = 1 is seat 0");
        Lanzeloth.remove_player(&mut state, 0).unwrap();
        // Seat 0 was on turn: the turn passes to the left (Z6).
        assert_eq!(
            state.phase(),
            Phase::Play {
                turn: 1,
                stage: Stage::Start
            }
        );
        let text = Lanzeloth.position_to_string(&state);
        assert!(text.contains("out=p1"), "{text}");
        assert_eq!(Lanzeloth.parse_position(&options(3), &text).unwrap(), state);
        let end = play_out(state, &[0]);
        let ranks: Vec<u32> = Lanzeloth.results(&end).iter().map(|r| r.rank).collect();
        assert_eq!(ranks[0], 3, "the removed player ranks last: {ranks:?}");
        assert_eq!(ranks.iter().filter(|&&r| r == 3).count(), 1);
    }

    #[test]
    fn nothing_fits_on_a_removed_players_pile_z4() {
        let mut state = start(3);
        Lanzeloth.remove_player(&mut state, 2).unwrap();
        for tile in 1..=20 {
            assert!(!state.fits(tile, 0, crate::fit::Place::Pile(2)));
        }
        // The last two: removing one leaves a winner, with tiles left.
        Lanzeloth.remove_player(&mut state, 1).unwrap();
        assert_eq!(state.phase(), Phase::Over { winner: Some(0) });
        let ranks: Vec<u32> = Lanzeloth.results(&state).iter().map(|r| r.rank).collect();
        assert_eq!(ranks, vec![1, 2, 3], "the later out ranks higher");
    }

    #[test]
    fn removing_twice_a_bad_seat_or_outside_play_is_refused_and_changes_nothing() {
        let mut state = start(4);
        Lanzeloth.remove_player(&mut state, 3).unwrap();
        let before = state.clone();
        for bad in [3, 4, u32::MAX] {
            let e = Lanzeloth.remove_player(&mut state, bad).unwrap_err();
            assert_eq!(
                e.kind,
                tabletop_sdk::ErrorKind::IllegalAction,
                "{}",
                e.message
            );
            assert_eq!(state, before);
        }
        // Before the deal nobody is removed.
        let mut fresh = Lanzeloth.new_state(&options(3)).unwrap();
        let untouched = fresh.clone();
        assert!(Lanzeloth.remove_player(&mut fresh, 1).is_err());
        assert_eq!(fresh, untouched);
    }
}
