//! What players see: the JSON view and a terminal rendering (the SVG board
//! is in [`crate::svg`]). War has no hidden information, so every viewer
//! sees the same.

use serde::Serialize;

use crate::board::{Board, SegmentKind, start_number_name};
use crate::position::{Phase, Position};
use crate::side::{Side, TileKind};

/// The JSON view, the same for every viewer: typed data serialised straight
/// to text. Fields are in alphabetical order, as clients that compare views
/// as `Value` objects print them.
#[derive(Debug, Serialize)]
pub struct View<'a> {
    board: &'a str,
    hands: Hands,
    max_turns: u32,
    moves: u32,
    next_start: Option<String>,
    points: Vec<PointView<'a>>,
    segments: Vec<SegmentView<'a>>,
    seized: Vec<&'a str>,
    status: StatusView,
    tiles: Vec<TileView>,
    to_move: &'static str,
    units: Vec<UnitView<'a>>,
}

#[derive(Debug, Serialize)]
struct Hands {
    north: Hand,
    south: Hand,
}

#[derive(Debug, Serialize)]
struct Hand {
    entrenchment: u8,
    railway: u8,
}

#[derive(Debug, Serialize)]
struct PointView<'a> {
    fortress: Option<&'static str>,
    id: &'a str,
    start: Option<String>,
    x: i32,
    y: i32,
}

#[derive(Debug, Serialize)]
struct SegmentView<'a> {
    a: &'a str,
    b: &'a str,
    current: &'static str,
    kind: &'static str,
    tile: Option<TileOnSegment>,
}

#[derive(Debug, Serialize)]
struct TileOnSegment {
    kind: &'static str,
    owner: &'static str,
}

#[derive(Debug, Serialize)]
struct TileView {
    kind: &'static str,
    owner: &'static str,
    segment: String,
}

#[derive(Debug, Serialize)]
struct UnitView<'a> {
    kind: &'static str,
    point: &'a str,
    side: &'static str,
}

#[derive(Debug, Serialize)]
struct StatusView {
    phase: &'static str,
    #[serde(flatten)]
    over: Option<Over>,
}

#[derive(Debug, Serialize)]
struct Over {
    reason: &'static str,
    winner: Option<&'static str>,
}

fn status(pos: &Position) -> StatusView {
    let (phase, over) = match pos.phase() {
        Phase::Setup => ("setup", None),
        Phase::Play => ("play", None),
        Phase::Over(o) => (
            "over",
            Some(Over {
                reason: o.reason.name(),
                winner: o.winner.map(Side::name),
            }),
        ),
    };
    StatusView { phase, over }
}

fn hand(pos: &Position, side: Side) -> Hand {
    Hand {
        entrenchment: pos.in_hand(side, TileKind::Entrenchment),
        railway: pos.in_hand(side, TileKind::Railway),
    }
}

fn start_numbers(board: &Board) -> Vec<Option<(Side, usize)>> {
    let mut numbers = vec![None; board.len()];
    for side in Side::BOTH {
        for (i, &p) in board.start_points(side).iter().enumerate() {
            numbers[p as usize] = Some((side, i + 1));
        }
    }
    numbers
}

/// Whose fortress `point` is part of, if anyone's.
fn fortress_of(board: &Board, point: u8) -> Option<Side> {
    Side::BOTH
        .into_iter()
        .find(|s| board.fortress(*s).contains(&point))
}

/// Appends start number `n` of `side` as a JSON string: `"12"` or `"XII"`
/// ([`start_number_name`], without its allocation).
/// The JSON view of `pos` (see [`View`]).
pub fn view(pos: &Position) -> View<'_> {
    let board = pos.board();
    let points = board
        .points()
        .iter()
        .zip(start_numbers(board))
        .enumerate()
        .map(|(i, (p, start))| PointView {
            fortress: fortress_of(board, i as u8).map(Side::name),
            id: &p.id,
            start: start.map(|(side, n)| start_number_name(side, n)),
            x: p.x,
            y: p.y,
        })
        .collect();
    let segments = board
        .segments()
        .iter()
        .enumerate()
        .map(|(i, s)| SegmentView {
            a: board.label(s.a),
            b: board.label(s.b),
            current: pos
                .effective_kind(i as u16)
                .map_or("gap", SegmentKind::name),
            kind: s.kind.name(),
            tile: pos.tile(i as u16).map(|t| TileOnSegment {
                kind: t.kind.name(),
                owner: t.owner.name(),
            }),
        })
        .collect();
    let tiles = (0..board.segments().len())
        .filter_map(|i| {
            let t = pos.tile(i as u16)?;
            let s = board.segments()[i];
            Some(TileView {
                kind: t.kind.name(),
                owner: t.owner.name(),
                segment: format!("{}-{}", board.label(s.a), board.label(s.b)),
            })
        })
        .collect();
    let units = (0..board.len() as u8)
        .filter_map(|p| {
            let u = pos.unit(p)?;
            Some(UnitView {
                kind: u.kind.name(),
                point: board.label(p),
                side: u.side.name(),
            })
        })
        .collect();
    View {
        board: board.name(),
        hands: Hands {
            north: hand(pos, Side::North),
            south: hand(pos, Side::South),
        },
        max_turns: pos.max_turns(),
        moves: pos.moves_played(),
        next_start: pos
            .next_start()
            .map(|n| start_number_name(pos.to_move(), n)),
        points,
        segments,
        seized: pos.seized().iter().map(|&p| board.label(p)).collect(),
        status: status(pos),
        tiles,
        to_move: pos.to_move().name(),
        units,
    }
}

/// The file and rank of a label like `d4`: its leading letters and the
/// rest.
fn file_and_rank(label: &str) -> (&str, &str) {
    let split = label
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(label.len());
    label.split_at(split)
}

/// The one name in `names` (the files of a column's points, or the ranks of
/// a row's), or blank when they differ: a board whose labels are not
/// files and ranks gets no margin names rather than wrong ones.
fn common<'a>(mut names: impl Iterator<Item = &'a str>) -> &'a str {
    let Some(first) = names.next() else {
        return "";
    };
    if names.all(|n| n == first) { first } else { "" }
}

/// A terminal drawing: each point is a unit letter (upper case South, lower
/// case North) or `.`; `---` black, `~~~` red, `===` railway, `/ \ X`
/// diagonals, blank a gap; `#` marks an entrenchment tile. File letters run
/// above and below the board and rank numbers down both sides, as the move
/// notation writes points (`d4-d5`).
pub fn text(pos: &Position) -> String {
    let board = pos.board();
    let (minx, maxx) = board
        .points()
        .iter()
        .fold((i32::MAX, i32::MIN), |(a, b), p| (a.min(p.x), b.max(p.x)));
    let (miny, maxy) = board
        .points()
        .iter()
        .fold((i32::MAX, i32::MIN), |(a, b), p| (a.min(p.y), b.max(p.y)));
    let w = ((maxx - minx) * 4 + 1) as usize;
    let h = ((maxy - miny) * 2 + 1) as usize;
    let mut grid = vec![vec![' '; w]; h];
    let at = |x: i32, y: i32| (((maxy - y) * 2) as usize, ((x - minx) * 4) as usize);
    for (i, s) in board.segments().iter().enumerate() {
        let (p, q) = (&board.points()[s.a as usize], &board.points()[s.b as usize]);
        let (r0, c0) = at(p.x, p.y);
        let (r1, c1) = at(q.x, q.y);
        let kind = pos.effective_kind(i as u16);
        let entrenched = pos
            .tile(i as u16)
            .is_some_and(|t| t.kind == TileKind::Entrenchment);
        if r0 == r1 {
            let (lo, hi) = (c0.min(c1), c0.max(c1));
            let ch = match kind {
                Some(SegmentKind::Black) => '-',
                Some(SegmentKind::Red) => '~',
                Some(SegmentKind::Rail) => '=',
                None => ' ',
            };
            for cell in &mut grid[r0][lo + 1..hi] {
                *cell = ch;
            }
            if entrenched {
                grid[r0][(lo + hi) / 2] = '#';
            }
        } else if c0 == c1 {
            let r = (r0 + r1) / 2;
            grid[r][c0] = match kind {
                Some(SegmentKind::Black) => '|',
                Some(SegmentKind::Red) => ':',
                Some(SegmentKind::Rail) => 'H',
                None if entrenched => '#',
                None => ' ',
            };
        } else {
            let (r, c) = ((r0 + r1) / 2, (c0 + c1) / 2);
            // Going up-right on screen is `/`.
            let slash = if (r1 < r0) == (c1 > c0) { '/' } else { '\\' };
            let ch = match kind {
                None if entrenched => '#',
                None => ' ',
                Some(_) => slash,
            };
            grid[r][c] = match (grid[r][c], ch) {
                ('/', '\\') | ('\\', '/') => 'X',
                (' ', ch) => ch,
                (old, ' ') => old,
                (_, ch) => ch,
            };
        }
    }
    for (i, p) in board.points().iter().enumerate() {
        let (r, c) = at(p.x, p.y);
        grid[r][c] = pos.unit(i as u8).map_or('.', |u| u.letter());
    }
    // The file names along the top and bottom, each over its column.
    let mut files = vec![' '; w];
    for x in minx..=maxx {
        let file = common(
            board
                .points()
                .iter()
                .filter(|p| p.x == x)
                .map(|p| file_and_rank(&p.id).0),
        );
        let column = ((x - minx) * 4) as usize;
        for (i, c) in file.chars().enumerate() {
            if let Some(cell) = files.get_mut(column + i) {
                *cell = c;
            }
        }
    }
    let files: String = files.into_iter().collect();
    let files = format!("    {}\n", files.trim_end());
    let mut out = String::with_capacity((w + 12) * (h + 2) + 512);
    out.push_str(&files);
    for (r, row) in grid.iter().enumerate() {
        let row: String = row.iter().collect();
        if r % 2 == 0 {
            let y = maxy - (r as i32) / 2;
            let rank = common(
                board
                    .points()
                    .iter()
                    .filter(|p| p.y == y)
                    .map(|p| file_and_rank(&p.id).1),
            );
            let line = format!("{rank:>3} {row} {rank}");
            out.push_str(line.trim_end());
        } else {
            out.push_str("    ");
            out.push_str(row.trim_end());
        }
        out.push('\n');
    }
    out.push_str(&files);
    let status = match pos.phase() {
        Phase::Setup => format!(
            "setup: {} places on {}",
            pos.to_move().label(),
            pos.next_start()
                .map_or(String::new(), |n| start_number_name(pos.to_move(), n))
        ),
        Phase::Play => format!(
            "move {}: {} to move",
            pos.moves_played() + 1,
            pos.to_move().label()
        ),
        Phase::Over(o) => match o.winner {
            Some(w) => format!("over: {} wins ({})", w.label(), o.reason.name()),
            None => format!("over: draw ({})", o.reason.name()),
        },
    };
    out.push_str(&status);
    out.push('\n');
    for side in Side::BOTH {
        out.push_str(&format!(
            "{}: {} units, hand {} entrenchment {} railway",
            side.label(),
            pos.unit_count(side),
            pos.in_hand(side, TileKind::Entrenchment),
            pos.in_hand(side, TileKind::Railway)
        ));
        // Its tiles on the board, each as the action that placed it.
        let mut first = true;
        for i in 0..board.segments().len() as u16 {
            if let Some(t) = pos.tile(i).filter(|t| t.owner == side) {
                if std::mem::take(&mut first) {
                    out.push_str(", tiles:");
                }
                let s = board.segments()[i as usize];
                out.push_str(&format!(
                    " {}{}-{}",
                    t.kind.symbol(),
                    board.label(s.a),
                    board.label(s.b)
                ));
            }
        }
        out.push('\n');
    }
    if !pos.seized().is_empty() {
        let s: Vec<&str> = pos.seized().iter().map(|&p| board.label(p)).collect();
        out.push_str(&format!(
            "seized cannons (removed next turn): {}\n",
            s.join(" ")
        ));
    }
    out
}
