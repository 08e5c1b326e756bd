//! A write as a store's writer thread queues it: what [`super::Store`]'s
//! write methods were called with, owned, so it can wait in a queue until
//! the writer commits it (the SQLite and PostgreSQL stores share it).

use tabletop_core::{HeldAction, LogEntry, SeatJoin, SeatResult};

use super::{Change, LifecycleEvent, NewMatch, StoredCredential, StoredMatch, StoredRequest};

/// One write for the writer thread.
#[derive(Debug)]
pub(crate) enum Write {
    Create {
        stored: Box<StoredMatch>,
        lifecycle: Vec<LifecycleEvent>,
        request: Option<StoredRequest>,
    },
    Append {
        match_id: String,
        entries: Vec<LogEntry>,
        /// `None`: the held actions are as last stored.
        pending: Option<Vec<HeldAction>>,
        results: Vec<SeatResult>,
        lifecycle: Vec<LifecycleEvent>,
        finished_log: Option<Vec<LogEntry>>,
    },
    Join {
        match_id: String,
        join: SeatJoin,
        token_hash: [u8; 32],
        lifecycle: Vec<LifecycleEvent>,
    },
    Reissue {
        match_id: String,
        seat: u32,
        token_hash: [u8; 32],
    },
    IssueCredential(StoredCredential),
    RevokeCredential {
        credential_id: String,
        at_ms: i64,
    },
}

impl Write {
    /// [`super::Store::create_match`]'s write.
    pub(crate) fn create(new: &NewMatch<'_>) -> Write {
        Write::Create {
            stored: Box::new(new.stored.clone()),
            lifecycle: new.lifecycle.to_vec(),
            request: new.request.cloned(),
        }
    }

    /// [`super::Store::append`]'s write.
    pub(crate) fn append(match_id: &str, change: &Change<'_>) -> Write {
        Write::Append {
            match_id: match_id.to_string(),
            entries: change.entries.to_vec(),
            pending: change.pending.map(<[_]>::to_vec),
            results: change.results.to_vec(),
            lifecycle: change.lifecycle.to_vec(),
            finished_log: change.finished_log.map(<[_]>::to_vec),
        }
    }

    /// [`super::Store::join_seat`]'s write.
    pub(crate) fn join(
        match_id: &str,
        join: SeatJoin,
        token_hash: [u8; 32],
        lifecycle: &[LifecycleEvent],
    ) -> Write {
        Write::Join {
            match_id: match_id.to_string(),
            join,
            token_hash,
            lifecycle: lifecycle.to_vec(),
        }
    }

    /// Whether it writes log rows.
    pub(crate) fn has_log(&self) -> bool {
        self.log_rows().is_some()
    }

    /// The match it writes log rows of, and how many.
    pub(crate) fn log_rows(&self) -> Option<(&str, usize)> {
        match self {
            Write::Create { stored, .. } if !stored.log.is_empty() => {
                Some((stored.setup.match_id.as_str(), stored.log.len()))
            }
            Write::Append {
                match_id, entries, ..
            } if !entries.is_empty() => Some((match_id.as_str(), entries.len())),
            _ => None,
        }
    }

    /// The lifecycle rows it writes.
    pub(crate) fn lifecycle(&self) -> &[LifecycleEvent] {
        match self {
            Write::Create { lifecycle, .. }
            | Write::Append { lifecycle, .. }
            | Write::Join { lifecycle, .. } => lifecycle,
            Write::Reissue { .. } | Write::IssueCredential(_) | Write::RevokeCredential { .. } => {
                &[]
            }
        }
    }

    /// Whether it writes lifecycle rows.
    pub(crate) fn has_lifecycle(&self) -> bool {
        !self.lifecycle().is_empty()
    }

    /// The match it writes, if any.
    pub(crate) fn match_id(&self) -> Option<&str> {
        match self {
            Write::Create { stored, .. } => Some(&stored.setup.match_id),
            Write::Append { match_id, .. }
            | Write::Join { match_id, .. }
            | Write::Reissue { match_id, .. } => Some(match_id),
            Write::IssueCredential(_) | Write::RevokeCredential { .. } => None,
        }
    }
}

/// Logs a batch of `writes` whose commit failed with `error`. Every write
/// of every batch fails alike while the cause lasts (a full disk, a
/// broken database): the line is written once a second, saying how many
/// were held back.
pub(crate) fn log_commit_failure(error: &dyn std::fmt::Display, writes: usize) {
    static COMMIT_FAILED: crate::throttle::Throttle =
        crate::throttle::Throttle::new(std::time::Duration::from_secs(1));
    if let Some(held_back) = COMMIT_FAILED.admit() {
        tracing::error!(error = %error, writes, held_back, "match store commit failed");
    }
}
