//! `tabletop plugin check FILE`: the conformance kit on any plugin file, in a
//! child process with a memory and a CPU-time cap (this program run as
//! [`child::CHILD_SUBCOMMAND`]), and a wall-clock limit the parent enforces
//! by killing it. The child streams every match, check, step and failure;
//! a child that dies (a signal, the memory cap, the time cap) is reported
//! with the check that was running and the actions that led there.
//!
//! Exit status: 0 every check passed, 1 a check failed, 2 a usage error or
//! a file that cannot be opened as a plugin.

pub mod child;

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tabletop_sdk::conformance::{CHECKS, Failure, Played, Summary};

use child::{CHILD_SUBCOMMAND, EXIT_UNOPENABLE, LINE_PREFIX};

/// `tabletop plugin check`'s arguments.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The plugin file (a shared library).
    pub file: PathBuf,
    /// Random matches per player count with default options (one more per
    /// player count for each non-default value of each yes/no or choice
    /// option).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub playouts: u32,
    /// The first match's seed (match i uses SEED + i).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// CPU seconds the checking process may use.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub time_limit: u64,
    /// Address space the checking process may use, in MiB.
    #[arg(long, default_value_t = 2048, value_parser = clap::value_parser!(u64).range(64..))]
    pub memory_limit: u64,
}

/// How the checking process ended when it did not run to the end.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ended {
    /// A signal killed it (or it exited without finishing).
    Crashed(String),
    /// It hit the memory cap.
    OutOfMemory,
    /// It hit the CPU cap or the wall-clock limit.
    OutOfTime,
}

impl Ended {
    fn kind(&self) -> &'static str {
        match self {
            Ended::Crashed(_) => "crashed",
            Ended::OutOfMemory => "out_of_memory",
            Ended::OutOfTime => "out_of_time",
        }
    }
}

/// What the parent learnt from the child's lines.
#[derive(Debug, Default)]
struct Heard {
    game: Option<(String, String)>,
    unopenable: Option<String>,
    /// The match in progress: players, options, seed.
    current: Option<(u32, std::collections::BTreeMap<String, String>, u64)>,
    actions: Vec<Played>,
    check: String,
    failures: Vec<Failure>,
    summary: Option<Summary>,
}

impl Heard {
    fn hear(&mut self, line: &str) {
        let Some(json) = line.strip_prefix(LINE_PREFIX) else {
            return;
        };
        let Ok(event) = serde_json::from_str::<Value>(json) else {
            return;
        };
        let text = |key: &str| event[key].as_str().unwrap_or_default().to_string();
        match event["event"].as_str().unwrap_or_default() {
            "opened" => self.game = Some((text("game"), text("version"))),
            "unopenable" => self.unopenable = Some(text("message")),
            "match" => {
                let options = serde_json::from_value(event["options"].clone()).unwrap_or_default();
                let players = event["players"].as_u64().unwrap_or(0) as u32;
                self.current = Some((players, options, event["seed"].as_u64().unwrap_or(0)));
                self.actions.clear();
            }
            "check" => self.check = text("name"),
            "played" => {
                if let Ok(played) = serde_json::from_value(event["step"].clone()) {
                    self.actions.push(played);
                }
            }
            "failed" => {
                if let Ok(failure) = serde_json::from_value(event["failure"].clone()) {
                    self.failures.push(failure);
                }
            }
            "done" => self.summary = serde_json::from_value(event["summary"].clone()).ok(),
            _ => {}
        }
    }

    /// The failure of the running check that the child's death is.
    fn death(&self, ended: &Ended, args: &CheckArgs, stderr: &str) -> Failure {
        let what = match ended {
            Ended::Crashed(how) => format!("the checking process crashed ({how})"),
            Ended::OutOfMemory => format!(
                "the checking process ran out of memory (the cap is {} MiB)",
                args.memory_limit
            ),
            Ended::OutOfTime => format!(
                "the checking process ran out of time (the cap is {} s of CPU): a call never \
                 returned or the game never ends",
                args.time_limit
            ),
        };
        let check = if self.check.is_empty() {
            "open"
        } else {
            &self.check
        };
        let mut failure = Failure::new(check, format!("{what} during check `{check}`"));
        if !stderr.is_empty() {
            failure
                .message
                .push_str(&format!("; its last words: {stderr}"));
        }
        if let Some((players, options, seed)) = &self.current {
            failure.players = *players;
            failure.options = options.clone();
            failure.seed = *seed;
            failure.step = self.actions.last().map_or(0, |p| step_of(p) + 1);
            failure.actions = self.actions.clone();
        }
        failure
    }
}

fn step_of(played: &Played) -> u64 {
    match played {
        Played::Move { step, .. } | Played::Chance { step, .. } | Played::Remove { step, .. } => {
            *step
        }
    }
}

/// Runs the check and prints its report; returns the exit status.
pub fn run(args: &CheckArgs, as_json: bool) -> u8 {
    if !args.file.is_file() {
        eprintln!("tabletop: {}: no such plugin file", args.file.display());
        return 2;
    }
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("tabletop: cannot find this program to run the check: {e}");
            return 2;
        }
    };
    let (heard, ended, stderr) = match run_child(&exe, args) {
        Ok(outcome) => outcome,
        Err(e) => {
            eprintln!("tabletop: cannot run the check: {e}");
            return 2;
        }
    };
    if let Some(message) = &heard.unopenable {
        eprintln!(
            "tabletop: {} is not a plugin this host can open: {message}",
            args.file.display()
        );
        return 2;
    }
    let mut failures = heard.failures.clone();
    if let Some(ended) = &ended {
        failures.push(heard.death(ended, args, &stderr));
    }
    let passed = failures.is_empty() && heard.summary.is_some();
    if as_json {
        print_json(args, &heard, ended.as_ref(), &failures, passed);
    } else {
        print_human(args, &heard, &failures, passed);
    }
    if passed { 0 } else { 1 }
}

/// Runs the child to its end or its limit: what it said, how it ended when
/// it did not finish, and the end of its stderr.
fn run_child(exe: &Path, args: &CheckArgs) -> std::io::Result<(Heard, Option<Ended>, String)> {
    let mut child = Command::new(exe)
        .arg(CHILD_SUBCOMMAND)
        .arg(args.playouts.to_string())
        .arg(args.seed.to_string())
        .arg(args.time_limit.to_string())
        .arg(args.memory_limit.to_string())
        .arg(&args.file)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let (lines, heard_lines) = mpsc::channel::<String>();
    let stdout = child.stdout.take().expect("stdout is piped");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let mut stderr_pipe = child.stderr.take().expect("stderr is piped");
    let stderr_reader = std::thread::spawn(move || {
        let mut kept = Vec::new();
        let _ = stderr_pipe.read_to_end(&mut kept);
        let text = String::from_utf8_lossy(&kept).into_owned();
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        // A failed allocation says so before its backtrace.
        if let Some(oom) = lines.iter().find(|l| l.contains("memory allocation of")) {
            return oom.trim().to_string();
        }
        lines[lines.len().saturating_sub(3)..]
            .iter()
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join(" | ")
    });
    // Wall clock: the CPU cap, twice over for a busy machine, and a margin.
    let deadline = Instant::now() + Duration::from_secs(args.time_limit * 2 + 5);
    let mut heard = Heard::default();
    let mut timed_out = false;
    let status = loop {
        while let Ok(line) = heard_lines.try_recv() {
            heard.hear(&line);
        }
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            timed_out = true;
            break child.wait()?;
        }
        if let Ok(line) = heard_lines.recv_timeout(Duration::from_millis(20)) {
            heard.hear(&line);
        }
    };
    // The rest of the lines (the reader ends with the pipe).
    while let Ok(line) = heard_lines.recv_timeout(Duration::from_secs(1)) {
        heard.hear(&line);
    }
    let stderr = stderr_reader.join().unwrap_or_default();
    let ended = if timed_out {
        Some(Ended::OutOfTime)
    } else {
        judge(status, &heard, &stderr)
    };
    Ok((heard, ended, stderr))
}

/// How the child ended, if not by finishing.
fn judge(status: std::process::ExitStatus, heard: &Heard, stderr: &str) -> Option<Ended> {
    use std::os::unix::process::ExitStatusExt;
    let out_of_memory = stderr.contains("memory allocation of")
        || stderr.contains("out of memory")
        || stderr.contains("bad_alloc");
    if status.success() && heard.summary.is_some() {
        return None;
    }
    if status.code() == Some(i32::from(EXIT_UNOPENABLE)) && heard.unopenable.is_some() {
        return None;
    }
    if out_of_memory {
        return Some(Ended::OutOfMemory);
    }
    match status.signal() {
        // SIGXCPU at the soft CPU cap, SIGKILL at the hard one.
        Some(24) | Some(9) => Some(Ended::OutOfTime),
        Some(signal) => Some(Ended::Crashed(signal_name(signal))),
        None => Some(Ended::Crashed(format!(
            "exit code {} before the end",
            status.code().unwrap_or(-1)
        ))),
    }
}

fn signal_name(signal: i32) -> String {
    let name = match signal {
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        11 => "SIGSEGV",
        _ => return format!("signal {signal}"),
    };
    format!("{name}, signal {signal}")
}

fn print_json(
    args: &CheckArgs,
    heard: &Heard,
    ended: Option<&Ended>,
    failures: &[Failure],
    passed: bool,
) {
    let (game, version) = heard.game.clone().unwrap_or_default();
    let report = json!({
        "file": args.file.display().to_string(),
        "game": game,
        "version": version,
        "seed": args.seed,
        "playouts": args.playouts,
        "passed": passed,
        "ended": ended.map(Ended::kind),
        "summary": heard.summary,
        "failures": failures,
    });
    outln!(
        "{}",
        serde_json::to_string_pretty(&report).unwrap_or_default()
    );
}

fn print_human(args: &CheckArgs, heard: &Heard, failures: &[Failure], passed: bool) {
    let (game, version) = heard.game.clone().unwrap_or_default();
    outln!(
        "{} ({game} {version}), seed {}, {} playouts per player count",
        args.file.display(),
        args.seed,
        args.playouts
    );
    if let Some(summary) = &heard.summary {
        outln!(
            "  played {} matches, {} transitions; {} boards drawn, {} targets, {} evaluations, \
             {} refusals explained",
            summary.matches,
            summary.transitions,
            summary.boards_drawn,
            summary.targets_checked,
            summary.evaluations,
            summary.explained_refusals
        );
    }
    if passed {
        outln!("PASSED: all {} checks", CHECKS.len());
        return;
    }
    outln!("FAILED: {} check(s)", failures.len());
    for failure in failures {
        outln!();
        outln!("check `{}` failed: {}", failure.check, failure.message);
        if failure.players == 0 {
            continue;
        }
        outln!(
            "  reproduce: {} players, options {:?}, seed {}, step {}",
            failure.players,
            failure.options,
            failure.seed,
            failure.step
        );
        if failure.actions.is_empty() {
            outln!("  from the start position, before any action");
        } else {
            outln!("  actions from the start position:");
        }
        for played in &failure.actions {
            match played {
                Played::Move {
                    step,
                    player,
                    action,
                    text,
                } => outln!("    {step}: seat {player} plays {text:?} (id {action})"),
                Played::Chance { step, outcome } => outln!("    {step}: chance {outcome}"),
                Played::Remove { step, player } => outln!("    {step}: seat {player} removed"),
            }
        }
    }
}
