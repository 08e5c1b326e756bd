//! Towers: stacks of at most five pieces, packed into one `u16` so a whole
//! board is 128 bytes and cloning a position is cheap.

use std::fmt;

/// A colour, which is also the seat index of the player who owns it
/// (`0` = player 1 = R).
pub type Colour = u8;

/// Most pieces a tower holds after a move (ruling F6).
pub const MAX_HEIGHT: usize = 5;

/// A tower of 0 to 5 pieces. Piece 0 is the bottom; the top piece's colour
/// owns the tower.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Tower(u16);

// Layout: bits 0..10 hold five 2-bit colours (piece i at bits 2i, 2i+1);
// bits 12..15 hold the height.
const HEIGHT_SHIFT: u32 = 12;
const PIECE_MASK: u16 = (1 << (2 * MAX_HEIGHT)) - 1;

impl Tower {
    /// No pieces.
    pub const EMPTY: Tower = Tower(0);

    /// A tower from its pieces, bottom to top; `None` if there are more than
    /// five or a colour is not 0–3.
    pub fn from_pieces(pieces: &[Colour]) -> Option<Tower> {
        if pieces.len() > MAX_HEIGHT || pieces.iter().any(|&c| c > 3) {
            return None;
        }
        let bits = pieces
            .iter()
            .enumerate()
            .fold(0u16, |acc, (i, &c)| acc | (u16::from(c) << (2 * i)));
        Some(Tower::from_raw(u32::from(bits), pieces.len()))
    }

    fn from_raw(bits: u32, height: usize) -> Tower {
        debug_assert!(height <= MAX_HEIGHT);
        Tower(((height as u16) << HEIGHT_SHIFT) | (bits as u16 & PIECE_MASK))
    }

    /// Number of pieces.
    pub fn height(self) -> usize {
        usize::from(self.0 >> HEIGHT_SHIFT)
    }

    /// Whether the tower has no pieces.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The colour of piece `i` (0 = bottom).
    pub fn piece(self, i: usize) -> Option<Colour> {
        (i < self.height()).then(|| ((self.0 >> (2 * i)) & 3) as Colour)
    }

    /// The colour on top, which owns the tower.
    pub fn top(self) -> Option<Colour> {
        self.height().checked_sub(1).and_then(|i| self.piece(i))
    }

    /// The pieces, bottom to top.
    pub fn pieces(self) -> impl Iterator<Item = Colour> {
        (0..self.height()).map(move |i| ((self.0 >> (2 * i)) & 3) as Colour)
    }

    /// How many pieces of `colour` the tower holds.
    pub fn count(self, colour: Colour) -> usize {
        self.pieces().filter(|&c| c == colour).count()
    }

    /// Splits off the top `k` pieces: `(what stays, what moves)`. `None` if
    /// `k` is 0 or larger than the tower (ruling F5).
    pub fn split_top(self, k: usize) -> Option<(Tower, Stack)> {
        let h = self.height();
        if k == 0 || k > h {
            return None;
        }
        let bits = u32::from(self.0 & PIECE_MASK);
        let stay = h - k;
        let low = bits & ((1 << (2 * stay)) - 1);
        Some((
            Tower::from_raw(low, stay),
            Stack {
                bits: bits >> (2 * stay),
                height: k,
            },
        ))
    }

    /// This tower as a stack, to put more pieces on.
    pub fn into_stack(self) -> Stack {
        Stack {
            bits: u32::from(self.0 & PIECE_MASK),
            height: self.height(),
        }
    }

    /// The tower with every colour mapped through `map` (for symmetry checks).
    pub fn recolour(self, map: impl Fn(Colour) -> Colour) -> Tower {
        let bits = self
            .pieces()
            .enumerate()
            .fold(0u32, |acc, (i, c)| acc | (u32::from(map(c)) << (2 * i)));
        Tower::from_raw(bits, self.height())
    }
}

impl fmt::Debug for Tower {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Tower[")?;
        for c in self.pieces() {
            write!(f, "{}", c + 1)?;
        }
        f.write_str("]")
    }
}

/// A temporary pile of up to ten pieces: a tower with a moving part on top,
/// before overflow (ruling F6) cuts it back to five.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stack {
    bits: u32,
    height: usize,
}

impl Stack {
    /// One piece.
    pub fn single(colour: Colour) -> Stack {
        Stack {
            bits: u32::from(colour & 3),
            height: 1,
        }
    }

    /// Number of pieces.
    pub fn height(self) -> usize {
        self.height
    }

    /// `other` placed on top of `self`.
    pub fn stacked(self, other: Stack) -> Stack {
        Stack {
            bits: self.bits | (other.bits << (2 * self.height)),
            height: self.height + other.height,
        }
    }

    /// Ruling F6: cuts the stack to at most five pieces from the bottom,
    /// calling `removed` with each removed piece's colour, bottom first.
    pub fn overflow(self, mut removed: impl FnMut(Colour)) -> Tower {
        let extra = self.height.saturating_sub(MAX_HEIGHT);
        for i in 0..extra {
            removed(((self.bits >> (2 * i)) & 3) as Colour);
        }
        Tower::from_raw(self.bits >> (2 * extra), self.height - extra)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_round_trip() {
        let t = Tower::from_pieces(&[0, 1, 2, 3, 1]).unwrap();
        assert_eq!(t.height(), 5);
        assert_eq!(t.pieces().collect::<Vec<_>>(), [0, 1, 2, 3, 1]);
        assert_eq!(t.top(), Some(1));
        assert_eq!(t.count(1), 2);
        assert!(Tower::from_pieces(&[0; 6]).is_none());
        assert!(Tower::from_pieces(&[4]).is_none());
        assert_eq!(Tower::EMPTY.top(), None);
        assert!(Tower::from_pieces(&[]).unwrap().is_empty());
    }

    #[test]
    fn split_takes_the_top() {
        let t = Tower::from_pieces(&[0, 1, 2]).unwrap();
        let (stay, moving) = t.split_top(2).unwrap();
        assert_eq!(stay.pieces().collect::<Vec<_>>(), [0]);
        let landed = Tower::EMPTY.into_stack().stacked(moving).overflow(|_| {});
        assert_eq!(landed.pieces().collect::<Vec<_>>(), [1, 2]);
        assert!(t.split_top(0).is_none());
        assert!(t.split_top(4).is_none(), "k larger than the tower (F5)");
    }

    #[test]
    fn overflow_removes_from_the_bottom_ruling_f6() {
        let base = Tower::from_pieces(&[1, 2, 0, 0]).unwrap().into_stack();
        let (_, moving) = Tower::from_pieces(&[3, 0, 0])
            .unwrap()
            .split_top(3)
            .unwrap();
        let mut gone = Vec::new();
        let t = base.stacked(moving).overflow(|c| gone.push(c));
        assert_eq!(gone, [1, 2]);
        assert_eq!(t.pieces().collect::<Vec<_>>(), [0, 0, 3, 0, 0]);
    }
}
