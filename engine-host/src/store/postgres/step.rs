//! One statement of a write and what it must answer for the write to
//! stand: what `apply.rs` makes of each write. The writer sends a batch's
//! steps together without waiting for each answer (`pipeline.rs`), then
//! judges every answer before it commits; offline tools run them one by
//! one (`connect.rs`'s [`Prepared::run`](super::connect::Prepared::run)).

use postgres::Row;
use postgres::types::ToSql;
use tabletop_core::{HostError, HostResult};

/// A parameter a step owns: a step outlives the borrow of its write.
pub(super) type Param = Box<dyn ToSql + Sync + Send>;

/// A statement, its parameters, and what its answer must be.
pub(super) struct Step {
    pub(super) sql: &'static str,
    params: Vec<Param>,
    wants: Wants,
}

/// What a step's answer must be for its write to stand.
pub(super) enum Wants {
    /// Nothing: any number of changed rows.
    Anything,
    /// Exactly one changed row; otherwise the write fails with this.
    One(HostError),
    /// This many lifecycle rows, whose numbers it answers.
    LifecycleRows(usize),
}

/// What the server answered a statement.
pub(super) enum Answer {
    /// The number of rows changed (or selected).
    Changed(u64),
    /// The rows returned.
    Rows(Vec<Row>),
}

impl Step {
    pub(super) fn new(sql: &'static str, params: Vec<Param>, wants: Wants) -> Step {
        Step { sql, params, wants }
    }

    /// Whether the statement's rows are wanted, not only their number.
    pub(super) fn wants_rows(&self) -> bool {
        matches!(self.wants, Wants::LifecycleRows(_))
    }

    /// The parameters, as the client takes them.
    pub(super) fn params(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.params
            .iter()
            .map(|param| param.as_ref() as &(dyn ToSql + Sync))
            .collect()
    }

    /// Whether `answer` lets the write stand: the number of the last
    /// lifecycle row the step wrote, if it wrote any.
    pub(super) fn judge(&self, answer: Answer) -> HostResult<Option<u64>> {
        match (&self.wants, answer) {
            (Wants::Anything, _) => Ok(None),
            (Wants::One(_), Answer::Changed(1)) => Ok(None),
            (Wants::One(refusal), _) => Err(refusal.clone()),
            (Wants::LifecycleRows(count), Answer::Rows(rows)) => rows
                .iter()
                .map(|row| row.get::<_, i64>(0))
                .max()
                .filter(|_| rows.len() == *count)
                .map(|last| Some(last as u64))
                .ok_or_else(|| {
                    HostError::Internal("the match store lacks its lifecycle counter".into())
                }),
            (Wants::LifecycleRows(_), Answer::Changed(_)) => Err(HostError::Internal(
                "the match store's lifecycle rows were not returned".into(),
            )),
        }
    }
}
