//! The host's secrets on disk: the data directory and every file in it are
//! its owner's alone, and an admin-token file others can read stops the
//! start.

#[tokio::test]
async fn the_data_directory_and_its_files_are_the_owners_alone() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |path: &std::path::Path| {
        std::fs::metadata(path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .permissions()
            .mode()
            & 0o777
    };
    let root = tempfile::tempdir().expect("temp dir");
    let data = root.path().join("data");
    std::fs::create_dir(&data).expect("mkdir");
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).expect("chmod");

    // The test host is given its token on the command line; this one writes
    // its own token file, as a host started without one does.
    let binary = tabletop_tests::engine_host_binary();
    let mut child = std::process::Command::new(&binary)
        .args(["--listen", "127.0.0.1:0", "--plugin-poll-ms", "0"])
        .arg("--data-dir")
        .arg(&data)
        .arg("--plugin-dir")
        .arg(root.path())
        .env_remove("TABLETOP_ADMIN_TOKEN")
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start");
    let stdout = child.stdout.take().expect("stdout");
    let first = tokio::task::spawn_blocking(move || {
        use std::io::BufRead;
        let mut line = String::new();
        let _ = std::io::BufReader::new(stdout).read_line(&mut line);
        line
    })
    .await
    .expect("read");
    assert!(first.starts_with("listening on"), "{first}");
    let _ = child.kill();
    let _ = child.wait();

    assert_eq!(mode(&data), 0o700, "the data directory is made private");
    let mut files = 0;
    for entry in std::fs::read_dir(&data).expect("list") {
        let path = entry.expect("entry").path();
        assert_eq!(
            mode(&path) & 0o077,
            0,
            "{} is open to others",
            path.display()
        );
        files += 1;
    }
    assert!(files >= 3, "the store, the admin token and the request key");

    // A token file others can read is refused, with the fix in the message.
    let token_file = data.join("admin-token");
    std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let refused = std::process::Command::new(&binary)
        .args(["--listen", "127.0.0.1:0", "--plugin-poll-ms", "0"])
        .arg("--data-dir")
        .arg(&data)
        .arg("--plugin-dir")
        .arg(root.path())
        .env_remove("TABLETOP_ADMIN_TOKEN")
        .output()
        .expect("run");
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("chmod 600") && stderr.contains("admin-token"),
        "{stderr}"
    );
}
