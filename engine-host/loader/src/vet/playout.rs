//! The playouts of [`smoke_check`](super::smoke_check): a loaded game is
//! played a little, as the host would play it, and any call that fails
//! where it must succeed is misbehaviour.

use std::collections::BTreeMap;
use std::fmt;

use rand_xoshiro::SplitMix64;
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use tabletop_sdk::{ActionId, DynGame, DynState, GameError, Manifest, Move, Status, Viewer};

use super::{MAX_PLIES, Refusal};

/// Seeds of the playouts, each played at the fewest and the most seats.
const SEEDS: [u64; 2] = [1, 2];

/// How often, in plies, every viewer's view and text and the position are
/// asked for (and at the start and the end).
const LOOK_EVERY: u64 = 16;

/// The checks of [`smoke_check`](super::smoke_check) after loading: the
/// options, then the playouts. Returns (playouts, plies).
pub(super) fn play_checks(game: &dyn DynGame) -> Result<(u32, u64), Refusal> {
    let manifest = game.manifest();
    check_options(manifest)?;
    let mut seat_counts = vec![manifest.min_players, manifest.max_players];
    seat_counts.dedup();
    let (mut playouts, mut plies) = (0, 0);
    for &players in &seat_counts {
        for seed in SEEDS {
            plies += Playout::new(game, players, seed)?.run()?;
            playouts += 1;
        }
    }
    Ok((playouts, plies))
}

/// Every option's default must be a value of the option: matches are
/// created with the defaults.
pub(super) fn check_options(manifest: &Manifest) -> Result<(), Refusal> {
    for spec in &manifest.options {
        spec.parse(&spec.default.to_text()).map_err(|e| {
            Refusal::Misbehaved(format!(
                "the default of option `{}` is not one of its values: {e}",
                spec.name
            ))
        })?;
    }
    Ok(())
}

/// One seeded playout.
struct Playout {
    state: Box<dyn DynState>,
    players: u32,
    seed: u64,
    ply: u64,
    random: SplitMix64,
    chance_draws: u64,
    legal: Vec<ActionId>,
}

/// An error of a call that must succeed, with its kind: a fault kind says
/// the plugin itself broke.
fn described(e: &GameError) -> String {
    if e.kind.is_fault() {
        format!("a plugin fault ({:?}): {}", e.kind, e.message)
    } else {
        format!("an error ({:?}): {}", e.kind, e.message)
    }
}

impl Playout {
    fn new(game: &dyn DynGame, players: u32, seed: u64) -> Result<Playout, Refusal> {
        let state = game
            .new_state(players, &BTreeMap::new(), None)
            .map_err(|e| {
                Refusal::Misbehaved(format!(
                    "a new {players}-player game with default options gave {}",
                    described(&e)
                ))
            })?;
        Ok(Playout {
            state,
            players,
            seed,
            ply: 0,
            random: SplitMix64::seed_from_u64(seed),
            chance_draws: 0,
            legal: Vec::new(),
        })
    }

    /// Misbehaviour at this point of the playout.
    fn bad(&self, what: impl fmt::Display) -> Refusal {
        Refusal::Misbehaved(format!(
            "{what} ({} players, seed {}, ply {})",
            self.players, self.seed, self.ply
        ))
    }

    /// An error of `call`, which must succeed.
    fn failed(&self, call: &str, e: &GameError) -> Refusal {
        self.bad(format_args!("{call} gave {}", described(e)))
    }

    /// Plays to the end or [`MAX_PLIES`]; returns the plies played.
    fn run(mut self) -> Result<u64, Refusal> {
        while self.ply < MAX_PLIES {
            if self.ply.is_multiple_of(LOOK_EVERY) {
                self.look()?;
            }
            let status = self.state.status().map_err(|e| self.failed("status", &e))?;
            match status {
                Status::Terminal => {
                    self.look()?;
                    self.check_results()?;
                    return Ok(self.ply);
                }
                Status::Chance => self.chance()?,
                Status::ToMove(movers) => {
                    let moves = self.choose(movers)?;
                    // The host applies both ways: a plain apply, and the
                    // one-call apply that lends the next legal list.
                    let applied = if self.ply.is_multiple_of(2) {
                        self.state.apply(&moves)
                    } else {
                        self.state.apply_and_lend_legal(&moves, None).map(|_| ())
                    };
                    applied.map_err(|e| {
                        self.bad(format_args!(
                            "applying the legal moves {moves:?} gave {}",
                            described(&e)
                        ))
                    })?;
                }
            }
            self.ply += 1;
        }
        self.look()?;
        Ok(self.ply)
    }

    /// A seeded legal action for every mover.
    fn choose(&mut self, movers: tabletop_sdk::PlayerSet) -> Result<Vec<Move>, Refusal> {
        if movers.is_empty() {
            return Err(self.bad("no seat is to move, yet the game is not over"));
        }
        let mut moves = Vec::with_capacity(movers.len());
        for player in movers.iter() {
            if player >= self.players {
                return Err(self.bad(format_args!(
                    "seat {player} is to move in a {}-player game",
                    self.players
                )));
            }
            let mut legal = std::mem::take(&mut self.legal);
            self.state
                .legal_actions(player, &mut legal)
                .map_err(|e| self.failed("legal_actions", &e))?;
            if legal.is_empty() {
                return Err(self.bad(format_args!(
                    "seat {player} is to move but has no legal action"
                )));
            }
            let pick = (self.random.next_u64() % legal.len() as u64) as usize;
            let action = legal[pick];
            self.legal = legal;
            self.state
                .action_to_string(player, action)
                .map_err(|e| self.failed("action_to_string of a legal action", &e))?;
            moves.push(Move { player, action });
        }
        Ok(moves)
    }

    /// Resolves a chance node as the host does.
    fn chance(&mut self) -> Result<(), Refusal> {
        let chance = self.state.chance().map_err(|e| self.failed("chance", &e))?;
        let outcome = tabletop_sdk::chance::draw(&chance, self.seed, self.chance_draws)
            .map_err(|e| self.failed("the chance distribution", &e))?;
        self.chance_draws += 1;
        self.state
            .apply_chance(outcome)
            .map_err(|e| self.failed(&format!("apply_chance({outcome})"), &e))
    }

    /// Every viewer's view (JSON) and text, and the position.
    fn look(&self) -> Result<(), Refusal> {
        let viewers = (0..self.players)
            .map(Viewer::Seat)
            .chain(std::iter::once(Viewer::Spectator));
        for viewer in viewers {
            let view = self
                .state
                .view(viewer)
                .map_err(|e| self.failed(&format!("view for {viewer:?}"), &e))?;
            if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(&view) {
                return Err(self.bad(format_args!("the view for {viewer:?} is not JSON: {e}")));
            }
            self.state
                .render_text(viewer)
                .map_err(|e| self.failed(&format!("render_text for {viewer:?}"), &e))?;
        }
        self.state
            .position()
            .map_err(|e| self.failed("position", &e))?;
        Ok(())
    }

    /// One result per seat, ranks within 1..=players, finite scores.
    fn check_results(&self) -> Result<(), Refusal> {
        let results = self
            .state
            .results()
            .map_err(|e| self.failed("results", &e))?;
        if results.len() != self.players as usize {
            return Err(self.bad(format_args!(
                "the results cover {} of {} seats",
                results.len(),
                self.players
            )));
        }
        let seats = self.players;
        if let Some((seat, r)) = results
            .iter()
            .enumerate()
            .find(|(_, r)| r.rank == 0 || r.rank > seats || !r.score.is_finite())
        {
            return Err(self.bad(format_args!(
                "seat {seat}'s result is rank {} score {}",
                r.rank, r.score
            )));
        }
        Ok(())
    }
}
