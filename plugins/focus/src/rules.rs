//! The match options (rulings F3, F9, F10) and the checks of which ones apply
//! to which player count.

use tabletop_sdk::{OptionSpec, Options};

use crate::error::OptionError;

/// How the opening swap of ruling F9 is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpeningSwap {
    /// No swap: the symmetric start stands.
    None,
    /// Chance picks the pair, uniformly over the allowed pairs.
    Random,
    /// Player 1 picks the pair as their opening action.
    Chosen,
}

impl OpeningSwap {
    /// The option's word for it.
    pub fn name(self) -> &'static str {
        match self {
            OpeningSwap::None => "none",
            OpeningSwap::Random => "random",
            OpeningSwap::Chosen => "chosen",
        }
    }
}

/// The options a match is played with. Valid by construction: every field
/// applies to `players`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rules {
    players: u8,
    max_turns: u32,
    symmetry_rule: bool,
    opening_swap: OpeningSwap,
    team_talk: bool,
}

/// Option names, as the manifest declares them.
pub mod names {
    /// Ruling F10.
    pub const MAX_TURNS: &str = "max_turns";
    /// Ruling F9, first countermeasure.
    pub const SYMMETRY_RULE: &str = "symmetry_rule";
    /// Ruling F9, second countermeasure.
    pub const OPENING_SWAP: &str = "opening_swap";
    /// Ruling F3.
    pub const TEAM_TALK: &str = "team_talk";
}

/// Largest `max_turns` accepted.
pub const MAX_TURNS_LIMIT: i64 = 1_000_000;

impl Rules {
    /// The option specs for the manifest.
    pub fn specs() -> Vec<OptionSpec> {
        vec![
            OptionSpec::int(
                names::MAX_TURNS,
                1,
                MAX_TURNS_LIMIT,
                1000,
                "Ruling F10: after this many moves (moves and drops; putting a player out \
                 is not a move) a game not already over is a draw.",
            ),
            OptionSpec::bool(
                names::SYMMETRY_RULE,
                false,
                "Ruling F9, two players only: if every move of player 2 restored the \
                 position's half-turn symmetry, player 1 wins however the game ends.",
            ),
            OptionSpec::choice(
                names::OPENING_SWAP,
                &["none", "random", "chosen"],
                "none",
                "Ruling F9, two players only: before the first move one R and one G piece \
                 exchange places, picked by chance (random) or by player 1 (chosen).",
            ),
            OptionSpec::bool(
                names::TEAM_TALK,
                false,
                "Ruling F3, four players only: whether partners may confer. Shown to \
                 players; the engine does not enforce it.",
            ),
        ]
    }

    /// Rules from options the SDK has already type-checked; refuses options
    /// that do not apply to `players`.
    pub fn from_options(players: u32, options: &Options) -> Result<Rules, OptionError> {
        let max_turns = options.int(names::MAX_TURNS);
        let symmetry_rule = options.bool(names::SYMMETRY_RULE);
        let opening_swap = match options.text(names::OPENING_SWAP) {
            "none" => OpeningSwap::None,
            "random" => OpeningSwap::Random,
            "chosen" => OpeningSwap::Chosen,
            other => return Err(OptionError::UnknownSwap(other.to_string())),
        };
        let team_talk = options.bool(names::TEAM_TALK);
        Rules::new(players, max_turns, symmetry_rule, opening_swap, team_talk)
    }

    /// Rules from plain values, with the same checks as [`Rules::from_options`].
    pub fn new(
        players: u32,
        max_turns: i64,
        symmetry_rule: bool,
        opening_swap: OpeningSwap,
        team_talk: bool,
    ) -> Result<Rules, OptionError> {
        let players = match players {
            2..=4 => players as u8,
            _ => return Err(OptionError::Players(players)),
        };
        let max_turns = u32::try_from(max_turns)
            .ok()
            .filter(|&m| m >= 1 && i64::from(m) <= MAX_TURNS_LIMIT)
            .ok_or(OptionError::MaxTurns(max_turns))?;
        if players != 2 && symmetry_rule {
            return Err(OptionError::TwoPlayersOnly {
                option: names::SYMMETRY_RULE,
                players,
            });
        }
        if players != 2 && opening_swap != OpeningSwap::None {
            return Err(OptionError::TwoPlayersOnly {
                option: names::OPENING_SWAP,
                players,
            });
        }
        if players != 4 && team_talk {
            return Err(OptionError::FourPlayersOnly { players });
        }
        Ok(Rules {
            players,
            max_turns,
            symmetry_rule,
            opening_swap,
            team_talk,
        })
    }

    /// Defaults for `players` (2–4).
    pub fn standard(players: u32) -> Result<Rules, OptionError> {
        Rules::new(players, 1000, false, OpeningSwap::None, false)
    }

    /// The number of players.
    pub fn players(self) -> usize {
        usize::from(self.players)
    }

    /// Ruling F10's limit.
    pub fn max_turns(self) -> u32 {
        self.max_turns
    }

    /// Ruling F9: the symmetry rule.
    pub fn symmetry_rule(self) -> bool {
        self.symmetry_rule
    }

    /// Ruling F9: the opening swap.
    pub fn opening_swap(self) -> OpeningSwap {
        self.opening_swap
    }

    /// Ruling F3: whether partners may confer (informative only).
    pub fn team_talk(self) -> bool {
        self.team_talk
    }

    /// Seats in turn order: 1, 3, 2, 4 for four players (ruling F3, teams
    /// alternate), else 1, 2(, 3).
    pub fn turn_order(self) -> &'static [u8] {
        match self.players {
            2 => &[0, 1],
            3 => &[0, 1, 2],
            _ => &[0, 2, 1, 3],
        }
    }

    /// The team of `seat`: with four players 1 and 2 against 3 and 4 (ruling
    /// F3); otherwise everyone is their own team.
    pub fn team(self, seat: u8) -> u8 {
        if self.players == 4 { seat / 2 } else { seat }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_that_do_not_apply_are_refused() {
        assert!(Rules::new(3, 1000, true, OpeningSwap::None, false).is_err());
        assert!(Rules::new(4, 1000, false, OpeningSwap::Random, false).is_err());
        assert!(Rules::new(2, 1000, false, OpeningSwap::None, true).is_err());
        assert!(Rules::new(2, 0, false, OpeningSwap::None, false).is_err());
        assert!(Rules::new(5, 1000, false, OpeningSwap::None, false).is_err());
        assert!(Rules::new(2, 10, true, OpeningSwap::Chosen, false).is_ok());
        assert!(Rules::new(4, 10, false, OpeningSwap::None, true).is_ok());
    }

    #[test]
    fn four_player_turns_alternate_teams_ruling_f3() {
        let rules = Rules::standard(4).unwrap();
        let teams: Vec<u8> = rules.turn_order().iter().map(|&s| rules.team(s)).collect();
        assert_eq!(teams, [0, 1, 0, 1]);
        assert_eq!(rules.team(0), rules.team(1));
        assert_eq!(rules.team(2), rules.team(3));
    }
}
