//! Text forms that round-trip (ruling Z12).
//!
//! Players are written `p1`..`p6` (seat 0 is `p1`); middle stacks `m1`, `m2`,
//! … oldest first.
//!
//! **Actions**: `flip`, `play-open`, `place new` (a 1 starts a middle stack),
//! `place m2` (onto middle stack 2), `place p3` (onto P3's open pile; the own
//! seat means the own open pile).
//!
//! **Positions**: a header, one section per player, the middle, the removed
//! tiles, separated by ` | `. Piles list tiles bottom first, comma-separated,
//! `-` when empty; a face-down tile whose number is public carries a `*`.
//! For 3 players with `max_number=5 copies=2`:
//! ```text
//! phase=play turn=p2 stage=hand-d3 donkey=p1 reveals=9 winner=- | 5*,1 / 4 | 2 / 5 | 3 / - | middle 2 | removed 4
//! ```
//! A last header key `out=p3,p1` lists the players taken out of the game (by
//! the host's clock `out`), in the order they left; it is absent when none is.
//! `phase` is `deal`, `first`, `play` or `over`; `stage` is `start`,
//! `continue`, `hand-d<n>` (tile n revealed from the face-down stack) or
//! `hand-o<n>` (taken from the open pile), `-` outside play.

use std::fmt::Write as _;

use tabletop_sdk::Player;

use crate::actions::Action;
use crate::fit::Place;
use crate::position::{Phase, Position, PositionError, RawPosition, Source, Stage};
use crate::rules::Rules;
use crate::tile::{FaceDownTile, Number};

/// The text of `action` (`flip`, `play-open`, `place new`, `place m2`, `place p3`).
pub fn action_to_text(action: Action) -> String {
    match action {
        Action::Flip => "flip".to_string(),
        Action::PlayOpen => "play-open".to_string(),
        Action::Place(place) => format!("place {}", place_to_text(place)),
    }
}

/// The text of a place: `new`, `m<k>`, `p<k>`.
pub fn place_to_text(place: Place) -> String {
    match place {
        Place::NewMiddle => "new".to_string(),
        Place::Middle(i) => format!("m{}", i + 1),
        Place::Pile(q) => format!("p{}", u64::from(q) + 1),
    }
}

/// Reads an action's text (whitespace-tolerant); `None` if it is not one.
pub fn action_from_text(text: &str) -> Option<Action> {
    let words: Vec<&str> = text.split_whitespace().collect();
    match words.as_slice() {
        ["flip"] => Some(Action::Flip),
        ["play-open"] => Some(Action::PlayOpen),
        ["place", "new"] => Some(Action::Place(Place::NewMiddle)),
        ["place", target] => {
            let (kind, number) = target.split_at_checked(1)?;
            let k = index_from_text(number)?;
            match kind {
                "m" => Some(Action::Place(Place::Middle(k))),
                "p" => Some(Action::Place(Place::Pile(Player::try_from(k).ok()?))),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A 1-based decimal index to 0-based (`"3"` → 2).
fn index_from_text(text: &str) -> Option<usize> {
    if text.is_empty() || text.len() > 4 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<usize>().ok()?.checked_sub(1)
}

fn seat_to_text(seat: Option<Player>) -> String {
    seat.map_or_else(|| "-".to_string(), |p| format!("p{}", u64::from(p) + 1))
}

fn seat_from_text(text: &str) -> Result<Option<Player>, PositionError> {
    if text == "-" {
        return Ok(None);
    }
    text.strip_prefix('p')
        .and_then(index_from_text)
        .and_then(|i| Player::try_from(i).ok())
        .map(Some)
        .ok_or_else(|| PositionError(format!("`{text}` is not a player (p1, p2, …) or -")))
}

fn list_to_text<T>(items: &[T], mut write: impl FnMut(&mut String, &T)) -> String {
    if items.is_empty() {
        return "-".to_string();
    }
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write(&mut out, item);
    }
    out
}

fn number_from_text(text: &str) -> Result<Number, PositionError> {
    if text.is_empty() || text.len() > 3 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(PositionError(format!("`{text}` is not a tile number")));
    }
    text.parse()
        .map_err(|_| PositionError(format!("`{text}` is not a tile number")))
}

fn list_from_text<T>(
    text: &str,
    mut read: impl FnMut(&str) -> Result<T, PositionError>,
) -> Result<Vec<T>, PositionError> {
    let text = text.trim();
    if text == "-" {
        return Ok(Vec::new());
    }
    text.split(',').map(|item| read(item.trim())).collect()
}

fn face_down_from_text(text: &str) -> Result<FaceDownTile, PositionError> {
    match text.strip_suffix('*') {
        Some(number) => Ok(FaceDownTile::known(number_from_text(number)?)),
        None => Ok(FaceDownTile::hidden(number_from_text(text)?)),
    }
}

impl Position {
    /// The full position in the notation above, hidden tiles included.
    pub fn to_text(&self) -> String {
        let (phase, turn, stage, winner) = match self.phase {
            Phase::Deal => ("deal", None, "-".to_string(), None),
            Phase::FirstPlayer => ("first", None, "-".to_string(), None),
            Phase::Play { turn, stage } => {
                let stage = match stage {
                    Stage::Start => "start".to_string(),
                    Stage::Continue => "continue".to_string(),
                    Stage::Hand { tile, from } => format!(
                        "hand-{}{tile}",
                        if from == Source::FaceDown { 'd' } else { 'o' }
                    ),
                };
                ("play", Some(turn), stage, None)
            }
            Phase::Over { winner } => ("over", None, "-".to_string(), winner),
        };
        let mut out = format!(
            "phase={phase} turn={} stage={stage} donkey={} reveals={} winner={}",
            seat_to_text(turn),
            seat_to_text(self.donkey),
            self.reveals,
            seat_to_text(winner)
        );
        if !self.out.is_empty() {
            let seats: Vec<String> = self.out.iter().map(|&p| seat_to_text(Some(p))).collect();
            let _ = write!(out, " out={}", seats.join(","));
        }
        for p in 0..self.face_down.len() {
            let down = list_to_text(&self.face_down[p], |s, t| {
                let _ = write!(s, "{}{}", t.number, if t.known { "*" } else { "" });
            });
            let open = list_to_text(&self.open[p], |s, t| {
                let _ = write!(s, "{t}");
            });
            let _ = write!(out, " | {down} / {open}");
        }
        let number = |s: &mut String, t: &Number| {
            let _ = write!(s, "{t}");
        };
        let _ = write!(
            out,
            " | middle {} | removed {}",
            list_to_text(&self.middle, number),
            list_to_text(&self.removed, number)
        );
        out
    }

    /// Reads [`Position::to_text`] back and validates it under `rules`.
    pub fn from_text(rules: Rules, text: &str) -> Result<Position, PositionError> {
        Position::from_raw(rules, RawPosition::from_text(rules.players as usize, text)?)
    }
}

impl RawPosition {
    /// Reads the notation for `players` seats without validating it against
    /// any rules (see [`Position::from_raw`] for that).
    pub fn from_text(players: usize, text: &str) -> Result<RawPosition, PositionError> {
        raw_from_text(players, text)
    }
}

fn raw_from_text(players: usize, text: &str) -> Result<RawPosition, PositionError> {
    let sections: Vec<&str> = text.split('|').map(str::trim).collect();
    if sections.len() != players + 3 {
        return Err(PositionError(format!(
            "a {players}-player position has {} sections separated by `|`, this one has {}",
            players + 3,
            sections.len()
        )));
    }
    let mut header: Vec<&str> = sections[0].split_whitespace().collect();
    // The optional last key: players taken out, in the order they left.
    let mut out = Vec::new();
    if let Some(list) = header.last().and_then(|t| t.strip_prefix("out=")) {
        for seat in list.split(',') {
            out.push(seat_from_text(seat)?.ok_or_else(|| {
                PositionError(format!("`out=` lists players (p1, p2, …), found `{seat}`"))
            })?);
        }
        header.pop();
    }
    let keys = ["phase", "turn", "stage", "donkey", "reveals", "winner"];
    if header.len() != keys.len() {
        return Err(PositionError(format!(
            "the header needs {} in this order",
            keys.map(|k| format!("{k}=…")).join(" ")
        )));
    }
    let mut values = [""; 6];
    for (i, (token, key)) in header.iter().zip(keys).enumerate() {
        values[i] = token
            .strip_prefix(key)
            .and_then(|rest| rest.strip_prefix('='))
            .ok_or_else(|| PositionError(format!("expected `{key}=…`, found `{token}`")))?;
    }
    let [phase, turn, stage, donkey, reveals, winner] = values;
    let turn = seat_from_text(turn)?;
    let winner = seat_from_text(winner)?;
    let donkey = seat_from_text(donkey)?;
    let reveals: u32 = if reveals.bytes().all(|b| b.is_ascii_digit()) {
        reveals.parse().ok()
    } else {
        None
    }
    .ok_or_else(|| PositionError(format!("`{reveals}` is not a count of reveals")))?;
    let outside_play = |what: &str| {
        if turn.is_some() || stage != "-" {
            Err(PositionError(format!(
                "phase {what} has no turn or stage (write `-`)"
            )))
        } else {
            Ok(())
        }
    };
    let phase = match phase {
        "deal" | "first" => {
            outside_play(phase)?;
            if winner.is_some() {
                return Err(PositionError("only a finished game has a winner".into()));
            }
            if phase == "deal" {
                Phase::Deal
            } else {
                Phase::FirstPlayer
            }
        }
        "over" => {
            outside_play(phase)?;
            Phase::Over { winner }
        }
        "play" => {
            if winner.is_some() {
                return Err(PositionError("only a finished game has a winner".into()));
            }
            let turn = turn.ok_or_else(|| PositionError("phase play needs a turn".into()))?;
            let stage = match stage {
                "start" => Stage::Start,
                "continue" => Stage::Continue,
                _ => {
                    let hand = stage.strip_prefix("hand-").ok_or_else(|| {
                        PositionError(format!(
                            "`{stage}` is not a stage (start, continue, hand-d<n>, hand-o<n>)"
                        ))
                    })?;
                    let (from, tile) = match hand.split_at_checked(1) {
                        Some(("d", tile)) => (Source::FaceDown, tile),
                        Some(("o", tile)) => (Source::Open, tile),
                        _ => {
                            return Err(PositionError(format!(
                                "`{stage}` is not hand-d<n> or hand-o<n>"
                            )));
                        }
                    };
                    Stage::Hand {
                        tile: number_from_text(tile)?,
                        from,
                    }
                }
            };
            Phase::Play { turn, stage }
        }
        other => {
            return Err(PositionError(format!(
                "`{other}` is not a phase (deal, first, play, over)"
            )));
        }
    };
    let mut face_down = Vec::with_capacity(players);
    let mut open = Vec::with_capacity(players);
    for (p, section) in sections[1..=players].iter().enumerate() {
        let (down, up) = section.split_once('/').ok_or_else(|| {
            PositionError(format!(
                "player p{} needs `face-down / open`, found `{section}`",
                p + 1
            ))
        })?;
        face_down.push(list_from_text(down, face_down_from_text)?);
        open.push(list_from_text(up, number_from_text)?);
    }
    let labelled = |section: &str, label: &str| -> Result<Vec<Number>, PositionError> {
        let rest = section
            .strip_prefix(label)
            .filter(|rest| rest.starts_with(' '))
            .ok_or_else(|| PositionError(format!("expected `{label} …`, found `{section}`")))?;
        list_from_text(rest, number_from_text)
    };
    let middle = labelled(sections[players + 1], "middle")?;
    let removed = labelled(sections[players + 2], "removed")?;
    Ok(RawPosition {
        phase,
        face_down,
        open,
        middle,
        removed,
        donkey,
        reveals,
        out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_round_trip() {
        for action in [
            Action::Flip,
            Action::PlayOpen,
            Action::Place(Place::NewMiddle),
            Action::Place(Place::Middle(0)),
            Action::Place(Place::Middle(11)),
            Action::Place(Place::Pile(0)),
            Action::Place(Place::Pile(5)),
        ] {
            let text = action_to_text(action);
            assert_eq!(action_from_text(&text), Some(action), "{text}");
        }
        assert_eq!(action_to_text(Action::Place(Place::Pile(2))), "place p3");
        assert_eq!(action_to_text(Action::Place(Place::Middle(1))), "place m2");
    }

    #[test]
    fn bad_action_texts_are_refused() {
        for text in [
            "",
            "flip flip",
            "place",
            "place p0",
            "place m",
            "place q1",
            "place p-1",
            "place p+1",
        ] {
            assert_eq!(action_from_text(text), None, "{text:?}");
        }
    }
}
