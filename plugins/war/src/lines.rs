//! What the lines at each point carry now, as bit masks of directions: the
//! move generator's view of the board.
//!
//! A segment carries captures and seizure unless it is a gap (W5, W7, W9),
//! ordinary steps when it is black or rail (W4) and rail moves when it is
//! rail (W4), and a tile changes what it is (W10). Asking that of each
//! segment — neighbour, segment number, tile, printed kind — at every step
//! would be most of the move generation's work, for an answer that only
//! changes when a tile is placed or removed. So a position keeps, per point,
//! the directions whose segment carries each, and updates the two ends of a
//! segment when its tile changes.

use crate::board::{Board, SegmentKind};
use crate::point_set::PointSet;
use crate::side::{Tile, TileKind};

/// What `segment` is now: its printed kind, changed by a tile on it (W10);
/// `None` for an entrenchment, which makes it a gap.
#[inline]
pub(crate) fn current_kind(
    board: &Board,
    tiles: &[Option<Tile>],
    segment: u16,
) -> Option<SegmentKind> {
    match tiles[segment as usize] {
        Some(Tile {
            kind: TileKind::Entrenchment,
            ..
        }) => None,
        Some(Tile {
            kind: TileKind::Railway,
            ..
        }) => Some(SegmentKind::Rail),
        None => Some(board.segments()[segment as usize].kind),
    }
}

/// The directions (bit `d` for direction index `d`) in which one point's
/// segments carry each kind of travel now.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Dirs {
    /// Any segment that is not a gap: captures (W5–W7) and seizure (W9).
    pub(crate) open: u8,
    /// Black or rail: ordinary steps (W4).
    pub(crate) walk: u8,
    /// Rail: rail moves (W4).
    pub(crate) rail: u8,
}

impl Dirs {
    fn of(board: &Board, tiles: &[Option<Tile>], point: u8) -> Dirs {
        let mut dirs = Dirs::default();
        for dir in 0..8 {
            let Some((_, segment)) = board.link(point, dir) else {
                continue;
            };
            let bit = 1 << dir;
            match current_kind(board, tiles, segment) {
                None => {}
                Some(SegmentKind::Red) => dirs.open |= bit,
                Some(SegmentKind::Black) => {
                    dirs.open |= bit;
                    dirs.walk |= bit;
                }
                Some(SegmentKind::Rail) => {
                    dirs.open |= bit;
                    dirs.walk |= bit;
                    dirs.rail |= bit;
                }
            }
        }
        dirs
    }
}

/// Every point's [`Dirs`], kept in step with the tiles by its position.
///
/// With each point's `walk` and `rail` directions it keeps the points they
/// reach, as sets: a unit's end points (W4) are then a few unions and
/// intersections with the empty points, rather than a walk direction by
/// direction testing every neighbour and second neighbour one at a time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Lines {
    dirs: Vec<Dirs>,
    /// Per point, the neighbours across its `walk` directions.
    walk_to: Vec<PointSet>,
    /// Per point, the neighbours across its `rail` directions.
    rail_to: Vec<PointSet>,
}

impl Lines {
    /// The lines of `board` with `tiles` on it.
    pub(crate) fn new(board: &Board, tiles: &[Option<Tile>]) -> Lines {
        let mut lines = Lines {
            dirs: vec![Dirs::default(); board.len()],
            walk_to: vec![PointSet::default(); board.len()],
            rail_to: vec![PointSet::default(); board.len()],
        };
        for p in 0..board.len() as u8 {
            lines.update(board, tiles, p);
        }
        lines
    }

    /// The directions at `point`.
    #[inline]
    pub(crate) fn at(&self, point: u8) -> Dirs {
        self.dirs[point as usize]
    }

    /// The points a step along a black or rail line from `point` reaches.
    #[inline]
    pub(crate) fn walk_to(&self, point: u8) -> &PointSet {
        &self.walk_to[point as usize]
    }

    /// The points one rail segment from `point` reaches.
    #[inline]
    pub(crate) fn rail_to(&self, point: u8) -> &PointSet {
        &self.rail_to[point as usize]
    }

    /// Brings the two ends of `segment` up to date after its tile changed.
    pub(crate) fn retile(&mut self, board: &Board, tiles: &[Option<Tile>], segment: u16) {
        let s = board.segments()[segment as usize];
        for p in [s.a, s.b] {
            self.update(board, tiles, p);
        }
    }

    /// Recomputes what `point`'s lines carry.
    fn update(&mut self, board: &Board, tiles: &[Option<Tile>], point: u8) {
        let dirs = Dirs::of(board, tiles, point);
        let to = board.neighbours(point);
        let set = |mask: u8| each(mask).map(|dir| to[dir]).collect();
        let p = point as usize;
        self.walk_to[p] = set(dirs.walk);
        self.rail_to[p] = set(dirs.rail);
        self.dirs[p] = dirs;
    }
}

/// The directions of `mask`, in index order.
#[inline]
pub(crate) fn each(mut mask: u8) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            return None;
        }
        let dir = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        Some(dir)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::side::Side;

    #[test]
    fn each_lists_the_set_bits_in_order() {
        assert_eq!(each(0).count(), 0);
        assert_eq!(each(0b1000_0101).collect::<Vec<_>>(), [0, 2, 7]);
        assert_eq!(each(0xff).collect::<Vec<_>>(), (0..8).collect::<Vec<_>>());
    }

    /// The masks against the slow path: each link's current kind, asked
    /// segment by segment, for the printed board and with tiles on it.
    #[test]
    fn masks_match_every_links_current_kind() {
        let board = Board::default_board();
        let mut tiles = vec![None; board.segments().len()];
        let check = |tiles: &[Option<Tile>], lines: &Lines| {
            for p in 0..board.len() as u8 {
                let at = lines.at(p);
                for dir in 0..8 {
                    let kind = board
                        .link(p, dir)
                        .and_then(|(_, s)| current_kind(&board, tiles, s));
                    let bit = |mask: u8| mask & (1 << dir) != 0;
                    assert_eq!(bit(at.open), kind.is_some(), "{p} {dir}");
                    assert_eq!(
                        bit(at.walk),
                        matches!(kind, Some(SegmentKind::Black | SegmentKind::Rail))
                    );
                    assert_eq!(bit(at.rail), kind == Some(SegmentKind::Rail));
                }
                // The sets hold the neighbours of the masks' directions.
                let reached = |mask: u8| {
                    let mut points: Vec<u8> = each(mask).map(|d| board.neighbours(p)[d]).collect();
                    points.sort_unstable();
                    points
                };
                assert_eq!(
                    lines.walk_to(p).iter().collect::<Vec<_>>(),
                    reached(at.walk)
                );
                assert_eq!(
                    lines.rail_to(p).iter().collect::<Vec<_>>(),
                    reached(at.rail)
                );
            }
        };
        let mut lines = Lines::new(&board, &tiles);
        check(&tiles, &lines);
        // Tiles on every fifth segment, entrenchments and railways in turn,
        // then taken off again; each change kept by `retile`.
        let changed: Vec<u16> = (0..board.segments().len() as u16).step_by(5).collect();
        for (i, &s) in changed.iter().enumerate() {
            let kind = TileKind::ALL[i % 2];
            tiles[s as usize] = Some(Tile {
                kind,
                owner: Side::South,
            });
            lines.retile(&board, &tiles, s);
        }
        check(&tiles, &lines);
        assert_eq!(lines, Lines::new(&board, &tiles));
        for &s in &changed {
            tiles[s as usize] = None;
            lines.retile(&board, &tiles, s);
        }
        check(&tiles, &lines);
        assert_eq!(lines, Lines::new(&board, &tiles));
    }
}
