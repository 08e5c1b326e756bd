//! The durable, live, hot-pluggable host: SIGKILL and restart on the
//! same store (and PostgreSQL crashed under load), records across hosts, hot-adding a plugin version while a
//! match runs, a watcher that reads nothing while play goes on, and clocks
//! that end a match on their own.
//!
//! Hot-add and the watcher use `counter`, the tiny game of
//! `tests/fixture-plugin`. The tests build it themselves as a cdylib, twice,
//! with `FIXTURE_VERSION` = 1.0.0 and 2.0.0 (`cargo rustc --crate-type
//! cdylib` into a target directory of their own), so a real second version of
//! a real plugin exists without a second crate.
//!
//! One file on purpose: its tests share the fixture builds and the kill-and-restart
//! helpers, which would otherwise be duplicated or exported for this file alone.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use tabletop_proto::v1 as pb;
use tabletop_tests::{
    ADMIN_TOKEN, Host, HostOptions, engine_host_binary, target_dir, workspace_dir,
};
use tokio_stream::StreamExt;
use tonic::Code;

use crate::support::{
    create, legal, play_first_legal, play_to_end, spectator, submit, watch_as_spectator,
};

/// The catalog's games with their smallest player count.
async fn game_names(host: &Host) -> Vec<(String, u32)> {
    host.catalog()
        .await
        .list_games(pb::ListGamesRequest {})
        .await
        .expect("list games")
        .into_inner()
        .games
        .into_iter()
        .map(|g| (g.name, g.min_players))
        .collect()
}

async fn spectator_view(host: &Host, match_id: &str) -> pb::MatchView {
    spectator(&mut host.matches().await, match_id).await
}

async fn export(host: &Host, match_id: &str) -> String {
    host.matches()
        .await
        .export_record(pb::ExportRecordRequest {
            match_id: match_id.to_string(),
            admin_token: ADMIN_TOKEN.to_string(),
        })
        .await
        .expect("export")
        .into_inner()
        .record_json
}

/// The actions of each seat in a record's log, in order.
fn logged_actions_by_seat(record_json: &str) -> BTreeMap<u32, Vec<u64>> {
    let record: serde_json::Value = serde_json::from_str(record_json).expect("record is JSON");
    let mut by_seat: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
    for entry in record["actions"].as_array().expect("actions") {
        if entry["type"] == "moves" {
            for m in entry["moves"].as_array().expect("moves") {
                by_seat
                    .entry(m["seat"].as_u64().expect("seat") as u32)
                    .or_default()
                    .push(m["action"].as_u64().expect("action"));
            }
        }
    }
    by_seat
}

/// What one client did before the host died.
#[derive(Debug, Default)]
struct ClientLog {
    /// Every action sent, by seat, in order (answered or not).
    sent: BTreeMap<u32, Vec<u64>>,
    /// How many of them were acknowledged, by seat.
    acknowledged: BTreeMap<u32, usize>,
}

/// Plays random actions until a call fails (the host died) or the match ends.
async fn play_until_failure(
    url: String,
    match_id: String,
    tokens: Vec<String>,
    seed: u64,
    progress: Arc<AtomicUsize>,
) -> ClientLog {
    let mut log = ClientLog::default();
    let mut rng = StdRng::seed_from_u64(seed);
    let Ok(channel) = tonic::transport::Channel::from_shared(url)
        .expect("url")
        .connect()
        .await
    else {
        return log;
    };
    let mut matches = pb::matches_client::MatchesClient::new(channel);
    loop {
        let Ok(view) = matches
            .get_view(pb::GetViewRequest {
                match_id: match_id.clone(),
                seat_token: String::new(),
                at_version: None,
                svg: false,
            })
            .await
        else {
            return log;
        };
        let view = view.into_inner();
        if view.state == pb::MatchState::Finished as i32 {
            progress.store(usize::MAX, Ordering::SeqCst);
            return log;
        }
        for &seat in &view.to_move {
            let token = tokens[seat as usize].clone();
            let Ok(legal) = legal(&mut matches, &match_id, &token).await else {
                return log;
            };
            let Some(action) = legal.actions.choose(&mut rng) else {
                // Already acted in this simultaneous turn.
                continue;
            };
            log.sent.entry(seat).or_default().push(action.id);
            let answer = submit(
                &mut matches,
                &match_id,
                &token,
                action.id,
                Some(legal.version),
            )
            .await;
            match answer {
                Ok(_) => {
                    *log.acknowledged.entry(seat).or_default() += 1;
                    progress.fetch_add(1, Ordering::SeqCst);
                }
                Err(e) if e.code() == Code::Unavailable || e.code() == Code::Unknown => {
                    return log;
                }
                Err(e) if e.code() == Code::FailedPrecondition => {
                    // Never happens with one client per match; keep the record
                    // honest anyway: the action was refused, not stored.
                    if let Some(sent) = log.sent.get_mut(&seat) {
                        sent.pop();
                    }
                }
                Err(_) => return log,
            }
        }
    }
}

/// Plays random actions to the end, skipping seats whose simultaneous action
/// is already held (as one may be after a restart).
async fn play_on(
    matches: &mut pb::matches_client::MatchesClient<tonic::transport::Channel>,
    match_id: &str,
    tokens: &[String],
    rng: &mut StdRng,
) -> pb::MatchView {
    for _ in 0..100_000 {
        let view = matches
            .get_view(pb::GetViewRequest {
                match_id: match_id.to_string(),
                seat_token: String::new(),
                at_version: None,
                svg: false,
            })
            .await
            .expect("view")
            .into_inner();
        if view.state == pb::MatchState::Finished as i32 {
            return view;
        }
        for &seat in &view.to_move {
            if view.seats.iter().any(|s| s.seat == seat && s.has_acted) {
                continue;
            }
            let token = &tokens[seat as usize];
            let legal = legal(matches, match_id, token)
                .await
                .expect("legal actions");
            let action = legal.actions.choose(rng).expect("a seat to move can act");
            submit(matches, match_id, token, action.id, Some(legal.version))
                .await
                .unwrap_or_else(|e| panic!("submit after the restart: {e}"));
        }
    }
    panic!("match {match_id} did not end")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sigkill_keeps_every_acknowledged_action_and_matches_play_on() {
    acknowledged_actions_survive("sqlite", Interruption::KillTheHost).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sigkill_on_postgres_keeps_every_acknowledged_action_and_matches_play_on() {
    let database = tokio::task::spawn_blocking(tabletop_test_postgres::database)
        .await
        .expect("a test database");
    acknowledged_actions_survive(&database.url, Interruption::KillTheHost).await;
}

/// What stops play mid-match in [`acknowledged_actions_survive`].
pub(crate) enum Interruption<'a> {
    /// SIGKILL the host; a new host on the same store takes over.
    KillTheHost,
    /// Crash the host's PostgreSQL server (`pg_ctl stop -m immediate`)
    /// and start it again; the same host goes on.
    RestartTheDatabase(&'a tabletop_test_postgres::Cluster),
}

/// Plays a match of every game on a host whose store is `store`, stops play
/// mid-match by `interruption`, and checks on the host that serves
/// afterwards that every acknowledged action was kept and every match
/// plays on to its end.
pub(crate) async fn acknowledged_actions_survive(store: &str, interruption: Interruption<'_>) {
    let root = tempfile::tempdir().expect("temp dir");
    let plugin_dir = Host::fresh_plugin_dir(root.path());
    let data_dir = root.path().join("data");
    let options = HostOptions {
        plugin_dir: Some(plugin_dir.clone()),
        data_dir: Some(data_dir.clone()),
        args: vec!["--store".into(), store.into()],
        ..Default::default()
    };
    let mut host = Host::start_with(options.clone()).await;
    let games = game_names(&host).await;
    assert!(!games.is_empty());
    let mut clients = Vec::new();
    let mut matches = host.matches().await;
    for (i, (game, players)) in games.iter().enumerate() {
        let seed = 7_000 + i as u64;
        let (match_id, tokens) = create(&mut matches, game, *players, seed).await;
        let progress = Arc::new(AtomicUsize::new(0));
        let task = tokio::spawn(play_until_failure(
            host.url.clone(),
            match_id.clone(),
            tokens.clone(),
            seed,
            Arc::clone(&progress),
        ));
        clients.push((game.clone(), match_id, tokens, progress, task));
    }
    // Let every client complete some actions, then crash the host mid-play.
    for _ in 0..1200 {
        if clients
            .iter()
            .all(|(_, _, _, p, _)| p.load(Ordering::SeqCst) >= 10)
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    match interruption {
        Interruption::KillTheHost => host.kill(),
        Interruption::RestartTheDatabase(cluster) => {
            tokio::task::block_in_place(|| cluster.stop_server()).expect("the database stops")
        }
    }
    let mut logs = Vec::new();
    for (game, match_id, tokens, progress, task) in clients {
        assert!(
            progress.load(Ordering::SeqCst) >= 10,
            "{game}: the client made progress before the crash"
        );
        logs.push((game, match_id, tokens, task.await.expect("client task")));
    }

    let host = match interruption {
        Interruption::KillTheHost => Host::start_with(options).await,
        Interruption::RestartTheDatabase(cluster) => {
            tokio::task::block_in_place(|| cluster.start_server())
                .expect("the database starts again");
            crate::on_postgres::health_becomes(
                &host,
                tonic_health::pb::health_check_response::ServingStatus::Serving,
                Duration::from_secs(20),
            )
            .await;
            host
        }
    };
    let listed = host
        .matches()
        .await
        .list_matches(pb::ListMatchesRequest::default())
        .await
        .expect("list")
        .into_inner()
        .matches;
    assert_eq!(listed.len(), logs.len(), "every match was restored");
    let mut matches = host.matches().await;
    let mut rng = StdRng::seed_from_u64(77);
    for (game, match_id, tokens, log) in logs {
        let view = spectator_view(&host, &match_id).await;
        let stored = logged_actions_by_seat(&export(&host, &match_id).await);
        for (seat, sent) in &log.sent {
            let logged = stored.get(seat).cloned().unwrap_or_default();
            assert!(
                sent.starts_with(&logged),
                "{game} seat {seat}: the store holds only actions the client sent, in order \
                 (sent {sent:?}, stored {logged:?})"
            );
            let held = view.seats.iter().any(|s| s.seat == *seat && s.has_acted) as usize;
            let acknowledged = log.acknowledged.get(seat).copied().unwrap_or(0);
            assert!(
                logged.len() + held >= acknowledged,
                "{game} seat {seat}: every acknowledged action survived the crash \
                 ({acknowledged} acknowledged, {} stored, {held} held)",
                logged.len()
            );
        }
        let end = play_on(&mut matches, &match_id, &tokens, &mut rng).await;
        assert_eq!(
            end.state,
            pb::MatchState::Finished as i32,
            "{game} played on to the end after the restart"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_of_every_game_import_to_the_same_final_view_and_tampering_is_named() {
    let played = Host::start().await;
    let fresh = Host::start().await;
    let mut matches = played.matches().await;
    let mut imported = fresh.matches().await;
    let mut rng = StdRng::seed_from_u64(4242);
    for (i, (game, players)) in game_names(&played).await.into_iter().enumerate() {
        let (match_id, tokens) = create(&mut matches, &game, players, 300 + i as u64).await;
        let (_, end) = play_to_end(&mut matches, &match_id, &tokens, &mut rng, 100_000).await;
        // A finished match's record is anyone's: no admin token.
        let record_json = matches
            .export_record(pb::ExportRecordRequest {
                match_id: match_id.clone(),
                admin_token: String::new(),
            })
            .await
            .expect("export a finished match without the admin token")
            .into_inner()
            .record_json;
        let answer = imported
            .import_record(pb::ImportRecordRequest {
                record_json: record_json.clone(),
                admin_token: ADMIN_TOKEN.into(),
            })
            .await
            .unwrap_or_else(|e| panic!("{game}: import: {e}"))
            .into_inner();
        let copy = spectator_view(&fresh, &answer.match_id).await;
        assert_eq!(copy.state, pb::MatchState::Finished as i32, "{game}");
        assert_eq!(copy.version, end.version, "{game}");
        assert_eq!(
            copy.view_json, end.view_json,
            "{game}: identical final view"
        );
        assert_eq!(copy.text, end.text, "{game}");
        assert_eq!(copy.results, end.results, "{game}");

        // Alter one action: the import is refused and names it.
        let mut record: serde_json::Value = serde_json::from_str(&record_json).expect("JSON");
        let entries = record["actions"].as_array_mut().expect("actions");
        let index = entries
            .iter()
            .position(|e| e["type"] == "moves")
            .expect("a finished match has moves");
        entries[index]["moves"][0]["action"] = serde_json::json!(4_000_000_000_000u64);
        let refused = imported
            .import_record(pb::ImportRecordRequest {
                record_json: record.to_string(),
                admin_token: ADMIN_TOKEN.into(),
            })
            .await
            .expect_err("a tampered record is refused");
        assert_eq!(refused.code(), Code::InvalidArgument, "{game}: {refused:?}");
        assert!(
            refused
                .message()
                .contains(&format!("action {} ", index + 1)),
            "{game}: the refusal names action {}: {}",
            index + 1,
            refused.message()
        );
    }
}

/// The fixture plugin built at versions 1.0.0 and 2.0.0 (built once per run).
fn fixture_plugins() -> &'static (PathBuf, PathBuf) {
    static BUILT: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    BUILT.get_or_init(|| {
        let out = target_dir().join("versioned-fixture");
        std::fs::create_dir_all(&out).expect("fixture dir");
        let build = |version: &str| {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let status = std::process::Command::new(cargo)
                .current_dir(workspace_dir())
                .args([
                    "rustc",
                    "-p",
                    "tabletop-fixture-plugin",
                    "--lib",
                    "--crate-type",
                    "cdylib",
                    "--quiet",
                ])
                .env("CARGO_TARGET_DIR", out.join("target"))
                .env("FIXTURE_VERSION", version)
                .status()
                .expect("cargo runs");
            assert!(status.success(), "building the fixture plugin {version}");
            let built = out.join("target/debug").join(format!(
                "{}versioned_fixture{}",
                std::env::consts::DLL_PREFIX,
                std::env::consts::DLL_SUFFIX
            ));
            let kept = out.join(format!(
                "counter-{version}.{}",
                std::env::consts::DLL_EXTENSION
            ));
            std::fs::copy(&built, &kept).expect("keep the built fixture");
            kept
        };
        (build("1.0.0"), build("2.0.0"))
    })
}

pub(crate) async fn fixtures() -> (PathBuf, PathBuf) {
    tokio::task::spawn_blocking(|| fixture_plugins().clone())
        .await
        .expect("fixture build")
}

/// A host whose plugin directory holds only `plugin`.
async fn host_with(plugin: &Path) -> (Host, tempfile::TempDir) {
    let root = tempfile::tempdir().expect("temp dir");
    let dir = root.path().join("plugins");
    std::fs::create_dir_all(&dir).expect("plugin dir");
    std::fs::copy(
        plugin,
        dir.join(format!("counter.{}", std::env::consts::DLL_EXTENSION)),
    )
    .expect("copy fixture");
    let host = Host::start_with(HostOptions {
        plugin_dir: Some(dir),
        data_dir: Some(root.path().join("data")),
        ..Default::default()
    })
    .await;
    (host, root)
}

async fn create_counter(host: &Host, length: u32, version: Option<&str>) -> (String, Vec<String>) {
    let created = host
        .matches()
        .await
        .create_match(pb::CreateMatchRequest {
            game: "counter".into(),
            version: version.map(str::to_string),
            players: 2,
            options: [("length".to_string(), length.to_string())].into(),
            ..Default::default()
        })
        .await
        .expect("create counter")
        .into_inner();
    let mut tokens = vec![String::new(); 2];
    for seat in created.seats {
        tokens[seat.seat as usize] = seat.token;
    }
    (created.match_id, tokens)
}

async fn counter_info(host: &Host) -> pb::GameInfo {
    host.catalog()
        .await
        .get_game(pb::GetGameRequest {
            game: "counter".into(),
            version: None,
        })
        .await
        .expect("counter is served")
        .into_inner()
}

/// Says "tick" `count` times from match version `from`; returns the last view.
async fn tick(
    host: &Host,
    match_id: &str,
    tokens: &[String],
    from: u64,
    count: u64,
) -> pb::MatchView {
    let mut matches = host.matches().await;
    let mut last = None;
    for version in from..from + count {
        let answer = matches
            .submit_action(pb::SubmitActionRequest {
                match_id: match_id.to_string(),
                seat_token: tokens[(version % 2) as usize].clone(),
                action: Some(pb::submit_action_request::Action::Notation("tick".into())),
                expected_version: Some(version),
                ..Default::default()
            })
            .await
            .unwrap_or_else(|e| panic!("tick at version {version}: {e}"))
            .into_inner();
        last = answer.view;
    }
    last.expect("at least one tick")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plugin_version_copied_in_goes_live_and_running_matches_keep_theirs() {
    let (v1, v2) = fixtures().await;
    let (host, _root) = host_with(&v1).await;
    let (old, old_tokens) = create_counter(&host, 10, None).await;
    tick(&host, &old, &old_tokens, 0, 3).await;

    // Copy version 2 in slowly, in two halves: a half file is never loaded.
    let bytes = std::fs::read(&v2).expect("read v2");
    let target = host
        .plugin_dir
        .join(format!("counter-2.{}", std::env::consts::DLL_EXTENSION));
    std::fs::write(&target, &bytes[..bytes.len() / 2]).expect("first half");
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(
        counter_info(&host).await.versions,
        vec!["1.0.0"],
        "a half-copied file is not loaded, and the host keeps serving"
    );
    std::fs::write(&target, &bytes).expect("whole file");
    let mut live = false;
    for _ in 0..300 {
        if counter_info(&host).await.version == "2.0.0" {
            live = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        live,
        "the copied-in version 2.0.0 went live without a restart"
    );

    let (new, new_tokens) = create_counter(&host, 4, None).await;
    let new_end = tick(&host, &new, &new_tokens, 0, 4).await;
    assert_eq!(
        new_end.plugin_version, "2.0.0",
        "new matches get the newest"
    );
    assert!(
        new_end.view_json.contains("\"2.0.0\""),
        "{}",
        new_end.view_json
    );
    let old_end = tick(&host, &old, &old_tokens, 3, 7).await;
    assert_eq!(old_end.state, pb::MatchState::Finished as i32);
    assert_eq!(
        old_end.plugin_version, "1.0.0",
        "the running match kept its version"
    );
    assert!(
        old_end.view_json.contains("\"1.0.0\""),
        "{}",
        old_end.view_json
    );

    let plugins = host
        .admin()
        .await
        .list_plugins(pb::ListPluginsRequest {
            admin_token: ADMIN_TOKEN.into(),
        })
        .await
        .expect("list plugins")
        .into_inner()
        .plugins;
    let uses: BTreeMap<String, Vec<String>> = plugins
        .into_iter()
        .map(|p| (p.version, p.match_ids))
        .collect();
    assert_eq!(uses.get("1.0.0"), Some(&vec![old]));
    assert_eq!(uses.get("2.0.0"), Some(&vec![new]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watcher_that_reads_nothing_holds_no_one_back_and_catches_up() {
    let (v1, _) = fixtures().await;
    let (host, _root) = host_with(&v1).await;
    const ACTIONS: u64 = 600;
    let (id, tokens) = create_counter(&host, ACTIONS as u32 + 100, None).await;
    // A client that reads nothing: small HTTP/2 windows, so the transport
    // cannot absorb the backlog and the server sees a slow watcher.
    let slow = tonic::transport::Endpoint::from_shared(host.url.clone())
        .expect("url")
        .initial_stream_window_size(Some(8 * 1024))
        .initial_connection_window_size(Some(8 * 1024))
        .connect()
        .await
        .expect("connect");
    let mut stream = watch_as_spectator(&mut pb::watch_client::WatchClient::new(slow), &id).await;
    let first = stream.next().await.expect("first message").expect("ok");
    assert!(matches!(
        first.kind,
        Some(pb::watch_event::Kind::Snapshot(_))
    ));

    // Hundreds of actions complete while the watcher reads nothing.
    let last = tick(&host, &id, &tokens, 0, ACTIONS).await;
    assert_eq!(last.version, ACTIONS);

    // The watcher catches up from the match's history: every event it
    // missed, in order, none twice, each with its view, up to the latest.
    let mut last_seq = 0;
    while last_seq < ACTIONS {
        let event = tokio::time::timeout(Duration::from_secs(60), stream.next())
            .await
            .expect("the watcher gets events")
            .expect("stream open")
            .expect("event");
        assert_eq!(event.seq, last_seq + 1, "no gap, no repeat");
        assert_eq!(event.version, event.seq, "one event per action here");
        let Some(pb::watch_event::Kind::Transition(t)) = &event.kind else {
            panic!("a transition, not {:?}", event.kind);
        };
        assert_eq!(t.view.as_ref().map(|v| v.version), Some(event.version));
        last_seq = event.seq;
    }

    // A reconnecting watcher resumes from the version it last saw.
    let mut resumed = host
        .watch()
        .await
        .watch_match(pb::WatchMatchRequest {
            match_id: id.clone(),
            seat_token: String::new(),
            from_version: Some(ACTIONS),
            after_seq: None,
            omit_views: false,
        })
        .await
        .expect("watch")
        .into_inner();
    tick(&host, &id, &tokens, ACTIONS, 2).await;
    for expected in [ACTIONS + 1, ACTIONS + 2] {
        let event = resumed.next().await.expect("event").expect("ok");
        assert_eq!(event.version, expected);
        assert!(
            matches!(event.kind, Some(pb::watch_event::Kind::Transition(_))),
            "a resume in range sends the missed transitions, not a snapshot"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clock_running_out_ends_the_match_without_any_request() {
    let (v1, _) = fixtures().await;
    let (host, _root) = host_with(&v1).await;
    let mut matches = host.matches().await;
    // Bad time controls are refused.
    let refused = matches
        .create_match(pb::CreateMatchRequest {
            game: "counter".into(),
            players: 2,
            time_control: Some(pb::TimeControl {
                per_move_ms: 0,
                bank_ms: 0,
                increment_ms: 5,
                on_timeout: pb::OnTimeout::Unspecified as i32,
            }),
            ..Default::default()
        })
        .await
        .expect_err("a time control without a limit is refused");
    assert_eq!(refused.code(), Code::InvalidArgument);

    for players in [2u32, 3] {
        let created = matches
            .create_match(pb::CreateMatchRequest {
                game: "counter".into(),
                players,
                time_control: Some(pb::TimeControl {
                    per_move_ms: 0,
                    bank_ms: 700,
                    increment_ms: 100,
                    // Unspecified is `lose`: the match ends.
                    on_timeout: pb::OnTimeout::Unspecified as i32,
                }),
                ..Default::default()
            })
            .await
            .expect("create with a clock")
            .into_inner();
        let id = created.match_id;
        let view = created.view.expect("view");
        assert!(
            view.seats.iter().all(|s| s
                .clock_remaining_ms
                .is_some_and(|ms| (0..=700).contains(&ms))),
            "every seat's remaining time is in the view: {:?}",
            view.seats
        );
        // Nobody moves: the server ends the match on its own.
        let mut end = None;
        for _ in 0..600 {
            let view = spectator_view(&host, &id).await;
            if view.state == pb::MatchState::Finished as i32 {
                end = Some(view);
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let end = end.expect("the match ended when seat 0's time ran out");
        let ranks: Vec<u32> = end.results.iter().map(|r| r.rank).collect();
        let mut expected = vec![1; players as usize];
        expected[0] = players;
        assert_eq!(
            ranks, expected,
            "the seat that ran out is last, the others first"
        );

        // The timeout is in the record and replays on another host.
        let record_json = export(&host, &id).await;
        let record: serde_json::Value = serde_json::from_str(&record_json).expect("JSON");
        let last = record["actions"]
            .as_array()
            .and_then(|a| a.last())
            .cloned()
            .expect("an entry");
        assert_eq!(last["type"], "timeout");
        assert_eq!(last["seat"], 0);
        let imported = host
            .matches()
            .await
            .import_record(pb::ImportRecordRequest {
                record_json,
                admin_token: ADMIN_TOKEN.into(),
            })
            .await
            .expect("import a timed-out match")
            .into_inner();
        let copy = imported.view.expect("view");
        assert_eq!(copy.state, pb::MatchState::Finished as i32);
        assert_eq!(copy.results, end.results);
    }
}

/// Polls the spectator view until `done` holds (generous: up to a minute).
async fn wait_for_view(
    host: &Host,
    match_id: &str,
    what: &str,
    done: impl Fn(&pb::MatchView) -> bool,
) -> pb::MatchView {
    for _ in 0..600 {
        let view = spectator_view(host, match_id).await;
        if done(&view) {
            return view;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("match {match_id}: {what} did not happen within a minute")
}

/// A record as JSON without the match id (an import gets a new one).
fn record_without_id(record_json: &str) -> serde_json::Value {
    let mut record: serde_json::Value = serde_json::from_str(record_json).expect("record is JSON");
    record
        .as_object_mut()
        .expect("a record is an object")
        .remove("match_id");
    record
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clock_out_removes_seat_and_play_goes_on() {
    let root = tempfile::tempdir().expect("temp dir");
    let options = HostOptions {
        plugin_dir: Some(Host::fresh_plugin_dir(root.path())),
        data_dir: Some(root.path().join("data")),
        args: vec!["--store".into(), "sqlite".into()],
        ..Default::default()
    };
    let mut host = Host::start_with(options.clone()).await;
    let mut matches = host.matches().await;
    let clock = |on_timeout: pb::OnTimeout| pb::TimeControl {
        per_move_ms: 0,
        // Seat 0 waits this long; seats 1 and 2 have it for their first
        // move and then a large increment, so a loaded machine cannot make
        // them run out too.
        bank_ms: 4_000,
        increment_ms: 20_000,
        on_timeout: on_timeout as i32,
    };
    let new = |game: &str, players: u32| {
        tabletop_tests::as_admin(pb::CreateMatchRequest {
            game: game.into(),
            players,
            seed: Some(7),
            options: [("max_turns".to_string(), "40".to_string())].into(),
            time_control: Some(clock(pb::OnTimeout::Out)),
            ..Default::default()
        })
    };

    // `out` with two players is refused: it would only be `lose`.
    let refused = matches
        .create_match(new("focus", 2))
        .await
        .expect_err("on_timeout out with 2 players is refused");
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert!(
        refused.message().contains("3 players"),
        "{}",
        refused.message()
    );
    let catalog = host
        .catalog()
        .await
        .get_game(pb::GetGameRequest {
            game: "focus".into(),
            version: None,
        })
        .await
        .expect("focus")
        .into_inner();
    assert!(
        catalog.removable_players,
        "focus says it can remove a player"
    );

    // Three players, `out`, a short bank: seat 0 (first to move in Focus,
    // ruling F3) never moves.
    let created = matches
        .create_match(new("focus", 3))
        .await
        .expect("create a 3-player match with on_timeout out")
        .into_inner();
    let id = created.match_id;
    let mut tokens = vec![String::new(); 3];
    for seat in created.seats {
        tokens[seat.seat as usize] = seat.token;
    }
    assert_eq!(created.view.expect("view").to_move, vec![0]);
    // No request: the server takes seat 0 out when its time is up.
    let view = wait_for_view(&host, &id, "seat 0 going out", |v| {
        v.seats.iter().any(|s| s.seat == 0 && s.out)
    })
    .await;
    assert_eq!(view.state, pb::MatchState::Running as i32, "play goes on");
    assert_eq!(view.to_move, vec![1], "the turn passed on (ruling F7)");
    assert!(
        view.seats
            .iter()
            .filter(|s| s.seat != 0)
            .all(|s| !s.out && s.clock_remaining_ms.is_some_and(|ms| ms > 0)),
        "the others are in, with time left: {:?}",
        view.seats
    );

    // A restart on the same store replays the removal.
    host.kill();
    let host = Host::start_with(options).await;
    let mut matches = host.matches().await;
    let view = spectator_view(&host, &id).await;
    assert!(
        view.seats.iter().any(|s| s.seat == 0 && s.out),
        "seat 0 is still out after the restart: {:?}",
        view.seats
    );
    assert_eq!(view.to_move, vec![1]);

    // Seat 0 tries to act: it is never to move again.
    let refused = matches
        .submit_action(pb::SubmitActionRequest {
            match_id: id.clone(),
            seat_token: tokens[0].clone(),
            action: Some(pb::submit_action_request::Action::Notation("*a1".into())),
            expected_version: None,
            ..Default::default()
        })
        .await
        .expect_err("a seat that is out cannot act");
    assert_eq!(refused.code(), Code::FailedPrecondition);

    // The other two play on to the end.
    let mut rng = StdRng::seed_from_u64(17);
    let end = play_on(&mut matches, &id, &tokens, &mut rng).await;
    assert_eq!(end.state, pb::MatchState::Finished as i32);
    assert_eq!(end.results.len(), 3, "every seat is ranked");
    let seat0 = end.results.iter().find(|r| r.seat == 0).expect("seat 0");
    assert_eq!(
        seat0.rank, 3,
        "the seat out first ranks last: {:?}",
        end.results
    );

    // The record holds the removal, exports and imports identically.
    let record_json = export(&host, &id).await;
    let record: serde_json::Value = serde_json::from_str(&record_json).expect("JSON");
    assert_eq!(record["time_control"]["on_timeout"], "out");
    let outs: Vec<&serde_json::Value> = record["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .filter(|a| a["type"] == "out")
        .collect();
    assert_eq!(outs.len(), 1, "one removal in the record");
    assert_eq!(outs[0]["seat"], 0);
    let imported = matches
        .import_record(pb::ImportRecordRequest {
            record_json: record_json.clone(),
            admin_token: ADMIN_TOKEN.into(),
        })
        .await
        .expect("import a match with a removal")
        .into_inner();
    let copy = imported.view.expect("view");
    assert_eq!(copy.state, pb::MatchState::Finished as i32);
    assert_eq!(copy.results, end.results);
    assert_eq!(copy.view_json, end.view_json);
    let again = export(&host, &imported.match_id).await;
    assert_eq!(
        record_without_id(&again),
        record_without_id(&record_json),
        "the imported match exports the same record"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clock_out_is_refused_for_a_game_that_cannot_remove_a_player() {
    let (v1, _) = fixtures().await;
    let (host, _root) = host_with(&v1).await;
    let refused = host
        .matches()
        .await
        .create_match(pb::CreateMatchRequest {
            game: "counter".into(),
            players: 3,
            time_control: Some(pb::TimeControl {
                per_move_ms: 0,
                bank_ms: 700,
                increment_ms: 0,
                on_timeout: pb::OnTimeout::Out as i32,
            }),
            ..Default::default()
        })
        .await
        .expect_err("counter cannot remove a player");
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert!(
        refused.message().contains("cannot take a player out"),
        "{}",
        refused.message()
    );
}

/// The SQLite file belongs to one host at a time: a second engine-host on
/// the same data directory stops at once with an error that says why, and
/// the first one goes on serving and storing as before.
#[tokio::test]
async fn a_second_host_on_the_same_data_dir_is_refused() {
    let root = tempfile::tempdir().expect("temp dir");
    let data_dir = root.path().join("data");
    let options = HostOptions {
        plugin_dir: Some(Host::fresh_plugin_dir(root.path())),
        data_dir: Some(data_dir.clone()),
        args: vec!["--store".into(), "sqlite".into()],
        ..Default::default()
    };
    let host = Host::start_with(options.clone()).await;
    let mut matches = host.matches().await;
    let (match_id, tokens) = create(&mut matches, "focus", 2, 91).await;
    let second = tokio::process::Command::new(engine_host_binary())
        .args(["--listen", "127.0.0.1:0", "--data-dir"])
        .arg(&data_dir)
        .arg("--plugin-dir")
        .arg(options.plugin_dir.as_ref().expect("plugin dir"))
        .env("RUST_LOG", "off")
        .kill_on_drop(true)
        .output();
    let second = tokio::time::timeout(Duration::from_secs(30), second)
        .await
        .expect("the second host stops by itself")
        .expect("the second host runs");
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(!second.status.success(), "{stderr}");
    assert!(stderr.contains("in use by another engine-host"), "{stderr}");
    assert!(
        !data_dir.join("admin-token").exists(),
        "the refused host wrote nothing (the first was given its token)"
    );
    play_first_legal(&mut matches, &match_id, &tokens)
        .await
        .expect("the first host still answers and stores actions");
}

/// A data directory written by a host that speaks plugin ABI 2.x
/// (`tests/fixtures/store-abi2`, made by its `make.py`: the database and its
/// write-ahead log as that host left them at SIGTERM): this host opens it,
/// every match shows a spectator exactly what it showed then, every running
/// match plays on, and a waiting match takes its player.
#[tokio::test]
async fn a_store_written_by_an_abi_2_host_opens_and_every_match_plays_on() {
    let temp = tempfile::tempdir().expect("temp dir");
    let data_dir = abi_2_data_dir(temp.path());
    let host = Host::start_with(HostOptions {
        data_dir: Some(data_dir),
        ..Default::default()
    })
    .await;
    abi_2_matches_play_on_as_recorded(&host).await;
}

/// A data directory `root/data` holding the ABI-2 fixture's store, as its
/// host left it.
pub(crate) fn abi_2_data_dir(root: &Path) -> PathBuf {
    let fixture = workspace_dir().join("tests/fixtures/store-abi2");
    let data_dir = root.join("data");
    std::fs::create_dir_all(&data_dir).expect("data dir");
    for name in ["matches.sqlite3", "matches.sqlite3-wal"] {
        std::fs::copy(fixture.join(name), data_dir.join(name)).expect("copy the fixture");
    }
    data_dir
}

/// Every match of the ABI-2 fixture, on `host`: each shows a spectator
/// what it showed then (`expected.json`), every running match plays on,
/// and each waiting match takes its player.
pub(crate) async fn abi_2_matches_play_on_as_recorded(host: &Host) {
    let expected: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(workspace_dir().join("tests/fixtures/store-abi2/expected.json"))
            .expect("expected.json"),
    )
    .expect("expected.json is JSON");
    let mut matches = host.matches().await;
    let (mut played, mut joined) = (0, 0);
    let stored = expected.as_object().expect("matches by id");
    assert_eq!(stored.len(), 18, "the fixture's matches");
    for (match_id, then) in stored {
        let view = spectator(&mut matches, match_id).await;
        assert_eq!(view.game, then["game"], "{match_id}");
        assert_eq!(
            view.version,
            then["version"].as_u64().unwrap(),
            "{match_id}"
        );
        assert_eq!(
            i64::from(view.state),
            then["state"].as_i64().unwrap(),
            "{match_id}"
        );
        let to_move: Vec<u64> = view.to_move.iter().map(|&s| u64::from(s)).collect();
        let then_to_move: Vec<u64> = then["to_move"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_u64().unwrap())
            .collect();
        assert_eq!(to_move, then_to_move, "{match_id}");
        // War's view then carried its SVG board, which the svg-board
        // extension draws apart: the rest is the same, to the byte.
        let mut then_view = then["view_json"].as_str().unwrap().to_owned();
        if view.game == "war" {
            let mut value: serde_json::Value =
                serde_json::from_str(&then_view).expect("a JSON view");
            value.as_object_mut().expect("an object").remove("svg");
            then_view = value.to_string();
        }
        assert_eq!(view.view_json, then_view, "{match_id}");
        // The text rendering is presentation (seat labels, board margins)
        // and may read differently within a version; the state may not.
        assert!(!view.text.is_empty(), "{match_id}");
        if view.state == pb::MatchState::Waiting as i32 {
            let seat = matches
                .join_match(pb::JoinMatchRequest {
                    match_id: match_id.clone(),
                    ..Default::default()
                })
                .await
                .expect("the open seat is joined");
            assert_eq!(seat.into_inner().seat, 1);
            joined += 1;
        } else if view.state == pb::MatchState::Running as i32 {
            let seat = view
                .seats
                .iter()
                .find(|s| s.to_move && !s.has_acted)
                .expect("a running match has a seat to act")
                .seat;
            let token = then["tokens"][seat.to_string()].as_str().unwrap();
            let listed = legal(&mut matches, match_id, token).await.expect("legal");
            let answer = submit(
                &mut matches,
                match_id,
                token,
                listed.actions[0].id,
                Some(listed.version),
            )
            .await
            .unwrap_or_else(|e| panic!("{match_id} plays on: {e}"));
            assert!(answer.view.is_some());
            played += 1;
        }
    }
    assert_eq!((played, joined), (6, 4), "running and waiting matches");
}
