//! Checks that every Rust path a document names in backticks is an item of
//! the workspace, in the type or module it is named in: `Match::submit`
//! needs a `submit` among the items of a type `Match`, `grpc::status::to_status`
//! a function `to_status` in a module `status` of a module `grpc`. A
//! document that names a method of the wrong type, or a function that moved
//! to another module, fails.
//!
//! ```sh
//! cargo run -p doc-paths -- README.md docs/architecture.md
//! ```
//!
//! A path is a backticked run of `::`-separated identifiers, with at most a
//! trailing `()` or `!`. Paths into crates outside the workspace (`std::`,
//! `tokio::`, …) are not checked. The workspace's items come from parsing
//! its crates' sources (the `index` module), not from rustdoc, so the check
//! needs no nightly toolchain and no build of the checked crates.

mod index;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use index::{CrateRoot, Index};

/// First segments of paths into crates outside the workspace.
const EXTERNAL_CRATES: &[&str] = &[
    "std",
    "core",
    "alloc",
    "tokio",
    "tonic",
    "prost",
    "hyper",
    "tower",
    "serde",
    "libc",
    "nix",
    "rusqlite",
    "libloading",
    "clap",
    "tracing",
];

fn main() -> ExitCode {
    let documents: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if documents.is_empty() {
        eprintln!("usage: doc-paths DOCUMENT.md…");
        return ExitCode::from(2);
    }
    let index = match workspace_crates().and_then(|crates| Index::build(&crates)) {
        Ok(index) => index,
        Err(e) => {
            eprintln!("doc-paths: cannot read the workspace: {e}");
            return ExitCode::from(2);
        }
    };
    let mut unresolved = 0;
    let mut checked = 0;
    for document in &documents {
        let text = match std::fs::read_to_string(document) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("doc-paths: {}: {e}", document.display());
                return ExitCode::from(2);
            }
        };
        for (line, path) in named_paths(&text) {
            if EXTERNAL_CRATES.contains(&path.split("::").next().unwrap_or_default()) {
                continue;
            }
            checked += 1;
            if !index.resolves(&path) {
                unresolved += 1;
                eprintln!(
                    "{}:{line}: `{path}` names no item of the workspace",
                    document.display()
                );
            }
        }
    }
    if unresolved > 0 {
        return ExitCode::FAILURE;
    }
    println!(
        "doc-paths: {checked} paths in {} documents resolve ({} items indexed)",
        documents.len(),
        index.len()
    );
    ExitCode::SUCCESS
}

/// Every backticked Rust path of `text` with its line number: a span
/// between backticks that is two or more identifiers joined by `::`, then
/// at most `()` or `!`.
fn named_paths(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        // Odd pieces of a line split at backticks are inside backticks.
        for span in line.split('`').skip(1).step_by(2) {
            let path = span
                .strip_suffix("()")
                .or_else(|| span.strip_suffix('!'))
                .unwrap_or(span);
            let segments: Vec<&str> = path.split("::").collect();
            if segments.len() >= 2 && segments.iter().all(|s| is_identifier(s)) {
                found.push((number + 1, path.to_string()));
            }
        }
    }
    found
}

fn is_identifier(segment: &str) -> bool {
    let mut chars = segment.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The library and binary crates of the workspace, from `cargo metadata`.
fn workspace_crates() -> Result<Vec<CrateRoot>, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .output()
        .map_err(|e| format!("cargo metadata: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo metadata: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).map_err(|e| format!("cargo metadata: {e}"))?;
    let mut crates = Vec::new();
    for target in metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|package| package["targets"].as_array().into_iter().flatten())
    {
        let kinds: Vec<&str> = target["kind"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|k| k.as_str())
            .collect();
        if !kinds
            .iter()
            .any(|k| matches!(*k, "lib" | "rlib" | "cdylib" | "proc-macro" | "bin"))
        {
            continue;
        }
        let (Some(name), Some(root)) = (target["name"].as_str(), target["src_path"].as_str())
        else {
            continue;
        };
        crates.push(CrateRoot {
            name: name.replace('-', "_"),
            root: Path::new(root).to_path_buf(),
        });
    }
    Ok(crates)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_paths_are_backticked_identifier_paths() {
        let text = "calls `Engine::submit` and `grpc::serve()`\n\
                    then `tabletop_sdk::kit_tests!` but not `a::b c` or `x`";
        let names: Vec<_> = named_paths(text).into_iter().map(|(_, p)| p).collect();
        assert_eq!(
            names,
            ["Engine::submit", "grpc::serve", "tabletop_sdk::kit_tests"]
        );
    }

    fn index_of(files: &[(&str, &str)]) -> Index {
        let dir = std::env::temp_dir().join(format!("doc-paths-{}", std::process::id()));
        for (name, text) in files {
            let file = dir.join(name);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
        let index = Index::build(&[CrateRoot {
            name: "host".into(),
            root: dir.join("lib.rs"),
        }])
        .unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        index
    }

    #[test]
    fn a_method_resolves_under_its_own_type_only() {
        let index = index_of(&[
            (
                "lib.rs",
                "pub mod engine; pub mod game; pub use engine::Engine;",
            ),
            ("engine.rs", "pub struct Engine; mod submit;"),
            (
                "engine/submit.rs",
                "use super::Engine; impl Engine { pub fn submit(&self) {} }",
            ),
            (
                "game.rs",
                "pub struct Match; impl Match { pub fn seat_of(&self) {} }",
            ),
        ]);
        assert!(index.resolves("Engine::submit"));
        assert!(index.resolves("engine::Engine::submit"));
        assert!(
            index.resolves("host::Engine::submit"),
            "through the re-export"
        );
        assert!(index.resolves("Match::seat_of"));
        assert!(
            !index.resolves("Engine::seat_of"),
            "a method of another type"
        );
        assert!(!index.resolves("game::Engine"), "a type of another module");
        assert!(
            !index.resolves("engine::submit::submit"),
            "a method is no function"
        );
    }
}
