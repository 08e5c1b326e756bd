//! The matches the host holds in memory, by id: how many of them are not
//! finished (in all and per tenant), and which have a clock that may run
//! out.

use std::collections::hash_map::Entry;
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use super::live::{LiveMatch, lock, try_lock};

/// One match's place in the table: its lock.
pub type Slot = Arc<Mutex<LiveMatch>>;

/// The live matches by id.
#[derive(Debug, Default)]
pub struct MatchTable {
    /// Every request looks its match up here (twice per bot action) and
    /// nothing needs them in order (listings sort), so a hash map: with
    /// 100 000 matches held, a B-tree's string compares and cache misses
    /// cost ~0.5 µs of a Lanzeloth action at that size.
    slots: RwLock<HashMap<String, Slot>>,
    /// How many of `slots` are not finished: the live-match cap reads it
    /// on every creation, so it is kept rather than counted.
    unfinished: AtomicUsize,
    /// How many of `slots` are not finished, per tenant (a tenant with none
    /// has no entry, so the map is bounded by the live matches): the
    /// tenant's live-match cap reads it on every creation by an organizer.
    unfinished_by_tenant: Mutex<HashMap<String, usize>>,
    /// Matches whose clock may still run out.
    clocked: Mutex<BTreeSet<String>>,
}

impl MatchTable {
    /// The match `match_id`, if it is held.
    pub fn get(&self, match_id: &str) -> Option<Slot> {
        self.slots
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(match_id)
            .cloned()
    }

    /// Holds `live` (unless a match of its id is held already: then that
    /// one, since two calls may read one stored match back at once and the
    /// first to install it wins). Returns the slot held, and whether it is
    /// the one given.
    pub fn insert(&self, live: LiveMatch) -> (Slot, bool) {
        let id = live.setup().match_id.clone();
        if live.has_deadline() {
            self.clocked
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(id.clone());
        }
        let unfinished = live.finished_at().is_none();
        let tenant = live.setup().tenant.clone();
        let mut slots = self.slots.write().unwrap_or_else(|e| e.into_inner());
        match slots.entry(id) {
            Entry::Occupied(held) => (Arc::clone(held.get()), false),
            Entry::Vacant(free) => {
                if unfinished {
                    self.unfinished.fetch_add(1, Ordering::Relaxed);
                    *self
                        .unfinished_by_tenant
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .entry(tenant)
                        .or_insert(0) += 1;
                }
                (Arc::clone(free.insert(Arc::new(Mutex::new(live)))), true)
            }
        }
    }

    /// Lets go of `match_id` (its creation could not be stored).
    pub fn discard(&self, match_id: &str) {
        let removed = self
            .slots
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(match_id);
        if let Some(slot) = removed {
            let m = lock(&slot);
            if m.finished_at().is_none() {
                self.one_finished(&m.setup().tenant);
            }
        }
        self.stop_clock(match_id);
    }

    /// One match held, of `tenant`, has finished (or an unfinished one
    /// left).
    pub fn one_finished(&self, tenant: &str) {
        let _ = self
            .unfinished
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
        let mut by_tenant = self
            .unfinished_by_tenant
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(count) = by_tenant.get_mut(tenant) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                by_tenant.remove(tenant);
            }
        }
    }

    /// How many matches held are waiting or running.
    pub fn unfinished(&self) -> usize {
        self.unfinished.load(Ordering::Relaxed)
    }

    /// How many matches held of `tenant` are waiting or running.
    pub fn unfinished_in(&self, tenant: &str) -> usize {
        self.unfinished_by_tenant
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(tenant)
            .copied()
            .unwrap_or(0)
    }

    /// How many matches are held.
    pub fn held(&self) -> usize {
        self.slots.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Every match held, in no order.
    pub fn all(&self) -> Vec<Slot> {
        self.slots
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect()
    }

    /// Lets go of the finished matches that finished (or were read back)
    /// at least `retention` ago and that nobody watches (a busy match is
    /// looked at next time). Returns how many it let go.
    pub fn unload_finished(&self, retention: Duration) -> usize {
        let now = Instant::now();
        let candidates: Vec<String> = self
            .slots
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .filter_map(|(id, slot)| {
                let m = try_lock(slot)?;
                let since = m.finished_at()?;
                (now.duration_since(since) >= retention && !m.is_watched()).then(|| id.clone())
            })
            .collect();
        let mut slots = self.slots.write().unwrap_or_else(|e| e.into_inner());
        for id in &candidates {
            slots.remove(id);
        }
        candidates.len()
    }

    /// The matches whose clock may still run out.
    pub fn clocked(&self) -> Vec<String> {
        self.clocked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .cloned()
            .collect()
    }

    /// Stops looking at `match_id`'s clock: it has none that can run out
    /// any more, or the match is gone.
    pub fn stop_clock(&self, match_id: &str) {
        self.clocked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(match_id);
    }
}
