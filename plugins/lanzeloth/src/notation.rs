//! Text forms that round-trip (ruling Z12).
//!
//! Players are written `p1`..`p6` (seat 0 is `p1`); middle stacks `m1`, `m2`,
//! … oldest first.
//!
//! **Actions**: `flip`, `play-open`, `place new` (a 1 starts a middle stack),
//! `place m2` (onto middle stack 2), `place p3` (onto P3's open pile) and
//! `place own` (onto the player's own open pile, which `place p<k>` with the
//! own seat also names). Reading ignores case and blanks around and between
//! the words; every text the game prints reads back to the same action.
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
//! `hand-o<n>` (taken from the open pile), `-` outside play. Positions are
//! read regardless of case, too.

use std::fmt::Write as _;

use tabletop_sdk::text::quote;
use tabletop_sdk::{Player, Refusal};

use crate::actions::Action;
use crate::fit::Place;
use crate::position::{Phase, Position, PositionError, RawPosition, Source, Stage};
use crate::refusal::reason;
use crate::rules::{MAX_PLAYERS, MIN_PLAYERS, Rules};
use crate::seats::seat;
use crate::tile::{FaceDownTile, Number};

/// The text of `player`'s `action` (`flip`, `play-open`, `place new`,
/// `place m2`, `place p3`, `place own`).
pub fn action_to_text(action: Action, player: Player) -> String {
    match action {
        Action::Flip => "flip".to_string(),
        Action::PlayOpen => "play-open".to_string(),
        Action::Place(place) => format!("place {}", place_to_text(place, player)),
    }
}

/// The text of a place for `player`: `new`, `m<k>`, `p<k>`, and `own` for
/// `player`'s own pile.
pub fn place_to_text(place: Place, player: Player) -> String {
    match place {
        Place::NewMiddle => "new".to_string(),
        Place::Middle(i) => format!("m{}", i + 1),
        Place::Pile(q) if q == player => "own".to_string(),
        Place::Pile(q) => format!("p{}", u64::from(q) + 1),
    }
}

/// The forms an action takes, for messages.
const ACTION_FORMS: &str = "flip, play-open, place new, place own, place m<k> or place p<k>";

/// Reads `player`'s action text, ignoring case and blanks around and
/// between words; `None` if it is not one (see [`read_action`] for why).
pub fn action_from_text(text: &str, player: Player) -> Option<Action> {
    read_action(text, player).ok()
}

/// Reads `player`'s action text (case and blanks ignored), or says why it
/// is no action: a notation [`Refusal`] citing ruling Z12. Whether the
/// action is legal now is a separate question
/// ([`Position::refusal`](crate::Position::refusal)).
pub fn read_action(text: &str, player: Player) -> Result<Action, Refusal> {
    let mut words = text.split_whitespace();
    let Some(verb) = words.next() else {
        return Err(Refusal::notation(
            reason::EMPTY_ACTION,
            format!("an empty text is no action: write {ACTION_FORMS} (Z12)"),
        ));
    };
    let object = words.next();
    let extra = |word: &str, after: &str| {
        Refusal::notation(
            reason::EXTRA_WORDS,
            format!(
                "`{after}` takes nothing after it, but `{}` follows (Z12)",
                quote(word)
            ),
        )
    };
    let simple = |action: Action| match object {
        None => Ok(action),
        Some(word) => Err(extra(word, &verb.to_ascii_lowercase())),
    };
    if verb.eq_ignore_ascii_case("flip") {
        return simple(Action::Flip);
    }
    if verb.eq_ignore_ascii_case("play-open") {
        return simple(Action::PlayOpen);
    }
    if !verb.eq_ignore_ascii_case("place") {
        return Err(Refusal::notation(
            reason::UNKNOWN_ACTION,
            format!(
                "`{}` is not an action: write {ACTION_FORMS} (Z12)",
                quote(verb)
            ),
        ));
    }
    let Some(target) = object else {
        return Err(Refusal::notation(
            reason::PLACE_WITHOUT_TARGET,
            "`place` needs where: new, own, m<k> (middle stack k) or p<k> (player k's pile) (Z12)",
        ));
    };
    if let Some(word) = words.next() {
        let place = format!("place {}", target.to_ascii_lowercase());
        return Err(extra(word, &quote(&place)));
    }
    place_from_text(target, player).map(Action::Place)
}

/// Reads the target of `place` for `player`.
fn place_from_text(target: &str, player: Player) -> Result<Place, Refusal> {
    if target.eq_ignore_ascii_case("new") {
        return Ok(Place::NewMiddle);
    }
    if target.eq_ignore_ascii_case("own") {
        return Ok(Place::Pile(player));
    }
    let unknown = || {
        Refusal::notation(
            reason::UNKNOWN_PLACE,
            format!(
                "`{}` is not a place: write new, own, m<k> (middle stack k, from m1) or p<k> \
                 (player k's pile) (Z12)",
                quote(target)
            ),
        )
    };
    let (kind, number) = target.split_at_checked(1).ok_or_else(unknown)?;
    if kind.eq_ignore_ascii_case("m") {
        return index_from_text(number)
            .map(Place::Middle)
            .ok_or_else(unknown);
    }
    if !kind.eq_ignore_ascii_case("p") || !is_decimal(number) {
        return Err(unknown());
    }
    index_from_text(number)
        .and_then(|k| Player::try_from(k).ok())
        .filter(|&q| q < MAX_PLAYERS)
        .map(Place::Pile)
        .ok_or_else(|| {
            Refusal::notation(
                reason::UNKNOWN_PLAYER,
                format!(
                    "`{}` is no player: players are p1 to p{MAX_PLAYERS} (Z12)",
                    quote(target)
                ),
            )
        })
}

/// Whether `text` is a decimal number (digits only).
fn is_decimal(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// A 1-based decimal index to 0-based (`"3"` → 2).
fn index_from_text(text: &str) -> Option<usize> {
    if !is_decimal(text) || text.len() > 4 {
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
        .ok_or_else(|| {
            PositionError(format!(
                "`{}` is not a player (p1, p2, …) or -",
                quote(text)
            ))
        })
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
        return Err(PositionError(format!(
            "`{}` is not a tile number",
            quote(text)
        )));
    }
    text.parse()
        .map_err(|_| PositionError(format!("`{}` is not a tile number", quote(text))))
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
    // Every word of the notation is lower case: read it regardless of case.
    let text = text.to_ascii_lowercase();
    let sections: Vec<&str> = text.split('|').map(str::trim).collect();
    // The player count comes first: a position for another count fails on
    // everything else too, and this says why.
    let written_for = sections.len().saturating_sub(3);
    let counts = MIN_PLAYERS as usize..=MAX_PLAYERS as usize;
    if written_for != players && counts.contains(&written_for) {
        return Err(PositionError(format!(
            "this position is for {written_for} players; the match has {players}"
        )));
    }
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
                PositionError(format!(
                    "`out=` lists players (p1, p2, …), found `{}`",
                    quote(seat)
                ))
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
            .ok_or_else(|| {
                PositionError(format!("expected `{key}=…`, found `{}`", quote(token)))
            })?;
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
    .ok_or_else(|| PositionError(format!("`{}` is not a count of reveals", quote(reveals))))?;
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
                            "`{}` is not a stage (start, continue, hand-d<n>, hand-o<n>)",
                            quote(stage)
                        ))
                    })?;
                    let (from, tile) = match hand.split_at_checked(1) {
                        Some(("d", tile)) => (Source::FaceDown, tile),
                        Some(("o", tile)) => (Source::Open, tile),
                        _ => {
                            return Err(PositionError(format!(
                                "`{}` is not hand-d<n> or hand-o<n>",
                                quote(stage)
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
                "`{}` is not a phase (deal, first, play, over)",
                quote(other)
            )));
        }
    };
    let mut face_down = Vec::with_capacity(players);
    let mut open = Vec::with_capacity(players);
    for (p, section) in sections[1..=players].iter().enumerate() {
        let (down, up) = section.split_once('/').ok_or_else(|| {
            PositionError(format!(
                "{} needs `face-down / open`, found `{}`",
                seat(p as Player),
                quote(section)
            ))
        })?;
        face_down.push(list_from_text(down, face_down_from_text)?);
        open.push(list_from_text(up, number_from_text)?);
    }
    let labelled = |section: &str, label: &str| -> Result<Vec<Number>, PositionError> {
        let rest = section
            .strip_prefix(label)
            .filter(|rest| rest.starts_with(' '))
            .ok_or_else(|| {
                PositionError(format!("expected `{label} …`, found `{}`", quote(section)))
            })?;
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
            for player in [0, 2, 5] {
                let text = action_to_text(action, player);
                assert_eq!(action_from_text(&text, player), Some(action), "{text}");
            }
        }
        assert_eq!(action_to_text(Action::Place(Place::Pile(2)), 0), "place p3");
        assert_eq!(
            action_to_text(Action::Place(Place::Pile(2)), 2),
            "place own"
        );
        assert_eq!(
            action_to_text(Action::Place(Place::Middle(1)), 0),
            "place m2"
        );
    }

    #[test]
    fn case_and_blanks_do_not_matter() {
        for (text, action) in [
            ("Flip", Action::Flip),
            ("  FLIP\t", Action::Flip),
            ("Play-Open", Action::PlayOpen),
            ("PLACE   NEW", Action::Place(Place::NewMiddle)),
            (" place M2 ", Action::Place(Place::Middle(1))),
            ("Place P3", Action::Place(Place::Pile(2))),
            ("place Own", Action::Place(Place::Pile(1))),
            ("place p2", Action::Place(Place::Pile(1))),
        ] {
            assert_eq!(action_from_text(text, 1), Some(action), "{text:?}");
        }
    }

    #[test]
    fn each_kind_of_bad_text_has_its_reason() {
        for (text, code) in [
            ("", reason::EMPTY_ACTION),
            ("   ", reason::EMPTY_ACTION),
            ("jump", reason::UNKNOWN_ACTION),
            ("play open", reason::UNKNOWN_ACTION),
            ("flip flip", reason::EXTRA_WORDS),
            ("place m1 now", reason::EXTRA_WORDS),
            ("place", reason::PLACE_WITHOUT_TARGET),
            ("place m", reason::UNKNOWN_PLACE),
            ("place m0", reason::UNKNOWN_PLACE),
            ("place q1", reason::UNKNOWN_PLACE),
            ("place p-1", reason::UNKNOWN_PLACE),
            ("place p+1", reason::UNKNOWN_PLACE),
            ("place é1", reason::UNKNOWN_PLACE),
            ("place p0", reason::UNKNOWN_PLAYER),
            ("place p7", reason::UNKNOWN_PLAYER),
            ("place p14", reason::UNKNOWN_PLAYER),
        ] {
            let refusal = read_action(text, 0).expect_err(text);
            assert!(refusal.notation, "{text:?}");
            assert_eq!(refusal.reason, code, "{text:?}: {}", refusal.message);
            assert!(refusal.message.contains("(Z12)"), "{}", refusal.message);
        }
        // A long input is quoted only in part.
        let long = format!("place {}", "x".repeat(5_000));
        assert!(read_action(&long, 0).unwrap_err().message.len() < 400);
    }

    #[test]
    fn a_position_for_another_player_count_says_so_first() {
        let two = "phase=deal turn=- stage=- donkey=- reveals=0 winner=- | - / - | - / - | middle - | removed -";
        let error = RawPosition::from_text(4, two).unwrap_err();
        assert_eq!(
            error.to_string(),
            "this position is for 2 players; the match has 4"
        );
        let broken = RawPosition::from_text(3, "phase=deal | x").unwrap_err();
        assert!(broken.to_string().contains("6 sections"), "{broken}");
    }

    #[test]
    fn positions_are_read_regardless_of_case() {
        let text = "PHASE=Deal turn=- stage=- donkey=- reveals=0 winner=- | - / - | - / - | Middle - | REMOVED -";
        assert_eq!(RawPosition::from_text(2, text).unwrap().phase, Phase::Deal);
    }
}
