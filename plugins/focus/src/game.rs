//! The [`Game`] implementation: the plugin boundary around [`Position`].

use tabletop_sdk::serde_json;
use tabletop_sdk::{
    ActionId, ActionTargets, Attempt, Better, Chance, Evaluate, ExplainRefusal, Game, GameError,
    Manifest, Move as Joint, Player, PlayerResult, PlayerSet, Refusal, RemovePlayer, SeatNames,
    SeatOut, SeatsOut, Setup, Status, SvgBoard, Transition, Viewer, check_single_move,
    results_by_key,
};

use crate::events;
use crate::illegal::IllegalMove;
use crate::moves::{Move, swap_code, swap_squares};
use crate::notation::{read_position, write_position};
use crate::position::Position;
use crate::refusal;
use crate::render;
use crate::rules::Rules;
use crate::seats;
use crate::setup::Side;
use crate::svg;
use crate::tower::Colour;

/// Sackson's Focus for 2 to 4 players, as a Tabletop game.
#[derive(Debug, Default, Clone, Copy)]
pub struct Focus;

const RULES_SUMMARY: &str = "\
Focus (Sid Sackson, 1963; also Domination) on a 52-square board. A tower belongs to the \
player whose piece is on top. On your turn either move the top k pieces of one of your \
towers exactly k squares north, south, east or west (onto an empty square or any tower, \
jumping what lies between), or drop a piece from your reserve on any square. A tower \
higher than five loses pieces from the bottom: yours go to your reserve, the others are \
captured. A player who cannot move on their turn is out for good. The last player (or, \
with four players, team: 1+2 against 3+4) able to move wins; with three players you also \
win by capturing 3 pieces of each opponent or removing 10 pieces in total. After \
`max_turns` moves the game is drawn. Moves are written `c3-e3` (distance = pieces moved) \
and drops `*d4`.";

/// The reason [`SeatsOut::seats_out`] gives: ruling F7. It does not say why the
/// player went out (unable to move, or removed by the host): the position
/// does not record it.
const OUT_BY_F7: &str = "F7: out of the game, skipped from then on";

/// Where a seat finished, worst first: the order ranks by (ruling F7 and
/// the README's *Results*).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Standing {
    /// With four players, a member of the team that lost.
    LosingTeam,
    /// Out (F7 or the clock); a later `order` in the out list ranks higher.
    Out { order: usize },
    /// Still in at the end without a share of the win (the others when F8
    /// gives one of three players the win, player 2 when F9 gives it to
    /// player 1).
    StillIn,
    /// A winner, or a member of the winning team.
    Won,
}

fn seat(player: Player) -> Option<Colour> {
    u8::try_from(player).ok().filter(|&p| p < 4)
}

impl Game for Focus {
    type State = Position;
    type View<'a> = render::View<'a>;

    fn manifest(&self) -> Manifest {
        Manifest {
            name: "focus".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            min_players: 2,
            max_players: 4,
            options: Rules::specs(),
            rules_summary: RULES_SUMMARY.into(),
            simultaneous: false,
            hidden_information: false,
            chance: true,
            removable_players: true,
        }
    }

    fn new_state(&self, setup: &Setup) -> Result<Position, GameError> {
        let rules = Rules::from_options(setup.players, &setup.options)?;
        Ok(Position::start(rules))
    }

    fn parse_position(&self, setup: &Setup, text: &str) -> Result<Position, GameError> {
        let rules = Rules::from_options(setup.players, &setup.options)?;
        let raw = read_position(text, rules.players())?;
        Ok(Position::from_raw(&raw, rules)?)
    }

    fn position_to_string(&self, state: &Position) -> String {
        write_position(&state.to_raw())
    }

    fn status(&self, state: &Position) -> Status {
        if state.side() == Side::Over {
            Status::Terminal
        } else if state.is_chance() {
            Status::Chance
        } else {
            match state.to_move() {
                Some(p) => Status::ToMove(PlayerSet::single(u32::from(p))),
                None => Status::Terminal,
            }
        }
    }

    /// Ruling F9, `opening_swap = random`: uniform over the allowed pairs,
    /// each outcome `r_square * 64 + g_square`.
    fn chance(&self, state: &Position) -> Chance {
        let pairs: Vec<u64> = state
            .allowed_swaps()
            .map(|(r, g)| swap_code(r, g))
            .collect();
        let p = 1.0 / pairs.len().max(1) as f64;
        Chance::Explicit(pairs.into_iter().map(|o| (o, p)).collect())
    }

    /// Winners share rank 1. With four players the losing team shares rank 3.
    /// With two or three, players still in rank above players out, and of
    /// those out, the later out ranks higher. The score is pieces captured.
    fn results(&self, state: &Position) -> Vec<PlayerResult> {
        let n = state.players() as Colour;
        let winners = state.outcome().map_or(0, |o| o.winners);
        let standing = |c: Colour| -> Standing {
            if winners & (1 << c) != 0 {
                Standing::Won
            } else if n == 4 {
                Standing::LosingTeam
            } else {
                match state.out_order().iter().position(|&o| o == c) {
                    Some(order) => Standing::Out { order },
                    None => Standing::StillIn,
                }
            }
        };
        results_by_key(
            (0..n).map(|c| {
                let captured: u32 = (0..n).map(|d| state.captured(c, d)).sum();
                (standing(c), f64::from(captured))
            }),
            Better::Higher,
        )
    }

    fn legal_actions(&self, state: &Position, player: Player, out: &mut Vec<ActionId>) {
        match seat(player) {
            Some(p) => state.legal_actions(p, out),
            None => out.clear(),
        }
    }

    /// One move: read and checked as `explain_refusal` explains it (the
    /// seat, the turn, the move), so the refusal and its explanation say
    /// the same. Any other shape of joint action is refused as the SDK
    /// refuses it.
    fn apply(&self, state: &mut Position, moves: &[Joint]) -> Result<(), GameError> {
        if let [only] = moves {
            let mv = Move::decode(only.action)?;
            state.play(refusal::seat(state, only.player)?, mv)?;
            return Ok(());
        }
        match state.to_move() {
            Some(mover) => check_single_move(Player::from(mover), moves).map(|_| ()),
            None => Err(IllegalMove::GameOver(state.outcome().map(|o| o.reason)).into()),
        }
    }

    fn apply_chance(&self, state: &mut Position, outcome: u64) -> Result<(), GameError> {
        let (r, g) = swap_squares(outcome).ok_or_else(|| {
            GameError::illegal(format!("{outcome} is not an opening-swap outcome"))
        })?;
        state.apply_swap_outcome(r, g)?;
        Ok(())
    }

    fn action_to_string(
        &self,
        _state: &Position,
        _player: Player,
        action: ActionId,
    ) -> Result<String, GameError> {
        let mv = Move::decode(action)?;
        if let Move::Shift { from, direction, k } = mv
            && mv.destination().is_none()
        {
            return Err(IllegalMove::OffBoard { from, direction, k }.into());
        }
        Ok(mv.notation())
    }

    /// Reads the text as `explain_refusal` explains it: the same reason
    /// and sentence, the kind saying whether the text did not read.
    fn parse_action(
        &self,
        state: &Position,
        player: Player,
        text: &str,
    ) -> Result<ActionId, GameError> {
        Ok(refusal::read_action(state, player, text)?)
    }

    fn view<'a>(&'a self, state: &'a Position, _viewer: Viewer) -> render::View<'a> {
        render::view(state)
    }

    fn render_text(&self, state: &Position, _viewer: Viewer) -> String {
        render::text(state)
    }

    /// What the move did (the pieces moved, the overflow, captures, players
    /// out) or which pair the random opening swap took (module `events`).
    fn event(
        &self,
        before: &Position,
        transition: &Transition,
        after: &Position,
        _viewer: Viewer,
    ) -> serde_json::Value {
        // Focus hides nothing: every viewer is told the same.
        events::event(self, before, transition, after)
    }
}

impl RemovePlayer for Focus {
    /// The host's clock `out`: the seat is out as by ruling F7 (skipped from
    /// then on) and ranks as an F7 player out would (see [`Game::results`]
    /// above and the README).
    fn remove_player(&self, state: &mut Position, player: Player) -> Result<(), GameError> {
        let seat = refusal::seat(state, player).map_err(|e| GameError::illegal(e.to_string()))?;
        state.remove(seat).map_err(GameError::illegal)
    }
}

impl SeatsOut for Focus {
    fn seats_out(&self, state: &Position) -> Vec<SeatOut> {
        let mut out: Vec<SeatOut> = state
            .out_order()
            .iter()
            .map(|&colour| SeatOut {
                seat: Player::from(colour),
                reason: OUT_BY_F7.to_string(),
            })
            .collect();
        out.sort_by_key(|s| s.seat);
        out
    }
}

impl SeatNames for Focus {
    /// `P1` to `P4`: the rule text's player 1 to 4, as positions write them.
    fn seat_names(&self, players: u32) -> Vec<String> {
        seats::names(players)
    }
}

impl ExplainRefusal for Focus {
    fn explain_refusal(
        &self,
        state: &Position,
        player: Player,
        attempt: Attempt<'_>,
    ) -> Option<Refusal> {
        refusal::explain(state, player, attempt)
    }

    fn action_space(&self, state: &Position) -> u64 {
        refusal::action_space(state)
    }
}

impl Evaluate for Focus {
    /// Ruling F7: every player in the out list, whether the rule put them
    /// out (they could not move on their turn) or the host removed them
    /// (which the position does not tell apart: both are "out and skipped
    /// from then on").
    fn evaluate(&self, state: &Position) -> Vec<f64> {
        crate::evaluate::evaluate(state)
    }
}

impl SvgBoard for Focus {
    /// The board, the same for every viewer (module `svg`).
    fn render_svg(&self, state: &Position, _viewer: Viewer) -> String {
        svg::svg(state)
    }
}

impl ActionTargets for Focus {
    /// Squares `sq-c3` and reserves `reserve-p1`, from then to (module
    /// `svg`).
    fn action_targets(&self, _state: &Position, player: Player, action: ActionId) -> Vec<String> {
        seat(player).map_or_else(Vec::new, |seat| svg::action_targets(seat, action))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use tabletop_sdk::{DynGame, InProcess};

    #[test]
    fn symmetry_options_with_three_players_are_refused() {
        let game = InProcess::new(Focus);
        let mut raw = BTreeMap::new();
        raw.insert("symmetry_rule".to_string(), "true".to_string());
        let e = game.new_state(3, &raw, None).err().unwrap();
        assert!(e.message.contains("two-player"), "{}", e.message);
        assert!(game.new_state(2, &raw, None).is_ok());
    }

    fn start(players: u32) -> Position {
        let setup = Setup::validate(&Focus.manifest(), players, &BTreeMap::new()).unwrap();
        Focus.new_state(&setup).unwrap()
    }

    /// Plays the lowest legal action until the end, checking that `gone`
    /// never moves; returns the final state.
    fn play_out(mut state: Position, gone: &[Player]) -> Position {
        let mut legal = Vec::new();
        for _ in 0..10_000 {
            match Focus.status(&state) {
                Status::Terminal => return state,
                Status::ToMove(movers) => {
                    let mover = movers.iter().next().unwrap();
                    assert!(!gone.contains(&mover), "a removed seat is to move (F7)");
                    for &g in gone {
                        Focus.legal_actions(&state, g, &mut legal);
                        assert!(legal.is_empty(), "a removed seat has legal actions");
                    }
                    Focus.legal_actions(&state, mover, &mut legal);
                    let action = legal[legal.len() / 2];
                    Focus
                        .apply(
                            &mut state,
                            &[Joint {
                                player: mover,
                                action,
                            }],
                        )
                        .unwrap();
                }
                Status::Chance => panic!("no chance without opening_swap"),
            }
        }
        panic!("the game did not end")
    }

    #[test]
    fn a_removed_player_is_skipped_and_the_others_play_on_ruling_f7() {
        let mut state = start(3);
        assert_eq!(Focus.status(&state), Status::ToMove(PlayerSet::single(0)));
        Focus.remove_player(&mut state, 0).unwrap();
        // Seat 0 was to move: the turn passes on without a ply (F7).
        assert_eq!(Focus.status(&state), Status::ToMove(PlayerSet::single(1)));
        assert_eq!(state.moves(), 0);
        // Its reserve stays, unused, and the position still round-trips.
        assert_eq!(state.reserve(0), 1);
        let text = Focus.position_to_string(&state);
        let setup = Setup::validate(&Focus.manifest(), 3, &BTreeMap::new()).unwrap();
        assert_eq!(Focus.parse_position(&setup, &text).unwrap(), state);
        let end = play_out(state, &[0]);
        let results = Focus.results(&end);
        assert_eq!(results.len(), 3);
        // Below everyone still in: seat 0 went out first, so it is last
        // unless another seat went out later by F7 (then that one ranks above it).
        assert_eq!(results[0].rank, 3, "{results:?}");
    }

    #[test]
    fn seats_out_lists_every_player_out_in_seat_order_ruling_f7() {
        let mut state = start(4);
        assert_eq!(Focus.seats_out(&state), []);
        Focus.remove_player(&mut state, 3).unwrap();
        Focus.remove_player(&mut state, 1).unwrap();
        let seats: Vec<Player> = Focus.seats_out(&state).iter().map(|s| s.seat).collect();
        assert_eq!(seats, [1, 3], "seat order, not the order they went out");
        assert!(
            Focus
                .seats_out(&state)
                .iter()
                .all(|s| s.reason.starts_with("F7"))
        );
    }

    #[test]
    fn removing_a_player_not_to_move_keeps_the_turn() {
        let mut state = start(4);
        // Four players: turn order 1, 3, 2, 4 (F3); seat 0 is to move.
        Focus.remove_player(&mut state, 3).unwrap();
        assert_eq!(Focus.status(&state), Status::ToMove(PlayerSet::single(0)));
        // Seat 3's teammate (seat 2) is still in: the game goes on.
        Focus.remove_player(&mut state, 1).unwrap();
        assert_eq!(Focus.status(&state), Status::ToMove(PlayerSet::single(0)));
        // Now team 1+2 (seats 0, 1) and team 3+4 (seats 2, 3) each have one
        // member in; removing seat 2 leaves one team: it wins (F7).
        Focus.remove_player(&mut state, 2).unwrap();
        assert_eq!(Focus.status(&state), Status::Terminal);
        let ranks: Vec<u32> = Focus.results(&state).iter().map(|r| r.rank).collect();
        assert_eq!(
            ranks,
            vec![1, 1, 3, 3],
            "F7: the last team in wins, as a team"
        );
    }

    #[test]
    fn two_players_one_removed_the_other_wins() {
        let mut state = start(2);
        Focus.remove_player(&mut state, 1).unwrap();
        assert_eq!(Focus.status(&state), Status::Terminal);
        let ranks: Vec<u32> = Focus.results(&state).iter().map(|r| r.rank).collect();
        assert_eq!(ranks, vec![1, 2]);
    }

    #[test]
    fn removing_twice_a_bad_seat_or_after_the_end_is_refused_and_changes_nothing() {
        let mut state = start(3);
        Focus.remove_player(&mut state, 2).unwrap();
        let before = state.clone();
        let again = Focus.remove_player(&mut state, 2).unwrap_err();
        assert!(again.message.contains("already out"), "{}", again.message);
        for bad in [3, 4, 99, u32::MAX] {
            let e = Focus.remove_player(&mut state, bad).unwrap_err();
            assert_eq!(e.kind, tabletop_sdk::ErrorKind::IllegalAction);
        }
        assert_eq!(state, before);
        Focus.remove_player(&mut state, 1).unwrap();
        assert_eq!(Focus.status(&state), Status::Terminal);
        let over = state.clone();
        assert!(Focus.remove_player(&mut state, 0).is_err());
        assert_eq!(state, over);
    }
}
