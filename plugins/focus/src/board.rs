//! The board geometry (ruling F1): an 8×8 grid without three squares in each
//! corner, 52 squares, and the straight lines pieces move along.

use std::fmt;

/// One of the 52 squares, stored as `rank * 8 + file` (a1 = 0, h8 = 63).
///
/// Only squares that exist on the Focus board can be constructed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(u8);

/// The four directions a tower moves in (ruling F5: orthogonal only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Direction {
    /// Towards rank 8.
    North = 0,
    /// Towards file h.
    East = 1,
    /// Towards rank 1.
    South = 2,
    /// Towards file a.
    West = 3,
}

impl Direction {
    /// All four, in the order action ids use.
    pub const ALL: [Direction; 4] = [
        Direction::North,
        Direction::East,
        Direction::South,
        Direction::West,
    ];

    /// `(file, rank)` step of one square.
    pub const fn delta(self) -> (i32, i32) {
        match self {
            Direction::North => (0, 1),
            Direction::East => (1, 0),
            Direction::South => (0, -1),
            Direction::West => (-1, 0),
        }
    }

    /// The direction with index `i` (`0..4`).
    pub fn from_index(i: usize) -> Option<Direction> {
        Direction::ALL.get(i).copied()
    }
}

/// Whether `(file, rank)` (0-based, possibly outside the grid) is a square.
///
/// Ruling F1: rows of 4, 6, 8, 8, 8, 8, 6, 4 squares. A square is missing
/// exactly when its distance to the nearest corner edge pair is below 2,
/// which removes a1, b1, a2 and their mirror images.
pub const fn exists(file: i32, rank: i32) -> bool {
    if file < 0 || file > 7 || rank < 0 || rank > 7 {
        return false;
    }
    let df = if file < 7 - file { file } else { 7 - file };
    let dr = if rank < 7 - rank { rank } else { 7 - rank };
    df + dr >= 2
}

const NONE: u8 = u8::MAX;

/// `DEST[square][direction][k - 1]`: where a tower moving `k` squares lands,
/// or `NONE` if that is off the board. Precomputed because it sits on the
/// move-generation hot path.
static DEST: [[[u8; 5]; 4]; 64] = {
    let mut table = [[[NONE; 5]; 4]; 64];
    let mut s = 0;
    while s < 64 {
        let file = (s % 8) as i32;
        let rank = (s / 8) as i32;
        if exists(file, rank) {
            let mut d = 0;
            while d < 4 {
                let (df, dr) = match d {
                    0 => (0, 1),
                    1 => (1, 0),
                    2 => (0, -1),
                    _ => (-1, 0),
                };
                let mut k = 1;
                while k <= 5 {
                    let f = file + df * k;
                    let r = rank + dr * k;
                    if exists(f, r) {
                        table[s][d][(k - 1) as usize] = (r * 8 + f) as u8;
                    }
                    k += 1;
                }
                d += 1;
            }
        }
        s += 1;
    }
    table
};

impl Square {
    /// Number of squares on the board.
    pub const COUNT: usize = 52;

    /// Every square, in ascending index order (rank 1 first, a to h).
    pub fn all() -> impl Iterator<Item = Square> {
        (0..64u8).filter_map(Square::from_index)
    }

    /// The square at `file` (0 = a) and `rank` (0 = rank 1), if it exists.
    pub fn new(file: u8, rank: u8) -> Option<Square> {
        if exists(i32::from(file), i32::from(rank)) {
            Some(Square(rank * 8 + file))
        } else {
            None
        }
    }

    /// The square with index `rank * 8 + file`, if it exists.
    pub fn from_index(index: u8) -> Option<Square> {
        if index < 64 {
            Square::new(index % 8, index / 8)
        } else {
            None
        }
    }

    /// `rank * 8 + file`.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// 0 = file a.
    pub fn file(self) -> u8 {
        self.0 % 8
    }

    /// 0 = rank 1.
    pub fn rank(self) -> u8 {
        self.0 / 8
    }

    /// Where a tower lands moving `k` squares in `direction` (F5), if that
    /// square exists; what lies in between never matters.
    pub fn offset(self, direction: Direction, k: usize) -> Option<Square> {
        if !(1..=5).contains(&k) {
            return None;
        }
        let to = DEST[self.index()][direction as usize][k - 1];
        (to != NONE).then_some(Square(to))
    }

    /// The image under a half turn of the board (ruling F9's symmetry).
    /// The board is symmetric under it, so the image always exists.
    pub fn rotate_half(self) -> Square {
        Square(63 - self.0)
    }

    /// The direction and distance from `self` to `to`, if they share a
    /// file or rank and are 1 to 5 squares apart.
    pub fn line_to(self, to: Square) -> Option<(Direction, usize)> {
        let df = i32::from(to.file()) - i32::from(self.file());
        let dr = i32::from(to.rank()) - i32::from(self.rank());
        let (direction, distance) = match (df, dr) {
            (0, d) if d > 0 => (Direction::North, d),
            (0, d) if d < 0 => (Direction::South, -d),
            (d, 0) if d > 0 => (Direction::East, d),
            (d, 0) if d < 0 => (Direction::West, -d),
            _ => return None,
        };
        let distance = usize::try_from(distance).ok()?;
        (distance <= 5).then_some((direction, distance))
    }

    /// The square's name, `c3`, as its two characters.
    pub fn name_chars(self) -> [char; 2] {
        [
            char::from(b'a' + self.file()),
            char::from(b'1' + self.rank()),
        ]
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [file, rank] = self.name_chars();
        write!(f, "{file}{rank}")
    }
}

impl std::str::FromStr for Square {
    type Err = ();

    /// Reads `c3`; files a–h, ranks 1–8, lowercase or uppercase.
    fn from_str(text: &str) -> Result<Square, ()> {
        let bytes = text.as_bytes();
        if bytes.len() != 2 {
            return Err(());
        }
        let file = bytes[0].to_ascii_lowercase().wrapping_sub(b'a');
        let rank = bytes[1].wrapping_sub(b'1');
        if file > 7 || rank > 7 {
            return Err(());
        }
        Square::new(file, rank).ok_or(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_has_the_ruling_f1_shape() {
        assert_eq!(Square::all().count(), Square::COUNT);
        let per_rank: Vec<usize> = (0..8)
            .map(|r| Square::all().filter(|s| s.rank() == r).count())
            .collect();
        assert_eq!(per_rank, [4, 6, 8, 8, 8, 8, 6, 4]);
        assert!("a1".parse::<Square>().is_err());
        assert!("b1".parse::<Square>().is_err());
        assert!("a2".parse::<Square>().is_err());
        assert!("c1".parse::<Square>().is_ok());
        assert!("h8".parse::<Square>().is_err());
        assert!("i4".parse::<Square>().is_err());
        assert!("a9".parse::<Square>().is_err());
    }

    #[test]
    fn offsets_stay_on_the_board() {
        let c1: Square = "c1".parse().unwrap();
        assert_eq!(c1.offset(Direction::West, 1), None);
        assert_eq!(c1.offset(Direction::North, 5).unwrap().to_string(), "c6");
        assert_eq!(c1.offset(Direction::East, 3).unwrap().to_string(), "f1");
        assert_eq!(c1.offset(Direction::East, 4), None);
        assert_eq!(c1.offset(Direction::North, 6), None);
        assert_eq!(c1.offset(Direction::North, 0), None);
    }

    #[test]
    fn half_turn_maps_the_board_onto_itself() {
        for s in Square::all() {
            let r = s.rotate_half();
            assert_eq!(r.file(), 7 - s.file());
            assert_eq!(r.rank(), 7 - s.rank());
            assert_eq!(r.rotate_half(), s);
        }
    }

    #[test]
    fn lines_between_squares() {
        let c3: Square = "c3".parse().unwrap();
        let e3: Square = "e3".parse().unwrap();
        assert_eq!(c3.line_to(e3), Some((Direction::East, 2)));
        assert_eq!(e3.line_to(c3), Some((Direction::West, 2)));
        assert_eq!(c3.line_to(c3), None);
        assert_eq!(c3.line_to("d4".parse().unwrap()), None);
        assert_eq!(
            c3.line_to("h3".parse().unwrap()),
            Some((Direction::East, 5))
        );
    }
}
