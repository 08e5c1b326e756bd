//! Reading a board document (the format is in [`super`]'s documentation):
//! each line's directive on its own first, then what joins lines (segment
//! ends, start and fortress numbers), so a document may list its directives
//! in any order. The first error in that order is the one reported.

use tabletop_sdk::text::quote;

use super::{
    BoardError, DIRECTIONS, Direction, MAX_POINTS, Point, Segment, SegmentKind, parse_start_number,
    start_number_name,
};
use crate::side::Side;

/// Per point and direction, the neighbour there and the joining segment.
pub(super) type Links = Vec<[Option<(u8, u16)>; 8]>;

/// A valid document's content, its names resolved to point numbers.
pub(super) struct Parts {
    /// The `name` line's word, if any.
    pub name: Option<String>,
    /// The points, in document order.
    pub points: Vec<Point>,
    /// The segments, in document order.
    pub segments: Vec<Segment>,
    /// The segments as links, from each end.
    pub links: Links,
    /// `start[side][n - 1]`.
    pub start: [Vec<u8>; 2],
    /// `fortress[side][n - 1]`.
    pub fortress: [[u8; 3]; 2],
}

/// Reads and checks a board document.
pub(super) fn read(text: &str) -> Result<Parts, BoardError> {
    let document = Directives::read(text)?;
    if document.points.is_empty() {
        return Err(BoardError::whole("the board has no points"));
    }
    let points = document.points;
    let (segments, links) = join_segments(&points, &document.segments)?;
    let start = place_starts(&points, &document.starts)?;
    let fortress = place_fortresses(&points, &document.fortresses)?;
    Ok(Parts {
        name: document.name,
        points,
        segments,
        links,
        start,
        fortress,
    })
}

/// A `segment` line as read: its ends by id, resolved once every point is
/// known.
struct SegmentLine {
    line: usize,
    a: String,
    b: String,
    kind: SegmentKind,
}

/// A `start` or `fortress` line as read: number `n` of `side` is point `id`.
struct NumberedLine {
    line: usize,
    side: Side,
    n: usize,
    id: String,
}

/// A board document's directives, each line read and checked on its own.
#[derive(Default)]
struct Directives {
    name: Option<String>,
    points: Vec<Point>,
    segments: Vec<SegmentLine>,
    starts: Vec<NumberedLine>,
    fortresses: Vec<NumberedLine>,
}

impl Directives {
    /// Reads every line; the first line in error ends the reading.
    fn read(text: &str) -> Result<Directives, BoardError> {
        let mut document = Directives::default();
        for (i, raw) in text.lines().enumerate() {
            let content = raw.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            let words: Vec<&str> = content.split_whitespace().collect();
            document.read_line(i + 1, &words)?;
        }
        Ok(document)
    }

    /// Reads one directive, `words` being its line's words (at least one).
    fn read_line(&mut self, line: usize, words: &[&str]) -> Result<(), BoardError> {
        match words[0] {
            "name" => self.read_name(line, words),
            "point" => {
                let point = self.read_point(line, words)?;
                self.points.push(point);
                Ok(())
            }
            "segment" => {
                self.segments.push(read_segment(line, words)?);
                Ok(())
            }
            "start" | "fortress" => {
                let numbered = read_numbered(line, words)?;
                if words[0] == "fortress" {
                    self.fortresses.push(numbered);
                } else {
                    self.starts.push(numbered);
                }
                Ok(())
            }
            other => Err(BoardError::at(
                line,
                format!(
                    "unknown directive `{}` (name, point, segment, start, fortress)",
                    quote(other)
                ),
            )),
        }
    }

    /// `name NAME`, at most once.
    fn read_name(&mut self, line: usize, words: &[&str]) -> Result<(), BoardError> {
        if words.len() != 2 {
            return Err(BoardError::at(line, "`name` takes one word"));
        }
        if self.name.is_some() {
            return Err(BoardError::at(line, "the board is named twice"));
        }
        self.name = Some(words[1].to_string());
        Ok(())
    }

    /// `point ID X Y`: a new id at free coordinates, within [`MAX_POINTS`].
    fn read_point(&self, line: usize, words: &[&str]) -> Result<Point, BoardError> {
        let [_, id, x, y] = words[..] else {
            return Err(BoardError::at(
                line,
                "`point` takes an id and two coordinates",
            ));
        };
        if !valid_id(id) {
            return Err(BoardError::at(
                line,
                format!(
                    "point id `{}` must start with a lowercase letter and hold only \
                     lowercase letters, digits and `_`",
                    quote(id)
                ),
            ));
        }
        let (x, y) = (coordinate(line, id, x)?, coordinate(line, id, y)?);
        if self.points.iter().any(|p| p.id == id) {
            return Err(BoardError::at(
                line,
                format!("point `{}` is defined twice", quote(id)),
            ));
        }
        if let Some(p) = self.points.iter().find(|p| p.x == x && p.y == y) {
            return Err(BoardError::at(
                line,
                format!(
                    "point `{}` has the same coordinates as point `{}`",
                    quote(id),
                    quote(&p.id)
                ),
            ));
        }
        if self.points.len() == MAX_POINTS {
            return Err(BoardError::at(
                line,
                format!("a board has at most {MAX_POINTS} points"),
            ));
        }
        Ok(Point {
            id: id.to_string(),
            x,
            y,
        })
    }
}

/// A coordinate of point `id`: an integer in -1000..=1000.
fn coordinate(line: usize, id: &str, text: &str) -> Result<i32, BoardError> {
    text.parse::<i32>()
        .ok()
        .filter(|v| (-1000..=1000).contains(v))
        .ok_or_else(|| {
            BoardError::at(
                line,
                format!(
                    "coordinate `{}` of point `{}` is not an integer in -1000..1000",
                    quote(text),
                    quote(id)
                ),
            )
        })
}

/// `segment A B KIND`.
fn read_segment(line: usize, words: &[&str]) -> Result<SegmentLine, BoardError> {
    let [_, a, b, kind] = words[..] else {
        return Err(BoardError::at(
            line,
            "`segment` takes two point ids and a kind",
        ));
    };
    let kind = SegmentKind::parse(kind).ok_or_else(|| {
        BoardError::at(
            line,
            format!(
                "unknown segment kind `{}` (black, red or rail)",
                quote(kind)
            ),
        )
    })?;
    Ok(SegmentLine {
        line,
        a: a.to_string(),
        b: b.to_string(),
        kind,
    })
}

/// `start NUMBER ID` or `fortress NUMBER ID`; a fortress number is 1-3.
fn read_numbered(line: usize, words: &[&str]) -> Result<NumberedLine, BoardError> {
    let [directive, number, id] = words[..] else {
        return Err(BoardError::at(
            line,
            format!("`{}` takes a number and a point id", quote(words[0])),
        ));
    };
    let Some((side, n)) = parse_start_number(number) else {
        return Err(BoardError::at(
            line,
            format!("`{}` is not a start number (1-24 or I-XXIV)", quote(number)),
        ));
    };
    if directive == "fortress" && n > 3 {
        return Err(BoardError::at(
            line,
            format!(
                "`{}` is not a fortress number (1-3 or I-III)",
                quote(number)
            ),
        ));
    }
    Ok(NumberedLine {
        line,
        side,
        n,
        id: id.to_string(),
    })
}

/// The point named `id` on `line`.
fn find_point(points: &[Point], line: usize, id: &str) -> Result<u8, BoardError> {
    points
        .iter()
        .position(|p| p.id == id)
        .map(|i| i as u8)
        .ok_or_else(|| BoardError::at(line, format!("unknown point `{}`", quote(id))))
}

/// The segments in document order, each joining two points one king step
/// apart, at most once, with the links both ways.
fn join_segments(
    points: &[Point],
    given: &[SegmentLine],
) -> Result<(Vec<Segment>, Links), BoardError> {
    let mut links: Links = vec![[None; 8]; points.len()];
    let mut segments: Vec<Segment> = Vec::new();
    for SegmentLine { line, a, b, kind } in given {
        let (pa, pb) = (find_point(points, *line, a)?, find_point(points, *line, b)?);
        let (p, q) = (&points[pa as usize], &points[pb as usize]);
        let Some(dir) = Direction::from_delta(q.x - p.x, q.y - p.y) else {
            return Err(BoardError::at(
                *line,
                format!(
                    "segment {}-{} does not join two adjacent points (one king step apart)",
                    quote(a),
                    quote(b)
                ),
            ));
        };
        if links[pa as usize][dir.index()].is_some() {
            return Err(BoardError::at(
                *line,
                format!("segment {}-{} is listed twice", quote(a), quote(b)),
            ));
        }
        if segments.len() >= u16::MAX as usize {
            return Err(BoardError::at(*line, "too many segments"));
        }
        // Canonical order: by rank (y), then file (x).
        let (lo, hi) = if (p.y, p.x) <= (q.y, q.x) {
            (pa, pb)
        } else {
            (pb, pa)
        };
        let index = segments.len() as u16;
        segments.push(Segment {
            a: lo,
            b: hi,
            kind: *kind,
        });
        let back = DIRECTIONS[(dir.index() + 4) % 8];
        links[pa as usize][dir.index()] = Some((pb, index));
        links[pb as usize][back.index()] = Some((pa, index));
    }
    Ok((segments, links))
}

/// The points given to numbers `1..=count` of each side, in document order;
/// `what` (`start`, `fortress`) names them in errors.
fn number_points(
    points: &[Point],
    given: &[NumberedLine],
    count: usize,
    what: &str,
) -> Result<[Vec<Option<u8>>; 2], BoardError> {
    let mut numbered: [Vec<Option<u8>>; 2] = [vec![None; count], vec![None; count]];
    for NumberedLine { line, side, n, id } in given {
        let p = find_point(points, *line, id)?;
        let slot = &mut numbered[side.index()][n - 1];
        if slot.is_some() {
            return Err(BoardError::at(
                *line,
                format!(
                    "{what} point {} is given twice",
                    start_number_name(*side, *n)
                ),
            ));
        }
        *slot = Some(p);
    }
    Ok(numbered)
}

/// The 24 start points of each side: every number given, no point twice.
fn place_starts(points: &[Point], given: &[NumberedLine]) -> Result<[Vec<u8>; 2], BoardError> {
    let numbered = number_points(points, given, 24, "start")?;
    let mut owner: Vec<Option<String>> = vec![None; points.len()];
    let mut start: [Vec<u8>; 2] = [Vec::new(), Vec::new()];
    for side in Side::BOTH {
        for n in 1..=24 {
            let Some(p) = numbered[side.index()][n - 1] else {
                return Err(BoardError::whole(format!(
                    "start point {} is missing",
                    start_number_name(side, n)
                )));
            };
            if let Some(other) = &owner[p as usize] {
                return Err(BoardError::whole(format!(
                    "point `{}` is both start point {other} and {}",
                    points[p as usize].id,
                    start_number_name(side, n)
                )));
            }
            owner[p as usize] = Some(start_number_name(side, n));
            start[side.index()].push(p);
        }
    }
    Ok(start)
}

/// The three fortress points of each side: every number given, three
/// distinct points, none in both fortresses.
fn place_fortresses(points: &[Point], given: &[NumberedLine]) -> Result<[[u8; 3]; 2], BoardError> {
    let numbered = number_points(points, given, 3, "fortress")?;
    let mut fortress = [[0u8; 3]; 2];
    for side in Side::BOTH {
        for n in 1..=3 {
            let Some(p) = numbered[side.index()][n - 1] else {
                return Err(BoardError::whole(format!(
                    "fortress point {} is missing",
                    start_number_name(side, n)
                )));
            };
            fortress[side.index()][n - 1] = p;
        }
        let f = fortress[side.index()];
        if f[0] == f[1] || f[1] == f[2] || f[0] == f[2] {
            return Err(BoardError::whole(format!(
                "the fortress points of {} are not three distinct points",
                side.label()
            )));
        }
    }
    if fortress[0].iter().any(|p| fortress[1].contains(p)) {
        return Err(BoardError::whole("a point belongs to both fortresses"));
    }
    Ok(fortress)
}

fn valid_id(id: &str) -> bool {
    let mut bytes = id.bytes();
    matches!(bytes.next(), Some(b'a'..=b'z'))
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}
