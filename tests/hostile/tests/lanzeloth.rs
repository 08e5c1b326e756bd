//! The committed inputs of the `lanzeloth_*` fuzz targets, replayed as tests
//! (`fuzz/seeds/`), and the writer of their seeds.

use tabletop_hostile::{game, replay::replay, replay::seeds_dir, seeds};

/// Action texts every seed set tries besides the legal ones.
const TEXTS: &[&str] = &[
    "flip",
    "play-open",
    "place new",
    "place p1",
    "place m1",
    "place m99999999999",
    "",
];

#[test]
fn lanzeloth_position_inputs_are_read_or_refused_cleanly() {
    assert!(
        replay("lanzeloth_position", |data| game::position(
            &lanzeloth::Lanzeloth,
            data
        )) > 0
    );
}

#[test]
fn lanzeloth_notation_inputs_are_read_or_refused_cleanly() {
    assert!(
        replay("lanzeloth_notation", |data| game::notation(
            &lanzeloth::Lanzeloth,
            data
        )) > 0
    );
}

/// Rewrites the `seed-*` files of this game's targets (run by hand:
/// `cargo test -p tabletop-hostile --test lanzeloth -- --ignored`).
#[test]
#[ignore = "writes the seed corpus; run by hand"]
fn write_seeds() {
    seeds::write(
        &seeds_dir("lanzeloth_position"),
        &seeds::position_seeds(&lanzeloth::Lanzeloth, TEXTS),
    )
    .unwrap();
    seeds::write(
        &seeds_dir("lanzeloth_notation"),
        &seeds::notation_seeds(&lanzeloth::Lanzeloth, TEXTS),
    )
    .unwrap();
}
