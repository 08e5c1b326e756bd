//! What players see: the JSON view, a terminal rendering and an SVG drawing.
//! War has no hidden information, so every viewer sees the same.

use serde::Serialize;
use serde_json::Value;

use crate::board::{Board, ROMAN, SegmentKind, start_number_name};
use crate::position::{Phase, Position};
use crate::side::{Side, TileKind};

// Two ways to the same view: `view` builds a `serde_json::Value` from typed
// data (what tests and in-process callers read), `view_json` writes the text
// the host sends directly (see there for why). The typed structs below
// declare their fields in alphabetical order, the order a `Value` object
// prints its keys in, so both give the same text.

#[derive(Serialize)]
struct View<'a> {
    board: &'a str,
    hands: Hands,
    max_turns: u32,
    moves: u32,
    next_start: Option<String>,
    points: Vec<PointView<'a>>,
    segments: Vec<SegmentView<'a>>,
    seized: Vec<&'a str>,
    status: StatusView,
    svg: String,
    tiles: Vec<TileView>,
    to_move: &'static str,
    units: Vec<UnitView<'a>>,
}

#[derive(Serialize)]
struct Hands {
    north: Hand,
    south: Hand,
}

#[derive(Serialize)]
struct Hand {
    entrenchment: u8,
    railway: u8,
}

#[derive(Serialize)]
struct PointView<'a> {
    fortress: Option<&'static str>,
    id: &'a str,
    start: Option<String>,
    x: i32,
    y: i32,
}

#[derive(Serialize)]
struct SegmentView<'a> {
    a: &'a str,
    b: &'a str,
    current: &'static str,
    kind: &'static str,
    tile: Option<TileOnSegment>,
}

#[derive(Serialize)]
struct TileOnSegment {
    kind: &'static str,
    owner: &'static str,
}

#[derive(Serialize)]
struct TileView {
    kind: &'static str,
    owner: &'static str,
    segment: String,
}

#[derive(Serialize)]
struct UnitView<'a> {
    kind: &'static str,
    point: &'a str,
    side: &'static str,
}

#[derive(Serialize)]
struct StatusView {
    phase: &'static str,
    #[serde(flatten)]
    over: Option<Over>,
}

#[derive(Serialize)]
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

/// The JSON view as text; see [`view`]. Written piece by piece, in the key
/// order a `Value` object prints (the typed-view test checks the two agree
/// to the byte): War's view has ~300 segment and ~100 point objects, and
/// serde's field-by-field serializing, escaping every key, would be most of
/// its time, the drawing being copied in as it is. Point ids are
/// `[a-z][a-z0-9_]*` (the board checks them) and every other name is this
/// crate's own, so nothing but the board's name needs escaping.
pub fn view_json(pos: &Position) -> String {
    use Piece::{N, S, U};
    let board = pos.board();
    let mut out = String::with_capacity(
        250 * (board.segments().len() + board.len()) + 2 * board.name().len() + 512,
    );
    let quoted_name = serde_json::to_string(board.name()).expect("a string always serializes");
    let push_hand = |out: &mut String, side| {
        push(
            out,
            &[
                S("{\"entrenchment\":"),
                U(pos.in_hand(side, TileKind::Entrenchment).into()),
                S(",\"railway\":"),
                U(pos.in_hand(side, TileKind::Railway).into()),
                S("}"),
            ],
        )
    };
    push(
        &mut out,
        &[
            S("{\"board\":"),
            S(&quoted_name),
            S(",\"hands\":{\"north\":"),
        ],
    );
    push_hand(&mut out, Side::North);
    out.push_str(",\"south\":");
    push_hand(&mut out, Side::South);
    push(
        &mut out,
        &[
            S("},\"max_turns\":"),
            U(pos.max_turns()),
            S(",\"moves\":"),
            U(pos.moves_played()),
            S(",\"next_start\":"),
        ],
    );
    match pos.next_start() {
        Some(n) => push_start_name(&mut out, pos.to_move(), n),
        None => out.push_str("null"),
    }
    out.push_str(",\"points\":[");
    let mut first = true;
    for (i, (p, start)) in board.points().iter().zip(start_numbers(board)).enumerate() {
        separate(&mut out, &mut first);
        out.push('{');
        match fortress_of(board, i as u8) {
            Some(side) => push(&mut out, &[S("\"fortress\":\""), S(side.name()), S("\"")]),
            None => out.push_str("\"fortress\":null"),
        }
        push(&mut out, &[S(",\"id\":\""), S(&p.id), S("\",\"start\":")]);
        match start {
            Some((side, n)) => push_start_name(&mut out, side, n),
            None => out.push_str("null"),
        }
        push(
            &mut out,
            &[S(",\"x\":"), N(p.x), S(",\"y\":"), N(p.y), S("}")],
        );
    }
    out.push_str("],\"segments\":[");
    let mut first = true;
    for (i, seg) in board.segments().iter().enumerate() {
        let current = pos
            .effective_kind(i as u16)
            .map_or("gap", SegmentKind::name);
        separate(&mut out, &mut first);
        push(
            &mut out,
            &[
                S("{\"a\":\""),
                S(board.label(seg.a)),
                S("\",\"b\":\""),
                S(board.label(seg.b)),
                S("\",\"current\":\""),
                S(current),
                S("\",\"kind\":\""),
                S(seg.kind.name()),
                S("\",\"tile\":"),
            ],
        );
        match pos.tile(i as u16) {
            Some(t) => push(
                &mut out,
                &[
                    S("{\"kind\":\""),
                    S(t.kind.name()),
                    S("\",\"owner\":\""),
                    S(t.owner.name()),
                    S("\"}}"),
                ],
            ),
            None => out.push_str("null}"),
        }
    }
    out.push_str("],\"seized\":[");
    let mut first = true;
    for &p in pos.seized() {
        separate(&mut out, &mut first);
        push(&mut out, &[S("\""), S(board.label(p)), S("\"")]);
    }
    out.push_str("],\"status\":{\"phase\":");
    match pos.phase() {
        Phase::Setup => out.push_str("\"setup\"}"),
        Phase::Play => out.push_str("\"play\"}"),
        Phase::Over(o) => {
            push(
                &mut out,
                &[
                    S("\"over\",\"reason\":\""),
                    S(o.reason.name()),
                    S("\",\"winner\":"),
                ],
            );
            match o.winner {
                Some(side) => push(&mut out, &[S("\""), S(side.name()), S("\"}")]),
                None => out.push_str("null}"),
            }
        }
    }
    out.push_str(",\"svg\":\"");
    let drawing_starts = out.len();
    write_svg(pos, &mut out);
    debug_assert!(
        !out[drawing_starts..].contains(|c: char| c == '"' || c == '\\' || c.is_control()),
        "the drawing holds a character JSON escapes"
    );
    out.push_str("\",\"tiles\":[");
    let mut first = true;
    for (i, seg) in board.segments().iter().enumerate() {
        let Some(t) = pos.tile(i as u16) else {
            continue;
        };
        separate(&mut out, &mut first);
        push(
            &mut out,
            &[
                S("{\"kind\":\""),
                S(t.kind.name()),
                S("\",\"owner\":\""),
                S(t.owner.name()),
                S("\",\"segment\":\""),
                S(board.label(seg.a)),
                S("-"),
                S(board.label(seg.b)),
                S("\"}"),
            ],
        );
    }
    push(
        &mut out,
        &[
            S("],\"to_move\":\""),
            S(pos.to_move().name()),
            S("\",\"units\":["),
        ],
    );
    let mut first = true;
    for p in 0..board.len() as u8 {
        let Some(u) = pos.unit(p) else {
            continue;
        };
        separate(&mut out, &mut first);
        push(
            &mut out,
            &[
                S("{\"kind\":\""),
                S(u.kind.name()),
                S("\",\"point\":\""),
                S(board.label(p)),
                S("\",\"side\":\""),
                S(u.side.name()),
                S("\"}"),
            ],
        );
    }
    out.push_str("]}");
    out
}

/// Appends the `,` that comes before every element of a JSON array but the
/// first, and notes that the first has been written.
fn separate(out: &mut String, first: &mut bool) {
    if !std::mem::take(first) {
        out.push(',');
    }
}

/// Per point of `board`, the start number it carries, if any.
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
fn push_start_name(out: &mut String, side: Side, n: usize) {
    use Piece::{S, U};
    match side {
        Side::South => push(out, &[S("\""), U(n as u32), S("\"")]),
        Side::North => push(out, &[S("\""), S(ROMAN[n - 1]), S("\"")]),
    }
}

/// The JSON view: points, segments (printed kind, current kind, tile), units,
/// tiles with owners, hands, seized cannons, side to move, and an `svg` drawing.
pub fn view(pos: &Position) -> Value {
    serde_json::to_value(typed_view(pos)).expect("a view of plain fields always serializes")
}

fn typed_view(pos: &Position) -> View<'_> {
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
        svg: svg(pos),
        tiles,
        to_move: pos.to_move().name(),
        units,
    }
}

/// A terminal drawing: each point is a unit letter (upper case South, lower
/// case North) or `.`; `---` black, `~~~` red, `===` railway, `/ \ X`
/// diagonals, blank a gap; `#` marks an entrenchment tile.
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
    let mut out = String::new();
    for (r, row) in grid.iter().enumerate() {
        let y = maxy - (r as i32) / 2;
        let label = if r % 2 == 0 {
            format!("{y:>3} ")
        } else {
            "    ".to_string()
        };
        out.push_str(&label);
        out.push_str(row.iter().collect::<String>().trim_end());
        out.push('\n');
    }
    let status = match pos.phase() {
        Phase::Setup => format!(
            "setup: {} places on {}",
            pos.to_move().name(),
            pos.next_start()
                .map_or(String::new(), |n| start_number_name(pos.to_move(), n))
        ),
        Phase::Play => format!(
            "move {}: {} to move",
            pos.moves_played() + 1,
            pos.to_move().name()
        ),
        Phase::Over(o) => match o.winner {
            Some(w) => format!("over: {} wins ({})", w.name(), o.reason.name()),
            None => format!("over: draw ({})", o.reason.name()),
        },
    };
    out.push_str(&status);
    out.push('\n');
    for side in Side::BOTH {
        out.push_str(&format!(
            "{}: {} units, hand {} entrenchment {} railway\n",
            side.name(),
            pos.unit_count(side),
            pos.in_hand(side, TileKind::Entrenchment),
            pos.in_hand(side, TileKind::Railway)
        ));
    }
    let tiles: Vec<String> = (0..board.segments().len() as u16)
        .filter_map(|i| {
            let t = pos.tile(i)?;
            let s = board.segments()[i as usize];
            Some(format!(
                "{}{}-{}:{}",
                t.kind.symbol(),
                board.label(s.a),
                board.label(s.b),
                t.owner.name()
            ))
        })
        .collect();
    if !tiles.is_empty() {
        out.push_str(&format!("tiles: {}\n", tiles.join(" ")));
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

/// An SVG drawing: black lines solid, red lines red and dashed, railways
/// brown and thick with sleepers, gaps absent; entrenchments as a bar across
/// the segment and railway tiles as a marker, both in the owner's colour;
/// South units light discs, North dark, with the unit letter; seized cannons
/// ringed in red.
pub fn svg(pos: &Position) -> String {
    let mut out = String::new();
    write_svg(pos, &mut out);
    out
}

/// Appends [`svg`] to `out`. Attributes are in single quotes and nothing
/// but this function's literals, numbers and fixed names goes in, so the
/// drawing never holds a character JSON would escape, and [`view_json`]
/// writes it into the view's text as it is: it is nine tenths of the view's
/// bytes, and serde_json escapes a string by looking at every byte.
fn write_svg(pos: &Position, out: &mut String) {
    use Piece::{N, S};
    let board = pos.board();
    let s = 40;
    let (minx, maxx) = board
        .points()
        .iter()
        .fold((i32::MAX, i32::MIN), |(a, b), p| (a.min(p.x), b.max(p.x)));
    let (miny, maxy) = board
        .points()
        .iter()
        .fold((i32::MAX, i32::MIN), |(a, b), p| (a.min(p.y), b.max(p.y)));
    let px = |x: i32| (x - minx) * s + s;
    let py = |y: i32| (maxy - y) * s + s;
    let (w, h) = ((maxx - minx) * s + 2 * s, (maxy - miny) * s + 2 * s);
    // About 150 bytes per segment and point: one allocation for the drawing.
    out.reserve(150 * (board.segments().len() + board.len()) + 256);
    push(
        out,
        &[
            S("<svg xmlns='http://www.w3.org/2000/svg' width='"),
            N(w),
            S("' height='"),
            N(h),
            S("' viewBox='0 0 "),
            N(w),
            S(" "),
            N(h),
            S("'><rect width='"),
            N(w),
            S("' height='"),
            N(h),
            S("' fill='#f4ecd8'/>"),
        ],
    );
    let owner_colour = |side: Side| {
        if side == Side::South {
            "#1f5fbf"
        } else {
            "#bf7f1f"
        }
    };
    for (i, seg) in board.segments().iter().enumerate() {
        let (p, q) = (
            &board.points()[seg.a as usize],
            &board.points()[seg.b as usize],
        );
        let (x1, y1, x2, y2) = (px(p.x), py(p.y), px(q.x), py(q.y));
        let style = match pos.effective_kind(i as u16) {
            Some(SegmentKind::Black) => "stroke='#222' stroke-width='2'",
            Some(SegmentKind::Red) => "stroke='#c62828' stroke-width='2' stroke-dasharray='6 3'",
            Some(SegmentKind::Rail) => "stroke='#6d4c41' stroke-width='5' stroke-dasharray='2 2'",
            None => "stroke='none'",
        };
        push(
            out,
            &[
                S("<line class='segment' x1='"),
                N(x1),
                S("' y1='"),
                N(y1),
                S("' x2='"),
                N(x2),
                S("' y2='"),
                N(y2),
                S("' "),
                S(style),
                S("/>"),
            ],
        );
        if let Some(t) = pos.tile(i as u16) {
            let (mx, my) = ((x1 + x2) / 2, (y1 + y2) / 2);
            let c = owner_colour(t.owner);
            match t.kind {
                TileKind::Entrenchment => push(
                    out,
                    &[
                        S("<rect class='tile entrenchment' x='"),
                        N(mx - 5),
                        S("' y='"),
                        N(my - 5),
                        S("' width='10' height='10' fill='"),
                        S(c),
                        S("' stroke='#000'/>"),
                    ],
                ),
                TileKind::Railway => push(
                    out,
                    &[
                        S("<circle class='tile railway' cx='"),
                        N(mx),
                        S("' cy='"),
                        N(my),
                        S("' r='4' fill='"),
                        S(c),
                        S("' stroke='#000'/>"),
                    ],
                ),
            }
        }
    }
    for (i, p) in board.points().iter().enumerate() {
        let (cx, cy) = (px(p.x), py(p.y));
        match pos.unit(i as u8) {
            None => push(
                out,
                &[
                    S("<circle class='point' cx='"),
                    N(cx),
                    S("' cy='"),
                    N(cy),
                    S("' r='3' fill='#222'/>"),
                ],
            ),
            Some(u) => {
                let (fill, ink) = if u.side == Side::South {
                    ("#fafafa", "#000")
                } else {
                    ("#333", "#fff")
                };
                let ring = if pos.seized().contains(&(i as u8)) {
                    "#e53935"
                } else {
                    "#000"
                };
                let mut letter = [0; 4];
                push(
                    out,
                    &[
                        S("<circle class='unit "),
                        S(u.side.name()),
                        S(" "),
                        S(u.kind.name()),
                        S("' cx='"),
                        N(cx),
                        S("' cy='"),
                        N(cy),
                        S("' r='13' fill='"),
                        S(fill),
                        S("' stroke='"),
                        S(ring),
                        S("' stroke-width='2'/><text x='"),
                        N(cx),
                        S("' y='"),
                        N(cy + 5),
                        S("' text-anchor='middle' font-family='sans-serif' font-size='14' fill='"),
                        S(ink),
                        S("'>"),
                        S(u.kind.letter().encode_utf8(&mut letter)),
                        S("</text>"),
                    ],
                );
            }
        }
    }
    out.push_str("</svg>");
}

/// A piece of the drawing or the view: text as it is, or a number in
/// decimal.
enum Piece<'a> {
    S(&'a str),
    N(i32),
    U(u32),
}

/// Appends `pieces` to `out`. A drawing has thousands of numbers, and
/// `write!` through `core::fmt` would be a third of the JSON view's time.
fn push(out: &mut String, pieces: &[Piece<'_>]) {
    let mut digits = itoa::Buffer::new();
    for piece in pieces {
        out.push_str(match piece {
            Piece::S(text) => text,
            Piece::N(n) => digits.format(*n),
            Piece::U(n) => digits.format(*n),
        });
    }
}
