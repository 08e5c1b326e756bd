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

    /// The rank of letter `K`, `Q` or `J`.
    pub fn from_letter(letter: char) -> Option<Rank> {
        match letter {
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

    /// Reads `AK`, `BQ`, `DJ` … (owner letter, rank letter).
    pub fn parse(text: &str) -> Option<PieceId> {
        let mut chars = text.chars();
        let owner = chars.next()?;
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
        for bad in ["", "A", "AX", "EK", "AKK", "ak"] {
            assert_eq!(PieceId::parse(bad), None, "{bad}");
        }
    }
}
