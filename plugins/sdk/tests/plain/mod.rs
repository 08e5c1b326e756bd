//! `nim`, a plain example game with none of the behaviours a manifest can
//! claim: no chance, one player to move at a time, nothing hidden. The
//! claims tests wrap it to claim what it never shows. It lives in the SDK's
//! tests only.
//!
//! Rules: a pile of stones (option `stones`, default 7); the players in turn
//! take 1 or 2 stones; whoever takes the last stone wins.

use tabletop_sdk::{
    ActionId, Better, Chance, Game, GameError, Manifest, Move, OptionSpec, Player, PlayerResult,
    PlayerSet, Setup, Status, Viewer, check_joint_action, results_by_key, serde_json,
};

#[derive(Debug, Default)]
pub struct Nim;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct State {
    pub players: u32,
    pub pile: u32,
    pub to_move: Player,
    pub winner: Option<Player>,
}

impl Game for Nim {
    type State = State;
    type View<'a> = serde_json::Value;

    fn manifest(&self) -> Manifest {
        Manifest {
            name: "nim".into(),
            version: "0.1.0".into(),
            min_players: 2,
            max_players: 3,
            options: vec![OptionSpec::int("stones", 1, 50, 7, "Stones in the pile.")],
            rules_summary: "Take 1 or 2 stones; the last stone wins.".into(),
            simultaneous: false,
            hidden_information: false,
            chance: false,
            removable_players: false,
        }
    }

    fn new_state(&self, setup: &Setup) -> Result<State, GameError> {
        Ok(State {
            players: setup.players,
            pile: setup.options.int("stones") as u32,
            to_move: 0,
            winner: None,
        })
    }

    fn parse_position(&self, setup: &Setup, text: &str) -> Result<State, GameError> {
        let bad = || GameError::invalid_position("a nim position is `PILE TO_MOVE WINNER|-`");
        let mut parts = text.split(' ');
        let pile: u32 = parts.next().and_then(|t| t.parse().ok()).ok_or_else(bad)?;
        let to_move: Player = parts.next().and_then(|t| t.parse().ok()).ok_or_else(bad)?;
        let winner = match parts.next().ok_or_else(bad)? {
            "-" => None,
            seat => Some(seat.parse().map_err(|_| bad())?),
        };
        let consistent = parts.next().is_none()
            && to_move < setup.players
            && winner.is_none_or(|w| w < setup.players)
            && (pile == 0) == winner.is_some();
        if !consistent {
            return Err(bad());
        }
        Ok(State {
            players: setup.players,
            pile,
            to_move,
            winner,
        })
    }

    fn position_to_string(&self, state: &State) -> String {
        let winner = state.winner.map_or("-".to_string(), |w| w.to_string());
        format!("{} {} {winner}", state.pile, state.to_move)
    }

    fn status(&self, state: &State) -> Status {
        match state.winner {
            Some(_) => Status::Terminal,
            None => Status::ToMove(PlayerSet::single(state.to_move)),
        }
    }

    fn chance(&self, _: &State) -> Chance {
        Chance::Sampled
    }

    fn results(&self, state: &State) -> Vec<PlayerResult> {
        let won = |p: Player| state.winner == Some(p);
        results_by_key(
            (0..state.players).map(|p| (won(p), if won(p) { 1.0 } else { 0.0 })),
            Better::Higher,
        )
    }

    fn legal_actions(&self, state: &State, player: Player, out: &mut Vec<ActionId>) {
        out.clear();
        if state.winner.is_none() && player == state.to_move {
            out.extend((1..=2).filter(|&take| take <= u64::from(state.pile)));
        }
    }

    fn apply(&self, state: &mut State, moves: &[Move]) -> Result<(), GameError> {
        let Status::ToMove(movers) = self.status(state) else {
            return Err(GameError::not_your_turn("the game is over"));
        };
        check_joint_action(movers, moves)?;
        let take = moves[0].action;
        if !(1..=2).contains(&take) || take > u64::from(state.pile) {
            return Err(GameError::illegal(format!("cannot take {take} stones now")));
        }
        state.pile -= take as u32;
        if state.pile == 0 {
            state.winner = Some(state.to_move);
        } else {
            state.to_move = (state.to_move + 1) % state.players;
        }
        Ok(())
    }

    fn apply_chance(&self, _: &mut State, _: u64) -> Result<(), GameError> {
        Err(GameError::illegal("nim has no chance"))
    }

    fn action_to_string(
        &self,
        _: &State,
        _: Player,
        action: ActionId,
    ) -> Result<String, GameError> {
        match action {
            1 | 2 => Ok(format!("take{action}")),
            _ => Err(GameError::illegal(format!("no action {action}"))),
        }
    }

    fn parse_action(
        &self,
        state: &State,
        player: Player,
        text: &str,
    ) -> Result<ActionId, GameError> {
        let take: ActionId = text
            .strip_prefix("take")
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| {
                GameError::invalid_notation(format!("`{text}` is not `take1`/`take2`"))
            })?;
        let mut legal = Vec::new();
        self.legal_actions(state, player, &mut legal);
        if legal.contains(&take) {
            Ok(take)
        } else {
            Err(GameError::illegal(format!("`{text}` is not legal now")))
        }
    }

    fn view(&self, state: &State, _: Viewer) -> serde_json::Value {
        serde_json::json!({
            "pile": state.pile,
            "to_move": state.to_move,
            "winner": state.winner,
        })
    }

    fn render_text(&self, state: &State, _: Viewer) -> String {
        format!("{} stones, seat {} to move\n", state.pile, state.to_move)
    }
}

tabletop_sdk::declare_extensions!(Nim: []);
