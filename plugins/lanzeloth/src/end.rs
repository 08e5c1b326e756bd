//! Scores and ranking at the end (ruling Z9; ties at the turn limit, Z10).

use tabletop_sdk::{Player, PlayerResult};

use crate::position::{Phase, Position};
use crate::rules::{DONKEY_SCORE, Scoring};

impl Position {
    /// `player`'s score: tiles held or the sum of their numbers, plus
    /// [`DONKEY_SCORE`] for the donkey tile (Z9). Lower is better.
    pub fn score(&self, player: Player) -> u32 {
        let held = match self.rules.scoring {
            Scoring::Tiles => self.tiles_held(player) as u32,
            Scoring::Points => self
                .face_down(player)
                .iter()
                .map(|t| u32::from(t.number))
                .chain(self.open(player).iter().map(|&t| u32::from(t)))
                .sum(),
        };
        held + if self.donkey == Some(player) {
            DONKEY_SCORE
        } else {
            0
        }
    }

    /// Every player's rank and score once the game is over: the winner first,
    /// the others by score, equal scores sharing a rank. Empty before the end.
    pub fn results(&self) -> Vec<PlayerResult> {
        let Phase::Over { winner } = self.phase else {
            return Vec::new();
        };
        let n = self.rules.players;
        let scores: Vec<u32> = (0..n).map(|p| self.score(p)).collect();
        let still_in = self.players_in().count() as u32;
        (0..n)
            .map(|p| {
                let rank = if winner == Some(p) {
                    1
                } else if let Some(i) = self.out.iter().position(|&o| o == p) {
                    // Taken out: below every player still in, the later out
                    // above the earlier.
                    still_in + (self.out.len() - i) as u32
                } else {
                    let better = (0..n)
                        .filter(|&q| {
                            winner != Some(q)
                                && !self.is_out(q)
                                && scores[q as usize] < scores[p as usize]
                        })
                        .count() as u32;
                    1 + u32::from(winner.is_some()) + better
                };
                PlayerResult {
                    rank,
                    score: f64::from(scores[p as usize]),
                }
            })
            .collect()
    }
}
