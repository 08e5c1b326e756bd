//! Which matches wrote each stretch of the log's rows.
//!
//! The log has no index by match (see the store's documentation), so when
//! a page of it is damaged nothing in the rows that still read says whose
//! entries were lost: any match not finished whose last entry read lies
//! before the damage may have written there. So the writer notes, every
//! [`MARK_EVERY`] rows, which matches wrote the rows since its last note
//! (`log_marks`, a row of match ids per stretch): a damaged part of the log
//! then costs only the matches its stretches name. Rows no mark covers (the
//! last few before a crash, those of a store older than the marks, or a
//! mark in a damaged page itself) cost every match that may have written
//! there, as before.
//!
//! A mark is committed on its own after the batch that filled its stretch,
//! without waiting for an fsync: it is a hint, made durable by the next
//! batch's, and one that is lost only makes damage cost more matches.

use std::collections::{BTreeSet, HashSet};

use rusqlite::{Connection, params};

use super::scan;

/// Log rows per mark: about a page and a half of them (a page holds some
/// twenty entries), so damage to a page costs the matches of two stretches
/// at most; a mark names at most this many matches (under 2 KB) and is one
/// small commit per this many actions.
pub(super) const MARK_EVERY: usize = 32;

/// The writer's note of the log rows written since its last mark.
#[derive(Debug)]
pub(super) struct Marking {
    /// The first row not yet marked; `None` when the end of the log could
    /// not be read (nothing is marked then).
    from: Option<i64>,
    /// The last row written.
    to: i64,
    matches: BTreeSet<String>,
    rows: usize,
}

impl Marking {
    /// Starts marking after `last_log_row`, where the log ends (`None`:
    /// its end could not be read, and nothing is marked).
    pub(super) fn start(last_log_row: Option<i64>) -> Marking {
        Marking {
            from: last_log_row.map(|last| last + 1),
            to: last_log_row.unwrap_or(0),
            matches: BTreeSet::new(),
            rows: 0,
        }
    }

    /// Notes that `match_id` wrote `rows` rows in a batch just committed.
    pub(super) fn wrote(&mut self, match_id: &str, rows: usize) {
        if !self.matches.contains(match_id) {
            self.matches.insert(match_id.to_string());
        }
        self.rows += rows;
    }

    /// Notes that the log now ends at `last_row`, and writes a mark when
    /// [`MARK_EVERY`] rows have gathered (or, with `finish`, any).
    pub(super) fn reached(&mut self, conn: &Connection, last_row: Option<u64>, finish: bool) {
        if let Some(row) = last_row {
            self.to = self.to.max(row as i64);
        }
        let Some(from) = self.from else { return };
        let due = self.rows >= MARK_EVERY || (finish && self.rows > 0);
        if !due || self.to < from {
            return;
        }
        let ids = serde_json::to_string(&self.matches).unwrap_or_else(|_| "[]".into());
        let written = conn
            .prepare_cached(
                "INSERT INTO log_marks (from_log_row, to_log_row, match_ids) VALUES (?1, ?2, ?3)",
            )
            .and_then(|mut statement| statement.execute(params![from, self.to, ids]));
        if let Err(e) = written {
            static FAILED: crate::throttle::Throttle =
                crate::throttle::Throttle::new(std::time::Duration::from_secs(10));
            if let Some(held_back) = FAILED.admit() {
                tracing::warn!(
                    error = %e,
                    held_back,
                    "cannot write a mark of the match store's log: damage among those rows \
                     would cost every match that may have written there"
                );
            }
        }
        self.from = Some(self.to + 1);
        self.matches.clear();
        self.rows = 0;
    }
}

/// One mark: the matches that wrote rows `from..=to`.
#[derive(Debug)]
struct Mark {
    from: i64,
    to: i64,
    matches: HashSet<String>,
}

/// The marks that read back, of stretches ending at or after some row.
#[derive(Debug, Default)]
pub(super) struct Marks {
    marks: Vec<Mark>,
}

impl Marks {
    /// Every mark of a stretch ending at or after row `from` that reads
    /// back (marks in damaged pages are stepped over: their stretches are
    /// then not known).
    pub(super) fn read(conn: &Connection, from: i64) -> Marks {
        let mut marks = Vec::new();
        let scanned = scan::scan(
            conn,
            "SELECT seq, from_log_row, to_log_row, CAST(match_ids AS TEXT) FROM log_marks \
             WHERE seq >= ?1 AND to_log_row >= ?2 ORDER BY seq",
            0,
            &[&from],
            |_, row, _| {
                let mark = (|| {
                    let ids: String = row.get(3).ok()?;
                    Some(Mark {
                        from: row.get(1).ok()?,
                        to: row.get(2).ok()?,
                        matches: serde_json::from_str(&ids).ok()?,
                    })
                })();
                marks.extend(mark);
                true
            },
        );
        if scanned.is_err() {
            // No table of marks (a file a migration has not reached) or
            // one that cannot be read: no stretch is known.
            marks.clear();
        }
        marks.sort_by_key(|m| m.from);
        Marks { marks }
    }

    /// Whether the marks show that `match_id` wrote no row in
    /// `first..=last`: marks cover every row of it and none names the
    /// match.
    pub(super) fn clears(&self, match_id: &str, first: i64, last: i64) -> bool {
        let mut next = first;
        for mark in &self.marks {
            if next > last {
                break;
            }
            if mark.to < next {
                continue;
            }
            if mark.from > next {
                // A stretch no mark covers.
                return false;
            }
            if mark.matches.contains(match_id) {
                return false;
            }
            next = mark.to.saturating_add(1);
        }
        next > last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marks(stretches: &[(i64, i64, &[&str])]) -> Marks {
        Marks {
            marks: stretches
                .iter()
                .map(|(from, to, ids)| Mark {
                    from: *from,
                    to: *to,
                    matches: ids.iter().map(|id| id.to_string()).collect(),
                })
                .collect(),
        }
    }

    #[test]
    fn marks_clear_a_match_only_where_they_cover_every_row_and_do_not_name_it() {
        let marks = marks(&[
            (1, 256, &["a", "b"]),
            (257, 512, &["b"]),
            (600, 800, &["c"]),
        ]);
        assert!(marks.clears("a", 300, 500), "a wrote nothing in 257–512");
        assert!(!marks.clears("b", 300, 500), "b did");
        assert!(!marks.clears("a", 200, 300), "a wrote in 1–256");
        assert!(
            !marks.clears("a", 500, 700),
            "513–599 is covered by no mark"
        );
        assert!(marks.clears("a", 700, 800));
        assert!(!marks.clears("a", 700, 900), "past the last mark");
    }

    #[test]
    fn the_writer_marks_every_stretch_of_rows_with_the_matches_that_wrote_them() {
        let conn = Connection::open_in_memory().expect("memory");
        conn.execute_batch(
            "CREATE TABLE log (seq INTEGER PRIMARY KEY, match_id TEXT);
             CREATE TABLE log_marks (seq INTEGER PRIMARY KEY, from_log_row INTEGER NOT NULL,
                 to_log_row INTEGER NOT NULL, match_ids TEXT NOT NULL);
             INSERT INTO log (seq, match_id) VALUES (1, 'old');",
        )
        .expect("schema");
        let mut marking = Marking::start(Some(1));
        marking.wrote("a", MARK_EVERY - 1);
        marking.reached(&conn, Some(MARK_EVERY as u64), false);
        assert!(Marks::read(&conn, 0).marks.is_empty(), "not due yet");
        marking.wrote("b", 1);
        marking.reached(&conn, Some(MARK_EVERY as u64 + 1), false);
        marking.wrote("c", 2);
        marking.reached(&conn, Some(MARK_EVERY as u64 + 3), true);
        let read = Marks::read(&conn, 0);
        let last = MARK_EVERY as i64 + 1;
        assert!(read.clears("c", 2, last), "c wrote only after them");
        assert!(!read.clears("a", 2, last));
        assert!(!read.clears("old", 1, 1), "row 1 predates the marks");
        assert!(!read.clears("c", last + 1, last + 2));
        assert!(read.clears("a", last + 1, last + 2));
    }
}
