//! Plays every recorded playthrough (`tests/playthroughs/*.txt`, or the files
//! given) on a fresh engine-host and rewrites each recording from its header;
//! with `--check`, compares instead and fails on the first difference.
//!
//! ```text
//! playthroughs [--check] [FILE...]
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use tabletop_tests::Host;
use tabletop_tests::playthrough::{Spec, record};

#[tokio::main]
async fn main() -> ExitCode {
    let mut check = false;
    let mut files: Vec<PathBuf> = Vec::new();
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--check" => check = true,
            "-h" | "--help" => {
                println!("playthroughs [--check] [FILE...]");
                return ExitCode::SUCCESS;
            }
            _ => files.push(arg.into()),
        }
    }
    if files.is_empty() {
        files = recordings();
    }
    let host = Host::start().await;
    let mut failed = false;
    for file in &files {
        let name = file.display();
        let recorded = match std::fs::read_to_string(file) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("{name}: {e}");
                failed = true;
                continue;
            }
        };
        let played = match Spec::from_recording(&recorded) {
            Ok(spec) => record(&host, &spec).await,
            Err(e) => Err(e),
        };
        let played = match played {
            Ok(text) => text,
            Err(e) => {
                eprintln!("{name}: {e}");
                failed = true;
                continue;
            }
        };
        if played == recorded {
            println!("{name}: unchanged");
        } else if check {
            eprintln!(
                "{name}: differs from a fresh run\n{}",
                first_difference(&recorded, &played)
            );
            failed = true;
        } else if let Err(e) = std::fs::write(file, &played) {
            eprintln!("{name}: {e}");
            failed = true;
        } else {
            println!("{name}: rewritten");
        }
    }
    if failed {
        if check {
            eprintln!(
                "playthroughs: behaviour changed; if that is intended, run scripts/playthroughs \
                 and say why in the commit"
            );
        }
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Every recording in the workspace's `tests/playthroughs`, in name order.
fn recordings() -> Vec<PathBuf> {
    let dir = tabletop_tests::workspace_dir().join("tests/playthroughs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    files
}

/// The first line where the two texts differ, with a little context.
fn first_difference(recorded: &str, played: &str) -> String {
    let old: Vec<&str> = recorded.lines().collect();
    let new: Vec<&str> = played.lines().collect();
    let at = old
        .iter()
        .zip(&new)
        .position(|(a, b)| a != b)
        .unwrap_or(old.len().min(new.len()));
    let mut shown = String::new();
    for (i, line) in old.iter().enumerate().skip(at.saturating_sub(3)).take(3) {
        if i < at {
            shown.push_str(&format!("  {:>6} | {line}\n", i + 1));
        }
    }
    for line in old.iter().skip(at).take(3) {
        shown.push_str(&format!("- {:>6} | {line}\n", at + 1));
    }
    for line in new.iter().skip(at).take(3) {
        shown.push_str(&format!("+ {:>6} | {line}\n", at + 1));
    }
    shown
}
