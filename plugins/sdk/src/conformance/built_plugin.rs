//! Where the built plugin of a game crate lies, for tests that load it.

/// The path of the cdylib that cargo built for crate `crate_name` beside the
/// running test binary (`target/<profile>/lib<crate_name>.so`).
///
/// Panics with instructions when the file is missing: a test that needs the
/// built plugin fails, it never skips.
pub fn built_plugin_path(crate_name: &str) -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("the test binary knows its path");
    // target/<profile>/deps/<test-binary>: the cdylib sits in target/<profile>.
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("the test binary lives in target/<profile>/deps");
    let file = format!(
        "{}{}{}",
        std::env::consts::DLL_PREFIX,
        crate_name.replace('-', "_"),
        std::env::consts::DLL_SUFFIX
    );
    let path = profile_dir.join(&file);
    assert!(
        path.is_file(),
        "the built plugin {} is missing: build it first (`cargo build -p {crate_name}`, or \
         `scripts/test`, which builds every plugin before testing)",
        path.display()
    );
    path
}
