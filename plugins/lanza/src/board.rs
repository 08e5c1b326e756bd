//! The three hex boards (ruling L2), their start fields (ruling L3), the six
//! directions (ruling L1) and the bounce (ruling L6).
//!
//! Fields are numbered column by column (q ascending), north to south within a
//! column (r ascending). That numbering is also the field notation: column
//! letter `a`, `b`, … and the 1-based place in the column counted from the
//! north, so `a1` is the northmost field of the westmost column.

use std::fmt;
use std::sync::OnceLock;

/// A direction card 1–6 (ruling L1): 1 = N, 2 = NE, 3 = SE, 4 = S, 5 = SW, 6 = NW.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dir(u8);

impl Dir {
    /// All six cards in ascending order.
    pub const ALL: [Dir; 6] = [Dir(1), Dir(2), Dir(3), Dir(4), Dir(5), Dir(6)];

    /// The card `card` (1–6), or `None` for any other number.
    pub fn new(card: u8) -> Option<Dir> {
        (1..=6).contains(&card).then_some(Dir(card))
    }

    /// The card's number, 1–6.
    pub fn card(self) -> u8 {
        self.0
    }

    /// The card's number as its digit, `'1'`–`'6'`.
    pub fn digit(self) -> char {
        char::from(b'0' + self.0)
    }

    /// The opposite direction: ((d + 2) mod 6) + 1 (ruling L1).
    pub fn opposite(self) -> Dir {
        Dir((self.0 + 2) % 6 + 1)
    }

    /// The axial step (dq, dr) of this direction (ruling L1).
    pub fn delta(self) -> (i8, i8) {
        match self.0 {
            1 => (0, -1),
            2 => (1, -1),
            3 => (1, 0),
            4 => (0, 1),
            5 => (-1, 1),
            _ => (-1, 0),
        }
    }

    /// The compass name (`N`, `NE`, …).
    pub fn compass(self) -> &'static str {
        ["N", "NE", "SE", "S", "SW", "NW"][usize::from(self.0 - 1)]
    }
}

impl fmt::Display for Dir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Write::write_char(f, self.digit())
    }
}

/// A field of a board, by its index in the board's field list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Field(pub(crate) u8);

impl Field {
    /// The field's index on its board (`0..board.len()`).
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// Which of the three boards (ruling L2); it follows from the number of players.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoardKind {
    /// 2 players: hexagon of radius 2, 19 fields.
    Hex19,
    /// 3 players: the 4,3,4,3,4,3-sided hexagon, 27 fields.
    Hex27,
    /// 4 players: hexagon of radius 3, 37 fields.
    Hex37,
}

impl BoardKind {
    /// The board for `players` players (ruling L2), or `None` outside 2–4.
    pub fn for_players(players: u32) -> Option<BoardKind> {
        match players {
            2 => Some(BoardKind::Hex19),
            3 => Some(BoardKind::Hex27),
            4 => Some(BoardKind::Hex37),
            _ => None,
        }
    }

    /// The board's geometry (built once per process).
    pub fn board(self) -> &'static Board {
        static BOARDS: [OnceLock<Board>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
        let slot = match self {
            BoardKind::Hex19 => 0,
            BoardKind::Hex27 => 1,
            BoardKind::Hex37 => 2,
        };
        BOARDS[slot].get_or_init(|| Board::build(self))
    }

    fn contains(self, q: i8, r: i8) -> bool {
        let s = -q - r;
        match self {
            BoardKind::Hex19 => q.abs() <= 2 && r.abs() <= 2 && s.abs() <= 2,
            BoardKind::Hex37 => q.abs() <= 3 && r.abs() <= 3 && s.abs() <= 3,
            BoardKind::Hex27 => {
                (-4..=1).contains(&q) && (-2..=3).contains(&r) && (-1..=4).contains(&s)
            }
        }
    }

    fn start_coords(self) -> &'static [(i8, i8)] {
        const MIDDLES: [(i8, i8); 6] = [(1, -2), (2, -1), (1, 1), (-1, 2), (-2, 1), (-1, -1)];
        match self {
            // Ruling L3: the middle field of each side.
            BoardKind::Hex19 => &MIDDLES,
            // Ruling L3: the columns read as the text's rows.
            BoardKind::Hex27 => &[
                (-4, 0),
                (-4, 3),
                (-3, 1),
                (-2, -1),
                (-2, 2),
                (-1, 0),
                (0, -2),
                (0, 1),
                (1, -1),
            ],
            // Ruling L3: the six corners plus the 19-board's six.
            BoardKind::Hex37 => &[
                (0, -3),
                (3, -3),
                (3, 0),
                (0, 3),
                (-3, 3),
                (-3, 0),
                (1, -2),
                (2, -1),
                (1, 1),
                (-1, 2),
                (-2, 1),
                (-1, -1),
            ],
        }
    }
}

/// One column of a board (constant q).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// The column's q.
    pub q: i8,
    /// The index of its northmost field.
    pub first: u8,
    /// How many fields it holds.
    pub len: u8,
}

/// A board's geometry, precomputed: coordinates, steps with the bounce,
/// edge fields and start fields.
#[derive(Debug)]
pub struct Board {
    kind: BoardKind,
    coords: Vec<(i8, i8)>,
    columns: Vec<Column>,
    /// `steps[i][card-1]`: the target of a piece on field i playing that card (L6).
    steps: Vec<[Field; 6]>,
    /// `bounced[i][card-1]`: whether that step bounced (L6).
    bounced: Vec<[bool; 6]>,
    edge: Vec<bool>,
    start: Vec<Field>,
    /// `names[i]`: field i's notation, made once so views borrow it.
    names: Vec<String>,
}

impl Board {
    fn build(kind: BoardKind) -> Board {
        let mut coords = Vec::new();
        let mut columns = Vec::new();
        let mut column_of = Vec::new();
        for q in -4i8..=4 {
            let first = coords.len() as u8;
            for r in -4i8..=4 {
                if kind.contains(q, r) {
                    column_of.push(columns.len() as u8);
                    coords.push((q, r));
                }
            }
            let len = coords.len() as u8 - first;
            if len > 0 {
                columns.push(Column { q, first, len });
            }
        }
        let find = |q: i8, r: i8| coords.iter().position(|&c| c == (q, r));
        let mut steps = Vec::new();
        let mut bounced = Vec::new();
        let mut edge = Vec::new();
        for &(q, r) in &coords {
            let mut row = [Field(0); 6];
            let mut bounce_row = [false; 6];
            let mut neighbours = 0;
            for d in Dir::ALL {
                let (dq, dr) = d.delta();
                let i = usize::from(d.card() - 1);
                if let Some(j) = find(q + dq, r + dr) {
                    neighbours += 1;
                    row[i] = Field(j as u8);
                } else {
                    // Ruling L6: the opposite step is on the board on all three
                    // boards (checked by a unit test below).
                    let (oq, or) = d.opposite().delta();
                    let j = find(q + oq, r + or).unwrap_or(0);
                    row[i] = Field(j as u8);
                    bounce_row[i] = true;
                }
            }
            steps.push(row);
            bounced.push(bounce_row);
            // Ruling L10: an edge field has fewer than 6 neighbours.
            edge.push(neighbours < 6);
        }
        let start = kind
            .start_coords()
            .iter()
            .filter_map(|&(q, r)| find(q, r).map(|i| Field(i as u8)))
            .collect();
        let names = (0..coords.len())
            .map(|i| {
                let column_index = column_of[i];
                let column = columns[usize::from(column_index)];
                let letter = char::from(b'a' + column_index);
                format!("{letter}{}", i as u8 - column.first + 1)
            })
            .collect();
        Board {
            kind,
            coords,
            columns,
            steps,
            bounced,
            edge,
            start,
            names,
        }
    }

    /// Which board this is.
    pub fn kind(&self) -> BoardKind {
        self.kind
    }

    /// The number of fields (19, 27 or 37).
    pub fn len(&self) -> usize {
        self.coords.len()
    }

    /// Always false: every board has fields.
    pub fn is_empty(&self) -> bool {
        self.coords.is_empty()
    }

    /// Every field, in index order.
    pub fn fields(&self) -> impl Iterator<Item = Field> + '_ {
        (0..self.coords.len()).map(|i| Field(i as u8))
    }

    /// The field with index `index`, if the board has it.
    pub fn field(&self, index: usize) -> Option<Field> {
        (index < self.coords.len()).then_some(Field(index as u8))
    }

    /// The field at axial (q, r), if it is on the board.
    pub fn at(&self, q: i8, r: i8) -> Option<Field> {
        self.coords
            .iter()
            .position(|&c| c == (q, r))
            .map(|i| Field(i as u8))
    }

    /// The axial coordinates (q, r) of `field`.
    pub fn coords(&self, field: Field) -> (i8, i8) {
        self.coords[field.index()]
    }

    /// The board's columns, west to east.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// The target of a piece on `from` playing `card`, after the bounce (ruling L6).
    pub fn target(&self, from: Field, card: Dir) -> Field {
        self.steps[from.index()][usize::from(card.card() - 1)]
    }

    /// Whether playing `card` on `from` bounces off the edge (ruling L6).
    pub fn bounces(&self, from: Field, card: Dir) -> bool {
        self.bounced[from.index()][usize::from(card.card() - 1)]
    }

    /// Whether `field` is an edge field (fewer than 6 neighbours; ruling L10).
    pub fn is_edge(&self, field: Field) -> bool {
        self.edge[field.index()]
    }

    /// The start fields (ruling L3), as many as there are pieces.
    pub fn start_fields(&self) -> &[Field] {
        &self.start
    }

    /// Whether `field` is a start field.
    pub fn is_start(&self, field: Field) -> bool {
        self.start.contains(&field)
    }

    /// The first and last field's names, `a1` and `e3` on the 19-field board,
    /// for messages that say which fields there are.
    pub fn name_range(&self) -> (&str, &str) {
        (&self.names[0], &self.names[self.names.len() - 1])
    }

    /// The field's notation, `a1` … (column letter, place from the north).
    pub fn name(&self, field: Field) -> &str {
        &self.names[field.index()]
    }

    /// Reads a field's notation back (`c3`, or `C3`: the column letter in
    /// either case); `None` if it names no field of this board.
    pub fn parse_field(&self, text: &str) -> Option<Field> {
        let mut chars = text.chars();
        let letter = chars.next()?.to_ascii_lowercase();
        if !letter.is_ascii_lowercase() {
            return None;
        }
        let digits = chars.as_str();
        if digits.is_empty()
            || !digits.bytes().all(|b| b.is_ascii_digit())
            || digits.starts_with('0')
        {
            return None;
        }
        let place: usize = digits.parse().ok()?;
        let column = self.columns.get(usize::from(letter as u8 - b'a'))?;
        if place == 0 || place > usize::from(column.len) {
            return None;
        }
        Some(Field(column.first + (place - 1) as u8))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KINDS: [BoardKind; 3] = [BoardKind::Hex19, BoardKind::Hex27, BoardKind::Hex37];

    fn hex_distance(a: (i8, i8), b: (i8, i8)) -> i8 {
        let dq = a.0 - b.0;
        let dr = a.1 - b.1;
        (dq.abs() + dr.abs() + (dq + dr).abs()) / 2
    }

    #[test]
    fn boards_have_the_sizes_of_ruling_l2() {
        let sizes: Vec<usize> = KINDS.iter().map(|k| k.board().len()).collect();
        assert_eq!(sizes, vec![19, 27, 37]);
        let columns: Vec<u8> = BoardKind::Hex27
            .board()
            .columns()
            .iter()
            .map(|c| c.len)
            .collect();
        assert_eq!(columns, vec![4, 5, 6, 5, 4, 3], "ruling L2 column lengths");
    }

    #[test]
    fn start_fields_match_the_piece_count_ruling_l3() {
        for (kind, players) in KINDS.iter().zip(2..) {
            let board = kind.board();
            assert_eq!(board.start_fields().len(), 3 * players);
            let mut sorted = board.start_fields().to_vec();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), 3 * players, "start fields are distinct");
        }
    }

    #[test]
    fn every_card_reaches_a_real_neighbour_ruling_l6() {
        for kind in KINDS {
            let board = kind.board();
            for field in board.fields() {
                for d in Dir::ALL {
                    let target = board.target(field, d);
                    assert_eq!(
                        hex_distance(board.coords(field), board.coords(target)),
                        1,
                        "{kind:?} {} card {d}",
                        board.name(field)
                    );
                    let (dq, dr) = if board.bounces(field, d) {
                        d.opposite().delta()
                    } else {
                        d.delta()
                    };
                    let (q, r) = board.coords(field);
                    assert_eq!(board.coords(target), (q + dq, r + dr));
                }
            }
        }
    }

    #[test]
    fn corners_have_three_neighbours_and_edges_four() {
        for kind in KINDS {
            let board = kind.board();
            for field in board.fields() {
                let bounces = Dir::ALL
                    .iter()
                    .filter(|&&d| board.bounces(field, d))
                    .count();
                assert!(
                    [0, 2, 3].contains(&bounces),
                    "{kind:?} {}",
                    board.name(field)
                );
                assert_eq!(board.is_edge(field), bounces > 0);
            }
        }
    }

    #[test]
    fn opposite_follows_ruling_l1() {
        let opposites: Vec<u8> = Dir::ALL.iter().map(|d| d.opposite().card()).collect();
        assert_eq!(opposites, vec![4, 5, 6, 1, 2, 3]);
        for d in Dir::ALL {
            let (a, b) = d.delta();
            assert_eq!(d.opposite().delta(), (-a, -b));
        }
    }

    #[test]
    fn field_names_round_trip() {
        for kind in KINDS {
            let board = kind.board();
            for field in board.fields() {
                assert_eq!(board.parse_field(board.name(field)), Some(field));
            }
            for bad in [
                "", "a", "a0", "a01", "z1", "Z1", "a99", "1a", "a-1", "a+1", "a 1",
            ] {
                assert_eq!(board.parse_field(bad), None, "{bad}");
            }
            assert_eq!(board.parse_field("C2"), board.parse_field("c2"));
        }
    }
}
