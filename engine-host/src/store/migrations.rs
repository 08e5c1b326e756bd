//! The SQLite store's schema, as numbered migrations applied at start.
//!
//! The migrations are SQL files in `engine-host/migrations/sqlite/`, named
//! `V{version}__{name}.sql`, run by [`refinery`], which also runs
//! migrations on PostgreSQL: a store there gets its own directory of files
//! and the same runner. Opening a store applies every migration above the
//! version the file holds, all in one transaction with refinery's record of
//! them (table `refinery_schema_history`: version, name, checksum), so a
//! crash leaves the file at the version it had. A migration is only ever
//! appended; one that shipped never changes (refinery refuses a file whose
//! recorded checksum differs from the file's), so every host that knows
//! version N agrees on what N holds.
//!
//! The file's version is also kept in SQLite's `user_version` header field,
//! which is what the host read before refinery kept the record: a file that
//! has a `user_version` and no record (or a shorter one) has its migrations
//! up to that version recorded as applied without running them, and a file
//! written by a newer host (a `user_version` above what this host knows) is
//! refused without being touched, by this host and by those before it.
//!
//! Version 1 is the first schema; 2 records when seats were taken; 3 adds
//! what listing, reading a finished match back by id, the lifecycle feed
//! and idempotent creation need, and fills it in for the matches already
//! there; 4 indexes match labels; 5 adds join codes, joining players'
//! identities and issued credentials; 6 the bot that took a seat; 7 the
//! content hash of the plugin file a match was created with (NULL for the
//! matches already there, which replay as they did); 8 tenants: each
//! credential's (its own id for those already there) and each match's (the
//! tenant of the credential whose request id created it, the admin's for
//! the rest).
//! Version 1's statements are `IF NOT EXISTS`, so a file written before the
//! schema carried a version (version 0, tables present) takes it without
//! change.

use refinery::{Migration, Runner, SchemaVersion, Target};
use rusqlite::Connection;
use tabletop_core::{HostError, HostResult};

/// Every migration's file name (without `.sql`) and statements, in order.
const SQLITE_MIGRATIONS: [(&str, &str); 9] = [
    (
        "V1__matches_seats_and_log",
        include_str!("../../migrations/sqlite/V1__matches_seats_and_log.sql"),
    ),
    (
        "V2__when_seats_were_taken",
        include_str!("../../migrations/sqlite/V2__when_seats_were_taken.sql"),
    ),
    (
        "V3__listing_lifecycle_and_request_ids",
        include_str!("../../migrations/sqlite/V3__listing_lifecycle_and_request_ids.sql"),
    ),
    (
        "V4__match_labels",
        include_str!("../../migrations/sqlite/V4__match_labels.sql"),
    ),
    (
        "V5__join_codes_identities_and_credentials",
        include_str!("../../migrations/sqlite/V5__join_codes_identities_and_credentials.sql"),
    ),
    (
        "V6__bot_seats",
        include_str!("../../migrations/sqlite/V6__bot_seats.sql"),
    ),
    (
        "V7__plugin_builds",
        include_str!("../../migrations/sqlite/V7__plugin_builds.sql"),
    ),
    (
        "V8__tenants",
        include_str!("../../migrations/sqlite/V8__tenants.sql"),
    ),
    (
        "V9__log_marks",
        include_str!("../../migrations/sqlite/V9__log_marks.sql"),
    ),
];

/// One migration applied to a store (an SQLite file or a PostgreSQL
/// database).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The version the file holds once it is applied (1, 2, …).
    pub version: u32,
    /// Its name, from its file name.
    pub name: String,
}

/// Every migration, parsed by refinery.
fn migrations() -> Vec<Migration> {
    SQLITE_MIGRATIONS
        .iter()
        .map(|(name, sql)| {
            Migration::unapplied(name, sql)
                .unwrap_or_else(|e| panic!("the migration name `{name}` is malformed: {e}"))
        })
        .collect()
}

/// The schema version this host writes: the last migration's.
pub fn latest() -> u32 {
    SQLITE_MIGRATIONS.len() as u32
}

/// The schema version `conn`'s file holds by its `user_version` (0 for a
/// new file).
pub fn version(conn: &Connection) -> HostResult<u32> {
    conn.query_row("PRAGMA user_version", [], |row| row.get::<_, u32>(0))
        .map_err(|e| {
            HostError::Internal(format!("cannot read the match store's schema version: {e}"))
        })
}

/// The last version in refinery's record of `conn`'s file (0 when it has
/// none).
fn recorded_version(conn: &Connection) -> rusqlite::Result<SchemaVersion> {
    let kept: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master \
         WHERE type = 'table' AND name = 'refinery_schema_history')",
        [],
        |row| row.get(0),
    )?;
    if !kept {
        return Ok(0);
    }
    conn.query_row(
        "SELECT COALESCE(MAX(version), 0) FROM refinery_schema_history",
        [],
        |row| row.get(0),
    )
}

/// Brings `conn`'s file to [`latest`] and returns the migrations applied.
/// A file newer than this host is refused unchanged; a file whose
/// `user_version` is ahead of refinery's record has the difference
/// recorded as applied first (see the module docs).
pub fn migrate(conn: &mut Connection) -> HostResult<Vec<Applied>> {
    let found = version(conn)?;
    if found > latest() {
        return Err(HostError::Internal(format!(
            "the match store holds schema version {found}, written by a newer host; \
             this host knows versions up to {}: run a newer engine-host on it",
            latest()
        )));
    }
    let failed = |e: refinery::Error| {
        HostError::Internal(format!(
            "cannot bring the match store to schema version {}: {e}",
            latest()
        ))
    };
    let runner = || Runner::new(&migrations()).set_grouped(true);
    // Versions are at most `latest()`, a handful: they fit refinery's i32.
    let found_in_refinery = found as SchemaVersion;
    let recorded = recorded_version(conn).map_err(|e| {
        HostError::Internal(format!(
            "cannot read the match store's record of migrations: {e}"
        ))
    })?;
    if recorded < found_in_refinery {
        runner()
            .set_target(Target::FakeVersion(found_in_refinery))
            .run(conn)
            .map_err(failed)?;
    }
    let report = runner().run(conn).map_err(failed)?;
    if found < latest() {
        // `PRAGMA user_version` takes no bound parameters; the number is
        // this host's own constant.
        conn.execute_batch(&format!("PRAGMA user_version = {}", latest()))
            .map_err(|e| {
                HostError::Internal(format!(
                    "cannot record the match store's schema version {}: {e}",
                    latest()
                ))
            })?;
    }
    Ok(Applied::all_of(&report))
}

impl Applied {
    /// The migrations refinery's `report` says it applied, in order.
    pub(crate) fn all_of(report: &refinery::Report) -> Vec<Applied> {
        report
            .applied_migrations()
            .iter()
            .map(|m| Applied {
                version: m.version() as u32,
                name: m.name().to_string(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The schema as the host wrote it before refinery kept a record:
    /// each migration's statements with `user_version` set after it.
    fn store_written_with_user_version_only(conn: &Connection, up_to: u32) {
        for (i, (_, sql)) in SQLITE_MIGRATIONS.iter().enumerate().take(up_to as usize) {
            conn.execute_batch(sql).unwrap();
            conn.execute_batch(&format!("PRAGMA user_version = {}", i + 1))
                .unwrap();
        }
    }

    fn recorded_versions(conn: &Connection) -> Vec<u32> {
        let mut statement = conn
            .prepare("SELECT version FROM refinery_schema_history ORDER BY version")
            .unwrap();
        statement
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    fn columns(conn: &Connection, table: &str) -> Vec<String> {
        let mut statement = conn
            .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
            .unwrap();
        statement
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    #[test]
    fn the_migrations_are_numbered_one_by_one_and_every_file_is_listed() {
        for (i, migration) in migrations().iter().enumerate() {
            assert_eq!(migration.version() as usize, i + 1, "{}", migration.name());
        }
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/migrations/sqlite");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort_by_key(|f| f[1..].split("__").next().unwrap().parse::<u32>().unwrap());
        let listed: Vec<String> = SQLITE_MIGRATIONS
            .iter()
            .map(|(name, _)| format!("{name}.sql"))
            .collect();
        assert_eq!(files, listed, "a file in {dir} that the list lacks");
    }

    #[test]
    fn a_new_file_is_brought_to_the_latest_version_and_a_second_start_applies_nothing() {
        let mut conn = Connection::open_in_memory().unwrap();
        assert_eq!(version(&conn).unwrap(), 0);
        let applied = migrate(&mut conn).unwrap();
        assert_eq!(applied.len(), SQLITE_MIGRATIONS.len());
        assert_eq!(applied[0].name, "matches_seats_and_log");
        assert_eq!(version(&conn).unwrap(), latest());
        assert_eq!(recorded_versions(&conn), (1..=latest()).collect::<Vec<_>>());
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
        conn.execute_batch(SQLITE_MIGRATIONS[0].1).unwrap();
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
    fn a_file_at_the_latest_user_version_without_a_record_opens_and_runs_nothing() {
        let mut conn = Connection::open_in_memory().unwrap();
        store_written_with_user_version_only(&conn, latest());
        conn.execute(
            "INSERT INTO matches (match_id, setup_json) VALUES ('m', '{}')",
            [],
        )
        .unwrap();
        // Running any migration again would fail: its columns exist.
        assert!(migrate(&mut conn).unwrap().is_empty());
        assert_eq!(recorded_versions(&conn), (1..=latest()).collect::<Vec<_>>());
        assert_eq!(version(&conn).unwrap(), latest());
        let kept: i64 = conn
            .query_row("SELECT count(*) FROM matches", [], |row| row.get(0))
            .unwrap();
        assert_eq!(kept, 1);
    }

    #[test]
    fn a_file_at_an_older_user_version_without_a_record_gets_only_the_later_migrations() {
        let mut conn = Connection::open_in_memory().unwrap();
        store_written_with_user_version_only(&conn, 3);
        conn.execute(
            "INSERT INTO matches (match_id, setup_json) VALUES ('m', '{\"labels\":{\"round\":\"1\"}}')",
            [],
        )
        .unwrap();
        let applied: Vec<u32> = migrate(&mut conn)
            .unwrap()
            .iter()
            .map(|m| m.version)
            .collect();
        assert_eq!(applied, (4..=latest()).collect::<Vec<_>>());
        assert_eq!(version(&conn).unwrap(), latest());
        assert!(columns(&conn, "seats").contains(&"bot".to_string()));
        let label: String = conn
            .query_row(
                "SELECT value FROM match_labels WHERE match_id = 'm' AND key = 'round'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(label, "1", "migration 4 filled in the labels");
    }

    #[test]
    fn a_changed_migration_is_refused() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        conn.execute_batch("UPDATE refinery_schema_history SET checksum = '1' WHERE version = 2")
            .unwrap();
        let refused = migrate(&mut conn).unwrap_err();
        assert!(
            refused.to_string().contains("cannot bring the match store"),
            "{refused}"
        );
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
