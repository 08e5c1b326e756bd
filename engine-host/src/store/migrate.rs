//! Moving a store from its SQLite file into PostgreSQL, offline
//! (`tabletop store migrate`): every match with its seats, labels, log and
//! held actions, every lifecycle row under its number, every credential
//! (tenants and revocations with it) and request id, in one transaction.
//! Then everything is read back from PostgreSQL as a host reads it and
//! compared with the file, so a migration that answers `Ok` is one a host
//! on the new store serves exactly as the old one did.

use std::path::{Path, PathBuf};

use tabletop_core::{HostError, HostResult};

use super::postgres::import::PostgresImport;
use super::sqlite::export::SqliteExport;

/// How many lifecycle rows are read and written at a time.
const FEED_PAGE: usize = 1_000;

/// What a migration moved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Moved {
    /// The store file read.
    pub from: PathBuf,
    /// The server and database written (`host:port/db`, no password).
    pub to: String,
    /// Matches, finished or not.
    pub matches: u64,
    /// Of them, finished.
    pub finished: u64,
    /// Log entries of every match.
    pub log_entries: u64,
    /// Lifecycle rows.
    pub lifecycle_rows: u64,
    /// The feed's last number: the next row on the new store is numbered
    /// after it.
    pub last_lifecycle_number: u64,
    /// Credentials, revoked ones included.
    pub credentials: u64,
    /// Request ids.
    pub requests: u64,
}

/// Where a store file is given as its data directory: the directory's
/// [`super::sqlite::STORE_FILE`].
pub fn store_file(from: &Path) -> PathBuf {
    if from.is_dir() {
        from.join(super::sqlite::STORE_FILE)
    } else {
        from.to_path_buf()
    }
}

/// The name of the key retried creations' tokens are derived from: its
/// file in a data directory, and its row in a shared store.
pub const REQUEST_KEY: &str = "request-key";

/// The request key a data directory holds (hex, 32 bytes), if it holds one.
pub fn request_key(data_dir: &Path) -> Option<[u8; 32]> {
    let text = std::fs::read_to_string(data_dir.join(REQUEST_KEY)).ok()?;
    let bytes = hex::decode(text.trim()).ok()?;
    <[u8; 32]>::try_from(bytes.as_slice()).ok()
}

fn differs(what: &str) -> HostError {
    HostError::Internal(format!(
        "{what} reads back from PostgreSQL differently from the file; the database holds the \
         migration: drop it before trying again"
    ))
}

/// Moves the store at `from` (a file, or a data directory holding
/// `matches.sqlite3`; no host may have it open) into the empty PostgreSQL
/// database `to` names. The file's schema is brought to this host's
/// version on the way, as a host's start would; nothing else in it
/// changes. Refused, with nothing written: a damaged file, a database that
/// is not empty, a server that cannot be reached.
pub fn sqlite_to_postgres(from: &Path, to: &str) -> HostResult<Moved> {
    let file = store_file(from);
    let source = SqliteExport::open(&file)?;
    let mut target = PostgresImport::open(to)?;
    let mut moved = Moved {
        from: file,
        to: target.server().to_string(),
        ..Moved::default()
    };
    let ids = source.match_ids()?;
    for id in &ids {
        let stored = source.load(id)?;
        target.add_match(&stored)?;
        moved.matches += 1;
        moved.finished += u64::from(stored.state() == tabletop_core::Lifecycle::Finished);
        moved.log_entries += stored.log.len() as u64;
    }
    let requests = source.requests()?;
    for request in &requests {
        target.add_request(request)?;
    }
    moved.requests = requests.len() as u64;
    let credentials = source.credentials()?;
    for credential in &credentials {
        target.add_credential(credential)?;
    }
    moved.credentials = credentials.len() as u64;
    // The key retried creations' tokens come from, when the data directory
    // is given: every host on the database derives them alike.
    let key = from.is_dir().then(|| request_key(from)).flatten();
    if let Some(key) = key {
        target.add_shared_key(REQUEST_KEY, &key)?;
    }
    let mut after = 0;
    loop {
        let rows = source.lifecycle_after(after, FEED_PAGE)?;
        let Some(last) = rows.last() else { break };
        after = last.seq;
        target.add_lifecycle(&rows)?;
        moved.lifecycle_rows += rows.len() as u64;
    }
    moved.last_lifecycle_number = source.last_lifecycle_number()?;

    // Each match is read from the file again to be compared, rather than
    // kept from the copy: memory holds one match at a time.
    let mut stored = target.commit(moved.last_lifecycle_number)?;
    for id in &ids {
        if stored.load(id)?.as_ref() != Some(&source.load(id)?) {
            return Err(differs(&format!("match {id}")));
        }
    }
    for request in &requests {
        if stored.request(&request.request_id)?.as_ref() != Some(request) {
            return Err(differs(&format!("request id {}", request.request_id)));
        }
    }
    // Both stores list credentials by issue time and id, but PostgreSQL
    // may order ids by its collation: compare them in one order.
    let by_id = |mut list: Vec<super::StoredCredential>| {
        list.sort_by(|a, b| a.credential_id.cmp(&b.credential_id));
        list
    };
    if by_id(stored.credentials()?) != by_id(credentials) {
        return Err(differs("the credentials"));
    }
    if stored.shared_key(REQUEST_KEY)? != key.map(|key| key.to_vec()) {
        return Err(differs("the request key"));
    }
    let mut after = 0;
    loop {
        let rows = source.lifecycle_after(after, FEED_PAGE)?;
        if stored.lifecycle_after(after, FEED_PAGE)? != rows {
            return Err(differs(&format!("the lifecycle feed after row {after}")));
        }
        let Some(last) = rows.last() else { break };
        after = last.seq;
    }
    if stored.last_lifecycle_number()? != moved.last_lifecycle_number {
        return Err(differs("the feed's last number"));
    }
    Ok(moved)
}
