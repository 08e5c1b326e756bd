//! The durable store's CPU cost per action, without gRPC or plugins: many
//! tasks on a two-worker tokio runtime (as engine-host runs them) append one
//! log entry each and wait for it to be durable, the way a SubmitAction
//! does, creating a new match every [`ACTIONS_PER_MATCH`] actions.
//!
//! Reports, per round, actions/s and the process's CPU µs per action with
//! the writer thread's share of it. CPU per action is the figure to
//! compare, since throughput moves with whatever else runs on the machine
//! and with the disk's flush; to compare two builds, run their binaries in
//! turns, so a change in the machine's load falls on both. Each round
//! starts from an empty store under `TMPDIR` (`/dev/shm` leaves the disk
//! out: the SQL and the hand-offs only).
//!
//! Run: `cargo bench -p engine-host --bench store` (options after `--`:
//! `--tasks N` in flight, default 64; `--seconds S` per round, default 3;
//! `--rounds R`, default 3; `--inline-fsync-below-ms T`, the store's
//! [`INLINE_FSYNC_BELOW`] by default: 0 makes the syncer thread do every
//! fsync, a large value the writer).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use engine_host::store::sqlite::{INLINE_FSYNC_BELOW, SqliteStore};
use engine_host::store::{Change, NewMatch, Store, StoredMatch};
use tabletop_core::{LogEntry, LogKind, LoggedMove, MatchSetup};

/// About a Lanza match's length.
const ACTIONS_PER_MATCH: u64 = 30;

fn stored(match_id: String) -> StoredMatch {
    StoredMatch {
        setup: MatchSetup {
            match_id,
            game: "lanza".into(),
            plugin_version: "0.1.0".into(),
            plugin_sha256: None,
            players: 2,
            options: Default::default(),
            seed: 0x1234_5678_9abc_def0,
            start_position: None,
            created_at_ms: 1_767_225_600_000,
            time_control: None,
            labels: Default::default(),
            open_seat_deadline: None,
            spectator_delay: None,
            tenant: String::new(),
            creator: String::new(),
            seat_players: vec![],
        },
        seat_hashes: vec![Some([7; 32]), Some([9; 32])],
        join_code_hashes: vec![None, None],
        joins: vec![],
        log: vec![],
        pending: vec![],
        results: vec![],
    }
}

fn action(version: u64) -> LogEntry {
    LogEntry {
        version,
        at_ms: 1_767_225_600_000 + version as i64,
        kind: LogKind::Moves {
            moves: smallvec::smallvec![LoggedMove {
                seat: (version % 2) as u32,
                action: 1000 + version,
                notation: "Ab3-c4+N".into(),
                at_ms: 1_767_225_600_000 + version as i64,
                held: None,
            }],
        },
    }
}

/// CPU time (user + system) of this process, or of one of its threads, in
/// clock ticks, from /proc.
fn cpu_ticks(stat: &Path) -> u64 {
    let text = std::fs::read_to_string(stat).unwrap_or_default();
    // Fields after the command name, which is in parentheses and may hold
    // spaces: state is field 3, utime 14, stime 15.
    let after = text.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let field = |n: usize| fields.get(n - 3).and_then(|f| f.parse::<u64>().ok());
    field(14).unwrap_or(0) + field(15).unwrap_or(0)
}

/// The /proc stat file of this process's thread named `name`.
fn thread_stat(name: &str) -> Option<PathBuf> {
    std::fs::read_dir("/proc/self/task").ok()?.find_map(|task| {
        let dir = task.ok()?.path();
        let comm = std::fs::read_to_string(dir.join("comm")).ok()?;
        (comm.trim() == name).then(|| dir.join("stat"))
    })
}

/// Clock ticks per second (USER_HZ): 100 on Linux.
const TICKS_PER_SECOND: f64 = 100.0;

struct Round {
    actions: u64,
    seconds: f64,
    process_ticks: u64,
    writer_ticks: u64,
}

fn round(dir: &Path, tasks: usize, duration: Duration, inline_fsync_below: Duration) -> Round {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).expect("a scratch directory");
    let store: Arc<dyn Store> = Arc::new(
        SqliteStore::open_with(&dir.join("matches.sqlite3"), inline_fsync_below)
            .expect("the store opens"),
    );
    // The thread names itself once it runs, which may be a moment later.
    let writer = (0..100)
        .find_map(|_| {
            let found = thread_stat("store-writer");
            if found.is_none() {
                std::thread::sleep(Duration::from_millis(10));
            }
            found
        })
        .expect("the store's writer thread");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let actions = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let next_match = Arc::new(AtomicU64::new(0));
    let measured = runtime.block_on(async {
        let handles: Vec<_> = (0..tasks)
            .map(|_| {
                let (store, actions, stop, next_match) = (
                    Arc::clone(&store),
                    Arc::clone(&actions),
                    Arc::clone(&stop),
                    Arc::clone(&next_match),
                );
                tokio::spawn(async move {
                    while !stop.load(Ordering::Relaxed) {
                        let id = format!("{:019x}", next_match.fetch_add(1, Ordering::Relaxed));
                        let new = stored(id.clone());
                        let commit = store
                            .create_match(&NewMatch {
                                stored: &new,
                                lifecycle: &[],
                                request: None,
                            })
                            .expect("queued");
                        commit.durable().await.expect("created");
                        for version in 1..=ACTIONS_PER_MATCH {
                            let change = Change {
                                entries: &[action(version)],
                                ..Change::default()
                            };
                            let commit = store.append(&id, &change);
                            commit.expect("queued").durable().await.expect("durable");
                            actions.fetch_add(1, Ordering::Relaxed);
                            if stop.load(Ordering::Relaxed) {
                                break;
                            }
                        }
                    }
                })
            })
            .collect();
        // Half a second to settle before measuring.
        tokio::time::sleep(Duration::from_millis(500)).await;
        let started = Instant::now();
        let process_before = cpu_ticks(Path::new("/proc/self/stat"));
        let writer_before = cpu_ticks(&writer);
        let actions_before = actions.load(Ordering::Relaxed);
        tokio::time::sleep(duration).await;
        // Saturating: a tick count reads as 0 should /proc fail.
        let measured = Round {
            actions: actions
                .load(Ordering::Relaxed)
                .saturating_sub(actions_before),
            seconds: started.elapsed().as_secs_f64(),
            process_ticks: cpu_ticks(Path::new("/proc/self/stat")).saturating_sub(process_before),
            writer_ticks: cpu_ticks(&writer).saturating_sub(writer_before),
        };
        stop.store(true, Ordering::Relaxed);
        for handle in handles {
            let _ = handle.await;
        }
        measured
    });
    drop(runtime);
    drop(store);
    let _ = std::fs::remove_dir_all(dir);
    measured
}

/// The number after `name` on the command line, or `default`.
fn option(args: &[String], name: &str, default: f64) -> f64 {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The number after `name` on the command line, in `unit`s, as a
/// duration; `default` when absent or not a duration (negative, too large).
fn duration_option(args: &[String], name: &str, unit: Duration, default: Duration) -> Duration {
    let count = option(args, name, f64::NAN);
    Duration::try_from_secs_f64(count * unit.as_secs_f64()).unwrap_or(default)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let tasks = option(&args, "--tasks", 64.0) as usize;
    let rounds = option(&args, "--rounds", 3.0) as usize;
    let second = Duration::from_secs(1);
    let duration = duration_option(&args, "--seconds", second, 3 * second);
    let inline_fsync_below = duration_option(
        &args,
        "--inline-fsync-below-ms",
        Duration::from_millis(1),
        INLINE_FSYNC_BELOW,
    );
    let dir = std::env::temp_dir().join(format!("engine-host-store-bench-{}", std::process::id()));
    println!(
        "durable store, {tasks} tasks in flight, {:.1} s per round",
        duration.as_secs_f64()
    );
    for n in 0..rounds {
        let r = round(&dir, tasks, duration, inline_fsync_below);
        let cpu_us = |ticks: u64| ticks as f64 / TICKS_PER_SECOND * 1e6 / r.actions.max(1) as f64;
        println!(
            "round {n}: {:>8.0} actions/s  {:>6.1} µs CPU/action  (writer thread {:>5.1})",
            r.actions as f64 / r.seconds,
            cpu_us(r.process_ticks),
            cpu_us(r.writer_ticks),
        );
    }
}
