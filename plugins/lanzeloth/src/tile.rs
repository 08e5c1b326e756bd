//! Tiles: the numbered tiles of ruling Z1 and what is public about a face-down one.

/// A tile's number, `1..=max_number` (ruling Z1). The donkey tile is not a
/// number tile: it is a marker, tracked as [`crate::Position::donkey`].
pub type Number = u8;

/// A tile lying in a face-down stack.
///
/// `known` marks a tile whose number every viewer has already seen: it was
/// turned over from an open pile (ruling Z8) or handed over from an open pile
/// as an Esel gift (ruling Z7). Views still show only the stack's size (Z11),
/// but resampling keeps such a tile where it is, because nobody could be
/// fooled about it; only never-seen tiles are reshuffled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FaceDownTile {
    /// The tile's number.
    pub number: Number,
    /// Whether the number is public knowledge (see the type's doc).
    pub known: bool,
}

impl FaceDownTile {
    /// A tile nobody has seen (as dealt, ruling Z2).
    pub fn hidden(number: Number) -> FaceDownTile {
        FaceDownTile {
            number,
            known: false,
        }
    }

    /// A tile everyone has seen.
    pub fn known(number: Number) -> FaceDownTile {
        FaceDownTile {
            number,
            known: true,
        }
    }
}
