//! A small well-formedness check of an SVG document, enough for the boards
//! games draw: one root element `<svg>`, every element closed in order,
//! attributes quoted and unique, references to the five XML entities or to
//! characters only, no `<` or stray `&` in text. It also collects every
//! element's `id`, which action targets name. Declarations, comments,
//! CDATA and processing instructions are allowed and skipped; a DOCTYPE is
//! not (an SVG board needs none).

use std::collections::BTreeSet;

/// What a well-formed document holds that the kit checks further.
#[derive(Debug, Default)]
pub(super) struct Parsed {
    /// Every element's `id`.
    pub(super) ids: BTreeSet<String>,
}

/// Checks `text` and collects its ids; the error says what is wrong and
/// where (a byte offset).
pub(super) fn parse_svg(text: &str) -> Result<Parsed, String> {
    let mut parser = Parser {
        text,
        at: 0,
        open: Vec::new(),
        roots: 0,
        parsed: Parsed::default(),
    };
    parser.document()?;
    Ok(parser.parsed)
}

struct Parser<'a> {
    text: &'a str,
    at: usize,
    open: Vec<&'a str>,
    roots: u32,
    parsed: Parsed,
}

impl<'a> Parser<'a> {
    fn rest(&self) -> &'a str {
        &self.text[self.at..]
    }

    fn fail<T>(&self, what: impl std::fmt::Display) -> Result<T, String> {
        Err(format!("{what} at byte {}", self.at))
    }

    fn skip_past(&mut self, end: &str, what: &str) -> Result<(), String> {
        match self.rest().find(end) {
            Some(i) => {
                self.at += i + end.len();
                Ok(())
            }
            None => self.fail(format!("an unclosed {what}")),
        }
    }

    fn document(&mut self) -> Result<(), String> {
        while self.at < self.text.len() {
            let rest = self.rest();
            if rest.starts_with("<?") {
                self.skip_past("?>", "processing instruction")?;
            } else if rest.starts_with("<!--") {
                self.skip_past("-->", "comment")?;
            } else if rest.starts_with("<![CDATA[") {
                if self.open.is_empty() {
                    return self.fail("CDATA outside the root element");
                }
                self.skip_past("]]>", "CDATA section")?;
            } else if rest.starts_with("<!") {
                return self.fail("a DOCTYPE or declaration (an SVG board needs none)");
            } else if rest.starts_with("</") {
                self.end_tag()?;
            } else if rest.starts_with('<') {
                self.start_tag()?;
            } else {
                self.text_run()?;
            }
        }
        if let Some(name) = self.open.last() {
            return self.fail(format!("<{name}> is never closed"));
        }
        if self.roots == 0 {
            return self.fail("no root element");
        }
        Ok(())
    }

    fn text_run(&mut self) -> Result<(), String> {
        let end = self
            .rest()
            .find('<')
            .map_or(self.text.len(), |i| self.at + i);
        let run = &self.text[self.at..end];
        if self.open.is_empty() && !run.trim().is_empty() {
            return self.fail("text outside the root element");
        }
        check_references(run).map_err(|e| format!("{e} at byte {}", self.at))?;
        self.at = end;
        Ok(())
    }

    fn name(&mut self) -> Result<&'a str, String> {
        let rest = self.rest();
        let len = rest
            .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':')))
            .unwrap_or(rest.len());
        let name = &rest[..len];
        if name.is_empty() || !name.starts_with(|c: char| c.is_alphabetic() || c == '_') {
            return self.fail("a missing or malformed name");
        }
        self.at += len;
        Ok(name)
    }

    fn spaces(&mut self) -> bool {
        let rest = self.rest();
        let trimmed = rest.trim_start_matches([' ', '\t', '\n', '\r']);
        self.at += rest.len() - trimmed.len();
        trimmed.len() != rest.len()
    }

    fn start_tag(&mut self) -> Result<(), String> {
        self.at += 1;
        let name = self.name()?;
        if self.open.is_empty() {
            self.roots += 1;
            if self.roots > 1 {
                return self.fail(format!("a second root element <{name}>"));
            }
            if name != "svg" {
                return self.fail(format!("the root element is <{name}>, not <svg>"));
            }
        }
        let mut seen: Vec<&str> = Vec::new();
        loop {
            let spaced = self.spaces();
            let rest = self.rest();
            if rest.starts_with("/>") {
                self.at += 2;
                return Ok(());
            }
            if rest.starts_with('>') {
                self.at += 1;
                self.open.push(name);
                return Ok(());
            }
            if !spaced {
                return self.fail(format!("no space before an attribute of <{name}>"));
            }
            let attribute = self.name()?;
            if seen.contains(&attribute) {
                return self.fail(format!("<{name}> repeats the attribute {attribute}"));
            }
            seen.push(attribute);
            self.spaces();
            if !self.rest().starts_with('=') {
                return self.fail(format!(
                    "the attribute {attribute} of <{name}> has no value"
                ));
            }
            self.at += 1;
            self.spaces();
            let Some(quote) = self
                .rest()
                .chars()
                .next()
                .filter(|c| matches!(c, '"' | '\''))
            else {
                return self.fail(format!("the value of {attribute} is not quoted"));
            };
            self.at += 1;
            let Some(len) = self.rest().find(quote) else {
                return self.fail(format!("the value of {attribute} is never closed"));
            };
            let value = &self.rest()[..len];
            if value.contains('<') {
                return self.fail(format!("a `<` in the value of {attribute}"));
            }
            check_references(value).map_err(|e| format!("{e} at byte {}", self.at))?;
            if attribute == "id" && !self.parsed.ids.insert(value.to_owned()) {
                return self.fail(format!("the id {value:?} is used twice"));
            }
            self.at += len + 1;
        }
    }

    fn end_tag(&mut self) -> Result<(), String> {
        self.at += 2;
        let name = self.name()?;
        self.spaces();
        if !self.rest().starts_with('>') {
            return self.fail(format!("a malformed end tag </{name}"));
        }
        self.at += 1;
        match self.open.pop() {
            Some(open) if open == name => Ok(()),
            Some(open) => self.fail(format!("</{name}> closes <{open}>")),
            None => self.fail(format!("</{name}> closes nothing")),
        }
    }
}

/// Every `&` starts a reference to one of the five XML entities or to a
/// character.
fn check_references(text: &str) -> Result<(), String> {
    let mut rest = text;
    while let Some(i) = rest.find('&') {
        rest = &rest[i + 1..];
        let Some(end) = rest.find(';') else {
            return Err("an `&` that starts no reference".into());
        };
        let name = &rest[..end];
        let known = matches!(name, "amp" | "lt" | "gt" | "quot" | "apos")
            || name
                .strip_prefix("#x")
                .is_some_and(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()))
            || name
                .strip_prefix('#')
                .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()));
        if !known {
            return Err(format!("an unknown reference &{name};"));
        }
        rest = &rest[end + 1..];
    }
    Ok(())
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
        let cases = [
            ("", "no root element"),
            ("<g></g>", "not <svg>"),
            ("<svg><g></svg>", "</svg> closes <g>"),
            ("<svg>", "never closed"),
            ("<svg/><svg/>", "second root"),
            ("<svg><text>a < b</text></svg>", "malformed name"),
            ("<svg><text>a & b</text></svg>", "starts no reference"),
            ("<svg><text>&nbsp;</text></svg>", "unknown reference"),
            ("<svg x=1/>", "not quoted"),
            ("<svg x='1' x='2'/>", "repeats"),
            ("<svg><g id='a'/><g id='a'/></svg>", "used twice"),
            ("<svg/>trailing", "outside the root"),
            ("<!DOCTYPE svg><svg/>", "DOCTYPE"),
            ("<svg x='1'y='2'/>", "no space"),
        ];
        for (svg, why) in cases {
            let error = parse_svg(svg).expect_err(svg);
            assert!(error.contains(why), "{svg}: {error}");
        }
    }
}
