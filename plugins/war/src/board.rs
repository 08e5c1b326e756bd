//! Boards as data (ruling W1): the document format, its validation, and the
//! precomputed adjacency the move generator walks.
//!
//! A board document is line based; `#` starts a comment, blank lines are
//! ignored, and every other line is one directive:
//!
//! ```text
//! name default                 the board's name (optional, once)
//! point d4 3 4                 a point: id (also its label in notation), x, y
//! segment d4 d5 black          a segment between two adjacent points: black | red | rail
//! start 17 d3                  start point 1-24 (South) or I-XXIV (North)
//! fortress I e12               fortress point 1-3 (South) or I-III (North)
//! ```
//!
//! Coordinates are integers: x grows toward later files (East), y toward
//! higher ranks (North). A segment may only join two points one king step
//! apart, so every segment has one of the eight compass directions; that is
//! what makes "the straight continuation" of rulings W5 and W7 well defined on
//! any board. Two coordinate-adjacent points without a segment form a gap.

mod document;

use std::fmt;

use crate::point_set::PointSet;
use crate::side::Side;

/// The shipped default board of ruling W2, as a board document.
pub const DEFAULT_BOARD: &str = include_str!("../boards/default.board");

/// Names of the boards shipped inside the plugin, with their documents.
pub const SHIPPED_BOARDS: &[(&str, &str)] = &[("default", DEFAULT_BOARD)];

/// Most points a board may have: point indices are stored in a byte.
pub const MAX_POINTS: usize = 250;

/// The eight compass directions, in the order of their index.
pub const DIRECTIONS: [Direction; 8] = [
    Direction::N,
    Direction::NE,
    Direction::E,
    Direction::SE,
    Direction::S,
    Direction::SW,
    Direction::W,
    Direction::NW,
];

/// A compass direction; N is toward higher ranks, E toward later files (W12).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Direction {
    /// Toward higher ranks.
    N,
    /// North-east.
    NE,
    /// Toward later files.
    E,
    /// South-east.
    SE,
    /// Toward lower ranks.
    S,
    /// South-west.
    SW,
    /// Toward earlier files.
    W,
    /// North-west.
    NW,
}

impl Direction {
    /// The index of the direction in [`DIRECTIONS`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The coordinate step `(dx, dy)`.
    pub fn delta(self) -> (i32, i32) {
        match self {
            Direction::N => (0, 1),
            Direction::NE => (1, 1),
            Direction::E => (1, 0),
            Direction::SE => (1, -1),
            Direction::S => (0, -1),
            Direction::SW => (-1, -1),
            Direction::W => (-1, 0),
            Direction::NW => (-1, 1),
        }
    }

    /// The direction of a king step `(dx, dy)`, if it is one.
    pub fn from_delta(dx: i32, dy: i32) -> Option<Direction> {
        DIRECTIONS.iter().copied().find(|d| d.delta() == (dx, dy))
    }

    /// The notation of the direction (`N`, `NE`, …).
    pub fn name(self) -> &'static str {
        match self {
            Direction::N => "N",
            Direction::NE => "NE",
            Direction::E => "E",
            Direction::SE => "SE",
            Direction::S => "S",
            Direction::SW => "SW",
            Direction::W => "W",
            Direction::NW => "NW",
        }
    }

    /// Reads a direction name.
    pub fn parse(text: &str) -> Option<Direction> {
        DIRECTIONS.iter().copied().find(|d| d.name() == text)
    }
}

/// What a segment is printed as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SegmentKind {
    /// Carries movement and captures.
    Black,
    /// Carries captures only.
    Red,
    /// A railway: carries ordinary steps, rail moves and captures.
    Rail,
}

impl SegmentKind {
    /// The word used in board documents and views.
    pub fn name(self) -> &'static str {
        match self {
            SegmentKind::Black => "black",
            SegmentKind::Red => "red",
            SegmentKind::Rail => "rail",
        }
    }

    fn parse(text: &str) -> Option<SegmentKind> {
        match text {
            "black" => Some(SegmentKind::Black),
            "red" => Some(SegmentKind::Red),
            "rail" => Some(SegmentKind::Rail),
            _ => None,
        }
    }
}

/// One point of a board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Point {
    /// The id, which is also the label used in notation (`d4`).
    pub id: String,
    /// Column coordinate, growing eastward.
    pub x: i32,
    /// Row coordinate, growing northward.
    pub y: i32,
}

/// One segment: two adjacent points (ordered by rank, then file) and a kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    /// The lower end point (by rank, then file).
    pub a: u8,
    /// The higher end point.
    pub b: u8,
    /// The printed kind.
    pub kind: SegmentKind,
}

/// Why a board document was refused, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardError {
    /// The 1-based line of the document, when the problem sits on one line.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl BoardError {
    fn at(line: usize, message: impl Into<String>) -> BoardError {
        BoardError {
            line: Some(line),
            message: message.into(),
        }
    }

    fn whole(message: impl Into<String>) -> BoardError {
        BoardError {
            line: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for BoardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoardError {
                line: Some(l),
                message,
            } => write!(f, "board line {l}: {message}"),
            BoardError {
                line: None,
                message,
            } => write!(f, "board: {message}"),
        }
    }
}

impl std::error::Error for BoardError {}

/// A validated board with its adjacency precomputed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Board {
    name: String,
    points: Vec<Point>,
    segments: Vec<Segment>,
    /// `start[side][n - 1]`: the point of start number `n`.
    start: [Vec<u8>; 2],
    /// `fortress[side][n - 1]`.
    fortress: [[u8; 3]; 2],
    /// Per point and direction: the neighbour there and the joining segment.
    links: Vec<[Option<(u8, u16)>; 8]>,
    /// `links` without the segments, 0 where there is none: what the move
    /// generator steps along (kept here, shared by every match on the board,
    /// rather than in each position's lines).
    neighbours: Vec<[u8; 8]>,
    /// Per point, every point a segment joins it to: a unit with no enemy
    /// among these has no jump (W6), whatever the tiles.
    adjacent: Vec<PointSet>,
}

/// Roman numerals 1–24, the North start numbers.
pub const ROMAN: [&str; 24] = [
    "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "XIII", "XIV", "XV",
    "XVI", "XVII", "XVIII", "XIX", "XX", "XXI", "XXII", "XXIII", "XXIV",
];

/// Reads a start number: `1`–`24` is South's, `I`–`XXIV` North's.
pub fn parse_start_number(text: &str) -> Option<(Side, usize)> {
    if let Some(i) = ROMAN.iter().position(|r| *r == text) {
        return Some((Side::North, i + 1));
    }
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) || text.starts_with('0') {
        return None;
    }
    match text.parse::<usize>() {
        Ok(n) if (1..=24).contains(&n) => Some((Side::South, n)),
        _ => None,
    }
}

/// Writes start number `n` of `side`.
pub fn start_number_name(side: Side, n: usize) -> String {
    match side {
        Side::South => n.to_string(),
        Side::North => ROMAN[n - 1].to_string(),
    }
}

impl Board {
    /// A shipped board by name.
    pub fn shipped(name: &str) -> Option<Board> {
        SHIPPED_BOARDS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, doc)| Board::parse(doc).expect("shipped boards are valid"))
    }

    /// The default board of ruling W2.
    pub fn default_board() -> Board {
        Board::parse(DEFAULT_BOARD).expect("the default board is valid")
    }

    /// Parses and validates a board document (ruling W1).
    pub fn parse(text: &str) -> Result<Board, BoardError> {
        let document::Parts {
            name,
            points,
            segments,
            links,
            start,
            fortress,
        } = document::read(text)?;
        let neighbours: Vec<[u8; 8]> = links
            .iter()
            .map(|dirs| dirs.map(|link| link.map_or(0, |(to, _)| to)))
            .collect();
        let adjacent = links
            .iter()
            .map(|dirs| dirs.iter().flatten().map(|&(to, _)| to).collect())
            .collect();
        Ok(Board {
            name: name.unwrap_or_else(|| "custom".to_string()),
            points,
            segments,
            start,
            fortress,
            links,
            neighbours,
            adjacent,
        })
    }

    /// The canonical document of this board: what positions and records carry.
    pub fn to_document(&self) -> String {
        let mut out = format!("name {}\n", self.name);
        for p in &self.points {
            out.push_str(&format!("point {} {} {}\n", p.id, p.x, p.y));
        }
        for s in &self.segments {
            out.push_str(&format!(
                "segment {} {} {}\n",
                self.points[s.a as usize].id,
                self.points[s.b as usize].id,
                s.kind.name()
            ));
        }
        for side in Side::BOTH {
            for (i, p) in self.start[side.index()].iter().enumerate() {
                out.push_str(&format!(
                    "start {} {}\n",
                    start_number_name(side, i + 1),
                    self.points[*p as usize].id
                ));
            }
        }
        for side in Side::BOTH {
            for (i, p) in self.fortress[side.index()].iter().enumerate() {
                out.push_str(&format!(
                    "fortress {} {}\n",
                    start_number_name(side, i + 1),
                    self.points[*p as usize].id
                ));
            }
        }
        out
    }

    /// The board's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Every point, indexed by point number.
    pub fn points(&self) -> &[Point] {
        &self.points
    }

    /// Every segment, indexed by segment number.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// The point of start number `n` (1-based) of `side`.
    pub fn start_point(&self, side: Side, n: usize) -> u8 {
        self.start[side.index()][n - 1]
    }

    /// The start points of `side`, in number order.
    pub fn start_points(&self, side: Side) -> &[u8] {
        &self.start[side.index()]
    }

    /// The three fortress points of `side` (its own, which the enemy must occupy).
    pub fn fortress(&self, side: Side) -> [u8; 3] {
        self.fortress[side.index()]
    }

    /// The neighbour of `point` in `dir` and the segment joining them, if any.
    #[inline]
    pub fn link(&self, point: u8, dir: usize) -> Option<(u8, u16)> {
        self.links[point as usize][dir]
    }

    /// The neighbours of `point` by direction, each meaningful only in a
    /// direction with a segment (see [`Board::link`]; 0 in the others).
    #[inline]
    pub(crate) fn neighbours(&self, point: u8) -> &[u8; 8] {
        &self.neighbours[point as usize]
    }

    /// The points a segment joins to `point`.
    #[inline]
    pub(crate) fn adjacent(&self, point: u8) -> &PointSet {
        &self.adjacent[point as usize]
    }

    /// A point by its id.
    pub fn point_by_id(&self, id: &str) -> Option<u8> {
        self.points.iter().position(|p| p.id == id).map(|i| i as u8)
    }

    /// The point at coordinates `(x, y)`, if any: a scan, for the rare
    /// callers (explanations of refusals) that ask about a spot with no
    /// segment to it.
    pub fn point_at(&self, x: i32, y: i32) -> Option<u8> {
        self.points
            .iter()
            .position(|p| (p.x, p.y) == (x, y))
            .map(|i| i as u8)
    }

    /// The segment joining two points, if any.
    pub fn segment_between(&self, a: u8, b: u8) -> Option<u16> {
        let (p, q) = (self.points.get(a as usize)?, self.points.get(b as usize)?);
        let dir = Direction::from_delta(q.x - p.x, q.y - p.y)?;
        self.link(a, dir.index()).map(|(_, s)| s)
    }

    /// The label of a point.
    pub fn label(&self, point: u8) -> &str {
        &self.points[point as usize].id
    }

    /// The number of points.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Whether the board has no points (never true for a validated board).
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_board_matches_ruling_w2_counts() {
        let b = Board::default_board();
        assert_eq!(b.len(), 76);
        let red = b
            .segments()
            .iter()
            .filter(|s| s.kind == SegmentKind::Red)
            .count();
        let rail = b
            .segments()
            .iter()
            .filter(|s| s.kind == SegmentKind::Rail)
            .count();
        // Ranks 5–8 have 6 red segments each; two railways of 7 segments.
        assert_eq!(red, 24);
        assert_eq!(rail, 14);
    }

    #[test]
    fn canonical_document_reparses_to_the_same_board() {
        let b = Board::default_board();
        let again = Board::parse(&b.to_document()).unwrap();
        assert_eq!(b, again);
        assert_eq!(again.to_document(), b.to_document());
    }

    /// The move generator's neighbours are the links' points, and 0 where a
    /// point has no segment.
    #[test]
    fn neighbours_are_the_links_points() {
        let b = Board::default_board();
        let mut linked = 0;
        for p in 0..b.len() as u8 {
            for dir in 0..8 {
                let expected = b.link(p, dir).map_or(0, |(q, _)| q);
                assert_eq!(b.neighbours(p)[dir], expected, "{p} {dir}");
                linked += usize::from(b.link(p, dir).is_some());
            }
        }
        // Every segment is a link from each of its two ends.
        assert_eq!(linked, 2 * b.segments().len());
    }

    /// The adjacent points are the links' points.
    #[test]
    fn adjacent_are_the_links_points() {
        let b = Board::default_board();
        for p in 0..b.len() as u8 {
            let mut linked: Vec<u8> = (0..8)
                .filter_map(|d| b.link(p, d).map(|(q, _)| q))
                .collect();
            linked.sort_unstable();
            assert_eq!(b.adjacent(p).iter().collect::<Vec<_>>(), linked, "{p}");
        }
    }
}
