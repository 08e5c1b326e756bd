//! The layout shorthand of ruling W3: a whole (or partial) setup written in
//! one text, which the engine expands into single placement actions.
//!
//! A layout is a list of items separated by spaces, `,` or `/`:
//! - a run of unit letters (`I`, `C`, `A`, either case), one placement per
//!   letter: `IIIIIIIICCC` places eight infantry, then three cavalry;
//! - a single placement `I@17` (the point by start number or label), which
//!   must name the next empty start point, as a single placement must;
//!   blanks around its `@` are ignored (`I @ 17`).
//!
//! Each placement fills the placing side's next empty start point, in start
//! number order, so `CCC/IIIIIII/IIIIIII/AIIIIIC` lays out South's ranks 1–4
//! on the default board. Fewer items than empty points is a partial layout;
//! the side goes on placing later.
//!
//! A text that is one placement alone (`I`, `I@1`) or any other single action
//! is not a layout: [`expand`] returns `None` and [`read`] reads it.
//!
//! A refusal carries its reason code (`crate::reasons`) and names the
//! placement's number and its character in the text.
//!
//! [`read`]: crate::notation::read

use tabletop_sdk::text::quote;
use tabletop_sdk::{Player, Refusal};

use crate::board::start_number_name;
use crate::moves::Action;
use crate::notation::{action_to_string, parse_point, read, unknown_point};
use crate::position::{Phase, Position};
use crate::reasons;
use crate::side::{Side, UnitKind};

/// Whether `c` separates the items of a layout.
fn is_separator(c: char) -> bool {
    c.is_whitespace() || c == ',' || c == '/'
}

/// The items of `text` as (1-based character column, text) pairs. Blanks
/// next to an `@` join its two sides into one item (`I @ 17`).
fn tokens(text: &str) -> Vec<(usize, String)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut current: Option<(usize, String)> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            // Blanks before an `@`, or after one, do not separate.
            let mut j = i;
            while j < chars.len() && chars[j].is_whitespace() {
                j += 1;
            }
            let before_at = chars.get(j) == Some(&'@') && current.is_some();
            let after_at = current.as_ref().is_some_and(|(_, t)| t.ends_with('@'));
            if before_at || after_at {
                i = j;
                continue;
            }
        }
        if is_separator(c) {
            out.extend(current.take());
        } else {
            current
                .get_or_insert_with(|| (i + 1, String::new()))
                .1
                .push(c);
        }
        i += 1;
    }
    out.extend(current);
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

/// Expands a layout of `player` into placement notations, one per unit, in
/// order (`I@1`, `C@2`, …), each legal after the ones before it. `Ok(None)`
/// when `text` is not a layout. A refusal names the placement's number and
/// its character column in `text`.
pub fn expand(
    position: &Position,
    player: Player,
    text: &str,
) -> Result<Option<Vec<String>>, Refusal> {
    let items = tokens(text);
    let Some((_, first)) = items.first() else {
        return Ok(None);
    };
    let separated = items.len() > 1 || text.trim().chars().any(is_separator);
    if !separated
        && (first.contains('@')
            || first.chars().count() == 1
            || read(position.board(), first).is_ok())
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
            return Err(Refusal::illegal(
                reasons::SETUP_OVER,
                format!(
                    "`{}` is a layout, but the setup is over: layouts only place units (W3)",
                    quote(text.trim())
                ),
            ));
        }
        Phase::Over(_) => {
            return Err(Refusal::illegal(
                reasons::GAME_OVER,
                "the game is over: no more actions (W11)",
            ));
        }
    }
    let side = position.to_move();
    if player as usize != side.index() {
        let who =
            Side::from_index(player as usize).map_or_else(|| format!("seat {player}"), Side::label);
        return Err(Refusal::illegal(
            reasons::NOT_YOUR_TURN,
            format!(
                "{who} cannot place now: {} is placing its units (W3)",
                side.label()
            ),
        ));
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
    for (column, token) in &items {
        let (column, token) = (*column, token.as_str());
        // (column, unit letter, the point after `@` if any)
        let mut placements: Vec<(usize, char, Option<&str>)> = Vec::new();
        match token.split_once('@') {
            Some((unit, at)) if is_item(token) => {
                placements.push((column, unit.chars().next().unwrap_or('?'), Some(at)));
            }
            Some(_) => {
                return Err(Refusal::notation(
                    reasons::LAYOUT_ITEM,
                    format!(
                        "placement {} (`{}`, character {column}): not a placement like `I@17` (W3)",
                        out.len() + 1,
                        quote(token)
                    ),
                ));
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
                return Err(Refusal::notation(
                    reasons::LAYOUT_ITEM,
                    format!(
                        "placement {} (`{}`, character {column}): not unit letters (I, C, A) or \
                         a placement like `I@17` (W3)",
                        out.len() + 1,
                        quote(token)
                    ),
                ));
            }
        }
        for (column, letter, at) in placements {
            let number = out.len() + 1;
            let written = match at {
                Some(at) => format!("{letter}@{}", quote(at)),
                None => letter.to_string(),
            };
            let here = format!("placement {number} (`{written}`, character {column})");
            let Some(kind) = UnitKind::from_letter(letter) else {
                let refused = crate::notation::unknown_unit_letter(&letter.to_string());
                return Err(Refusal::notation(
                    &refused.reason,
                    format!("{here}: {}", refused.message),
                ));
            };
            let next = match after.next_start() {
                Some(n) if after.to_move() == side => n,
                _ => {
                    return Err(Refusal::illegal(
                        reasons::MORE_UNITS_THAN_START_POINTS,
                        format!(
                            "{here}: more units than empty start points: {} had \
                             {empty_at_start} empty start points (W3)",
                            side.label()
                        ),
                    ));
                }
            };
            if let Some(at) = at {
                let point = parse_point(after.board(), at).ok_or_else(|| {
                    let refused = unknown_point(at);
                    Refusal::notation(&refused.reason, format!("{here}: {}", refused.message))
                })?;
                if point != after.board().start_point(side, next) {
                    return Err(Refusal::illegal(
                        reasons::NOT_NEXT_START_POINT,
                        format!(
                            "{here}: units are placed on the next empty start point, which is \
                             {} (W3)",
                            start_number_name(side, next)
                        ),
                    ));
                }
            }
            if after.count_of(side, kind) >= kind.army_count() {
                return Err(Refusal::illegal(
                    reasons::TOO_MANY_UNITS,
                    format!(
                        "{here}: too many {}: an army has {} (W3)",
                        kind.plural(),
                        kind.army_count()
                    ),
                ));
            }
            let action = Action::Place(kind);
            out.push(action_to_string(&after, action));
            // Every check the move generator makes was made above.
            let played = after.play(action);
            debug_assert!(played, "{here}: checked, yet refused");
        }
    }
    Ok(Some(out))
}
