//! Plugins in worker processes: a plugin that crashes, aborts, exits,
//! spins, eats memory or floods its output on one rare path — in the call
//! that applies a move, in the SVG board, in `evaluate` during a bot's
//! search — costs only the match whose call it was. The host keeps
//! serving, the other matches (Focus and Lanza, bots and watchers) keep
//! playing with every acknowledged action kept, the poisoned match is
//! quarantined with its reason, nothing is left spinning, and a restart
//! serves at once. A trusted plugin that crashes the host is named on the
//! next start, and its match quarantined. A quarantined match moves to a
//! fixed build of its game and plays on.
//!
//! The plugins are `tests/fixtures/faulty-plugin/faulty_connect_four.c`,
//! built per fault (see `tabletop_tests::build_faulty_plugin`): Connect Four
//! that misbehaves once the first six discs fill column `g`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tabletop_proto::v1 as pb;
use tabletop_proto::v1::director_client::DirectorClient;
use tabletop_proto::v1::matches_client::MatchesClient;
use tabletop_tests::{Host, HostOptions, as_admin, build_faulty_plugin, build_fixed_plugin};
use tonic::Code;
use tonic::transport::Channel;

use crate::support::{create, play_first_legal, reason, spectator};

/// The call deadline the hosts here run with: a spinning plugin is killed
/// after it.
const DEADLINE_MS: u64 = 1_000;

/// A plugin directory with every built game and the faulty builds named.
fn plugins_with(root: &Path, faults: &[(&str, &str)]) -> PathBuf {
    let dir = Host::fresh_plugin_dir(root);
    for (kind, place) in faults {
        build_faulty_plugin(kind, place, &dir);
    }
    dir
}

/// A host on `plugins` and `data`, whose workers are killed after
/// [`DEADLINE_MS`] and capped at 600 MiB, logging to `log`.
async fn isolating_host(plugins: &Path, data: &Path, log: &Path, extra: &[&str]) -> Host {
    let mut args: Vec<String> = [
        "--plugin-call-deadline-ms",
        &DEADLINE_MS.to_string(),
        "--plugin-worker-memory-mib",
        "600",
        "--plugin-faults",
        "100",
        "--bot-threads",
        "2",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    Host::start_with(HostOptions {
        plugin_dir: Some(plugins.to_path_buf()),
        data_dir: Some(data.to_path_buf()),
        args,
        log_file: Some(log.to_path_buf()),
        ..HostOptions::default()
    })
    .await
}

/// A two-seat match of `game` from `position` (the start without), with
/// `bots`; its id and the seat tokens (empty for a bot's seat).
async fn new_match(
    matches: &mut MatchesClient<Channel>,
    game: &str,
    position: Option<&str>,
    bots: &[(u32, &str)],
) -> (String, Vec<String>) {
    let created = matches
        .create_match(as_admin(pb::CreateMatchRequest {
            game: game.into(),
            players: 2,
            seed: Some(5),
            start_position: position.map(str::to_string),
            bots: crate::support::seat_bots(bots),
            ..Default::default()
        }))
        .await
        .unwrap_or_else(|e| panic!("create {game}: {e}"))
        .into_inner();
    let mut tokens = vec![String::new(); 2];
    for seat in created.seats {
        tokens[seat.seat as usize] = seat.token;
    }
    (created.match_id, tokens)
}

/// Drops a disc into `column` for the seat to move.
async fn drop_disc(
    matches: &mut MatchesClient<Channel>,
    match_id: &str,
    tokens: &[String],
    ply: usize,
    column: &str,
) -> Result<pb::SubmitActionResponse, tonic::Status> {
    matches
        .submit_action(pb::SubmitActionRequest {
            match_id: match_id.into(),
            seat_token: tokens[ply % 2].clone(),
            action: Some(pb::submit_action_request::Action::Notation(column.into())),
            ..Default::default()
        })
        .await
        .map(tonic::Response::into_inner)
}

/// Plays the five discs in `g` before the trigger, each accepted.
async fn five_in_g(matches: &mut MatchesClient<Channel>, match_id: &str, tokens: &[String]) {
    for ply in 0..5 {
        drop_disc(matches, match_id, tokens, ply, "g")
            .await
            .unwrap_or_else(|e| panic!("disc {} in g: {e}", ply + 1));
    }
}

/// One action in the match that plays beside the faults; notes the
/// version acknowledged.
async fn play_beside(
    matches: &mut MatchesClient<Channel>,
    match_id: &str,
    tokens: &[String],
    acknowledged: &mut u64,
) {
    let played = play_first_legal(matches, match_id, tokens)
        .await
        .expect("the played match plays on");
    *acknowledged = (*acknowledged).max(played.view.expect("a view").version);
}

/// Asserts `refused` is the plugin fault a worker's death is told with.
fn assert_plugin_fault(refused: &tonic::Status, what: &str) {
    assert_eq!(refused.code(), Code::Unavailable, "{what}: {refused:?}");
    assert_eq!(reason(refused), "PLUGIN_FAULT", "{what}: {refused:?}");
}

/// Waits until the match is quarantined; its view then. A view asked for
/// while the match's worker dies may fail with the match's fault.
async fn quarantined(matches: &mut MatchesClient<Channel>, match_id: &str) -> pb::MatchView {
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let asked = matches
            .get_view(pb::GetViewRequest {
                match_id: match_id.to_string(),
                ..Default::default()
            })
            .await;
        let view = match asked {
            Ok(view) => view.into_inner(),
            Err(refused) => {
                assert_plugin_fault(&refused, match_id);
                assert!(Instant::now() < until, "match {match_id} still faults");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        if view.state == pb::MatchState::Quarantined as i32 {
            return view;
        }
        assert!(
            Instant::now() < until,
            "match {match_id} is not quarantined: {view:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits for `host` to die: a trusted plugin's crash is the host's.
async fn has_died(host: &mut Host) {
    let until = Instant::now() + Duration::from_secs(10);
    while host.is_running() {
        assert!(
            Instant::now() < until,
            "the host outlived its plugin's crash"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// CPU time (ms) the host and its children (the workers) used in `span`.
fn busy_ms(host_pid: u32, span: Duration) -> u64 {
    let total = || -> u64 {
        let mut ticks = 0;
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            let Some(after) = stat.rfind(')').map(|i| &stat[i + 2..]) else {
                continue;
            };
            let fields: Vec<&str> = after.split(' ').collect();
            let pid: u32 = entry.file_name().to_string_lossy().parse().unwrap_or(0);
            let parent: u32 = fields[1].parse().unwrap_or(0);
            if pid == host_pid || parent == host_pid {
                ticks +=
                    fields[11].parse::<u64>().unwrap_or(0) + fields[12].parse::<u64>().unwrap_or(0);
            }
        }
        ticks
    };
    let before = total();
    std::thread::sleep(span);
    // Clock ticks are 10 ms on Linux.
    (total().saturating_sub(before)) * 10
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plugins_that_fault_on_a_rare_path_cost_only_their_own_match() {
    let root = tempfile::tempdir().expect("temp dir");
    let plugins = plugins_with(
        root.path(),
        &[
            ("segv", "apply"),
            ("abort", "apply"),
            ("exit", "apply"),
            ("loop", "apply"),
            ("flood", "apply"),
            ("segv", "svg"),
            ("memory", "svg"),
            ("abort", "evaluate"),
        ],
    );
    let data = root.path().join("data");
    let log = root.path().join("host.log");
    let mut host = isolating_host(&plugins, &data, &log, &[]).await;
    let mut matches = host.matches().await;

    // A Focus match played between the faults (by its seats' first legal
    // actions), and a Focus and a Lanza match their bots play, watched.
    let (played, played_tokens) = create(&mut matches, "focus", 2, 3).await;
    let mut watch = host.watch().await;
    let mut bot_matches = Vec::new();
    for game in ["focus", "lanza"] {
        let (id, _) = new_match(
            &mut matches,
            game,
            None,
            &[(0, "mcts:5ms"), (1, "mcts:5ms")],
        )
        .await;
        let events = crate::support::watch_as_spectator(&mut watch, &id).await;
        bot_matches.push((game, id, events));
    }
    let mut acknowledged = 0;

    // A fault in the call that applies the sixth disc in g.
    let mut poisoned = Vec::new();
    for kind in ["segv", "abort", "exit", "loop"] {
        let game = format!("faulty-{kind}-apply");
        let (id, tokens) = new_match(&mut matches, &game, None, &[]).await;
        five_in_g(&mut matches, &id, &tokens).await;
        let started = Instant::now();
        let refused = drop_disc(&mut matches, &id, &tokens, 5, "g")
            .await
            .expect_err("the trigger move faults");
        assert_plugin_fault(&refused, &game);
        if kind == "loop" {
            // A bound against a hang, not a measurement: the deadline
            // killed the worker and answered the call.
            assert!(started.elapsed() < Duration::from_secs(15), "answered late");
        }
        play_beside(&mut matches, &played, &played_tokens, &mut acknowledged).await;
        poisoned.push((game, id, kind, tokens));
    }

    // A spectator's SVG board of the trigger state.
    let (svg_match, tokens) = new_match(&mut matches, "faulty-segv-svg", None, &[]).await;
    five_in_g(&mut matches, &svg_match, &tokens).await;
    drop_disc(&mut matches, &svg_match, &tokens, 5, "g")
        .await
        .expect("applying is sound in the svg build");
    let refused = matches
        .get_view(pb::GetViewRequest {
            match_id: svg_match.clone(),
            svg: true,
            ..Default::default()
        })
        .await
        .expect_err("drawing the trigger state faults");
    assert_plugin_fault(&refused, "faulty-segv-svg");
    poisoned.push(("faulty-segv-svg".into(), svg_match, "segv", tokens));
    play_beside(&mut matches, &played, &played_tokens, &mut acknowledged).await;

    // Memory: each SVG board of the trigger state takes 200 MB more, until
    // the worker's cap stops it.
    let (memory, tokens) = new_match(&mut matches, "faulty-memory-svg", None, &[]).await;
    five_in_g(&mut matches, &memory, &tokens).await;
    drop_disc(&mut matches, &memory, &tokens, 5, "g")
        .await
        .expect("applying is sound in the svg build");
    let mut refused = None;
    for _ in 0..6 {
        let drawn = matches
            .get_view(pb::GetViewRequest {
                match_id: memory.clone(),
                svg: true,
                ..Default::default()
            })
            .await;
        if let Err(status) = drawn {
            refused = Some(status);
            break;
        }
    }
    let refused = refused.expect("the memory cap ends the worker");
    assert_plugin_fault(&refused, "faulty-memory-svg");
    poisoned.push(("faulty-memory-svg".into(), memory, "abort", tokens));
    play_beside(&mut matches, &played, &played_tokens, &mut acknowledged).await;

    // A bot's search: on five discs in g, the bot drops into g and its
    // playout evaluates one ply past the trigger state.
    let (searched, tokens) = new_match(
        &mut matches,
        "faulty-abort-evaluate",
        Some("......./......R/......Y/......R/......Y/......R"),
        &[(1, "mcts:300:depth=1")],
    )
    .await;
    poisoned.push(("faulty-abort-evaluate".into(), searched, "abort", tokens));
    play_beside(&mut matches, &played, &played_tokens, &mut acknowledged).await;

    // A flood of output is logged in part and costs the match nothing.
    let (flood, tokens) = new_match(&mut matches, "faulty-flood-apply", None, &[]).await;
    five_in_g(&mut matches, &flood, &tokens).await;
    drop_disc(&mut matches, &flood, &tokens, 5, "g")
        .await
        .expect("a flood of output is no fault");
    drop_disc(&mut matches, &flood, &tokens, 6, "a")
        .await
        .expect("the flooding match plays on");

    // Every poisoned match is quarantined, saying which call and how.
    for (game, id, kind, tokens) in &poisoned {
        let view = quarantined(&mut matches, id).await;
        let expected = match *kind {
            "segv" => "SIGSEGV",
            "abort" => "SIGABRT",
            "exit" => "exit code 0",
            _ => "no answer within",
        };
        assert!(
            view.quarantine_reason.contains(expected),
            "{game}: {}",
            view.quarantine_reason
        );
        let refused = drop_disc(&mut matches, id, tokens, 6, "a")
            .await
            .expect_err("a quarantined match takes no action");
        assert_eq!(reason(&refused), "MATCH_QUARANTINED", "{game}");
    }

    // The other matches played on: the played one from where it was, the
    // bots with their watchers told.
    let played_now = spectator(&mut matches, &played).await;
    assert!(played_now.version >= acknowledged);
    play_beside(&mut matches, &played, &played_tokens, &mut acknowledged).await;
    for (game, id, events) in &mut bot_matches {
        let version = spectator(&mut matches, id).await.version;
        let until = Instant::now() + Duration::from_secs(30);
        loop {
            let now = spectator(&mut matches, id).await;
            if now.version > version || now.state == pb::MatchState::Finished as i32 {
                break;
            }
            assert!(Instant::now() < until, "the {game} bots stopped");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let told = tokio::time::timeout(Duration::from_secs(10), events.message())
            .await
            .expect("the watcher is told")
            .expect("the stream is sound");
        assert!(told.is_some(), "the {game} watcher's stream ended");
    }
    assert!(host.is_running(), "the host never died");
    let host_log = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        host_log.contains("dropped") && host_log.contains("flood"),
        "the flood is logged in part, named"
    );

    // Nothing is left spinning once the bots are done: their matches end by
    // a director's abort (on a busy machine the bots, at idle priority,
    // would take long to finish them).
    let mut director = DirectorClient::new(host.channel().await);
    for (game, id, _) in &bot_matches {
        let aborted = director
            .abort_match(as_admin(pb::AbortMatchRequest {
                match_id: id.clone(),
                reason: "the test has seen enough".into(),
                ..Default::default()
            }))
            .await;
        // A match its bots finished first is over already.
        if let Err(refused) = aborted {
            assert_eq!(reason(&refused), "MATCH_OVER", "{game}: {refused:?}");
        }
    }
    let busy = busy_ms(host.pid(), Duration::from_millis(1_000));
    assert!(
        busy < 500,
        "the host and its workers used {busy} ms of CPU in a second at rest"
    );

    // A restart serves at once, the poisoned matches still quarantined.
    assert!(host.terminate().await, "a clean stop");
    let started = Instant::now();
    let host = isolating_host(&plugins, &data, &log.with_extension("2"), &[]).await;
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "serves within seconds"
    );
    let mut matches = host.matches().await;
    for (game, id, _, _) in &poisoned {
        let view = spectator(&mut matches, id).await;
        assert_eq!(
            view.state,
            pb::MatchState::Quarantined as i32,
            "{game} after a restart: {view:?}"
        );
    }
    play_first_legal(&mut matches, &played, &played_tokens)
        .await
        .expect("the played match plays on after the restart");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trusted_plugin_that_kills_the_host_has_its_match_quarantined_at_the_next_start() {
    let root = tempfile::tempdir().expect("temp dir");
    let plugins = plugins_with(root.path(), &[("segv", "apply")]);
    let file = plugins.join("libfaulty_segv_apply.so");
    let sha256 = sha256_of(&file);
    let trust = format!("faulty-segv-apply={sha256}");
    let data = root.path().join("data");
    let log = root.path().join("host.log");
    let mut host = isolating_host(&plugins, &data, &log, &["--trust-plugin", &trust]).await;
    let mut matches = host.matches().await;
    let (id, tokens) = new_match(&mut matches, "faulty-segv-apply", None, &[]).await;
    five_in_g(&mut matches, &id, &tokens).await;
    drop_disc(&mut matches, &id, &tokens, 5, "g")
        .await
        .expect_err("the host dies in the trusted plugin");
    has_died(&mut host).await;

    let restarted_log = log.with_extension("2");
    let mut host =
        isolating_host(&plugins, &data, &restarted_log, &["--trust-plugin", &trust]).await;
    let mut matches = host.matches().await;
    // Not replayed into the same crash: listed unavailable, quarantined.
    let refused = crate::support::view_of(&mut matches, &id, "", None)
        .await
        .expect_err("the match is not replayed");
    assert_eq!(reason(&refused), "MATCH_UNAVAILABLE", "{refused:?}");
    assert!(
        refused.message().contains("quarantined") && refused.message().contains("apply"),
        "{}",
        refused.message()
    );
    let logged = std::fs::read_to_string(&restarted_log).unwrap_or_default();
    assert!(
        logged.contains("died inside a trusted plugin") && logged.contains(&id),
        "the start names the plugin, the match and the call"
    );
    // The quarantined match ends by a director's abort.
    let aborted = DirectorClient::new(host.channel().await)
        .abort_match(as_admin(pb::AbortMatchRequest {
            match_id: id.clone(),
            reason: "plugin crashed".into(),
            ..Default::default()
        }))
        .await
        .expect("a quarantined match can be aborted");
    assert_eq!(aborted.into_inner().state, pb::MatchState::Finished as i32);

    // Again, with the fix on disk for the next start: the match held back
    // moves to it and plays the move that killed the host.
    let (id, tokens) = new_match(&mut matches, "faulty-segv-apply", None, &[]).await;
    five_in_g(&mut matches, &id, &tokens).await;
    drop_disc(&mut matches, &id, &tokens, 5, "g")
        .await
        .expect_err("the host dies in the trusted plugin again");
    has_died(&mut host).await;
    build_fixed_plugin("segv", "apply", &plugins);
    let host = isolating_host(
        &plugins,
        &data,
        &log.with_extension("3"),
        &["--trust-plugin", &trust],
    )
    .await;
    let mut matches = host.matches().await;
    let lifted = host
        .admin()
        .await
        .lift_quarantine(as_admin(pb::LiftQuarantineRequest {
            match_id: id.clone(),
            plugin_version: "1.0.1".into(),
            ..Default::default()
        }))
        .await
        .expect("the held-back match moves to the fixed build")
        .into_inner();
    assert_eq!(lifted.state, pb::MatchState::Running as i32, "{lifted:?}");
    drop_disc(&mut matches, &id, &tokens, 5, "g")
        .await
        .expect("the fixed build applies the move");
}

/// Hosts on one database: the host that died inside a trusted plugin call
/// names the call through its witness, and the host that takes the match
/// quarantines it instead of replaying the call that kills hosts; it lives,
/// and serves the rest.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_that_killed_its_host_is_quarantined_by_the_next_host_not_replayed() {
    let root = tempfile::tempdir().expect("temp dir");
    let plugins = plugins_with(root.path(), &[("segv", "apply")]);
    let trust = format!(
        "faulty-segv-apply={}",
        sha256_of(&plugins.join("libfaulty_segv_apply.so"))
    );
    let database = tokio::task::spawn_blocking(tabletop_test_postgres::database)
        .await
        .expect("a test database");
    let on_database = [
        "--trust-plugin",
        &trust,
        "--store",
        &database.url,
        "--lease-ms",
        "1000",
    ];
    let first_log = root.path().join("first.log");
    let mut first = isolating_host(
        &plugins,
        &root.path().join("first"),
        &first_log,
        &on_database,
    )
    .await;
    let mut second = isolating_host(
        &plugins,
        &root.path().join("second"),
        &root.path().join("second.log"),
        &on_database,
    )
    .await;

    let mut through_first = first.matches().await;
    let (id, tokens) = new_match(&mut through_first, "faulty-segv-apply", None, &[]).await;
    five_in_g(&mut through_first, &id, &tokens).await;
    drop_disc(&mut through_first, &id, &tokens, 5, "g")
        .await
        .expect_err("the first host dies in the trusted plugin");
    has_died(&mut first).await;

    // The player sends the move again, through the other host.
    let mut through_second = second.matches().await;
    let refused = drop_disc(&mut through_second, &id, &tokens, 5, "g")
        .await
        .expect_err("the match is not replayed into the crash");
    assert!(
        refused.message().contains("quarantined") && refused.message().contains("apply"),
        "{refused:?}"
    );
    assert!(second.is_running(), "the second host lives");
    let logged = std::fs::read_to_string(&first_log).unwrap_or_default();
    assert!(
        logged.contains("host-witness") && logged.contains(&id) && logged.contains("apply"),
        "the witness names the match and the call"
    );
    let (focus, focus_tokens) = create(&mut through_second, "focus", 2, 31).await;
    play_first_legal(&mut through_second, &focus, &focus_tokens)
        .await
        .expect("the second host serves the other games");
    let aborted = DirectorClient::new(second.channel().await)
        .abort_match(as_admin(pb::AbortMatchRequest {
            match_id: id.clone(),
            reason: "plugin crashed".into(),
            ..Default::default()
        }))
        .await
        .expect("the quarantined match can be aborted");
    assert_eq!(aborted.into_inner().state, pb::MatchState::Finished as i32);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quarantined_match_plays_on_with_a_fixed_build_also_after_a_restart() {
    let root = tempfile::tempdir().expect("temp dir");
    let plugins = plugins_with(root.path(), &[("segv", "apply")]);
    let data = root.path().join("data");
    let log = root.path().join("host.log");
    let mut host = isolating_host(&plugins, &data, &log, &[]).await;
    let mut matches = host.matches().await;
    let (id, tokens) = new_match(&mut matches, "faulty-segv-apply", None, &[]).await;
    five_in_g(&mut matches, &id, &tokens).await;
    let refused = drop_disc(&mut matches, &id, &tokens, 5, "g")
        .await
        .expect_err("the trigger move faults");
    assert_plugin_fault(&refused, "faulty-segv-apply");
    quarantined(&mut matches, &id).await;

    // The fix is a new version, hot-added beside the faulty one.
    let fixed = build_fixed_plugin("segv", "apply", &plugins);
    let mut admin = host.admin().await;
    admin
        .load_plugin(as_admin(pb::LoadPluginRequest {
            path: fixed.display().to_string(),
            ..Default::default()
        }))
        .await
        .expect("the fixed build loads");
    let lift = |version: &str| {
        as_admin(pb::LiftQuarantineRequest {
            match_id: id.clone(),
            plugin_version: version.into(),
            ..Default::default()
        })
    };
    let unknown = admin
        .lift_quarantine(lift("9.9.9"))
        .await
        .expect_err("no such build");
    assert_eq!(unknown.code(), Code::NotFound, "{unknown:?}");
    assert_eq!(
        spectator(&mut matches, &id).await.state,
        pb::MatchState::Quarantined as i32,
        "a refused lift leaves the match quarantined"
    );
    let lifted = admin
        .lift_quarantine(lift("1.0.1"))
        .await
        .expect("the match moves to the fixed build")
        .into_inner();
    assert_eq!(lifted.state, pb::MatchState::Running as i32, "{lifted:?}");
    assert_eq!(lifted.plugin_version, "1.0.1");
    assert_eq!(lifted.plugin_sha256, sha256_of(&fixed));
    drop_disc(&mut matches, &id, &tokens, 5, "g")
        .await
        .expect("the fixed build applies the trigger move");

    // A restart replays the whole match through the fixed build.
    assert!(host.terminate().await, "a clean stop");
    let host = isolating_host(&plugins, &data, &log.with_extension("2"), &[]).await;
    let mut matches = host.matches().await;
    let view = spectator(&mut matches, &id).await;
    assert_eq!(view.state, pb::MatchState::Running as i32, "{view:?}");
    assert_eq!(view.plugin_version, "1.0.1");
    assert_eq!(view.version, lifted.version + 1, "{view:?}");
    drop_disc(&mut matches, &id, &tokens, 6, "a")
        .await
        .expect("the match plays on after the restart");
}

/// The hex SHA-256 of a file, as `--trust-plugin` names a build.
fn sha256_of(file: &Path) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(
        std::fs::read(file).expect("the plugin file"),
    ))
}
