//! Who plays a seat, as the platform that seated them says: a name to show
//! and the platform's own id for the player. The host checks their size and
//! shows them; it never interprets them.

use serde::{Deserialize, Serialize};

/// Longest display name, in characters.
pub const MAX_DISPLAY_NAME_CHARS: usize = 64;
/// Longest external id, in bytes.
pub const MAX_EXTERNAL_ID_BYTES: usize = 128;

/// The player of one seat.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SeatPlayer {
    /// The seat.
    pub seat: u32,
    /// A name to show.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub display_name: String,
    /// The platform's id for the player.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub external_id: String,
    /// The spec of the host's bot playing the seat (`mcts:500ms`); empty
    /// for a seat a client plays. The host reads it; the core only keeps it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub bot: String,
}

impl SeatPlayer {
    /// Checks the sizes and characters of the name, the id and the bot
    /// spec.
    pub fn check(&self) -> Result<(), String> {
        check_identity(&self.display_name, &self.external_id)?;
        check_bot_spec(&self.bot)
    }

    /// Whether it says nothing about the player.
    pub fn is_anonymous(&self) -> bool {
        self.display_name.is_empty() && self.external_id.is_empty() && self.bot.is_empty()
    }

    /// Whether the host's bot plays the seat.
    pub fn is_bot(&self) -> bool {
        !self.bot.is_empty()
    }
}

/// Checks a display name (at most [`MAX_DISPLAY_NAME_CHARS`] characters, no
/// control characters, none that reorders or hides text) and an external id
/// (at most [`MAX_EXTERNAL_ID_BYTES`] bytes, no control characters).
pub fn check_identity(display_name: &str, external_id: &str) -> Result<(), String> {
    if display_name.chars().count() > MAX_DISPLAY_NAME_CHARS
        || display_name
            .chars()
            .any(|c| c.is_control() || reorders_or_hides(c))
    {
        return Err(format!(
            "a display name is at most {MAX_DISPLAY_NAME_CHARS} characters with no control, \
             bidirectional or zero-width characters"
        ));
    }
    if external_id.len() > MAX_EXTERNAL_ID_BYTES || external_id.chars().any(char::is_control) {
        return Err(format!(
            "an external id is at most {MAX_EXTERNAL_ID_BYTES} bytes with no control characters"
        ));
    }
    Ok(())
}

/// Whether `c` reorders the text around it (the bidirectional controls:
/// U+202E shows `evil` as `live`) or takes no space (zero-width
/// characters): in a name, either lets one player pass for another.
fn reorders_or_hides(c: char) -> bool {
    matches!(
        c,
        '\u{061C}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
    )
}

/// Longest bot spec, in bytes.
pub const MAX_BOT_SPEC_BYTES: usize = 64;

/// Checks a bot spec's size and characters (what it means is the host's to
/// read).
pub fn check_bot_spec(spec: &str) -> Result<(), String> {
    if spec.len() > MAX_BOT_SPEC_BYTES || spec.chars().any(char::is_control) {
        return Err(format!(
            "a bot spec is at most {MAX_BOT_SPEC_BYTES} bytes with no control characters"
        ));
    }
    Ok(())
}

/// Checks the players named at creation: each names an existing seat that
/// is not open, at most once.
pub fn check_seat_players(players: &[SeatPlayer], seats: u32, open: &[u32]) -> Result<(), String> {
    for (index, player) in players.iter().enumerate() {
        if player.seat >= seats {
            return Err(format!(
                "a player for seat {} of a match of {seats} seats",
                player.seat
            ));
        }
        if open.contains(&player.seat) {
            return Err(format!(
                "seat {} is open: its player says who they are when joining",
                player.seat
            ));
        }
        if players[..index].iter().any(|p| p.seat == player.seat) {
            return Err(format!("seat {} has two players", player.seat));
        }
        player.check()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(seat: u32, name: &str) -> SeatPlayer {
        SeatPlayer {
            seat,
            display_name: name.into(),
            external_id: format!("ext-{seat}"),
            bot: String::new(),
        }
    }

    #[test]
    fn creation_players_name_each_taken_seat_once() {
        assert!(check_seat_players(&[named(0, "ana"), named(1, "ben")], 2, &[]).is_ok());
        assert!(check_seat_players(&[named(2, "cho")], 2, &[]).is_err());
        assert!(check_seat_players(&[named(1, "ben")], 2, &[1]).is_err());
        assert!(check_seat_players(&[named(0, "ana"), named(0, "ann")], 2, &[]).is_err());
    }

    #[test]
    fn names_and_ids_are_bounded_and_printable() {
        assert!(check_identity(&"é".repeat(MAX_DISPLAY_NAME_CHARS), "x").is_ok());
        assert!(check_identity(&"é".repeat(MAX_DISPLAY_NAME_CHARS + 1), "x").is_err());
        assert!(check_identity("ana\n", "x").is_err());
        assert!(check_identity("ana", &"x".repeat(MAX_EXTERNAL_ID_BYTES + 1)).is_err());
        assert!(check_identity("ana", "a\u{7}").is_err());
    }

    #[test]
    fn names_that_reorder_or_hide_text_are_refused() {
        assert!(check_identity("Ana María", "x").is_ok());
        assert!(check_identity("عمر", "x").is_ok());
        for name in [
            "ana\u{202E}evil",
            "a\u{200B}na",
            "\u{2066}ana",
            "ana\u{FEFF}",
        ] {
            assert!(check_identity(name, "x").is_err(), "{name:?}");
        }
    }
}
