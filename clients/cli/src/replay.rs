//! `tabletop replay FILE`: steps through a match record in the terminal,
//! forward and back, rendering each position.
//!
//! It replays locally and needs no server: it loads the record's game plugin
//! (the exact version the record names) from a plugin directory — by default
//! the directory of this executable, where `cargo build` puts the workspace's
//! plugins next to `tabletop` and `engine-host` — and replays the record's
//! actions through it with the host's own replay code (`tabletop_core::Match::replay`), so every position is
//! the one the server had. A record that does not replay is refused with the
//! first failing action named, as the server's import would.
//!
//! Keys (one line each): Enter or `n` next, `b`/`p` back, a number jumps to
//! that step, `e` the end, `q` quits. `--step N` prints one position and
//! exits; `--all` prints every position in order (for scripts).

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tabletop_core::{LogKind, Match, Record};
use tabletop_loader::Registry;
use tabletop_loader::file::plugin_files;
use tabletop_sdk::{DynGame, Viewer};

use crate::error::CliError;

/// A record loaded with its plugin, rendering any step on demand.
struct Replayer {
    record: Record,
    game: Arc<dyn DynGame>,
}

impl Replayer {
    fn steps(&self) -> usize {
        self.record.actions.len()
    }

    /// The position after `step` actions, as the spectator sees it (after the
    /// end a view may reveal everything).
    fn render(&self, step: usize) -> Result<String, CliError> {
        let m = Match::replay(
            Arc::clone(&self.game),
            self.record.setup(self.record.match_id.clone()),
            vec![Some([0; 32]); self.record.players as usize],
            &self.record.actions[..step],
        )
        .map_err(|e| CliError::Usage(format!("the record does not replay: {e}")))?;
        let view = m
            .view(Viewer::Spectator)
            .map_err(|e| CliError::Usage(e.to_string()))?;
        let mut out = format!(
            "{} {} — step {step} of {}",
            self.record.game,
            self.record.plugin_version,
            self.steps()
        );
        if step > 0 {
            out.push_str(&format!(
                ": {}",
                describe(&self.record.actions[step - 1].kind)
            ));
        }
        out.push('\n');
        out.push_str(&view.text);
        if !view.text.ends_with('\n') {
            out.push('\n');
        }
        if !view.results.is_empty() {
            for r in &view.results {
                out.push_str(&format!(
                    "seat {}: rank {} score {}{}\n",
                    r.seat,
                    r.rank,
                    r.score,
                    if r.resigned { " (resigned)" } else { "" }
                ));
            }
        }
        Ok(out)
    }
}

fn describe(kind: &LogKind) -> String {
    match kind {
        LogKind::Moves { moves } => moves
            .iter()
            .map(|m| format!("seat {} {}", m.seat, m.notation))
            .collect::<Vec<_>>()
            .join(", "),
        LogKind::Chance { outcome } => format!("chance {outcome}"),
        LogKind::Resign { seat } => format!("seat {seat} resigns"),
        LogKind::ResignOut { seat } => {
            format!("seat {seat} resigns and is out; the others play on")
        }
        LogKind::Timeout { seat } => format!("seat {seat} ran out of time"),
        LogKind::Out { seat } => format!("seat {seat} ran out of time and is out"),
        LogKind::Abort { reason } => format!("the director aborts the match: {reason}"),
        LogKind::Adjudicate { results } => format!(
            "the director adjudicates: {}",
            results
                .iter()
                .map(|r| format!("seat {} rank {}", r.seat, r.rank))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        LogKind::Pause => "the director pauses the match".into(),
        LogKind::Resume => "the director resumes the match".into(),
        LogKind::AddTime { seat, ms } => format!("the director gives seat {seat} {ms} ms more"),
        LogKind::Quarantine { reason } => format!(
            "the server quarantines the match (its plugin failed in one of its calls): {reason}"
        ),
        LogKind::Release { build: None } => "the admin lifts the quarantine".into(),
        LogKind::Release { build: Some(build) } => format!(
            "the admin lifts the quarantine; the match plays on with version {} of its game",
            build.version
        ),
        LogKind::Absent { seats } => format!(
            "seats {} were not taken by the deadline and are out",
            seats
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn default_plugin_dir() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Runs `tabletop replay`.
pub fn run(
    file: &Path,
    plugin_dir: Option<PathBuf>,
    step: Option<usize>,
    all: bool,
) -> Result<(), CliError> {
    let json = std::fs::read_to_string(file)
        .map_err(|e| CliError::Usage(format!("cannot read {}: {e}", file.display())))?;
    let record = Record::parse(&json).map_err(|e| CliError::Usage(e.to_string()))?;
    let plugin_dir = plugin_dir.unwrap_or_else(default_plugin_dir);
    let cache = std::env::temp_dir().join(format!("tabletop-replay-{}", std::process::id()));
    let registry = Registry::new();
    // A file that is not a usable plugin is passed over: the record names the
    // one plugin it needs, and its absence is reported below.
    for file in plugin_files(&plugin_dir).unwrap_or_default() {
        let _ = registry.add_file(&file, &cache);
    }
    let plugin = registry
        .get(&record.game, Some(&record.plugin_version))
        .ok_or_else(|| {
            CliError::Usage(format!(
                "the record needs {} {}, which is not in {} (use --plugin-dir)",
                record.game,
                record.plugin_version,
                plugin_dir.display()
            ))
        })?;
    let replayer = Replayer {
        record,
        game: plugin,
    };
    // Check the whole record once, so a tampered one is refused up front.
    replayer.render(replayer.steps())?;
    let result = if let Some(step) = step {
        if step > replayer.steps() {
            return Err(CliError::Usage(format!(
                "the record has {} steps",
                replayer.steps()
            )));
        }
        out!("{}", replayer.render(step)?);
        Ok(())
    } else if all {
        for step in 0..=replayer.steps() {
            out!("{}\n", replayer.render(step)?);
        }
        Ok(())
    } else {
        interactive(&replayer)
    };
    let _ = std::fs::remove_dir_all(&cache);
    result
}

fn interactive(replayer: &Replayer) -> Result<(), CliError> {
    let mut step = 0;
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    loop {
        out!("{}", replayer.render(step)?);
        out!("[Enter/n] next  [b] back  [NUMBER] jump  [e] end  [q] quit > ");
        let Some(line) = lines.next() else {
            outln!();
            return Ok(());
        };
        let line = line?;
        match line.trim() {
            "" | "n" => step = (step + 1).min(replayer.steps()),
            "b" | "p" => step = step.saturating_sub(1),
            "e" => step = replayer.steps(),
            "q" => return Ok(()),
            other => match other.parse::<usize>() {
                Ok(n) => step = n.min(replayer.steps()),
                Err(_) => outln!("unknown key `{other}`"),
            },
        }
    }
}
