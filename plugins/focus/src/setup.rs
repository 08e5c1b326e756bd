//! Unvalidated positions and the start positions of rulings F2–F4.
//!
//! A [`RawPosition`] can hold anything; [`crate::Position::from_raw`] checks
//! it against the rules and turns it into a playable position.

use crate::board::Square;
use crate::tower::{Colour, Tower};

/// Who acts next in a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// Ruling F9's opening swap is still to be made (by chance, or by player
    /// 1, as the `opening_swap` option says).
    Swap,
    /// This seat makes the next move.
    ToMove(Colour),
    /// The game is over.
    Over,
}

/// Ruling F9's bookkeeping for the symmetry rule: whether every move of the
/// second player so far restored the half-turn symmetry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mirror {
    /// The second player has not moved yet (or the rule is not in play).
    Untested,
    /// Every move of the second player restored the symmetry.
    Holding,
    /// Some move of the second player left the position asymmetric.
    Broken,
}

/// A position as written, not yet checked. Seats are 0-based; colour `c` is
/// seat `c`'s (player `c + 1` in the rule text).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RawPosition {
    /// 2, 3 or 4.
    pub players: usize,
    /// Towers by square index (`rank * 8 + file`); squares that do not exist
    /// must stay empty.
    pub towers: [Tower; 64],
    /// Pieces in each player's reserve.
    pub reserves: [u32; 4],
    /// `captures[mover][colour]`: pieces of `colour` that overflows on
    /// `mover`'s turns took out of the game (ruling F6).
    pub captures: [[u32; 4]; 4],
    /// Ruling F8's count: pieces each player's overflows took off the board,
    /// own pieces included.
    pub removed: [u32; 4],
    /// Seats that are out, in the order they went out (ruling F7).
    pub out: Vec<Colour>,
    /// Who acts next.
    pub side: Side,
    /// Moves made so far (ruling F10; swaps and putting players out do not count).
    pub moves: u32,
    /// Ruling F9's symmetry bookkeeping.
    pub mirror: Mirror,
}

/// Pieces each player has in total: 18 with two players (F2), 13 with
/// three or four (F3, F4).
pub fn pieces_per_player(players: usize) -> u32 {
    if players == 2 { 18 } else { 13 }
}

/// Ruling F3's layout, rank 8 first, files a–h; 0 = no square.
const FOUR_PLAYER_LAYOUT: [[u8; 8]; 8] = [
    [0, 0, 1, 1, 2, 4, 0, 0],
    [0, 4, 4, 4, 2, 4, 2, 0],
    [1, 1, 1, 1, 2, 4, 2, 4],
    [4, 4, 4, 4, 2, 4, 2, 4],
    [3, 1, 3, 1, 3, 3, 3, 3],
    [3, 1, 3, 1, 2, 2, 2, 2],
    [0, 1, 3, 1, 3, 3, 3, 0],
    [0, 0, 3, 1, 2, 2, 0, 0],
];

impl RawPosition {
    /// An empty board for `players`, player 1 to move.
    pub fn empty(players: usize) -> RawPosition {
        RawPosition {
            players,
            towers: [Tower::EMPTY; 64],
            reserves: [0; 4],
            captures: [[0; 4]; 4],
            removed: [0; 4],
            out: Vec::new(),
            side: Side::ToMove(0),
            moves: 0,
            mirror: Mirror::Untested,
        }
    }

    /// The start position for `players` (rulings F2, F3, F4); `None` for
    /// other counts. The opening swap (F9) is not applied here.
    pub fn start(players: usize) -> Option<RawPosition> {
        let mut raw = RawPosition::empty(players);
        let mut put = |file: u8, rank: u8, colour: Colour| {
            if let Some(s) = Square::new(file, rank) {
                raw.towers[s.index()] = Tower::from_pieces(&[colour]).unwrap_or_default();
            }
        };
        match players {
            2 => {
                // F2: ranks 2, 4, 6 read R R G G R R from b to g; ranks
                // 3, 5, 7 read G G R R G G.
                for rank in 1..=6u8 {
                    for file in 1..=6u8 {
                        let pair = (file - 1) / 2; // 0, 1, 2
                        let even_rank = rank % 2 == 1; // ranks 2, 4, 6
                        let colour = u8::from((pair == 1) == even_rank);
                        put(file, rank, colour);
                    }
                }
            }
            3 => {
                // F4: square (c, r) of the central 6×6 belongs to player
                // ((c div 2) + r) mod 3 + 1; one piece each in reserve.
                for r in 0..6u8 {
                    for c in 0..6u8 {
                        put(c + 1, r + 1, (c / 2 + r) % 3);
                    }
                }
                raw.reserves = [1, 1, 1, 0];
            }
            4 => {
                for (row, cells) in FOUR_PLAYER_LAYOUT.iter().enumerate() {
                    for (file, &cell) in cells.iter().enumerate() {
                        if cell > 0 {
                            put(file as u8, 7 - row as u8, cell - 1);
                        }
                    }
                }
            }
            _ => return None,
        }
        Some(raw)
    }
}
