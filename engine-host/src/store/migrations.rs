//! The SQLite store's schema, as numbered migrations applied at start.
//!
//! The file records the version of the schema it holds in SQLite's
//! `user_version` header field. Opening a store applies, in order and each
//! in its own transaction, every migration above that version, and refuses
//! a file written by a newer host (a higher version than this host knows)
//! without touching it. A migration is only ever appended; one that shipped
//! never changes, so every host that knows version N agrees on what N holds.
//!
//! Version 1 is the first schema; 2 records when seats were taken; 3 adds
//! what listing, reading a finished match back by id, the lifecycle feed
//! and idempotent creation need, and fills it in for the matches already
//! there; 4 indexes match labels.
//!
//! Version 1 is the first schema. Its statements are `IF NOT EXISTS`, so a
//! file written before the schema carried a version (version 0, tables
//! present) takes it without change.

use rusqlite::Connection;
use tabletop_core::{HostError, HostResult};

/// One step of the schema.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    /// The version the file holds once this step is applied (1, 2, …).
    pub version: u32,
    /// What the step does, for the log.
    pub name: &'static str,
    /// The statements, run in one transaction.
    pub sql: &'static str,
}

/// Every migration, in order: `MIGRATIONS[i].version == i + 1`.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "matches, their seats and their log",
        sql: "
CREATE TABLE IF NOT EXISTS matches (
    match_id     TEXT PRIMARY KEY,
    setup_json   TEXT NOT NULL,
    pending_json TEXT NOT NULL DEFAULT '[]',
    results_json TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE IF NOT EXISTS seats (
    match_id   TEXT NOT NULL REFERENCES matches(match_id),
    seat       INTEGER NOT NULL,
    token_hash BLOB,
    PRIMARY KEY (match_id, seat)
);
CREATE TABLE IF NOT EXISTS log (
    seq        INTEGER PRIMARY KEY,
    match_id   TEXT NOT NULL REFERENCES matches(match_id),
    version    INTEGER NOT NULL,
    entry_json TEXT NOT NULL
);
",
    },
    Migration {
        version: 2,
        name: "when and in which order seats were taken after creation",
        sql: "
ALTER TABLE seats ADD COLUMN joined_at_ms INTEGER;
ALTER TABLE seats ADD COLUMN join_order INTEGER;
",
    },
    Migration {
        version: 3,
        name: "listing columns, finished logs kept apart, lifecycle rows, request ids",
        sql: "
ALTER TABLE matches ADD COLUMN game TEXT;
ALTER TABLE matches ADD COLUMN state TEXT;
ALTER TABLE matches ADD COLUMN created_at_ms INTEGER;
ALTER TABLE matches ADD COLUMN first_log_seq INTEGER;
ALTER TABLE matches ADD COLUMN final_version INTEGER;
ALTER TABLE matches ADD COLUMN log_json TEXT;
CREATE INDEX migration_3_log_by_match ON log(match_id);
UPDATE matches SET
    game = json_extract(setup_json, '$.game'),
    created_at_ms = json_extract(setup_json, '$.created_at_ms'),
    state = CASE
        WHEN results_json != '[]' THEN 'finished'
        WHEN EXISTS (SELECT 1 FROM seats s
                     WHERE s.match_id = matches.match_id AND s.token_hash IS NULL)
            THEN 'waiting'
        ELSE 'running'
    END,
    first_log_seq = COALESCE(
        (SELECT MIN(rowid) FROM log WHERE log.match_id = matches.match_id),
        (SELECT COALESCE(MAX(rowid), 0) + 1 FROM log));
UPDATE matches SET
    final_version = (SELECT COUNT(*) FROM log WHERE log.match_id = matches.match_id),
    log_json = (SELECT json_group_array(json(entry_json)) FROM
                   (SELECT entry_json FROM log WHERE log.match_id = matches.match_id
                    ORDER BY rowid))
    WHERE state = 'finished';
DROP INDEX migration_3_log_by_match;
CREATE INDEX matches_by_creation ON matches(created_at_ms, match_id);
CREATE INDEX matches_by_state ON matches(state);
CREATE TABLE lifecycle (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id   TEXT NOT NULL REFERENCES matches(match_id),
    event_json TEXT NOT NULL
);
CREATE TABLE requests (
    request_id   TEXT PRIMARY KEY,
    request_hash BLOB NOT NULL,
    match_id     TEXT NOT NULL REFERENCES matches(match_id),
    response     BLOB NOT NULL
);
",
    },
    Migration {
        version: 4,
        name: "match labels, for listing by label",
        sql: "
CREATE TABLE match_labels (
    match_id TEXT NOT NULL REFERENCES matches(match_id),
    key      TEXT NOT NULL,
    value    TEXT NOT NULL,
    PRIMARY KEY (match_id, key)
);
CREATE INDEX match_labels_by_label ON match_labels(key, value);
INSERT INTO match_labels (match_id, key, value)
    SELECT m.match_id, l.key, l.value
    FROM matches m, json_each(m.setup_json, '$.labels') l;
",
    },
    Migration {
        version: 5,
        name: "join codes, joining players' identities, and issued credentials",
        sql: "
ALTER TABLE seats ADD COLUMN join_code_hash BLOB;
ALTER TABLE seats ADD COLUMN display_name TEXT;
ALTER TABLE seats ADD COLUMN external_id TEXT;
CREATE TABLE credentials (
    credential_id TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    role          TEXT NOT NULL,
    secret_hash   BLOB NOT NULL UNIQUE,
    issued_at_ms  INTEGER NOT NULL,
    revoked_at_ms INTEGER
);
",
    },
    Migration {
        version: 6,
        name: "the bot that took a seat by joining",
        sql: "
ALTER TABLE seats ADD COLUMN bot TEXT;
",
    },
];

/// The schema version this host writes: the last migration's.
pub fn latest() -> u32 {
    MIGRATIONS.last().map_or(0, |m| m.version)
}

/// The schema version `conn`'s file holds (0 for a new file).
pub fn version(conn: &Connection) -> HostResult<u32> {
    conn.query_row("PRAGMA user_version", [], |row| row.get::<_, u32>(0))
        .map_err(|e| {
            HostError::Internal(format!("cannot read the match store's schema version: {e}"))
        })
}

/// Brings `conn`'s file to [`latest`]: applies every migration above its
/// version, each with the version bump in the same transaction, so a crash
/// leaves the file at one version or the next. Returns the migrations
/// applied. A file newer than this host is refused unchanged.
pub fn migrate(conn: &mut Connection) -> HostResult<Vec<Migration>> {
    let found = version(conn)?;
    if found > latest() {
        return Err(HostError::Internal(format!(
            "the match store holds schema version {found}, written by a newer host; \
             this host knows versions up to {}: run a newer engine-host on it",
            latest()
        )));
    }
    let mut applied = Vec::new();
    for migration in MIGRATIONS.iter().filter(|m| m.version > found) {
        let failed = |e: rusqlite::Error| {
            HostError::Internal(format!(
                "cannot bring the match store to schema version {} ({}): {e}",
                migration.version, migration.name
            ))
        };
        let transaction = conn.transaction().map_err(failed)?;
        transaction.execute_batch(migration.sql).map_err(failed)?;
        // `PRAGMA user_version` takes no bound parameters; the number is
        // this host's own constant.
        transaction
            .execute_batch(&format!("PRAGMA user_version = {}", migration.version))
            .map_err(failed)?;
        transaction.commit().map_err(failed)?;
        applied.push(*migration);
    }
    Ok(applied)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_migrations_are_numbered_one_by_one() {
        for (i, migration) in MIGRATIONS.iter().enumerate() {
            assert_eq!(migration.version as usize, i + 1, "{}", migration.name);
        }
    }

    #[test]
    fn a_new_file_is_brought_to_the_latest_version_and_a_second_start_applies_nothing() {
        let mut conn = Connection::open_in_memory().unwrap();
        assert_eq!(version(&conn).unwrap(), 0);
        let applied = migrate(&mut conn).unwrap();
        assert_eq!(applied.len(), MIGRATIONS.len());
        assert_eq!(version(&conn).unwrap(), latest());
        assert!(migrate(&mut conn).unwrap().is_empty());
        let tables: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' \
                 AND name IN ('matches', 'seats', 'log')",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(tables, 3);
    }

    #[test]
    fn a_file_from_before_versions_keeps_its_rows() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(MIGRATIONS[0].sql).unwrap();
        conn.execute(
            "INSERT INTO matches (match_id, setup_json) VALUES ('m', '{}')",
            [],
        )
        .unwrap();
        assert_eq!(version(&conn).unwrap(), 0);
        migrate(&mut conn).unwrap();
        assert_eq!(version(&conn).unwrap(), latest());
        let kept: String = conn
            .query_row("SELECT match_id FROM matches", [], |row| row.get(0))
            .unwrap();
        assert_eq!(kept, "m");
    }

    #[test]
    fn a_file_from_a_newer_host_is_refused_unchanged() {
        let mut conn = Connection::open_in_memory().unwrap();
        let newer = latest() + 1;
        conn.execute_batch(&format!("PRAGMA user_version = {newer}"))
            .unwrap();
        let refused = migrate(&mut conn).unwrap_err();
        assert!(
            refused
                .to_string()
                .contains(&format!("schema version {newer}")),
            "{refused}"
        );
        assert_eq!(version(&conn).unwrap(), newer);
        let tables: i64 = conn
            .query_row("SELECT count(*) FROM sqlite_master", [], |row| row.get(0))
            .unwrap();
        assert_eq!(tables, 0, "nothing was created");
    }
}
