//! How the game names its seats: players P1–P6, seat 0 being P1 (the README's
//! table), and how a message names one: `seat 1 (P2)`, the API's number and
//! the game's name together.

use tabletop_sdk::{Player, seat_label};

/// The game's name of `seat`: `P1` for seat 0.
pub fn seat_name(seat: Player) -> String {
    format!("P{}", u64::from(seat) + 1)
}

/// The names of the seats of a `players`-seat match, in seat order.
pub fn seat_names(players: u32) -> Vec<String> {
    (0..players).map(seat_name).collect()
}

/// `seat` as every message names it: `seat 1 (P2)`.
pub fn seat(seat: Player) -> String {
    seat_label(seat, Some(&seat_name(seat)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_are_named_p1_upward_and_labelled_with_the_api_number() {
        assert_eq!(seat_names(3), ["P1", "P2", "P3"]);
        assert_eq!(seat(1), "seat 1 (P2)");
    }
}
