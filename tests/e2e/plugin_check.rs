//! `tabletop plugin check`: the real CLI binary runs the conformance kit on
//! real plugin files. The shipped games and the C example pass; a fixture
//! game built to break one rule at a time (`tests/misbehaving-plugin`,
//! chosen by `TABLETOP_MISBEHAVE`) fails, naming the check, with the seed
//! and the actions that reproduce it, and a plugin that kills the checking
//! process (a segfault, the memory cap, the CPU cap) is reported as such.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use serde_json::Value;
use tabletop_tests::{build_c_example, built_plugin, target_dir, workspace_dir};

fn tabletop() -> PathBuf {
    target_dir().join(format!("tabletop{}", std::env::consts::EXE_SUFFIX))
}

/// `tabletop plugin check FILE ARGS… --json` with `misbehaviour` set.
fn check(file: &Path, misbehaviour: &str, args: &[&str]) -> (Output, Value) {
    let output = Command::new(tabletop())
        .args(["plugin", "check"])
        .arg(file)
        .args(args)
        .arg("--json")
        .env("TABLETOP_MISBEHAVE", misbehaviour)
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("the CLI runs");
    let report = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON report ({e}): {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output, report)
}

/// The fixture game's plugin, built once per test process (cargo makes the
/// other processes wait and then finds it built). It shares its target
/// directory with the counter fixture's, whose dependencies are the same.
fn misbehaving_plugin() -> &'static PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let out = target_dir().join("versioned-fixture/target");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .current_dir(workspace_dir())
            .args([
                "rustc",
                "-p",
                "tabletop-misbehaving-plugin",
                "--lib",
                "--crate-type",
                "cdylib",
                "--quiet",
            ])
            .env("CARGO_TARGET_DIR", &out)
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building the misbehaving fixture plugin");
        out.join("debug").join(format!(
            "{}misbehaving_plugin{}",
            std::env::consts::DLL_PREFIX,
            std::env::consts::DLL_SUFFIX
        ))
    })
}

/// Checks `file` and asserts that every check passed.
fn passes(file: &Path, args: &[&str]) {
    let (output, report) = check(file, "", args);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{} fails the check: {report:#}",
        file.display()
    );
    assert_eq!(report["passed"], true, "{report:#}");
    assert_eq!(report["failures"], Value::Array(Vec::new()), "{report:#}");
    assert!(
        report["summary"]["matches"].as_u64().unwrap_or(0) > 0,
        "{report:#}"
    );
}

/// Checks the fixture with `misbehaviour` and returns the failure of `check`
/// after asserting exit status 1.
fn fails(misbehaviour: &str, expected_check: &str, args: &[&str]) -> (Value, Value) {
    let (output, report) = check(misbehaving_plugin(), misbehaviour, args);
    assert_eq!(output.status.code(), Some(1), "{misbehaviour}: {report:#}");
    assert_eq!(report["passed"], false, "{report:#}");
    let failures = report["failures"].as_array().expect("failures").clone();
    let failure = failures
        .iter()
        .find(|f| f["check"] == expected_check)
        .unwrap_or_else(|| panic!("{misbehaviour}: no failure of `{expected_check}`: {report:#}"))
        .clone();
    (report, failure)
}

#[test]
fn plugin_check_passes_focus() {
    passes(&built_plugin("focus"), &["--playouts", "1"]);
}

#[test]
fn plugin_check_passes_lanza() {
    passes(&built_plugin("lanza"), &["--playouts", "1"]);
}

#[test]
fn plugin_check_passes_lanzeloth() {
    passes(&built_plugin("lanzeloth"), &["--playouts", "1"]);
}

#[test]
fn plugin_check_passes_war() {
    passes(&built_plugin("war"), &["--playouts", "1"]);
}

#[test]
fn plugin_check_passes_the_c_example() {
    let dir = tempfile::tempdir().expect("temp dir");
    let library = build_c_example("nim.c", dir.path());
    passes(&library, &[]);
}

#[test]
fn plugin_check_passes_the_well_behaved_fixture() {
    passes(misbehaving_plugin(), &[]);
}

#[test]
fn plugin_check_names_a_leaked_hidden_tile_with_the_actions_that_show_it() {
    let (report, failure) = fails("leak", "hidden-information", &[]);
    assert_eq!(report["game"], "tiles", "{report:#}");
    assert_eq!(failure["players"], 2, "{failure:#}");
    assert_eq!(failure["seed"], 1, "{failure:#}");
    // The deal is the first step; the failure shows it with its outcome.
    let actions = failure["actions"].as_array().expect("actions");
    assert_eq!(actions[0]["kind"], "chance", "{failure:#}");
    assert!(
        failure["message"]
            .as_str()
            .is_some_and(|m| m.contains("hidden information leaks")),
        "{failure:#}"
    );
}

#[test]
fn plugin_check_names_a_nondeterministic_apply_with_the_action_text_and_id() {
    let (_, failure) = fails("nondeterministic", "determinism", &[]);
    let moved = failure["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .find(|a| a["kind"] == "move")
        .unwrap_or_else(|| panic!("a move among the actions: {failure:#}"))
        .clone();
    let id = moved["action"].as_u64().expect("an action id");
    assert_eq!(moved["text"], format!("guess{id}"), "{failure:#}");
}

#[test]
fn plugin_check_reports_a_segfault_while_drawing_the_board() {
    let (report, failure) = fails("segfault-svg", "svg-board", &[]);
    assert_eq!(report["ended"], "crashed", "{report:#}");
    assert!(
        failure["message"]
            .as_str()
            .is_some_and(|m| m.contains("SIGSEGV")),
        "{failure:#}"
    );
    assert_eq!(failure["seed"], 1, "{failure:#}");
}

#[test]
fn plugin_check_names_a_target_missing_from_the_board() {
    fails("bad-target", "action-targets", &[]);
}

#[test]
fn plugin_check_names_a_nan_evaluation() {
    fails("nan-evaluation", "evaluate", &[]);
}

#[test]
fn plugin_check_names_a_claim_of_simultaneous_moves_never_made() {
    let (_, failure) = fails("claims-simultaneous", "manifest-claims", &[]);
    assert!(
        failure["message"]
            .as_str()
            .is_some_and(|m| m.contains("simultaneous")),
        "{failure:#}"
    );
}

#[test]
fn plugin_check_stops_a_call_that_never_returns_at_the_time_cap() {
    let started = std::time::Instant::now();
    let (report, failure) = fails("infinite-loop", "play", &["--time-limit", "2"]);
    assert_eq!(report["ended"], "out_of_time", "{report:#}");
    assert!(
        failure["actions"].as_array().is_some_and(|a| !a.is_empty()),
        "the deal before the stuck call: {failure:#}"
    );
    // The CPU cap (2 s), twice over for a busy machine, and a margin.
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
}

#[test]
fn plugin_check_stops_a_huge_allocation_at_the_memory_cap() {
    let (output, report) = check(
        misbehaving_plugin(),
        "huge-allocation",
        &["--memory-limit", "256"],
    );
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    assert_eq!(report["ended"], "out_of_memory", "{report:#}");
    assert!(
        report["failures"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("256 MiB")),
        "{report:#}"
    );
}

#[test]
fn plugin_check_refuses_a_file_that_is_no_plugin_with_status_2() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("libnot.so");
    std::fs::write(&file, "not a shared library").expect("write");
    let output = Command::new(tabletop())
        .args(["plugin", "check"])
        .arg(&file)
        .output()
        .expect("the CLI runs");
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("libnot.so"), "{stderr}");
    let missing = Command::new(tabletop())
        .args(["plugin", "check", "/no/such/plugin.so"])
        .output()
        .expect("the CLI runs");
    assert_eq!(missing.status.code(), Some(2), "{missing:?}");
}
