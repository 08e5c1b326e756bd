//! The match core's own tests: sequences, simultaneous turns with clocks,
//! the legal-action cache, what viewers are told, bot turns and
//! quarantined matches, on in-process games.

mod bots;
mod clocks;
mod legal_cache;
mod placing;
mod quarantine;
mod sequences;
mod simultaneous;
mod watching;

use std::collections::BTreeMap;
use std::sync::Arc;

use tabletop_sdk::{
    ActionId, Chance, DynGame, Game, GameError, InProcess, Manifest, Move, Player, PlayerResult,
    Setup, Status, serde_json,
};

use crate::tokens::hash_token;
use crate::*;
use placing::{PLACES, Placing};

fn new_match() -> Match {
    placing_match(placing_setup())
}

fn placing_setup() -> MatchSetup {
    MatchSetup {
        match_id: "m".into(),
        game: "placing".into(),
        plugin_version: "0".into(),
        plugin_sha256: None,
        players: 2,
        options: BTreeMap::new(),
        seed: 1,
        start_position: None,
        created_at_ms: 0,
        time_control: None,
        labels: Default::default(),
        open_seat_deadline: None,
        spectator_delay: None,
        tenant: String::new(),
        creator: String::new(),
        seat_players: Vec::new(),
    }
}

fn placing_match(setup: MatchSetup) -> Match {
    let game: Arc<dyn DynGame> = Arc::new(InProcess::new(Placing));
    Match::create(game, setup, vec![Some([0; 32]), Some([1; 32])]).unwrap()
}

/// A running 3-seat Lanza match (simultaneous orders, ruling L5) whose
/// clock takes a seat out; every seat's clock starts at `t0`.
fn lanza_match(t0: i64) -> Match {
    lanza_match_timed(
        t0,
        Some(TimeControl {
            per_move_ms: 0,
            bank_ms: 1_000,
            increment_ms: 0,
            on_timeout: OnTimeout::Out,
        }),
    )
}

/// A running 3-seat Lanza match under `time_control`, created at `t0`.
fn lanza_match_timed(t0: i64, time_control: Option<TimeControl>) -> Match {
    let setup = MatchSetup {
        match_id: "m".into(),
        game: "lanza".into(),
        plugin_version: "test".into(),
        plugin_sha256: None,
        players: 3,
        options: BTreeMap::new(),
        seed: 5,
        start_position: None,
        created_at_ms: t0,
        time_control,
        labels: Default::default(),
        open_seat_deadline: None,
        spectator_delay: None,
        tenant: String::new(),
        creator: String::new(),
        seat_players: Vec::new(),
    };
    let game: Arc<dyn DynGame> = Arc::new(InProcess::new(lanza::Lanza));
    // Created at `t0`, with every seat to move: every clock runs from `t0`.
    Match::create(game, setup, vec![Some([1; 32]); 3]).unwrap()
}
