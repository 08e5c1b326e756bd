//! Helpers shared by the test modules.

use std::collections::BTreeMap;

use focus::{Position, Rules, read_position};

/// Raw options from `name = value` pairs.
pub fn options(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A position from its F11 text under standard rules, or a panic naming why.
pub fn position(players: u32, text: &str) -> Position {
    position_with(Rules::standard(players).unwrap(), text)
}

/// A position from its F11 text under `rules`.
pub fn position_with(rules: Rules, text: &str) -> Position {
    let raw = read_position(text, rules.players()).unwrap_or_else(|e| panic!("{e}: {text}"));
    Position::from_raw(&raw, rules).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// Builds an F11 board text from `(square, tower)` pairs; every other square is empty.
pub fn board(towers: &[(&str, &str)]) -> String {
    let mut ranks = Vec::new();
    for rank in (0..8u8).rev() {
        let cells: Vec<String> = (0..8u8)
            .filter_map(|f| focus::Square::new(f, rank))
            .map(|s| {
                towers
                    .iter()
                    .find(|(name, _)| *name == s.to_string())
                    .map_or(".".to_string(), |(_, t)| t.to_string())
            })
            .collect();
        ranks.push(cells.join(","));
    }
    ranks.join("/")
}
