//! The deal and the starting player (ruling Z2), both chance.

use tabletop_sdk::{Chance, Player};

use crate::position::{Phase, Position, Stage};
use crate::rng::shuffle;
use crate::tile::{FaceDownTile, Number};

/// Why a chance outcome was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChanceError(pub(crate) String);

impl std::fmt::Display for ChanceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ChanceError {}

impl Position {
    /// The chance node of this state: the shuffle is sampled (120 tiles have
    /// far too many orders to list), the starting player explicit and uniform.
    pub fn chance_node(&self) -> Option<Chance> {
        match self.phase {
            Phase::Deal => Some(Chance::Sampled),
            Phase::FirstPlayer => {
                let n = self.rules.players;
                let p = 1.0 / f64::from(n);
                Some(Chance::Explicit(
                    (0..n).map(|seat| (u64::from(seat), p)).collect(),
                ))
            }
            _ => None,
        }
    }

    /// Applies a chance outcome: the shuffle seed at the deal, a seat for the
    /// starting player.
    pub fn apply_chance(&mut self, outcome: u64) -> Result<(), ChanceError> {
        match self.phase {
            Phase::Deal => {
                self.deal(outcome);
                Ok(())
            }
            Phase::FirstPlayer => {
                let seat = Player::try_from(outcome)
                    .ok()
                    .filter(|&s| s < self.rules.players)
                    .ok_or_else(|| {
                        ChanceError(format!(
                            "outcome {outcome} is not a seat of this {}-player game",
                            self.rules.players
                        ))
                    })?;
                self.start(seat);
                Ok(())
            }
            _ => Err(ChanceError("this state is not a chance node".into())),
        }
    }

    /// Z2: shuffle the whole set with `seed`, deal it equally in blocks, and
    /// lay the rest aside face down.
    fn deal(&mut self, seed: u64) {
        let mut tiles: Vec<Number> = (1..=self.rules.max_number)
            .flat_map(|t| std::iter::repeat_n(t, usize::from(self.rules.copies)))
            .collect();
        shuffle(&mut tiles, seed);
        let each = self.rules.tiles_each();
        for (p, stack) in self.face_down.iter_mut().enumerate() {
            *stack = tiles[p * each..(p + 1) * each]
                .iter()
                .map(|&t| FaceDownTile::hidden(t))
                .collect();
        }
        let dealt = each * self.rules.players as usize;
        self.removed = tiles[dealt..].to_vec();
        match self.rules.first_player {
            Some(seat) => self.start(seat),
            None => self.phase = Phase::FirstPlayer,
        }
    }

    fn start(&mut self, seat: Player) {
        self.phase = Phase::Play {
            turn: seat,
            stage: Stage::Start,
        };
    }
}
