//! A game state: units, tiles, hands, seized cannons, whose turn, and the end.

use std::sync::{Arc, OnceLock};

use tabletop_sdk::ActionId;

use crate::board::{Board, SegmentKind};
use crate::lines::{Lines, current_kind};
use crate::point_set::PointSet;
use crate::side::{Side, Tile, TileKind, Unit, UnitKind};

/// Why a game ended (ruling W11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
    /// The winner's units occupy all three enemy fortress points.
    Fortress,
    /// The loser has two units or fewer.
    Destroyed,
    /// The loser, on turn, had no capture and no unit move.
    Encircled,
    /// The same position occurred a third time (draw).
    Repetition,
    /// `max_turns` moves were played (draw).
    TurnLimit,
}

impl Reason {
    /// The word used in positions and views.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Fortress => "fortress",
            Reason::Destroyed => "destroyed",
            Reason::Encircled => "encircled",
            Reason::Repetition => "repetition",
            Reason::TurnLimit => "turn-limit",
        }
    }

    /// Reads [`Reason::name`].
    pub fn parse(text: &str) -> Option<Reason> {
        [
            Reason::Fortress,
            Reason::Destroyed,
            Reason::Encircled,
            Reason::Repetition,
            Reason::TurnLimit,
        ]
        .into_iter()
        .find(|r| r.name() == text)
    }
}

/// How a game ended: a winner (or a draw) and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// `None` for a draw.
    pub winner: Option<Side>,
    /// Why.
    pub reason: Reason,
}

/// Where in the game a state is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Placing units on start points (W3).
    Setup,
    /// Moving.
    Play,
    /// Over.
    Over(Outcome),
}

/// A full game state. Built by [`crate::War`] from options, or from a position
/// text through [`crate::position_text::parse`], which validates it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    pub(crate) board: Arc<Board>,
    /// Changed only through [`Position::put`] and [`Position::set_units`],
    /// which keep `occupied` in step.
    pub(crate) units: Vec<Option<Unit>>,
    /// `occupied[side]`: the points that hold a unit of `side`.
    pub(crate) occupied: [PointSet; 2],
    pub(crate) tiles: Vec<Option<Tile>>,
    /// The segments that hold a tile, ascending; changed with the tiles (see
    /// [`Position::set_tiles`]). A game has a dozen tiles at most on some
    /// 250 segments: the work done per move for tiles (ownership, W10;
    /// removals; the repetition key, W11) walks these, not every segment.
    pub(crate) tiled: Vec<u16>,
    /// What each point's segments carry with these tiles; changed with them
    /// (see [`Position::set_tiles`]).
    pub(crate) lines: Lines,
    /// `hand[side][tile kind]`.
    pub(crate) hand: [[u8; 2]; 2],
    /// Cannons of the side to move that were seized on the last move and go at
    /// the start of the seizing side's next turn (W9). Sorted.
    pub(crate) seized: Vec<u8>,
    pub(crate) phase: Phase,
    pub(crate) to_move: Side,
    /// Moves played since the setup ended.
    pub(crate) moves: u32,
    pub(crate) max_turns: u32,
    /// Keys of the positions since the last removal of a unit, the current one
    /// last (W11 repetition). A removal makes every earlier position unreachable.
    pub(crate) history: Vec<u64>,
    /// The legal actions' ids, once asked for; see [`Position::legal_ids`].
    pub(crate) legal_ids: LegalIds,
}

/// The sorted ids of a position's legal actions, computed the first time
/// they are asked for and dropped by the next move. The host lists a
/// position's actions for its client and then applies one of them; without
/// this the move generation, War's heaviest work, would run twice a ply
/// (once for the list, once to check the action). Not part of what a
/// position is: two positions are equal whether or not either has computed
/// it.
#[derive(Clone, Default)]
pub(crate) struct LegalIds(OnceLock<Vec<ActionId>>);

impl LegalIds {
    pub(crate) fn computed(ids: Vec<ActionId>) -> LegalIds {
        LegalIds(OnceLock::from(ids))
    }

    /// Drops the ids, as the next move does, and hands back their vector
    /// (empty if they were never computed) for the next list.
    pub(crate) fn take(&mut self) -> Vec<ActionId> {
        self.0.take().unwrap_or_default()
    }

    pub(crate) fn get_or_compute(&self, compute: impl FnOnce() -> Vec<ActionId>) -> &[ActionId] {
        self.0.get_or_init(compute)
    }
}

impl PartialEq for LegalIds {
    fn eq(&self, _: &LegalIds) -> bool {
        true
    }
}

impl Eq for LegalIds {}

impl std::fmt::Debug for LegalIds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.0.get() {
            Some(_) => "LegalIds(computed)",
            None => "LegalIds(not yet)",
        })
    }
}

impl Position {
    /// The start of a game: an empty board, full hands, South to place.
    pub fn new(board: Arc<Board>, rail_tiles: u8, max_turns: u32) -> Position {
        let points = board.len();
        let tiles = vec![None; board.segments().len()];
        Position {
            lines: Lines::new(&board, &tiles),
            tiled: Vec::new(),
            board,
            units: vec![None; points],
            occupied: [PointSet::default(); 2],
            tiles,
            hand: [[1, rail_tiles], [1, rail_tiles]],
            seized: Vec::new(),
            phase: Phase::Setup,
            to_move: Side::South,
            moves: 0,
            max_turns,
            history: Vec::new(),
            legal_ids: LegalIds::default(),
        }
    }

    /// The board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The unit on `point`.
    pub fn unit(&self, point: u8) -> Option<Unit> {
        self.units.get(point as usize).copied().flatten()
    }

    /// The tile on `segment`.
    pub fn tile(&self, segment: u16) -> Option<Tile> {
        self.tiles.get(segment as usize).copied().flatten()
    }

    /// Tiles of `kind` that `side` holds in hand.
    pub fn in_hand(&self, side: Side, kind: TileKind) -> u8 {
        self.hand[side.index()][kind.index()]
    }

    /// Cannons awaiting removal (W9).
    pub fn seized(&self) -> &[u8] {
        &self.seized
    }

    /// The phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The side to move (or to place).
    pub fn to_move(&self) -> Side {
        self.to_move
    }

    /// Moves played since the setup.
    pub fn moves_played(&self) -> u32 {
        self.moves
    }

    /// The move limit (W11 extension).
    pub fn max_turns(&self) -> u32 {
        self.max_turns
    }

    /// What a segment is now: its printed kind, changed by a tile on it;
    /// `None` for an entrenchment (a gap).
    #[inline]
    pub fn effective_kind(&self, segment: u16) -> Option<SegmentKind> {
        current_kind(&self.board, &self.tiles, segment)
    }

    /// Puts `tiles` (one per segment) on the board, with the lines they make.
    pub(crate) fn set_tiles(&mut self, tiles: Vec<Option<Tile>>) {
        self.lines = Lines::new(&self.board, &tiles);
        self.tiled = (0..tiles.len() as u16)
            .filter(|&s| tiles[s as usize].is_some())
            .collect();
        self.tiles = tiles;
    }

    /// Puts `tile` on `segment` (or takes its tile off, with `None`),
    /// keeping the lines in step.
    pub(crate) fn set_tile(&mut self, segment: u16, tile: Option<Tile>) {
        self.tiles[segment as usize] = tile;
        self.lines.retile(&self.board, &self.tiles, segment);
        match (self.tiled.binary_search(&segment), tile) {
            (Err(at), Some(_)) => self.tiled.insert(at, segment),
            (Ok(at), None) => {
                self.tiled.remove(at);
            }
            _ => {}
        }
    }

    /// Puts `unit` on `point` (or empties it, with `None`), keeping the
    /// occupied points in step.
    #[inline]
    pub(crate) fn put(&mut self, point: u8, unit: Option<Unit>) {
        if let Some(old) = self.units[point as usize] {
            self.occupied[old.side.index()].remove(point);
        }
        if let Some(new) = unit {
            self.occupied[new.side.index()].insert(point);
        }
        self.units[point as usize] = unit;
    }

    /// Moves the unit on `from` to the empty point `to`.
    #[inline]
    pub(crate) fn move_unit(&mut self, from: u8, to: u8) {
        let unit = self.units[from as usize];
        self.put(from, None);
        self.put(to, unit);
    }

    /// Puts `units` (one per point) on the board.
    pub(crate) fn set_units(&mut self, units: Vec<Option<Unit>>) {
        self.occupied = [PointSet::default(); 2];
        for (p, u) in units.iter().enumerate() {
            if let Some(u) = u {
                self.occupied[u.side.index()].insert(p as u8);
            }
        }
        self.units = units;
    }

    /// Whether `occupied` holds exactly the points of each side's units:
    /// checked after every move in debug builds, which the tests run.
    pub(crate) fn occupied_in_step(&self) -> bool {
        Side::BOTH.iter().all(|&side| {
            let held = |&p: &u8| self.units[p as usize].is_some_and(|u| u.side == side);
            self.occupied[side.index()]
                .iter()
                .eq((0..self.units.len() as u8).filter(held))
        })
    }

    /// How many units `side` has on the board.
    pub fn unit_count(&self, side: Side) -> usize {
        self.occupied[side.index()].len()
    }

    /// How many units of `kind` `side` has on the board.
    pub fn count_of(&self, side: Side, kind: UnitKind) -> u8 {
        self.occupied[side.index()]
            .iter()
            .filter(|&p| self.units[p as usize].is_some_and(|u| u.kind == kind))
            .count() as u8
    }

    /// During setup: the start number (1-based) the side to move fills next.
    pub fn next_start(&self) -> Option<usize> {
        if self.phase != Phase::Setup {
            return None;
        }
        let side = self.to_move;
        (1..=24).find(|&n| self.units[self.board.start_point(side, n) as usize].is_none())
    }

    /// The position's identity for repetition (W11): units, tiles, hands,
    /// seized cannons and side to move, hashed with FNV-1a (stable across
    /// platforms and versions, unlike the std hasher) over one byte per
    /// point, one per segment, the hands, `0xff`, the seized points, `0xfe`
    /// and the side to move.
    pub fn key(&self) -> u64 {
        let mut h = FNV_OFFSET;
        for u in &self.units {
            h = fnv(h, unit_byte(u));
        }
        // A segment without a tile is a 0 byte, which FNV-1a only multiplies
        // in: a run of `n` of them is one multiplication by PRIME^n. Most
        // segments hold no tile, so the key eats the tiled ones alone and
        // gives the same number as eating every byte (position texts carry it).
        let mut next = 0;
        for &s in &self.tiled {
            h = h.wrapping_mul(prime_power(usize::from(s - next)));
            let tile = self.tiles[s as usize].expect("a tiled segment holds a tile");
            h = fnv(h, tile_byte(tile));
            next = s + 1;
        }
        h = h.wrapping_mul(prime_power(self.tiles.len() - usize::from(next)));
        for side in self.hand {
            for n in side {
                h = fnv(h, n);
            }
        }
        h = fnv(h, 0xff);
        for &p in &self.seized {
            h = fnv(h, p);
        }
        h = fnv(h, 0xfe);
        fnv(h, self.to_move.index() as u8)
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

/// `FNV_PRIME^n` for `n` below 256, the multiplier of a run of `n` segments
/// without a tile in [`Position::key`]: looked up, since raising to the power
/// takes a dozen multiplications per run.
const PRIME_POWERS: [u64; 256] = {
    let mut powers = [1u64; 256];
    let mut n = 1;
    while n < 256 {
        powers[n] = powers[n - 1].wrapping_mul(FNV_PRIME);
        n += 1;
    }
    powers
};

/// `FNV_PRIME^n`.
#[inline]
fn prime_power(n: usize) -> u64 {
    match PRIME_POWERS.get(n) {
        Some(&p) => p,
        None => FNV_PRIME.wrapping_pow(n as u32),
    }
}

/// A point's byte in [`Position::key`]: 0 when empty.
#[inline]
fn unit_byte(unit: &Option<Unit>) -> u8 {
    match unit {
        None => 0,
        Some(u) => 1 + u.side.index() as u8 * 3 + u.kind as u8,
    }
}

/// The byte in [`Position::key`] of a segment that holds `tile` (0 without
/// one).
#[inline]
fn tile_byte(tile: Tile) -> u8 {
    1 + tile.owner.index() as u8 * 2 + tile.kind.index() as u8
}

/// One FNV-1a step: `h` with byte `b` eaten.
#[inline]
fn fnv(h: u64, b: u8) -> u64 {
    (h ^ u64::from(b)).wrapping_mul(FNV_PRIME)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key by its definition: every byte eaten in turn. The fast key
    /// must give the same numbers, which position texts carry.
    fn byte_by_byte_key(pos: &Position) -> u64 {
        let mut bytes: Vec<u8> = pos.units.iter().map(unit_byte).collect();
        bytes.extend(pos.tiles.iter().map(|t| t.map_or(0, tile_byte)));
        bytes.extend(pos.hand.iter().flatten());
        bytes.push(0xff);
        bytes.extend(&pos.seized);
        bytes.push(0xfe);
        bytes.push(pos.to_move.index() as u8);
        bytes.into_iter().fold(FNV_OFFSET, fnv)
    }

    /// Tiles on the first and last segments, in runs and alone, put on and
    /// taken off again, with units, hands and seized cannons around them.
    #[test]
    fn key_matches_the_byte_by_byte_key() {
        let board = Arc::new(Board::default_board());
        let mut pos = Position::new(Arc::clone(&board), 3, 400);
        assert_eq!(pos.key(), byte_by_byte_key(&pos));
        let last = board.segments().len() as u16 - 1;
        pos.put(
            5,
            Some(Unit {
                side: Side::North,
                kind: UnitKind::Cannon,
            }),
        );
        pos.put(
            70,
            Some(Unit {
                side: Side::South,
                kind: UnitKind::Cavalry,
            }),
        );
        // Units on the first and last points, and a run of them.
        for (p, side) in [(0, Side::South), (1, Side::North), (75, Side::North)] {
            pos.put(
                p,
                Some(Unit {
                    side,
                    kind: UnitKind::Infantry,
                }),
            );
            assert_eq!(pos.key(), byte_by_byte_key(&pos), "{p}");
        }
        pos.seized = vec![5];
        pos.hand = [[0, 2], [1, 1]];
        pos.to_move = Side::North;
        for (i, &s) in [0, 1, 2, 40, 41, 100, last - 1, last].iter().enumerate() {
            pos.set_tile(
                s,
                Some(Tile {
                    kind: TileKind::ALL[i % 2],
                    owner: Side::BOTH[i / 3 % 2],
                }),
            );
            assert_eq!(pos.key(), byte_by_byte_key(&pos), "{s}");
        }
        assert_eq!(pos.tiled, [0, 1, 2, 40, 41, 100, last - 1, last]);
        for s in [last, 1, 0, 100] {
            pos.set_tile(s, None);
            assert_eq!(pos.key(), byte_by_byte_key(&pos), "{s}");
        }
        assert_eq!(pos.tiled, [2, 40, 41, last - 1]);
        let tiles = pos.tiles.clone();
        pos.set_tiles(tiles);
        assert_eq!(pos.tiled, [2, 40, 41, last - 1]);
        assert_eq!(pos.key(), byte_by_byte_key(&pos));
    }
}
