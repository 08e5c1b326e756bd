//! The cache of passing verdicts: one small JSON file per passing content,
//! named by the file's SHA-256, the kit's version and the budget, so a file
//! is checked again only when its content, the kit or the budget changes.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha256};
use tabletop_sdk::conformance::KIT_VERSION;

use super::Report;

/// The verdicts kept in one directory for one budget.
pub(super) struct Verdicts {
    dir: PathBuf,
    budget_ms: u128,
}

/// Held while a content is checked: others checking it wait.
pub(super) struct Lock(#[allow(dead_code)] Option<File>);

impl Verdicts {
    pub(super) fn new(dir: &Path, budget: Duration) -> Verdicts {
        Verdicts {
            dir: dir.to_path_buf(),
            budget_ms: budget.as_millis(),
        }
    }

    /// `SHA256-kKIT-bBUDGET` of `file`'s content.
    pub(super) fn key(&self, file: &Path) -> std::io::Result<String> {
        let mut hasher = Sha256::new();
        let mut reader = File::open(file)?;
        let mut chunk = vec![0u8; 1 << 16];
        loop {
            let n = reader.read(&mut chunk)?;
            if n == 0 {
                break;
            }
            hasher.update(&chunk[..n]);
        }
        Ok(format!(
            "{}-k{KIT_VERSION}-b{}",
            hex::encode(hasher.finalize()),
            self.budget_ms
        ))
    }

    /// Waits for any other check of the same content (in any process) to end.
    pub(super) fn lock(&self, key: &str) -> Lock {
        if std::fs::create_dir_all(&self.dir).is_err() {
            return Lock(None);
        }
        let Ok(file) = File::create(self.dir.join(format!("{key}.lock"))) else {
            return Lock(None);
        };
        // Released when `file` closes, with the returned Lock.
        if file.lock().is_err() {
            return Lock(None);
        }
        Lock(Some(file))
    }

    /// The pass kept for `key`, if any.
    pub(super) fn get(&self, key: &str) -> Option<Report> {
        let text = std::fs::read_to_string(self.dir.join(format!("{key}.json"))).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Keeps the pass `report` for `key` (written whole, then renamed).
    pub(super) fn put(&self, key: &str, report: &Report) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let json = serde_json::to_string(report).map_err(std::io::Error::other)?;
        let partial = self
            .dir
            .join(format!("{key}.{}.partial", std::process::id()));
        std::fs::write(&partial, json)?;
        std::fs::rename(&partial, self.dir.join(format!("{key}.json")))
    }
}
