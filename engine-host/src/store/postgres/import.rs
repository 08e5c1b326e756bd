//! Filling an empty PostgreSQL store with what another store holds, for
//! `tabletop store migrate`: every match with its seats, labels and log,
//! every lifecycle row under the number it had (a platform's feed cursor
//! means on the new store what it meant on the old), every credential and
//! request id. All of it goes in one transaction, so a migration that fails
//! leaves the database as empty as it found it; the tables are locked
//! meanwhile, so no host writes beside it.
//!
//! Runs on the caller's thread: only offline tools use it, on threads with
//! no async runtime (see `connect.rs`).

use tabletop_core::{HostError, HostResult};

use super::apply::{insert_credential, insert_match, insert_request, to_json};
use super::connect::{Connection, Prepared, Target, db_error};
use super::step::Step;
use super::{read, schema};
use crate::store::{LifecycleRow, StoredCredential, StoredMatch, StoredRequest};

/// An open transaction on an empty PostgreSQL store, filled row by row and
/// committed whole by [`PostgresImport::commit`]; dropped before then, it
/// stores nothing.
pub struct PostgresImport {
    target: Target,
    connection: Connection,
}

impl std::fmt::Debug for PostgresImport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresImport")
            .field("server", &self.target.name)
            .finish_non_exhaustive()
    }
}

impl PostgresImport {
    /// Connects to the database `url` names, brings its schema to this
    /// host's version, and begins the transaction. Refused when the
    /// database already holds a match, a credential or a lifecycle number:
    /// a migration goes into a new database, never over another store.
    pub fn open(url: &str) -> HostResult<PostgresImport> {
        let target = Target::parse(url)?;
        let mut connection = target.connect()?;
        schema::migrate(&mut connection, &target.name)?;
        connection
            .client
            .batch_execute(
                "BEGIN; LOCK TABLE matches, seats, match_labels, log, lifecycle, \
                 lifecycle_counter, requests, credentials, shared_keys IN EXCLUSIVE MODE",
            )
            .map_err(db_error)?;
        let held = connection
            .client
            .query_one(
                "SELECT (SELECT COUNT(*) FROM matches), (SELECT COUNT(*) FROM credentials), \
                 (SELECT last_seq FROM lifecycle_counter), (SELECT COUNT(*) FROM shared_keys)",
                &[],
            )
            .map_err(db_error)?;
        let (matches, credentials, last_seq, keys): (i64, i64, i64, i64) =
            (held.get(0), held.get(1), held.get(2), held.get(3));
        if matches + credentials + last_seq + keys > 0 {
            // A host that started on it stored its keys: another store's
            // request ids would answer other tokens there.
            let started = if keys > 0 {
                ", a host has served it"
            } else {
                ""
            };
            return Err(HostError::InvalidRequest(format!(
                "the database {} is not empty ({matches} matches, {credentials} credentials, \
                 {last_seq} lifecycle rows{started}): migrate into a new database",
                target.name
            )));
        }
        Ok(PostgresImport { target, connection })
    }

    /// The server and database, as messages name them (`host:port/db`).
    pub fn server(&self) -> &str {
        &self.target.name
    }

    fn db(&mut self) -> Prepared<'_, postgres::Client> {
        Prepared {
            client: &mut self.connection.client,
            statements: &mut self.connection.statements,
        }
    }

    /// Runs `steps` one by one.
    fn run(&mut self, steps: &[Step]) -> HostResult<()> {
        let mut db = self.db();
        for step in steps {
            db.run(step)?;
        }
        Ok(())
    }

    /// Adds a match: its row, seats, labels and whole log.
    pub fn add_match(&mut self, stored: &StoredMatch) -> HostResult<()> {
        let mut steps = Vec::new();
        insert_match(&mut steps, stored, None)?;
        self.run(&steps)
    }

    /// Adds a request id and its answer (its match must be added).
    pub fn add_request(&mut self, request: &StoredRequest) -> HostResult<()> {
        let mut steps = Vec::new();
        insert_request(&mut steps, request);
        self.run(&steps)
    }

    /// Adds a credential.
    pub fn add_credential(&mut self, credential: &StoredCredential) -> HostResult<()> {
        let mut steps = Vec::new();
        insert_credential(&mut steps, credential);
        self.run(&steps)
    }

    /// Adds a key every host on the store shares ([`crate::store::Store::shared_key`]).
    pub fn add_shared_key(&mut self, name: &str, value: &[u8; 32]) -> HostResult<()> {
        self.db().execute(
            "INSERT INTO shared_keys (name, value) VALUES ($1, $2)",
            &[&name, &value.as_slice()],
        )?;
        Ok(())
    }

    /// Adds lifecycle rows under their own numbers (their matches must be
    /// added).
    pub fn add_lifecycle(&mut self, rows: &[LifecycleRow]) -> HostResult<()> {
        let seqs: Vec<i64> = rows.iter().map(|r| r.seq as i64).collect();
        let match_ids: Vec<&str> = rows.iter().map(|r| r.event.match_id.as_str()).collect();
        let events = rows
            .iter()
            .map(|r| to_json(&r.event))
            .collect::<HostResult<Vec<String>>>()?;
        self.db().execute(
            "INSERT INTO lifecycle (seq, match_id, event_json) \
             SELECT * FROM unnest($1::BIGINT[], $2::TEXT[], $3::TEXT[])",
            &[&seqs, &match_ids, &events],
        )?;
        Ok(())
    }

    /// Commits everything added, the feed's next row to be numbered after
    /// `last_lifecycle_number`; answers a connection to read it back with.
    pub fn commit(mut self, last_lifecycle_number: u64) -> HostResult<ImportedStore> {
        let last = i64::try_from(last_lifecycle_number)
            .map_err(|_| HostError::InvalidRequest("the feed's last number is too large".into()))?;
        self.db().execute(
            "UPDATE lifecycle_counter SET last_seq = GREATEST($1::BIGINT, \
             (SELECT COALESCE(MAX(seq), 0) FROM lifecycle))",
            &[&last],
        )?;
        self.connection
            .client
            .batch_execute("COMMIT")
            .map_err(db_error)?;
        Ok(ImportedStore {
            connection: self.connection,
        })
    }
}

/// A committed import, read back as a host reads it.
pub struct ImportedStore {
    connection: Connection,
}

impl std::fmt::Debug for ImportedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImportedStore").finish_non_exhaustive()
    }
}

impl ImportedStore {
    /// One match, as a host on the store reads it.
    pub fn load(&mut self, match_id: &str) -> HostResult<Option<StoredMatch>> {
        read::load(&mut self.connection, match_id)
    }

    /// Up to `limit` lifecycle rows after `after_seq`.
    pub fn lifecycle_after(
        &mut self,
        after_seq: u64,
        limit: usize,
    ) -> HostResult<Vec<LifecycleRow>> {
        read::lifecycle_after(&mut self.connection, after_seq, limit)
    }

    /// The feed's last number.
    pub fn last_lifecycle_number(&mut self) -> HostResult<u64> {
        read::last_lifecycle_row(&mut self.connection)
    }

    /// Every credential.
    pub fn credentials(&mut self) -> HostResult<Vec<StoredCredential>> {
        read::credentials(&mut self.connection)
    }

    /// The request stored under `request_id`.
    pub fn request(&mut self, request_id: &str) -> HostResult<Option<StoredRequest>> {
        read::request(&mut self.connection, request_id)
    }

    /// The shared key stored under `name`, if one is.
    pub fn shared_key(&mut self, name: &str) -> HostResult<Option<Vec<u8>>> {
        let row = self
            .connection
            .client
            .query_opt("SELECT value FROM shared_keys WHERE name = $1", &[&name])
            .map_err(db_error)?;
        Ok(row.map(|row| row.get(0)))
    }
}
