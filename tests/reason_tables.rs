//! The copies of the host's table of reasons
//! ([`engine_host::grpc::reason::Reason`]) outside Rust: the markdown table
//! at the top of `proto/tabletop/v1/matches.proto` (which the generated
//! clients carry) and the one in the README, and the Python and TypeScript
//! clients' maps from a reason to its typed error. Each is written from the
//! table in place, between lines it recognises; the `reasons` tool writes
//! them and this module's test fails when a committed one differs. The
//! README's other tables that name a reason and a code (its table of
//! limits) are checked against the table too.

use std::path::{Path, PathBuf};

use engine_host::grpc::reason::{MetadataKey, Reason, code_name};

/// The command that rewrites every copy.
pub const REGENERATE: &str = "cargo run -p tabletop-tests --bin reasons";

/// The header row of the markdown table.
const HEADER: &str = "| reason | code | metadata | when |";

/// A file holding a copy of the table, and how the copy is found in it.
#[derive(Debug, Clone, Copy)]
enum Place {
    /// A markdown table whose lines start with `prefix`, from its header
    /// row to the last line that starts with `prefix|`.
    Markdown { prefix: &'static str },
    /// A map of typed errors: from the line `opening` to the line `closing`.
    Map {
        opening: &'static str,
        closing: &'static str,
        entry: fn(&str, &str) -> String,
    },
}

/// Every copy: its path in the repository and its kind.
const COPIES: [(&str, Place); 4] = [
    (
        "proto/tabletop/v1/matches.proto",
        Place::Markdown { prefix: "// " },
    ),
    ("README.md", Place::Markdown { prefix: "" }),
    (
        "clients/python/tabletop/errors.py",
        Place::Map {
            opening: "_BY_REASON: dict[str, type[TabletopError]] = {",
            closing: "}",
            entry: |reason, class| format!("    \"{reason}\": {class},"),
        },
    ),
    (
        "clients/typescript/src/errors.ts",
        Place::Map {
            opening: "const BY_REASON: Record<string, typeof TabletopError> = {",
            closing: "};",
            entry: |reason, class| format!("  {reason}: {class},"),
        },
    ),
];

/// A file as it is committed and as the table writes it.
#[derive(Debug)]
pub struct Written {
    /// Where it is.
    pub path: PathBuf,
    /// Its committed text.
    pub committed: String,
    /// Its text with the table's copy written in.
    pub written: String,
}

/// Every file holding a copy, under the repository `root`.
pub fn write_all(root: &Path) -> Result<Vec<Written>, String> {
    COPIES
        .iter()
        .map(|(path, copy)| {
            let full = root.join(path);
            let committed = std::fs::read_to_string(&full)
                .map_err(|e| format!("cannot read {}: {e}", full.display()))?;
            let written = match *copy {
                Place::Markdown { prefix } => replace_markdown(&committed, prefix),
                Place::Map {
                    opening,
                    closing,
                    entry,
                } => replace_map(&committed, opening, closing, entry),
            }
            .map_err(|e| format!("{path}: {e}"))?;
            Ok(Written {
                path: full,
                committed,
                written,
            })
        })
        .collect()
}

/// What disagrees with the table in the README's rows that name both a
/// reason (in backticks) and a status code: each is a sentence.
pub fn readme_disagreements(readme: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in readme.lines().filter(|line| line.starts_with('|')) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let named = cells.iter().find_map(|cell| {
            let name = cell.strip_prefix('`')?.strip_suffix('`')?;
            Reason::ALL
                .iter()
                .copied()
                .find(|reason| reason.name() == Some(name))
        });
        let code = cells
            .iter()
            .find(|cell| Reason::ALL.iter().any(|r| code_name(r.code()) == **cell));
        if let (Some(reason), Some(code)) = (named, code)
            && code_name(reason.code()) != *code
        {
            found.push(format!(
                "the README sends {} with {code}; the table of reasons says {}",
                reason.name().unwrap_or_default(),
                code_name(reason.code())
            ));
        }
    }
    found
}

/// The markdown table's lines (header, rule, one row a reason), each
/// starting with `prefix`.
fn markdown(prefix: &str) -> Vec<String> {
    let mut lines = vec![
        format!("{prefix}{HEADER}"),
        format!("{prefix}| --- | --- | --- | --- |"),
    ];
    for reason in Reason::ALL {
        let name = match reason.name() {
            Some(name) => name.to_string(),
            None => "*the game's code* (`RED_LINE`, `CARD_REPEATED`, …)".to_string(),
        };
        let cells = [
            name,
            code_name(reason.code()).to_string(),
            keys(reason.metadata()),
            reason.meaning().to_string(),
        ];
        let row: String = cells
            .iter()
            .map(|cell| match cell.as_str() {
                "" => " |".to_string(),
                cell => format!(" {cell} |"),
            })
            .collect();
        lines.push(format!("{prefix}|{row}"));
    }
    lines
}

/// Metadata keys as the table writes them: `name (about)`, comma-separated.
fn keys(keys: &[MetadataKey]) -> String {
    keys.iter()
        .map(|key| match key.about {
            "" => key.name.to_string(),
            about => format!("{} ({about})", key.name),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `text` with its markdown table of reasons (lines starting with
/// `prefix`) written from the table.
fn replace_markdown(text: &str, prefix: &str) -> Result<String, String> {
    let lines: Vec<&str> = text.lines().collect();
    let header = format!("{prefix}{HEADER}");
    let start = lines
        .iter()
        .position(|line| *line == header)
        .ok_or_else(|| format!("no line `{header}` starts the table of reasons"))?;
    let row = format!("{prefix}|");
    let end = start
        + lines[start..]
            .iter()
            .take_while(|line| line.starts_with(&row))
            .count();
    Ok(splice(&lines, start, end, markdown(prefix), text))
}

/// `text` with the map from `opening` to `closing` written from the table.
fn replace_map(
    text: &str,
    opening: &str,
    closing: &str,
    entry: fn(&str, &str) -> String,
) -> Result<String, String> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|line| *line == opening)
        .ok_or_else(|| format!("no line `{opening}` opens the map of typed errors"))?;
    let end = start
        + lines[start..]
            .iter()
            .position(|line| *line == closing)
            .ok_or_else(|| format!("no line `{closing}` closes the map of typed errors"))?
        + 1;
    let mut map = vec![opening.to_string()];
    for reason in Reason::ALL {
        if let (Some(name), Some(class)) = (reason.name(), reason.typed_error()) {
            map.push(entry(name, class));
        }
    }
    map.push(closing.to_string());
    Ok(splice(&lines, start, end, map, text))
}

/// `lines` with `start..end` replaced by `new`, ending as `text` ends.
fn splice(lines: &[&str], start: usize, end: usize, new: Vec<String>, text: &str) -> String {
    let mut out: Vec<String> = lines[..start].iter().map(|l| l.to_string()).collect();
    out.extend(new);
    out.extend(lines[end..].iter().map(|l| l.to_string()));
    let mut joined = out.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fails when a copy of the table differs from what the table writes:
    /// a reason, code, metadata key or meaning added or changed in Rust
    /// and not in the proto, the README or a client, or the other way.
    #[test]
    fn the_proto_readme_and_clients_copy_the_table_of_reasons() {
        let root = crate::workspace_dir();
        let stale: Vec<String> = write_all(&root)
            .expect("every copy is found")
            .into_iter()
            .filter(|file| file.committed != file.written)
            .map(|file| file.path.display().to_string())
            .collect();
        assert!(
            stale.is_empty(),
            "these copies of the table of reasons are stale: {stale:?}; run `{REGENERATE}` \
             (and scripts/gen-clients for the proto) and commit them"
        );
    }

    #[test]
    fn the_readme_names_each_reason_with_its_code() {
        let readme =
            std::fs::read_to_string(crate::workspace_dir().join("README.md")).expect("README.md");
        assert_eq!(readme_disagreements(&readme), Vec::<String>::new());
        let wrong = readme.replace(
            "| RESOURCE_EXHAUSTED | `RATE_LIMITED` |",
            "| UNAVAILABLE | `RATE_LIMITED` |",
        );
        assert_eq!(
            readme_disagreements(&wrong).len(),
            1,
            "a wrong code is found"
        );
    }

    #[test]
    fn a_copy_is_rewritten_between_the_lines_it_is_found_by() {
        let text =
            "before\n// | reason | code | metadata | when |\n// | X | Y | | z |\n//\nafter\n";
        let written = replace_markdown(text, "// ").expect("found");
        assert!(written.starts_with("before\n// | reason |"));
        assert!(written.ends_with("|\n//\nafter\n"));
        assert!(written.contains("// | STALE_VERSION | FAILED_PRECONDITION |"));
        assert!(!written.contains("| X |"));
        let map = "a\nconst M = {\n  OLD: Old,\n};\nb";
        let written =
            replace_map(map, "const M = {", "};", |r, c| format!("  {r}: {c},")).expect("found");
        assert!(written.contains("  STALE_VERSION: StaleVersion,\n"));
        assert!(written.contains("  RATE_LIMITED: Throttled,\n"));
        assert!(!written.contains("OLD"));
        assert!(written.ends_with("};\nb"));
    }
}
