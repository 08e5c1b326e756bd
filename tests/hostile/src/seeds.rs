//! The seed corpus of each fuzz target, written from the games themselves:
//! positions and actions of random play, shorthands and board documents a
//! caller adds, and records of random matches. The files live in
//! `fuzz/seeds/TARGET/`; `crate::replay` reads them back as tests.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use tabletop_core::{LegalDetail, Match, MatchSetup, Record, SeatPlayer, TimeControl, Viewer};
use tabletop_sdk::{DynGame, Extended, Setup, Status};

use crate::game::play;
use crate::input::{Rng, encode};

/// Seeds of random play, per game.
const SEEDS: [u64; 2] = [7, 1_000_003];

/// Random plies before a position is printed or an action is picked.
const PLIES: [u8; 4] = [0, 3, 17, 60];

/// One seed file.
#[derive(Debug, Clone)]
pub struct Seed {
    /// The file name.
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// Player counts to seed: the fewest, the most, and one between.
fn player_counts<G: Extended>(game: &G) -> Vec<u32> {
    let m = game.manifest();
    let mut counts = vec![
        m.min_players,
        (m.min_players + m.max_players) / 2,
        m.max_players,
    ];
    counts.dedup();
    counts
}

/// The state random play reaches from the start, as the harness plays it.
fn played<G: Extended>(game: &G, players: u32, plies: u8, seed: u64) -> Option<(Setup, G::State)> {
    let setup = Setup::validate(&game.manifest(), players, &BTreeMap::new()).ok()?;
    let start = game.new_state(&setup).ok()?;
    let state = play(game, &setup, start, plies.into(), &mut Rng::new(seed));
    Some((setup, state))
}

/// The notation of a random legal action of a seat to move, if any.
fn some_action<G: Extended>(game: &G, state: &G::State, seed: u64) -> Option<String> {
    let Status::ToMove(set) = game.status(state) else {
        return None;
    };
    let player = set.first()?;
    let mut legal = Vec::new();
    game.legal_actions(state, player, &mut legal);
    let id = *legal.get(Rng::new(seed).below(legal.len()))?;
    game.action_to_string(state, player, id).ok()
}

/// Positions of random play, each followed by a NUL and one of its legal
/// actions; `texts` are further action texts tried on the start position.
pub fn position_seeds<G: Extended>(game: &G, texts: &[&str]) -> Vec<Seed> {
    let manifest = game.manifest();
    let mut out = Vec::new();
    for players in player_counts(game) {
        for (i, &plies) in PLIES.iter().enumerate() {
            let seed = SEEDS[i % SEEDS.len()];
            let Some((_, state)) = played(game, players, plies, seed) else {
                continue;
            };
            let mut text = game.position_to_string(&state);
            if let Some(action) = some_action(game, &state, seed) {
                text.push('\0');
                text.push_str(&action);
            }
            out.push(Seed {
                name: format!("p{players}-ply{plies}"),
                bytes: encode(&manifest, players, 2, seed, &[], &text),
            });
        }
    }
    let players = manifest.min_players;
    if let Some((_, state)) = played(game, players, 0, SEEDS[0]) {
        let position = game.position_to_string(&state);
        for (i, text) in texts.iter().enumerate() {
            let text = format!("{position}\0{text}");
            out.push(Seed {
                name: format!("start-text{i}"),
                bytes: encode(&manifest, players, 0, SEEDS[0], &[], &text),
            });
        }
    }
    out
}

/// Legal action texts after random play (the header replays the same
/// play), and `texts` tried after `plies` of them.
pub fn notation_seeds<G: Extended>(game: &G, texts: &[&str]) -> Vec<Seed> {
    let manifest = game.manifest();
    let mut out = Vec::new();
    for players in player_counts(game) {
        for (i, &plies) in PLIES.iter().enumerate() {
            let seed = SEEDS[i % SEEDS.len()];
            let Some((_, state)) = played(game, players, plies, seed) else {
                continue;
            };
            if let Some(action) = some_action(game, &state, seed) {
                out.push(Seed {
                    name: format!("p{players}-ply{plies}"),
                    bytes: encode(&manifest, players, plies, seed, &[], &action),
                });
            }
        }
    }
    for (i, text) in texts.iter().enumerate() {
        out.push(Seed {
            name: format!("text{i}"),
            bytes: encode(&manifest, manifest.min_players, 0, SEEDS[0], &[], text),
        });
    }
    // Every option at a bound or another value, once each.
    for (i, _) in manifest.options.iter().enumerate() {
        for byte in [1u8, 2, 5] {
            let mut options = vec![0; manifest.options.len()];
            options[i] = byte;
            out.push(Seed {
                name: format!("option{i}-{byte}"),
                bytes: encode(&manifest, manifest.min_players, 9, SEEDS[1], &options, ""),
            });
        }
    }
    out
}

/// Each document as the value of free-text option `option`.
pub fn option_seeds<G: Extended>(game: &G, documents: &[&str]) -> Vec<Seed> {
    let manifest = game.manifest();
    documents
        .iter()
        .enumerate()
        .map(|(i, doc)| Seed {
            name: format!("document{i}"),
            bytes: encode(&manifest, manifest.min_players, 20, SEEDS[0], &[], doc),
        })
        .collect()
}

/// Records of random matches of `game`: finished and running, with a
/// clock, labels, named players and a resignation.
pub fn record_seeds(game: Arc<dyn DynGame>) -> Vec<Seed> {
    let manifest = game.manifest().clone();
    let mut out = Vec::new();
    for (i, players) in [manifest.min_players, manifest.max_players]
        .into_iter()
        .enumerate()
    {
        for (j, actions) in [4usize, 40, 4000].into_iter().enumerate() {
            let extras = i == 1 && j == 1;
            let setup = MatchSetup {
                match_id: format!("seed{i}{j}"),
                game: manifest.name.clone(),
                plugin_version: manifest.version.clone(),
                plugin_sha256: None,
                players,
                options: BTreeMap::new(),
                seed: SEEDS[j % SEEDS.len()],
                start_position: None,
                created_at_ms: tabletop_core::now_ms(),
                time_control: extras.then_some(TimeControl {
                    per_move_ms: 0,
                    bank_ms: 3_600_000,
                    increment_ms: 1_000,
                    on_timeout: Default::default(),
                }),
                labels: if extras {
                    BTreeMap::from([("round".to_string(), "3".to_string())])
                } else {
                    BTreeMap::new()
                },
                open_seat_deadline: None,
                spectator_delay: None,
                tenant: String::new(),
                creator: String::new(),
                seat_players: if extras {
                    vec![SeatPlayer {
                        seat: 0,
                        display_name: "Ana".into(),
                        external_id: "p-17".into(),
                        bot: String::new(),
                    }]
                } else {
                    Vec::new()
                },
            };
            let hashes = (0..players).map(|s| Some([s as u8; 32])).collect();
            let Ok(mut m) = Match::create(Arc::clone(&game), setup, hashes) else {
                continue;
            };
            play_match(&mut m, actions, SEEDS[j % SEEDS.len()]);
            if extras {
                let _ = m.resign(players - 1);
            }
            if let Ok(record) = Record::of(&m) {
                out.push(Seed {
                    name: format!("record-p{players}-{actions}"),
                    bytes: record.to_json().into_bytes(),
                });
            }
        }
    }
    out
}

/// Submits up to `actions` random legal actions.
fn play_match(m: &mut Match, actions: usize, seed: u64) {
    let mut rng = Rng::new(seed);
    for _ in 0..actions {
        let Ok(view) = m.view(Viewer::Spectator) else {
            return;
        };
        // A simultaneous turn lists a seat that has acted until all have.
        let choice = view.to_move.iter().find_map(|&seat| {
            let legal = m.legal_actions(seat, LegalDetail::IdsOnly).ok()?;
            let &(id, _) = legal.get(rng.below(legal.len()))?;
            Some((seat, id))
        });
        let Some((seat, id)) = choice else {
            return;
        };
        if m.submit(seat, id, None).is_err() {
            return;
        }
    }
}

/// Writes `seeds` into `dir` as `seed-NAME` files, replacing the old
/// `seed-*` files and keeping every other file (regressions of crashes).
pub fn write(dir: &Path, seeds: &[Seed]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("seed-"))
        {
            std::fs::remove_file(path)?;
        }
    }
    for seed in seeds {
        std::fs::write(dir.join(format!("seed-{}", seed.name)), &seed.bytes)?;
    }
    Ok(())
}
