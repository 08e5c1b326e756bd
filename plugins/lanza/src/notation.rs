//! The position notation (ruling L13). Fields are written `c3` (see
//! [`crate::board`]), pieces `AK` (seat letter, rank letter), orders
//! `K2 Q5 J1` (see [`crate::orders`]).
//!
//! A position is `;`-separated sections:
//!
//! ```text
//! turns 12; A Kc3 Qa1 Je2 chips 1; B Kb1 Q- J- chips 0; place BQ BJ
//! ```
//!
//! - `turns N`: turns adjudicated so far;
//! - one section per seat, A first: the field of its King, Queen and Jack
//!   (`-` off the board) and its chips, then `out K` if the seat was the K-th
//!   taken out of the game (`B K- Q- J- chips 1 out 1`; see `Position::remove`);
//! - the phase: `setup` (before the random setup), `orders`, `reentry AK BQ …`
//!   (the captured pieces whose re-entry order is being drawn, in seat and K Q J
//!   order), `place BQ AK …` (the pieces still to re-enter, next first), or
//!   `over`.
//!
//! [`parse_position`] ∘ [`position_to_string`] is the identity on every legal
//! position; the turn limit is a match option and not part of the text.

use std::fmt::Write;

use crate::board::Board;
use crate::piece::{MAX_PIECES, MAX_PLAYERS, PieceId, Rank, player_letter};
use crate::position::{Phase, Position, PositionError, PositionSetup};

/// Writes `position` in the notation.
pub fn position_to_string(position: &Position) -> String {
    let board = position.board();
    let mut out = format!("turns {}", position.turns());
    for player in 0..position.players() {
        let _ = write!(out, "; {}", player_letter(player));
        for rank in Rank::ALL {
            let field = PieceId::new(player, rank).and_then(|p| position.field_of(p));
            let name = field.map_or("-", |f| board.name(f));
            let _ = write!(out, " {}{name}", rank.letter());
        }
        let _ = write!(out, " chips {}", position.chips(player));
        if let Some(k) = position.out_order(player) {
            let _ = write!(out, " out {k}");
        }
    }
    let list = |pieces: &[PieceId]| pieces.iter().map(|p| format!(" {p}")).collect::<String>();
    let phase = match position.phase() {
        Phase::Setup => "setup".to_string(),
        Phase::Orders => "orders".to_string(),
        Phase::Reentry(pending) => format!("reentry{}", list(pending)),
        Phase::Place(queue) => format!("place{}", list(queue)),
        Phase::Over => "over".to_string(),
    };
    let _ = write!(out, "; {phase}");
    out
}

/// Why a position text was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotationError {
    /// The text does not follow the notation; the message says where.
    Syntax(String),
    /// The text parses but is not a legal position.
    Illegal(PositionError),
}

impl std::fmt::Display for NotationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotationError::Syntax(why) => write!(f, "not a lanza position: {why}"),
            NotationError::Illegal(why) => write!(f, "not a legal lanza position: {why}"),
        }
    }
}

impl std::error::Error for NotationError {}

fn syntax(why: impl Into<String>) -> NotationError {
    NotationError::Syntax(why.into())
}

fn parse_pieces(tokens: &[&str]) -> Result<Vec<PieceId>, NotationError> {
    tokens
        .iter()
        .map(|t| PieceId::parse(t).ok_or_else(|| syntax(format!("`{t}` is not a piece like `AK`"))))
        .collect()
}

/// Reads a position written by [`position_to_string`] for a match of
/// `players` seats with turn limit `max_turns`.
pub fn parse_position(text: &str, players: u32, max_turns: u32) -> Result<Position, NotationError> {
    let sections: Vec<Vec<&str>> = text
        .split(';')
        .map(|s| s.split_whitespace().collect())
        .collect();
    let expected = players as usize + 2;
    if sections.len() != expected {
        return Err(syntax(format!(
            "expected {expected} `;`-separated sections (turns, one per seat, phase) for {players} players, found {}",
            sections.len()
        )));
    }
    let turns = match sections[0][..] {
        ["turns", n] => n
            .parse::<u32>()
            .map_err(|_| syntax(format!("`{n}` is not a turn count")))?,
        _ => return Err(syntax("the first section is `turns N`")),
    };
    let kind = crate::board::BoardKind::for_players(players)
        .ok_or(NotationError::Illegal(PositionError::Players(players)))?;
    let board: &Board = kind.board();
    let mut fields = [None; MAX_PIECES];
    let mut chips = [0; MAX_PLAYERS];
    let mut out = [0u8; MAX_PLAYERS];
    for player in 0..players {
        let section = &sections[1 + player as usize];
        let letter = player_letter(player).to_string();
        let (seat, k, q, j, c) = match section[..] {
            [seat, k, q, j, "chips", c] => (seat, k, q, j, c),
            [seat, k, q, j, "chips", c, "out", n] => {
                out[player as usize] =
                    n.parse().ok().filter(|&n: &u8| n > 0).ok_or_else(|| {
                        syntax(format!("`{n}` is not a removal number (1, 2, …)"))
                    })?;
                (seat, k, q, j, c)
            }
            _ => {
                return Err(syntax(format!(
                    "seat {letter} is written `{letter} K<field> Q<field> J<field> chips N` \
                     (then `out K` if it was taken out)"
                )));
            }
        };
        if seat != letter {
            return Err(syntax(format!("expected seat {letter}, found `{seat}`")));
        }
        for (rank, token) in Rank::ALL.into_iter().zip([k, q, j]) {
            let rest = token.strip_prefix(rank.letter()).ok_or_else(|| {
                syntax(format!(
                    "expected {}<field>, found `{token}`",
                    rank.letter()
                ))
            })?;
            let piece = PieceId::new(player, rank).ok_or_else(|| syntax("too many seats"))?;
            fields[piece.index()] = if rest == "-" {
                None
            } else {
                Some(board.parse_field(rest).ok_or_else(|| {
                    syntax(format!(
                        "`{rest}` is not a field of the {}-field board",
                        board.len()
                    ))
                })?)
            };
        }
        chips[player as usize] = c
            .parse()
            .map_err(|_| syntax(format!("`{c}` is not a chip count")))?;
    }
    let phase = match &sections[expected - 1][..] {
        ["setup"] => Phase::Setup,
        ["orders"] => Phase::Orders,
        ["over"] => Phase::Over,
        ["reentry", pieces @ ..] => Phase::Reentry(parse_pieces(pieces)?),
        ["place", pieces @ ..] => Phase::Place(parse_pieces(pieces)?),
        _ => {
            return Err(syntax(
                "the last section is the phase: setup, orders, reentry <pieces>, place <pieces> or over",
            ));
        }
    };
    let setup = PositionSetup {
        players,
        fields,
        chips,
        turns,
        phase,
        out,
    };
    Position::new(setup, max_turns).map_err(NotationError::Illegal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_module_example_round_trips() {
        let text = "turns 12; A Ka1 Qb1 Jc1 chips 1; B Kd1 Q- J- chips 0; place BQ BJ";
        let position = parse_position(text, 2, 300).unwrap();
        assert_eq!(position_to_string(&position), text);
    }

    #[test]
    fn start_positions_round_trip() {
        for players in 2..=4 {
            let mut position = Position::start(players, 300).unwrap();
            for _ in 0..2 {
                let text = position_to_string(&position);
                assert_eq!(
                    parse_position(&text, players, 300).unwrap(),
                    position,
                    "{text}"
                );
                position.apply_setup(99).unwrap_or(());
            }
        }
    }

    #[test]
    fn refuses_broken_positions() {
        let cases = [
            "turns 0; A Ka1 Qb1 Jc1 chips 0; B Kd1 Qe1 Je2 chips 0",
            "turns x; A Ka1 Qb1 Jc1 chips 0; B Kd1 Qe1 Je2 chips 0; orders",
            "turns 0; A Ka1 Qa1 Jc1 chips 0; B Kd1 Qe1 Je2 chips 0; orders",
            "turns 0; A Ka1 Qb1 Jc1 chips 0; B Kd1 Qe1 J- chips 0; orders",
            "turns 0; A Ka1 Qb1 Jz9 chips 0; B Kd1 Qe1 Je2 chips 0; orders",
            "turns 0; B Ka1 Qb1 Jc1 chips 0; A Kd1 Qe1 Je2 chips 0; orders",
            "turns 3; A Ka1 Qb1 Jc1 chips 3; B Kd1 Qe1 Je2 chips 0; orders",
            "turns 3; A Ka1 Qb1 Jc1 chips 2; B Kd1 Qe1 Je2 chips 0; over",
            "turns 3; A Ka1 Qb1 Jc1 chips 2; B Kd1 Q- J- chips 0; reentry BJ BQ",
            "turns 3; A Ka1 Qb1 Jc1 chips 2; B Kd1 Q- J- chips 0; place BQ",
            "turns 3; A Ka1 Qb1 Jc1 chips 2; B Kd1 Q- Je1 chips 0; reentry BQ",
        ];
        for text in cases {
            assert!(parse_position(text, 2, 300).is_err(), "{text}");
        }
        let ok = "turns 3; A Ka1 Qb1 Jc1 chips 3; B Kd1 Qe1 Je2 chips 0; over";
        assert!(parse_position(ok, 2, 300).is_ok());
        let limit = "turns 5; A Ka1 Qb1 Jc1 chips 1; B Kd1 Qe1 Je2 chips 1; over";
        assert!(
            parse_position(limit, 2, 5).is_ok(),
            "ruling L12 ends at the limit"
        );
        assert!(parse_position(limit, 2, 6).is_err());
    }
}
