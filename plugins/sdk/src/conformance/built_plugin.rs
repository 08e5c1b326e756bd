//! Where the built plugin of a game crate lies, for the tests, benchmarks
//! and tools that run a game through its cdylib.
//!
//! cargo compiles a game crate's library once per build with every crate
//! type it lists: the rlib a test links and the cdylib come out of one
//! compiler run, side by side in `target/<profile>/deps`, whenever a test,
//! benchmark or example depends on the library. The
//! copy in `target/<profile>/` is refreshed only when the crate itself is
//! built (`cargo build -p NAME`), so a test that loaded it could pass on a
//! stale plugin. [`open_built_plugin`] loads the file of the running
//! program's own build instead, and proves it is that build's by the
//! plugin's [`BuildFingerprint`].

use std::path::{Path, PathBuf};
#[cfg(feature = "import")]
use std::time::SystemTime;

#[cfg(any(feature = "import", test))]
use crate::fingerprint::BuildFingerprint;

/// The plugin file `cargo build` last put in the target directory of the
/// running program (`target/<profile>/lib<crate_name>.so`): for tools that
/// load a game by name (a bot arena, a speed test). A test or benchmark of
/// the game's own crate uses [`open_built_plugin`], which cannot load a
/// stale file.
///
/// Panics with instructions when the file is missing: a tool that needs the
/// built plugin fails, it never skips.
pub fn built_plugin_path(crate_name: &str) -> PathBuf {
    let path = profile_dir().join(format!(
        "{}{}{}",
        std::env::consts::DLL_PREFIX,
        crate_name.replace('-', "_"),
        std::env::consts::DLL_SUFFIX
    ));
    assert!(
        path.is_file(),
        "the built plugin {} is missing: build it first (`cargo build -p {crate_name}`, or \
         `scripts/test`, which builds every plugin before testing)",
        path.display()
    );
    path
}

/// The plugin of crate `crate_name` that the running program's own build
/// made, opened: the file in `target/<profile>/deps` whose build
/// fingerprint is `expected` (the game type's, as linked into the running
/// program: `BuildFingerprint::of::<Game>()`). The newest candidate is
/// tried first.
///
/// The error says which files were looked at and why none was taken.
#[cfg(feature = "import")]
pub fn open_built_plugin(
    crate_name: &str,
    expected: &BuildFingerprint,
) -> Result<crate::import::ImportedGame, String> {
    let deps = profile_dir().join("deps");
    let candidates = candidates(&deps, crate_name);
    let path = choose(&candidates, expected, |path| {
        crate::import::read_build_fingerprint(path).map_err(|e| e.to_string())
    })
    .map_err(|why| {
        format!(
            "no plugin of this build of `{crate_name}` in {}: {why}. A test or benchmark that \
             depends on the crate's library gets its cdylib built with it, so check that the \
             crate lists `cdylib` among its crate types. Every build of a workspace crate \
             writes the same file: a build with other features or flags (`cargo build -p \
             {crate_name}` after `cargo test -p {crate_name}`, say) replaces it without \
             relinking this program; `cargo clean -p {crate_name}` and run it again",
            deps.display()
        )
    })?;
    crate::import::ImportedGame::open(path)
        .map_err(|e| format!("the built plugin {} does not load: {e}", path.display()))
}

/// The directory of the profile the running program was built in: it runs
/// from `target/<profile>/deps` (a test or benchmark),
/// `target/<profile>/examples`, or `target/<profile>` itself (a binary).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the running program knows its path");
    let dir = exe
        .parent()
        .expect("the running program lives in a directory");
    if dir
        .file_name()
        .is_some_and(|name| name == "deps" || name == "examples")
    {
        dir.parent()
            .expect("deps/ and examples/ live in target/<profile>")
            .to_path_buf()
    } else {
        dir.to_path_buf()
    }
}

/// The cdylibs of crate `crate_name` in `deps`, the newest first: cargo
/// names a workspace crate's cdylib `lib<name>.so`, without the build's
/// hash (so every build of the crate writes that one file), and a
/// dependency's `lib<name>-<hash>.so`.
#[cfg(feature = "import")]
fn candidates(deps: &Path, crate_name: &str) -> Vec<PathBuf> {
    let stem = format!(
        "{}{}",
        std::env::consts::DLL_PREFIX,
        crate_name.replace('-', "_")
    );
    let (exact, hashed) = (
        format!("{stem}{}", std::env::consts::DLL_SUFFIX),
        format!("{stem}-"),
    );
    let mut found: Vec<(SystemTime, PathBuf)> = std::fs::read_dir(deps)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|entry| {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            *name == *exact
                || (name.starts_with(&hashed) && name.ends_with(std::env::consts::DLL_SUFFIX))
        })
        .filter_map(|entry| {
            let modified = entry.metadata().and_then(|m| m.modified()).ok()?;
            Some((modified, entry.path()))
        })
        .collect();
    found.sort_by(|a, b| b.cmp(a));
    found.into_iter().map(|(_, path)| path).collect()
}

/// The first of `candidates` whose fingerprint (read by `read`) is
/// `expected`; else what each one was.
#[cfg(any(feature = "import", test))]
fn choose<'a>(
    candidates: &'a [PathBuf],
    expected: &BuildFingerprint,
    mut read: impl FnMut(&Path) -> Result<Option<BuildFingerprint>, String>,
) -> Result<&'a Path, String> {
    if candidates.is_empty() {
        return Err("no candidate file".into());
    }
    let mut seen = Vec::new();
    for path in candidates {
        match read(path) {
            Ok(Some(found)) if found == *expected => return Ok(path),
            Ok(Some(found)) => {
                seen.push(format!("{} is of another build ({found})", path.display()))
            }
            Ok(None) => seen.push(format!("{} has no build fingerprint", path.display())),
            Err(e) => seen.push(format!("{} does not open: {e}", path.display())),
        }
    }
    Err(format!("expected {expected}; {}", seen.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct ThisBuild;
    struct OtherBuild;

    #[test]
    fn a_file_of_another_build_is_refused_and_the_matching_one_taken() {
        let files = [
            PathBuf::from("deps/libgame-newest.so"),
            PathBuf::from("deps/libgame-broken.so"),
            PathBuf::from("deps/libgame-c.so"),
            PathBuf::from("deps/libgame-older.so"),
        ];
        let read = |path: &Path| match path.to_str() {
            Some("deps/libgame-newest.so") => Ok(Some(BuildFingerprint::of::<OtherBuild>())),
            Some("deps/libgame-broken.so") => Err("not a library".to_owned()),
            Some("deps/libgame-c.so") => Ok(None),
            _ => Ok(Some(BuildFingerprint::of::<ThisBuild>())),
        };
        let expected = BuildFingerprint::of::<ThisBuild>();
        assert_eq!(
            choose(&files, &expected, read).unwrap(),
            Path::new("deps/libgame-older.so")
        );
        let refused = choose(&files[..3], &expected, read).unwrap_err();
        assert!(
            refused.contains("libgame-newest.so is of another build"),
            "{refused}"
        );
        assert!(refused.contains("OtherBuild"), "{refused}");
        assert!(
            refused.contains("libgame-broken.so does not open"),
            "{refused}"
        );
        assert!(
            refused.contains("libgame-c.so has no build fingerprint"),
            "{refused}"
        );
        assert!(choose(&[], &expected, read).is_err());
    }
}
