//! The table-driven adjudication suite: every case in `adjudication_cases.txt`
//! (a start position, everyone's orders, the expected fields, captures and
//! chips) is run through the adjudicator, in the listed order and in other
//! orders of the pieces (ruling L7: the result does not depend on it).

use std::collections::BTreeMap;

use lanza::adjudicate::{Adjudication, Fate, PieceOrder, adjudicate};
use lanza::board::{Board, BoardKind, Dir};
use lanza::piece::{PieceId, Rank};

const CASES: &str = include_str!("adjudication_cases.txt");

#[derive(Debug, Default)]
struct Case {
    name: String,
    lines: BTreeMap<String, String>,
}

fn cases() -> Vec<Case> {
    let mut out: Vec<Case> = Vec::new();
    for line in CASES.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        if key == "case" {
            out.push(Case {
                name: rest.to_string(),
                ..Case::default()
            });
        } else {
            let case = out.last_mut().expect("a `case` line comes first");
            let old = case.lines.insert(key.to_string(), rest.to_string());
            assert!(old.is_none(), "{}: `{key}` given twice", case.name);
        }
    }
    out
}

fn board_of(case: &Case) -> &'static Board {
    match case.lines.get("board").map(String::as_str) {
        Some("19") => BoardKind::Hex19.board(),
        Some("27") => BoardKind::Hex27.board(),
        Some("37") => BoardKind::Hex37.board(),
        other => panic!("{}: bad board {other:?}", case.name),
    }
}

fn line<'a>(case: &'a Case, key: &str) -> &'a str {
    case.lines
        .get(key)
        .unwrap_or_else(|| panic!("{}: no `{key}` line", case.name))
}

fn piece(case: &Case, text: &str) -> PieceId {
    PieceId::parse(text).unwrap_or_else(|| panic!("{}: `{text}` is not a piece", case.name))
}

/// The orders of the case, checked against ruling L5 (one card per piece,
/// different cards within a seat).
fn orders(case: &Case, board: &Board) -> Vec<PieceOrder> {
    let mut origins = BTreeMap::new();
    for entry in line(case, "start").split(',') {
        let (p, f) = entry.trim().split_once(' ').expect("`AK c3`");
        let field = board
            .parse_field(f)
            .unwrap_or_else(|| panic!("{}: `{f}` is not a field", case.name));
        assert!(origins.insert(piece(case, p), field).is_none());
    }
    let mut out = Vec::new();
    for seat in line(case, "orders").split(';') {
        let (letter, cards) = seat.trim().split_once(':').expect("`A: K4 Q1`");
        let mut used = Vec::new();
        for token in cards.split_whitespace() {
            let rank = Rank::from_letter(token.chars().next().unwrap()).unwrap();
            let card: u8 = token[1..].parse().unwrap();
            assert!(
                !used.contains(&card),
                "{}: seat {letter} repeats card {card} (ruling L5)",
                case.name
            );
            used.push(card);
            let p = piece(case, &format!("{letter}{}", rank.letter()));
            let origin = origins
                .remove(&p)
                .unwrap_or_else(|| panic!("{}: {p} has no start field or two orders", case.name));
            out.push(PieceOrder {
                piece: p,
                origin,
                card: Dir::new(card).unwrap(),
            });
        }
    }
    assert!(
        origins.is_empty(),
        "{}: pieces without orders: {origins:?}",
        case.name
    );
    out
}

fn check(case: &Case, board: &Board, result: &Adjudication) {
    let name = &case.name;
    for entry in line(case, "expect").split(',') {
        let (p, f) = entry.trim().split_once(' ').expect("`AK c3`");
        let r = result
            .get(piece(case, p))
            .unwrap_or_else(|| panic!("{name}: no result for {p}"));
        let got = r.end().map_or("x", |f| board.name(f));
        assert_eq!(got, f, "{name}: {p} ended on {got}, expected {f} ({r:?})");
    }
    let mut captures: Vec<String> = result
        .captures()
        .map(|(by, v)| format!("{by}>{v}"))
        .collect();
    captures.sort();
    let mut expected: Vec<String> = match line(case, "captures") {
        "none" => Vec::new(),
        list => list.split(',').map(|c| c.trim().to_string()).collect(),
    };
    expected.sort();
    assert_eq!(captures, expected, "{name}: captures");
    let chips = result.chips();
    for entry in line(case, "chips").split_whitespace() {
        let seat = u32::from(entry.as_bytes()[0] - b'A');
        let want: u32 = entry[1..].parse().unwrap();
        assert_eq!(
            chips[seat as usize], want,
            "{name}: chips of seat {entry} (rulings L8, L9)"
        );
    }
    if let Some(stops) = case.lines.get("stops") {
        for entry in stops.split_whitespace() {
            let (p, why) = entry.split_once(':').unwrap();
            let r = result.get(piece(case, p)).unwrap();
            match r.fate {
                Fate::Stopped(reason) => assert_eq!(reason.name(), why, "{name}: why {p} stopped"),
                other => panic!("{name}: {p} should have stopped ({why}), got {other:?}"),
            }
        }
    }
    if let Some(bounced) = case.lines.get("bounced") {
        let mut want: Vec<&str> = bounced
            .split_whitespace()
            .filter(|&b| b != "none")
            .collect();
        want.sort();
        let got: Vec<String> = result
            .resolutions()
            .iter()
            .filter(|r| r.bounced)
            .map(|r| r.piece.to_string())
            .collect();
        assert_eq!(got, want, "{name}: bounced pieces (ruling L6)");
    }
}

#[test]
fn the_suite_has_at_least_40_named_cases() {
    let cases = cases();
    assert!(cases.len() >= 40, "{} cases", cases.len());
    let mut names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), cases.len(), "case names are unique");
}

#[test]
fn every_case_adjudicates_as_expected() {
    for case in cases() {
        let board = board_of(&case);
        let orders = orders(&case, board);
        let result = adjudicate(board, &orders).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        check(&case, board, &result);
    }
}

/// Heap's algorithm: calls `visit` with every permutation of `items`.
fn permutations<T: Clone>(items: &mut Vec<T>, k: usize, visit: &mut dyn FnMut(&[T])) {
    if k <= 1 {
        visit(items);
        return;
    }
    for i in 0..k {
        permutations(items, k - 1, visit);
        let j = if k.is_multiple_of(2) { i } else { 0 };
        items.swap(j, k - 1);
    }
}

#[test]
fn every_case_gives_the_same_result_in_every_order() {
    for case in cases() {
        let board = board_of(&case);
        let mut orders = orders(&case, board);
        let reference = adjudicate(board, &orders).unwrap();
        let n = orders.len();
        permutations(&mut orders, n, &mut |perm| {
            let again = adjudicate(board, perm).unwrap();
            assert_eq!(again, reference, "{}: order {perm:?}", case.name);
        });
    }
}
