//! Replays a fuzz target's committed inputs through its check.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

/// The committed inputs of fuzz target `target`: `fuzz/seeds/TARGET/`.
pub fn seeds_dir(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/seeds")
        .join(target)
}

/// Runs `check` on every file of `fuzz/seeds/TARGET/`; panics naming each
/// file whose check panicked. Returns how many files it ran.
pub fn replay(target: &str, check: impl Fn(&[u8])) -> usize {
    let dir = seeds_dir(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} holds no inputs", dir.display());
    let failed: Vec<String> = files
        .iter()
        .filter(|path| {
            let bytes = std::fs::read(path).expect("a readable input");
            catch_unwind(AssertUnwindSafe(|| check(&bytes))).is_err()
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(
        failed.is_empty(),
        "inputs that fail their check: {failed:#?}"
    );
    files.len()
}
