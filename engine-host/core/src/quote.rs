//! Short quotes of a caller's input in messages, and the cap on a whole
//! message. A refusal that echoed a 20 000-character notation made a
//! 20 KB status message, larger than some gRPC clients accept in a
//! header: the client then saw a protocol error instead of the refusal.
//!
//! The quote is the SDK's ([`tabletop_sdk::text::quote`]), the one games
//! quote a player's input with, so the host and the games cut alike.

use std::borrow::Cow;

pub use tabletop_sdk::text::{QUOTE_LIMIT as QUOTE_CHARS, quote};

/// Longest message a client is sent, in bytes (the ellipsis included).
pub const MAX_MESSAGE_BYTES: usize = 1000;

/// What ends a shortened quote or message.
const ELLIPSIS: char = '…';

/// `message` cut to at most `max_bytes` bytes on a character boundary,
/// ending with `…` when it was cut.
pub fn cap_bytes(message: &str, max_bytes: usize) -> Cow<'_, str> {
    if message.len() <= max_bytes {
        return Cow::Borrowed(message);
    }
    let room = max_bytes.saturating_sub(ELLIPSIS.len_utf8());
    let mut cut = room.min(message.len());
    while !message.is_char_boundary(cut) {
        cut -= 1;
    }
    Cow::Owned(format!("{}{ELLIPSIS}", &message[..cut]))
}

/// [`cap_bytes`] at [`MAX_MESSAGE_BYTES`].
pub fn cap_message(message: &str) -> Cow<'_, str> {
    cap_bytes(message, MAX_MESSAGE_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_message_is_capped_in_bytes_on_a_character_boundary() {
        let long = "ж".repeat(5_000);
        let capped = cap_message(&long);
        assert!(capped.len() <= MAX_MESSAGE_BYTES, "{}", capped.len());
        assert!(capped.ends_with('…'));
        assert_eq!(cap_message("short"), "short");
        assert_eq!(cap_bytes("abcdef", 4), "a…");
    }
}
