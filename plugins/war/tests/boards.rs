//! Board documents (ruling W1): the shipped default board against ruling W2,
//! and broken documents each refused with their own message and place.

use std::collections::BTreeSet;

use war::board::{Board, DEFAULT_BOARD};

/// The segments of W2, derived here from the ruling's words, not from the file.
fn w2_segments() -> BTreeSet<(String, String, String)> {
    let files = ["a", "b", "c", "d", "e", "f", "g"];
    let exists = |f: i32, r: i32| {
        (0..7).contains(&f)
            && (1..=12).contains(&r)
            && ((2..=11).contains(&r) || (2..=4).contains(&f))
    };
    let label = |f: i32, r: i32| format!("{}{}", files[f as usize], r);
    let rail: Vec<&str> = vec!["a3", "b3", "c3", "d3", "e3", "f3", "g3", "g4"];
    let rail_n: Vec<&str> = vec!["g10", "f10", "e10", "d10", "c10", "b10", "a10", "a9"];
    let on_rail = |a: &str, b: &str| {
        [&rail, &rail_n].iter().any(|line| {
            line.windows(2)
                .any(|w| (w[0] == a && w[1] == b) || (w[0] == b && w[1] == a))
        })
    };
    let mut out = BTreeSet::new();
    for r in 1..=12 {
        for f in 0..7 {
            if !exists(f, r) {
                continue;
            }
            for (df, dr) in [(0, 1), (1, 0), (1, 1), (-1, 1)] {
                let (g, s) = (f + df, r + dr);
                if !exists(g, s) {
                    continue;
                }
                // The two gaps b6-b7 and f6-f7.
                if df == 0 && r == 6 && (f == 1 || f == 5) {
                    continue;
                }
                let (a, b) = (label(f, r), label(g, s));
                let kind = if on_rail(&a, &b) {
                    "rail"
                } else if dr == 0 && (5..=8).contains(&r) {
                    "red"
                } else {
                    "black"
                };
                // Ordered by rank, then file.
                let (a, b) = if (r, f) <= (s, g) { (a, b) } else { (b, a) };
                out.insert((a, b, kind.to_string()));
            }
        }
    }
    out
}

#[test]
fn the_shipped_board_is_ruling_w2() {
    let board = Board::parse(DEFAULT_BOARD).unwrap();
    assert_eq!(board.len(), 76);
    let got: BTreeSet<(String, String, String)> = board
        .segments()
        .iter()
        .map(|s| {
            (
                board.label(s.a).to_string(),
                board.label(s.b).to_string(),
                s.kind.name().to_string(),
            )
        })
        .collect();
    assert_eq!(got, w2_segments());
    // Start and fortress numbers of W2.
    use war::Side::{North, South};
    let at = |side, n| board.label(board.start_point(side, n)).to_string();
    assert_eq!(
        [at(South, 1), at(South, 4), at(South, 17), at(South, 24)],
        ["c1", "a2", "g3", "g4"]
    );
    assert_eq!(
        [
            at(North, 1),
            at(North, 3),
            at(North, 10),
            at(North, 17),
            at(North, 24)
        ],
        ["e12", "c12", "a11", "a10", "a9"]
    );
    let f = |side| board.fortress(side).map(|p| board.label(p).to_string());
    assert_eq!(f(South), ["c1", "d1", "e1"]);
    assert_eq!(f(North), ["e12", "d12", "c12"]);
}

#[test]
fn the_shipped_board_is_symmetric_under_a_half_turn() {
    let board = Board::parse(DEFAULT_BOARD).unwrap();
    let turn = |l: &str| {
        let f = (b'a' + (b'g' - l.as_bytes()[0])) as char;
        let r: i32 = l[1..].parse().unwrap();
        format!("{f}{}", 13 - r)
    };
    let segs: BTreeSet<(String, String, &str)> = board
        .segments()
        .iter()
        .map(|s| {
            let (a, b) = (board.label(s.a).to_string(), board.label(s.b).to_string());
            (a.clone().min(b.clone()), a.max(b), s.kind.name())
        })
        .collect();
    for (a, b, k) in &segs {
        let (ta, tb) = (turn(a), turn(b));
        assert!(
            segs.contains(&(ta.clone().min(tb.clone()), ta.max(tb), *k)),
            "{a}-{b}"
        );
    }
    use war::Side::{North, South};
    for n in 1..=24 {
        assert_eq!(
            turn(board.label(board.start_point(South, n))),
            board.label(board.start_point(North, n))
        );
    }
}

fn refused(doc: &str) -> war::BoardError {
    Board::parse(doc)
        .err()
        .unwrap_or_else(|| panic!("accepted:\n{doc}"))
}

fn line_of(doc: &str, needle: &str) -> usize {
    doc.lines().position(|l| l.contains(needle)).unwrap() + 1
}

#[test]
fn broken_board_files_are_refused_each_with_its_own_message() {
    let d = DEFAULT_BOARD;
    let cases: Vec<(String, &str, Option<&str>)> = vec![
        (
            d.replace("point d4 3 4", "pointy d4 3 4"),
            "unknown directive `pointy`",
            Some("pointy"),
        ),
        (
            d.replace("segment d4 d5 black", "segment d4 zz9 black"),
            "unknown point `zz9`",
            Some("zz9"),
        ),
        (
            format!("{d}segment d5 d4 black\n"),
            "segment d5-d4 is listed twice",
            Some("segment d5 d4"),
        ),
        (
            d.replace("start 17 g3\n", ""),
            "start point 17 is missing",
            None,
        ),
        (
            d.replace("fortress II d12\n", ""),
            "fortress point II is missing",
            None,
        ),
        (
            format!("{d}segment a2 a4 black\n"),
            "does not join two adjacent points",
            Some("a2 a4"),
        ),
        (
            d.replace("point d4 3 4", "point d4 3 4\npoint d4 9 9"),
            "point `d4` is defined twice",
            Some("d4 9 9"),
        ),
        (
            d.replace("segment d4 d5 black", "segment d4 d5 blue"),
            "unknown segment kind `blue`",
            Some("blue"),
        ),
        (
            d.replace("point d4 3 4", "point d4 3 x"),
            "coordinate `x` of point `d4`",
            Some("point d4 3 x"),
        ),
        (
            d.replace("point d4 3 4", "point d4 3 4\npoint zz 3 4"),
            "same coordinates as point `d4`",
            Some("zz"),
        ),
        (
            d.replace("start 17 g3", "start 25 g3"),
            "`25` is not a start number",
            Some("start 25"),
        ),
        (
            d.replace("start 5 b2", "start 5 a2"),
            "both start point 4 and 5",
            None,
        ),
        (
            d.replace("fortress 3 e1", "fortress 4 e1"),
            "not a fortress number",
            Some("fortress 4"),
        ),
        (
            d.replace("point d4 3 4", "point D4 3 4"),
            "point id `D4`",
            Some("D4"),
        ),
        ("# nothing\n".to_string(), "the board has no points", None),
        (
            d.replace("fortress 3 e1", "fortress 3 d1"),
            "the fortress points of seat 0 (South) are not three distinct points",
            None,
        ),
    ];
    let mut messages = BTreeSet::new();
    for (doc, expected, line) in &cases {
        let e = refused(doc);
        assert!(
            e.message.contains(expected),
            "expected `{expected}`, got `{e}`"
        );
        match line {
            Some(needle) => assert_eq!(e.line, Some(line_of(doc, needle)), "{e}"),
            None => assert_eq!(e.line, None, "{e}"),
        }
        assert!(e.to_string().starts_with("board"), "{e}");
        messages.insert(e.message.clone());
    }
    assert_eq!(
        messages.len(),
        cases.len(),
        "every broken file has its own message"
    );
}

#[test]
fn a_hostile_board_line_is_quoted_in_part() {
    let long = "q".repeat(5000);
    for doc in [
        DEFAULT_BOARD.replace("point d4 3 4", &format!("{long} d4 3 4")),
        DEFAULT_BOARD.replace("segment d4 d5 black", &format!("segment d4 d5 {long}")),
        DEFAULT_BOARD.replace("point d4 3 4", &format!("point d4 3 {long}")),
    ] {
        let e = refused(&doc);
        assert!(e.message.len() < 300, "{}", e.message);
    }
}

#[test]
fn a_small_custom_board_is_accepted_and_documents_round_trip() {
    // The default board written in another order, with comments, loads equal.
    let mut lines: Vec<&str> = DEFAULT_BOARD.lines().collect();
    lines.reverse();
    let shuffled = lines.join("\n# a comment\n");
    let a = Board::parse(DEFAULT_BOARD).unwrap();
    let b = Board::parse(&shuffled).unwrap();
    assert_eq!(a.len(), b.len());
    assert_eq!(a.segments().len(), b.segments().len());
    let again = Board::parse(&b.to_document()).unwrap();
    assert_eq!(again.to_document(), b.to_document());
}
