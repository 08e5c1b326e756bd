//! The in-memory store: every match in a map, nothing across restarts.
//!
//! It is the reference implementation of [`Store`] (the conformance suite
//! runs on it as on SQLite), and it keeps its memory bounded: finished
//! matches beyond a cap are dropped oldest first (a later ask gets
//! [`HostError::MatchExpired`]), and so are the lifecycle rows beyond a
//! cap. A running match is never dropped.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use tabletop_core::{HostError, HostResult, Lifecycle, SeatJoin};

use super::{
    Backup, Change, Commit, DamagedMatch, LifecycleEvent, LifecycleRow, MatchQuery, NewMatch,
    Store, StoredCredential, StoredMatch, StoredRequest, StoredSummary,
};

/// How many finished matches the memory store keeps by default.
pub const DEFAULT_FINISHED_CAP: usize = 10_000;

/// How many lifecycle rows it keeps: a platform that falls further behind
/// than this on a host that keeps nothing across restarts starts over.
pub const LIFECYCLE_ROWS_KEPT: usize = 100_000;

/// How many dropped match ids it remembers, to say "expired" rather than
/// "no such match".
const EXPIRED_IDS_KEPT: usize = 100_000;

/// Keeps matches in memory only (see the module documentation).
#[derive(Debug)]
pub struct MemoryStore {
    finished_cap: usize,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    matches: HashMap<String, StoredMatch>,
    /// Every match by (creation time, id): the listing order.
    by_creation: BTreeMap<(i64, String), ()>,
    /// Finished matches, the first finished first.
    finished: VecDeque<String>,
    /// Dropped matches, the first dropped first, and the same as a set.
    expired: VecDeque<String>,
    expired_set: HashSet<String>,
    lifecycle: VecDeque<LifecycleRow>,
    next_seq: u64,
    /// The last row's number (every row is durable once recorded: there is
    /// no disk to wait for).
    tail: tokio::sync::watch::Sender<u64>,
    requests: HashMap<String, StoredRequest>,
    credentials: Vec<StoredCredential>,
}

impl Default for MemoryStore {
    fn default() -> Self {
        MemoryStore::with_finished_cap(DEFAULT_FINISHED_CAP)
    }
}

impl MemoryStore {
    /// A store that keeps at most `cap` finished matches.
    pub fn with_finished_cap(cap: usize) -> MemoryStore {
        MemoryStore {
            finished_cap: cap,
            inner: Mutex::new(Inner {
                next_seq: 1,
                ..Inner::default()
            }),
        }
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Inner {
    fn record(&mut self, events: &[LifecycleEvent]) {
        for event in events {
            if self.lifecycle.len() == LIFECYCLE_ROWS_KEPT {
                self.lifecycle.pop_front();
            }
            self.lifecycle.push_back(LifecycleRow {
                seq: self.next_seq,
                event: event.clone(),
            });
            self.next_seq += 1;
        }
        if !events.is_empty() {
            self.tail.send_replace(self.next_seq - 1);
        }
    }

    fn unknown(&self, match_id: &str, kept: usize) -> HostError {
        if self.expired_set.contains(match_id) {
            HostError::MatchExpired {
                match_id: match_id.to_string(),
                kept,
            }
        } else {
            HostError::UnknownMatch {
                match_id: match_id.to_string(),
            }
        }
    }

    /// `match_id` just finished: drops the oldest finished matches beyond
    /// `cap`.
    fn finished(&mut self, match_id: &str, cap: usize) {
        self.finished.push_back(match_id.to_string());
        while self.finished.len() > cap {
            let Some(oldest) = self.finished.pop_front() else {
                break;
            };
            if let Some(gone) = self.matches.remove(&oldest) {
                self.by_creation
                    .remove(&(gone.setup.created_at_ms, oldest.clone()));
            }
            self.requests.retain(|_, r| r.match_id != oldest);
            if self.expired.len() == EXPIRED_IDS_KEPT
                && let Some(forgotten) = self.expired.pop_front()
            {
                self.expired_set.remove(&forgotten);
            }
            self.expired_set.insert(oldest.clone());
            self.expired.push_back(oldest);
        }
    }
}

impl Store for MemoryStore {
    fn create_match(&self, new: &NewMatch<'_>) -> HostResult<Commit> {
        let mut inner = self.inner();
        let id = &new.stored.setup.match_id;
        if inner.matches.contains_key(id) {
            return Err(HostError::Internal(format!(
                "the match store already has a match {id}"
            )));
        }
        if let Some(request) = new.request
            && inner.requests.contains_key(&request.request_id)
        {
            return Err(HostError::Internal(format!(
                "the match store already answered request {}",
                request.request_id
            )));
        }
        inner
            .by_creation
            .insert((new.stored.setup.created_at_ms, id.clone()), ());
        inner.matches.insert(id.clone(), new.stored.clone());
        if let Some(request) = new.request {
            inner
                .requests
                .insert(request.request_id.clone(), request.clone());
        }
        inner.record(new.lifecycle);
        if new.stored.state() == Lifecycle::Finished {
            inner.finished(id, self.finished_cap);
        }
        Ok(Commit::done())
    }

    fn append(&self, match_id: &str, change: &Change<'_>) -> HostResult<Commit> {
        let mut inner = self.inner();
        let kept = self.finished_cap;
        let Some(stored) = inner.matches.get_mut(match_id) else {
            return Err(inner.unknown(match_id, kept));
        };
        let was_finished = stored.state() == Lifecycle::Finished;
        stored.log.extend_from_slice(change.entries);
        if let Some(pending) = change.pending {
            stored.pending = pending.to_vec();
        }
        if !change.results.is_empty() {
            stored.results = change.results.to_vec();
        }
        let finished = !was_finished && stored.state() == Lifecycle::Finished;
        inner.record(change.lifecycle);
        if finished {
            inner.finished(match_id, kept);
        }
        Ok(Commit::done())
    }

    fn join_seat(
        &self,
        match_id: &str,
        join: SeatJoin,
        token_hash: [u8; 32],
        lifecycle: &[LifecycleEvent],
    ) -> HostResult<()> {
        let mut inner = self.inner();
        let kept = self.finished_cap;
        let Some(stored) = inner.matches.get_mut(match_id) else {
            return Err(inner.unknown(match_id, kept));
        };
        let Some(slot) = stored.seat_hashes.get_mut(join.seat as usize) else {
            return Err(HostError::Internal(format!(
                "the match store has no seat {} in match {match_id}",
                join.seat
            )));
        };
        *slot = Some(token_hash);
        if let Some(code) = stored.join_code_hashes.get_mut(join.seat as usize) {
            *code = None;
        }
        stored.joins.push(join);
        inner.record(lifecycle);
        Ok(())
    }

    fn load(&self, match_id: &str) -> HostResult<Option<StoredMatch>> {
        let inner = self.inner();
        match inner.matches.get(match_id) {
            Some(stored) => Ok(Some(stored.clone())),
            None if inner.expired_set.contains(match_id) => {
                Err(inner.unknown(match_id, self.finished_cap))
            }
            None => Ok(None),
        }
    }

    fn load_unfinished(&self) -> HostResult<Vec<Result<StoredMatch, DamagedMatch>>> {
        let inner = self.inner();
        Ok(inner
            .by_creation
            .keys()
            .filter_map(|(_, id)| inner.matches.get(id))
            .filter(|m| m.state() != Lifecycle::Finished)
            .cloned()
            .map(Ok)
            .collect())
    }

    fn list(&self, query: &MatchQuery) -> HostResult<Vec<StoredSummary>> {
        let inner = self.inner();
        Ok(inner
            .by_creation
            .keys()
            .filter_map(|(_, id)| inner.matches.get(id))
            .filter(|m| query.selects(&m.setup, m.listed_state()))
            .take(query.limit)
            .map(StoredMatch::summary)
            .collect())
    }

    fn lifecycle_after(&self, after_seq: u64, limit: usize) -> HostResult<Vec<LifecycleRow>> {
        let inner = self.inner();
        if let Some(first) = inner.lifecycle.front()
            && after_seq + 1 < first.seq
        {
            return Err(HostError::InvalidRequest(format!(
                "lifecycle event {} is no longer kept: the in-memory store keeps the last {} \
                 (from {}); start over from the matches' current states",
                after_seq + 1,
                LIFECYCLE_ROWS_KEPT,
                first.seq
            )));
        }
        Ok(inner
            .lifecycle
            .iter()
            .filter(|row| row.seq > after_seq)
            .take(limit)
            .cloned()
            .collect())
    }

    fn lifecycle_tail(&self) -> tokio::sync::watch::Receiver<u64> {
        self.inner().tail.subscribe()
    }

    fn request(&self, request_id: &str) -> HostResult<Option<StoredRequest>> {
        Ok(self.inner().requests.get(request_id).cloned())
    }

    fn backup(&self, _: &Path) -> HostResult<Backup> {
        Err(HostError::Unsupported(
            "the memory store keeps nothing on disk to back up; start the host with \
             --store sqlite"
                .into(),
        ))
    }

    fn reissue_token(&self, match_id: &str, seat: u32, token_hash: [u8; 32]) -> HostResult<()> {
        let mut inner = self.inner();
        let kept = self.finished_cap;
        let Some(stored) = inner.matches.get_mut(match_id) else {
            return Err(inner.unknown(match_id, kept));
        };
        match stored.seat_hashes.get_mut(seat as usize) {
            Some(slot @ Some(_)) => {
                *slot = Some(token_hash);
                Ok(())
            }
            _ => Err(HostError::Internal(format!(
                "the match store has no taken seat {seat} in match {match_id}"
            ))),
        }
    }

    fn credentials(&self) -> HostResult<Vec<StoredCredential>> {
        Ok(self.inner().credentials.clone())
    }

    fn issue_credential(&self, credential: &StoredCredential) -> HostResult<()> {
        let mut inner = self.inner();
        if inner
            .credentials
            .iter()
            .any(|c| c.credential_id == credential.credential_id)
        {
            return Err(HostError::Internal(format!(
                "credential {} is stored already",
                credential.credential_id
            )));
        }
        inner.credentials.push(credential.clone());
        Ok(())
    }

    fn revoke_credential(&self, credential_id: &str, at_ms: i64) -> HostResult<bool> {
        let mut inner = self.inner();
        let Some(credential) = inner
            .credentials
            .iter_mut()
            .find(|c| c.credential_id == credential_id)
        else {
            return Ok(false);
        };
        credential.revoked_at_ms.get_or_insert(at_ms);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::store_conformance!(|_dir: &std::path::Path| MemoryStore::default());

    #[test]
    fn finished_matches_beyond_the_cap_expire_oldest_first() {
        let store = MemoryStore::with_finished_cap(2);
        for id in ["a", "b", "c"] {
            super::super::conformance::create_finished(&store, id);
        }
        assert!(matches!(
            store.load("a"),
            Err(HostError::MatchExpired { ref match_id, kept: 2 }) if match_id == "a"
        ));
        assert!(store.load("b").unwrap().is_some());
        assert!(store.load("c").unwrap().is_some());
        assert_eq!(store.load("never").unwrap(), None);
        let listed: Vec<String> = store
            .list(&MatchQuery::default())
            .unwrap()
            .into_iter()
            .map(|m| m.setup.match_id)
            .collect();
        assert_eq!(listed, ["b", "c"]);
    }
}
