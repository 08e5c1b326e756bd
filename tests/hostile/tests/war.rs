//! The committed inputs of the `war_*` fuzz targets, replayed as tests
//! (`fuzz/seeds/`), and the writer of their seeds.

use tabletop_hostile::{game, replay::replay, replay::seeds_dir, seeds};

/// Action texts every seed set tries besides the legal ones.
const TEXTS: &[&str] = &[
    "I@1",
    "I@c1",
    "III/CIIIIIC/IIIIIII/CACCAIC",
    "I@1 C@2 AA",
    "d4-d5",
    "b3xb5",
    "c2!N",
    "=d5-d6",
    "#d5-d6",
    "-d5-d6",
    "IIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIII",
];

#[test]
fn war_position_inputs_are_read_or_refused_cleanly() {
    assert!(replay("war_position", |data| game::position(&war::War, data)) > 0);
}

#[test]
fn war_notation_inputs_are_read_or_refused_cleanly() {
    assert!(replay("war_notation", |data| game::notation(&war::War, data)) > 0);
}

#[test]
fn war_board_documents_are_read_or_refused_cleanly() {
    assert!(
        replay("war_board", |data| game::option_text(
            &war::War,
            "board",
            data
        )) > 0
    );
}

/// Rewrites the `seed-*` files of this game's targets (run by hand:
/// `cargo test -p tabletop-hostile --test war -- --ignored`).
#[test]
#[ignore = "writes the seed corpus; run by hand"]
fn write_seeds() {
    seeds::write(
        &seeds_dir("war_position"),
        &seeds::position_seeds(&war::War, TEXTS),
    )
    .unwrap();
    seeds::write(
        &seeds_dir("war_notation"),
        &seeds::notation_seeds(&war::War, TEXTS),
    )
    .unwrap();
    let default = include_str!("../../../plugins/war/boards/default.board");
    let mut lines: Vec<&str> = default.lines().collect();
    lines.reverse();
    let reversed = lines.join("\n# a comment\n");
    seeds::write(
        &seeds_dir("war_board"),
        &seeds::option_seeds(
            &war::War,
            &[default, &reversed, "default", "name tiny\npoint a1 0 0\n"],
        ),
    )
    .unwrap();
}
