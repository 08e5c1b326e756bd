//! Actions and their stable integer ids.
//!
//! With `P` points and `S` segments on the board, ids are laid out in blocks,
//! so sorting ids sorts actions by kind, then by points:
//!
//! | block | ids |
//! |---|---|
//! | placement (W3) | `0..3`: infantry, cavalry, cannon |
//! | move (W4) | `8 + from·P + to` |
//! | jump capture (W6) | `8 + P² + from·P + to` |
//! | cannon fire (W7) | `8 + 2P² + from·8 + direction` |
//! | place tile (W10) | `8 + 2P² + 8P + segment·2 + kind` |
//! | remove tile (W10) | `8 + 2P² + 8P + 2S + segment` |

use crate::board::{Board, DIRECTIONS, Direction};
use crate::side::{TileKind, UnitKind};

/// One action of the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    /// Place a unit of this type on the next empty start point (W3).
    Place(UnitKind),
    /// Move a unit from one point to another; a move is identified by its ends
    /// alone, whatever path it took (W4).
    Move {
        /// Start point.
        from: u8,
        /// End point.
        to: u8,
    },
    /// Jump from `from` over the adjacent enemy to `to`, removing it (W6).
    Jump {
        /// Start point.
        from: u8,
        /// Landing point.
        to: u8,
    },
    /// Fire the cannon on `from` toward `dir` (W7).
    Fire {
        /// The cannon's point.
        from: u8,
        /// The direction of the shot.
        dir: Direction,
    },
    /// Place a tile from hand on a segment (W10).
    PlaceTile {
        /// The segment.
        segment: u16,
        /// The tile type.
        kind: TileKind,
    },
    /// Take an own tile back into hand (W10).
    RemoveTile {
        /// The segment.
        segment: u16,
    },
}

const BASE: u64 = 8;

/// Where each block of ids starts on one board (see the module docs): the one
/// writer of the layout, for [`Action::id`] and for the move generator, which
/// writes a position's legal ids directly, block by block, in id order.
#[derive(Debug, Clone, Copy)]
pub(crate) struct IdLayout {
    points: u64,
    jump: u64,
    fire: u64,
    place_tile: u64,
    remove_tile: u64,
    end: u64,
}

impl IdLayout {
    /// The layout of `board`'s ids.
    pub(crate) fn of(board: &Board) -> IdLayout {
        let p = board.len() as u64;
        let s = board.segments().len() as u64;
        let jump = BASE + p * p;
        let fire = jump + p * p;
        let place_tile = fire + 8 * p;
        IdLayout {
            points: p,
            jump,
            fire,
            place_tile,
            remove_tile: place_tile + 2 * s,
            end: place_tile + 3 * s,
        }
    }

    /// One past the last id: every action of the board is below it.
    pub(crate) fn end(self) -> u64 {
        self.end
    }

    /// A move's id (W4).
    #[inline]
    pub(crate) fn step(self, from: u8, to: u8) -> u64 {
        BASE + u64::from(from) * self.points + u64::from(to)
    }

    /// A jump capture's id (W6).
    #[inline]
    pub(crate) fn jump(self, from: u8, to: u8) -> u64 {
        self.jump + u64::from(from) * self.points + u64::from(to)
    }

    /// A cannon fire's id (W7); `dir` is the index in [`DIRECTIONS`].
    #[inline]
    pub(crate) fn fire(self, from: u8, dir: usize) -> u64 {
        self.fire + u64::from(from) * 8 + dir as u64
    }

    /// A tile placement's id (W10).
    #[inline]
    pub(crate) fn place_tile(self, segment: u16, kind: TileKind) -> u64 {
        self.place_tile + u64::from(segment) * 2 + kind.index() as u64
    }

    /// A tile removal's id (W10).
    #[inline]
    pub(crate) fn remove_tile(self, segment: u16) -> u64 {
        self.remove_tile + u64::from(segment)
    }
}

impl Action {
    /// The id of this action on `board`.
    pub fn id(self, board: &Board) -> u64 {
        let ids = IdLayout::of(board);
        match self {
            Action::Place(kind) => kind as u64,
            Action::Move { from, to } => ids.step(from, to),
            Action::Jump { from, to } => ids.jump(from, to),
            Action::Fire { from, dir } => ids.fire(from, dir.index()),
            Action::PlaceTile { segment, kind } => ids.place_tile(segment, kind),
            Action::RemoveTile { segment } => ids.remove_tile(segment),
        }
    }

    /// The action with `id` on `board`, if the id is in the action space at all
    /// (legality is a separate question).
    pub fn from_id(id: u64, board: &Board) -> Option<Action> {
        let p = board.len() as u64;
        let s = board.segments().len() as u64;
        if id < 3 {
            return Some(Action::Place(UnitKind::ALL[id as usize]));
        }
        let mut rest = id.checked_sub(BASE)?;
        if rest < p * p {
            return Some(Action::Move {
                from: (rest / p) as u8,
                to: (rest % p) as u8,
            });
        }
        rest -= p * p;
        if rest < p * p {
            return Some(Action::Jump {
                from: (rest / p) as u8,
                to: (rest % p) as u8,
            });
        }
        rest -= p * p;
        if rest < 8 * p {
            return Some(Action::Fire {
                from: (rest / 8) as u8,
                dir: DIRECTIONS[(rest % 8) as usize],
            });
        }
        rest -= 8 * p;
        if rest < 2 * s {
            return Some(Action::PlaceTile {
                segment: (rest / 2) as u16,
                kind: TileKind::ALL[(rest % 2) as usize],
            });
        }
        rest -= 2 * s;
        if rest < s {
            return Some(Action::RemoveTile {
                segment: rest as u16,
            });
        }
        None
    }

    /// How many ids `board`'s actions span: every id is below it.
    pub fn space(board: &Board) -> u64 {
        IdLayout::of(board).end()
    }

    /// Whether this is a capture (W8).
    pub fn is_capture(self) -> bool {
        matches!(self, Action::Jump { .. } | Action::Fire { .. })
    }

    /// Whether this moves or captures with a unit (what W11's encirclement counts).
    pub fn is_unit_action(self) -> bool {
        matches!(
            self,
            Action::Move { .. } | Action::Jump { .. } | Action::Fire { .. }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_over_the_whole_space() {
        let board = Board::default_board();
        let p = board.len() as u64;
        let s = board.segments().len() as u64;
        let end = BASE + 2 * p * p + 8 * p + 3 * s;
        assert_eq!(Action::space(&board), end);
        let mut last = None;
        for id in 0..end + 5 {
            match Action::from_id(id, &board) {
                Some(a) => {
                    assert_eq!(a.id(&board), id);
                    assert!(last.is_none_or(|l| l < id));
                    last = Some(id);
                }
                None => assert!((3..BASE).contains(&id) || id >= end, "{id}"),
            }
        }
    }
}
