//! The record-import check behind the `record_import` fuzz target: the
//! host's record parser and replay, in-process, on hostile JSON.
//!
//! It walks the steps of the host's import (engine-host's
//! `Engine::import`: parse, check the seat players, find the game, replay
//! the log through it, verify the end) without a store, a registry or gRPC.

use std::sync::Arc;

use tabletop_core::identity::check_seat_players;
use tabletop_core::{HostError, Match, Record};
use tabletop_sdk::{DynGame, PlayerSet};

use crate::game::message_limit;

/// Fuzz target: `data` as a record's JSON, imported with `game` (the one
/// game the target links; a record naming another is refused as the host
/// refuses a game it has not loaded). A record that imports must export
/// to a record that imports to the same match again.
pub fn import(game: &Arc<dyn DynGame>, data: &[u8]) {
    let Ok(json) = std::str::from_utf8(data) else {
        return;
    };
    match replay(game, json) {
        Err(e) => check_refusal(&e),
        Ok(m) => {
            let exported = Record::of(&m).expect("an imported match exports");
            let again = match replay(game, &exported.to_json()) {
                Ok(again) => again,
                Err(e) => panic!("an imported record's export does not import: {e}"),
            };
            assert_eq!(again.position().ok(), m.position().ok());
            assert_eq!(
                again.log(),
                m.log(),
                "a re-imported record replays another log"
            );
            assert_eq!(again.results(), m.results());
        }
    }
}

/// The import's steps, up to the match it would store.
pub fn replay(game: &Arc<dyn DynGame>, json: &str) -> Result<Match, HostError> {
    let record = Record::parse(json)?;
    check_seat_players(&record.seat_players, record.players, &[])
        .map_err(|e| HostError::InvalidRecord(format!("seat_players: {e}")))?;
    if record.game != game.manifest().name {
        return Err(HostError::GameNotLoaded {
            game: record.game.clone(),
            version: record.plugin_version.clone(),
        });
    }
    // One token hash per seat, as the host issues them; a seat count no
    // game can have is refused before anything is allocated for it.
    if record.players > PlayerSet::MAX_PLAYERS {
        return Err(HostError::InvalidRecord(format!(
            "{} players: a match has at most {}",
            record.players,
            PlayerSet::MAX_PLAYERS
        )));
    }
    let hashes = (0..record.players)
        .map(|seat| Some([seat as u8; 32]))
        .collect();
    let m = Match::replay(
        Arc::clone(game),
        record.setup("imported".into()),
        hashes,
        &record.actions,
    )?;
    record.verify(&m)?;
    Ok(m)
}

/// An import refusal: never an internal error or a plugin fault, never long.
pub fn check_refusal(e: &HostError) {
    let message = e.to_string();
    assert!(
        !matches!(e, HostError::Internal(_) | HostError::PluginFault(_)),
        "a record import failed with a fault: {message}"
    );
    assert!(
        message.len() <= message_limit(),
        "a record import is refused with a message of {} bytes (at most {}): {}…",
        message.len(),
        message_limit(),
        message.chars().take(200).collect::<String>()
    );
}
