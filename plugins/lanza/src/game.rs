//! The [`Game`] implementation: the SDK's view of a Lanza match.
//!
//! Action ids: orders are `0..216` (see [`crate::orders`]), placing a
//! re-entering piece on field `f` is `216 + f.index()` (ruling L10).

use tabletop_sdk::{
    ActionId, ActionTargets, Attempt, Chance, Evaluate, ExplainRefusal, Game, GameError, Manifest,
    Move, OptionSpec, Player, PlayerResult, PlayerSet, Refusal, RemovePlayer, SeatNames, Setup,
    Status, SvgBoard, Transition, Viewer, check_joint_action, serde_json,
};

use crate::orders::{ORDER_IDS, Orders};
use crate::piece::{seat_label, seat_names};
use crate::position::{Phase, Position};
use crate::{events, notation, refusal, svg, view};

/// The Lanza game, for the SDK.
#[derive(Debug, Default, Clone, Copy)]
pub struct Lanza;

/// The default turn limit (ruling L12).
pub const DEFAULT_MAX_TURNS: i64 = 300;

fn max_turns(setup: &Setup) -> u32 {
    // The SDK has checked the range declared in the manifest.
    u32::try_from(setup.options.int("max_turns")).unwrap_or(u32::MAX)
}

/// The id of placing the next re-entering piece on `field` (ruling L10).
pub fn place_id(field: crate::board::Field) -> ActionId {
    ORDER_IDS + field.index() as u64
}

impl Lanza {
    /// The joint orders of `moves` in seat order, checked against the movers.
    pub(crate) fn joint_orders(
        &self,
        state: &Position,
        moves: &[Move],
    ) -> Result<Vec<Orders>, GameError> {
        let mut orders: Vec<Option<Orders>> = vec![None; state.players() as usize];
        for m in moves {
            let slot = orders.get_mut(m.player as usize).ok_or_else(|| {
                GameError::not_your_turn(format!("{} is not playing", seat_label(m.player)))
            })?;
            if slot.is_some() {
                return Err(GameError::illegal(format!(
                    "{} ordered twice",
                    seat_label(m.player)
                )));
            }
            *slot = Some(Orders::from_id(m.action).map_err(|e| {
                let refusal =
                    refusal::explain_id(state, m.player, m.action).unwrap_or_else(|| e.refusal());
                GameError::illegal(format!("{}: {}", seat_label(m.player), refusal.message))
            })?);
        }
        orders
            .into_iter()
            .enumerate()
            .map(|(p, o)| {
                if o.is_none() && state.is_out(p as u32) {
                    // A seat taken out has no piece to order: any orders do
                    // (the adjudication only reads pieces on the board).
                    let any = Orders::all_ids()[0];
                    return Orders::from_id(any).map_err(|e| GameError::internal(e.to_string()));
                }
                o.ok_or_else(|| {
                    GameError::illegal(format!(
                        "{} has not ordered: every player orders at once (L5)",
                        seat_label(p as u32)
                    ))
                })
            })
            .collect()
    }
}

impl Game for Lanza {
    type State = Position;
    type View<'a> = view::View<'a>;

    fn manifest(&self) -> Manifest {
        Manifest {
            name: "lanza".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            min_players: 2,
            max_players: 4,
            options: vec![OptionSpec::int(
                "max_turns",
                1,
                100_000,
                DEFAULT_MAX_TURNS,
                "Turns after which the game ends without a 3-chip winner: the sole chip leader \
                 wins, tied leaders share first place (ruling L12).",
            )],
            rules_summary: crate::RULES_SUMMARY.into(),
            simultaneous: true,
            // Pending orders are collected by the host and never enter a
            // state; everything a state holds is public.
            hidden_information: false,
            chance: true,
            removable_players: true,
        }
    }

    fn new_state(&self, setup: &Setup) -> Result<Position, GameError> {
        Position::start(setup.players, max_turns(setup))
            .map_err(|e| GameError::invalid_option(e.to_string()))
    }

    fn parse_position(&self, setup: &Setup, text: &str) -> Result<Position, GameError> {
        notation::parse_position(text, setup.players, max_turns(setup))
            .map_err(|e| GameError::invalid_position(e.to_string()))
    }

    fn position_to_string(&self, state: &Position) -> String {
        notation::position_to_string(state)
    }

    fn status(&self, state: &Position) -> Status {
        match state.phase() {
            Phase::Setup | Phase::Reentry(_) => Status::Chance,
            // Ruling L5: every player with a piece on the board orders at once.
            Phase::Orders => Status::ToMove(
                state
                    .pieces()
                    .filter(|&p| state.field_of(p).is_some())
                    .map(|p| p.player())
                    .collect(),
            ),
            Phase::Place(_) => match state.placer() {
                Some((_, player)) => Status::ToMove(PlayerSet::single(player)),
                None => Status::Terminal,
            },
            Phase::Over => Status::Terminal,
        }
    }

    fn chance(&self, state: &Position) -> Chance {
        match state.reentry_outcomes() {
            Some(outcomes) => Chance::Explicit(outcomes),
            None => Chance::Sampled,
        }
    }

    fn results(&self, state: &Position) -> Vec<PlayerResult> {
        state
            .ranks()
            .into_iter()
            .enumerate()
            .map(|(p, rank)| PlayerResult {
                rank,
                score: f64::from(state.chips(p as u32)),
            })
            .collect()
    }

    fn legal_actions(&self, state: &Position, player: Player, out: &mut Vec<ActionId>) {
        out.clear();
        match self.status(state) {
            Status::ToMove(movers) if movers.contains(player) => {}
            _ => return,
        }
        match state.phase() {
            Phase::Orders => out.extend_from_slice(Orders::all_ids()),
            Phase::Place(_) => out.extend(state.empty_edge_fields().map(place_id)),
            _ => {}
        }
    }

    fn apply(&self, state: &mut Position, moves: &[Move]) -> Result<(), GameError> {
        let Status::ToMove(movers) = self.status(state) else {
            return Err(GameError::not_your_turn("no player is to move now"));
        };
        check_joint_action(movers, moves)?;
        match state.phase() {
            Phase::Orders => {
                let orders = self.joint_orders(state, moves)?;
                state
                    .play_turn(&orders)
                    .map(|_| ())
                    .map_err(|e| GameError::internal(e.to_string()))
            }
            Phase::Place(_) => {
                let Move { player, action } = moves[0];
                if let Some(refusal) = refusal::explain_id(state, player, action) {
                    return Err(refusal.into());
                }
                let field = action
                    .checked_sub(ORDER_IDS)
                    .and_then(|i| usize::try_from(i).ok())
                    .and_then(|i| state.board().field(i))
                    .ok_or_else(|| {
                        GameError::internal(format!("legal action {action} places no piece"))
                    })?;
                state.place(field).map_err(GameError::illegal)
            }
            _ => Err(GameError::not_your_turn("no player is to move now")),
        }
    }

    fn apply_chance(&self, state: &mut Position, outcome: u64) -> Result<(), GameError> {
        match state.phase() {
            Phase::Setup => state.apply_setup(outcome).map_err(GameError::illegal),
            Phase::Reentry(_) => state.apply_reentry(outcome).map_err(GameError::illegal),
            _ => Err(GameError::not_your_turn("this is not a chance node")),
        }
    }

    fn action_to_string(
        &self,
        state: &Position,
        player: Player,
        action: ActionId,
    ) -> Result<String, GameError> {
        match state.phase() {
            Phase::Orders if action < ORDER_IDS => Orders::from_id(action)
                .map(|o| o.notation())
                .map_err(|e| GameError::illegal(e.to_string())),
            Phase::Place(_) => {
                let (piece, owner) = state
                    .placer()
                    .ok_or_else(|| GameError::illegal("no piece is waiting to re-enter"))?;
                let field = action
                    .checked_sub(ORDER_IDS)
                    .and_then(|i| usize::try_from(i).ok())
                    .and_then(|i| state.board().field(i))
                    .ok_or_else(|| {
                        GameError::illegal(format!("action {action} places no piece"))
                    })?;
                if owner != player {
                    return Err(GameError::not_your_turn(format!(
                        "{piece} is not a piece of {}",
                        seat_label(player)
                    )));
                }
                Ok(format!(
                    "{}@{}",
                    piece.rank().letter(),
                    state.board().name(field)
                ))
            }
            _ => Err(GameError::illegal(format!(
                "action {action} means nothing now"
            ))),
        }
    }

    fn parse_action(
        &self,
        state: &Position,
        player: Player,
        text: &str,
    ) -> Result<ActionId, GameError> {
        if let Some(refusal) = refusal::turn_refusal(state, player) {
            return Err(GameError::not_your_turn(refusal.message));
        }
        refusal::read_text(state, player, text).map_err(GameError::from)
    }

    fn view<'a>(&'a self, state: &'a Position, viewer: Viewer) -> view::View<'a> {
        view::view(self, state, viewer)
    }

    fn render_text(&self, state: &Position, viewer: Viewer) -> String {
        view::text(self, state, viewer)
    }

    fn event(
        &self,
        before: &Position,
        transition: &Transition,
        after: &Position,
        viewer: Viewer,
    ) -> serde_json::Value {
        // Lanza hides nothing: every viewer is told the same.
        let _ = viewer;
        events::event(self, before, transition, after)
    }
}

impl RemovePlayer for Lanza {
    /// The host's clock `out`: the seat's pieces leave the board, nobody gets
    /// a chip for them, and the others play on (see [`Position::remove`] and
    /// the README).
    fn remove_player(&self, state: &mut Position, player: Player) -> Result<(), GameError> {
        state.remove(player).map_err(GameError::illegal)
    }
}

impl SeatNames for Lanza {
    fn seat_names(&self, players: u32) -> Vec<String> {
        seat_names(players)
    }
}

impl ExplainRefusal for Lanza {
    fn explain_refusal(
        &self,
        state: &Position,
        player: Player,
        attempt: Attempt<'_>,
    ) -> Option<Refusal> {
        match attempt {
            Attempt::Id(id) => refusal::explain_id(state, player, id),
            Attempt::Text(text) => refusal::explain_text(state, player, text),
        }
    }

    fn action_space(&self, state: &Position) -> u64 {
        refusal::action_space(state)
    }
}

impl Evaluate for Lanza {
    fn evaluate(&self, state: &Position) -> Vec<f64> {
        crate::evaluate::evaluate(state)
    }
}

impl SvgBoard for Lanza {
    /// The board, the same for every viewer: a state holds no secret
    /// (module `svg`).
    fn render_svg(&self, state: &Position, _viewer: Viewer) -> String {
        svg::svg(state)
    }
}

impl ActionTargets for Lanza {
    /// Orders name each piece and the field its card sends it to, a
    /// re-entry the piece and its field (module `svg`).
    fn action_targets(&self, state: &Position, player: Player, action: ActionId) -> Vec<String> {
        svg::action_targets(state, player, action)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn start(players: u32) -> Position {
        let setup = Setup::validate(&Lanza.manifest(), players, &BTreeMap::new()).unwrap();
        let mut state = Lanza.new_state(&setup).unwrap();
        Lanza.apply_chance(&mut state, 42).unwrap();
        state
    }

    /// Plays (pseudo-randomly) to the end; `gone` never moves.
    fn play_out(mut state: Position, gone: &[Player]) -> Position {
        let mut seed = 7u64;
        let mut legal = Vec::new();
        for _ in 0..100_000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            match Lanza.status(&state) {
                Status::Terminal => return state,
                Status::Chance => {
                    let outcome = match Lanza.chance(&state) {
                        Chance::Explicit(list) => list[(seed >> 33) as usize % list.len()].0,
                        Chance::Sampled => seed,
                    };
                    Lanza.apply_chance(&mut state, outcome).unwrap();
                }
                Status::ToMove(movers) => {
                    let mut moves = Vec::new();
                    for p in movers.iter() {
                        assert!(!gone.contains(&p), "removed seat {p} is to move");
                        Lanza.legal_actions(&state, p, &mut legal);
                        let action = legal[(seed >> 33) as usize % legal.len()];
                        moves.push(Move { player: p, action });
                    }
                    Lanza.apply(&mut state, &moves).unwrap();
                }
            }
        }
        panic!("the game did not end")
    }

    #[test]
    fn a_removed_seat_leaves_the_board_and_the_others_play_on() {
        let mut state = start(3);
        let chips_before: Vec<u32> = (0..3).map(|p| state.chips(p)).collect();
        Lanza.remove_player(&mut state, 1).unwrap();
        assert!(
            state
                .pieces()
                .filter(|p| p.player() == 1)
                .all(|p| state.field_of(p).is_none())
        );
        // No chip for anyone (ruling L9 counts captures only).
        assert_eq!(
            (0..3).map(|p| state.chips(p)).collect::<Vec<_>>(),
            chips_before
        );
        // Ruling L5: the seats still in order; seat 1 does not.
        assert_eq!(
            Lanza.status(&state),
            Status::ToMove([0, 2].into_iter().collect())
        );
        let mut legal = Vec::new();
        Lanza.legal_actions(&state, 1, &mut legal);
        assert!(legal.is_empty());
        // The notation keeps the removal.
        let text = Lanza.position_to_string(&state);
        assert!(text.contains("out 1"), "{text}");
        let setup = Setup::validate(&Lanza.manifest(), 3, &BTreeMap::new()).unwrap();
        assert_eq!(Lanza.parse_position(&setup, &text).unwrap(), state);
        let end = play_out(state, &[1]);
        let ranks: Vec<u32> = Lanza.results(&end).iter().map(|r| r.rank).collect();
        assert_eq!(
            ranks[1], 3,
            "a removed seat ranks below the seats still in: {ranks:?}"
        );
    }

    #[test]
    fn later_removed_ranks_higher_and_one_left_wins() {
        let mut state = start(4);
        Lanza.remove_player(&mut state, 2).unwrap();
        Lanza.remove_player(&mut state, 0).unwrap();
        assert_ne!(Lanza.status(&state), Status::Terminal);
        Lanza.remove_player(&mut state, 3).unwrap();
        assert_eq!(Lanza.status(&state), Status::Terminal);
        let ranks: Vec<u32> = Lanza.results(&state).iter().map(|r| r.rank).collect();
        assert_eq!(ranks, vec![3, 1, 4, 2]);
    }

    #[test]
    fn removing_twice_a_bad_seat_or_after_the_end_is_refused_and_changes_nothing() {
        let mut state = start(3);
        Lanza.remove_player(&mut state, 0).unwrap();
        let before = state.clone();
        for bad in [0, 3, 4, u32::MAX] {
            let e = Lanza.remove_player(&mut state, bad).unwrap_err();
            assert_eq!(
                e.kind,
                tabletop_sdk::ErrorKind::IllegalAction,
                "{}",
                e.message
            );
            assert_eq!(state, before);
        }
        Lanza.remove_player(&mut state, 2).unwrap();
        assert_eq!(Lanza.status(&state), Status::Terminal);
        let over = state.clone();
        assert!(Lanza.remove_player(&mut state, 1).is_err());
        assert_eq!(state, over);
    }

    #[test]
    fn removal_takes_the_seats_pieces_out_of_the_reentry_queue_ruling_l10() {
        // Seat B's Queen and Jack wait to re-enter, A's King first.
        let text = "turns 3; A K- Qb1 Jc1 chips 1; B Kd1 Q- J- chips 1; \
                    C Ke1 Qa1 Jc2 chips 0; place AK BQ BJ";
        let setup = Setup::validate(&Lanza.manifest(), 3, &BTreeMap::new()).unwrap();
        let mut state = Lanza
            .parse_position(&setup, text)
            .expect("a legal position");
        Lanza.remove_player(&mut state, 1).unwrap();
        let king_a = crate::piece::PieceId::new(0, crate::piece::Rank::King).unwrap();
        assert_eq!(state.phase(), &Phase::Place(vec![king_a]));
        assert_eq!(Lanza.status(&state), Status::ToMove(PlayerSet::single(0)));
        // Removing seat A instead leaves only B's pieces in the queue.
        let mut other = Lanza.parse_position(&setup, text).unwrap();
        Lanza.remove_player(&mut other, 0).unwrap();
        assert_eq!(
            other.phase(),
            &Phase::Place(vec![
                crate::piece::PieceId::new(1, crate::piece::Rank::Queen).unwrap(),
                crate::piece::PieceId::new(1, crate::piece::Rank::Jack).unwrap(),
            ])
        );
    }
}
