//! Helpers for a game's `render_text`: a rendering is written into one
//! pre-sized `String`, not assembled from many small ones.

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
