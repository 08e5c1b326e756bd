//! The check that a board is a well-formed SVG document: XML that
//! `roxmltree` parses (every element closed in order, attributes quoted and
//! unique, only the five XML entities and character references, namespace
//! prefixes declared, no DOCTYPE: an SVG board needs none), rooted at one
//! `<svg>` element, with no `id` used twice. It also collects every
//! element's `id`, which action targets name.

use std::collections::BTreeSet;

/// What a well-formed document holds that the kit checks further.
#[derive(Debug, Default)]
pub(super) struct Parsed {
    /// Every element's `id`.
    pub(super) ids: BTreeSet<String>,
}

/// Checks `text` and collects its ids; the error says what is wrong and
/// where.
pub(super) fn parse_svg(text: &str) -> Result<Parsed, String> {
    let document = roxmltree::Document::parse(text).map_err(|e| e.to_string())?;
    let root = document.root_element();
    if root.tag_name().name() != "svg" {
        return Err(format!(
            "the root element is <{}>, not <svg>",
            root.tag_name().name()
        ));
    }
    let mut parsed = Parsed::default();
    for element in root.descendants().filter(|node| node.is_element()) {
        if let Some(id) = element.attribute("id")
            && !parsed.ids.insert(id.to_owned())
        {
            let at = document.text_pos_at(element.range().start);
            return Err(format!("the id {id:?} is used twice (at {at})"));
        }
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::parse_svg;

    #[test]
    fn a_small_board_is_well_formed_and_its_ids_are_collected() {
        let svg = r#"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" viewBox='0 0 1 1'>
            <!-- a comment --><g id="sq-a1" class="sq"><rect x="0"/><text>A &amp; B &#9813;</text></g>
            <circle id="piece-3"/></svg>"#;
        let parsed = parse_svg(svg).unwrap();
        assert_eq!(
            parsed.ids.into_iter().collect::<Vec<_>>(),
            ["piece-3", "sq-a1"]
        );
    }

    #[test]
    fn malformed_documents_are_refused_with_the_reason() {
        // The kit's own checks name their reason.
        let cases = [
            ("<g></g>", "the root element is <g>, not <svg>"),
            (
                "<svg><g id='a'/><g id='a'/></svg>",
                "the id \"a\" is used twice (at 1:17)",
            ),
        ];
        for (svg, why) in cases {
            let error = parse_svg(svg).expect_err(svg);
            assert!(error.contains(why), "{svg}: {error}");
        }
        // The parser's.
        let malformed = [
            ("", "does not have a root node"),
            ("<svg><g></svg>", "expected 'g' tag, not 'svg' at 1:9"),
            ("<svg>", "never closed"),
            ("<svg/><svg/>", "unknown token at 1:7"),
            ("<svg><text>a < b</text></svg>", "invalid name token"),
            (
                "<svg><text>a & b</text></svg>",
                "malformed entity reference",
            ),
            (
                "<svg><text>&nbsp;</text></svg>",
                "unknown entity reference 'nbsp'",
            ),
            ("<svg x=1/>", "expected a quote"),
            (
                "<svg x='1' x='2'/>",
                "attribute 'x' at 1:12 is already defined",
            ),
            ("<svg/>trailing", "unknown token at 1:7"),
            ("<!DOCTYPE svg><svg/>", "DTD"),
            ("<svg x='1'y='2'/>", "expected a whitespace"),
            (
                "<svg><a xlink:href='#x'/></svg>",
                "unknown namespace prefix 'xlink'",
            ),
        ];
        for (svg, why) in malformed {
            let error = parse_svg(svg).expect_err(svg);
            assert!(error.contains(why), "{svg}: {error}");
        }
    }
}
