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

use tabletop_sdk::text::quote;

use crate::board::{Board, Field};
use crate::piece::{MAX_PIECES, MAX_PLAYERS, PieceId, Rank, player_letter, seat_label};
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
    /// The text writes a different number of seats than the match has.
    Players {
        /// Seat sections in the text.
        written: usize,
        /// Seats of the match.
        players: u32,
    },
    /// The text does not follow the notation; the message says where.
    Syntax(String),
    /// The text parses but is not a legal position.
    Illegal(PositionError),
}

impl std::fmt::Display for NotationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotationError::Players { written, players } => write!(
                f,
                "this position is for {written} player{}; the match has {players}",
                if *written == 1 { "" } else { "s" }
            ),
            NotationError::Syntax(why) => write!(f, "not a lanza position: {why}"),
            NotationError::Illegal(why) => write!(f, "not a legal lanza position: {why}"),
        }
    }
}

impl std::error::Error for NotationError {}

fn syntax(why: impl Into<String>) -> NotationError {
    NotationError::Syntax(why.into())
}

/// Whether a section is a seat's (`B Kd1 Q- Je3 chips 0`): it starts with a
/// lone letter, which no other section does.
fn is_seat_section(section: &[&str]) -> bool {
    section.first().is_some_and(|word| {
        let mut chars = word.chars();
        chars.next().is_some_and(|c| c.is_ascii_alphabetic()) && chars.next().is_none()
    })
}

/// The pieces listed by a `reentry` or `place` phase, each a piece of one of
/// the match's `players` seats.
fn parse_pieces(tokens: &[&str], players: u32) -> Result<Vec<PieceId>, NotationError> {
    tokens
        .iter()
        .map(|t| {
            PieceId::parse(t)
                .filter(|p| p.player() < players)
                .ok_or_else(|| {
                    syntax(format!(
                        "`{}` is no piece of this {players}-player match: a piece is its seat \
                         letter and rank, like `AK`",
                        quote(t)
                    ))
                })
        })
        .collect()
}

/// A number of the text (`turns`, `chips`, `out`), read after everything
/// else so that a wrong player count, field or piece is named first.
fn parse_count<T: std::str::FromStr>(word: &str, what: &str) -> Result<T, NotationError> {
    word.parse()
        .map_err(|_| syntax(format!("`{}` is not {what}", quote(word))))
}

/// One seat's section as written, its numbers not yet read.
struct SeatWords<'a> {
    chips: &'a str,
    out: Option<&'a str>,
}

/// Reads a seat's section: its letter and the fields of its pieces into
/// `fields`; the numbers come back unread.
fn parse_seat<'a>(
    section: &[&'a str],
    player: u32,
    board: &Board,
    fields: &mut [Option<Field>; MAX_PIECES],
) -> Result<SeatWords<'a>, NotationError> {
    let letter = player_letter(player);
    let label = seat_label(player);
    let (seat, pieces, chips, out) = match section[..] {
        [seat, k, q, j, chips_word, chips] if chips_word.eq_ignore_ascii_case("chips") => {
            (seat, [k, q, j], chips, None)
        }
        [seat, k, q, j, chips_word, chips, out_word, n]
            if chips_word.eq_ignore_ascii_case("chips") && out_word.eq_ignore_ascii_case("out") =>
        {
            (seat, [k, q, j], chips, Some(n))
        }
        _ => {
            return Err(syntax(format!(
                "{label} is written `{letter} K<field> Q<field> J<field> chips N` (then `out K` \
                 if it was taken out), found `{}`",
                quote(&section.join(" "))
            )));
        }
    };
    if !seat.eq_ignore_ascii_case(&letter.to_string()) {
        return Err(syntax(format!(
            "the seats come in seat order: expected {label}, written `{letter}`, found `{}`",
            quote(seat)
        )));
    }
    for (rank, token) in Rank::ALL.into_iter().zip(pieces) {
        let mut chars = token.chars();
        let rest = chars
            .next()
            .and_then(Rank::from_letter)
            .filter(|&r| r == rank)
            .map(|_| chars.as_str())
            .ok_or_else(|| {
                syntax(format!(
                    "{label}: expected the {} as `{}<field>` or `{}-`, found `{}`",
                    rank.name(),
                    rank.letter(),
                    rank.letter(),
                    quote(token)
                ))
            })?;
        let piece = PieceId::new(player, rank).ok_or_else(|| syntax("too many seats"))?;
        fields[piece.index()] = if rest == "-" {
            None
        } else {
            Some(board.parse_field(rest).ok_or_else(|| {
                let (first, last) = board.name_range();
                syntax(format!(
                    "{label}: `{}` is no field of the {}-field board ({first} to {last})",
                    quote(rest),
                    board.len()
                ))
            })?)
        };
    }
    Ok(SeatWords { chips, out })
}

/// Reads a position written by [`position_to_string`] for a match of
/// `players` seats with turn limit `max_turns`. Keywords, seat letters,
/// ranks and fields are read in either case, and blanks may repeat. The
/// first problem named is a player count that differs from the match's,
/// then the shape of the text, then an unknown field or piece, then a count
/// that is not a number, then a position that breaks the rules.
pub fn parse_position(text: &str, players: u32, max_turns: u32) -> Result<Position, NotationError> {
    let sections: Vec<Vec<&str>> = text
        .split(';')
        .map(|s| s.split_whitespace().collect::<Vec<&str>>())
        .filter(|s| !s.is_empty())
        .collect();
    let written = sections.iter().filter(|s| is_seat_section(s)).count();
    if written > 0 && written != players as usize {
        return Err(NotationError::Players { written, players });
    }
    let expected = players as usize + 2;
    if sections.len() != expected {
        return Err(syntax(format!(
            "expected {expected} `;`-separated sections (turns, one per seat, phase) for \
             {players} players, found {}",
            sections.len()
        )));
    }
    let turns = match sections[0][..] {
        [word, n] if word.eq_ignore_ascii_case("turns") => n,
        _ => return Err(syntax("the first section is `turns N`")),
    };
    let kind = crate::board::BoardKind::for_players(players)
        .ok_or(NotationError::Illegal(PositionError::Players(players)))?;
    let board: &Board = kind.board();
    let mut fields = [None; MAX_PIECES];
    let mut words = Vec::with_capacity(players as usize);
    for player in 0..players {
        let section = &sections[1 + player as usize];
        words.push(parse_seat(section, player, board, &mut fields)?);
    }
    let phase = match &sections[expected - 1][..] {
        [word] if word.eq_ignore_ascii_case("setup") => Phase::Setup,
        [word] if word.eq_ignore_ascii_case("orders") => Phase::Orders,
        [word] if word.eq_ignore_ascii_case("over") => Phase::Over,
        [word, pieces @ ..] if word.eq_ignore_ascii_case("reentry") => {
            Phase::Reentry(parse_pieces(pieces, players)?)
        }
        [word, pieces @ ..] if word.eq_ignore_ascii_case("place") => {
            Phase::Place(parse_pieces(pieces, players)?)
        }
        _ => {
            return Err(syntax(
                "the last section is the phase: setup, orders, reentry <pieces>, place <pieces> \
                 or over",
            ));
        }
    };
    let turns = parse_count(turns, "a turn count")?;
    let mut chips = [0; MAX_PLAYERS];
    let mut out = [0u8; MAX_PLAYERS];
    for (player, seat) in words.iter().enumerate() {
        let label = seat_label(player as u32);
        chips[player] = parse_count(seat.chips, &format!("a chip count of {label}"))?;
        if let Some(n) = seat.out {
            out[player] = parse_count(n, "a removal number (1, 2, …)")
                .ok()
                .filter(|&n: &u8| n > 0)
                .ok_or_else(|| {
                    syntax(format!(
                        "`{}` is not a removal number of {label} (1, 2, …)",
                        quote(n)
                    ))
                })?;
        }
    }
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

    #[test]
    fn keywords_letters_and_fields_read_in_either_case() {
        let text = "turns 12; A Ka1 Qb1 Jc1 chips 1; B Kd1 Q- J- chips 0; place BQ BJ";
        let shouted = "TURNS 12 ;  a KA1 qB1 jc1 CHIPS 1 ; b kd1 q- J- chips 0 ; PLACE bq Bj";
        assert_eq!(
            parse_position(shouted, 2, 300),
            parse_position(text, 2, 300)
        );
    }

    fn refusal(text: &str, players: u32) -> String {
        parse_position(text, players, 300).unwrap_err().to_string()
    }

    #[test]
    fn a_player_count_mismatch_is_named_first() {
        let two = "turns 0; A Kc2 Qa1 Ja3 chips x; B Kd1 Qz9 Je3 chips 0; orders";
        assert_eq!(
            refusal(two, 4),
            "this position is for 2 players; the match has 4"
        );
        let three = "turns 0; A K- Q- J- chips 0; B K- Q- J- chips 0; C K- Q- J- chips 0; setup";
        assert_eq!(
            refusal(three, 2),
            "this position is for 3 players; the match has 2"
        );
    }

    #[test]
    fn an_unknown_field_or_piece_is_named_before_a_count() {
        let text = "turns x; A Kc2 Qa1 Ja3 chips y; B Kd1 Qz9 Je3 chips 0; orders";
        assert_eq!(
            refusal(text, 2),
            "not a lanza position: seat 1 (B): `z9` is no field of the 19-field board (a1 to e3)"
        );
        let text = "turns x; A K- Qa1 Ja3 chips 0; B Kd1 Qc3 Je3 chips 0; place CK";
        assert!(refusal(text, 2).contains("`CK` is no piece of this 2-player match"));
        let text = "turns x; A Kc2 Qa1 Ja3 chips y; B Kd1 Qc3 Je3 chips 0; orders";
        assert_eq!(
            refusal(text, 2),
            "not a lanza position: `x` is not a turn count"
        );
        let text = "turns 0; A Kc2 Qa1 Ja3 chips y; B Kd1 Qc3 Je3 chips 0; orders";
        assert_eq!(
            refusal(text, 2),
            "not a lanza position: `y` is not a chip count of seat 0 (A)"
        );
    }

    #[test]
    fn seats_are_named_by_number_and_letter() {
        let text = "turns 0; A Kc2 Qa1 Ja3 chips 0; C Kd1 Qc3 Je3 chips 0; orders";
        assert!(
            refusal(text, 2).contains("expected seat 1 (B), written `B`, found `C`"),
            "{}",
            refusal(text, 2)
        );
        let text = "turns 0; A Kc2 Qa1 Ja3 chips 0; B Kd1 Qc3 Je3 chips 0 out 1; orders";
        assert!(
            refusal(text, 2).contains("seat 1 (B) is out"),
            "{}",
            refusal(text, 2)
        );
    }

    #[test]
    fn hostile_input_is_quoted_in_part() {
        let long = "x".repeat(5_000);
        let text = format!("turns {long}; A Kc2 Qa1 Ja3 chips 0; B Kd1 Qc3 Je3 chips 0; orders");
        assert!(refusal(&text, 2).len() < 300);
        let text = format!("turns 0; A Kc2 Qa1 J{long} chips 0; B Kd1 Qc3 Je3 chips 0; orders");
        assert!(refusal(&text, 2).len() < 300);
    }
}
