//! The C side of the plugin ABI: the generated header
//! (`include/tabletop_plugin.h`) compiles as strict C99 and as C++17 with
//! every extension table, the export macro and the layouts the Rust
//! definitions have, and the C example that offers every extension
//! (`examples/c-plugin/connect_four.c`) passes the SDK's conformance kit
//! when opened as any plugin file is.

use std::process::Command;

use tabletop_sdk::abi::{
    ActionTargetsExt, EvaluateExt, ExpandNotationExt, ExplainRefusalExt, PluginApi, PluginBuf,
    RawMove, RawOption, RawOutcome, RawPly, RawStatus, RawTransition, RemovePlayerExt, ResampleExt,
    SeatNamesExt, SeatsOutExt, StrRef, SvgBoardExt,
};
use tabletop_sdk::conformance::{self, Config};
use tabletop_sdk::import::ImportedGame;
use tabletop_tests::{build_c_example, workspace_dir};

/// The header's sizes, as the Rust definitions lay them out: a C compiler
/// that disagrees fails `sizeof` checks in the test program.
fn rust_sizes() -> Vec<(&'static str, usize)> {
    use std::mem::size_of;
    vec![
        ("TabletopPluginApi", size_of::<PluginApi>()),
        ("TabletopPluginBuf", size_of::<PluginBuf>()),
        ("TabletopStrRef", size_of::<StrRef>()),
        ("TabletopRawOption", size_of::<RawOption>()),
        ("TabletopRawStatus", size_of::<RawStatus>()),
        ("TabletopRawOutcome", size_of::<RawOutcome>()),
        ("TabletopRawPly", size_of::<RawPly>()),
        ("TabletopRawMove", size_of::<RawMove>()),
        ("TabletopRawTransition", size_of::<RawTransition>()),
        ("TabletopRemovePlayerExt", size_of::<RemovePlayerExt>()),
        ("TabletopExpandNotationExt", size_of::<ExpandNotationExt>()),
        ("TabletopResampleExt", size_of::<ResampleExt>()),
        ("TabletopSeatNamesExt", size_of::<SeatNamesExt>()),
        ("TabletopSeatsOutExt", size_of::<SeatsOutExt>()),
        ("TabletopExplainRefusalExt", size_of::<ExplainRefusalExt>()),
        ("TabletopSvgBoardExt", size_of::<SvgBoardExt>()),
        ("TabletopActionTargetsExt", size_of::<ActionTargetsExt>()),
        ("TabletopEvaluateExt", size_of::<EvaluateExt>()),
    ]
}

/// The names of the extension tables and ids the header declares.
fn header_extensions(header: &str) -> (Vec<String>, Vec<String>) {
    let tables = header
        .lines()
        .filter_map(|line| line.strip_prefix("} Tabletop"))
        .filter_map(|rest| rest.strip_suffix("Ext;"))
        .map(|name| format!("Tabletop{name}Ext"))
        .collect();
    let ids = header
        .lines()
        .filter_map(|line| line.strip_prefix("#define TABLETOP_EXT_"))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(|name| format!("TABLETOP_EXT_{name}"))
        .collect();
    (tables, ids)
}

/// A program that uses every extension table and id of the header, defines
/// the entry point with the export macro, and checks each size against
/// the Rust layout (an array of negative size does not compile).
fn program_using_the_header(header: &str) -> String {
    let (tables, ids) = header_extensions(header);
    let mut text = String::from("#include \"tabletop_plugin.h\"\n#include <string.h>\n\n");
    for (name, size) in rust_sizes() {
        text.push_str(&format!(
            "typedef char size_of_{name}[sizeof({name}) == {size} ? 1 : -1];\n"
        ));
    }
    for table in &tables {
        text.push_str(&format!("static const {table} *the_{table};\n"));
    }
    text.push_str(
        "\nstatic const void *get_extension(TabletopStrRef id) {\n    static const char *const known[] = {",
    );
    for id in &ids {
        text.push_str(&format!("{id}, "));
    }
    text.push_str(
        "NULL};\n    for (size_t i = 0; known[i] != NULL; i++)\n        \
         if (id.len == strlen(known[i]) && memcmp(id.ptr, known[i], id.len) == 0) return NULL;\n",
    );
    for table in &tables {
        text.push_str(&format!("    (void)the_{table};\n"));
    }
    text.push_str(
        "    return NULL;\n}\n\n\
         static TabletopPluginApi api;\n\n\
         TABLETOP_EXPORT const TabletopPluginApi *tabletop_plugin_entry(void) {\n    \
         TabletopEntryFn entry = tabletop_plugin_entry;\n    \
         (void)entry;\n    \
         api.abi_major = TABLETOP_ABI_MAJOR;\n    \
         api.abi_minor = TABLETOP_ABI_MINOR;\n    \
         api.size = sizeof api;\n    \
         api.get_extension = get_extension;\n    \
         return &api;\n}\n",
    );
    text
}

/// Compiles `source` (named `file`) with `compiler` and `flags` into an
/// object, and fails with the compiler's words.
fn compile(compiler: &str, flags: &[&str], file: &str, source: &str) {
    let scratch = tempfile::tempdir().unwrap();
    let path = scratch.path().join(file);
    std::fs::write(&path, source).unwrap();
    let output = Command::new(compiler)
        .args(flags)
        .arg("-I")
        .arg(workspace_dir().join("include"))
        .arg("-c")
        .arg(&path)
        .arg("-o")
        .arg(scratch.path().join("out.o"))
        .output()
        .unwrap_or_else(|e| panic!("the system compiler `{compiler}`: {e}"));
    assert!(
        output.status.success(),
        "{compiler} {flags:?} refuses the header:\n{}\n--- the program ---\n{source}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn header() -> String {
    std::fs::read_to_string(workspace_dir().join("include/tabletop_plugin.h")).unwrap()
}

#[test]
fn the_header_declares_a_table_and_an_id_for_every_extension_of_the_abi() {
    let abi_rs = std::fs::read_to_string(workspace_dir().join("plugins/sdk/src/abi.rs")).unwrap();
    let rust_tables = abi_rs
        .lines()
        .filter(|line| line.starts_with("pub struct ") && line.contains("Ext "))
        .count();
    let rust_ids = abi_rs
        .lines()
        .filter(|line| line.starts_with("pub const EXT_"))
        .count();
    let (tables, ids) = header_extensions(&header());
    assert!(rust_tables >= 9, "abi.rs defines the extensions");
    assert_eq!(tables.len(), rust_tables, "{tables:?}");
    assert_eq!(ids.len(), rust_ids, "{ids:?}");
}

#[test]
fn the_header_compiles_as_pedantic_c99_with_every_extension_and_the_export_macro() {
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    compile(
        &compiler,
        &["-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror"],
        "uses_header.c",
        &program_using_the_header(&header()),
    );
}

#[test]
fn the_header_compiles_as_pedantic_cpp17_with_every_extension_and_the_export_macro() {
    let compiler = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    compile(
        &compiler,
        &["-std=c++17", "-pedantic", "-Wall", "-Wextra", "-Werror"],
        "uses_header.cpp",
        &program_using_the_header(&header()),
    );
}

#[test]
fn the_c_example_with_every_extension_passes_the_conformance_kit() {
    let scratch = tempfile::tempdir().unwrap();
    let library = build_c_example("connect_four.c", scratch.path());
    let game = ImportedGame::open(&library).expect("the C plugin opens");
    let mut offered = game.extensions();
    offered.sort_unstable();
    let mut every = vec![
        tabletop_sdk::abi::EXT_REMOVE_PLAYER,
        tabletop_sdk::abi::EXT_EXPAND_NOTATION,
        tabletop_sdk::abi::EXT_RESAMPLE,
        tabletop_sdk::abi::EXT_SEAT_NAMES,
        tabletop_sdk::abi::EXT_SEATS_OUT,
        tabletop_sdk::abi::EXT_EXPLAIN_REFUSAL,
        tabletop_sdk::abi::EXT_SVG_BOARD,
        tabletop_sdk::abi::EXT_ACTION_TARGETS,
        tabletop_sdk::abi::EXT_EVALUATE,
    ];
    every.sort_unstable();
    assert_eq!(offered, every, "the example offers every extension");
    let summary = conformance::run(&game, &Config::for_game(&game))
        .unwrap_or_else(|failure| panic!("{failure}"));
    assert!(summary.matches > 0, "{summary:?}");
    assert!(summary.explained_refusals > 0, "{summary:?}");
    assert!(summary.evaluations > 0, "{summary:?}");
    assert!(summary.boards_drawn > 0, "{summary:?}");
    assert!(summary.targets_checked > 0, "{summary:?}");
    assert!(summary.removals > 0, "{summary:?}");
}

/// `text` with its C comments removed and every run of whitespace one space.
fn collapsed(text: &str) -> String {
    let mut plain = String::new();
    let mut rest = text;
    while let Some(open) = rest.find("/*") {
        plain.push_str(&rest[..open]);
        rest = rest[open..]
            .find("*/")
            .map_or("", |close| &rest[open + close + 2..]);
    }
    plain.push_str(rest);
    let lines: Vec<&str> = plain
        .lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .collect();
    lines
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn every_signature_docs_plugin_abi_md_states_is_the_headers() {
    let doc = std::fs::read_to_string(workspace_dir().join("docs/plugin-abi.md")).unwrap();
    let section = doc
        .split("### Every function's arguments")
        .nth(1)
        .expect("docs/plugin-abi.md states every function's arguments");
    let block = section
        .split("```c")
        .nth(1)
        .and_then(|code| code.split("```").next())
        .expect("a C block of the signatures");
    let header = collapsed(&header());
    let mut stated = 0;
    for declaration in collapsed(block).split(';').map(str::trim) {
        if declaration.is_empty() {
            continue;
        }
        assert!(
            header.contains(&format!("{declaration};")),
            "docs/plugin-abi.md states `{declaration}`, which the header does not declare"
        );
        stated += 1;
    }
    let functions = header.matches("(*").count();
    // The header's function pointers: the table's, the extensions', the
    // logger inside `set_logger`, and the two typedefs of function types.
    assert_eq!(stated + 3, functions, "every function is stated once");
}
