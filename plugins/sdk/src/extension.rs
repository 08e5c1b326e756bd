//! The optional capabilities of a game, one trait per ABI extension.
//!
//! A game declares an extension by implementing its trait and naming it in
//! [`export_game!`](crate::export_game) (or, for a game used only
//! in-process, [`declare_extensions!`](crate::declare_extensions)):
//!
//! ```ignore
//! impl SvgBoard for War {
//!     fn render_svg(&self, state: &Position, viewer: Viewer) -> String { svg::svg(state) }
//! }
//! impl ActionTargets for War {
//!     fn action_targets(&self, state: &Position, player: Player, action: ActionId) -> Vec<String> {
//!         svg::targets(state, action)
//!     }
//! }
//! tabletop_sdk::export_game!(War, extensions: [SvgBoard, ActionTargets]);
//! ```
//!
//! The list and the impls cannot disagree: each trait requires the game to
//! be named with it in the list (its supertrait [`Declared`], which only the
//! macro writes), and the macro wires each listed extension through its
//! trait. A game that implements a trait without listing it, or lists one it
//! does not implement, does not compile; the two examples below are
//! compile-fail tests of exactly that.
//!
//! An extension implemented but not listed:
//! ```compile_fail,E0277
//! # use tabletop_sdk::{Evaluate, Game};
//! # tabletop_sdk::__doc_game!(Solo);
//! impl Evaluate for Solo {
//!     fn evaluate(&self, _: &bool) -> Vec<f64> { vec![0.5] }
//! }
//! tabletop_sdk::declare_extensions!(Solo: []);
//! ```
//! An extension listed but not implemented:
//! ```compile_fail,E0277
//! # use tabletop_sdk::{Evaluate, Game};
//! # tabletop_sdk::__doc_game!(Solo);
//! tabletop_sdk::declare_extensions!(Solo: [Evaluate]);
//! ```
//! Both, and the game offers it:
//! ```
//! # use tabletop_sdk::{DynGame, Evaluate, Extension, Extended, Game, InProcess};
//! # tabletop_sdk::__doc_game!(Solo);
//! impl Evaluate for Solo {
//!     fn evaluate(&self, _: &bool) -> Vec<f64> { vec![0.5] }
//! }
//! tabletop_sdk::declare_extensions!(Solo: [Evaluate]);
//!
//! assert!(Solo::EXTENSIONS.has(Extension::Evaluate));
//! assert!(!Solo::EXTENSIONS.has(Extension::SvgBoard));
//! let game = InProcess::new(Solo);
//! let state = game.new_state(1, &Default::default(), None).unwrap();
//! let mut values = [0.0];
//! assert!(state.evaluate(&mut values).unwrap());
//! assert_eq!(values, [0.5]);
//! ```

use crate::error::GameError;
use crate::game::{Extension, Game};
use crate::types::{ActionId, Attempt, Player, Refusal, SeatOut, Viewer};

/// Written by [`declare_extensions!`](crate::declare_extensions) for each
/// extension a game lists, and by nothing else: every extension trait
/// requires it, so a game implements exactly the extensions it lists.
#[doc(hidden)]
pub trait Declared<M> {}

/// One type per extension, naming it in [`Declared`] and [`Wire`]; the
/// macro finds an extension's marker by its trait's name.
#[doc(hidden)]
pub mod marker {
    /// [`RemovePlayer`](super::RemovePlayer).
    #[derive(Debug)]
    pub enum RemovePlayer {}
    /// [`ExpandNotation`](super::ExpandNotation).
    #[derive(Debug)]
    pub enum ExpandNotation {}
    /// [`Resample`](super::Resample).
    #[derive(Debug)]
    pub enum Resample {}
    /// [`SeatsOut`](super::SeatsOut).
    #[derive(Debug)]
    pub enum SeatsOut {}
    /// [`SeatNames`](super::SeatNames).
    #[derive(Debug)]
    pub enum SeatNames {}
    /// [`ExplainRefusal`](super::ExplainRefusal).
    #[derive(Debug)]
    pub enum ExplainRefusal {}
    /// [`Evaluate`](super::Evaluate).
    #[derive(Debug)]
    pub enum Evaluate {}
    /// [`SvgBoard`](super::SvgBoard).
    #[derive(Debug)]
    pub enum SvgBoard {}
    /// [`ActionTargets`](super::ActionTargets).
    #[derive(Debug)]
    pub enum ActionTargets {}
}

/// Takes `player` out of a running game ([`Extension::RemovePlayer`]). A
/// game implements it exactly when its rules let the others play on; the
/// SDK then reports `removable_players` in the manifest.
pub trait RemovePlayer: Game + Declared<marker::RemovePlayer> {
    /// The host calls it when the player's clock runs out and the match's
    /// time control says `out`. The others play on; `player` is never to
    /// move again, and when too few players are left the game ends as its
    /// rules say ([`Game::status`] becomes
    /// [`Status::Terminal`](crate::Status::Terminal)). [`Game::results`]
    /// still ranks every seat, the removed ones included.
    ///
    /// Refuses (and changes nothing) a seat that does not exist, is already
    /// out, or a game that is over.
    fn remove_player(&self, state: &mut Self::State, player: Player) -> Result<(), GameError>;
}

/// Expands a shorthand ([`Extension::ExpandNotation`]): a text that stands
/// for several single actions of a player in a row (War writes a whole
/// setup layout in one text).
pub trait ExpandNotation: Game + Declared<marker::ExpandNotation> {
    /// `Ok(None)` means the text is not a shorthand, and the host reads it
    /// with [`Game::parse_action`]. `Ok(Some(list))` means the text stands
    /// for these single-action notations, in order, all by `player`; the
    /// host checks and applies them as one request, all or nothing, each as
    /// its own logged action. An `Err` refuses a text that is a shorthand
    /// but cannot be played; its message should name the place in the text
    /// that is wrong. Like `parse_action`, it reveals nothing hidden and
    /// never panics on input.
    fn expand_notation(
        &self,
        state: &Self::State,
        player: Player,
        text: &str,
    ) -> Result<Option<Vec<String>>, GameError>;
}

/// Draws another state consistent with what a viewer knows
/// ([`Extension::Resample`]). A game with hidden information implements it;
/// without it, a resample is a copy of the state.
pub trait Resample: Game + Declared<marker::Resample> {
    /// Another state consistent with everything `viewer` knows, drawn using
    /// `random`. It reads only what `viewer` knows: two states `viewer`
    /// cannot tell apart resample to the same state with the same `random`
    /// (the kit checks it), so a search bot that plays from resamples plays
    /// the same in both.
    fn resample(&self, state: &Self::State, viewer: Viewer, random: u64) -> Self::State;
}

/// The seats out of the game ([`Extension::SeatsOut`]). A game whose rules
/// can put a player out implements it; without it, no seat is out by the
/// game's rules.
pub trait SeatsOut: Game + Declared<marker::SeatsOut> {
    /// The seats that are out of the game in `state` and will never move
    /// again, in seat order, each with the rule that put it out: a player
    /// the rules eliminate (Focus's F7), and also a seat taken out with
    /// [`RemovePlayer::remove_player`], which the game cannot tell apart
    /// once it is out. The host names its own reason (the clock, a
    /// resignation) for the seats it removed and the game's for the others.
    fn seats_out(&self, state: &Self::State) -> Vec<SeatOut>;
}

/// The game's own names of its seats ([`Extension::SeatNames`]).
pub trait SeatNames: Game + Declared<marker::SeatNames> {
    /// The short name of each seat in a match of `players` seats, in seat
    /// order: `["A", "B"]`, `["R", "G", "B"]`, `["P1", "P2"]`. Every message
    /// a game writes about a seat names it with
    /// [`seat_label`](crate::seat_label): `seat 1 (B)`, the API's number and
    /// the game's name together.
    fn seat_names(&self, players: u32) -> Vec<String>;
}

/// Why an action is refused ([`Extension::ExplainRefusal`]). Without it the
/// host sends a refusal's own message under a catch-all code.
pub trait ExplainRefusal: Game + Declared<marker::ExplainRefusal> {
    /// Why `attempt` is not a legal action of `player` in `state`, or `None`
    /// when it is legal. The host asks only after a refusal, so this may
    /// take its time; the reason code is specific
    /// ([`Refusal::is_specific`]) and the sentence cites the rule with its
    /// ruling number. It reveals nothing hidden from `player` (the kit
    /// compares it across resampled states) and never panics on input.
    fn explain_refusal(
        &self,
        state: &Self::State,
        player: Player,
        attempt: Attempt<'_>,
    ) -> Option<Refusal>;

    /// How many action ids the match of `state` can ever use: every action
    /// id of every player in every state of that match is below it. The
    /// conformance kit asks [`ExplainRefusal::explain_refusal`] about ids
    /// drawn from this space. The default is 0: no bound is known.
    fn action_space(&self, state: &Self::State) -> u64 {
        let _ = state;
        0
    }
}

/// The game's estimate of each seat's standing ([`Extension::Evaluate`]).
/// Without it, a search bot counts its cut-off playouts as draws.
pub trait Evaluate: Game + Declared<marker::Evaluate> {
    /// One value per seat in seat order, from 0 (certain last place) to 1
    /// (certain win). Search bots score the positions where they cut off a
    /// playout with it, so it should be cheap (material, pieces controlled,
    /// score so far) and order positions sensibly rather than be exact;
    /// [`standings_from_strengths`](crate::standings_from_strengths) turns a
    /// strength per seat into such values.
    ///
    /// It may read the whole state, hidden parts included: a search bot
    /// evaluates worlds it resampled for its own seat, so what it reads
    /// there is the bot's own guess. It is asked only of states that are
    /// not terminal; every value is finite and in 0..=1 (the kit checks it).
    fn evaluate(&self, state: &Self::State) -> Vec<f64>;
}

/// The board as an SVG document ([`Extension::SvgBoard`]).
pub trait SvgBoard: Game + Declared<marker::SvgBoard> {
    /// The board as `viewer` may see it: root element `<svg>`, well-formed
    /// XML, at most [`MAX_SVG_BYTES`](crate::abi::MAX_SVG_BYTES). It draws
    /// only what `viewer`'s view holds (hidden pieces as their backs; the
    /// kit compares it across resampled states), whose turn it is and the
    /// scores. The elements an action involves carry the `id`s that
    /// [`ActionTargets::action_targets`] names (`sq-c4`, `piece-3`), stable
    /// from state to state, so a page can mark and click them. An empty
    /// text draws nothing.
    fn render_svg(&self, state: &Self::State, viewer: Viewer) -> String;
}

/// The board elements each action involves ([`Extension::ActionTargets`]).
pub trait ActionTargets: Game + Declared<marker::ActionTargets> {
    /// The elements legal action `action` of `player` involves, as `id`s of
    /// `player`'s [`SvgBoard::render_svg`] board, in the order a person
    /// would click them: the piece or square it moves from, then where it
    /// goes. Deterministic, and empty for an action the board cannot show.
    /// Asked only about legal actions.
    fn action_targets(&self, state: &Self::State, player: Player, action: ActionId) -> Vec<String>;
}

/// A game with its extensions declared: what
/// [`declare_extensions!`](crate::declare_extensions) (and so
/// [`export_game!`](crate::export_game)) writes. Everything that runs a
/// game ([`InProcess`](crate::InProcess), the export) reaches its
/// extensions through [`Extended::EXTENSIONS`].
pub trait Extended: Game {
    /// The game's extensions, each wired to its trait's methods.
    const EXTENSIONS: ExtensionTable<Self>;
}

/// The signature of each extension function, as the table and its entries
/// hold it: a plain function of the game and its arguments.
pub mod signature {
    use crate::error::GameError;
    use crate::game::Game;
    use crate::types::{ActionId, Attempt, Player, Refusal, SeatOut, Viewer};

    /// [`RemovePlayer::remove_player`](super::RemovePlayer::remove_player).
    pub type RemovePlayer<G> = fn(&G, &mut <G as Game>::State, Player) -> Result<(), GameError>;
    /// [`ExpandNotation::expand_notation`](super::ExpandNotation::expand_notation).
    pub type ExpandNotation<G> =
        fn(&G, &<G as Game>::State, Player, &str) -> Result<Option<Vec<String>>, GameError>;
    /// [`Resample::resample`](super::Resample::resample).
    pub type Resample<G> = fn(&G, &<G as Game>::State, Viewer, u64) -> <G as Game>::State;
    /// [`SeatsOut::seats_out`](super::SeatsOut::seats_out).
    pub type SeatsOut<G> = fn(&G, &<G as Game>::State) -> Vec<SeatOut>;
    /// [`SeatNames::seat_names`](super::SeatNames::seat_names).
    pub type SeatNames<G> = fn(&G, u32) -> Vec<String>;
    /// [`ExplainRefusal::explain_refusal`](super::ExplainRefusal::explain_refusal).
    pub type ExplainRefusal<G> =
        fn(&G, &<G as Game>::State, Player, Attempt<'_>) -> Option<Refusal>;
    /// [`ExplainRefusal::action_space`](super::ExplainRefusal::action_space).
    pub type ActionSpace<G> = fn(&G, &<G as Game>::State) -> u64;
    /// [`Evaluate::evaluate`](super::Evaluate::evaluate).
    pub type Evaluate<G> = fn(&G, &<G as Game>::State) -> Vec<f64>;
    /// [`SvgBoard::render_svg`](super::SvgBoard::render_svg).
    pub type RenderSvg<G> = fn(&G, &<G as Game>::State, Viewer) -> String;
    /// [`ActionTargets::action_targets`](super::ActionTargets::action_targets).
    pub type ActionTargets<G> = fn(&G, &<G as Game>::State, Player, ActionId) -> Vec<String>;
}

/// The functions of a game's declared extensions; `None` for each it does
/// not offer. Built only by [`declare_extensions!`](crate::declare_extensions),
/// from the extension traits the game implements.
pub struct ExtensionTable<G: Game> {
    /// [`RemovePlayer::remove_player`].
    pub remove_player: Option<signature::RemovePlayer<G>>,
    /// [`ExpandNotation::expand_notation`].
    pub expand_notation: Option<signature::ExpandNotation<G>>,
    /// [`Resample::resample`].
    pub resample: Option<signature::Resample<G>>,
    /// [`SeatsOut::seats_out`].
    pub seats_out: Option<signature::SeatsOut<G>>,
    /// [`SeatNames::seat_names`].
    pub seat_names: Option<signature::SeatNames<G>>,
    /// [`ExplainRefusal::explain_refusal`].
    pub explain_refusal: Option<signature::ExplainRefusal<G>>,
    /// [`ExplainRefusal::action_space`].
    pub action_space: Option<signature::ActionSpace<G>>,
    /// [`Evaluate::evaluate`].
    pub evaluate: Option<signature::Evaluate<G>>,
    /// [`SvgBoard::render_svg`].
    pub render_svg: Option<signature::RenderSvg<G>>,
    /// [`ActionTargets::action_targets`].
    pub action_targets: Option<signature::ActionTargets<G>>,
}

impl<G: Game> std::fmt::Debug for ExtensionTable<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.list()).finish()
    }
}

/// One extension's functions, as [`Wire`] hands them to
/// [`ExtensionTable::with`].
#[doc(hidden)]
#[allow(missing_debug_implementations)]
pub enum Entry<G: Game> {
    RemovePlayer(signature::RemovePlayer<G>),
    ExpandNotation(signature::ExpandNotation<G>),
    Resample(signature::Resample<G>),
    SeatsOut(signature::SeatsOut<G>),
    SeatNames(signature::SeatNames<G>),
    ExplainRefusal(signature::ExplainRefusal<G>, signature::ActionSpace<G>),
    Evaluate(signature::Evaluate<G>),
    SvgBoard(signature::RenderSvg<G>),
    ActionTargets(signature::ActionTargets<G>),
}

/// An extension's marker, wired to its trait's methods for a game that
/// implements it.
#[doc(hidden)]
pub trait Wire<G: Game> {
    const ENTRY: Entry<G>;
}

impl<G: RemovePlayer> Wire<G> for marker::RemovePlayer {
    const ENTRY: Entry<G> = Entry::RemovePlayer(G::remove_player);
}
impl<G: ExpandNotation> Wire<G> for marker::ExpandNotation {
    const ENTRY: Entry<G> = Entry::ExpandNotation(G::expand_notation);
}
impl<G: Resample> Wire<G> for marker::Resample {
    const ENTRY: Entry<G> = Entry::Resample(G::resample);
}
impl<G: SeatsOut> Wire<G> for marker::SeatsOut {
    const ENTRY: Entry<G> = Entry::SeatsOut(G::seats_out);
}
impl<G: SeatNames> Wire<G> for marker::SeatNames {
    const ENTRY: Entry<G> = Entry::SeatNames(G::seat_names);
}
impl<G: ExplainRefusal> Wire<G> for marker::ExplainRefusal {
    const ENTRY: Entry<G> = Entry::ExplainRefusal(G::explain_refusal, G::action_space);
}
impl<G: Evaluate> Wire<G> for marker::Evaluate {
    const ENTRY: Entry<G> = Entry::Evaluate(G::evaluate);
}
impl<G: SvgBoard> Wire<G> for marker::SvgBoard {
    const ENTRY: Entry<G> = Entry::SvgBoard(G::render_svg);
}
impl<G: ActionTargets> Wire<G> for marker::ActionTargets {
    const ENTRY: Entry<G> = Entry::ActionTargets(G::action_targets);
}

impl<G: Game> ExtensionTable<G> {
    /// No extension at all.
    pub const NONE: Self = ExtensionTable {
        remove_player: None,
        expand_notation: None,
        resample: None,
        seats_out: None,
        seat_names: None,
        explain_refusal: None,
        action_space: None,
        evaluate: None,
        render_svg: None,
        action_targets: None,
    };

    /// This table with one more extension.
    #[doc(hidden)]
    pub const fn with(mut self, entry: Entry<G>) -> Self {
        match entry {
            Entry::RemovePlayer(f) => self.remove_player = Some(f),
            Entry::ExpandNotation(f) => self.expand_notation = Some(f),
            Entry::Resample(f) => self.resample = Some(f),
            Entry::SeatsOut(f) => self.seats_out = Some(f),
            Entry::SeatNames(f) => self.seat_names = Some(f),
            Entry::ExplainRefusal(explain, space) => {
                self.explain_refusal = Some(explain);
                self.action_space = Some(space);
            }
            Entry::Evaluate(f) => self.evaluate = Some(f),
            Entry::SvgBoard(f) => self.render_svg = Some(f),
            Entry::ActionTargets(f) => self.action_targets = Some(f),
        }
        self
    }

    /// Whether the game offers `extension`.
    pub const fn has(&self, extension: Extension) -> bool {
        match extension {
            Extension::RemovePlayer => self.remove_player.is_some(),
            Extension::ExpandNotation => self.expand_notation.is_some(),
            Extension::Resample => self.resample.is_some(),
            Extension::SeatsOut => self.seats_out.is_some(),
            Extension::SeatNames => self.seat_names.is_some(),
            Extension::ExplainRefusal => self.explain_refusal.is_some(),
            Extension::Evaluate => self.evaluate.is_some(),
            Extension::SvgBoard => self.render_svg.is_some(),
            Extension::ActionTargets => self.action_targets.is_some(),
        }
    }

    /// The extensions the game offers, in [`Extension::ALL`]'s order.
    pub fn list(&self) -> Vec<Extension> {
        Extension::ALL
            .into_iter()
            .filter(|&extension| self.has(extension))
            .collect()
    }
}

/// Declares a game's extensions: `declare_extensions!(War: [SvgBoard,
/// ActionTargets])`. Each name is an extension trait of this module the game
/// implements; the game must implement exactly the ones it lists, or it does
/// not compile. [`export_game!`](crate::export_game) calls it; a game used
/// only in-process (a test's) calls it itself. A generic game names its
/// parameters in brackets first: `declare_extensions!([const N: u8]
/// Drawn<N>: [SvgBoard])`.
#[macro_export]
macro_rules! declare_extensions {
    (@declared [$($generics:tt)*] $game:ty, $extension:ident) => {
        impl<$($generics)*> $crate::extension::Declared<$crate::extension::marker::$extension>
            for $game
        {
        }
    };
    (@each $generics:tt $game:ty, $($extension:ident)*) => {
        $( $crate::declare_extensions!(@declared $generics $game, $extension); )*
    };
    ([$($generics:tt)*] $game:ty : [$($extension:ident),* $(,)?]) => {
        $crate::declare_extensions!(@each [$($generics)*] $game, $($extension)*);
        impl<$($generics)*> $crate::extension::Extended for $game {
            const EXTENSIONS: $crate::extension::ExtensionTable<Self> =
                $crate::extension::ExtensionTable::NONE
                $(
                    .with(<$crate::extension::marker::$extension
                        as $crate::extension::Wire<Self>>::ENTRY)
                )*;
        }
    };
    ($game:ty : [$($extension:ident),* $(,)?]) => {
        $crate::declare_extensions!([] $game: [$($extension),*]);
    };
}

/// A one-seat game for the SDK's doc examples: the only seat says `done`.
#[doc(hidden)]
#[macro_export]
macro_rules! __doc_game {
    ($name:ident) => {
        #[derive(Default)]
        struct $name;

        impl $crate::Game for $name {
            type State = bool;
            type View<'a> = $crate::serde_json::Value;
            fn manifest(&self) -> $crate::Manifest {
                $crate::Manifest {
                    name: "solo".into(),
                    version: "1.0.0".into(),
                    min_players: 1,
                    max_players: 1,
                    options: vec![],
                    rules_summary: "Say done.".into(),
                    simultaneous: false,
                    hidden_information: false,
                    chance: false,
                    removable_players: false,
                }
            }
            fn new_state(&self, _: &$crate::Setup) -> Result<bool, $crate::GameError> {
                Ok(false)
            }
            fn parse_position(
                &self,
                _: &$crate::Setup,
                text: &str,
            ) -> Result<bool, $crate::GameError> {
                text.parse()
                    .map_err(|_| $crate::GameError::invalid_position("true or false"))
            }
            fn position_to_string(&self, s: &bool) -> String {
                s.to_string()
            }
            fn status(&self, s: &bool) -> $crate::Status {
                if *s {
                    $crate::Status::Terminal
                } else {
                    $crate::Status::ToMove($crate::PlayerSet::single(0))
                }
            }
            fn chance(&self, _: &bool) -> $crate::Chance {
                $crate::Chance::Sampled
            }
            fn results(&self, _: &bool) -> Vec<$crate::PlayerResult> {
                vec![$crate::PlayerResult {
                    rank: 1,
                    score: 1.0,
                }]
            }
            fn legal_actions(&self, s: &bool, p: $crate::Player, out: &mut Vec<$crate::ActionId>) {
                out.clear();
                if !*s && p == 0 {
                    out.push(0)
                }
            }
            fn apply(&self, s: &mut bool, moves: &[$crate::Move]) -> Result<(), $crate::GameError> {
                match moves {
                    [$crate::Move { player: 0, action: 0 }] if !*s => {
                        *s = true;
                        Ok(())
                    }
                    _ => Err($crate::GameError::illegal("only seat 0 says done, once")),
                }
            }
            fn apply_chance(&self, _: &mut bool, _: u64) -> Result<(), $crate::GameError> {
                Err($crate::GameError::illegal("no chance in solo"))
            }
            fn action_to_string(
                &self,
                _: &bool,
                _: $crate::Player,
                _: $crate::ActionId,
            ) -> Result<String, $crate::GameError> {
                Ok("done".into())
            }
            fn parse_action(
                &self,
                _: &bool,
                _: $crate::Player,
                text: &str,
            ) -> Result<$crate::ActionId, $crate::GameError> {
                match text {
                    "done" => Ok(0),
                    _ => Err($crate::GameError::invalid_notation("say `done`")),
                }
            }
            fn view(&self, s: &bool, _: $crate::Viewer) -> $crate::serde_json::Value {
                $crate::serde_json::json!({ "done": s })
            }
            fn render_text(&self, s: &bool, _: $crate::Viewer) -> String {
                format!("done: {s}\n")
            }
        }
    };
}
