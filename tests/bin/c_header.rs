//! Writes `include/tabletop_plugin.h`, the C header of the plugin ABI,
//! from its Rust definitions (`plugins/sdk/src/abi.rs` and the `Move` it
//! borrows from `types.rs`) with cbindgen; with `--check`, compares instead
//! and fails when the committed header is stale.
//!
//! ```text
//! c-header [--check]
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The header's place in the repository.
const HEADER: &str = "include/tabletop_plugin.h";

fn main() -> ExitCode {
    let check = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--check") => true,
        Some(_) => {
            eprintln!("usage: c-header [--check]");
            return ExitCode::FAILURE;
        }
    };
    let root = repository_root();
    let generated = match generate(&root) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("c-header: cannot generate the header: {e}");
            return ExitCode::FAILURE;
        }
    };
    let path = root.join(HEADER);
    if check {
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        if committed != generated {
            eprintln!(
                "{HEADER} is stale: the ABI in plugins/sdk/src/abi.rs changed; \
                 run `cargo run -p tabletop-tests --bin c-header` and commit it"
            );
            return ExitCode::FAILURE;
        }
        println!("{HEADER}: up to date");
        return ExitCode::SUCCESS;
    }
    if let Err(e) = std::fs::write(&path, generated) {
        eprintln!("c-header: cannot write {}: {e}", path.display());
        return ExitCode::FAILURE;
    }
    println!("{HEADER}: written");
    ExitCode::SUCCESS
}

/// The definition of `Move` in `types.rs`, with its docs and attributes, and
/// the aliases of its fields' types.
fn move_struct(types: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(types).map_err(|e| e.to_string())?;
    let end = text
        .find("pub struct Move {")
        .and_then(|at| text[at..].find("\n}").map(|close| at + close + 2))
        .ok_or("types.rs has no `pub struct Move`")?;
    let start = text[..end].rfind("\n\n").map_or(0, |blank| blank + 2);
    // The aliases its fields use.
    let aliases: String = text
        .lines()
        .filter(|line| line.starts_with("pub type Player") || line.starts_with("pub type ActionId"))
        .map(|line| format!("{line}\n"))
        .collect();
    Ok(format!("{aliases}{}", &text[start..end]))
}

/// The names of the `pub const`s of the ABI module.
fn constants(abi: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(abi).unwrap_or_default();
    text.lines()
        .filter_map(|line| line.strip_prefix("pub const "))
        .filter_map(|rest| rest.split(':').next())
        .map(|name| name.trim().to_string())
        .collect()
}

fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate lives in the repository")
        .to_path_buf()
}

/// The header text, the same on every machine.
fn generate(root: &Path) -> Result<String, String> {
    let sdk = root.join("plugins/sdk/src");
    let mut config = cbindgen::Config {
        language: cbindgen::Language::C,
        include_guard: Some("TABLETOP_PLUGIN_H".into()),
        header: Some(
            "/* The Tabletop plugin ABI 3.0, generated from plugins/sdk/src/abi.rs by\n \
             * `cargo run -p tabletop-tests --bin c-header`. Do not edit: scripts/test\n \
             * checks it is current. docs/plugin-abi.md explains every function. */"
                .into(),
        ),
        sys_includes: vec!["stddef.h".into(), "stdint.h".into()],
        no_includes: true,
        usize_is_size_t: true,
        cpp_compat: true,
        documentation_style: cbindgen::DocumentationStyle::C99,
        style: cbindgen::Style::Type,
        ..Default::default()
    };
    // Types are prefixed `Tabletop`, constants `TABLETOP_`, so the header
    // shares the C namespace with anything.
    config.export.prefix = Some("Tabletop".into());
    config.export.renaming_overrides_prefixing = true;
    config.export.rename = constants(&sdk.join("abi.rs"))
        .into_iter()
        .map(|name| (name.clone(), format!("TABLETOP_{name}")))
        .collect();
    config.export.include = vec!["PluginApi".into()];
    // The handle is opaque to C: declared, never defined.
    config.export.exclude = vec!["StateHandle".into()];
    config.after_includes =
        Some("\ntypedef struct TabletopStateHandle TabletopStateHandle;".into());
    // `RawMove` is the SDK's `Move`: cbindgen is given that one struct, not
    // the rest of `types.rs` (whose other items are not part of the ABI).
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let moves = scratch.path().join("move.rs");
    std::fs::write(&moves, move_struct(&sdk.join("types.rs"))?).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    cbindgen::Builder::new()
        .with_config(config)
        .with_src(sdk.join("abi.rs"))
        .with_src(&moves)
        .generate()
        .map_err(|e| e.to_string())?
        .write(&mut out);
    Ok(String::from_utf8(out).expect("cbindgen writes UTF-8"))
}
