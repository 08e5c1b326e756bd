//! Ruling F12's move counts, with the plugin's own move generator.

use crate::moves::Move;
use crate::position::Position;
use crate::setup::Side;

/// The number of action sequences of length `depth` from `pos` (ruling
/// F12). Putting a player out adds no ply; a sequence that ends the game
/// before its last action counts 0, one that ends it on its last action
/// counts 1. A pending random opening swap (F9) branches over its outcomes
/// like a ply.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if pos.side() == Side::Over {
        return 0;
    }
    if pos.is_chance() {
        let pairs: Vec<(crate::Square, crate::Square)> = pos.allowed_swaps().collect();
        return pairs
            .into_iter()
            .map(|(r, g)| {
                let mut next = pos.clone();
                match next.apply_swap_outcome(r, g) {
                    Ok(()) => perft(&next, depth - 1),
                    Err(_) => 0,
                }
            })
            .sum();
    }
    let Some(p) = pos.to_move() else {
        return 0;
    };
    let mut actions = Vec::with_capacity(128);
    pos.legal_actions(p, &mut actions);
    if depth == 1 {
        // Every legal action is a sequence of length one, ending the game or not.
        return actions.len() as u64;
    }
    let mut total = 0;
    for id in actions {
        let Some(mv) = Move::from_id(id) else {
            continue;
        };
        let mut next = pos.clone();
        if next.play(p, mv).is_ok() {
            total += perft(&next, depth - 1);
        }
    }
    total
}
