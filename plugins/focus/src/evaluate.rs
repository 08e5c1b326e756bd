//! A quick estimate of each seat's standing, for search bots that cut off
//! their playouts (the SDK's evaluate extension).
//!
//! A player's material is what keeps them in the game (ruling F7): the
//! towers they control, a tall one a little more (it moves further and
//! holds prisoners), and the pieces in their reserve, each of which can be
//! dropped anywhere. With four players the two teams' material is pooled
//! (F3). A seat that is out has nothing.

use tabletop_sdk::standings_from_strengths;

use crate::board::Square;
use crate::position::Position;
use crate::tower::Colour;

/// How much one piece of material difference moves the estimate: a
/// lead of one tower is worth about 0.57 against an equal opponent.
const SCALE: f64 = 0.3;

/// Each seat's estimated standing in 0..=1.
pub(crate) fn evaluate(state: &Position) -> Vec<f64> {
    let players = state.players();
    let mut material = vec![0.0f64; players];
    for square in Square::all() {
        let tower = state.tower(square);
        if let Some(top) = tower.top() {
            material[usize::from(top)] += 1.0 + 0.25 * (tower.height() - 1) as f64;
        }
    }
    for (seat, amount) in material.iter_mut().enumerate() {
        *amount += f64::from(state.reserve(seat as Colour));
    }
    let strength = |seat: usize| {
        if state.is_out(seat as Colour) {
            0.0
        } else {
            (SCALE * material[seat]).exp()
        }
    };
    if players == 4 {
        // F3: 1+2 against 3+4; each seat gets its team's value.
        let team = |first: usize| strength(first) + strength(first + 1);
        let teams = standings_from_strengths(&[team(0), team(2)]);
        return (0..4).map(|seat| teams[seat / 2]).collect();
    }
    standings_from_strengths(&(0..players).map(strength).collect::<Vec<_>>())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::read_position;
    use crate::rules::Rules;

    fn start(players: usize) -> Position {
        Position::start(Rules::standard(players as u32).unwrap())
    }

    #[test]
    fn the_start_is_even_for_every_player_count() {
        for players in 2..=4 {
            let values = evaluate(&start(players));
            assert_eq!(values.len(), players);
            for v in &values {
                assert!((v - 0.5).abs() < 1e-9, "{players} players: {values:?}");
            }
        }
    }

    #[test]
    fn a_seat_out_is_rated_below_those_still_in() {
        let mut state = start(3);
        state.remove(1).unwrap();
        let values = evaluate(&state);
        assert_eq!(values[1], 0.0);
        assert!(values[0] > 0.5 && values[2] > 0.5, "{values:?}");
    }

    #[test]
    fn controlling_a_tower_more_rates_higher() {
        // The start, but player 1's piece from b2 moved onto player 2's on
        // b7: player 1 tops 18 towers, player 2 17.
        let text = ".,.,.,./21,2,1,1,2,2/.,1,1,2,2,1,1,./.,2,2,1,1,2,2,./.,1,1,2,2,1,1,./\
                    .,2,2,1,1,2,2,./.,1,2,2,1,1/.,.,.,. 1 reserves=0,0";
        let raw = read_position(text, 2).unwrap();
        let state = Position::from_raw(&raw, Rules::standard(2).unwrap()).unwrap();
        let values = evaluate(&state);
        assert!(values[0] > 0.55 && values[0] < 0.75, "{values:?}");
        assert!((values[0] + values[1] - 1.0).abs() < 1e-9, "{values:?}");
    }
}
