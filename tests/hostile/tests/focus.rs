//! The committed inputs of the `focus_*` fuzz targets, replayed as tests
//! (`fuzz/seeds/`), and the writer of their seeds.

use tabletop_hostile::{game, replay::replay, replay::seeds_dir, seeds};

/// Action texts every seed set tries besides the legal ones.
const TEXTS: &[&str] = &["c3-e3", "*d4", "b2<>d2", "a1-a9", "", "c3-e3 c3-e3"];

#[test]
fn focus_position_inputs_are_read_or_refused_cleanly() {
    assert!(replay("focus_position", |data| game::position(&focus::Focus, data)) > 0);
}

#[test]
fn focus_notation_inputs_are_read_or_refused_cleanly() {
    assert!(replay("focus_notation", |data| game::notation(&focus::Focus, data)) > 0);
}

/// Rewrites the `seed-*` files of this game's targets (run by hand:
/// `cargo test -p tabletop-hostile --test focus -- --ignored`).
#[test]
#[ignore = "writes the seed corpus; run by hand"]
fn write_seeds() {
    seeds::write(
        &seeds_dir("focus_position"),
        &seeds::position_seeds(&focus::Focus, TEXTS),
    )
    .unwrap();
    seeds::write(
        &seeds_dir("focus_notation"),
        &seeds::notation_seeds(&focus::Focus, TEXTS),
    )
    .unwrap();
}
