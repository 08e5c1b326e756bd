//! `guess`, a small example game that exercises every part of the contract:
//! a sampled chance node (the deal of secret numbers), an explicit chance node
//! (a die), simultaneous secret bids, hidden information with a resampler,
//! players dropping out, seat names and refusals that say why. It lives in
//! the SDK's tests only; it is not shipped.
//!
//! Rules, numbered as refusals cite them: (G1) each player is dealt a
//! secret number 0–9 (only they see it). (G2) Each round a die shows 1, 2
//! or 3; (G3) then every player still in bids 0–3 at once, written `bid0`
//! to `bid3`. (G4) A bid at most the bidder's secret mod 4 scores bid × die;
//! a higher bid busts: the player is out and their secret is shown. (G5)
//! After five rounds, or when at most one player is left, the highest score
//! wins. The seats are named A to D.

use serde::{Deserialize, Serialize};
use tabletop_sdk::text::quote;
use tabletop_sdk::{
    ActionId, Attempt, Better, Chance, ExplainRefusal, Game, GameError, Manifest, Move, OptionSpec,
    Player, PlayerResult, Refusal, Resample, SeatNames, Setup, Status, Viewer, check_joint_action,
    results_by_key, seat_label, serde_json,
};

#[derive(Debug, Default)]
pub struct Guess;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    Deal,
    Roll,
    Bid,
    Over,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    pub secrets: Vec<u8>,
    pub scores: Vec<u32>,
    pub active: Vec<bool>,
    /// Largest bid each player survived: public knowledge about their secret.
    pub survived: Vec<u8>,
    pub round: u32,
    pub rounds: u32,
    pub roll: u8,
    pub phase: Phase,
}

impl State {
    fn players(&self) -> u32 {
        self.secrets.len() as u32
    }
}

/// The seat names (G-rules' players A to D).
const SEAT_NAMES: [&str; 4] = ["A", "B", "C", "D"];

/// The bids, `0..BIDS`: the action space (G3).
const BIDS: u64 = 4;

/// `seat 1 (B)`.
fn label(seat: Player) -> String {
    seat_label(seat, SEAT_NAMES.get(seat as usize).copied())
}

/// The bid a text names (`bid2`), or why it names none.
fn read_bid(text: &str) -> Result<u64, Refusal> {
    text.trim()
        .strip_prefix("bid")
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| {
            Refusal::notation(
                "NOT_A_BID",
                format!(
                    "`{}` is not a bid: write `bid0` to `bid3` (G3)",
                    quote(text)
                ),
            )
        })
}

/// Why `bid` is not legal for `player` in `state`, or `None` when it is.
/// Nothing here depends on a secret.
fn why_not(state: &State, player: Player, bid: u64) -> Option<Refusal> {
    let players = state.players();
    if player >= players {
        return Some(Refusal::illegal(
            "NO_SUCH_SEAT",
            format!("there is no seat {player} in a {players}-player match"),
        ));
    }
    if bid >= BIDS {
        return Some(Refusal::illegal(
            "BID_TOO_HIGH",
            format!("{} bids {bid}, but a bid is 0 to 3 (G3)", label(player)),
        ));
    }
    match state.phase {
        Phase::Deal | Phase::Roll => Some(Refusal::illegal(
            "NOT_BIDDING",
            "nobody bids now: chance deals or rolls the die first (G1, G2)",
        )),
        Phase::Over => Some(Refusal::illegal("GAME_OVER", "the game is over (G5)")),
        Phase::Bid if !state.active[player as usize] => Some(Refusal::illegal(
            "BUSTED",
            format!("{} busted and is out of the game (G4)", label(player)),
        )),
        Phase::Bid => None,
    }
}

fn decode_secrets(random: u64, players: usize) -> Vec<u8> {
    (0..players)
        .map(|i| ((random >> (8 * i)) % 10) as u8)
        .collect()
}

impl Game for Guess {
    type State = State;
    type View<'a> = serde_json::Value;

    fn manifest(&self) -> Manifest {
        Manifest {
            name: "guess".into(),
            version: "0.1.0".into(),
            min_players: 2,
            max_players: 4,
            options: vec![OptionSpec::int("rounds", 1, 20, 5, "Rounds to play.")],
            rules_summary: "Bid on your secret number.".into(),
            simultaneous: true,
            hidden_information: true,
            chance: true,
            removable_players: false,
        }
    }

    fn new_state(&self, setup: &Setup) -> Result<State, GameError> {
        let n = setup.players as usize;
        Ok(State {
            secrets: vec![0; n],
            scores: vec![0; n],
            active: vec![true; n],
            survived: vec![0; n],
            round: 0,
            rounds: setup.options.int("rounds") as u32,
            roll: 0,
            phase: Phase::Deal,
        })
    }

    fn parse_position(&self, setup: &Setup, text: &str) -> Result<State, GameError> {
        let state: State = serde_json::from_str(text)
            .map_err(|e| GameError::invalid_position(format!("not a guess position: {e}")))?;
        let n = setup.players as usize;
        if [
            state.scores.len(),
            state.active.len(),
            state.survived.len(),
            state.secrets.len(),
        ]
        .iter()
        .any(|&len| len != n)
        {
            return Err(GameError::invalid_position(
                "position is for another player count",
            ));
        }
        if state.secrets.iter().any(|&s| s > 9) || state.roll > 3 {
            return Err(GameError::invalid_position("secret or die out of range"));
        }
        Ok(state)
    }

    fn position_to_string(&self, state: &State) -> String {
        serde_json::to_string(state).expect("state serializes")
    }

    fn status(&self, state: &State) -> Status {
        match state.phase {
            Phase::Deal | Phase::Roll => Status::Chance,
            Phase::Bid => Status::ToMove(
                (0..state.players())
                    .filter(|&p| state.active[p as usize])
                    .collect(),
            ),
            Phase::Over => Status::Terminal,
        }
    }

    fn chance(&self, state: &State) -> Chance {
        match state.phase {
            Phase::Deal => Chance::Sampled,
            _ => Chance::Explicit(vec![(1, 0.5), (2, 0.3), (3, 0.2)]),
        }
    }

    fn results(&self, state: &State) -> Vec<PlayerResult> {
        // Players still in rank above those who busted (`None`), then by score.
        results_by_key(
            (0..state.secrets.len()).map(|p| {
                let standing = state.active[p].then_some(state.scores[p]);
                (standing, standing.map_or(-1.0, f64::from))
            }),
            Better::Higher,
        )
    }

    fn legal_actions(&self, state: &State, player: Player, out: &mut Vec<ActionId>) {
        out.clear();
        if state.phase == Phase::Bid && state.active.get(player as usize) == Some(&true) {
            out.extend(0..=3);
        }
    }

    fn apply(&self, state: &mut State, moves: &[Move]) -> Result<(), GameError> {
        let Status::ToMove(movers) = self.status(state) else {
            return Err(GameError::not_your_turn("no player is to move"));
        };
        check_joint_action(movers, moves)?;
        if let Some(bad) = moves.iter().find(|m| m.action > 3) {
            return Err(GameError::illegal(format!("bid {} is not 0–3", bad.action)));
        }
        for m in moves {
            let p = m.player as usize;
            let bid = m.action as u8;
            if bid <= state.secrets[p] % 4 {
                state.scores[p] += u32::from(bid) * u32::from(state.roll);
                state.survived[p] = state.survived[p].max(bid);
            } else {
                state.active[p] = false;
            }
        }
        state.round += 1;
        let left = state.active.iter().filter(|&&a| a).count();
        state.phase = if state.round >= state.rounds || left <= 1 {
            Phase::Over
        } else {
            Phase::Roll
        };
        Ok(())
    }

    fn apply_chance(&self, state: &mut State, outcome: u64) -> Result<(), GameError> {
        match state.phase {
            Phase::Deal => {
                state.secrets = decode_secrets(outcome, state.secrets.len());
                state.phase = Phase::Roll;
            }
            Phase::Roll if (1..=3).contains(&outcome) => {
                state.roll = outcome as u8;
                state.phase = Phase::Bid;
            }
            Phase::Roll => {
                return Err(GameError::illegal(format!("the die has no face {outcome}")));
            }
            _ => return Err(GameError::illegal("not a chance node")),
        }
        Ok(())
    }

    fn action_to_string(
        &self,
        _: &State,
        _: Player,
        action: ActionId,
    ) -> Result<String, GameError> {
        if action <= 3 {
            Ok(format!("bid{action}"))
        } else {
            Err(GameError::illegal(format!("no action {action}")))
        }
    }

    fn parse_action(
        &self,
        state: &State,
        player: Player,
        text: &str,
    ) -> Result<ActionId, GameError> {
        let bid = read_bid(text)?;
        match why_not(state, player, bid) {
            Some(refusal) => Err(refusal.into()),
            None => Ok(bid),
        }
    }

    fn view(&self, state: &State, viewer: Viewer) -> serde_json::Value {
        let secrets: Vec<serde_json::Value> = (0..state.secrets.len())
            .map(|p| {
                let shown = state.phase == Phase::Over
                    || viewer == Viewer::Seat(p as u32)
                    || (!state.active[p] && state.phase != Phase::Deal);
                if shown && state.phase != Phase::Deal {
                    serde_json::json!(state.secrets[p])
                } else {
                    serde_json::json!(null)
                }
            })
            .collect();
        serde_json::json!({
            "secrets": secrets,
            "scores": state.scores,
            "active": state.active,
            "round": state.round,
            "roll": state.roll,
            "phase": format!("{:?}", state.phase),
        })
    }

    fn render_text(&self, state: &State, viewer: Viewer) -> String {
        format!("{}\n", self.view(state, viewer))
    }
}

impl Resample for Guess {
    fn resample(&self, state: &State, viewer: Viewer, random: u64) -> State {
        let mut other = state.clone();
        if state.phase == Phase::Deal || state.phase == Phase::Over {
            return other;
        }
        for p in 0..state.secrets.len() {
            if viewer == Viewer::Seat(p as u32) || !state.active[p] {
                continue;
            }
            // Any secret whose residue mod 4 covers every bid p survived.
            let candidates: Vec<u8> = (0..10).filter(|s| s % 4 >= state.survived[p]).collect();
            let pick = (random >> (8 * p)) as usize % candidates.len();
            other.secrets[p] = candidates[pick];
        }
        other
    }
}

impl SeatNames for Guess {
    fn seat_names(&self, players: u32) -> Vec<String> {
        match SEAT_NAMES.get(..players as usize) {
            Some(names) => names.iter().map(|name| name.to_string()).collect(),
            None => Vec::new(),
        }
    }
}

impl ExplainRefusal for Guess {
    fn explain_refusal(
        &self,
        state: &State,
        player: Player,
        attempt: Attempt<'_>,
    ) -> Option<Refusal> {
        match attempt {
            Attempt::Id(bid) => why_not(state, player, bid),
            Attempt::Text(text) => match read_bid(text) {
                Ok(bid) => why_not(state, player, bid),
                Err(refusal) => Some(refusal),
            },
        }
    }

    fn action_space(&self, _state: &State) -> u64 {
        BIDS
    }
}

tabletop_sdk::declare_extensions!(Guess: [Resample, SeatNames, ExplainRefusal]);
