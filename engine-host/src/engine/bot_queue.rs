//! The matches that may need a bot move, and the search slots they wait
//! for: one queue per creator, served round-robin, with a bound on the
//! searches one creator has running at once.
//!
//! A match is keyed by its creator ([`super::bots::creator_of`]): every
//! anonymous caller's match under one key, each credential's under its own.
//! A bot thread takes the first creator in turn that is below its bound
//! and has a match not already moving, takes that creator's oldest such
//! match, and sends the creator to the back of the turn. So however many
//! long searches one creator queues, it holds at most
//! `--bot-searches-per-creator` of the `--bot-threads` slots, and another
//! creator's match waits for a slot only while every slot is busy (more
//! creators are searching than the slots hold) — then for one turn of the
//! creators ahead of it.
//!
//! A match whose move is being made is not handed out again until that
//! move is done: a poke meanwhile (its own bot's submit, a client's move)
//! keeps it queued for the next turn, so two slots never search the same
//! match.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Instant;

use super::bots::creator_kind;
use crate::metrics::metrics;

/// Searches one creator runs at once unless the host is told otherwise
/// (`--bot-searches-per-creator`).
pub const DEFAULT_SEARCHES_PER_CREATOR: usize = 2;

/// The matches that may need a bot move, each queued at most once, by
/// creator.
#[derive(Debug)]
pub struct BotQueue {
    state: Mutex<Queued>,
    ready: Condvar,
    /// The most searches one creator has running at once.
    per_creator: usize,
}

impl Default for BotQueue {
    /// A queue that lets each creator run [`DEFAULT_SEARCHES_PER_CREATOR`].
    fn default() -> BotQueue {
        BotQueue::new(DEFAULT_SEARCHES_PER_CREATOR)
    }
}

/// A queued match and when it was queued (for the wait it is measured by).
#[derive(Debug)]
struct Waiting {
    match_id: String,
    since: Instant,
}

#[derive(Debug, Default)]
struct Queued {
    /// The waiting matches by creator, each creator's in the order poked.
    waiting: HashMap<String, VecDeque<Waiting>>,
    /// The creators with waiting matches, in the order they are served.
    turns: VecDeque<String>,
    /// Every waiting match.
    members: HashSet<String>,
    /// The matches whose bot move is being made.
    moving: HashSet<String>,
    /// Moves being made, by creator.
    running: HashMap<String, usize>,
    stopped: bool,
}

impl Queued {
    /// Takes the first creator in turn that may run another search and
    /// has a match not moving, and that creator's oldest such match.
    fn take(&mut self, per_creator: usize) -> Option<(String, Waiting)> {
        let (turn, at) = self.turns.iter().enumerate().find_map(|(turn, creator)| {
            if self.running.get(creator).copied().unwrap_or(0) >= per_creator {
                return None;
            }
            let queue = self.waiting.get(creator)?;
            let at = queue
                .iter()
                .position(|w| !self.moving.contains(&w.match_id))?;
            Some((turn, at))
        })?;
        let creator = self.turns.remove(turn)?;
        let queue = self.waiting.get_mut(&creator)?;
        let taken = queue.remove(at)?;
        if queue.is_empty() {
            self.waiting.remove(&creator);
        } else {
            self.turns.push_back(creator.clone());
        }
        self.members.remove(&taken.match_id);
        self.moving.insert(taken.match_id.clone());
        *self.running.entry(creator.clone()).or_default() += 1;
        Some((creator, taken))
    }

    fn running(&self) -> usize {
        self.running.values().sum()
    }
}

/// One bot move's slot: the match and its creator. The slot is given
/// back when this is dropped.
#[derive(Debug)]
pub struct BotTicket<'q> {
    queue: &'q BotQueue,
    /// The match to move in.
    pub match_id: String,
    /// Its creator's key.
    pub creator: String,
}

impl Drop for BotTicket<'_> {
    fn drop(&mut self) {
        let mut q = self.queue.lock();
        q.moving.remove(&self.match_id);
        if let Some(running) = q.running.get_mut(&self.creator) {
            *running -= 1;
            if *running == 0 {
                q.running.remove(&self.creator);
            }
        }
        metrics().bot_searches_running(q.running());
        drop(q);
        // A slot of this creator, or a match held while it moved, is free.
        self.queue.ready.notify_all();
    }
}

impl BotQueue {
    /// An empty queue whose creators each run at most `per_creator`
    /// searches at once (at least 1).
    pub fn new(per_creator: usize) -> BotQueue {
        BotQueue {
            state: Mutex::default(),
            ready: Condvar::new(),
            per_creator: per_creator.max(1),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Queued> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues `match_id`, created by `creator`, unless it is queued
    /// already.
    pub fn poke(&self, creator: &str, match_id: &str) {
        let mut q = self.lock();
        if !q.members.insert(match_id.to_string()) {
            return;
        }
        let waiting = Waiting {
            match_id: match_id.to_string(),
            since: Instant::now(),
        };
        match q.waiting.get_mut(creator) {
            Some(queue) => queue.push_back(waiting),
            None => {
                q.waiting
                    .insert(creator.to_string(), VecDeque::from([waiting]));
                q.turns.push_back(creator.to_string());
            }
        }
        metrics().bot_searches_queued(q.members.len());
        drop(q);
        // Waiting threads differ in nothing, but one may find this match's
        // creator at its bound and wait on: wake them all to look.
        self.ready.notify_all();
    }

    /// The next match a slot may serve, waiting for one; `None` once
    /// stopped.
    pub(super) fn next(&self) -> Option<BotTicket<'_>> {
        let mut q = self.lock();
        loop {
            if q.stopped {
                return None;
            }
            if let Some(ticket) = self.take(&mut q) {
                return Some(ticket);
            }
            q = self.ready.wait(q).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The next match a slot may serve if there is one, without waiting.
    pub(super) fn try_next(&self) -> Option<BotTicket<'_>> {
        self.take(&mut self.lock())
    }

    fn take(&self, q: &mut Queued) -> Option<BotTicket<'_>> {
        let (creator, taken) = q.take(self.per_creator)?;
        metrics().bot_search_waited(creator_kind(&creator), taken.since.elapsed());
        metrics().bot_searches_queued(q.members.len());
        metrics().bot_searches_running(q.running());
        Some(BotTicket {
            queue: self,
            match_id: taken.match_id,
            creator,
        })
    }

    /// Matches waiting for a slot.
    pub fn len(&self) -> usize {
        self.lock().members.len()
    }

    /// Whether no match waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bot moves being made now.
    pub fn running(&self) -> usize {
        self.lock().running()
    }

    /// Lets the bot threads end once their current search is done.
    pub fn stop(&self) {
        self.lock().stopped = true;
        self.ready.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;

    /// How long a wait for a slot may last before the test calls it stuck.
    const PATIENCE: Duration = Duration::from_secs(5);

    fn ids(tickets: &[BotTicket<'_>]) -> Vec<String> {
        tickets.iter().map(|t| t.match_id.clone()).collect()
    }

    #[test]
    fn a_match_is_queued_once_until_a_slot_takes_it() {
        let queue = BotQueue::new(8);
        queue.poke("c", "a");
        queue.poke("c", "b");
        queue.poke("c", "a");
        assert_eq!(queue.len(), 2);
        let a = queue.try_next().expect("a");
        assert_eq!(a.match_id, "a");
        queue.poke("c", "a");
        let b = queue.try_next().expect("b");
        assert_eq!(b.match_id, "b");
        assert!(
            queue.try_next().is_none(),
            "a match is not handed out while its move is made"
        );
        drop(a);
        assert_eq!(
            queue.try_next().map(|t| t.match_id.clone()),
            Some("a".into())
        );
        assert!(queue.is_empty());
        drop(b);
        assert_eq!(queue.running(), 0);
        queue.stop();
        assert!(queue.next().is_none());
    }

    #[test]
    fn creators_are_served_in_turn_each_within_its_bound() {
        let queue = BotQueue::new(2);
        for m in ["h1", "h2", "h3", "h4", "h5"] {
            queue.poke("hog", m);
        }
        queue.poke("other", "o1");
        queue.poke("other", "o2");
        queue.poke("third", "t1");
        let mut slots = Vec::new();
        while let Some(ticket) = queue.try_next() {
            slots.push(ticket);
        }
        assert_eq!(ids(&slots), ["h1", "o1", "t1", "h2", "o2"]);
        assert_eq!(queue.len(), 3, "the hog's others wait for its own slots");
        // A slot the hog gives back goes to the hog, first in turn; a
        // creator that comes later is served next, before the hog again.
        let h1 = slots.remove(0);
        drop(h1);
        queue.poke("late", "l1");
        let next = queue.try_next().expect("a slot is free");
        assert_eq!(next.match_id, "h3");
        let next_other = queue
            .try_next()
            .expect("the late creator is below its bound");
        assert_eq!(next_other.match_id, "l1");
    }

    #[test]
    fn a_waiting_slot_wakes_when_its_creator_frees_one() {
        let queue = Arc::new(BotQueue::new(1));
        queue.poke("hog", "h1");
        queue.poke("hog", "h2");
        let first = queue.try_next().expect("h1");
        let waiter = {
            let queue = Arc::clone(&queue);
            std::thread::spawn(move || queue.next().map(|t| t.match_id.clone()))
        };
        std::thread::sleep(Duration::from_millis(20));
        assert!(!waiter.is_finished(), "the hog is at its bound");
        drop(first);
        let started = Instant::now();
        while !waiter.is_finished() && started.elapsed() < PATIENCE {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(waiter.join().expect("no panic"), Some("h2".into()));
    }
}
