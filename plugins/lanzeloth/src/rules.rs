//! The match's rules: player count and options (rulings Z1, Z2, Z7, Z9, Z10).

use std::collections::BTreeMap;

use tabletop_sdk::{GameError, OptionSpec, Player, Setup};

use crate::tile::Number;

/// How an overlooked fit is treated (ruling Z7, option `esel`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EselMode {
    /// Every placement is offered; a wrong one makes the player the donkey.
    Penalty,
    /// Only the correct placement exists, so it is automatic; nobody becomes the donkey.
    Forced,
}

impl EselMode {
    /// The option value (`penalty`, `forced`).
    pub fn as_str(self) -> &'static str {
        match self {
            EselMode::Penalty => "penalty",
            EselMode::Forced => "forced",
        }
    }
}

/// How the players who did not win are ranked (ruling Z9, option `scoring`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scoring {
    /// By the number of tiles still held.
    Tiles,
    /// By the sum of the numbers of the tiles still held.
    Points,
}

impl Scoring {
    /// The option value (`tiles`, `points`).
    pub fn as_str(self) -> &'static str {
        match self {
            Scoring::Tiles => "tiles",
            Scoring::Points => "points",
        }
    }
}

/// What the donkey tile adds to its holder's score (ruling Z9).
pub const DONKEY_SCORE: u32 = 5;

/// The validated rules of one match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rules {
    /// Seats, 2–6.
    pub players: u32,
    /// The highest tile number (Z1, option `max_number`).
    pub max_number: Number,
    /// Copies of each number (Z1, option `copies`).
    pub copies: u8,
    /// Option `esel` (Z7).
    pub esel: EselMode,
    /// Option `scoring` (Z9).
    pub scoring: Scoring,
    /// Option `max_turns`: reveals after which the game ends once the current
    /// turn is over (Z10).
    pub max_turns: u32,
    /// Option `first_player`: a fixed starting seat, or `None` for chance (Z2).
    pub first_player: Option<Player>,
}

/// Fewest and most seats.
pub const MIN_PLAYERS: u32 = 2;
/// Most seats.
pub const MAX_PLAYERS: u32 = 6;
/// Largest `copies`: bounds the number of middle stacks and so the action space.
pub const MAX_COPIES: i64 = 40;
/// Largest `max_number`.
pub const MAX_NUMBER: i64 = 99;

impl Rules {
    /// The options the manifest declares.
    pub fn option_specs() -> Vec<OptionSpec> {
        vec![
            OptionSpec::int(
                "max_number",
                5,
                MAX_NUMBER,
                20,
                "Highest tile number; tiles run 1..max_number (ruling Z1).",
            ),
            OptionSpec::int(
                "copies",
                1,
                MAX_COPIES,
                6,
                "Copies of each number (ruling Z1). max_number × copies must be at least 2 × players.",
            ),
            OptionSpec::choice(
                "esel",
                &["penalty", "forced"],
                "penalty",
                "penalty: every placement is offered and a wrong one makes you the donkey; \
                 forced: only the correct placement, played automatically (ruling Z7).",
            ),
            OptionSpec::choice(
                "scoring",
                &["tiles", "points"],
                "tiles",
                "Rank the losers by tiles left or by the sum of their numbers; the donkey adds 5 (ruling Z9).",
            ),
            OptionSpec::int(
                "max_turns",
                1,
                1_000_000,
                2000,
                "Revealed tiles after which the game ends once the current turn is over (ruling Z10).",
            ),
            OptionSpec::int(
                "first_player",
                0,
                i64::from(MAX_PLAYERS),
                0,
                "0: the starting player is drawn by chance; 1..6: player P1..P6 starts (ruling Z2).",
            ),
        ]
    }

    /// The default rules for `players` seats (no validation of the count).
    pub fn standard(players: u32) -> Rules {
        Rules {
            players,
            max_number: 20,
            copies: 6,
            esel: EselMode::Penalty,
            scoring: Scoring::Tiles,
            max_turns: 2000,
            first_player: None,
        }
    }

    /// Reads the SDK-validated setup and checks the combinations the SDK cannot
    /// (ruling Z1: enough tiles for two per player; `first_player` within the seats).
    pub fn from_setup(setup: &Setup) -> Result<Rules, GameError> {
        let raw = setup.options.to_raw();
        let players = setup.players;
        if !(MIN_PLAYERS..=MAX_PLAYERS).contains(&players) {
            return Err(GameError::invalid_option(format!(
                "lanzeloth is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}"
            )));
        }
        let max_number = int_option(&raw, "max_number", 20, 5, MAX_NUMBER)?;
        let copies = int_option(&raw, "copies", 6, 1, MAX_COPIES)?;
        let max_turns = int_option(&raw, "max_turns", 2000, 1, 1_000_000)?;
        let first = int_option(&raw, "first_player", 0, 0, i64::from(MAX_PLAYERS))?;
        let esel = match raw.get("esel").map(String::as_str).unwrap_or("penalty") {
            "penalty" => EselMode::Penalty,
            "forced" => EselMode::Forced,
            other => {
                return Err(GameError::invalid_option(format!(
                    "option `esel` must be penalty or forced, got `{other}`"
                )));
            }
        };
        let scoring = match raw.get("scoring").map(String::as_str).unwrap_or("tiles") {
            "tiles" => Scoring::Tiles,
            "points" => Scoring::Points,
            other => {
                return Err(GameError::invalid_option(format!(
                    "option `scoring` must be tiles or points, got `{other}`"
                )));
            }
        };
        // Ruling Z1: every player must be dealt at least two tiles.
        if max_number * copies < 2 * i64::from(players) {
            return Err(GameError::invalid_option(format!(
                "max_number × copies = {max_number} × {copies} = {} tiles is too few for {players} \
                 players: ruling Z1 needs at least 2 × players = {}",
                max_number * copies,
                2 * players
            )));
        }
        if first > i64::from(players) {
            return Err(GameError::invalid_option(format!(
                "option `first_player` is {first}, but there are only {players} players \
                 (0 draws the starting player by chance)"
            )));
        }
        // The ranges above were checked, so these conversions cannot fail.
        Ok(Rules {
            players,
            max_number: max_number as Number,
            copies: copies as u8,
            esel,
            scoring,
            max_turns: max_turns as u32,
            first_player: if first == 0 {
                None
            } else {
                Some(first as Player - 1)
            },
        })
    }

    /// Number tiles in the set (Z1).
    pub fn total_tiles(&self) -> usize {
        usize::from(self.max_number) * usize::from(self.copies)
    }

    /// Tiles each player is dealt (Z2).
    pub fn tiles_each(&self) -> usize {
        self.total_tiles() / self.players as usize
    }

    /// Tiles removed face down because they cannot be dealt equally (Z2).
    pub fn removed_count(&self) -> usize {
        self.total_tiles() % self.players as usize
    }

    /// The seat to the left of `player` (turn order runs to higher seats, wrapping).
    pub fn left_of(&self, player: Player) -> Player {
        (player + 1) % self.players
    }
}

fn int_option(
    raw: &BTreeMap<String, String>,
    name: &str,
    default: i64,
    min: i64,
    max: i64,
) -> Result<i64, GameError> {
    let value = match raw.get(name) {
        None => default,
        Some(text) => text.trim().parse().map_err(|_| {
            GameError::invalid_option(format!("option `{name}` must be an integer, got `{text}`"))
        })?,
    };
    if !(min..=max).contains(&value) {
        return Err(GameError::invalid_option(format!(
            "option `{name}` must be between {min} and {max}, got {value}"
        )));
    }
    Ok(value)
}
