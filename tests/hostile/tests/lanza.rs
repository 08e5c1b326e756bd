//! The committed inputs of the `lanza_*` fuzz targets, replayed as tests
//! (`fuzz/seeds/`), and the writer of their seeds.

use tabletop_hostile::{game, replay::replay, replay::seeds_dir, seeds};

/// Action texts every seed set tries besides the legal ones.
const TEXTS: &[&str] = &["K2 Q5 J1", "Q@e1", "e1", "K9 K9 K9", "", "AK"];

#[test]
fn lanza_position_inputs_are_read_or_refused_cleanly() {
    assert!(replay("lanza_position", |data| game::position(&lanza::Lanza, data)) > 0);
}

#[test]
fn lanza_notation_inputs_are_read_or_refused_cleanly() {
    assert!(replay("lanza_notation", |data| game::notation(&lanza::Lanza, data)) > 0);
}

/// Rewrites the `seed-*` files of this game's targets (run by hand:
/// `cargo test -p tabletop-hostile --test lanza -- --ignored`).
#[test]
#[ignore = "writes the seed corpus; run by hand"]
fn write_seeds() {
    seeds::write(
        &seeds_dir("lanza_position"),
        &seeds::position_seeds(&lanza::Lanza, TEXTS),
    )
    .unwrap();
    seeds::write(
        &seeds_dir("lanza_notation"),
        &seeds::notation_seeds(&lanza::Lanza, TEXTS),
    )
    .unwrap();
}
