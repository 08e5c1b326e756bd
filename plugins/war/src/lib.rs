//! War, the Hungarian two-army board game with infantry, cavalry, cannons,
//! railways and entrenchments, as a Tabletop plugin. The rules are the
//! numbered rulings W1–W12 written out in this crate's `README.md`, with
//! every choice made where the rule text left room; each is cited where it
//! is implemented.
//!
//! Boards are data ([`board`], W1): the default board of W2 ships as a board
//! document, and option `board` may hold a whole document instead.
//!
//! # Example
//! ```
//! use std::collections::BTreeMap;
//! use tabletop_sdk::{DynGame, InProcess, Status};
//!
//! let game = InProcess::new(war::War);
//! let mut state = game.new_state(2, &BTreeMap::new(), None).unwrap();
//! // The setup (W3): South places one unit type on its next start point.
//! let place = state.parse_action(0, "I@1").unwrap();
//! state.apply(&[tabletop_sdk::Move { player: 0, action: place }]).unwrap();
//! assert_eq!(state.status().unwrap(), Status::ToMove(tabletop_sdk::PlayerSet::single(0)));
//! assert!(state.render_text(tabletop_sdk::Viewer::Spectator).unwrap().contains('I'));
//! ```
#![forbid(unsafe_code)]

pub mod board;
mod evaluate;
mod events;
pub mod explain;
pub mod layout;
mod lines;
pub mod moves;
pub mod notation;
mod point_set;
pub mod position;
pub mod position_text;
pub mod reasons;
pub mod render;
mod rules;
pub mod side;
pub mod svg;

use std::sync::{Arc, OnceLock};

use tabletop_sdk::{
    ActionId, ActionTargets, Attempt, Better, Chance, ErrorKind, Evaluate, ExpandNotation,
    ExplainRefusal, Game, GameError, Manifest, Move, OptionSpec, Player, PlayerResult, PlayerSet,
    Refusal, SeatNames, Setup, Status, SvgBoard, Transition, Viewer, check_single_move,
    results_by_key,
};

pub use board::{Board, BoardError};
pub use moves::Action;
pub use position::{Outcome, Phase, Position, Reason};
pub use side::{Side, TileKind, Unit, UnitKind};

/// The game, as the plugin exports it.
#[derive(Debug, Default, Clone, Copy)]
pub struct War;

fn default_board() -> Arc<Board> {
    static BOARD: OnceLock<Arc<Board>> = OnceLock::new();
    Arc::clone(BOARD.get_or_init(|| Arc::new(Board::default_board())))
}

/// Resolves option `board`: the name of a shipped board, or a whole board
/// document (W1).
pub fn resolve_board(value: &str) -> Result<Arc<Board>, GameError> {
    if value.trim() == "default" {
        return Ok(default_board());
    }
    if let Some(b) = Board::shipped(value.trim()) {
        return Ok(Arc::new(b));
    }
    if !value.contains('\n') && !value.trim_start().starts_with("point") {
        let names: Vec<&str> = board::SHIPPED_BOARDS.iter().map(|(n, _)| *n).collect();
        return Err(GameError::invalid_option(format!(
            "option `board`: no shipped board `{}` (shipped: {}); or give a whole board document",
            tabletop_sdk::text::quote(value.trim()),
            names.join(", ")
        )));
    }
    Board::parse(value)
        .map(Arc::new)
        .map_err(|e| GameError::invalid_option(format!("option `board`: {e}")))
}

fn settings(setup: &Setup) -> Result<(Arc<Board>, u8, u32), GameError> {
    let board = resolve_board(setup.options.text("board"))?;
    let rail: u8 = setup.options.text("rail_tiles").parse().unwrap_or(3);
    let max_turns = setup.options.int("max_turns").clamp(1, i64::from(u32::MAX)) as u32;
    Ok((board, rail, max_turns))
}

/// A refusal as the error a call returns: a turn that is not the
/// player's (or a game that is over) is [`ErrorKind::NotYourTurn`], as
/// for every game; the others are the refusal's own kind. The message is
/// the explanation's either way.
fn refusal_error(refusal: Refusal) -> GameError {
    match refusal.reason.as_str() {
        reasons::NOT_YOUR_TURN | reasons::GAME_OVER => {
            GameError::new(ErrorKind::NotYourTurn, refusal.message)
        }
        _ => refusal.into(),
    }
}

fn no_such_action(id: ActionId) -> GameError {
    GameError::illegal(format!("{id} is not the id of a War action (W12)"))
}

impl Game for War {
    type State = Position;
    type View<'a> = render::View<'a>;

    fn manifest(&self) -> Manifest {
        Manifest {
            name: "war".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            min_players: 2,
            max_players: 2,
            options: vec![
                OptionSpec::text(
                    "board",
                    "default",
                    "A shipped board by name (`default`, the W2 reconstruction) or a whole board document.",
                ),
                OptionSpec::choice("rail_tiles", &["3", "5"], "3", "Railway tiles per side (W3)."),
                OptionSpec::int(
                    "max_turns",
                    1,
                    100_000,
                    400,
                    "Moves after the setup before the game is drawn (W11).",
                ),
            ],
            rules_summary: "Two armies of 16 infantry, 6 cavalry and 2 cannons. South places its units \
                on points 1-24, then North on I-XXIV; then one move per turn: step along black lines \
                (cavalry up to two), up to three points along railways, jump an undefended enemy, fire \
                a cannon along a line, or place or remove an entrenchment or railway tile. Captures are \
                compulsory. Win by occupying the enemy fortress, by leaving the enemy two units or \
                fewer, or when the enemy cannot move."
                .into(),
            simultaneous: false,
            hidden_information: false,
            chance: false,
            removable_players: false,
        }
    }

    fn new_state(&self, setup: &Setup) -> Result<Position, GameError> {
        let (board, rail, max_turns) = settings(setup)?;
        Ok(Position::new(board, rail, max_turns))
    }

    fn parse_position(&self, setup: &Setup, text: &str) -> Result<Position, GameError> {
        let (board, rail, max_turns) = settings(setup)?;
        position_text::parse(text, &board, rail, max_turns)
            .map_err(|e| GameError::invalid_position(e.0))
    }

    fn position_to_string(&self, state: &Position) -> String {
        position_text::to_string(state)
    }

    fn status(&self, state: &Position) -> Status {
        match state.phase() {
            Phase::Over(_) => Status::Terminal,
            _ => Status::ToMove(PlayerSet::single(state.to_move().index() as Player)),
        }
    }

    fn chance(&self, _: &Position) -> Chance {
        // War has no chance (the status is never Chance); an empty list says so.
        Chance::Explicit(Vec::new())
    }

    fn results(&self, state: &Position) -> Vec<PlayerResult> {
        let winner = match state.phase() {
            Phase::Over(o) => o.winner,
            _ => None,
        };
        // Half points: a win is 2, a draw 1 each, a loss 0. The score is the
        // point itself (1, ½, 0).
        let half_points = |side: Side| match winner {
            None => 1u32,
            Some(w) if w == side => 2,
            Some(_) => 0,
        };
        results_by_key(
            Side::BOTH.iter().map(|&side| {
                let half = half_points(side);
                (half, f64::from(half) / 2.0)
            }),
            Better::Higher,
        )
    }

    fn legal_actions(&self, state: &Position, player: Player, out: &mut Vec<ActionId>) {
        out.clear();
        if matches!(state.phase(), Phase::Over(_)) || player as usize != state.to_move().index() {
            return;
        }
        out.extend_from_slice(state.legal_ids());
    }

    fn apply(&self, state: &mut Position, moves: &[Move]) -> Result<(), GameError> {
        if matches!(state.phase(), Phase::Over(_)) {
            return Err(GameError::not_your_turn(
                "the game is over: no more actions (W11)",
            ));
        }
        let seat = state.to_move().index() as Player;
        let id = check_single_move(seat, moves)?.action;
        let action = Action::from_id(id, state.board()).ok_or_else(|| no_such_action(id))?;
        let action = explain::judge(state, seat, action).map_err(refusal_error)?;
        let played = state.play(action);
        debug_assert!(played, "a judged action is legal");
        Ok(())
    }

    fn apply_chance(&self, _: &mut Position, _: u64) -> Result<(), GameError> {
        Err(GameError::illegal("War has no chance"))
    }

    fn action_to_string(
        &self,
        state: &Position,
        _: Player,
        action: ActionId,
    ) -> Result<String, GameError> {
        let a = Action::from_id(action, state.board()).ok_or_else(|| no_such_action(action))?;
        Ok(notation::action_to_string(state, a))
    }

    /// Reads `text` with [`explain::parse`]: a refusal's message and kind
    /// are those of [`ExplainRefusal::explain_refusal`].
    fn parse_action(
        &self,
        state: &Position,
        player: Player,
        text: &str,
    ) -> Result<ActionId, GameError> {
        explain::parse(state, player, text).map_err(refusal_error)
    }

    fn view<'a>(&'a self, state: &'a Position, _: Viewer) -> render::View<'a> {
        render::view(state)
    }

    fn render_text(&self, state: &Position, _: Viewer) -> String {
        render::text(state)
    }

    /// What the move did: the unit and its points, captures, seized and
    /// removed cannons, tiles and the end (see the `events` module). War
    /// hides nothing: every viewer is told the same.
    fn event(
        &self,
        before: &Position,
        transition: &Transition,
        after: &Position,
        _: Viewer,
    ) -> serde_json::Value {
        events::event(before, transition, after)
    }
}

impl ExpandNotation for War {
    /// A whole or partial setup layout in one text (W3); see [`layout`].
    fn expand_notation(
        &self,
        state: &Position,
        player: Player,
        text: &str,
    ) -> Result<Option<Vec<String>>, GameError> {
        layout::expand(state, player, text).map_err(refusal_error)
    }
}

impl SeatNames for War {
    /// South is seat 0, North seat 1 (W3).
    fn seat_names(&self, _: u32) -> Vec<String> {
        Side::BOTH.map(|side| side.seat_name().to_string()).into()
    }
}

impl ExplainRefusal for War {
    /// The reason of a refused id or text (see [`explain`] and the codes in
    /// [`reasons`]).
    fn explain_refusal(
        &self,
        state: &Position,
        player: Player,
        attempt: Attempt<'_>,
    ) -> Option<Refusal> {
        match attempt {
            Attempt::Id(id) => explain::explain_id(state, player, id),
            Attempt::Text(text) => explain::explain_text(state, player, text),
        }
    }

    /// Every action of the board's id layout (see [`moves`]).
    fn action_space(&self, state: &Position) -> u64 {
        Action::space(state.board())
    }
}

impl Evaluate for War {
    fn evaluate(&self, state: &Position) -> Vec<f64> {
        evaluate::evaluate(state)
    }
}

impl SvgBoard for War {
    /// The board, the same for every viewer (see [`svg`]).
    fn render_svg(&self, state: &Position, _: Viewer) -> String {
        svg::svg(state)
    }
}

impl ActionTargets for War {
    /// From, then to: points `pt-d4`, segments `seg-d5-d6`, tiles in hand
    /// and units to place (see [`svg`]).
    fn action_targets(&self, state: &Position, _: Player, action: ActionId) -> Vec<String> {
        svg::action_targets(state, action)
    }
}

tabletop_sdk::export_game!(
    War,
    extensions: [ExpandNotation, SeatNames, ExplainRefusal, Evaluate, SvgBoard, ActionTargets]
);
