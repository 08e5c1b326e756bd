//! The committed inputs of the `record_import` fuzz target (records of
//! Lanza, the simultaneous game with chance and removable players),
//! replayed as tests, and the writer of their seeds.

use std::sync::Arc;

use tabletop_hostile::{record, replay::replay, replay::seeds_dir, seeds};
use tabletop_sdk::{DynGame, InProcess};

fn lanza() -> Arc<dyn DynGame> {
    Arc::new(InProcess::new(lanza::Lanza))
}

#[test]
fn record_inputs_import_and_export_alike_or_are_refused_cleanly() {
    let game = lanza();
    assert!(replay("record_import", |data| record::import(&game, data)) > 0);
}

/// Rewrites the `seed-*` files of the target (run by hand:
/// `cargo test -p tabletop-hostile --test record -- --ignored`).
#[test]
#[ignore = "writes the seed corpus; run by hand"]
fn write_seeds() {
    seeds::write(&seeds_dir("record_import"), &seeds::record_seeds(lanza())).unwrap();
}
