//! The safe trait a game implements. The export macro turns it into the C ABI.

use crate::error::GameError;
use crate::manifest::{Manifest, Setup};
use crate::types::{
    ActionId, Attempt, Chance, Move, Player, PlayerResult, Refusal, SeatOut, Status, Transition,
    Viewer,
};

/// A game's rules. Implement this, end the crate with
/// [`export_game!`](crate::export_game), and the crate is a plugin.
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
///   kit checks it with [`Game::resample`].
pub trait Game: Default + Send + Sync + 'static {
    /// One game state. Cloning it must be cheap enough for the host to snapshot.
    type State: Clone + Send + 'static;

    /// What [`Game::view`] returns: typed data, often borrowing from the
    /// state, that serialises to the view's JSON (or a `serde_json::Value`
    /// built by hand).
    type View<'a>: serde::Serialize;

    /// The optional capabilities this game implements, each an ABI extension
    /// the plugin offers (see [`Extension`]). The SDK offers exactly these,
    /// and the kit checks them against the manifest's claims.
    const EXTENSIONS: &'static [Extension] = &[];

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
    /// [`Game::status`] is [`Status::Chance`].
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
    /// for [`Chance::Sampled`].
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

    /// Expands a shorthand (extension [`Extension::ExpandNotation`]): a text that stands for several single actions of
    /// `player` in a row (War writes a whole setup layout in one text).
    ///
    /// `Ok(None)` (the default) means the text is not a shorthand, and the
    /// host reads it with [`Game::parse_action`]. `Ok(Some(list))` means the
    /// text stands for these single-action notations, in order, all by
    /// `player`; the host checks and applies them as one request, all or
    /// nothing, each as its own logged action. An `Err` refuses a text that
    /// is a shorthand but cannot be played; its message should name the place
    /// in the text that is wrong. Like `parse_action`, it reveals nothing
    /// hidden and never panics on input.
    fn expand_notation(
        &self,
        state: &Self::State,
        player: Player,
        text: &str,
    ) -> Result<Option<Vec<String>>, GameError> {
        let _ = (state, player, text);
        Ok(None)
    }

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

    /// Takes `player` out of a running game (extension
    /// [`Extension::RemovePlayer`]): the host calls it when the
    /// player's clock runs out and the match's time control says `out`. The
    /// others play on; `player` is never to move again, and when too few
    /// players are left the game ends as its rules say ([`Game::status`]
    /// becomes [`Status::Terminal`]). [`Game::results`] still ranks every seat,
    /// the removed ones included.
    ///
    /// Refuses (and changes nothing) a seat that does not exist, is already
    /// out, or a game that is over. Games that support it list
    /// [`Extension::RemovePlayer`] and say so with
    /// [`Manifest::removable_players`]; the default refuses every call with
    /// [`GameError::unsupported`].
    fn remove_player(&self, state: &mut Self::State, player: Player) -> Result<(), GameError> {
        let _ = state;
        Err(GameError::unsupported(format!(
            "this game cannot take a player out of a running game (seat {player})"
        )))
    }

    /// The seats that are out of the game in `state` and will never move
    /// again (extension [`Extension::SeatsOut`]), in seat order, each with
    /// the rule that put it out: a player the rules eliminate (Focus's F7),
    /// and also a seat taken out with [`Game::remove_player`], which the
    /// game cannot tell apart once it is out. The host names its own reason
    /// (the clock, a resignation) for the seats it removed and the game's
    /// for the others. The default, for games that never put a player out
    /// by their rules, is none; such games need not list the extension.
    fn seats_out(&self, state: &Self::State) -> Vec<SeatOut> {
        let _ = state;
        Vec::new()
    }

    /// The game's short name of each seat in a match of `players` seats, in
    /// seat order (extension [`Extension::SeatNames`]): `["A", "B"]`,
    /// `["R", "G", "B"]`, `["P1", "P2"]`. Every message a game writes about
    /// a seat names it with [`seat_label`](crate::seat_label): `seat 1 (B)`,
    /// the API's number and the game's name together. The default names
    /// none; a game that names its seats lists the extension.
    fn seat_names(&self, players: u32) -> Vec<String> {
        let _ = players;
        Vec::new()
    }

    /// Why `attempt` is not a legal action of `player` in `state`, or `None`
    /// when it is legal (extension [`Extension::ExplainRefusal`]). The host
    /// asks only after a refusal, so this may take its time; the reason code
    /// is specific ([`Refusal::is_specific`]) and the sentence cites the rule
    /// with its ruling number. It reveals nothing hidden from `player` (the
    /// kit compares it across resampled states) and never panics on input.
    /// The default explains nothing; the host then sends the refusal's own
    /// message under a catch-all code.
    fn explain_refusal(
        &self,
        state: &Self::State,
        player: Player,
        attempt: Attempt<'_>,
    ) -> Option<Refusal> {
        let _ = (state, player, attempt);
        None
    }

    /// How many action ids the match of `state` can ever use: every action
    /// id of every player in every state of that match is below it
    /// (extension [`Extension::ExplainRefusal`]). The conformance kit asks
    /// [`Game::explain_refusal`] about ids drawn from this space. The default
    /// is 0: no bound is known.
    fn action_space(&self, state: &Self::State) -> u64 {
        let _ = state;
        0
    }

    /// The game's estimate of each seat's final standing in `state`, one
    /// value per seat in seat order, from 0 (certain last place) to 1
    /// (certain win) (extension [`Extension::Evaluate`]). Search bots score
    /// the positions where they cut off a playout with it, so it should be
    /// cheap (material, pieces controlled, score so far) and order positions
    /// sensibly rather than be exact; [`standings_from_strengths`](crate::standings_from_strengths)
    /// turns a strength per seat into such values.
    ///
    /// It may read the whole state, hidden parts included: a search bot
    /// evaluates worlds it resampled for its own seat, so what it reads there
    /// is the bot's own guess. It is asked only of states that are not
    /// terminal; every value is finite and in 0..=1 (the kit checks it). The
    /// default estimates nothing: a game without the extension has its
    /// cut-off playouts counted as draws.
    fn evaluate(&self, state: &Self::State) -> Vec<f64> {
        let _ = state;
        Vec::new()
    }

    /// The board as `viewer` may see it, as an SVG document (extension
    /// [`Extension::SvgBoard`]): root element `<svg>`, well-formed XML, at
    /// most [`MAX_SVG_BYTES`](crate::abi::MAX_SVG_BYTES). It draws only
    /// what `viewer`'s view holds (hidden pieces as their backs; the kit
    /// compares it across resampled states), whose turn it is and the
    /// scores. The elements an action involves carry the `id`s that
    /// [`Game::action_targets`] names (`sq-c4`, `piece-3`), stable from
    /// state to state, so a page can mark and click them. The default draws
    /// nothing; a game that draws lists the extension.
    fn render_svg(&self, state: &Self::State, viewer: Viewer) -> String {
        let _ = (state, viewer);
        String::new()
    }

    /// The board elements legal action `action` of `player` involves, as
    /// `id`s of `player`'s [`Game::render_svg`] board, in the order a person
    /// would click them: the piece or square it moves from, then where it
    /// goes (extension [`Extension::ActionTargets`]). Deterministic, and
    /// empty for an action the board cannot show. Asked only about legal
    /// actions; the default names none.
    fn action_targets(&self, state: &Self::State, player: Player, action: ActionId) -> Vec<String> {
        let _ = (state, player, action);
        Vec::new()
    }

    /// Another state consistent with everything `viewer` knows, drawn using
    /// `random` (extension [`Extension::Resample`]). It reads only what
    /// `viewer` knows: two states `viewer` cannot tell apart resample to the
    /// same state with the same `random` (the kit checks it), so a search
    /// bot that plays from resamples plays the same in both. Games without hidden
    /// information return a clone (the default) and need not list it.
    fn resample(&self, state: &Self::State, viewer: Viewer, random: u64) -> Self::State {
        let _ = (viewer, random);
        state.clone()
    }
}

/// An optional capability of a game: each is one extension of the C ABI
/// ([`crate::abi`]), offered by a plugin whose game lists it in
/// [`Game::EXTENSIONS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Extension {
    /// [`Game::remove_player`] ([`crate::abi::EXT_REMOVE_PLAYER`]). A game
    /// lists it exactly when its manifest says `removable_players`.
    RemovePlayer,
    /// [`Game::expand_notation`] ([`crate::abi::EXT_EXPAND_NOTATION`]).
    ExpandNotation,
    /// [`Game::resample`] ([`crate::abi::EXT_RESAMPLE`]). A game with hidden
    /// information lists it.
    Resample,
    /// [`Game::seats_out`] ([`crate::abi::EXT_SEATS_OUT`]). A game whose
    /// rules can put a player out lists it.
    SeatsOut,
    /// [`Game::seat_names`] ([`crate::abi::EXT_SEAT_NAMES`]).
    SeatNames,
    /// [`Game::explain_refusal`] and [`Game::action_space`]
    /// ([`crate::abi::EXT_EXPLAIN_REFUSAL`]).
    ExplainRefusal,
    /// [`Game::evaluate`] ([`crate::abi::EXT_EVALUATE`]).
    Evaluate,
    /// [`Game::render_svg`] ([`crate::abi::EXT_SVG_BOARD`]).
    SvgBoard,
    /// [`Game::action_targets`] ([`crate::abi::EXT_ACTION_TARGETS`]).
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
