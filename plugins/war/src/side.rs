//! The two sides, their units and their tiles.

/// One of the two armies. South (seat 0) places and moves first (ruling W3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Side {
    /// Seat 0: start points 1–24, fortress 1–3; moves first.
    South,
    /// Seat 1: start points I–XXIV, fortress I–III.
    North,
}

impl Side {
    /// Both sides, South first.
    pub const BOTH: [Side; 2] = [Side::South, Side::North];

    /// 0 for South, 1 for North (also the seat).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The side of seat `seat`.
    pub fn from_index(seat: usize) -> Option<Side> {
        match seat {
            0 => Some(Side::South),
            1 => Some(Side::North),
            _ => None,
        }
    }

    /// The other side.
    pub fn opponent(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
        }
    }

    /// `south` or `north`.
    pub fn name(self) -> &'static str {
        match self {
            Side::South => "south",
            Side::North => "north",
        }
    }

    /// The seat's name in messages and the seat-names extension: `South`
    /// or `North`.
    pub fn seat_name(self) -> &'static str {
        match self {
            Side::South => "South",
            Side::North => "North",
        }
    }

    /// How every message names the side: the API seat and its name,
    /// `seat 0 (South)`.
    pub fn label(self) -> String {
        tabletop_sdk::seat_label(self.index() as u32, Some(self.seat_name()))
    }

    /// Reads [`Side::name`].
    pub fn parse(text: &str) -> Option<Side> {
        match text {
            "south" => Some(Side::South),
            "north" => Some(Side::North),
            _ => None,
        }
    }
}

/// A unit type (ruling W3: 16 infantry, 6 cavalry, 2 cannons per side).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum UnitKind {
    /// Steps one point; captures by jumping.
    Infantry,
    /// Moves one or two points; captures by jumping.
    Cavalry,
    /// Steps one point; captures by firing along a line (W7).
    Cannon,
}

impl UnitKind {
    /// Every unit type, in action-id order.
    pub const ALL: [UnitKind; 3] = [UnitKind::Infantry, UnitKind::Cavalry, UnitKind::Cannon];

    /// How many of this type an army has (W3).
    pub fn army_count(self) -> u8 {
        match self {
            UnitKind::Infantry => 16,
            UnitKind::Cavalry => 6,
            UnitKind::Cannon => 2,
        }
    }

    /// The notation letter, upper case: `I`, `C` (cavalry), `A` (artillery, a cannon).
    pub fn letter(self) -> char {
        match self {
            UnitKind::Infantry => 'I',
            UnitKind::Cavalry => 'C',
            UnitKind::Cannon => 'A',
        }
    }

    /// Reads [`UnitKind::letter`] in either case.
    pub fn from_letter(c: char) -> Option<UnitKind> {
        match c.to_ascii_uppercase() {
            'I' => Some(UnitKind::Infantry),
            'C' => Some(UnitKind::Cavalry),
            'A' => Some(UnitKind::Cannon),
            _ => None,
        }
    }

    /// `infantry`, `cavalry` or `cannon`.
    pub fn name(self) -> &'static str {
        match self {
            UnitKind::Infantry => "infantry",
            UnitKind::Cavalry => "cavalry",
            UnitKind::Cannon => "cannon",
        }
    }

    /// The plural in messages: `infantry`, `cavalry`, `cannons`.
    pub fn plural(self) -> &'static str {
        match self {
            UnitKind::Infantry => "infantry",
            UnitKind::Cavalry => "cavalry",
            UnitKind::Cannon => "cannons",
        }
    }
}

/// A unit on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Unit {
    /// Whose it is.
    pub side: Side,
    /// What it is.
    pub kind: UnitKind,
}

impl Unit {
    /// The letter in positions and text: upper case for South, lower for North.
    pub fn letter(self) -> char {
        match self.side {
            Side::South => self.kind.letter(),
            Side::North => self.kind.letter().to_ascii_lowercase(),
        }
    }

    /// Reads [`Unit::letter`].
    pub fn from_letter(c: char) -> Option<Unit> {
        let kind = UnitKind::from_letter(c)?;
        let side = if c.is_ascii_uppercase() {
            Side::South
        } else {
            Side::North
        };
        Some(Unit { side, kind })
    }
}

/// A tile type (ruling W10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TileKind {
    /// Makes its segment a gap.
    Entrenchment,
    /// Makes its segment a railway.
    Railway,
}

impl TileKind {
    /// Both kinds, in action-id order.
    pub const ALL: [TileKind; 2] = [TileKind::Entrenchment, TileKind::Railway];

    /// 0 for entrenchment, 1 for railway.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The notation prefix: `#` entrenchment, `=` railway.
    pub fn symbol(self) -> char {
        match self {
            TileKind::Entrenchment => '#',
            TileKind::Railway => '=',
        }
    }

    /// `entrenchment` or `railway`.
    pub fn name(self) -> &'static str {
        match self {
            TileKind::Entrenchment => "entrenchment",
            TileKind::Railway => "railway",
        }
    }
}

/// A tile lying on a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tile {
    /// What it does to the segment.
    pub kind: TileKind,
    /// Who may remove it.
    pub owner: Side,
}
