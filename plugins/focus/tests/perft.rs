//! Ruling F12: move counts from the starts, and the data file of positions
//! whose counts two independent generators must both reproduce.

use focus::{Position, Rules, perft};

use crate::simple::Simple;
use crate::support::position;

/// One line of `tests/data/perft.txt`: `name | players | d1,d2,d3 | position`.
struct Entry {
    name: String,
    players: u32,
    counts: Vec<u64>,
    text: String,
}

fn entries() -> Vec<Entry> {
    let data = include_str!("data/perft.txt");
    data.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let parts: Vec<&str> = line.split(" | ").collect();
            assert_eq!(parts.len(), 4, "malformed line: {line}");
            Entry {
                name: parts[0].to_string(),
                players: parts[1].parse().unwrap(),
                counts: parts[2].split(',').map(|c| c.parse().unwrap()).collect(),
                text: parts[3].to_string(),
            }
        })
        .collect()
}

fn start(players: u32) -> Position {
    Position::start(Rules::standard(players).unwrap())
}

#[test]
fn two_player_start_depths_1_to_3_ruling_f12() {
    let pos = start(2);
    assert_eq!(perft(&pos, 1), 68);
    assert_eq!(perft(&pos, 2), 4_460);
    assert_eq!(perft(&pos, 3), 299_912);
}

/// Depth 4 visits 304,440 positions with bulk counting at the leaves; a few
/// seconds in a debug build, so it stays in the normal suite.
#[test]
fn two_player_start_depth_4_ruling_f12() {
    assert_eq!(perft(&start(2), 4), 19_521_582);
}

#[test]
fn four_player_start_ruling_f12() {
    let pos = start(4);
    assert_eq!(perft(&pos, 1), 44);
    assert_eq!(perft(&pos, 2), 1_897);
    assert_eq!(perft(&pos, 3), 81_162);
}

#[test]
fn the_simple_generator_agrees_on_the_ruling_f12_starts() {
    assert_eq!(Simple::from_position(&start(2)).perft(3), 299_912);
    assert_eq!(Simple::from_position(&start(4)).perft(3), 81_162);
}

#[test]
fn data_file_counts_hold_for_both_generators() {
    let entries = entries();
    assert!(entries.len() >= 10, "the data file lost entries");
    for e in &entries {
        let pos = position(e.players, &e.text);
        let simple = Simple::from_position(&pos);
        for (i, &expected) in e.counts.iter().enumerate() {
            let depth = i as u32 + 1;
            assert_eq!(
                perft(&pos, depth),
                expected,
                "plugin, {} depth {depth}",
                e.name
            );
            assert_eq!(
                simple.perft(depth),
                expected,
                "simple, {} depth {depth}",
                e.name
            );
        }
    }
}

#[test]
fn data_file_positions_round_trip_and_cover_the_hard_cases() {
    let entries = entries();
    let mut tall = false;
    let mut reserves = false;
    let mut out = false;
    for e in &entries {
        let pos = position(e.players, &e.text);
        assert_eq!(focus::write_position(&pos.to_raw()), e.text, "{}", e.name);
        tall |= focus::Square::all().any(|s| pos.tower(s).height() == 5);
        reserves |= (0..e.players as u8).any(|c| pos.reserve(c) > 0) && e.players == 2;
        out |= !pos.out_order().is_empty();
    }
    assert!(tall && reserves && out);
}

/// Prints the counts of every data-file position by both generators, for
/// regenerating the file: `cargo test -p focus -- --ignored print_perft`.
#[test]
#[ignore]
fn print_perft_counts() {
    for e in entries() {
        let pos = position(e.players, &e.text);
        let simple = Simple::from_position(&pos);
        let mine: Vec<u64> = (1..=3).map(|d| perft(&pos, d)).collect();
        let theirs: Vec<u64> = (1..=3).map(|d| simple.perft(d)).collect();
        println!("{} plugin {mine:?} simple {theirs:?}", e.name);
    }
}
