//! Helpers for texts a game writes: a `render_text` rendering goes into one
//! pre-sized `String`, not assembled from many small ones, and a message
//! quotes a player's input only in part, so a hostile input never makes a
//! long message. engine-host quotes a caller's input with the same
//! [`quote`], so games and host cut alike.

/// Writes `items` into `out` separated by `separator`, each with
/// `write_item`.
///
/// ```
/// let mut out = String::new();
/// tabletop_sdk::text::write_joined(&mut out, [1, 2, 3], ", ", |out, n| {
///     out.push_str(&n.to_string())
/// });
/// assert_eq!(out, "1, 2, 3");
/// ```
pub fn write_joined<T>(
    out: &mut String,
    items: impl IntoIterator<Item = T>,
    separator: &str,
    mut write_item: impl FnMut(&mut String, T),
) {
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push_str(separator);
        }
        write_item(out, item);
    }
}

/// The most characters of a player's input a message quotes.
pub const QUOTE_LIMIT: usize = 100;

/// `input` for quoting in a message: whole when it has at most
/// [`QUOTE_LIMIT`] characters, else its first ones and `…`.
///
/// ```
/// use tabletop_sdk::text::quote;
/// assert_eq!(quote("c6-d6"), "c6-d6");
/// assert_eq!(quote(&"x".repeat(500)).chars().count(), 101);
/// ```
pub fn quote(input: &str) -> std::borrow::Cow<'_, str> {
    match input.char_indices().nth(QUOTE_LIMIT) {
        None => std::borrow::Cow::Borrowed(input),
        Some((end, _)) => std::borrow::Cow::Owned(format!("{}…", &input[..end])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_input_is_quoted_whole() {
        assert_eq!(quote("c3-c4"), "c3-c4");
        let exactly = "x".repeat(QUOTE_LIMIT);
        assert_eq!(quote(&exactly), exactly);
    }

    #[test]
    fn a_long_input_is_cut_on_a_character_boundary() {
        let long = "é".repeat(20_000);
        let quoted = quote(&long);
        assert_eq!(quoted.chars().count(), QUOTE_LIMIT + 1);
        assert!(quoted.ends_with('…'));
        assert!(quoted.starts_with("éé"));
    }
}
