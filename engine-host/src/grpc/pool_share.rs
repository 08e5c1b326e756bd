//! Each caller's share of the blocking pool.
//!
//! The pool runs the core calls that may take long: replays, views of past
//! versions, pages of events and matches, and every call of a plugin in a
//! worker process. Its threads are few (`--blocking-threads`), so one
//! caller with many such calls in flight could hold them all, and every
//! other caller's calls — a player's SubmitAction through an isolated
//! plugin among them — would wait in line behind its heavy reads. The rate
//! weighs a call by its cost only once it has run; this bounds what one
//! caller runs at once: at most `--pool-calls-per-caller` of its calls are
//! on the pool, and the rest wait (as futures, holding no thread) for one
//! of them to end. A caller is who pays for the call: a seat for a seat
//! token's call, the credential or the anonymous key otherwise.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::limits::Key;

/// Who a pool call is counted against.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Sharer {
    /// A credential, the admin, or the anonymous key.
    Key(Key),
    /// The seat whose token's hash this is.
    Seat([u8; 32]),
}

/// The pool's shares (see the module docs).
#[derive(Debug)]
pub struct PoolShares {
    per_caller: usize,
    /// The callers with calls on the pool or waiting for it.
    callers: Mutex<HashMap<Sharer, Arc<Semaphore>>>,
}

impl PoolShares {
    /// Shares of at most `per_caller` calls at once (0: no limit).
    pub fn new(per_caller: usize) -> Arc<PoolShares> {
        Arc::new(PoolShares {
            per_caller,
            callers: Mutex::new(HashMap::new()),
        })
    }

    /// Waits until `sharer` may run one more call on the pool; the call
    /// holds the returned place until it ends.
    pub async fn enter(self: &Arc<Self>, sharer: Sharer) -> Option<PoolPlace> {
        if self.per_caller == 0 {
            return None;
        }
        let semaphore = Arc::clone(
            self.lock()
                .entry(sharer.clone())
                .or_insert_with(|| Arc::new(Semaphore::new(self.per_caller))),
        );
        // The semaphore is never closed, so acquiring only waits.
        let permit = Arc::clone(&semaphore).acquire_owned().await.ok()?;
        Some(PoolPlace {
            shares: Arc::clone(self),
            sharer,
            semaphore,
            permit: Some(permit),
        })
    }

    /// How many callers have calls on the pool or waiting for it.
    pub fn callers(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Sharer, Arc<Semaphore>>> {
        self.callers.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// One call's place on the pool, given back when dropped; a caller with
/// nothing left on the pool is forgotten.
#[derive(Debug)]
pub struct PoolPlace {
    shares: Arc<PoolShares>,
    sharer: Sharer,
    semaphore: Arc<Semaphore>,
    permit: Option<OwnedSemaphorePermit>,
}

impl Drop for PoolPlace {
    fn drop(&mut self) {
        drop(self.permit.take());
        let mut callers = self.shares.lock();
        // The map's reference and this one: nobody else holds or waits.
        if Arc::strong_count(&self.semaphore) == 2
            && self.semaphore.available_permits() == self.shares.per_caller
        {
            callers.remove(&self.sharer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_caller_runs_at_most_its_share_at_once_while_others_run_theirs() {
        let shares = PoolShares::new(2);
        let flooder = Sharer::Key(Key::Anonymous);
        let first = shares.enter(flooder.clone()).await;
        let second = shares.enter(flooder.clone()).await;
        let third = tokio::time::timeout(
            std::time::Duration::from_millis(50),
            shares.enter(flooder.clone()),
        )
        .await;
        assert!(third.is_err(), "a third call waits for one of the two");
        let player = shares.enter(Sharer::Seat([7; 32])).await;
        assert!(player.is_some(), "another caller is not held up");
        drop(player);
        assert_eq!(
            shares.callers(),
            1,
            "a caller with nothing on the pool is forgotten"
        );
        drop(first);
        let third = shares.enter(flooder).await;
        assert!(third.is_some(), "a place freed is taken");
        drop((second, third));
        assert_eq!(shares.callers(), 0);
    }
}
