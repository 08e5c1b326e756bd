//! Why an action is refused: a reason code and one sentence citing the
//! ruling, for every way an action id or text can fail (the README's table).
//!
//! Every explanation names only public facts (ruling Z11): open piles, the
//! middle, the tile in hand, whose turn it is and whether a face-down stack
//! is empty, never a face-down tile.

use tabletop_sdk::{ActionId, Player, Refusal, seat_label};

use crate::actions::{Action, PLACE_MIDDLE};
use crate::fit::Place;
use crate::notation::{action_to_text, read_action};
use crate::position::{Phase, Position, Source, Stage};
use crate::rules::EselMode;
use crate::seats::seat;
use crate::tile::Number;

/// The reason codes of refusals, one per way an action can fail.
pub mod reason {
    /// The text is blank (Z12).
    pub const EMPTY_ACTION: &str = "EMPTY_ACTION";
    /// The first word is not `flip`, `play-open` or `place` (Z12).
    pub const UNKNOWN_ACTION: &str = "UNKNOWN_ACTION";
    /// Words follow a complete action (Z12).
    pub const EXTRA_WORDS: &str = "EXTRA_WORDS";
    /// `place` without where (Z12).
    pub const PLACE_WITHOUT_TARGET: &str = "PLACE_WITHOUT_TARGET";
    /// The target of `place` is not `new`, `own`, `m<k>` or `p<k>` (Z12).
    pub const UNKNOWN_PLACE: &str = "UNKNOWN_PLACE";
    /// `p<k>` with k outside 1–6 (Z12).
    pub const UNKNOWN_PLAYER: &str = "UNKNOWN_PLAYER";
    /// An action id that names no action (Z12).
    pub const NO_SUCH_ACTION: &str = "NO_SUCH_ACTION";
    /// Chance deals or draws the starting player; nobody moves (Z2).
    pub const AWAITING_CHANCE: &str = "AWAITING_CHANCE";
    /// The game is over (Z9, Z10).
    pub const GAME_OVER: &str = "GAME_OVER";
    /// The player was taken out of the game (the turn passes over it, Z6).
    pub const TAKEN_OUT: &str = "TAKEN_OUT";
    /// Another player is on turn (Z6).
    pub const NOT_YOUR_TURN: &str = "NOT_YOUR_TURN";
    /// `play-open` at the start of a turn, which begins with `flip` (Z6).
    pub const FLIP_FIRST: &str = "FLIP_FIRST";
    /// `place` with no tile in hand (Z6).
    pub const NO_TILE_IN_HAND: &str = "NO_TILE_IN_HAND";
    /// `place` with `esel=forced`, where placing is automatic (Z7).
    pub const PLACEMENT_AUTOMATIC: &str = "PLACEMENT_AUTOMATIC";
    /// `flip` while continuing with an empty face-down stack (Z8).
    pub const FACE_DOWN_EMPTY: &str = "FACE_DOWN_EMPTY";
    /// `play-open` with an empty open pile (Z6).
    pub const OPEN_PILE_EMPTY: &str = "OPEN_PILE_EMPTY";
    /// `play-open` when the open pile's top fits nowhere (Z6).
    pub const OPEN_TOP_FITS_NOWHERE: &str = "OPEN_TOP_FITS_NOWHERE";
    /// `flip` or `play-open` while a tile waits in hand (Z7).
    pub const TILE_IN_HAND: &str = "TILE_IN_HAND";
    /// `place new` with a tile other than 1 (Z4).
    pub const ONLY_ONE_STARTS_A_STACK: &str = "ONLY_ONE_STARTS_A_STACK";
    /// `place m<k>` beyond the middle stacks there are (Z3).
    pub const NO_SUCH_STACK: &str = "NO_SUCH_STACK";
    /// `place m<k>` on a complete middle stack (Z4).
    pub const STACK_COMPLETE: &str = "STACK_COMPLETE";
    /// The tile does not fit on that middle stack or open pile (Z4).
    pub const DOES_NOT_FIT: &str = "DOES_NOT_FIT";
    /// `place p<k>` for a seat the match does not have (Z12).
    pub const NO_SUCH_PLAYER: &str = "NO_SUCH_PLAYER";
    /// A tile taken with `play-open` put back onto the own pile (Z7).
    pub const BACK_ONTO_OWN_PILE: &str = "BACK_ONTO_OWN_PILE";
    /// `place p<k>` on the pile of a player taken out (Z4).
    pub const PLAYER_OUT: &str = "PLAYER_OUT";
    /// `place p<k>` on an empty open pile (Z4).
    pub const EMPTY_PILE: &str = "EMPTY_PILE";
}

/// `player` in a message; a seat the match does not have is named by its
/// number alone.
fn who(position: &Position, player: Player) -> String {
    if player < position.rules.players {
        seat(player)
    } else {
        seat_label(player, None)
    }
}

impl Position {
    /// Why action `id` is not legal for `player` now, or `None` when it is.
    pub fn refusal_of_id(&self, player: Player, id: ActionId) -> Option<Refusal> {
        match Action::from_id(id) {
            Some(action) => self.refusal(player, action),
            None => Some(Refusal::illegal(
                reason::NO_SUCH_ACTION,
                format!(
                    "action id {id} names no action: flip is 0, play-open 1, place new 2, \
                     place p<k> 2 + k and place m<k> {} + k (Z12)",
                    PLACE_MIDDLE - 1
                ),
            )),
        }
    }

    /// Why `text` is not a legal action of `player` now, or `None` when it is:
    /// first whether it reads as an action at all, then whether it is legal.
    pub fn refusal_of_text(&self, player: Player, text: &str) -> Option<Refusal> {
        match read_action(text, player) {
            Ok(action) => self.refusal(player, action),
            Err(refusal) => Some(refusal),
        }
    }

    /// Why `action` is not legal for `player` now, or `None` when it is.
    pub fn refusal(&self, player: Player, action: Action) -> Option<Refusal> {
        // One piece: who may act now (phase, out, turn), then one arm per
        // stage and action, each the message of the rule it breaks.
        let refuse = |code: &str, message: String| Some(Refusal::illegal(code, message));
        let (turn, stage) = match self.phase {
            Phase::Deal | Phase::FirstPlayer => {
                return refuse(
                    reason::AWAITING_CHANCE,
                    "nobody moves yet: chance deals the tiles and draws the starting player \
                     first (Z2)"
                        .into(),
                );
            }
            Phase::Over { winner } => {
                let why = match winner {
                    Some(w) => format!("{} won (Z9)", seat(w)),
                    None => "the turn limit ended it (Z10)".to_string(),
                };
                return refuse(reason::GAME_OVER, format!("the game is over: {why}"));
            }
            Phase::Play { turn, stage } => (turn, stage),
        };
        if player < self.rules.players && self.is_out(player) {
            return refuse(
                reason::TAKEN_OUT,
                format!(
                    "{} was taken out of the game, and the turn passes over it (Z6)",
                    seat(player)
                ),
            );
        }
        if player != turn {
            return refuse(
                reason::NOT_YOUR_TURN,
                format!(
                    "it is {}'s turn, not {}'s (Z6)",
                    seat(turn),
                    who(self, player)
                ),
            );
        }
        match (stage, action) {
            (Stage::Start, Action::Flip) => None,
            (Stage::Start, Action::PlayOpen) => refuse(
                reason::FLIP_FIRST,
                "a turn starts with `flip`; the open pile's top may be played only after a \
                 tile went to its place (Z6)"
                    .into(),
            ),
            (Stage::Start | Stage::Continue, Action::Place(_)) => {
                if self.rules.esel == EselMode::Forced {
                    refuse(
                        reason::PLACEMENT_AUTOMATIC,
                        "with esel=forced every tile goes to its priority place by itself, so \
                         there is nothing to place (Z7)"
                            .into(),
                    )
                } else {
                    refuse(
                        reason::NO_TILE_IN_HAND,
                        format!(
                            "`{}` needs a tile in hand: `flip` (or `play-open`) takes one first \
                             (Z6)",
                            action_to_text(action, player)
                        ),
                    )
                }
            }
            (Stage::Continue, Action::Flip) => {
                if self.face_down[turn as usize].is_empty() {
                    refuse(
                        reason::FACE_DOWN_EMPTY,
                        format!(
                            "{}'s face-down stack is empty; the open pile is turned over only \
                             at the start of a turn (Z8)",
                            seat(turn)
                        ),
                    )
                } else {
                    None
                }
            }
            (Stage::Continue, Action::PlayOpen) => match self.open(turn).last() {
                None => refuse(
                    reason::OPEN_PILE_EMPTY,
                    format!(
                        "{}'s open pile is empty, so there is no top to play (Z6)",
                        seat(turn)
                    ),
                ),
                Some(&top) if self.priority_place(top, turn).is_none() => refuse(
                    reason::OPEN_TOP_FITS_NOWHERE,
                    format!(
                        "the top of {}'s open pile, {top}, fits nowhere, so it cannot be played \
                         (Z6)",
                        seat(turn)
                    ),
                ),
                Some(_) => None,
            },
            (Stage::Hand { tile, .. }, Action::Flip | Action::PlayOpen) => refuse(
                reason::TILE_IN_HAND,
                format!(
                    "the {tile} in hand must be placed first, with `place new`, `own`, `m<k>` \
                     or `p<k>` (Z7)"
                ),
            ),
            (Stage::Hand { tile, from }, Action::Place(place)) => {
                self.placement_refusal(turn, tile, from, place)
            }
        }
    }

    /// Why `tile` in `turn`'s hand, which came `from` there, cannot go to
    /// `place`, or `None` when it can (Z4, Z7).
    fn placement_refusal(
        &self,
        turn: Player,
        tile: Number,
        from: Source,
        place: Place,
    ) -> Option<Refusal> {
        let refuse = |code: &str, message: String| Some(Refusal::illegal(code, message));
        match place {
            Place::NewMiddle if tile == 1 => None,
            Place::NewMiddle => refuse(
                reason::ONLY_ONE_STARTS_A_STACK,
                format!("only a 1 starts a new middle stack, and the tile in hand is {tile} (Z4)"),
            ),
            Place::Middle(i) => match self.middle.get(i) {
                None => refuse(
                    reason::NO_SUCH_STACK,
                    format!(
                        "there is no middle stack m{}: the middle has {} (Z3)",
                        i + 1,
                        self.middle.len()
                    ),
                ),
                Some(&top) if top == self.rules.max_number => refuse(
                    reason::STACK_COMPLETE,
                    format!(
                        "middle stack m{} is complete (its top is {top}) and takes no more \
                         tiles (Z4)",
                        i + 1
                    ),
                ),
                Some(&top) if tile != top + 1 => refuse(
                    reason::DOES_NOT_FIT,
                    format!(
                        "{tile} does not fit on middle stack m{}, whose top is {top}: a middle \
                         stack takes only the next higher number (Z4)",
                        i + 1
                    ),
                ),
                Some(_) => None,
            },
            Place::Pile(q) if q >= self.rules.players => refuse(
                reason::NO_SUCH_PLAYER,
                format!(
                    "p{} names no seat: this match has P1 to P{} (Z12)",
                    u64::from(q) + 1,
                    self.rules.players
                ),
            ),
            Place::Pile(q) if q == turn => match from {
                Source::FaceDown => None,
                Source::Open => refuse(
                    reason::BACK_ONTO_OWN_PILE,
                    format!(
                        "the {tile} was taken from the own open pile and cannot go back onto \
                         it (Z7)"
                    ),
                ),
            },
            Place::Pile(q) if self.is_out(q) => refuse(
                reason::PLAYER_OUT,
                format!(
                    "{} was taken out of the game, and nothing fits on its open pile (Z4)",
                    seat(q)
                ),
            ),
            Place::Pile(q) => match self.open(q).last() {
                None => refuse(
                    reason::EMPTY_PILE,
                    format!(
                        "{}'s open pile is empty, and a tile never fits on an empty pile (Z4)",
                        seat(q)
                    ),
                ),
                Some(&top) if tile.abs_diff(top) != 1 => refuse(
                    reason::DOES_NOT_FIT,
                    format!(
                        "{tile} does not fit on {}'s open pile, whose top is {top}: it takes \
                         only one higher or one lower (Z4)",
                        seat(q)
                    ),
                ),
                Some(_) => None,
            },
        }
    }
}
