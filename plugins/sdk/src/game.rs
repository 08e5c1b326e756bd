//! The safe trait a game implements. The export macro turns it into the C ABI.

use crate::error::GameError;
use crate::manifest::{Manifest, Setup};
use crate::types::{ActionId, Chance, Move, Player, PlayerResult, Status, Transition, Viewer};

/// A game's rules. Implement this, end the crate with
/// [`export_game!`](crate::export_game), and the crate is a plugin. Each
/// optional capability is a trait of its own ([`crate::extension`]), which
/// the game implements and names in `export_game!`.
///
/// # Contract
/// - **Pure and deterministic.** No clocks, no thread-local randomness, nothing that
///   depends on hash-map iteration order. All randomness is a chance node
///   ([`Status::Chance`]) whose outcome the host draws and records.
/// - **A failed call changes nothing.** `apply` and `apply_chance` check their
///   input before they mutate; an illegal action returns an error and leaves the
///   state as it was.
/// - **Never panic on input.** Bad ids, texts and options are errors; a panic is a
///   bug, and the conformance kit fails on it.
/// - **Hide what is hidden.** `view`, `render_text`, `event`, legal actions and
///   error messages for a viewer may depend only on what that viewer knows; the
///   kit checks it with [`Resample::resample`](crate::Resample::resample).
pub trait Game: Default + Send + Sync + 'static {
    /// One game state. Cloning it must be cheap enough for the host to snapshot.
    type State: Clone + Send + 'static;

    /// What [`Game::view`] returns: typed data, often borrowing from the
    /// state, that serialises to the view's JSON (or a `serde_json::Value`
    /// built by hand).
    type View<'a>: serde::Serialize;

    /// The game's name, version, players, options and rules summary.
    fn manifest(&self) -> Manifest;

    /// The start state for `setup` (which the SDK has already checked against the
    /// manifest's player range and option types). Refuse option combinations that
    /// do not apply with [`GameError::invalid_option`].
    fn new_state(&self, setup: &Setup) -> Result<Self::State, GameError>;

    /// A state from a position in the game's notation, for matches that start
    /// from a given position. The position's player count must match `setup`.
    fn parse_position(&self, setup: &Setup, text: &str) -> Result<Self::State, GameError>;

    /// The position in the game's notation; [`Game::parse_position`] reads it back
    /// to an equal state. It contains everything, hidden information included.
    fn position_to_string(&self, state: &Self::State) -> String;

    /// Who acts next, or chance, or the end.
    fn status(&self, state: &Self::State) -> Status;

    /// How the current chance node is resolved. Called only when
    /// [`Game::status`] is [`Status::Chance`]: elsewhere the SDK answers
    /// `NOT_YOUR_TURN` itself, as the ABI requires of every game.
    fn chance(&self, state: &Self::State) -> Chance;

    /// Every player's result. Called only when [`Game::status`] is
    /// [`Status::Terminal`]; one entry per seat. A game that ranks by a key
    /// builds them with [`results_by_key`](crate::results_by_key).
    fn results(&self, state: &Self::State) -> Vec<PlayerResult>;

    /// The legal actions of `player`, in ascending id order, written into `out`
    /// (cleared first). Empty when the player is not to move.
    fn legal_actions(&self, state: &Self::State, player: Player, out: &mut Vec<ActionId>);

    /// Applies the joint action of the players to move: exactly one [`Move`] per
    /// player in the current [`Status::ToMove`] set, in any order. Refuses (and
    /// changes nothing) if a player is not to move, is missing or repeated, or an
    /// action is not legal; [`check_joint_action`](crate::check_joint_action)
    /// does the first three with the message every game shares.
    fn apply(&self, state: &mut Self::State, moves: &[Move]) -> Result<(), GameError>;

    /// Applies a chance outcome: one listed in [`Chance::Explicit`], or any `u64`
    /// for [`Chance::Sampled`]. Called only at a chance node, like
    /// [`Game::chance`]; a game without chance may simply refuse.
    fn apply_chance(&self, state: &mut Self::State, outcome: u64) -> Result<(), GameError>;

    /// The text of `action` for `player` (`c3-e3`, `K2 Q5 J1`, `flip`).
    fn action_to_string(
        &self,
        state: &Self::State,
        player: Player,
        action: ActionId,
    ) -> Result<String, GameError>;

    /// Reads an action text back to its id. Succeeds only for a legal action of
    /// `player`; the message of a refusal reveals nothing hidden.
    fn parse_action(
        &self,
        state: &Self::State,
        player: Player,
        text: &str,
    ) -> Result<ActionId, GameError>;

    /// The state as `viewer` may see it; the SDK serialises it to the JSON
    /// the host sends. After the end the view may reveal everything.
    fn view<'a>(&'a self, state: &'a Self::State, viewer: Viewer) -> Self::View<'a>;

    /// A text rendering for a terminal (80 columns) as `viewer` may see it.
    fn render_text(&self, state: &Self::State, viewer: Viewer) -> String;

    /// What `viewer` saw happen when `transition` took `before` to `after`, as
    /// JSON for clients to animate. The default names the movers' actions for
    /// moves and only says "chance" for chance outcomes; games with hidden
    /// information or richer stories override it.
    fn event(
        &self,
        before: &Self::State,
        transition: &Transition,
        after: &Self::State,
        viewer: Viewer,
    ) -> serde_json::Value {
        let _ = (after, viewer);
        match transition {
            Transition::Moves(moves) => {
                let moves: Vec<serde_json::Value> = moves
                    .iter()
                    .map(|m| {
                        serde_json::json!({
                            "player": m.player,
                            "action": self
                                .action_to_string(before, m.player, m.action)
                                .unwrap_or_else(|_| m.action.to_string()),
                        })
                    })
                    .collect();
                serde_json::json!({ "type": "moves", "moves": moves })
            }
            Transition::Chance(_) => serde_json::json!({ "type": "chance" }),
        }
    }
}

/// An optional capability of a game: each is one extension of the C ABI
/// ([`crate::abi`]), offered by a plugin whose game implements its trait
/// ([`crate::extension`]) and names it in [`export_game!`](crate::export_game).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Extension {
    /// [`RemovePlayer`](crate::RemovePlayer) ([`crate::abi::EXT_REMOVE_PLAYER`]). A game
    /// lists it exactly when its manifest says `removable_players`.
    RemovePlayer,
    /// [`ExpandNotation`](crate::ExpandNotation) ([`crate::abi::EXT_EXPAND_NOTATION`]).
    ExpandNotation,
    /// [`Resample`](crate::Resample) ([`crate::abi::EXT_RESAMPLE`]). A game with hidden
    /// information lists it.
    Resample,
    /// [`SeatsOut`](crate::SeatsOut) ([`crate::abi::EXT_SEATS_OUT`]). A game whose
    /// rules can put a player out lists it.
    SeatsOut,
    /// [`SeatNames`](crate::SeatNames) ([`crate::abi::EXT_SEAT_NAMES`]).
    SeatNames,
    /// [`ExplainRefusal`](crate::ExplainRefusal)
    /// ([`crate::abi::EXT_EXPLAIN_REFUSAL`]).
    ExplainRefusal,
    /// [`Evaluate`](crate::Evaluate) ([`crate::abi::EXT_EVALUATE`]).
    Evaluate,
    /// [`SvgBoard`](crate::SvgBoard) ([`crate::abi::EXT_SVG_BOARD`]).
    SvgBoard,
    /// [`ActionTargets`](crate::ActionTargets) ([`crate::abi::EXT_ACTION_TARGETS`]).
    ActionTargets,
}

impl Extension {
    /// Every extension the SDK implements.
    pub const ALL: [Extension; 9] = [
        Extension::RemovePlayer,
        Extension::ExpandNotation,
        Extension::Resample,
        Extension::SeatsOut,
        Extension::SeatNames,
        Extension::ExplainRefusal,
        Extension::Evaluate,
        Extension::SvgBoard,
        Extension::ActionTargets,
    ];

    /// The versioned id the ABI looks it up by.
    pub fn id(self) -> &'static str {
        match self {
            Extension::RemovePlayer => crate::abi::EXT_REMOVE_PLAYER,
            Extension::ExpandNotation => crate::abi::EXT_EXPAND_NOTATION,
            Extension::Resample => crate::abi::EXT_RESAMPLE,
            Extension::SeatsOut => crate::abi::EXT_SEATS_OUT,
            Extension::SeatNames => crate::abi::EXT_SEAT_NAMES,
            Extension::ExplainRefusal => crate::abi::EXT_EXPLAIN_REFUSAL,
            Extension::Evaluate => crate::abi::EXT_EVALUATE,
            Extension::SvgBoard => crate::abi::EXT_SVG_BOARD,
            Extension::ActionTargets => crate::abi::EXT_ACTION_TARGETS,
        }
    }
}

/// Whether chance may act in `state`: the check before asking chance's
/// outcomes or applying one, through the ABI and in process alike. Where
/// chance is not to act, every game answers `NOT_YOUR_TURN`
/// (docs/plugin-abi.md, failure codes), whatever its own `chance` or
/// `apply_chance` would say there.
pub(crate) fn chance_to_act<G: Game>(game: &G, state: &G::State) -> Result<(), GameError> {
    if game.status(state) == Status::Chance {
        Ok(())
    } else {
        Err(GameError::not_your_turn(
            "chance is not to act in this state",
        ))
    }
}
