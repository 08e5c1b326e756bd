//! Scores and ranking at the end (ruling Z9; ties at the turn limit, Z10).

use std::cmp::Reverse;

use tabletop_sdk::{Better, Player, PlayerResult, results_by_key};

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
    /// the others by score, equal scores sharing a rank; players taken out
    /// below every player still in, the later out above the earlier. Empty
    /// before the end.
    pub fn results(&self) -> Vec<PlayerResult> {
        let Phase::Over { winner } = self.phase else {
            return Vec::new();
        };
        let standing = |p: Player| {
            if winner == Some(p) {
                Standing::Won
            } else if let Some(order) = self.out.iter().position(|&o| o == p) {
                Standing::Out { order }
            } else {
                Standing::In {
                    score: Reverse(self.score(p)),
                }
            }
        };
        results_by_key(
            (0..self.rules.players).map(|p| (standing(p), f64::from(self.score(p)))),
            Better::Higher,
        )
    }
}

/// Where a player finished, worst first: the order [`Position::results`]
/// ranks by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Standing {
    /// Taken out; `order` is the place in the out list, so a later one ranks
    /// higher.
    Out { order: usize },
    /// Still in, not the winner; the lower the score, the better (Z9).
    In { score: Reverse<u32> },
    /// The winner.
    Won,
}
