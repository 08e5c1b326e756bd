//! A plugin written in C against the generated header
//! (`examples/c-plugin/nim.c`, `include/tabletop_plugin.h`), built here with
//! the system C compiler, passes the host's vetting, and plays a match over
//! gRPC like a game built with the Rust SDK.

use std::path::Path;
use std::process::Command;

use tabletop_proto::v1 as pb;
use tabletop_tests::{Host, HostOptions, workspace_dir};
use tonic::Code;

/// Compiles the example into `dir` with every warning an error, so the
/// header and the walk-through stay clean C.
fn build_nim(dir: &Path) -> std::path::PathBuf {
    let root = workspace_dir();
    let library = dir.join(format!("libnim.{}", std::env::consts::DLL_EXTENSION));
    let output = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args([
            "-shared",
            "-fPIC",
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-pedantic",
            "-Werror",
        ])
        .arg("-I")
        .arg(root.join("include"))
        .arg("-o")
        .arg(&library)
        .arg(root.join("examples/c-plugin/nim.c"))
        .output()
        .expect("a C compiler (cc) to build the example plugin");
    assert!(
        output.status.success(),
        "nim.c does not compile:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    library
}

fn notation(match_id: &str, token: &str, text: &str) -> pb::SubmitActionRequest {
    pb::SubmitActionRequest {
        match_id: match_id.to_string(),
        seat_token: token.to_string(),
        action: Some(pb::submit_action_request::Action::Notation(text.into())),
        ..Default::default()
    }
}

#[tokio::test]
async fn a_plugin_written_in_c_against_the_header_plays_a_match() {
    let temp = tempfile::tempdir().unwrap();
    let plugin_dir = temp.path().join("plugins");
    std::fs::create_dir_all(&plugin_dir).unwrap();
    build_nim(&plugin_dir);
    let host = Host::start_with(HostOptions {
        plugin_dir: Some(plugin_dir),
        ..Default::default()
    })
    .await;

    let game = host
        .catalog()
        .await
        .get_game(pb::GetGameRequest {
            game: "nim".into(),
            version: None,
        })
        .await
        .expect("the C plugin is in the catalog")
        .into_inner();
    assert_eq!(
        (game.name.as_str(), game.version.as_str()),
        ("nim", "1.0.0")
    );

    let mut matches = host.matches().await;
    let created = matches
        .create_match(pb::CreateMatchRequest {
            game: "nim".into(),
            players: 2,
            options: [("stones".to_string(), "5".to_string())].into(),
            ..Default::default()
        })
        .await
        .expect("create a nim match")
        .into_inner();
    let id = created.match_id;
    let mut tokens = vec![String::new(); 2];
    for seat in created.seats {
        tokens[seat.seat as usize] = seat.token;
    }

    // The plugin's own refusals reach the client with their message.
    let refused = matches
        .submit_action(notation(&id, &tokens[0], "4"))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
    assert!(
        refused.message().contains("1, 2 or 3"),
        "{}",
        refused.message()
    );

    matches
        .submit_action(notation(&id, &tokens[0], "2"))
        .await
        .expect("seat 0 takes 2");
    let last = matches
        .submit_action(notation(&id, &tokens[1], "3"))
        .await
        .expect("seat 1 takes the last 3")
        .into_inner();
    let view = last.view.expect("the view after the last move");
    assert_eq!(view.state, pb::MatchState::Finished as i32);
    let view_json: serde_json::Value = serde_json::from_str(&view.view_json).unwrap();
    assert_eq!(view_json, serde_json::json!({"stones": 0, "winner": 1}));
    let ranks: Vec<(u32, u32)> = view.results.iter().map(|r| (r.seat, r.rank)).collect();
    assert_eq!(ranks, [(0, 2), (1, 1)], "whoever takes the last stone wins");
}
