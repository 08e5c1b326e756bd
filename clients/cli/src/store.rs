//! `tabletop store …`: a host's match store file, read on this machine with
//! no server (the host must be stopped: the file is locked while one runs).

use std::path::PathBuf;

use clap::Subcommand;

/// `tabletop store …`.
#[derive(Debug, Subcommand)]
pub enum StoreAction {
    /// Check a match store file (the data directory's `matches.sqlite3`):
    /// SQLite's check of every page, then every match read back as a host
    /// reads it; prints each damaged match with why. With `--salvage-to`,
    /// copies every intact match, the credentials, request ids and feed rows
    /// that read into a new file, for a host to start on. Exit status 0
    /// when the file is whole, 1 when it is damaged, 2 when it cannot be
    /// checked (no such file, a host has it open, the copy failed).
    Check {
        /// The store file.
        file: PathBuf,
        /// Write the intact matches into this new file (it must not exist).
        #[arg(long)]
        salvage_to: Option<PathBuf>,
    },
}

/// Runs `action`; answers the exit status.
pub fn run(action: &StoreAction, json: bool) -> u8 {
    let StoreAction::Check { file, salvage_to } = action;
    let report = match engine_host::store::sqlite::check_file(file, salvage_to.as_deref()) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("tabletop: {e}");
            return 2;
        }
    };
    if json {
        let damaged: Vec<_> = report
            .damaged
            .iter()
            .map(|(id, why)| serde_json::json!({"match_id": id, "reason": why}))
            .collect();
        let lost: Vec<_> = report
            .lost_rows
            .iter()
            .map(|(table, rows)| serde_json::json!({"table": table, "rows": rows}))
            .collect();
        let document = serde_json::json!({
            "file": file.display().to_string(),
            "damaged": report.is_damaged(),
            "problems": report.problems,
            "intact_matches": report.intact,
            "damaged_matches": damaged,
            "lost_rows": lost,
            "salvaged_to": report.salvaged.as_ref().map(|(to, _)| to.display().to_string()),
            "salvaged_rows": report.salvaged.as_ref().map(|(_, rows)| rows),
        });
        println!("{document}");
    } else {
        println!(
            "{}: {} matches intact, {} damaged",
            file.display(),
            report.intact,
            report.damaged.len()
        );
        for problem in &report.problems {
            println!("page damage: {problem}");
        }
        for (table, rows) in &report.lost_rows {
            println!("unreadable: {rows} of table {table}");
        }
        for (id, why) in &report.damaged {
            println!("damaged match {id}: {why}");
        }
        if let Some((to, rows)) = &report.salvaged {
            println!(
                "salvaged {} matches ({rows} rows) into {}: put it in a data directory as \
                 matches.sqlite3 and start a host on it",
                report.intact,
                to.display()
            );
        } else if report.is_damaged() {
            println!("salvage the intact matches with --salvage-to NEW_FILE");
        }
    }
    u8::from(report.is_damaged())
}
