//! A game state: units, tiles, hands, seized cannons, whose turn, and the end.

use std::sync::{Arc, OnceLock};

use tabletop_sdk::ActionId;

use crate::board::{Board, SegmentKind};
use crate::lines::{Lines, current_kind};
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
    pub(crate) units: Vec<Option<Unit>>,
    pub(crate) tiles: Vec<Option<Tile>>,
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
/// this the move generation, War's heaviest work, ran twice a ply (once for
/// the list, once to check the action). Not part of what a position is: two
/// positions are equal whether or not either has computed it.
#[derive(Clone, Default)]
pub(crate) struct LegalIds(OnceLock<Vec<ActionId>>);

impl LegalIds {
    pub(crate) fn computed(ids: Vec<ActionId>) -> LegalIds {
        LegalIds(OnceLock::from(ids))
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
            board,
            units: vec![None; points],
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
        self.tiles = tiles;
    }

    /// Puts `tile` on `segment` (or takes its tile off, with `None`),
    /// keeping the lines in step.
    pub(crate) fn set_tile(&mut self, segment: u16, tile: Option<Tile>) {
        self.tiles[segment as usize] = tile;
        self.lines.retile(&self.board, &self.tiles, segment);
    }

    /// How many units `side` has on the board.
    pub fn unit_count(&self, side: Side) -> usize {
        self.units
            .iter()
            .flatten()
            .filter(|u| u.side == side)
            .count()
    }

    /// How many units of `kind` `side` has on the board.
    pub fn count_of(&self, side: Side, kind: UnitKind) -> u8 {
        self.units
            .iter()
            .flatten()
            .filter(|u| u.side == side && u.kind == kind)
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
    /// platforms and versions, unlike the std hasher).
    pub fn key(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |b: u8| {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        };
        for u in &self.units {
            eat(match u {
                None => 0,
                Some(u) => 1 + u.side.index() as u8 * 3 + u.kind as u8,
            });
        }
        for t in &self.tiles {
            eat(match t {
                None => 0,
                Some(t) => 1 + t.owner.index() as u8 * 2 + t.kind.index() as u8,
            });
        }
        for side in self.hand {
            for n in side {
                eat(n);
            }
        }
        eat(0xff);
        for &p in &self.seized {
            eat(p);
        }
        eat(0xfe);
        eat(self.to_move.index() as u8);
        h
    }
}
