//! Writes `include/tabletop_plugin.h`, the C header of the plugin ABI,
//! from its Rust definitions (`plugins/sdk/src/abi.rs` and the `Move` it
//! borrows from `types.rs`) with cbindgen; with `--check`, compares instead
//! and fails when the committed header is stale or a document states an ABI
//! version other than the one `abi.rs` defines.
//!
//! cbindgen writes the constants and types; this program adds what cbindgen
//! cannot derive (the string constants, the entry point's prototype, the
//! export macro, the `extern "C"` guards) from the same source, and turns
//! the Rust doc comments into C terms, refusing any it cannot.
//!
//! ```text
//! c-header [--check]
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use tabletop_sdk::abi;

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
        let drift = version_drift(&root);
        if !drift.is_empty() {
            for line in &drift {
                eprintln!("{line}");
            }
            eprintln!(
                "documents state an ABI version other than {}.{} (plugins/sdk/src/abi.rs)",
                abi::ABI_MAJOR,
                abi::ABI_MINOR
            );
            return ExitCode::FAILURE;
        }
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

/// The definition of `Move` in `types.rs` and the aliases of its fields'
/// types, without its Rust docs (the header documents it as `RawMove`).
fn move_struct(types: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(types).map_err(|e| e.to_string())?;
    let at = text
        .find("pub struct Move {")
        .ok_or("types.rs has no `pub struct Move`")?;
    let end = text[at..]
        .find("\n}")
        .map(|close| at + close + 2)
        .ok_or("`pub struct Move` is not closed")?;
    // Its attributes, above it.
    let attributes: String = text[..at]
        .lines()
        .rev()
        .take_while(|line| line.starts_with("#["))
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .map(|line| format!("{line}\n"))
        .collect();
    let aliases: String = text
        .lines()
        .filter(|line| line.starts_with("pub type Player") || line.starts_with("pub type ActionId"))
        .map(|line| format!("{line}\n"))
        .collect();
    let body: String = text[at..end]
        .lines()
        .filter(|line| !line.trim_start().starts_with("///"))
        .map(|line| format!("{line}\n"))
        .collect();
    Ok(format!(
        "{aliases}/// One player's action within a joint action.\n{attributes}{body}"
    ))
}

/// A `pub const` of the ABI module: its name, its doc lines and, for a
/// string, its value.
struct Constant {
    name: String,
    docs: Vec<String>,
    text: Option<String>,
}

/// The `pub const`s of the ABI module, in order.
fn constants(abi_rs: &str) -> Vec<Constant> {
    let mut docs = Vec::new();
    let mut found = Vec::new();
    for line in abi_rs.lines() {
        if let Some(doc) = line.strip_prefix("///") {
            docs.push(doc.strip_prefix(' ').unwrap_or(doc).to_string());
            continue;
        }
        if let Some(rest) = line.strip_prefix("pub const ") {
            let name = rest
                .split(':')
                .next()
                .unwrap_or_default()
                .trim()
                .to_string();
            let text = rest
                .split_once(": &str = \"")
                .and_then(|(_, value)| value.strip_suffix("\";"))
                .map(str::to_string);
            found.push(Constant {
                name,
                docs: std::mem::take(&mut docs),
                text,
            });
        }
        docs.clear();
    }
    found
}

/// The names of the types the ABI module defines (`struct` and `type`).
fn type_names(abi_rs: &str) -> Vec<String> {
    abi_rs
        .lines()
        .filter_map(|line| {
            line.strip_prefix("pub struct ")
                .or_else(|| line.strip_prefix("pub type "))
        })
        .filter_map(|rest| rest.split([' ', '=', '{', '<']).next())
        .map(str::to_string)
        .collect()
}

fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate lives in the repository")
        .to_path_buf()
}

/// The export macro, the C++ guard's opening and the opaque handle, written
/// after the includes.
const PROLOGUE: &str = r#"
#ifdef __cplusplus
extern "C" {
#endif

// Marks the one function a plugin exports, `tabletop_plugin_entry`, as
// visible from outside the shared library, whatever the compiler's default
// visibility (`-fvisibility=hidden` included).
#if defined(_WIN32) || defined(__CYGWIN__)
#define TABLETOP_EXPORT __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define TABLETOP_EXPORT __attribute__((visibility("default")))
#else
#define TABLETOP_EXPORT
#endif

// A game state: opaque to the host. The plugin defines
// `struct TabletopStateHandle` as it likes; the host only passes pointers
// to it back to the plugin that made them."#;

/// The header text, the same on every machine.
fn generate(root: &Path) -> Result<String, String> {
    let sdk = root.join("plugins/sdk/src");
    let abi_rs = std::fs::read_to_string(sdk.join("abi.rs")).map_err(|e| e.to_string())?;
    let constants = constants(&abi_rs);
    let names = Names {
        constants: constants.iter().map(|c| c.name.clone()).collect(),
        types: type_names(&abi_rs),
    };
    let module_docs: Vec<String> = abi_rs
        .lines()
        .filter_map(|line| line.strip_prefix("//!"))
        .map(|line| line.strip_prefix(' ').unwrap_or(line).to_string())
        .collect();
    let conventions = module_docs
        .iter()
        .skip_while(|line| *line != "# Conventions for every function")
        .skip(1)
        .take_while(|line| !line.starts_with('#'))
        .cloned()
        .collect::<Vec<_>>();
    if conventions.is_empty() {
        return Err("abi.rs has no `# Conventions for every function`".into());
    }
    let banner = format!(
        "/* The Tabletop plugin ABI {major}.{minor}: everything a plugin written in C\n \
         * or C++ needs. Generated from plugins/sdk/src/abi.rs by\n \
         * `cargo run -p tabletop-tests --bin c-header`. Do not edit: scripts/test\n \
         * checks it is current. docs/plugin-abi.md explains every function. */",
        major = abi::ABI_MAJOR,
        minor = abi::ABI_MINOR,
    );
    let mut prologue = String::from(PROLOGUE);
    prologue.push_str("\ntypedef struct TabletopStateHandle TabletopStateHandle;\n\n");
    prologue
        .push_str("// Conventions for every function of the table and of every extension:\n//\n");
    for line in &conventions {
        prologue.push_str(format!("// {line}").trim_end());
        prologue.push('\n');
    }
    let mut trailer = String::new();
    for constant in constants.iter().filter(|c| c.text.is_some()) {
        for line in &constant.docs {
            trailer.push_str(format!("// {line}").trim_end());
            trailer.push('\n');
        }
        trailer.push_str(&format!(
            "#define TABLETOP_{} \"{}\"\n\n",
            constant.name,
            constant.text.as_deref().unwrap_or_default()
        ));
    }
    // The entry point: `ENTRY_SYMBOL`, of type `EntryFn`.
    trailer.push_str(&format!(
        "// The one function a plugin exports (its name is\n\
         // `TABLETOP_ENTRY_SYMBOL`, its type `TabletopEntryFn`): define it with\n\
         // `TABLETOP_EXPORT` and return the address of a static table.\n\
         TABLETOP_EXPORT const TabletopPluginApi *{}(void);\n\n\
         #ifdef __cplusplus\n\
         }}  // extern \"C\"\n\
         #endif\n",
        abi::ENTRY_SYMBOL
    ));
    let mut config = cbindgen::Config {
        language: cbindgen::Language::C,
        include_guard: Some("TABLETOP_PLUGIN_H".into()),
        header: Some(banner),
        sys_includes: vec!["stddef.h".into(), "stdint.h".into()],
        no_includes: true,
        usize_is_size_t: true,
        cpp_compat: false,
        documentation_style: cbindgen::DocumentationStyle::C99,
        style: cbindgen::Style::Type,
        after_includes: Some(prologue),
        trailer: Some(trailer),
        ..Default::default()
    };
    // Types are prefixed `Tabletop`, constants `TABLETOP_`, so the header
    // shares the C namespace with anything.
    config.export.prefix = Some("Tabletop".into());
    config.export.renaming_overrides_prefixing = true;
    config.export.rename = names
        .constants
        .iter()
        .map(|name| (name.clone(), format!("TABLETOP_{name}")))
        .collect();
    // Every table, the extensions' included: none is reached from a function
    // cbindgen sees.
    config.export.include = names
        .types
        .iter()
        .filter(|name| {
            ["PluginApi", "EntryFn", "LogFn"].contains(&name.as_str()) || name.ends_with("Ext")
        })
        .cloned()
        .collect();
    // The handle is opaque to C: declared, never defined.
    config.export.exclude = vec!["StateHandle".into()];
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
    let text = String::from_utf8(out).expect("cbindgen writes UTF-8");
    in_c_terms(&text, &names)
}

/// The names the ABI module defines, and what the header calls them.
struct Names {
    constants: Vec<String>,
    types: Vec<String>,
}

impl Names {
    /// The C name of a Rust item a doc comment links to: `EXT_SVG_BOARD`,
    /// `PluginApi`, `PluginApi::ply` or `RawPly::word`.
    fn c_name(&self, rust: &str) -> Option<String> {
        if self.constants.iter().any(|c| c == rust) {
            return Some(format!("TABLETOP_{rust}"));
        }
        if self.types.iter().any(|t| t == rust) || rust == "Move" {
            return Some(format!("Tabletop{rust}"));
        }
        let (owner, member) = rust.split_once("::")?;
        if owner == "PluginApi" {
            return Some(member.to_string());
        }
        self.types
            .iter()
            .any(|t| t == owner)
            .then(|| format!("Tabletop{owner}.{member}"))
    }
}

/// Rewrites the comments of `header` in C terms: a Rust doc link
/// (`[`X`]`, `[`X`](path)`) becomes the C name of `X`, and Rust's type names
/// become C's. Fails naming the first comment line still written in Rust.
fn in_c_terms(header: &str, names: &Names) -> Result<String, String> {
    let mut out = String::with_capacity(header.len());
    for line in header.lines() {
        let comment_at = line
            .find("//")
            .filter(|&at| !line[..at].contains('"'))
            .or_else(|| line.trim_start().starts_with("/*").then_some(0))
            .or_else(|| line.trim_start().starts_with('*').then_some(0));
        let Some(at) = comment_at else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let (code, comment) = line.split_at(at);
        let comment = c_comment(comment, names)
            .map_err(|item| format!("cannot say `{item}` in C, in the comment `{line}`"))?;
        if let Some(rust) = rust_left(&comment) {
            return Err(format!(
                "the comment `{comment}` is still written in Rust (`{rust}`)"
            ));
        }
        out.push_str(code);
        out.push_str(&comment);
        out.push('\n');
    }
    Ok(out)
}

/// One comment in C terms, or the Rust item it names that has no C name.
fn c_comment(comment: &str, names: &Names) -> Result<String, String> {
    let mut text = String::with_capacity(comment.len());
    let mut rest = comment;
    while let Some(open) = rest.find("[`") {
        text.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let Some(close) = after.find("`]") else {
            return Err(rest.to_string());
        };
        let item = &after[..close];
        let c_name = names.c_name(item).ok_or_else(|| item.to_string())?;
        text.push('`');
        text.push_str(&c_name);
        text.push('`');
        rest = &after[close + 2..];
        // A link's target: `(crate::…)` after the brackets.
        if rest.starts_with('(') {
            let end = rest.find(')').ok_or_else(|| rest.to_string())?;
            rest = &rest[end + 1..];
        }
    }
    text.push_str(rest);
    // Markdown's emphasis is noise in a C comment.
    text = text.replace("**", "");
    for (rust, c) in [
        ("`u8`", "`uint8_t`"),
        ("`u32`", "`uint32_t`"),
        ("`u64`", "`uint64_t`"),
        ("`i32`", "`int32_t`"),
        ("`usize`", "`size_t`"),
        ("`f64`", "`double`"),
    ] {
        text = text.replace(rust, c);
    }
    Ok(text)
}

/// The first piece of Rust syntax in a C comment, if any.
fn rust_left(comment: &str) -> Option<&'static str> {
    const RUST: [&str; 9] = [
        "[`", "](", "::", "#[", "Option<", "crate", "size_of", "&str", "`None`",
    ];
    if let Some(found) = RUST.into_iter().find(|rust| comment.contains(rust)) {
        return Some(found);
    }
    const RUST_TYPES: [&str; 8] = ["u8", "u16", "u32", "u64", "i32", "i64", "usize", "f64"];
    comment
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .find_map(|word| RUST_TYPES.into_iter().find(|t| *t == word))
}

/// Each line of a document that states an ABI version of this major
/// version other than the current one (`ABI 3.0` when the minor is 2).
fn version_drift(root: &Path) -> Vec<String> {
    let mut files = vec![root.join("README.md"), root.join(HEADER)];
    for dir in ["docs", "examples/c-plugin", "plugins/sdk/src"] {
        collect_files(&root.join(dir), &mut files);
    }
    let mut drift = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for (number, line) in text.lines().enumerate() {
            if let Some(version) = stated_versions(line)
                .into_iter()
                .find(|&(major, minor)| major == abi::ABI_MAJOR && minor != abi::ABI_MINOR)
            {
                drift.push(format!(
                    "{}:{}: ABI {}.{}",
                    file.strip_prefix(root).unwrap_or(&file).display(),
                    number + 1,
                    version.0,
                    version.1
                ));
            }
        }
    }
    drift
}

fn collect_files(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_files(&path, files);
        } else if path
            .extension()
            .is_some_and(|e| ["md", "h", "c", "rs"].iter().any(|x| e == *x))
        {
            files.push(path);
        }
    }
}

/// The versions a line states as `ABI MAJOR.MINOR` or `ABI (MAJOR.MINOR)`.
fn stated_versions(line: &str) -> Vec<(u32, u32)> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("ABI ") {
        rest = &rest[at + 4..];
        let digits = rest.trim_start_matches('(');
        let (major, tail) = digits.split_at(
            digits
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(digits.len()),
        );
        let Some(tail) = tail.strip_prefix('.') else {
            continue;
        };
        let minor = &tail[..tail
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(tail.len())];
        if let (Ok(major), Ok(minor)) = (major.parse(), minor.parse()) {
            found.push((major, minor));
        }
    }
    found
}
