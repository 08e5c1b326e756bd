//! The position text of ruling F11.
//!
//! ```text
//! <board> <side> reserves=0,0 captures=0,0/0,0 removed=0,0 out=- moves=0 mirror=-
//! ```
//! - `<board>`: ranks 8 down to 1 separated by `/`; within a rank the squares
//!   that exist, a to h, separated by `,`; each square `.` when empty or its
//!   tower bottom to top as player numbers (`121` = player 1, 2, then 1 on top).
//! - `<side>`: the player to move (`1`–`4`), `swap` while ruling F9's opening
//!   swap is pending, or `-` when the game is over.
//! - `reserves=`: pieces in reserve per player; `captures=`: per capturing
//!   player (rows split by `/`) the pieces of each colour they captured;
//!   `removed=`: ruling F8's counts; `out=`: players out in the order they went
//!   out, or `-`; `moves=`: moves made (F10); `mirror=`: ruling F9's record,
//!   `-` (player 2 has not moved or the rule is off), `yes` or `no`.
//!
//! Every `key=value` field is optional when reading (zero, `-`) and may come in
//! any order; writing always gives all of them in this order, so a written
//! position reads back to the same text.

use std::fmt::Write as _;

use tabletop_sdk::text::quote;

use crate::board::Square;
use crate::error::PositionError;
use crate::setup::{Mirror, RawPosition, Side};
use crate::tower::{Colour, Tower};

/// Writes `raw` in the F11 text form.
pub fn write_position(raw: &RawPosition) -> String {
    let n = raw.players;
    let mut out = String::new();
    for rank in (0..8u8).rev() {
        let cells: Vec<String> = (0..8u8)
            .filter_map(|file| Square::new(file, rank))
            .map(|s| {
                let t = raw.towers[s.index()];
                if t.is_empty() {
                    ".".to_string()
                } else {
                    t.pieces().map(|c| char::from(b'1' + c)).collect()
                }
            })
            .collect();
        out.push_str(&cells.join(","));
        if rank > 0 {
            out.push('/');
        }
    }
    let side = match raw.side {
        Side::Swap => "swap".to_string(),
        Side::ToMove(p) => (p + 1).to_string(),
        Side::Over => "-".to_string(),
    };
    let list = |values: &[u32]| {
        values[..n]
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(",")
    };
    let captures: Vec<String> = raw.captures[..n].iter().map(|row| list(row)).collect();
    let out_list = if raw.out.is_empty() {
        "-".to_string()
    } else {
        raw.out
            .iter()
            .map(|c| (c + 1).to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let mirror = match raw.mirror {
        Mirror::Untested => "-",
        Mirror::Holding => "yes",
        Mirror::Broken => "no",
    };
    let _ = write!(
        out,
        " {side} reserves={} captures={} removed={} out={out_list} moves={} mirror={mirror}",
        list(&raw.reserves),
        captures.join("/"),
        list(&raw.removed),
        raw.moves
    );
    out
}

/// Reads the F11 text form for a `players`-player game. Checks the form
/// only; [`crate::Position::from_raw`] checks the rules. A text written for
/// another player count is refused as that first, before any detail.
pub fn read_position(text: &str, players: usize) -> Result<RawPosition, PositionError> {
    check_player_count(text, players)?;
    let mut tokens = text.split_whitespace();
    let board = tokens.next().ok_or_else(|| err("the text is empty"))?;
    let side = tokens
        .next()
        .ok_or_else(|| err("the side to move is missing after the board"))?;
    let mut raw = RawPosition::empty(players);
    read_board(board, &mut raw)?;
    raw.side = match side {
        "swap" => Side::Swap,
        "-" => Side::Over,
        _ => Side::ToMove(read_player(side, players)?),
    };
    let mut seen: Vec<&str> = Vec::new();
    for token in tokens {
        let (key, value) = token
            .split_once('=')
            .ok_or_else(|| err(format!("`{}` is not a `key=value` field", quote(token))))?;
        if seen.contains(&key) {
            return Err(err(format!("field `{}` is given twice", quote(key))));
        }
        seen.push(key);
        match key {
            "reserves" => raw.reserves = read_counts(key, value, players)?,
            "removed" => raw.removed = read_counts(key, value, players)?,
            "captures" => {
                let rows: Vec<&str> = value.split('/').collect();
                if rows.len() != players {
                    return Err(err(format!(
                        "`captures` needs {players} rows separated by `/`, got {}",
                        rows.len()
                    )));
                }
                for (p, row) in rows.into_iter().enumerate() {
                    raw.captures[p] = read_counts(key, row, players)?;
                }
            }
            "out" => {
                raw.out = if value == "-" {
                    Vec::new()
                } else {
                    value
                        .split(',')
                        .map(|v| read_player(v, players))
                        .collect::<Result<_, _>>()?
                }
            }
            "moves" => {
                raw.moves = value
                    .parse()
                    .map_err(|_| err(format!("`moves={}` is not a count", quote(value))))?;
            }
            "mirror" => {
                raw.mirror = match value {
                    "-" => Mirror::Untested,
                    "yes" => Mirror::Holding,
                    "no" => Mirror::Broken,
                    _ => {
                        return Err(err(format!(
                            "`mirror` is -, yes or no, not `{}`",
                            quote(value)
                        )));
                    }
                }
            }
            _ => return Err(err(format!("unknown field `{}`", quote(key)))),
        }
    }
    Ok(raw)
}

fn read_player(text: &str, players: usize) -> Result<Colour, PositionError> {
    match text.parse::<u8>() {
        Ok(p) if (1..=players as u8).contains(&p) => Ok(p - 1),
        _ => Err(PositionError::new(format!(
            "`{}` is not a player: a position writes P1 to P{players} as 1 to {players}",
            quote(text)
        ))),
    }
}

fn read_counts(key: &str, value: &str, players: usize) -> Result<[u32; 4], PositionError> {
    let parts: Vec<&str> = value.split(',').collect();
    if parts.len() != players {
        return Err(PositionError::new(format!(
            "`{key}` needs {players} numbers separated by `,`, got `{}`",
            quote(value)
        )));
    }
    let mut counts = [0; 4];
    for (slot, part) in counts.iter_mut().zip(parts) {
        *slot = part.parse().map_err(|_| {
            PositionError::new(format!("`{}` in `{key}` is not a count", quote(part)))
        })?;
    }
    Ok(counts)
}

fn read_board(board: &str, raw: &mut RawPosition) -> Result<(), PositionError> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 8 {
        return Err(err(format!(
            "the board needs 8 ranks separated by `/`, got {}",
            ranks.len()
        )));
    }
    for (row, cells_text) in ranks.into_iter().enumerate() {
        let rank = 7 - row as u8;
        let squares: Vec<Square> = (0..8u8).filter_map(|f| Square::new(f, rank)).collect();
        let cells: Vec<&str> = cells_text.split(',').collect();
        if cells.len() != squares.len() {
            return Err(err(format!(
                "rank {} has {} squares, the text gives {}",
                rank + 1,
                squares.len(),
                cells.len()
            )));
        }
        for (square, cell) in squares.into_iter().zip(cells) {
            if cell == "." {
                continue;
            }
            let mut pieces = Vec::with_capacity(cell.len());
            for ch in cell.chars() {
                match ch.to_digit(10) {
                    Some(d) if (1..=raw.players as u32).contains(&d) => pieces.push(d as u8 - 1),
                    _ => {
                        return Err(err(format!(
                            "tower `{}` on {square}: pieces are player numbers 1 to {}",
                            quote(cell),
                            raw.players
                        )));
                    }
                }
            }
            raw.towers[square.index()] = Tower::from_pieces(&pieces).ok_or_else(|| {
                err(format!(
                    "tower `{}` on {square} is higher than 5 (ruling F6)",
                    quote(cell)
                ))
            })?;
        }
    }
    Ok(())
}

/// The player count a position text is written for, when it says: the
/// length of its `reserves`, `removed` and `captures` lists when they
/// agree, else, with none of them given (so every piece is on the board),
/// the board's pieces: the highest player number, and the total, 36 (F2),
/// 39 (F4) or 52 (F3).
fn players_written(text: &str) -> Option<usize> {
    let mut tokens = text.split_whitespace();
    let board = tokens.next()?;
    let mut lengths = Vec::new();
    for token in tokens.skip(1) {
        match token.split_once('=') {
            Some(("reserves" | "removed", value)) => lengths.push(value.split(',').count()),
            Some(("captures", value)) => {
                lengths.push(value.split('/').count());
                lengths.extend(value.split('/').map(|row| row.split(',').count()));
            }
            _ => {}
        }
    }
    if let Some(&first) = lengths.first() {
        let agreed = lengths.iter().all(|&n| n == first) && (2..=4).contains(&first);
        return agreed.then_some(first);
    }
    let pieces: Vec<u32> = board
        .chars()
        .filter_map(|c| c.to_digit(10))
        .filter(|&d| d > 0)
        .collect();
    let highest = pieces.iter().copied().max()?;
    match (pieces.len(), highest) {
        (36, 1..=2) => Some(2),
        (39, 1..=3) => Some(3),
        (52, 1..=4) => Some(4),
        _ => None,
    }
}

/// Refuses a text written for another player count than `players`, or
/// with pieces of a player the match lacks.
fn check_player_count(text: &str, players: usize) -> Result<(), PositionError> {
    if let Some(written) = players_written(text)
        && written != players
    {
        return Err(err(format!(
            "this position is for {written} players; the match has {players}"
        )));
    }
    let board = text.split_whitespace().next().unwrap_or("");
    let highest = board
        .chars()
        .filter_map(|c| c.to_digit(10))
        .filter(|&d| d <= 4)
        .max()
        .unwrap_or(0) as usize;
    if highest > players {
        return Err(err(format!(
            "this position has pieces of P{highest}, so it is for at least {highest} players; \
             the match has {players}"
        )));
    }
    Ok(())
}

fn err(message: impl Into<String>) -> PositionError {
    PositionError::new(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_positions_round_trip() {
        for players in 2..=4 {
            let raw = RawPosition::start(players).unwrap();
            let text = write_position(&raw);
            assert_eq!(read_position(&text, players).unwrap(), raw, "{text}");
        }
    }

    #[test]
    fn two_player_start_text() {
        let text = write_position(&RawPosition::start(2).unwrap());
        assert_eq!(
            text,
            ".,.,.,./2,2,1,1,2,2/.,1,1,2,2,1,1,./.,2,2,1,1,2,2,./.,1,1,2,2,1,1,./\
             .,2,2,1,1,2,2,./1,1,2,2,1,1/.,.,.,. 1 reserves=0,0 captures=0,0/0,0 \
             removed=0,0 out=- moves=0 mirror=-"
        );
    }

    #[test]
    fn malformed_texts_are_refused() {
        for bad in [
            "",
            "./././././././. 1",
            ".,.,.,./.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,./.,.,.,.",
            ".,.,.,./.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,./.,.,.,. 3",
            ".,.,.,./.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,./.,.,.,123456 1",
            ".,.,.,./.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,./.,.,.,13 1",
            ".,.,.,./.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,./.,.,.,. 1 moves=x",
            ".,.,.,./.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,./.,.,.,. 1 moves=1 moves=2",
            ".,.,.,./.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,./.,.,.,. 1 colour=red",
            ".,.,.,./.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,./.,.,.,. 1 reserves=1",
        ] {
            assert!(read_position(bad, 2).is_err(), "accepted {bad:?}");
        }
    }
}
