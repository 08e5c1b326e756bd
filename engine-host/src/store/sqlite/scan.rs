//! Reading a table in rowid order past damaged pages.
//!
//! A page of the file that does not parse (a disk fault, a stray write)
//! makes SQLite answer "database disk image is malformed" as soon as a
//! statement steps onto it, and a plain scan ends there: one bad page of
//! the log would stop every match from loading. A table's interior pages
//! still lead past a damaged leaf, so a scan that fails is resumed at the
//! first rowid after the failure from which a statement reads again, and
//! the rowids it stepped over are reported as a [`Gap`]: the caller decides
//! which matches those rows could have belonged to.
//!
//! Only corruption is stepped over: any other error (a full disk, an I/O
//! error) ends the scan as before, since skipping would hide it.

use rusqlite::{Connection, ErrorCode, Row, ToSql};

/// Rowids a scan could not read: every row with `first <= rowid <= last`
/// lies in a damaged part of the file (`last` is `i64::MAX` when nothing
/// after the damage reads).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Gap {
    /// The first rowid that may be lost.
    pub first: i64,
    /// The last rowid that may be lost.
    pub last: i64,
    /// SQLite's words.
    pub error: String,
}

impl Gap {
    /// The rows, for a person: "rows 17–40", "rows from 17 on".
    pub fn rows(&self) -> String {
        if self.last == i64::MAX {
            format!("rows from {} on", self.first)
        } else if self.first == self.last {
            format!("row {}", self.first)
        } else {
            format!("rows {}–{}", self.first, self.last)
        }
    }
}

/// Whether `e` says the file is damaged (rather than, say, full).
pub(crate) fn is_corruption(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
    )
}

/// Calls `each` with every row of `select` (a statement whose first column
/// is the rowid, taking the first rowid wanted as `?1`, then `extra` as
/// `?2`…, and answering rows in rowid order, e.g. `SELECT seq, … FROM log
/// WHERE seq >= ?1 ORDER BY seq`) from rowid `from` on, stepping over
/// damaged pages; returns the gaps it stepped over. `each` is also told
/// the gaps stepped over so far, and answers `false` to stop the scan.
pub(crate) fn scan(
    conn: &Connection,
    select: &str,
    from: i64,
    extra: &[&dyn ToSql],
    mut each: impl FnMut(i64, &Row<'_>, &[Gap]) -> bool,
) -> rusqlite::Result<Vec<Gap>> {
    let mut gaps = Vec::new();
    let mut start = from;
    let mut statement = conn.prepare_cached(select)?;
    loop {
        let mut rows = statement.query(with_start(&start, extra).as_slice())?;
        // The last rowid read in this pass.
        let mut last_read = None;
        let failure = loop {
            match rows.next() {
                Ok(Some(row)) => {
                    let rowid: i64 = row.get(0)?;
                    last_read = Some(rowid);
                    if !each(rowid, row, &gaps) {
                        return Ok(gaps);
                    }
                }
                Ok(None) => return Ok(gaps),
                Err(e) if is_corruption(&e) => break e,
                Err(e) => return Err(e),
            }
        };
        drop(rows);
        let damaged_from = last_read.map_or(start, |r| r.saturating_add(1));
        match resume_point(&mut statement, damaged_from, extra)? {
            Some(resume) => {
                gaps.push(Gap {
                    first: damaged_from,
                    last: resume - 1,
                    error: failure.to_string(),
                });
                start = resume;
            }
            None => {
                gaps.push(Gap {
                    first: damaged_from,
                    last: i64::MAX,
                    error: failure.to_string(),
                });
                return Ok(gaps);
            }
        }
    }
}

/// The smallest rowid after `damaged_from` from which `statement` reads
/// its first row (or finds none) without meeting the damage, found by
/// doubling the step and then halving it; `None` when nothing after it
/// reads.
fn resume_point(
    statement: &mut rusqlite::CachedStatement<'_>,
    damaged_from: i64,
    extra: &[&dyn ToSql],
) -> rusqlite::Result<Option<i64>> {
    let mut reads = |from: i64| -> rusqlite::Result<bool> {
        let mut rows = statement.query(with_start(&from, extra).as_slice())?;
        match rows.next() {
            Ok(_) => Ok(true),
            Err(e) if is_corruption(&e) => Ok(false),
            Err(e) => Err(e),
        }
    };
    // Rowids are at most i64::MAX; 63 doublings pass any of them.
    let mut bad = damaged_from;
    let mut step: i64 = 1;
    let good = loop {
        let probe = damaged_from.saturating_add(step);
        if reads(probe)? {
            break probe;
        }
        if probe == i64::MAX || probe <= bad {
            // Past the largest rowid, or no further to go.
            return Ok(None);
        }
        bad = probe;
        step = step.saturating_mul(2);
    };
    let (mut bad, mut good) = (bad, good);
    while good - bad > 1 {
        let middle = bad + (good - bad) / 2;
        if reads(middle)? {
            good = middle;
        } else {
            bad = middle;
        }
    }
    Ok(Some(good))
}

/// A statement's parameters: the first rowid wanted, then `extra`.
fn with_start<'a>(start: &'a i64, extra: &[&'a dyn ToSql]) -> Vec<&'a dyn ToSql> {
    let mut all: Vec<&dyn ToSql> = Vec::with_capacity(extra.len() + 1);
    all.push(start);
    all.extend_from_slice(extra);
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::params;

    /// A file with `rows` log-like rows, with the leaf page `pick` chooses
    /// of the table's leaves overwritten with garbage, and a connection to
    /// it.
    fn damaged_table(rows: i64, pick: fn(usize) -> usize) -> (tempfile::TempDir, Connection) {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("t.sqlite3");
        let conn = Connection::open(&path).expect("open");
        conn.execute_batch("CREATE TABLE t (seq INTEGER PRIMARY KEY, body TEXT NOT NULL);")
            .expect("schema");
        conn.execute(
            "WITH RECURSIVE n(seq) AS (SELECT 1 UNION ALL SELECT seq + 1 FROM n WHERE seq < ?1) \
             INSERT INTO t (seq, body) SELECT seq, printf('%.200c', 'x') FROM n",
            params![rows],
        )
        .expect("rows");
        let leaves: Vec<i64> = conn
            .prepare(
                "SELECT pageno FROM dbstat WHERE name = 't' AND pagetype = 'leaf' ORDER BY path",
            )
            .expect("dbstat")
            .query_map([], |row| row.get(0))
            .expect("leaves")
            .collect::<rusqlite::Result<_>>()
            .expect("leaves");
        let target = leaves[pick(leaves.len())];
        drop(conn);
        let mut bytes = std::fs::read(&path).expect("read");
        let at = (target as usize - 1) * 4096;
        bytes[at..at + 4096].fill(0xA5);
        std::fs::write(&path, bytes).expect("write");
        let conn = Connection::open(&path).expect("reopen");
        (dir, conn)
    }

    #[test]
    fn a_scan_steps_over_a_damaged_leaf_and_reports_the_rows_it_could_not_read() {
        let (_dir, conn) = damaged_table(2000, |leaves| leaves / 2);
        let mut read = Vec::new();
        let gaps = scan(
            &conn,
            "SELECT seq FROM t WHERE seq >= ?1 ORDER BY seq",
            1,
            &[],
            |rowid, _, _| {
                read.push(rowid);
                true
            },
        )
        .expect("the scan goes on past the damage");
        assert_eq!(gaps.len(), 1, "{gaps:?}");
        let gap = &gaps[0];
        assert!(gap.first > 1 && gap.last < 2000, "{gap:?}");
        assert!(gap.error.contains("malformed"), "{gap:?}");
        // Every row outside the gap is read, once, in order.
        let expected: Vec<i64> = (1..=2000)
            .filter(|r| !(gap.first..=gap.last).contains(r))
            .collect();
        assert_eq!(read, expected);
    }

    #[test]
    fn a_scan_whose_first_page_is_damaged_goes_on_after_it() {
        let (_dir, conn) = damaged_table(2000, |_| 0);
        let mut read = Vec::new();
        let gaps = scan(
            &conn,
            "SELECT seq FROM t WHERE seq >= ?1 ORDER BY seq",
            0,
            &[],
            |rowid, _, _| {
                read.push(rowid);
                true
            },
        )
        .expect("the scan goes on past the damage");
        assert_eq!(gaps.len(), 1, "{gaps:?}");
        assert_eq!(gaps[0].first, 0, "{gaps:?}");
        assert_eq!(read.first(), Some(&(gaps[0].last + 1)));
        assert_eq!(read.last(), Some(&2000));
    }

    #[test]
    fn a_scan_of_a_whole_table_reports_no_gap() {
        let dir = tempfile::tempdir().expect("temp dir");
        let conn = Connection::open(dir.path().join("t.sqlite3")).expect("open");
        conn.execute_batch(
            "CREATE TABLE t (seq INTEGER PRIMARY KEY); INSERT INTO t VALUES (1), (2), (5);",
        )
        .expect("rows");
        let mut read = Vec::new();
        let gaps = scan(
            &conn,
            "SELECT seq FROM t WHERE seq >= ?1 ORDER BY seq",
            2,
            &[],
            |r, _, _| {
                read.push(r);
                true
            },
        )
        .expect("scan");
        assert!(gaps.is_empty());
        assert_eq!(read, vec![2, 5]);
    }

    #[test]
    fn gaps_name_their_rows_for_a_person() {
        let gap = |first, last| Gap {
            first,
            last,
            error: String::new(),
        };
        assert_eq!(gap(3, 3).rows(), "row 3");
        assert_eq!(gap(3, 9).rows(), "rows 3–9");
        assert_eq!(gap(3, i64::MAX).rows(), "rows from 3 on");
    }
}
