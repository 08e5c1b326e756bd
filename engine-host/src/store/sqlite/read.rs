//! The SQLite store's reads, run on the writer's connection between
//! batches (it holds the file locked, see the store's documentation).
//!
//! The file runs past 800 lines because each read sits beside the way it
//! reads around damage (a damaged page, index or row): the two change
//! together, and a reader checks one against the other.
//!
//! Where a match's log is read from: a finished match's whole log is kept
//! in its row (`log_json`), so reading it back by id is one row; a running
//! match's entries are rows of `log`, written in the order they happened
//! and searched from the first row written after the match was created
//! (`first_log_seq`), since `log` has no index by match (see `mod.rs`).

use std::collections::HashMap;

use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Row, params};
use tabletop_core::{HeldAction, HostError, HostResult, LogEntry, SeatJoin};

use super::write::state_name;
use super::{db_error, marks, scan};
use crate::store::{
    DamagedMatch, LifecycleRow, ListedState, MatchQuery, StoredCredential, StoredMatch,
    StoredRequest, StoredSummary, damaged_setup,
};
use tabletop_core::quote::quote;

/// A `matches` row, before its seats and log are read. Every column is
/// read as it is, whatever a damaged file put there: what does not read
/// back makes that one match unavailable, not the whole store.
struct MatchRow {
    match_id: String,
    setup: Option<String>,
    pending: Option<String>,
    results: Option<String>,
    first_log_seq: i64,
    log_json: Option<String>,
    game: Option<String>,
    created_at_ms: Option<i64>,
}

const MATCH_COLUMNS: &str = "CAST(match_id AS TEXT), CAST(setup_json AS TEXT), \
     CAST(pending_json AS TEXT), CAST(results_json AS TEXT), CAST(first_log_seq AS INTEGER), \
     CAST(log_json AS TEXT), CAST(game AS TEXT), CAST(created_at_ms AS INTEGER)";

fn match_row(row: &Row<'_>) -> rusqlite::Result<MatchRow> {
    match_row_from(row, 0)
}

/// [`match_row`] of a row whose [`MATCH_COLUMNS`] start at column `first`.
fn match_row_from(row: &Row<'_>, first: usize) -> rusqlite::Result<MatchRow> {
    Ok(MatchRow {
        match_id: row.get::<_, Option<String>>(first)?.unwrap_or_default(),
        setup: row.get(first + 1)?,
        pending: row.get(first + 2)?,
        results: row.get(first + 3)?,
        first_log_seq: row.get::<_, Option<i64>>(first + 4)?.unwrap_or(0),
        log_json: row.get(first + 5)?,
        game: row.get(first + 6)?,
        created_at_ms: row.get(first + 7)?,
    })
}

impl MatchRow {
    /// What a listing and the log say of it when the rest does not read.
    fn damaged(&self, reason: String) -> DamagedMatch {
        DamagedMatch {
            match_id: self.match_id.clone(),
            game: self.game.clone().unwrap_or_default(),
            created_at_ms: self.created_at_ms.unwrap_or(0),
            reason,
        }
    }
}

/// The error for a part of a stored match that does not read back: that
/// match is unavailable, with the reason (the parser's words, quoted
/// briefly: they may hold a whole field of the damaged data).
fn unreadable(match_id: &str, what: &str, e: impl std::fmt::Display) -> HostError {
    HostError::MatchUnavailable {
        match_id: match_id.to_string(),
        reason: format!(
            "its stored {what} does not read back ({}); the match store is damaged",
            quote(&e.to_string())
        ),
    }
}

/// One match by id.
pub(super) fn load(conn: &Connection, match_id: &str) -> HostResult<Option<StoredMatch>> {
    let Some(row) = match_by_id(conn, match_id)? else {
        return Ok(None);
    };
    let mut scan = LogScan::default();
    if row.log_json.is_none() {
        scan = log_rows(conn, row.first_log_seq, Some(match_id))?;
        if let Some(reason) = scan.lost_tail(conn, match_id, row.first_log_seq) {
            return Err(HostError::MatchUnavailable {
                match_id: match_id.to_string(),
                reason,
            });
        }
    }
    assemble(conn, row, &mut scan).map(Some)
}

/// The `matches` row of `match_id`. The lookup goes through the table's
/// index of ids; when that index is damaged, the table is searched
/// without it.
fn match_by_id(conn: &Connection, match_id: &str) -> HostResult<Option<MatchRow>> {
    let by_index = conn
        .prepare_cached(&format!(
            "SELECT {MATCH_COLUMNS} FROM matches WHERE match_id = ?1"
        ))
        .and_then(|mut s| s.query_row(params![match_id], match_row).optional());
    match by_index {
        Ok(Some(row)) => return Ok(Some(row)),
        Ok(None) if !damage_seen() => return Ok(None),
        Ok(None) => {}
        Err(e) if scan::is_corruption(&e) => note_damage(conn, "the index of match ids", &e),
        Err(e) => return Err(db_error(e)),
    }
    let mut found = None;
    scan::scan(
        conn,
        &format!(
            "SELECT rowid, {MATCH_COLUMNS} FROM matches NOT INDEXED \
             WHERE rowid >= ?1 AND match_id = ?2 ORDER BY rowid"
        ),
        0,
        &[&match_id],
        |_, r, _| {
            found = match_row_from(r, 1).ok();
            false
        },
    )
    .map_err(db_error)?;
    Ok(found)
}

/// Every match id the `matches` table holds, with whether it is finished,
/// and the rows of the table that could not be read.
pub(super) type MatchIds = (Vec<(String, bool)>, Vec<scan::Gap>);

/// Every match id the `matches` table holds, with whether it is
/// finished, read past damaged pages; and the rows it could not read.
pub(super) fn match_ids(conn: &Connection) -> rusqlite::Result<MatchIds> {
    let mut ids = Vec::new();
    let gaps = scan::scan(
        conn,
        "SELECT rowid, CAST(match_id AS TEXT), CAST(state AS TEXT) FROM matches NOT INDEXED \
         WHERE rowid >= ?1 ORDER BY rowid",
        0,
        &[],
        |_, row, _| {
            if let Ok(Some(id)) = row.get::<_, Option<String>>(1) {
                let state = row.get::<_, Option<String>>(2).ok().flatten();
                ids.push((id, state.as_deref() == Some("finished")));
            }
            true
        },
    )?;
    Ok((ids, gaps))
}

/// Every match not finished, with one pass over the log rows they need;
/// a match whose data does not read back is answered as damaged.
pub(super) fn load_unfinished(
    conn: &Connection,
) -> HostResult<Vec<Result<StoredMatch, DamagedMatch>>> {
    let rows = unfinished_rows(conn)?;
    let from = rows
        .iter()
        .map(|r| r.first_log_seq)
        .min()
        .unwrap_or(i64::MAX);
    let mut scan = if rows.is_empty() {
        LogScan::default()
    } else {
        log_rows(conn, from, None)?
    };
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        if let Some(reason) = scan.lost_tail(conn, &row.match_id, row.first_log_seq) {
            out.push(Err(row.damaged(reason)));
            continue;
        }
        let damaged = |reason| row.damaged(reason);
        let placeholder = damaged(String::new());
        match assemble(conn, row, &mut scan) {
            Ok(stored) => out.push(Ok(stored)),
            Err(HostError::MatchUnavailable { reason, .. }) => out.push(Err(DamagedMatch {
                reason,
                ..placeholder
            })),
            Err(other) => return Err(other),
        }
    }
    Ok(out)
}

/// The `matches` rows of every match not finished, oldest first: through
/// the index of states, or, when it is damaged, by a scan of the table
/// that steps over damaged pages of it.
fn unfinished_rows(conn: &Connection) -> HostResult<Vec<MatchRow>> {
    let by_index = conn
        .prepare(&format!(
            "SELECT {MATCH_COLUMNS} FROM matches \
             WHERE state IN ('waiting', 'running', 'quarantined') \
             ORDER BY created_at_ms, match_id"
        ))
        .and_then(|mut s| {
            s.query_map([], match_row)?
                .collect::<rusqlite::Result<Vec<_>>>()
        });
    match by_index {
        Ok(rows) => return Ok(rows),
        Err(e) if scan::is_corruption(&e) => {
            note_damage(conn, "the index of match states", &e);
        }
        Err(e) => return Err(db_error(e)),
    }
    let mut rows = Vec::new();
    let gaps = scan::scan(
        conn,
        &format!(
            "SELECT rowid, {MATCH_COLUMNS}, CAST(state AS TEXT) FROM matches NOT INDEXED \
             WHERE rowid >= ?1 ORDER BY rowid"
        ),
        0,
        &[],
        |_, r, _| {
            let unfinished = matches!(
                r.get::<_, Option<String>>(9).ok().flatten().as_deref(),
                Some("waiting" | "running" | "quarantined")
            );
            if unfinished && let Ok(row) = match_row_from(r, 1) {
                rows.push(row);
            }
            true
        },
    )
    .map_err(db_error)?;
    for gap in gaps {
        tracing::error!(
            store = %store_path(conn),
            "the match store is damaged: {} of its matches table do not read ({}); \
             the matches in them are not loaded",
            gap.rows(),
            gap.error
        );
    }
    rows.sort_by(|a, b| (a.created_at_ms, &a.match_id).cmp(&(b.created_at_ms, &b.match_id)));
    Ok(rows)
}

/// What a pass over the log read: each match's entries, the matches whose
/// entries do not read back (with the reason), where each match's last
/// entry was, and the damaged parts of the table it stepped over.
#[derive(Debug, Default)]
struct LogScan {
    logs: HashMap<String, Vec<LogEntry>>,
    damaged: HashMap<String, String>,
    /// Each match's last row read: its rowid and version.
    last_row: HashMap<String, (i64, i64)>,
    gaps: Vec<scan::Gap>,
    /// When there are gaps: the marks of the stretches they lie in, and
    /// the log's last row (if it reads), which ends a gap open to the end.
    marks: marks::Marks,
    end: Option<i64>,
    /// Once a page of the seats table is found damaged: every seat row that
    /// reads, by match, and whether any row did not (read once for all).
    seats: Option<SeatsAroundDamage>,
}

/// Every seat row that reads, by match, and the rows that did not.
type SeatsAroundDamage = (HashMap<String, Vec<SeatRow>>, Vec<scan::Gap>);

impl LogScan {
    /// The seat rows of match `id` (of `players` seats) from a scan of the
    /// seats table that steps over its damaged pages: answered when the
    /// match has a row for every seat, or when nothing was stepped over.
    fn seats_read_around_damage(
        &mut self,
        conn: &Connection,
        id: &str,
        players: usize,
    ) -> HostResult<Vec<SeatRow>> {
        if self.seats.is_none() {
            let mut by_match: HashMap<String, Vec<SeatRow>> = HashMap::new();
            let gaps = scan::scan(
                conn,
                &format!(
                    "SELECT rowid, CAST(match_id AS TEXT), {SEAT_COLUMNS} \
                     FROM seats NOT INDEXED WHERE rowid >= ?1 ORDER BY rowid"
                ),
                0,
                &[],
                |_, row, _| {
                    let read = (|| -> rusqlite::Result<(String, SeatRow)> {
                        Ok((
                            row.get::<_, Option<String>>(1)?.unwrap_or_default(),
                            seat_row_from(row, 2)?,
                        ))
                    })();
                    if let Ok((match_id, seat)) = read {
                        by_match.entry(match_id).or_default().push(seat);
                    }
                    true
                },
            )
            .map_err(|e| unreadable(id, "seats", e))?;
            for gap in &gaps {
                tracing::error!(
                    store = %store_path(conn),
                    "the match store is damaged: {} of its seats do not read ({}); a match \
                     missing a seat's row is unavailable",
                    gap.rows(),
                    gap.error
                );
            }
            self.seats = Some((by_match, gaps));
        }
        let (by_match, gaps) = self.seats.as_ref().expect("read above");
        let mut rows = by_match.get(id).cloned().unwrap_or_default();
        rows.sort_by_key(|row| row.0);
        if rows.len() < players
            && let Some(gap) = gaps.first()
        {
            return Err(HostError::MatchUnavailable {
                match_id: id.to_string(),
                reason: format!(
                    "its seats may lie in {} of the seats in {}, a damaged part of the file \
                     ({}); the match store is damaged",
                    gap.rows(),
                    store_name(conn),
                    gap.error
                ),
            });
        }
        Ok(rows)
    }

    /// Why the log of `match_id` (its rows from `first_log_seq` on) cannot
    /// be told whole: a damaged part of the table lies after its last row
    /// read, and the log's marks do not show that the match wrote nothing
    /// there.
    fn lost_tail(&self, conn: &Connection, match_id: &str, first_log_seq: i64) -> Option<String> {
        let after = self
            .last_row
            .get(match_id)
            .map_or(first_log_seq, |(rowid, _)| rowid + 1);
        let gap = self.gaps.iter().find(|g| {
            let first = g.first.max(after);
            let last = if g.last == i64::MAX {
                match self.end {
                    Some(end) => end,
                    None => return true,
                }
            } else {
                g.last
            };
            first <= last && !self.marks.clears(match_id, first, last)
        })?;
        Some(gap_reason(conn, gap))
    }
}

/// How many seats a match created as `setup` has.
fn setup_players(setup: &tabletop_core::MatchSetup) -> usize {
    setup.players as usize
}

/// Why a match whose log may lie in `gap` is unavailable.
fn gap_reason(conn: &Connection, gap: &scan::Gap) -> String {
    format!(
        "its log may continue in {} of the log in {}, a damaged part of the file ({}); \
         the match store is damaged",
        gap.rows(),
        store_name(conn),
        gap.error
    )
}

/// The log rows from `from` on (of `only` one match, or of every match),
/// by match, in the order written, stepping over damaged pages: a match
/// whose entry does not read back, or whose versions jump across a damaged
/// part, is set apart with the reason.
fn log_rows(conn: &Connection, from: i64, only: Option<&str>) -> HostResult<LogScan> {
    let mut out = LogScan::default();
    let (select, extra): (&str, &[&dyn rusqlite::ToSql]) = match &only {
        Some(id) => (
            "SELECT rowid, match_id, version, entry_json FROM log \
             WHERE rowid >= ?1 AND match_id = ?2 ORDER BY rowid",
            &[id as &dyn rusqlite::ToSql][..],
        ),
        None => (
            "SELECT rowid, match_id, version, entry_json FROM log \
             WHERE rowid >= ?1 ORDER BY rowid",
            &[],
        ),
    };
    let gaps = scan::scan(conn, select, from, extra, |seq, row, gaps_so_far| {
        // Borrowed from the row: no String per column of every entry.
        let Ok(match_id) = row.get_ref(1).and_then(|v| Ok(v.as_str()?)) else {
            // A row naming no match belongs to none that could be loaded.
            return true;
        };
        if out.damaged.contains_key(match_id) {
            return true;
        }
        let version = row.get::<_, i64>(2).unwrap_or(0);
        let previous = out.last_row.get(match_id).copied();
        // Versions that jump across a damaged part lost entries there (a
        // match's first entry is version 1).
        let (last_seq, last_version) = previous.unwrap_or((i64::MIN, 0));
        if version != last_version + 1
            && let Some(gap) = gaps_so_far
                .iter()
                .find(|g| g.first > last_seq && g.last < seq)
        {
            out.logs.remove(match_id);
            out.damaged
                .insert(match_id.to_string(), gap_reason(conn, gap));
            return true;
        }
        let entry = row
            .get_ref(3)
            .map_err(|e| e.to_string())
            .and_then(|v| v.as_str().map_err(|e| e.to_string()))
            .and_then(|text| serde_json::from_str::<LogEntry>(text).map_err(|e| e.to_string()));
        match entry {
            Ok(entry) => {
                out.last_row.insert(match_id.to_string(), (seq, version));
                match out.logs.get_mut(match_id) {
                    Some(entries) => entries.push(entry),
                    None => {
                        out.logs.insert(match_id.to_string(), vec![entry]);
                    }
                }
            }
            Err(e) => {
                let HostError::MatchUnavailable { reason, .. } =
                    unreadable(match_id, "log entry", e)
                else {
                    unreachable!("unreadable() makes a MatchUnavailable")
                };
                out.logs.remove(match_id);
                out.damaged.insert(match_id.to_string(), reason);
            }
        }
        true
    })
    .map_err(db_error)?;
    for gap in &gaps {
        tracing::error!(
            store = %store_path(conn),
            "the match store is damaged: {} of its log do not read ({}); every match whose \
             log may continue there is unavailable",
            gap.rows(),
            gap.error
        );
    }
    if let Some(first) = gaps.first() {
        out.marks = marks::Marks::read(conn, first.first);
        out.end = conn
            .query_row("SELECT MAX(rowid) FROM log", [], |row| row.get(0))
            .ok();
    }
    out.gaps = gaps;
    Ok(out)
}

/// A match from its row, its seats, and its log (from `log_json`, or taken
/// from `logs`); `damaged_logs` names the matches whose log rows did not
/// read back. Data that does not read back answers
/// [`HostError::MatchUnavailable`].
fn assemble(conn: &Connection, row: MatchRow, scan: &mut LogScan) -> HostResult<StoredMatch> {
    let id = row.match_id.as_str();
    if let Some(reason) = scan.damaged.get(id) {
        return Err(HostError::MatchUnavailable {
            match_id: id.to_string(),
            reason: reason.clone(),
        });
    }
    let json = |what: &str, text: &Option<String>| -> HostResult<String> {
        text.clone()
            .ok_or_else(|| unreadable(id, what, "it is missing"))
    };
    let setup = serde_json::from_str(&json("setup", &row.setup)?)
        .map_err(|e| unreadable(id, "setup", e))?;
    let pending: Vec<HeldAction> = serde_json::from_str(&json("held actions", &row.pending)?)
        .map_err(|e| unreadable(id, "held actions", e))?;
    let results = serde_json::from_str(&json("results", &row.results)?)
        .map_err(|e| unreadable(id, "results", e))?;
    let log = match &row.log_json {
        Some(json) => serde_json::from_str(json).map_err(|e| unreadable(id, "log", e))?,
        None => scan.logs.remove(id).unwrap_or_default(),
    };
    let seat_rows = match seat_rows(conn, id) {
        Err(e) if scan::is_corruption(&e) => {
            note_damage(conn, "a page of the seats", &e);
            scan.seats_read_around_damage(conn, id, setup_players(&setup))?
        }
        read => read.map_err(|e| unreadable(id, "seats", e))?,
    };
    let mut seat_hashes = Vec::with_capacity(seat_rows.len());
    let mut join_code_hashes = Vec::with_capacity(seat_rows.len());
    let mut joins = Vec::new();
    let hash_of = |bytes: Option<Vec<u8>>, what: &str| -> HostResult<Option<[u8; 32]>> {
        bytes
            .map(|bytes| {
                <[u8; 32]>::try_from(bytes.as_slice())
                    .map_err(|_| unreadable(id, what, "not 32 bytes"))
            })
            .transpose()
    };
    for (seat, hash, joined_at_ms, join_order, code, display_name, external_id, bot) in seat_rows {
        if let (Some(at_ms), Some(order)) = (joined_at_ms, join_order) {
            joins.push((
                order,
                SeatJoin {
                    seat: seat as u32,
                    at_ms,
                    display_name: display_name.unwrap_or_default(),
                    external_id: external_id.unwrap_or_default(),
                    bot: bot.unwrap_or_default(),
                },
            ));
        }
        seat_hashes.push(hash_of(hash, "token hash")?);
        join_code_hashes.push(hash_of(code, "join code hash")?);
    }
    if join_code_hashes.iter().all(Option::is_none) {
        join_code_hashes.clear();
    }
    joins.sort_by_key(|(order, _)| *order);
    Ok(StoredMatch {
        setup,
        seat_hashes,
        join_code_hashes,
        joins: joins.into_iter().map(|(_, join)| join).collect(),
        log,
        pending,
        results,
    })
}

/// A seat's columns as stored.
type SeatRow = (
    i64,
    Option<Vec<u8>>,
    Option<i64>,
    Option<i64>,
    Option<Vec<u8>>,
    Option<String>,
    Option<String>,
    Option<String>,
);

/// The seat rows of match `id`, through the table's index.
fn seat_rows(conn: &Connection, id: &str) -> rusqlite::Result<Vec<SeatRow>> {
    conn.prepare_cached(&format!(
        "SELECT {SEAT_COLUMNS} FROM seats WHERE match_id = ?1 ORDER BY seat"
    ))?
    .query_map(params![id], |row| seat_row_from(row, 0))?
    .collect()
}

/// The columns of a [`SeatRow`].
const SEAT_COLUMNS: &str = "seat, token_hash, joined_at_ms, join_order, join_code_hash, \
     display_name, external_id, bot";

/// A [`SeatRow`] from a row whose [`SEAT_COLUMNS`] start at column `first`.
fn seat_row_from(row: &Row<'_>, first: usize) -> rusqlite::Result<SeatRow> {
    Ok((
        row.get(first)?,
        row.get(first + 1)?,
        row.get(first + 2)?,
        row.get(first + 3)?,
        row.get(first + 4)?,
        row.get(first + 5)?,
        row.get(first + 6)?,
        row.get(first + 7)?,
    ))
}

/// Set once any read of this process met a damaged part of a store: from
/// then on an id the index does not find is looked for without it too.
static DAMAGE_SEEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether a read has met damage (see [`DAMAGE_SEEN`]).
fn damage_seen() -> bool {
    DAMAGE_SEEN.load(std::sync::atomic::Ordering::Relaxed)
}

/// Records that a store is damaged (the start's check found it so, see
/// `check.rs`).
pub(super) fn damage_found() {
    DAMAGE_SEEN.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Logs that `what` of the store does not read, and that reads go
/// around it from now on.
fn note_damage(conn: &Connection, what: &str, e: &rusqlite::Error) {
    damage_found();
    static DAMAGE: crate::throttle::Throttle =
        crate::throttle::Throttle::new(std::time::Duration::from_secs(10));
    if let Some(held_back) = DAMAGE.admit() {
        tracing::error!(
            store = %store_path(conn),
            held_back,
            "the match store is damaged: {what} does not read ({e}); reads go around it"
        );
    }
}

/// The store's path, as logs name it.
fn store_path(conn: &Connection) -> &str {
    conn.path().unwrap_or("the match store")
}

/// The store's file name, as reasons name it (a caller has no use for
/// the host's directories).
pub(super) fn store_name(conn: &Connection) -> String {
    conn.path()
        .map(std::path::Path::new)
        .and_then(|p| p.file_name())
        .map_or_else(
            || "the match store".into(),
            |n| n.to_string_lossy().into_owned(),
        )
}

/// A page of matches (see [`MatchQuery`]), through the tables' indexes;
/// when a page the listing meets is damaged, from a scan of the tables
/// that steps over damaged pages (slower: every row is read and sorted).
pub(super) fn list(conn: &Connection, query: &MatchQuery) -> HostResult<Vec<StoredSummary>> {
    match list_indexed(conn, query) {
        Err(e) if scan::is_corruption(&e) => {
            note_damage(conn, "a page the listing meets", &e);
            list_by_scan(conn, query)
        }
        Err(e) => Err(db_error(e)),
        Ok(page) => Ok(page),
    }
}

/// A listed match's state as its `state` column says.
fn listed_state(state: &str) -> ListedState {
    match state {
        "waiting" => ListedState::Waiting,
        "running" => ListedState::Running,
        "quarantined" => ListedState::Quarantined,
        _ => ListedState::Finished,
    }
}

/// A listed match's setup from its column, or, when it does not read
/// back, what its other columns say and why.
fn listed_setup(
    setup: Option<String>,
    match_id: &str,
    game: &str,
    created_at_ms: i64,
) -> (tabletop_core::MatchSetup, Option<String>) {
    let parsed = setup
        .ok_or_else(|| unreadable(match_id, "setup", "it is missing"))
        .and_then(|setup| {
            serde_json::from_str::<tabletop_core::MatchSetup>(&setup)
                .map_err(|e| unreadable(match_id, "setup", e))
        });
    match parsed {
        Ok(setup) => (setup, None),
        Err(HostError::MatchUnavailable { reason, .. }) => {
            (damaged_setup(match_id, game, created_at_ms), Some(reason))
        }
        Err(other) => (
            damaged_setup(match_id, game, created_at_ms),
            Some(other.to_string()),
        ),
    }
}

/// [`list`] without the indexes: every `matches` and `seats` row that
/// reads, filtered, sorted and cut to the page here.
fn list_by_scan(conn: &Connection, query: &MatchQuery) -> HostResult<Vec<StoredSummary>> {
    let mut open: HashMap<String, Vec<u32>> = HashMap::new();
    scan::scan(
        conn,
        "SELECT rowid, CAST(match_id AS TEXT), seat FROM seats NOT INDEXED \
         WHERE rowid >= ?1 AND token_hash IS NULL ORDER BY rowid",
        0,
        &[],
        |_, row, _| {
            if let (Ok(Some(id)), Ok(seat)) =
                (row.get::<_, Option<String>>(1), row.get::<_, i64>(2))
            {
                open.entry(id).or_default().push(seat as u32);
            }
            true
        },
    )
    .map_err(db_error)?;
    let mut out = Vec::new();
    scan::scan(
        conn,
        "SELECT rowid, CAST(setup_json AS TEXT), CAST(state AS TEXT), final_version, \
         CAST(match_id AS TEXT), CAST(game AS TEXT), CAST(created_at_ms AS INTEGER) \
         FROM matches NOT INDEXED WHERE rowid >= ?1 ORDER BY rowid",
        0,
        &[],
        |_, row, _| {
            let column = |i| row.get::<_, Option<String>>(i).ok().flatten();
            let match_id = column(4).unwrap_or_default();
            let game = column(5).unwrap_or_default();
            let created_at_ms = row.get::<_, Option<i64>>(6).ok().flatten().unwrap_or(0);
            let (setup, unreadable) = listed_setup(column(1), &match_id, &game, created_at_ms);
            let state = listed_state(column(2).as_deref().unwrap_or(""));
            if query.selects(&setup, state) {
                let mut open_seats = open.remove(&match_id).unwrap_or_default();
                open_seats.sort_unstable();
                out.push(StoredSummary {
                    setup,
                    state,
                    final_version: row
                        .get::<_, Option<i64>>(3)
                        .ok()
                        .flatten()
                        .map(|v| v as u64),
                    open_seats,
                    unreadable,
                });
            }
            true
        },
    )
    .map_err(db_error)?;
    out.sort_by(|a, b| {
        (a.setup.created_at_ms, &a.setup.match_id).cmp(&(b.setup.created_at_ms, &b.setup.match_id))
    });
    out.truncate(query.limit);
    Ok(out)
}

/// [`list`] through the indexes.
fn list_indexed(conn: &Connection, query: &MatchQuery) -> rusqlite::Result<Vec<StoredSummary>> {
    let (after_at, after_id) = match &query.after {
        Some((at, id)) => (Some(*at), Some(id.as_str())),
        None => (None, None),
    };
    let limit = i64::try_from(query.limit).unwrap_or(i64::MAX);
    let mut values: Vec<Value> = vec![
        query.game.clone().into(),
        query.state.map(|s| state_name(s).to_string()).into(),
        query.created_from_ms.into(),
        query.created_before_ms.into(),
        after_at.into(),
        after_id.map(str::to_string).into(),
        limit.into(),
    ];
    // One EXISTS per label asked for; the statement's text (and so its
    // cached plan) depends only on how many.
    let mut labels = String::new();
    for (key, value) in &query.labels {
        let n = values.len();
        labels.push_str(&format!(
            " AND EXISTS (SELECT 1 FROM match_labels l WHERE l.match_id = m.match_id \
             AND l.key = ?{} AND l.value = ?{})",
            n + 1,
            n + 2
        ));
        values.push(key.clone().into());
        values.push(value.clone().into());
    }
    let mut statement = conn.prepare_cached(&format!(
        "SELECT CAST(m.setup_json AS TEXT), m.state, m.final_version, \
                    (SELECT group_concat(seat) FROM seats s \
                     WHERE s.match_id = m.match_id AND s.token_hash IS NULL), \
                    CAST(m.match_id AS TEXT), CAST(m.game AS TEXT), \
                    CAST(m.created_at_ms AS INTEGER) \
             FROM matches m \
             WHERE (?1 IS NULL OR m.game = ?1) AND (?2 IS NULL OR m.state = ?2) \
               AND (?3 IS NULL OR m.created_at_ms >= ?3) \
               AND (?4 IS NULL OR m.created_at_ms < ?4) \
               AND (?5 IS NULL OR (m.created_at_ms, m.match_id) > (?5, ?6)){labels} \
             ORDER BY m.created_at_ms, m.match_id LIMIT ?7"
    ))?;
    let rows = statement.query_map(rusqlite::params_from_iter(values), |row| {
        Ok((
            row.get::<_, Option<String>>(0)?,
            row.get::<_, String>(1)?,
            row.get::<_, Option<i64>>(2)?,
            row.get::<_, Option<String>>(3)?,
            (
                row.get::<_, Option<String>>(4)?.unwrap_or_default(),
                row.get::<_, Option<String>>(5)?.unwrap_or_default(),
                row.get::<_, Option<i64>>(6)?.unwrap_or(0),
            ),
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (setup, state, final_version, open, (match_id, game, created_at_ms)) = row?;
        // A setup that does not read back lists the match as unavailable,
        // with what its other columns say; the listing goes on.
        let (setup, unreadable) = listed_setup(setup, &match_id, &game, created_at_ms);
        let state = listed_state(&state);
        let mut open_seats: Vec<u32> = open
            .unwrap_or_default()
            .split(',')
            .filter_map(|s| s.parse().ok())
            .collect();
        open_seats.sort_unstable();
        out.push(StoredSummary {
            setup,
            state,
            final_version: final_version.map(|v| v as u64),
            open_seats,
            unreadable,
        });
    }
    Ok(out)
}

/// Lifecycle rows after `after_seq`. Rows in a damaged part of the table,
/// or that do not read back, are stepped over (they are lost to the feed)
/// and logged, naming the file and the rows.
pub(super) fn lifecycle_after(
    conn: &Connection,
    after_seq: u64,
    limit: usize,
) -> HostResult<Vec<LifecycleRow>> {
    let mut out = Vec::new();
    let mut unreadable_rows = Vec::new();
    let gaps = scan::scan(
        conn,
        "SELECT seq, CAST(event_json AS TEXT) FROM lifecycle WHERE seq >= ?1 ORDER BY seq",
        i64::try_from(after_seq.saturating_add(1)).unwrap_or(i64::MAX),
        &[],
        |seq, row, _| {
            let event = row
                .get::<_, Option<String>>(1)
                .map_err(|e| e.to_string())
                .and_then(|json| {
                    serde_json::from_str(json.as_deref().unwrap_or("")).map_err(|e| e.to_string())
                });
            match event {
                Ok(event) => out.push(LifecycleRow {
                    seq: seq as u64,
                    event,
                }),
                Err(e) => unreadable_rows.push((seq, e)),
            }
            out.len() < limit
        },
    )
    .map_err(db_error)?;
    if !gaps.is_empty() || !unreadable_rows.is_empty() {
        static FEED_DAMAGE: crate::throttle::Throttle =
            crate::throttle::Throttle::new(std::time::Duration::from_secs(10));
        damage_found();
        if let Some(held_back) = FEED_DAMAGE.admit() {
            let mut what: Vec<String> = gaps
                .iter()
                .map(|g| {
                    format!(
                        "{} are in a damaged part of the file ({})",
                        g.rows(),
                        g.error
                    )
                })
                .collect();
            what.extend(
                unreadable_rows
                    .iter()
                    .map(|(seq, e)| format!("row {seq} does not read back ({})", quote(e))),
            );
            tracing::error!(
                store = %store_path(conn),
                held_back,
                "the match store is damaged: of its lifecycle feed, {}; the feed goes on \
                 without them",
                what.join("; ")
            );
        }
    }
    Ok(out)
}

/// The request stored under `request_id`.
pub(super) fn request(conn: &Connection, request_id: &str) -> HostResult<Option<StoredRequest>> {
    let row = conn
        .prepare_cached(
            "SELECT request_hash, match_id, response FROM requests WHERE request_id = ?1",
        )
        .and_then(|mut s| {
            s.query_row(params![request_id], |row| {
                Ok((
                    row.get::<_, Vec<u8>>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, Vec<u8>>(2)?,
                ))
            })
            .optional()
        })
        .map_err(db_error)?;
    let Some((hash, match_id, response)) = row else {
        return Ok(None);
    };
    let request_hash = <[u8; 32]>::try_from(hash.as_slice())
        .map_err(|_| unreadable(&match_id, "request hash", "not 32 bytes"))?;
    Ok(Some(StoredRequest {
        request_id: request_id.to_string(),
        request_hash,
        match_id,
        response,
    }))
}

/// Every issued credential, oldest first. Credentials in a damaged part
/// of the file are logged and left out: their holders are refused until
/// the admin issues them new ones.
pub(super) fn credentials(conn: &Connection) -> HostResult<Vec<StoredCredential>> {
    let mut out = Vec::new();
    let mut unreadable_rows = Vec::new();
    let gaps = scan::scan(
        conn,
        "SELECT rowid, credential_id, name, role, secret_hash, issued_at_ms, revoked_at_ms, \
         tenant FROM credentials WHERE rowid >= ?1 ORDER BY rowid",
        0,
        &[],
        |rowid, row, _| {
            let read = (|| -> rusqlite::Result<StoredCredential> {
                let hash: Vec<u8> = row.get(4)?;
                let secret_hash = <[u8; 32]>::try_from(hash.as_slice()).map_err(|_| {
                    rusqlite::Error::InvalidColumnType(
                        4,
                        "secret_hash".into(),
                        rusqlite::types::Type::Blob,
                    )
                })?;
                Ok(StoredCredential {
                    credential_id: row.get(1)?,
                    name: row.get(2)?,
                    role: row.get(3)?,
                    secret_hash,
                    issued_at_ms: row.get(5)?,
                    revoked_at_ms: row.get(6)?,
                    tenant: row.get(7)?,
                })
            })();
            match read {
                Ok(credential) => out.push(credential),
                Err(e) => unreadable_rows.push(format!("row {rowid} ({e})")),
            }
            true
        },
    )
    .map_err(db_error)?;
    let lost: Vec<String> = gaps
        .iter()
        .map(|g| format!("{} ({})", g.rows(), g.error))
        .chain(unreadable_rows)
        .collect();
    if !lost.is_empty() {
        static CREDENTIAL_DAMAGE: crate::throttle::Throttle =
            crate::throttle::Throttle::new(std::time::Duration::from_secs(60));
        damage_found();
        if let Some(held_back) = CREDENTIAL_DAMAGE.admit() {
            tracing::error!(
                store = %store_path(conn),
                held_back,
                "the match store is damaged: of its credentials, {} do not read; their holders \
                 are refused until the admin issues them new ones",
                lost.join("; ")
            );
        }
    }
    out.sort_by(|a, b| (a.issued_at_ms, &a.credential_id).cmp(&(b.issued_at_ms, &b.credential_id)));
    Ok(out)
}
