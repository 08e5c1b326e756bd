//! Hostile input changes nothing: oversized inputs get a short refusal, time
//! controls at the extremes, records that claim absurd counts, plugin paths
//! that are not files, a plugin call that never returns at shutdown, and a
//! burst of slow calls that must not leave hundreds of threads behind.
//!
//! The stuck and slow plugin is `counter` (`tests/fixture-plugin`) with its
//! `hang` and `think_ms` options.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tabletop_proto::v1 as pb;
use tabletop_proto::v1::director_client::DirectorClient;
use tabletop_tests::{ADMIN_TOKEN, Host, HostOptions, as_admin, built_plugin};
use tonic::Code;

use crate::support::{legal, reason, submit, view_of};

/// The largest time control value a match accepts: 30 days, in ms.
const MAX_TIME_CONTROL_MS: i64 = 30 * 24 * 60 * 60 * 1000;

/// Asserts `status` is short: under 1 KB, quoting no run of more than 100
/// characters of `input`, and with metadata values of at most 101
/// characters (100 and an ellipsis).
fn assert_brief(status: &tonic::Status, input_char: char) {
    assert!(
        status.message().len() < 1024,
        "a {}-byte message",
        status.message().len()
    );
    let run: String = std::iter::repeat_n(input_char, 101).collect();
    assert!(
        !status.message().contains(&run),
        "the message quotes more than 100 characters of the input: {}",
        status.message()
    );
    let info = tabletop_tests::error_info(status).expect("an ErrorInfo");
    for value in info.metadata.values() {
        assert!(value.chars().count() <= 101, "metadata value {value}");
    }
}

async fn count_matches(
    matches: &mut pb::matches_client::MatchesClient<tonic::transport::Channel>,
) -> usize {
    matches
        .list_matches(pb::ListMatchesRequest {
            page_size: 1000,
            ..Default::default()
        })
        .await
        .expect("list matches")
        .into_inner()
        .matches
        .len()
}

/// A 20 000-character notation (and match id, and game name) is refused
/// with a message under 1 KB that quotes at most 100 characters of it, so
/// every gRPC client receives the refusal itself; the match is unchanged.
#[tokio::test]
async fn a_huge_input_is_refused_briefly_and_changes_nothing() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    let created = matches
        .create_match(pb::CreateMatchRequest {
            game: "focus".into(),
            players: 2,
            ..Default::default()
        })
        .await
        .expect("create")
        .into_inner();
    let token = created.seats[0].token.clone();
    for filler in ['x', 'é'] {
        let huge: String = std::iter::repeat_n(filler, 20_000).collect();
        let refused = matches
            .submit_action(pb::SubmitActionRequest {
                match_id: created.match_id.clone(),
                seat_token: token.clone(),
                action: Some(pb::submit_action_request::Action::Notation(huge.clone())),
                ..Default::default()
            })
            .await
            .expect_err("a huge notation is refused");
        assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
        // A game's own words are capped at 1 KB; the host quotes briefly.
        assert!(
            refused.message().len() < 1024,
            "{}",
            refused.message().len()
        );
        let unknown = view_of(&mut matches, &huge, "", None)
            .await
            .expect_err("no such match");
        assert_eq!(unknown.code(), Code::NotFound);
        assert_brief(&unknown, filler);
        let no_game = matches
            .create_match(pb::CreateMatchRequest {
                game: huge.clone(),
                players: 2,
                ..Default::default()
            })
            .await
            .expect_err("no such game");
        assert_eq!(no_game.code(), Code::NotFound);
        assert_brief(&no_game, filler);
    }
    let view = view_of(&mut matches, &created.match_id, "", None)
        .await
        .expect("the match is there");
    assert_eq!(view.version, 0, "nothing changed");
    assert_eq!(count_matches(&mut matches).await, 1);
}

fn time_control(per_move_ms: i64, bank_ms: i64, increment_ms: i64) -> pb::TimeControl {
    pb::TimeControl {
        per_move_ms,
        bank_ms,
        increment_ms,
        on_timeout: pb::OnTimeout::Lose as i32,
    }
}

/// Time control values past 30 days (i64::MAX among them) are refused and
/// create nothing; a match with every value at 30 days plays on without a
/// clock running out, and a director's added time past a day is refused.
#[tokio::test]
async fn time_controls_past_thirty_days_are_refused_and_the_longest_plays_on() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    let create = |tc: pb::TimeControl| pb::CreateMatchRequest {
        game: "focus".into(),
        players: 2,
        time_control: Some(tc),
        ..Default::default()
    };
    for tc in [
        time_control(i64::MAX, 0, 0),
        time_control(0, i64::MAX - 1, 0),
        time_control(0, 60_000, 1 << 62),
        time_control(MAX_TIME_CONTROL_MS + 1, 0, 0),
        time_control(0, i64::MIN, 0),
    ] {
        let refused = matches.create_match(create(tc)).await.expect_err("refused");
        assert_eq!(refused.code(), Code::InvalidArgument, "{tc:?}: {refused:?}");
        assert_eq!(reason(&refused), "INVALID_SETUP");
    }
    assert_eq!(count_matches(&mut matches).await, 0, "nothing was created");

    let longest = MAX_TIME_CONTROL_MS;
    let created = matches
        .create_match(create(time_control(longest, longest, longest)))
        .await
        .expect("the longest time control is accepted")
        .into_inner();
    let mut tokens = vec![String::new(); 2];
    for seat in &created.seats {
        tokens[seat.seat as usize] = seat.token.clone();
    }
    let mut director = DirectorClient::new(host.channel().await);
    let too_much = director
        .add_time(as_admin(pb::AddTimeRequest {
            match_id: created.match_id.clone(),
            seat: 0,
            added_ms: i64::MAX,
            ..Default::default()
        }))
        .await
        .expect_err("more than a day is refused");
    assert_eq!(too_much.code(), Code::InvalidArgument);
    director
        .add_time(as_admin(pb::AddTimeRequest {
            match_id: created.match_id.clone(),
            seat: 1,
            added_ms: 86_400_000,
            ..Default::default()
        }))
        .await
        .expect("a day more");
    for ply in 0..6u64 {
        let view = view_of(&mut matches, &created.match_id, "", None)
            .await
            .expect("view");
        let seat = view.to_move[0] as usize;
        let list = legal(&mut matches, &created.match_id, &tokens[seat])
            .await
            .expect("legal actions");
        let after = submit(
            &mut matches,
            &created.match_id,
            &tokens[seat],
            list.actions[0].id,
            Some(view.version),
        )
        .await
        .expect("a move under the longest clock")
        .view
        .expect("a view");
        assert_eq!(after.state, pb::MatchState::Running as i32, "ply {ply}");
        for status in &after.seats {
            let left = status.clock_remaining_ms.expect("a clock");
            // Bank, increments and the added day: positive and sane.
            assert!(
                left > 0 && left <= longest * 8 + 86_400_000,
                "seat {}: {left} ms",
                status.seat
            );
        }
    }
}

/// A record that claims 4 294 967 295 players is refused at once by the
/// game's player range, before anything is made for a seat; so are a
/// record of too many actions and an oversized start position. Nothing is
/// created.
#[tokio::test]
async fn records_and_start_positions_are_checked_for_size_and_counts_first() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    let created = matches
        .create_match(pb::CreateMatchRequest {
            game: "focus".into(),
            players: 2,
            ..Default::default()
        })
        .await
        .expect("create")
        .into_inner();
    let record_json = matches
        .export_record(as_admin(pb::ExportRecordRequest {
            match_id: created.match_id.clone(),
            ..Default::default()
        }))
        .await
        .expect("export")
        .into_inner()
        .record_json;
    let record: serde_json::Value = serde_json::from_str(&record_json).expect("a JSON record");
    let import = |record: &serde_json::Value| {
        as_admin(pb::ImportRecordRequest {
            record_json: record.to_string(),
            ..Default::default()
        })
    };

    let mut claims = record.clone();
    claims["players"] = serde_json::json!(4_294_967_295u32);
    let refused = matches
        .import_record(import(&claims))
        .await
        .expect_err("4 294 967 295 players are refused");
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert_eq!(reason(&refused), "INVALID_RECORD");
    assert!(
        refused.message().contains("players"),
        "{}",
        refused.message()
    );

    let mut long = record.clone();
    let entry = serde_json::json!({"version": 1, "at_ms": 0, "type": "chance", "outcome": 0});
    long["actions"] = serde_json::Value::Array(vec![entry; 20_001]);
    let refused = matches
        .import_record(import(&long))
        .await
        .expect_err("too many actions are refused");
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert!(
        refused.message().contains("actions"),
        "{}",
        refused.message()
    );

    let refused = matches
        .create_match(pb::CreateMatchRequest {
            game: "focus".into(),
            players: 2,
            start_position: Some("x".repeat(70_000)),
            ..Default::default()
        })
        .await
        .expect_err("an oversized start position is refused");
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert_eq!(reason(&refused), "INVALID_POSITION");
    assert_brief(&refused, 'x');

    assert_eq!(count_matches(&mut matches).await, 1, "nothing was created");
    matches
        .import_record(import(&record))
        .await
        .expect("the record as exported still imports");
}

/// LoadPlugin reads regular files only, up to `--max-plugin-bytes`: a
/// FIFO, `/dev/zero`, a directory and a file over the cap are refused at
/// once, each naming what it is (never "the game plugin"), and the host
/// goes on and stops when asked.
#[cfg(unix)]
#[tokio::test]
async fn load_plugin_refuses_what_is_not_a_regular_file_and_says_what_it_is() {
    let root = tempfile::tempdir().expect("temp dir");
    let fifo = root.path().join("pipe.so");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo");
    let big = root.path().join("big.so");
    std::fs::copy(built_plugin("focus"), &big).expect("copy a plugin");
    let mut host = Host::start_with(HostOptions {
        args: ["--max-plugin-bytes", "4096"].map(String::from).to_vec(),
        ..Default::default()
    })
    .await;
    let mut admin = host.admin().await;
    let cases: [(PathBuf, &str); 4] = [
        (fifo, "FIFO"),
        (PathBuf::from("/dev/zero"), "character device"),
        (root.path().to_path_buf(), "directory"),
        (big, "more than the 4096"),
    ];
    for (path, named) in &cases {
        let refused = admin
            .load_plugin(pb::LoadPluginRequest {
                path: path.display().to_string(),
                admin_token: ADMIN_TOKEN.into(),
            })
            .await
            .expect_err("refused");
        assert_eq!(
            refused.code(),
            Code::InvalidArgument,
            "{path:?}: {refused:?}"
        );
        assert_eq!(reason(&refused), "PLUGIN_REFUSED");
        assert!(
            refused.message().contains(named),
            "{path:?}: {}",
            refused.message()
        );
        assert!(
            !refused.message().contains("game plugin"),
            "{}",
            refused.message()
        );
    }
    let listed = admin
        .list_plugins(pb::ListPluginsRequest {
            admin_token: ADMIN_TOKEN.into(),
        })
        .await
        .expect("the host goes on");
    assert!(listed.into_inner().plugins.is_empty(), "nothing was loaded");
    let stopped = host.terminate_within(Duration::from_secs(60)).await;
    assert!(stopped.is_some_and(|s| s.success()), "{stopped:?}");
}

/// A plugin directory with `counter` (and only it).
fn counter_dir(root: &Path, counter: &Path) -> PathBuf {
    let dir = root.join("plugins");
    std::fs::create_dir_all(&dir).expect("plugin dir");
    std::fs::copy(
        counter,
        dir.join(format!("counter.{}", std::env::consts::DLL_EXTENSION)),
    )
    .expect("copy the fixture");
    dir
}

async fn create_counter(
    matches: &mut pb::matches_client::MatchesClient<tonic::transport::Channel>,
    options: &[(&str, &str)],
) -> (String, Vec<String>) {
    let created = matches
        .create_match(pb::CreateMatchRequest {
            game: "counter".into(),
            players: 2,
            options: options
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            view_detail: pb::ViewDetail::Summary as i32,
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

fn tick(match_id: &str, token: &str, version: u64) -> pb::SubmitActionRequest {
    pb::SubmitActionRequest {
        match_id: match_id.to_string(),
        seat_token: token.to_string(),
        action: Some(pb::submit_action_request::Action::Notation("tick".into())),
        expected_version: Some(version),
        view_detail: pb::ViewDetail::Summary as i32,
    }
}

/// Waits (up to a minute) until the host's log holds `needle`.
async fn wait_for_log(log: &Path, needle: &str) -> bool {
    for _ in 0..600 {
        if std::fs::read_to_string(log).is_ok_and(|text| text.contains(needle)) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// SIGTERM stops the host even while plugin calls never return: one stuck
/// on an async worker (it was trusted to run inline), one on the blocking
/// pool. Every action acknowledged before is there after a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_stops_the_host_while_a_plugin_call_is_stuck() {
    let (counter, _) = crate::durable::fixtures().await;
    let root = tempfile::tempdir().expect("temp dir");
    let log = root.path().join("host.log");
    let options = HostOptions {
        plugin_dir: Some(counter_dir(root.path(), &counter)),
        data_dir: Some(root.path().join("data")),
        args: ["--call-deadline-ms", "500"].map(String::from).to_vec(),
        log_file: Some(log.clone()),
        ..Default::default()
    };
    let mut host = Host::start_with(options.clone()).await;
    let mut matches = host.matches().await;
    let (kept, kept_tokens) = create_counter(&mut matches, &[]).await;
    for version in 0..2u64 {
        matches
            .submit_action(tick(&kept, &kept_tokens[version as usize % 2], version))
            .await
            .expect("acknowledged");
    }
    let (stuck, stuck_tokens) = create_counter(&mut matches, &[("hang", "true")]).await;
    let mut inline = host.matches().await;
    let hanging = tokio::spawn(async move {
        inline
            .submit_action(tick(&stuck, &stuck_tokens[0], 0))
            .await
    });
    assert!(
        wait_for_log(&log, "ran longer than the inline limit").await,
        "the stuck call was not noticed"
    );
    let (pooled, pooled_tokens) = create_counter(&mut matches, &[("hang", "true")]).await;
    let cut = matches
        .submit_action(tick(&pooled, &pooled_tokens[0], 0))
        .await
        .expect_err("the pool's call is cut at the deadline");
    assert!(cut.message().contains("did not answer within"), "{cut:?}");

    let stopped = host.terminate_within(Duration::from_secs(60)).await;
    assert!(stopped.is_some(), "SIGTERM did not stop the host");
    assert!(
        hanging.await.expect("task").is_err(),
        "the stuck call never succeeded"
    );

    let host = Host::start_with(HostOptions {
        log_file: None,
        ..options
    })
    .await;
    let view = view_of(&mut host.matches().await, &kept, "", None)
        .await
        .expect("the match is back");
    assert_eq!(view.version, 2, "every acknowledged action is there");
}

/// How many threads process `pid` has now.
#[cfg(target_os = "linux")]
fn threads_of(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task")).map_or(0, |tasks| tasks.count())
}

/// A burst of slow calls (a plugin moved to the blocking pool, 200 calls at
/// once) never takes the host past its pool's size in threads; once the
/// plugin's calls are fast again it runs inline again.
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_slow_calls_keeps_threads_bounded_and_the_plugin_comes_back_inline() {
    const POOL: usize = 16;
    const BOT_THREADS: usize = 2;
    let (counter, _) = crate::durable::fixtures().await;
    let root = tempfile::tempdir().expect("temp dir");
    let log = root.path().join("host.log");
    let host = Host::start_with(HostOptions {
        plugin_dir: Some(counter_dir(root.path(), &counter)),
        args: [
            "--inline-limit-ms",
            "20",
            "--blocking-threads",
            &POOL.to_string(),
            "--call-deadline-ms",
            "60000",
            "--bot-threads",
            &BOT_THREADS.to_string(),
        ]
        .map(String::from)
        .to_vec(),
        env: vec![("RUST_LOG".into(), "info".into())],
        log_file: Some(log.clone()),
        ..Default::default()
    })
    .await;
    let mut matches = host.matches().await;
    let (slow, slow_tokens) = create_counter(&mut matches, &[("think_ms", "100")]).await;
    matches
        .submit_action(tick(&slow, &slow_tokens[0], 0))
        .await
        .expect("a slow tick");
    assert!(wait_for_log(&log, "ran longer than the inline limit").await);

    let mut burst = Vec::new();
    for _ in 0..200 {
        burst.push(create_counter(&mut matches, &[("think_ms", "20"), ("length", "1000")]).await);
    }
    let pid = host.pid();
    let sampling = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let sampler = {
        let sampling = std::sync::Arc::clone(&sampling);
        tokio::spawn(async move {
            let mut most = 0;
            while sampling.load(std::sync::atomic::Ordering::Relaxed) {
                most = most.max(threads_of(pid));
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            most
        })
    };
    let channel = host.channel().await;
    let calls: Vec<_> = burst
        .iter()
        .map(|(id, tokens)| {
            let mut client = pb::matches_client::MatchesClient::new(channel.clone());
            let request = tick(id, &tokens[0], 0);
            tokio::spawn(async move { client.submit_action(request).await })
        })
        .collect();
    for call in calls {
        call.await
            .expect("task")
            .expect("every call of the burst is served");
    }
    sampling.store(false, std::sync::atomic::Ordering::Relaxed);
    let most = sampler.await.expect("sampler");
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    // The pool, the async workers, the bot threads and their search
    // threads, and a few threads of the host's own (signals, clocks, store
    // writer and syncer, watchers).
    let bound = POOL + workers + 2 * BOT_THREADS + 16;
    assert!(most > 0, "threads were counted");
    assert!(
        most <= bound,
        "{most} threads during the burst (bound {bound})"
    );

    let (fast, fast_tokens) = create_counter(&mut matches, &[("length", "100000")]).await;
    let mut back = false;
    for version in 0..1000u64 {
        matches
            .submit_action(tick(&fast, &fast_tokens[version as usize % 2], version))
            .await
            .expect("a fast tick");
        if version % 50 == 49
            && std::fs::read_to_string(&log).is_ok_and(|t| t.contains("run inline again"))
        {
            back = true;
            break;
        }
    }
    assert!(back, "counter never came back inline");
}
