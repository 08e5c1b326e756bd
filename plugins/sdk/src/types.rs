//! The vocabulary shared by every game: players, actions, viewers, status and results.

use serde::{Deserialize, Serialize};

/// A seat index, `0..players`. Player 1 in a rule text is `Player(0)`.
pub type Player = u32;

/// A stable integer id in the game's action space. The hot path (legal actions,
/// apply) moves these, never strings.
pub type ActionId = u64;

/// Who is looking at a state. Every view, text rendering and event is produced
/// for one viewer and may contain only what that viewer may know.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Viewer {
    /// The player in this seat.
    Seat(Player),
    /// Someone who plays no seat: sees only public information.
    Spectator,
}

impl Viewer {
    /// The viewer's wire encoding: the seat index, or [`Viewer::SPECTATOR_CODE`].
    pub fn code(self) -> u32 {
        match self {
            Viewer::Seat(p) => p,
            Viewer::Spectator => Self::SPECTATOR_CODE,
        }
    }

    /// Decodes [`Viewer::code`].
    pub fn from_code(code: u32) -> Viewer {
        if code == Self::SPECTATOR_CODE {
            Viewer::Spectator
        } else {
            Viewer::Seat(code)
        }
    }

    /// The wire code of the spectator.
    pub const SPECTATOR_CODE: u32 = u32::MAX;
}

/// One player's action within a joint action.
///
/// `#[repr(C)]`: slices of moves cross the plugin ABI as they are, without a
/// copy (see [`crate::abi::RawMove`]).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Move {
    /// Who acts.
    pub player: Player,
    /// What they do.
    pub action: ActionId,
}

/// A set of players as a bitmask (at most 32 seats).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct PlayerSet(pub u32);

impl PlayerSet {
    /// Largest number of seats a game may have.
    pub const MAX_PLAYERS: u32 = 32;

    /// The empty set.
    pub const EMPTY: PlayerSet = PlayerSet(0);

    /// A set holding exactly one player.
    pub fn single(player: Player) -> PlayerSet {
        PlayerSet(1 << player)
    }

    /// Whether `player` is in the set.
    pub fn contains(self, player: Player) -> bool {
        player < Self::MAX_PLAYERS && self.0 & (1 << player) != 0
    }

    /// The set with `player` added.
    #[must_use]
    pub fn with(self, player: Player) -> PlayerSet {
        PlayerSet(self.0 | (1 << player))
    }

    /// The number of players in the set.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The players in ascending seat order.
    #[inline]
    pub fn iter(self) -> Players {
        Players(self.0)
    }

    /// The lowest-numbered player in the set, if any.
    #[inline]
    pub fn first(self) -> Option<Player> {
        (self.0 != 0).then(|| self.0.trailing_zeros())
    }
}

/// The players of a [`PlayerSet`] in ascending seat order, from
/// [`PlayerSet::iter`]: one step per member rather than a test of each of the
/// 32 possible seats, since every ply of every game walks its movers.
#[derive(Debug, Clone)]
pub struct Players(u32);

impl Iterator for Players {
    type Item = Player;

    #[inline]
    fn next(&mut self) -> Option<Player> {
        if self.0 == 0 {
            return None;
        }
        let player = self.0.trailing_zeros();
        // Clears the lowest set bit.
        self.0 &= self.0 - 1;
        Some(player)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.0.count_ones() as usize;
        (left, Some(left))
    }
}

impl ExactSizeIterator for Players {}

impl std::iter::FusedIterator for Players {}

impl FromIterator<Player> for PlayerSet {
    fn from_iter<I: IntoIterator<Item = Player>>(iter: I) -> Self {
        iter.into_iter().fold(PlayerSet::EMPTY, PlayerSet::with)
    }
}

/// What happens next in a state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Status {
    /// These players act now. One player for a sequential game; several for
    /// simultaneous moves, whose actions are applied together as one joint action.
    ToMove(PlayerSet),
    /// Chance acts now; [`crate::Game::chance`] says how.
    Chance,
    /// The game is over; [`crate::Game::results`] gives every player's result.
    Terminal,
}

/// How a chance node is resolved by the host's seeded random source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Chance {
    /// A small listed distribution: `(outcome, probability)` pairs; the
    /// probabilities are positive and sum to 1.
    Explicit(Vec<(u64, f64)>),
    /// Too many outcomes to list (a shuffle, a random setup): the host draws a
    /// uniformly random `u64` and the game derives the outcome from it.
    Sampled,
}

/// One player's final result.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PlayerResult {
    /// 1 is first place; players who share a place share its rank (a draw in
    /// a two-player game is rank 1 for both).
    pub rank: u32,
    /// A game-specific score (chips, tiles left, …); informative only.
    pub score: f64,
}

/// A seat the rules have taken out of the game ([`SeatsOut::seats_out`](crate::SeatsOut::seats_out)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatOut {
    /// The seat.
    pub seat: Player,
    /// Why, citing the rule (`"F7: cannot move"`): a short text for people,
    /// which the host passes on but never interprets.
    pub reason: String,
}

/// What a player tried that may be refused: an action id, or a text in the
/// game's notation ([`ExplainRefusal::explain_refusal`](crate::ExplainRefusal::explain_refusal)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attempt<'a> {
    /// An action id, legal or not.
    Id(ActionId),
    /// A notation text, as the player sent it.
    Text(&'a str),
}

/// Why an attempted action is refused: a code a program can branch on and a
/// sentence for the person, citing the rule
/// ([`ExplainRefusal::explain_refusal`](crate::ExplainRefusal::explain_refusal)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    /// [`ErrorKind::InvalidNotation`](crate::ErrorKind::InvalidNotation)
    /// when the text does not parse, else
    /// [`ErrorKind::IllegalAction`](crate::ErrorKind::IllegalAction).
    pub notation: bool,
    /// The game's reason code, UPPER_SNAKE (`RED_LINE`, `CARD_REPEATED`):
    /// specific, never one of [`Refusal::CATCH_ALL`].
    pub reason: String,
    /// One sentence naming the rule and its ruling number. Like every
    /// message, it reveals nothing hidden from the player.
    pub message: String,
}

impl Refusal {
    /// Reason codes that say only that something was refused, not why: the
    /// conformance kit refuses them as an explanation.
    pub const CATCH_ALL: [&'static str; 4] =
        ["ILLEGAL_ACTION", "INVALID_NOTATION", "NOT_LEGAL", "UNKNOWN"];

    /// A text that does not parse in the game's notation.
    pub fn notation(reason: &str, message: impl Into<String>) -> Refusal {
        Refusal {
            notation: true,
            reason: reason.to_string(),
            message: message.into(),
        }
    }

    /// An action that parses (or an id) but is not legal now.
    pub fn illegal(reason: &str, message: impl Into<String>) -> Refusal {
        Refusal {
            notation: false,
            reason: reason.to_string(),
            message: message.into(),
        }
    }

    /// Whether the reason code is specific: UPPER_SNAKE ASCII and not one of
    /// [`Refusal::CATCH_ALL`].
    pub fn is_specific(&self) -> bool {
        !self.reason.is_empty()
            && self
                .reason
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
            && !Refusal::CATCH_ALL.contains(&self.reason.as_str())
    }

    /// The refusal as the error a call returns: its kind and message.
    pub fn to_error(&self) -> crate::GameError {
        if self.notation {
            crate::GameError::invalid_notation(self.message.clone())
        } else {
            crate::GameError::illegal(self.message.clone())
        }
    }
}

impl From<Refusal> for crate::GameError {
    fn from(refusal: Refusal) -> crate::GameError {
        refusal.to_error()
    }
}

/// How a message names a seat: its API number (0-based) and the game's name
/// for it, `seat 1 (B)`; just `seat 1` when the game names none.
///
/// ```
/// use tabletop_sdk::seat_label;
/// assert_eq!(seat_label(1, Some("B")), "seat 1 (B)");
/// assert_eq!(seat_label(3, None), "seat 3");
/// ```
pub fn seat_label(seat: Player, name: Option<&str>) -> String {
    match name {
        Some(name) if !name.is_empty() => format!("seat {seat} ({name})"),
        _ => format!("seat {seat}"),
    }
}

/// One state change, as the host applied it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Transition {
    /// The joint action of the players who were to move.
    Moves(Vec<Move>),
    /// A chance outcome.
    Chance(u64),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_player_set_walks_its_members_lowest_first() {
        for bits in [0u32, 1, 0b1010_0110, 1 << 31, u32::MAX, 0x8000_0001] {
            let set = PlayerSet(bits);
            let by_seat: Vec<Player> = (0..PlayerSet::MAX_PLAYERS)
                .filter(|&p| set.contains(p))
                .collect();
            let walked = set.iter();
            assert_eq!(walked.len(), by_seat.len());
            assert_eq!(walked.collect::<Vec<_>>(), by_seat);
        }
    }
}
