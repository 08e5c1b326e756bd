//! The PostgreSQL store's schema, as numbered migrations applied at start.
//!
//! The migrations are SQL files in `engine-host/migrations/postgres/`,
//! named `V{version}__{name}.sql` and run by [`refinery`] like the SQLite
//! store's, all in one transaction with refinery's record of them (table
//! `refinery_schema_history`), so a failed start leaves the database at the
//! version it had. A migration that shipped never changes (refinery
//! refuses one whose recorded checksum differs). A database whose record
//! holds a version above what this host knows was written by a newer host
//! and is refused untouched.
//!
//! Hosts starting at once on one database (a later issue runs several)
//! migrate one at a time: each holds a session advisory lock while it
//! checks and migrates.

use refinery::{Migration, Runner};
use tabletop_core::{HostError, HostResult};

use super::connect::{Connection, db_error};
use crate::store::migrations::Applied;

/// Every migration's file name (without `.sql`) and statements, in order.
const POSTGRES_MIGRATIONS: [(&str, &str); 5] = [
    (
        "V1__matches_log_lifecycle_and_credentials",
        include_str!("../../../migrations/postgres/V1__matches_log_lifecycle_and_credentials.sql"),
    ),
    (
        "V2__a_match_s_rows_checked_by_the_writer",
        include_str!("../../../migrations/postgres/V2__a_match_s_rows_checked_by_the_writer.sql"),
    ),
    (
        "V3__keys_every_host_shares",
        include_str!("../../../migrations/postgres/V3__keys_every_host_shares.sql"),
    ),
    (
        "V4__hosts_and_match_leases",
        include_str!("../../../migrations/postgres/V4__hosts_and_match_leases.sql"),
    ),
    (
        "V5__the_call_a_lease_s_holder_died_in",
        include_str!("../../../migrations/postgres/V5__the_call_a_lease_s_holder_died_in.sql"),
    ),
];

/// The advisory lock key hosts hold while migrating: any fixed number no
/// other program on the database uses (the bytes of "tabletop").
const MIGRATION_LOCK: i64 = 0x7461_626c_6574_6f70;

/// The schema version this host writes: the last migration's.
pub fn latest() -> u32 {
    POSTGRES_MIGRATIONS.len() as u32
}

fn migrations() -> HostResult<Vec<Migration>> {
    POSTGRES_MIGRATIONS
        .iter()
        .map(|(name, sql)| {
            Migration::unapplied(name, sql).map_err(|e| {
                HostError::Internal(format!("the migration name `{name}` is malformed: {e}"))
            })
        })
        .collect()
}

/// The highest version in refinery's record of the database (0 for a new
/// one).
pub(super) fn recorded_version(connection: &mut Connection) -> HostResult<u32> {
    let client = &mut connection.client;
    let kept: bool = client
        .query_one(
            "SELECT to_regclass('refinery_schema_history') IS NOT NULL",
            &[],
        )
        .map_err(db_error)?
        .get(0);
    if !kept {
        return Ok(0);
    }
    let version: i32 = client
        .query_one(
            "SELECT COALESCE(MAX(version), 0) FROM refinery_schema_history",
            &[],
        )
        .map_err(db_error)?
        .get(0);
    Ok(u32::try_from(version).unwrap_or(0))
}

/// Brings the database to [`latest`] and returns the migrations applied;
/// one from a newer host is refused unchanged.
pub(super) fn migrate(connection: &mut Connection, server: &str) -> HostResult<Vec<Applied>> {
    connection
        .client
        .execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])
        .map_err(db_error)?;
    let migrated = migrate_locked(connection, server);
    // The lock is the session's: it goes with the connection anyway.
    let _ = connection
        .client
        .execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK]);
    migrated
}

fn migrate_locked(connection: &mut Connection, server: &str) -> HostResult<Vec<Applied>> {
    let found = recorded_version(connection)?;
    if found > latest() {
        return Err(HostError::Internal(format!(
            "the match store at {server} holds schema version {found}, written by a newer \
             host; this host knows versions up to {}: run a newer engine-host on it",
            latest()
        )));
    }
    let report = Runner::new(&migrations()?)
        .set_grouped(true)
        .run(&mut connection.client)
        .map_err(|e| {
            HostError::Internal(format!(
                "cannot bring the match store at {server} to schema version {}: {e}",
                latest()
            ))
        })?;
    Ok(Applied::all_of(&report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_migrations_are_numbered_one_by_one_and_every_file_is_listed() {
        for (i, migration) in migrations().unwrap().iter().enumerate() {
            assert_eq!(migration.version() as usize, i + 1, "{}", migration.name());
        }
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/migrations/postgres");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort_by_key(|f| f[1..].split("__").next().unwrap().parse::<u32>().unwrap());
        let listed: Vec<String> = POSTGRES_MIGRATIONS
            .iter()
            .map(|(name, _)| format!("{name}.sql"))
            .collect();
        assert_eq!(files, listed, "a file in {dir} that the list lacks");
    }
}
