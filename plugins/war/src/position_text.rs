//! Position notation (ruling W12): a whole state as text, so a match can start
//! from any legal position, and its record carries the board's content (W1).
//!
//! One directive per line; every line but `units` may be left out:
//!
//! ```text
//! war-position                          optional header
//! phase play                            setup | play | over <south|north|draw> <reason>
//! to-move south                         side to move (default south)
//! moves 12                              moves played since the setup (default 0)
//! max-turns 400                         the W11 move limit (default: the option)
//! units I@c1 C@d1 A@e2 i@c12 …          upper case South, lower case North
//! tiles #d5-d6:south =b4-c4:north       tiles on the board with their owners
//! hand south 1 3 north 1 3              entrenchment and railway tiles in hand
//! seized d3                             cannons awaiting removal (W9)
//! history 9c1f…,0b7e…                   repetition keys since the last removal
//! board                                 the rest of the text is the board document
//! ```
//!
//! A `play` position given without a result is checked for the end conditions
//! of W11 as a position where the side to move is about to move.

use std::sync::Arc;

use tabletop_sdk::text::quote;

use crate::board::Board;
use crate::notation::parse_point;
use crate::position::{Outcome, Phase, Position, Reason};
use crate::side::{Side, Tile, TileKind, Unit, UnitKind};

/// Why a position text was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionError(pub String);

impl std::fmt::Display for PositionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PositionError {}

fn err<T>(message: impl Into<String>) -> Result<T, PositionError> {
    Err(PositionError(message.into()))
}

/// Writes a position; [`parse`] reads it back to an equal state.
pub fn to_string(pos: &Position) -> String {
    let board = pos.board();
    let mut out = String::from("war-position\n");
    match pos.phase {
        Phase::Setup => out.push_str("phase setup\n"),
        Phase::Play => out.push_str("phase play\n"),
        Phase::Over(o) => out.push_str(&format!(
            "phase over {} {}\n",
            o.winner.map_or("draw", Side::name),
            o.reason.name()
        )),
    }
    out.push_str(&format!("to-move {}\n", pos.to_move.name()));
    out.push_str(&format!("moves {}\n", pos.moves));
    out.push_str(&format!("max-turns {}\n", pos.max_turns));
    out.push_str("units");
    for (p, u) in pos.units.iter().enumerate() {
        if let Some(u) = u {
            out.push_str(&format!(" {}@{}", u.letter(), board.label(p as u8)));
        }
    }
    out.push_str("\ntiles");
    for (i, t) in pos.tiles.iter().enumerate() {
        if let Some(t) = t {
            let s = board.segments()[i];
            out.push_str(&format!(
                " {}{}-{}:{}",
                t.kind.symbol(),
                board.label(s.a),
                board.label(s.b),
                t.owner.name()
            ));
        }
    }
    out.push_str(&format!(
        "\nhand south {} {} north {} {}\n",
        pos.hand[0][0], pos.hand[0][1], pos.hand[1][0], pos.hand[1][1]
    ));
    out.push_str("seized");
    for &p in &pos.seized {
        out.push_str(&format!(" {}", board.label(p)));
    }
    out.push_str("\nhistory ");
    let keys: Vec<String> = pos.history.iter().map(|k| format!("{k:016x}")).collect();
    out.push_str(&keys.join(","));
    out.push_str("\nboard\n");
    out.push_str(&board.to_document());
    out
}

/// Reads and validates a position. `default_board`, `rail_tiles` and
/// `max_turns` fill in what the text leaves out.
pub fn parse(
    text: &str,
    default_board: &Arc<Board>,
    rail_tiles: u8,
    max_turns: u32,
) -> Result<Position, PositionError> {
    let (body, board_doc) = split_board(text);
    let board = match board_doc {
        Some(doc) => Arc::new(Board::parse(doc).map_err(|e| PositionError(e.to_string()))?),
        None => Arc::clone(default_board),
    };
    let given = Directives::read(body, &board, max_turns)?;
    let Some(units) = given.units else {
        return err("the position has no `units` line");
    };
    let mut pos = Position::new(Arc::clone(&board), rail_tiles, given.max_turns);
    pos.set_units(units);
    pos.set_tiles(given.tiles);
    pos.to_move = given.to_move;
    pos.moves = given.moves;
    check_armies(&pos)?;
    pos.hand = match given.hand {
        Some(hand) => hand,
        None => default_hand(&pos, rail_tiles)?,
    };
    check_tile_totals(&pos, rail_tiles)?;
    let phase = given.phase.unwrap_or_else(|| vec!["play".to_string()]);
    match phase.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["setup"] => enter_setup(&mut pos, &given.seized, given.history)?,
        ["play"] => enter_play(&mut pos, given.seized, given.history)?,
        ["over", winner, reason] => {
            enter_over(&mut pos, winner, reason, given.seized, given.history)?;
        }
        _ => return err("`phase` is setup, play, or over <south|north|draw> <reason>"),
    }
    Ok(pos)
}

/// The position's lines and the board document after a `board` line of its
/// own, if there is one.
fn split_board(text: &str) -> (&str, Option<&str>) {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.trim() == "board" {
            return (&text[..offset], Some(&text[offset + line.len()..]));
        }
        offset += line.len();
    }
    (text, None)
}

/// What a position's lines give, each line read and checked on its own
/// (against the board); defaults where a line is left out.
struct Directives {
    /// The words after `phase`.
    phase: Option<Vec<String>>,
    to_move: Side,
    moves: u32,
    max_turns: u32,
    units: Option<Vec<Option<Unit>>>,
    tiles: Vec<Option<Tile>>,
    hand: Option<[[u8; 2]; 2]>,
    seized: Vec<u8>,
    history: Option<Vec<u64>>,
}

impl Directives {
    /// Reads every line of `body`; the first line in error ends the reading.
    fn read(body: &str, board: &Board, max_turns: u32) -> Result<Directives, PositionError> {
        let mut given = Directives {
            phase: None,
            to_move: Side::South,
            moves: 0,
            max_turns,
            units: None,
            tiles: vec![None; board.segments().len()],
            hand: None,
            seized: Vec::new(),
            history: None,
        };
        for (i, raw) in body.lines().enumerate() {
            let words: Vec<&str> = raw.split_whitespace().collect();
            let Some((&first, args)) = words.split_first() else {
                continue;
            };
            given
                .read_line(board, first, args)
                .map_err(|m| PositionError(format!("position line {}: {m}", i + 1)))?;
        }
        Ok(given)
    }

    /// Reads one directive: `first` is its name, `args` the words after it.
    fn read_line(&mut self, board: &Board, first: &str, args: &[&str]) -> Result<(), String> {
        match first {
            "war-position" => {}
            "phase" => self.phase = Some(args.iter().map(|s| s.to_string()).collect()),
            "to-move" => {
                self.to_move = args
                    .first()
                    .and_then(|s| Side::parse(s))
                    .filter(|_| args.len() == 1)
                    .ok_or("`to-move` takes south or north")?;
            }
            "moves" => self.moves = read_number(first, args)?,
            "max-turns" => {
                let n = read_number(first, args)?;
                if n == 0 {
                    return Err("`max-turns` must be at least 1".into());
                }
                self.max_turns = n;
            }
            "units" => self.units = Some(read_units(board, args)?),
            "tiles" => {
                for item in args {
                    let (segment, tile) = read_tile(board, &self.tiles, item)?;
                    self.tiles[segment as usize] = Some(tile);
                }
            }
            "hand" => self.hand = Some(read_hand(args)?),
            "seized" => {
                for item in args {
                    self.seized.push(read_point(board, item)?);
                }
            }
            "history" => self.history = Some(read_history(args)?),
            other => return Err(format!("unknown directive `{}`", quote(other))),
        }
        Ok(())
    }
}

/// The one number after `moves` or `max-turns` (`first`).
fn read_number(first: &str, args: &[&str]) -> Result<u32, String> {
    args.first()
        .filter(|_| args.len() == 1)
        .and_then(|s| s.parse::<u32>().ok())
        .ok_or_else(|| format!("`{first}` takes a number"))
}

/// A point of the board by its label.
fn read_point(board: &Board, label: &str) -> Result<u8, String> {
    parse_point(board, label).ok_or_else(|| format!("unknown point `{}`", quote(label)))
}

/// `units I@c1 C@d1 …`: every point at most once.
fn read_units(board: &Board, args: &[&str]) -> Result<Vec<Option<Unit>>, String> {
    let mut units = vec![None; board.len()];
    for item in args {
        let (letter, point) = item
            .split_once('@')
            .ok_or_else(|| format!("unit `{}` is not like `I@c1`", quote(item)))?;
        let mut cs = letter.chars();
        let unit = match (cs.next().and_then(Unit::from_letter), cs.next()) {
            (Some(u), None) => u,
            _ => {
                return Err(format!(
                    "`{}` is not a unit letter (I C A, i c a)",
                    quote(letter)
                ));
            }
        };
        let p = read_point(board, point)?;
        if units[p as usize].is_some() {
            return Err(format!("two units on {}", board.label(p)));
        }
        units[p as usize] = Some(unit);
    }
    Ok(units)
}

/// One item of `tiles`, `#d5-d6:south`: the segment (not a printed railway
/// nor one of `tiles` already) and the tile on it.
fn read_tile(board: &Board, tiles: &[Option<Tile>], item: &str) -> Result<(u16, Tile), String> {
    let bad = || format!("tile `{}` is not like `#d5-d6:south`", quote(item));
    let (seg, owner) = item.split_once(':').ok_or_else(bad)?;
    let owner = Side::parse(owner).ok_or_else(bad)?;
    let kind = match seg.chars().next() {
        Some('#') => TileKind::Entrenchment,
        Some('=') => TileKind::Railway,
        _ => return Err(bad()),
    };
    let (a, b) = seg[1..].split_once('-').ok_or_else(bad)?;
    let (pa, pb) = (read_point(board, a)?, read_point(board, b)?);
    let s = board.segment_between(pa, pb).ok_or_else(|| {
        format!(
            "there is no segment {}-{}",
            board.label(pa),
            board.label(pb)
        )
    })?;
    let (a, b) = (board.label(pa), board.label(pb));
    if board.segments()[s as usize].kind == crate::board::SegmentKind::Rail {
        return Err(format!(
            "a tile cannot lie on the printed railway {a}-{b} (W10)"
        ));
    }
    if tiles[s as usize].is_some() {
        return Err(format!("two tiles on {a}-{b}"));
    }
    Ok((s, Tile { kind, owner }))
}

/// `hand south 1 3 north 1 3`: entrenchment and railway tiles, at most 20.
fn read_hand(args: &[&str]) -> Result<[[u8; 2]; 2], String> {
    let bad = || "`hand` is like `hand south 1 3 north 1 3`".to_string();
    let [s1, a, b, s2, c, d] = args else {
        return Err(bad());
    };
    if *s1 != "south" || *s2 != "north" {
        return Err(bad());
    }
    let n = |t: &str| t.parse::<u8>().ok().filter(|v| *v <= 20).ok_or_else(bad);
    Ok([[n(a)?, n(b)?], [n(c)?, n(d)?]])
}

/// `history KEY,KEY,…`: hex keys, split by commas or spaces.
fn read_history(args: &[&str]) -> Result<Vec<u64>, String> {
    args.iter()
        .flat_map(|a| a.split(','))
        .filter(|k| !k.is_empty())
        .map(|k| u64::from_str_radix(k, 16).map_err(|_| format!("`{}` is not a hex key", quote(k))))
        .collect()
}

/// No side has more units of a kind than its army (W3).
fn check_armies(pos: &Position) -> Result<(), PositionError> {
    for side in Side::BOTH {
        for kind in UnitKind::ALL {
            if pos.count_of(side, kind) > kind.army_count() {
                return err(format!(
                    "{} has more than {} {} (W3)",
                    side.label(),
                    kind.army_count(),
                    kind.plural()
                ));
            }
        }
    }
    Ok(())
}

/// The hands when no `hand` line gives them: the opening hands less the
/// tiles each side has on the board.
fn default_hand(pos: &Position, rail_tiles: u8) -> Result<[[u8; 2]; 2], PositionError> {
    let mut hand = [[1, rail_tiles], [1, rail_tiles]];
    for t in pos.tiles.iter().flatten() {
        let slot = &mut hand[t.owner.index()][t.kind.index()];
        *slot = slot.checked_sub(1).ok_or_else(|| {
            PositionError("more tiles on the board than a side owns: give a `hand` line".into())
        })?;
    }
    Ok(hand)
}

/// The tiles in hand and on the board are the game's: one entrenchment a
/// side, and `rail_tiles` railway tiles a side (W3). The match's option
/// decides the railway tiles, so the position agrees with the option it is
/// played under.
fn check_tile_totals(pos: &Position, rail_tiles: u8) -> Result<(), PositionError> {
    let hand = pos.hand;
    let on_board = |k: TileKind| pos.tiles.iter().flatten().filter(|t| t.kind == k).count() as u32;
    let total =
        |k: TileKind| u32::from(hand[0][k.index()]) + u32::from(hand[1][k.index()]) + on_board(k);
    if total(TileKind::Entrenchment) != 2 {
        return err(format!(
            "the position has {} entrenchment tiles in all, in hand or on the board; there are \
             2, one a side (W3)",
            total(TileKind::Entrenchment)
        ));
    }
    let rail_total = 2 * u32::from(rail_tiles);
    if total(TileKind::Railway) != rail_total {
        return err(format!(
            "the position has {} railway tiles in all, in hand or on the board, but with \
             rail_tiles = {rail_tiles} there are {rail_total}, {rail_tiles} a side (W3)",
            total(TileKind::Railway)
        ));
    }
    Ok(())
}

/// `phase setup`: a setup in progress, with no history.
fn enter_setup(
    pos: &mut Position,
    seized: &[u8],
    history: Option<Vec<u64>>,
) -> Result<(), PositionError> {
    pos.phase = Phase::Setup;
    validate_setup(pos, seized, pos.moves)?;
    if history.is_some_and(|h| !h.is_empty()) {
        return err("a setup position has no history");
    }
    Ok(())
}

/// `phase play`: the side to move is about to move, so a position where the
/// other side has just won (W11) is over, and one where the side to move
/// has already won is refused.
fn enter_play(
    pos: &mut Position,
    seized: Vec<u8>,
    history: Option<Vec<u64>>,
) -> Result<(), PositionError> {
    pos.phase = Phase::Play;
    validate_seized(pos, seized)?;
    pos.history = history.unwrap_or_default();
    let key = pos.key();
    if pos.history.is_empty() {
        pos.history.push(key);
    } else if pos.history.last() != Some(&key) {
        return err("the history does not end with this position's key");
    }
    let to_move = pos.to_move;
    let mover = to_move.opponent();
    let won = |side: Side| {
        pos.board
            .fortress(side.opponent())
            .iter()
            .all(|&p| pos.units[p as usize].is_some_and(|u| u.side == side))
            || pos.unit_count(side.opponent()) <= 2
    };
    if won(to_move) {
        return err(format!(
            "{} has already won before its move: not a position in play (W11)",
            to_move.label()
        ));
    }
    if won(mover) {
        let reason = if pos.unit_count(to_move) <= 2 {
            Reason::Destroyed
        } else {
            Reason::Fortress
        };
        pos.phase = Phase::Over(Outcome {
            winner: Some(mover),
            reason,
        });
    } else {
        pos.check_start_of_turn(mover, Vec::new());
    }
    Ok(())
}

/// `phase over WINNER REASON`: a draw exactly for repetition and the turn
/// limit.
fn enter_over(
    pos: &mut Position,
    winner: &str,
    reason: &str,
    seized: Vec<u8>,
    history: Option<Vec<u64>>,
) -> Result<(), PositionError> {
    let winner =
        match winner {
            "draw" => None,
            w => Some(Side::parse(w).ok_or_else(|| {
                PositionError(format!("`{}` is not south, north or draw", quote(w)))
            })?),
        };
    let reason = Reason::parse(reason)
        .ok_or_else(|| PositionError(format!("unknown end reason `{}`", quote(reason))))?;
    if winner.is_none() != matches!(reason, Reason::Repetition | Reason::TurnLimit) {
        return err("repetition and turn-limit end in a draw, the other reasons with a winner");
    }
    validate_seized(pos, seized)?;
    pos.history = history.unwrap_or_default();
    pos.phase = Phase::Over(Outcome { winner, reason });
    Ok(())
}

fn validate_seized(pos: &mut Position, mut seized: Vec<u8>) -> Result<(), PositionError> {
    seized.sort_unstable();
    seized.dedup();
    let side = pos.to_move;
    for &p in &seized {
        if pos.units[p as usize]
            != Some(Unit {
                side,
                kind: UnitKind::Cannon,
            })
        {
            return err(format!(
                "seized point {} holds no cannon of the side to move (W9)",
                pos.board.label(p)
            ));
        }
    }
    pos.seized = seized;
    Ok(())
}

fn validate_setup(pos: &Position, seized: &[u8], moves: u32) -> Result<(), PositionError> {
    if !seized.is_empty() || moves != 0 || pos.tiles.iter().any(Option::is_some) {
        return err("during the setup there are no moves, tiles or seized cannons");
    }
    if pos.hand[0] != pos.hand[1] || pos.hand[0][0] != 1 {
        return err("during the setup both hands are full");
    }
    let placed = |side: Side| pos.unit_count(side);
    for side in Side::BOTH {
        let n = placed(side);
        for (i, &p) in pos.board.start_points(side).iter().enumerate() {
            let expected = i < n;
            if pos.units[p as usize].is_some_and(|u| u.side == side) != expected {
                return err(format!(
                    "{} units must fill its start points in order from the first (W3)",
                    side.label()
                ));
            }
        }
    }
    let (s, n) = (placed(Side::South), placed(Side::North));
    let expected_side = if s < 24 { Side::South } else { Side::North };
    if (s < 24 && n > 0) || n >= 24 || pos.to_move != expected_side {
        return err(format!(
            "in the setup {} places all 24 units, then {} (W3)",
            Side::South.label(),
            Side::North.label()
        ));
    }
    Ok(())
}
