//! `tabletop store …`: a host's match store file, read on this machine with
//! no server (the host must be stopped: the file is locked while one runs),
//! checked or moved into PostgreSQL.

use std::path::{Path, PathBuf};

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
    /// Move a match store file into an empty PostgreSQL database: every
    /// match, credential (with its tenant and revocation), request id and
    /// lifecycle row under its number, so a platform's feed cursor goes on
    /// where it was. Everything is read back from the database and compared
    /// before this answers. Start the host with `--store URL` afterwards.
    /// Exit status 0 when moved, 2 when refused (no such file, a host has it
    /// open, it is damaged, the database is not empty or cannot be reached);
    /// a refusal writes nothing.
    Migrate {
        /// The store file, or the data directory holding `matches.sqlite3`
        /// (its `request-key`, from which retried creations' tokens are
        /// derived, moves too).
        #[arg(long)]
        from: PathBuf,
        /// The PostgreSQL database: `postgres://user:password@host:port/db`.
        #[arg(long)]
        to: String,
    },
}

/// Runs `action`; answers the exit status.
pub fn run(action: &StoreAction, json: bool) -> u8 {
    match action {
        StoreAction::Check { file, salvage_to } => check(file, salvage_to.as_deref(), json),
        StoreAction::Migrate { from, to } => migrate(from, to, json),
    }
}

fn migrate(from: &Path, to: &str, json: bool) -> u8 {
    if !engine_host::store::postgres::is_postgres_url(to) {
        eprintln!("tabletop: --to takes a postgres:// URL, not {to:?}");
        return 2;
    }
    let moved = match engine_host::store::migrate::sqlite_to_postgres(from, to) {
        Ok(moved) => moved,
        Err(e) => {
            eprintln!("tabletop: {e}");
            return 2;
        }
    };
    if json {
        let document = serde_json::json!({
            "from": moved.from.display().to_string(),
            "to": moved.to,
            "matches": moved.matches,
            "finished_matches": moved.finished,
            "log_entries": moved.log_entries,
            "lifecycle_rows": moved.lifecycle_rows,
            "last_lifecycle_seq": moved.last_lifecycle_number,
            "credentials": moved.credentials,
            "request_ids": moved.requests,
        });
        println!("{document}");
    } else {
        println!(
            "moved {} matches ({} finished, {} log entries), {} credentials, {} request ids and \
             {} lifecycle rows (the feed goes on after {}) from {} into {}; each reads back \
             the same",
            moved.matches,
            moved.finished,
            moved.log_entries,
            moved.credentials,
            moved.requests,
            moved.lifecycle_rows,
            moved.last_lifecycle_number,
            moved.from.display(),
            moved.to
        );
        println!("start the host with: engine-host --store '<the same URL>'");
    }
    0
}

fn check(file: &Path, salvage_to: Option<&Path>, json: bool) -> u8 {
    let report = match engine_host::store::sqlite::check_file(file, salvage_to) {
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
