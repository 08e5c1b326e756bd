//! The layout shorthand of ruling W3: a whole (or partial) setup written in
//! one text, which the engine expands into single placement actions.
//!
//! A layout is a list of items separated by spaces, `,` or `/`:
//! - a run of unit letters (`I`, `C`, `A`, either case), one placement per
//!   letter: `IIIIIIIICCC` places eight infantry, then three cavalry;
//! - a single placement `I@17` (the point by start number or label), which
//!   must name the next empty start point, as [`parse_action`] demands.
//!
//! Each placement fills the placing side's next empty start point, in start
//! number order, so `CCC/IIIIIII/IIIIIII/AIIIIIC` lays out South's ranks 1–4
//! on the default board. Fewer items than empty points is a partial layout;
//! the side goes on placing later.
//!
//! A text that is one placement alone (`I`, `I@1`) or any other single action
//! is not a layout: [`expand`] returns `None` and [`parse_action`] reads it.
//!
//! [`parse_action`]: crate::notation::parse_action

use tabletop_sdk::{GameError, Player};

use crate::board::start_number_name;
use crate::moves::Action;
use crate::notation::{action_to_string, parse_action, parse_point};
use crate::position::{Phase, Position};
use crate::side::{Side, UnitKind};

/// Whether `c` separates the items of a layout.
fn is_separator(c: char) -> bool {
    c.is_whitespace() || c == ',' || c == '/'
}

/// The items of `text` as (1-based character column, text) pairs.
fn tokens(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start: Option<(usize, usize)> = None;
    for (column, (byte, c)) in text.char_indices().enumerate() {
        match (is_separator(c), start) {
            (true, Some((col, from))) => {
                out.push((col, &text[from..byte]));
                start = None;
            }
            (false, None) => start = Some((column + 1, byte)),
            _ => {}
        }
    }
    if let Some((col, from)) = start {
        out.push((col, &text[from..]));
    }
    out
}

/// Whether a token reads as a layout item: `L@point` with a unit letter `L`,
/// or a run of letters that starts with a unit letter. (Moves, jumps, shots
/// and tiles always hold a digit or a sign, so they never read as items.)
fn is_item(token: &str) -> bool {
    let first_is_unit = token
        .chars()
        .next()
        .and_then(UnitKind::from_letter)
        .is_some();
    match token.split_once('@') {
        Some((unit, _)) => unit.chars().count() == 1 && first_is_unit,
        None => first_is_unit && token.chars().all(|c| c.is_ascii_alphabetic()),
    }
}

/// The plural used in messages.
fn plural(kind: UnitKind) -> &'static str {
    match kind {
        UnitKind::Infantry => "infantry",
        UnitKind::Cavalry => "cavalry",
        UnitKind::Cannon => "cannons",
    }
}

/// Expands a layout of `player` into placement notations, one per unit, in
/// order (`I@1`, `C@2`, …), each legal after the ones before it. `Ok(None)`
/// when `text` is not a layout. Errors name the placement's number and its
/// character column in `text`.
pub fn expand(
    position: &Position,
    player: Player,
    text: &str,
) -> Result<Option<Vec<String>>, GameError> {
    let items = tokens(text);
    let Some(&(_, first)) = items.first() else {
        return Ok(None);
    };
    let separated = items.len() > 1 || text.trim().chars().any(is_separator);
    if !separated
        && (first.contains('@')
            || first.chars().count() == 1
            || parse_action(position, first).is_ok())
    {
        // One placement or any other single action: not a shorthand.
        return Ok(None);
    }
    if !is_item(first) {
        return Ok(None);
    }

    match position.phase() {
        Phase::Setup => {}
        Phase::Play => {
            return Err(GameError::illegal(format!(
                "`{}` is a layout, but the setup phase is over: layouts are only for placing \
                 units (W3)",
                text.trim()
            )));
        }
        Phase::Over(_) => return Err(GameError::illegal("the game is over")),
    }
    let side = position.to_move();
    if player as usize != side.index() {
        let who = Side::from_index(player as usize).map_or("no side", Side::name);
        return Err(GameError::not_your_turn(format!(
            "player {player} ({who}) cannot place now: {} (player {}) is placing its units (W3)",
            side.name(),
            side.index()
        )));
    }
    let empty_at_start = (1..=24)
        .filter(|&n| {
            position
                .unit(position.board().start_point(side, n))
                .is_none()
        })
        .count();

    let mut after = position.clone();
    let mut out = Vec::new();
    for (column, token) in items {
        // (column, unit letter, the point after `@` if any)
        let mut placements: Vec<(usize, char, Option<&str>)> = Vec::new();
        match token.split_once('@') {
            Some((unit, at)) if is_item(token) => {
                placements.push((column, unit.chars().next().unwrap_or('?'), Some(at)));
            }
            Some(_) => {
                return Err(GameError::invalid_notation(format!(
                    "placement {} (`{token}`, character {column}): not a placement like `I@17`",
                    out.len() + 1
                )));
            }
            None if token.chars().all(|c| c.is_ascii_alphabetic()) => {
                placements.extend(
                    token
                        .chars()
                        .enumerate()
                        .map(|(i, c)| (column + i, c, None)),
                );
            }
            None => {
                return Err(GameError::invalid_notation(format!(
                    "placement {} (`{token}`, character {column}): not unit letters (I, C, A) or \
                     a placement like `I@17`",
                    out.len() + 1
                )));
            }
        }
        for (column, letter, at) in placements {
            let number = out.len() + 1;
            let written = match at {
                Some(at) => format!("{letter}@{at}"),
                None => letter.to_string(),
            };
            let here = format!("placement {number} (`{written}`, character {column})");
            let kind = UnitKind::from_letter(letter).ok_or_else(|| {
                GameError::invalid_notation(format!(
                    "{here}: `{letter}` is not a unit letter (I infantry, C cavalry, A cannon)"
                ))
            })?;
            let next = match after.next_start() {
                Some(n) if after.to_move() == side => n,
                _ => {
                    return Err(GameError::illegal(format!(
                        "{here}: more units than empty start points: {} had {empty_at_start} \
                         empty start points",
                        side.name()
                    )));
                }
            };
            if let Some(at) = at {
                let point = parse_point(after.board(), at).ok_or_else(|| {
                    GameError::invalid_notation(format!("{here}: unknown point `{at}`"))
                })?;
                if point != after.board().start_point(side, next) {
                    return Err(GameError::illegal(format!(
                        "{here}: units are placed on the next empty start point, which is {}",
                        start_number_name(side, next)
                    )));
                }
            }
            if after.count_of(side, kind) >= kind.army_count() {
                return Err(GameError::illegal(format!(
                    "{here}: too many {}: an army has {} (W3)",
                    plural(kind),
                    kind.army_count()
                )));
            }
            let action = Action::Place(kind);
            out.push(action_to_string(&after, action));
            if !after.play(action) {
                return Err(GameError::internal(format!(
                    "{here}: the placement was checked but refused"
                )));
            }
        }
    }
    Ok(Some(out))
}
