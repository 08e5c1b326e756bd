//! Pieces: every player owns a King, a Queen and a Jack, whose strength is
//! cyclic (King beats Queen, Queen beats Jack, Jack beats King).

use std::cmp::Ordering;
use std::fmt;

/// The most players a match can have.
pub const MAX_PLAYERS: usize = 4;

/// The most pieces on any board (3 per player).
pub const MAX_PIECES: usize = 3 * MAX_PLAYERS;

/// A piece's rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rank {
    /// Beats the Queen, loses to the Jack.
    King,
    /// Beats the Jack, loses to the King.
    Queen,
    /// Beats the King, loses to the Queen.
    Jack,
}

impl Rank {
    /// The three ranks in notation order (`K Q J`).
    pub const ALL: [Rank; 3] = [Rank::King, Rank::Queen, Rank::Jack];

    /// `K`, `Q` or `J`.
    pub fn letter(self) -> char {
        match self {
            Rank::King => 'K',
            Rank::Queen => 'Q',
            Rank::Jack => 'J',
        }
    }

    /// `King`, `Queen` or `Jack`, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Rank::King => "King",
            Rank::Queen => "Queen",
            Rank::Jack => "Jack",
        }
    }

    /// The rank of letter `K`, `Q` or `J`, in either case (the notation is
    /// case-insensitive, and no other letter of it is K, Q or J).
    pub fn from_letter(letter: char) -> Option<Rank> {
        match letter.to_ascii_uppercase() {
            'K' => Some(Rank::King),
            'Q' => Some(Rank::Queen),
            'J' => Some(Rank::Jack),
            _ => None,
        }
    }

    /// Whether `self` beats `other` (cyclic: K > Q > J > K).
    pub fn beats(self, other: Rank) -> bool {
        matches!(
            (self, other),
            (Rank::King, Rank::Queen) | (Rank::Queen, Rank::Jack) | (Rank::Jack, Rank::King)
        )
    }

    /// `Greater` if `self` beats `other`, `Equal` for the same rank.
    ///
    /// Not an `Ord`: the cycle makes strength intransitive.
    pub fn fight(self, other: Rank) -> Ordering {
        if self == other {
            Ordering::Equal
        } else if self.beats(other) {
            Ordering::Greater
        } else {
            Ordering::Less
        }
    }

    fn index(self) -> u8 {
        self as u8
    }
}

/// One piece: its owner and rank. Ordered by owner, then K, Q, J.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PieceId(u8);

impl PieceId {
    /// The `rank` of `player` (0-based seat), or `None` past the fourth seat.
    pub fn new(player: u32, rank: Rank) -> Option<PieceId> {
        (player < MAX_PLAYERS as u32).then(|| PieceId(player as u8 * 3 + rank.index()))
    }

    /// The piece with dense index `index` (`player * 3 + rank`).
    pub fn from_index(index: usize) -> Option<PieceId> {
        (index < MAX_PIECES).then_some(PieceId(index as u8))
    }

    /// The dense index `player * 3 + rank`, `0..12`.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// The owner's seat.
    pub fn player(self) -> u32 {
        u32::from(self.0 / 3)
    }

    /// The rank.
    pub fn rank(self) -> Rank {
        Rank::ALL[usize::from(self.0 % 3)]
    }

    /// Reads `AK`, `BQ`, `DJ` … (owner letter, rank letter), in either case.
    pub fn parse(text: &str) -> Option<PieceId> {
        let mut chars = text.chars();
        let owner = chars.next()?.to_ascii_uppercase();
        let rank = Rank::from_letter(chars.next()?)?;
        if chars.next().is_some() || !('A'..='D').contains(&owner) {
            return None;
        }
        PieceId::new(owner as u32 - 'A' as u32, rank)
    }
}

/// The letter of seat `player`: `A` for seat 0, `B`, `C`, `D`.
pub fn player_letter(player: u32) -> char {
    char::from(b'A' + (player.min(25) as u8))
}

/// The seat of letter `letter` (`A` is seat 0), in either case.
pub fn seat_of_letter(letter: char) -> Option<u32> {
    let upper = letter.to_ascii_uppercase();
    upper
        .is_ascii_uppercase()
        .then(|| u32::from(upper) - u32::from('A'))
}

/// How every message names seat `player`: the API's number and the game's
/// letter, `seat 1 (B)`; a seat past the fourth has no letter (`seat 7`).
pub fn seat_label(player: u32) -> String {
    let letter = (player < MAX_PLAYERS as u32).then(|| player_letter(player).to_string());
    tabletop_sdk::seat_label(player, letter.as_deref())
}

/// The seat names of a match of `players` seats: `A`, `B`, … (empty outside
/// 2–4 players, which no match has).
pub fn seat_names(players: u32) -> Vec<String> {
    if (2..=MAX_PLAYERS as u32).contains(&players) {
        (0..players).map(|p| player_letter(p).to_string()).collect()
    } else {
        Vec::new()
    }
}

impl fmt::Display for PieceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            player_letter(self.player()),
            self.rank().letter()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strength_is_cyclic() {
        assert!(Rank::King.beats(Rank::Queen));
        assert!(Rank::Queen.beats(Rank::Jack));
        assert!(Rank::Jack.beats(Rank::King));
        for a in Rank::ALL {
            assert!(!a.beats(a));
            for b in Rank::ALL {
                assert_eq!(a.fight(b), b.fight(a).reverse());
            }
        }
    }

    #[test]
    fn piece_names_round_trip() {
        for i in 0..MAX_PIECES {
            let piece = PieceId::from_index(i).unwrap();
            assert_eq!(PieceId::parse(&piece.to_string()), Some(piece));
        }
        for bad in ["", "A", "AX", "EK", "AKK", "a", "A1"] {
            assert_eq!(PieceId::parse(bad), None, "{bad}");
        }
        assert_eq!(PieceId::parse("bq"), PieceId::parse("BQ"));
    }

    #[test]
    fn seats_are_labelled_by_number_and_letter() {
        assert_eq!(seat_label(1), "seat 1 (B)");
        assert_eq!(seat_label(9), "seat 9");
        assert_eq!(seat_names(3), ["A", "B", "C"]);
        assert!(seat_names(5).is_empty());
        assert_eq!(seat_of_letter('c'), Some(2));
        assert_eq!(seat_of_letter('-'), None);
    }
}
