//! The names of the seats. Focus numbers its players from 1 (rulings F2–F4,
//! the position text of F11), so seat `s` of the API (0-based) is `P{s+1}`,
//! and every message names a seat as `seat 0 (P1)`.

use tabletop_sdk::{Player, seat_label};

use crate::tower::Colour;

/// The seat names, in seat order: the rule text's player 1 to 4.
const NAMES: [&str; 4] = ["P1", "P2", "P3", "P4"];

/// The names of the seats of a `players`-player match (2 to 4); none for a
/// player count Focus is not played with.
pub fn names(players: u32) -> Vec<String> {
    match players {
        2..=4 => NAMES[..players as usize]
            .iter()
            .map(|n| n.to_string())
            .collect(),
        _ => Vec::new(),
    }
}

/// `seat` as a message names it: `seat 0 (P1)`; a seat beyond the fourth
/// has no name (`seat 7`).
pub fn label(seat: Player) -> String {
    let name = usize::try_from(seat).ok().and_then(|s| NAMES.get(s));
    seat_label(seat, name.copied())
}

/// [`label`] of a colour, which is its seat.
pub fn label_of(colour: Colour) -> String {
    label(Player::from(colour))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_are_named_as_the_notation_numbers_players() {
        assert_eq!(names(2), ["P1", "P2"]);
        assert_eq!(names(4), ["P1", "P2", "P3", "P4"]);
        assert!(names(5).is_empty());
        assert_eq!(label(0), "seat 0 (P1)");
        assert_eq!(label_of(3), "seat 3 (P4)");
        assert_eq!(label(7), "seat 7");
    }
}
