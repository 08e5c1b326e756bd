//! Smoke test of the load tool against the real engine-host binary with the
//! real built plugins (all found next to this test's binary, in
//! target/<profile>): a second of load and baseline, a small memory run,
//! small history and history-cost runs, a small isolation run, and a small
//! arena.
//! Build first: `cargo build -p engine-host -p tabletop-bench -p focus -p lanza
//! -p lanzeloth -p war`.

use std::path::PathBuf;
use std::process::Command;

fn profile_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tabletop-bench"))
        .parent()
        .expect("the binary has a directory")
        .to_path_buf()
}

fn built(file: &str) -> PathBuf {
    let path = profile_dir().join(file);
    assert!(
        path.is_file(),
        "{} is missing: build it first (cargo build -p engine-host -p war)",
        path.display()
    );
    path
}

/// The built engine-host, checking that the War plugin the runs play is
/// built beside it.
fn host_with_war() -> PathBuf {
    built(&format!(
        "{}war{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    built("engine-host")
}

fn bench(args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_tabletop-bench"))
        .args(args)
        .output()
        .expect("tabletop-bench runs");
    assert!(
        out.status.success(),
        "tabletop-bench {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

#[test]
fn load_tool_plays_war_against_a_real_host_and_the_echo_baseline() {
    let host = host_with_war();
    let report = bench(&[
        "run",
        "--spawn-server",
        host.to_str().expect("utf-8 path"),
        "--game",
        "war",
        "--players",
        "4",
        "--connections",
        "2",
        "--duration",
        "1",
        "--rounds",
        "2",
        "--json",
        "--quiet",
    ]);
    assert_eq!(report["rounds"], 2);
    let games = report["games"].as_array().expect("games");
    assert_eq!(games.len(), 1, "{report}");
    let war = &games[0];
    assert_eq!(war["game"], "war");
    let engine = &war["engine"];
    assert!(engine["actions"].as_u64().expect("actions") > 0, "{engine}");
    assert!(engine["submit_latency_us"]["p99"].as_u64().expect("p99") > 0);
    assert_eq!(
        engine["errors"],
        serde_json::json!({}),
        "no RPC failed: {engine}"
    );
    if cfg!(target_os = "linux") {
        assert!(engine["server_peak_rss_bytes"].as_u64().expect("rss") > 0);
    }
    assert!(engine["sizes"]["submit_response"].as_u64().expect("size") > 0);
    let baseline = &war["baseline"];
    assert!(
        baseline["actions"].as_u64().expect("echo actions") > 0,
        "{baseline}"
    );
    assert!(war["throughput_ratio"].as_f64().expect("ratio") > 0.0);
    if cfg!(target_os = "linux") {
        // Both processes' CPU is read from /proc, so the totals exist, and
        // two processes can keep at most all the machine's cores busy (plus
        // the 10 ms ticks /proc counts CPU in, over a one-second phase).
        let cores = report["machine"]["cpus"].as_f64().expect("cpus");
        assert!(war["total_cpu_ratio"].as_f64().expect("total ratio") > 0.0);
        for side in [engine, baseline] {
            assert!(
                side["client_cpu_us_per_action"]
                    .as_f64()
                    .expect("client µs")
                    > 0.0
            );
            let busy = side["cores_busy"].as_f64().expect("cores busy");
            assert!(busy > 0.0 && busy <= cores + 0.5, "{side}");
        }
    }
    // Each side's time is its two half-second rounds together, and no more
    // than that plus the actions still in flight at each round's end.
    for side in [engine, baseline] {
        let seconds = side["seconds"].as_f64().expect("seconds");
        assert!((1.0..3.0).contains(&seconds), "{side}");
    }
}

#[test]
fn load_tool_refuses_zero_rounds_before_it_starts() {
    let out = Command::new(env!("CARGO_BIN_EXE_tabletop-bench"))
        .args(["run", "--addr", "http://127.0.0.1:1", "--rounds", "0"])
        .output()
        .expect("tabletop-bench runs");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--rounds must be at least 1"), "{stderr}");
}

#[test]
fn memory_reports_idle_match_bytes_for_the_game_asked() {
    built(&format!(
        "{}war{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    let dir = profile_dir();
    let report = bench(&[
        "memory",
        "--plugin-dir",
        dir.to_str().expect("utf-8 path"),
        "--game",
        "war",
        "--matches",
        "500",
        "--json",
    ]);
    let rows = report.as_array().expect("rows");
    assert_eq!(rows.len(), 1, "{report}");
    assert_eq!(rows[0]["game"], "war");
    assert_eq!(rows[0]["matches"], 500);
    assert!(rows[0]["bytes_per_match"].as_f64().expect("bytes") >= 0.0);
}

#[test]
fn a_bot_load_asks_for_summaries_and_ids_and_gets_smaller_answers() {
    let host = built("engine-host");
    let run = |game: &str, extra: &[&str]| {
        let mut args = vec![
            "run",
            "--spawn-server",
            host.to_str().expect("utf-8 path"),
            "--game",
            game,
            "--players",
            "2",
            "--duration",
            "1",
            "--no-baseline",
            "--json",
            "--quiet",
        ];
        args.extend_from_slice(extra);
        bench(&args)
    };
    let engine = |report: &serde_json::Value| report["games"][0]["engine"].clone();
    let size =
        |engine: &serde_json::Value, call: &str| engine["sizes"][call].as_u64().expect("size");
    let bot_args = ["--summary-views", "--ids-only"];
    let bot_report = run("war", &bot_args);
    assert_eq!(bot_report["summary_views"], true);
    assert_eq!(bot_report["ids_only"], true);
    let (full, bot) = (engine(&run("war", &[])), engine(&bot_report));
    assert!(bot["actions"].as_u64().expect("actions") > 0, "{bot}");
    assert_eq!(bot["errors"], serde_json::json!({}), "no RPC failed: {bot}");
    // War's full view carries its points and segments; a summary does not.
    assert!(
        size(&bot, "submit_response") * 10 < size(&full, "submit_response"),
        "{bot} vs {full}"
    );
    // Sizes are averages over the positions a run reached, which differ by
    // run: ids are judged on Focus, whose every move's notation dwarfs its
    // id (War lists a card or two, so its average moves with the sample).
    let (full, bot) = (engine(&run("focus", &[])), engine(&run("focus", &bot_args)));
    assert!(
        size(&bot, "legal_response") * 2 < size(&full, "legal_response"),
        "ids only: {bot} vs {full}"
    );
}

#[test]
fn history_reads_the_rss_every_tenth_under_watchers_that_replay() {
    let host = host_with_war();
    let report = bench(&[
        "history",
        "--spawn-server",
        host.to_str().expect("utf-8 path"),
        "--game",
        "war",
        "--matches",
        "20",
        "--min-actions",
        "100",
        "--players",
        "4",
        "--watchers",
        "8",
        "--late-every",
        "2",
        "--retention",
        "0",
        "--json",
        "--quiet",
    ]);
    assert_eq!(report["completed"], true, "{report}");
    assert!(report["matches"].as_u64().expect("matches") >= 20);
    assert!(report["actions"].as_u64().expect("actions") >= 100);
    assert_eq!(report["errors"], serde_json::json!({}), "{report}");
    assert!(report["samples"].as_array().expect("samples").len() >= 10);
    assert_eq!(report["baseline"]["mark"], 4);
    assert_eq!(report["last"]["mark"], 20);
    assert!(report["rss_ratio"].as_f64().expect("ratio") > 0.0);
    let watch = &report["watch"];
    assert_eq!(watch["errors"], serde_json::json!({}), "{watch}");
    assert!(watch["streams"].as_u64().expect("streams") > 0, "{watch}");
    assert!(
        watch["events_from_zero"].as_u64().expect("events") > 0,
        "{watch}"
    );
}

#[test]
fn history_cost_loads_and_replays_each_game_asked() {
    let host = host_with_war();
    let report = bench(&[
        "history-cost",
        "--spawn-server",
        host.to_str().expect("utf-8 path"),
        "--game",
        "war",
        "--matches",
        "2",
        // A debug build measuring on a loaded CI machine needs more than
        // two seconds per match before the host lets go of the next.
        "--retention",
        "4",
        "--json",
    ]);
    let games = report["games"].as_array().expect("games");
    assert_eq!(games.len(), 1, "{report}");
    let war = &games[0];
    assert_eq!(war["game"], "war");
    assert!(war["events_per_match"].as_f64().expect("events") > 0.0);
    assert!(war["first_read_ms"].as_f64().expect("first") > 0.0);
    assert!(war["watch_views_us_per_event"].as_f64().expect("µs") > 0.0);
}

#[test]
fn isolation_times_a_worker_start_and_a_replay_for_every_game() {
    for game in ["focus", "lanza", "lanzeloth", "war"] {
        built(&format!(
            "{}{game}{}",
            std::env::consts::DLL_PREFIX,
            std::env::consts::DLL_SUFFIX
        ));
    }
    let host = built("engine-host");
    let report = bench(&[
        "isolation",
        "--spawn-server",
        host.to_str().expect("utf-8 path"),
        "--starts",
        "2",
        "--matches",
        "2",
        "--plies",
        "12",
        "--held",
        "40",
        "--held-plies",
        "2",
        "--concurrency",
        "4",
        "--json",
    ]);
    let games = report["games"].as_array().expect("games");
    let names: Vec<&str> = games
        .iter()
        .map(|g| g["game"].as_str().expect("name"))
        .collect();
    for game in ["focus", "lanza", "lanzeloth", "war"] {
        assert!(names.contains(&game), "{game} missing: {report}");
    }
    for g in games {
        let start = &g["worker_start"]["first_view_ms"];
        assert_eq!(start["runs"], 2, "{g}");
        assert!(start["median"].as_f64().expect("start ms") > 0.0, "{g}");
        let rebuild = &g["rebuild"];
        assert_eq!(rebuild["matches"], 2, "{g}");
        assert!(rebuild["plies"]["median"].as_f64().expect("plies") > 0.0);
        // A difference of two timings: a number, of either sign.
        assert!(rebuild["ms_per_100_plies"]["median"].is_f64(), "{g}");
    }
    let held = &report["held"];
    assert_eq!(held["game"], "focus");
    assert_eq!(held["matches"], 40);
    assert!(held["seconds"].as_f64().expect("seconds") > 0.0, "{held}");
    // The tool killed workers between calls: no call is blamed for it.
    for plugin in report["plugins"].as_array().expect("plugins") {
        assert_eq!(plugin["trusted"], false, "{plugin}");
        assert_eq!(plugin["faults"], 0, "{plugin}");
        assert_eq!(plugin["quarantined"], 0, "{plugin}");
        assert!(plugin["kills"].as_u64().expect("kills") >= 3, "{plugin}");
    }
}

#[test]
fn arena_plays_thinking_players_spectators_and_stalled_clients_without_losing_an_event() {
    let focus = format!(
        "{}focus{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    // Focus alone in the plugin directory: the host checks every plugin
    // file before it listens, and the others are not played here.
    let plugins = tempfile::tempdir().expect("a scratch directory");
    std::fs::copy(built(&focus), plugins.path().join(&focus)).expect("focus copied");
    let host = built("engine-host");
    let report = bench(&[
        "arena",
        "--server",
        host.to_str().expect("utf-8 path"),
        "--server-arg=--plugin-dir",
        &format!("--server-arg={}", plugins.path().display()),
        "--game",
        "focus",
        "--players",
        "200",
        "--connections",
        "8",
        "--spectators",
        "20",
        "--stalled",
        "10",
        "--stalled-connections",
        "2",
        "--think-median-ms",
        "50",
        "--reconnect-share",
        "0.3",
        "--ramp-step",
        "100",
        "--ramp-every",
        "1.5",
        "--duration",
        "3",
        "--json",
        "--quiet",
    ]);
    assert!(
        report["actions"].as_u64().expect("actions") > 200,
        "{report}"
    );
    assert!(report["actions_per_s_full"].as_f64().expect("rate") > 0.0);
    // 200 players in matches of two, a fifth of them with a bot seat.
    assert!(
        report["matches_created"].as_u64().expect("created") >= 100,
        "{report}"
    );
    assert_eq!(report["honest_failures"], 0, "{report}");
    assert_eq!(
        report["errors"]["honest"],
        serde_json::json!({}),
        "{report}"
    );
    assert_eq!(
        report["errors"]["platform"],
        serde_json::json!({}),
        "{report}"
    );
    assert!(
        report["reconnects"].as_u64().expect("reconnects") > 0,
        "{report}"
    );
    assert_eq!(report["lost_events"], 0, "{report}");
    assert_eq!(report["duplicated_events"], 0, "{report}");
    for rpc in [
        "CreateMatch",
        "ListLegalActions",
        "SubmitAction",
        "WatchMatch",
        "FollowLifecycle",
    ] {
        let latency = &report["rpc_latency_us"][rpc];
        assert!(
            latency["count"].as_u64().expect("count") > 0,
            "{rpc}: {report}"
        );
        assert!(latency["p99"].as_u64().expect("p99") >= latency["p50"].as_u64().expect("p50"));
    }
    assert!(
        report["move_to_opponent_stream_us"]["count"]
            .as_u64()
            .expect("count")
            > 0
    );
    assert!(report["feed_lag_us"]["count"].as_u64().expect("count") > 0);
    assert!(report["spectator_streams"].as_u64().expect("spectators") > 0);
    let stalled = &report["stalled"];
    let opened = stalled["opened"].as_u64().expect("opened");
    assert_eq!(opened, 10, "{report}");
    let settled = ["cut_fell_behind", "ended", "still_open"]
        .iter()
        .map(|k| stalled[*k].as_u64().expect("count"))
        .sum::<u64>()
        + report["errors"]["stalled"]
            .as_object()
            .expect("stalled errors")
            .values()
            .map(|n| n.as_u64().expect("n"))
            .sum::<u64>();
    assert_eq!(
        settled, opened,
        "every stalled stream is accounted for: {report}"
    );
    let steps: Vec<u64> = report["ramp_steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|s| s["players"].as_u64().expect("players"))
        .collect();
    assert_eq!(steps, [100, 200], "{report}");
    assert!(
        report
            .as_object()
            .expect("object")
            .contains_key("submit_p99_passed_ceiling_at_players"),
        "{report}"
    );
    if cfg!(target_os = "linux") {
        let host_use = &report["host_use"];
        assert!(host_use["cpu_s"].as_f64().expect("cpu") > 0.0, "{host_use}");
        assert!(
            host_use["peak_rss_bytes"].as_u64().expect("rss") > 0,
            "{host_use}"
        );
        // Focus is not trusted here: it runs in a plugin worker, counted
        // with the host.
        assert!(
            host_use["plugin_workers"].as_u64().expect("workers") >= 1,
            "{host_use}"
        );
    }
}
