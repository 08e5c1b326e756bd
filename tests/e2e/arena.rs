//! `tabletop arena` as a smoke run: a few quick matches per game between the
//! server's `random` and a tiny search, on a host the arena starts itself
//! (two matches at a time) and on one it is given, with the table printed
//! and every match written as a JSON line.

use serde_json::Value;
use tabletop_proto::v1 as pb;
use tabletop_tests::{ADMIN_TOKEN, Host, HostOptions, target_dir};

use crate::support::E2E_MAX_TURNS;

/// Runs `tabletop arena` with `args`; its stdout, or a panic with its stderr.
async fn arena(server: Option<&str>, args: &[&str]) -> String {
    let mut command = tokio::process::Command::new(
        target_dir().join(format!("tabletop{}", std::env::consts::EXE_SUFFIX)),
    );
    if let Some(server) = server {
        command.args(["--server", server]);
    }
    let output = command
        .arg("arena")
        .args(args)
        .env_remove("TABLETOP_SERVER")
        .env_remove("TABLETOP_CREDENTIAL")
        .env("TABLETOP_ADMIN_TOKEN", ADMIN_TOKEN)
        .output()
        .await
        .expect("run the CLI");
    assert!(
        output.status.success(),
        "tabletop arena {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("utf-8")
}

/// The lines of a JSON-lines file.
fn json_lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("the records file")
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

#[tokio::test]
async fn the_arena_plays_every_game_and_writes_a_record_per_match() {
    // The catalog, from a host of the tests' own: the arena's host serves
    // the same built plugins.
    let host = Host::start_with(HostOptions {
        args: vec!["--store".into(), "memory".into()],
        ..HostOptions::default()
    })
    .await;
    let games = host
        .catalog()
        .await
        .list_games(pb::ListGamesRequest {})
        .await
        .expect("games")
        .into_inner()
        .games;
    assert!(games.len() >= 4, "{games:?}");
    let temp = tempfile::tempdir().expect("temp dir");
    for game in games {
        let out = temp.path().join(format!("{}.jsonl", game.name));
        let players = game.min_players.to_string();
        let turns = format!("max_turns={E2E_MAX_TURNS}");
        let mut args = vec![
            "--game",
            &game.name,
            "--bots",
            "random,mcts:20",
            "--matches",
            "2",
            "--players",
            &players,
            "--seed",
            "7",
            "--out",
            out.to_str().expect("a UTF-8 path"),
        ];
        if game.options.iter().any(|o| o.name == "max_turns") {
            args.extend(["-o", &turns]);
        }
        // The arena starts its own host for all but one game, and plays
        // there both matches at once.
        let server = (game.name == "focus").then_some(host.url.as_str());
        if server.is_none() {
            args.extend(["--parallel", "2"]);
        }
        let table = arena(server, &args).await;
        let row = table
            .lines()
            .find(|l| l.starts_with("random vs mcts:20"))
            .unwrap_or_else(|| panic!("{}: no row for the pairing in\n{table}", game.name));
        let columns: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(columns[3], "2", "{}: two games in `{row}`", game.name);
        assert!(row.contains('%'), "a score: {row}");
        let mut lines = json_lines(&out);
        assert_eq!(lines.len(), 2, "{}: a line per match", game.name);
        // Matches played at once are written as they finish.
        lines.sort_by_key(|line| line["seed"].as_u64());
        // Seats rotate, seeds are recorded, and the record names the bots.
        assert_eq!(lines[0]["seats"][0], "random");
        assert_eq!(lines[1]["seats"][0], "mcts:20");
        assert_eq!(lines[0]["seed"], 7);
        assert_eq!(lines[1]["seed"], 8);
        for line in &lines {
            assert_eq!(line["game"], game.name.as_str());
            assert_eq!(line["record"]["state"], "finished", "{line}");
            let bots: Vec<&str> = line["record"]["seat_players"]
                .as_array()
                .expect("seat players")
                .iter()
                .map(|p| p["bot"].as_str().unwrap_or_default())
                .collect();
            let seats: Vec<&str> = line["seats"]
                .as_array()
                .expect("seats")
                .iter()
                .map(|s| s.as_str().unwrap_or_default())
                .collect();
            assert_eq!(bots, seats, "the record names each seat's bot");
        }
    }
}
