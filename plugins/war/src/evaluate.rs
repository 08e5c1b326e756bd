//! A quick estimate of each side's standing, for search bots that cut off
//! their playouts (the SDK's evaluate extension).
//!
//! Material decides War: a side left with two units loses (ruling W11), and
//! a cannon (W7) or a cavalry unit (W4) does more than an infantry unit. A
//! cannon already seized (W9) is as good as gone. Each enemy fortress point
//! held counts too, as all three win at once (W11). During the setup (W3)
//! neither side has an edge yet.

use tabletop_sdk::standings_from_strengths;

use crate::position::{Phase, Position};
use crate::side::{Side, UnitKind};

/// How much one point of material difference moves the estimate: an
/// infantry unit ahead is worth about 0.59 against an equal side.
const SCALE: f64 = 0.35;

/// What a unit of `kind` is worth, in infantry units.
fn worth(kind: UnitKind) -> f64 {
    match kind {
        UnitKind::Infantry => 1.0,
        UnitKind::Cavalry => 1.5,
        UnitKind::Cannon => 2.0,
    }
}

/// What holding one point of the enemy's fortress is worth.
const FORTRESS_POINT: f64 = 1.5;

/// South's and North's estimated standing in 0..=1.
pub(crate) fn evaluate(state: &Position) -> Vec<f64> {
    if state.phase() == Phase::Setup {
        return vec![0.5, 0.5];
    }
    let mut material = [0.0f64; 2];
    for (point, unit) in state.units.iter().enumerate() {
        let Some(unit) = unit else { continue };
        let seized = state.seized().contains(&(point as u8));
        if !(seized && unit.kind == UnitKind::Cannon) {
            material[unit.side.index()] += worth(unit.kind);
        }
    }
    for side in Side::BOTH {
        let held = state
            .board()
            .fortress(side.opponent())
            .iter()
            .filter(|&&p| state.unit(p).is_some_and(|u| u.side == side))
            .count();
        material[side.index()] += FORTRESS_POINT * held as f64;
    }
    standings_from_strengths(&material.map(|m| (SCALE * m).exp()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default board after both sides placed their first legal unit
    /// on every start point.
    fn after_setup() -> Position {
        let board = std::sync::Arc::new(crate::Board::default_board());
        let mut state = Position::new(board, 3, 400);
        assert_eq!(evaluate(&state), vec![0.5, 0.5], "the setup is even");
        let mut legal = Vec::new();
        while state.phase() == Phase::Setup {
            state.legal(&mut legal);
            assert!(state.play(legal[0]));
        }
        state
    }

    #[test]
    fn mirrored_armies_are_even() {
        assert_eq!(evaluate(&after_setup()), vec![0.5, 0.5]);
    }

    #[test]
    fn a_unit_ahead_rates_higher() {
        let mut state = after_setup();
        let north = (0..state.units.len() as u8)
            .find(|&p| state.unit(p).is_some_and(|u| u.side == Side::North))
            .unwrap();
        state.put(north, None);
        let values = evaluate(&state);
        assert!(values[0] > 0.55 && values[0] < 0.8, "{values:?}");
        assert!((values[0] + values[1] - 1.0).abs() < 1e-12, "{values:?}");
    }
}
