//! Event fan-out: each state change described once per viewer (the game
//! says what each seat and the spectator saw happen), kept in a short
//! history for watchers that resume, and sent to live watchers.
//!
//! Events are built only while someone watches: an unwatched match skips
//! the state copy and the per-viewer descriptions, and its history is
//! cleared (it would have a gap).

use std::sync::Arc;

use tabletop_sdk::{DynState, Player, Status, Transition, Viewer};
use tokio::sync::broadcast;

use crate::Match;
use crate::error::HostResult;
use crate::setup::Lifecycle;
use crate::view::MatchView;

/// What a viewer receives when the match changes.
#[derive(Debug, Clone)]
pub enum ViewerUpdate {
    /// A state change: the game's event for this viewer and the view after.
    Transition {
        /// Plugin-described event (JSON).
        event_json: String,
        /// The view afterwards.
        view: Box<MatchView>,
    },
    /// A seat submitted its part of a simultaneous turn.
    SeatActed {
        /// The seat.
        seat: u32,
    },
}

/// One change, prepared for every viewer (seats in order, then the spectator).
#[derive(Debug)]
pub struct MatchEvent {
    /// The version after the change.
    pub version: u64,
    /// Per viewer: index = seat, last = spectator.
    pub updates: Vec<ViewerUpdate>,
    /// Whether the match is over after this event.
    pub finished: bool,
}

impl MatchEvent {
    /// The update for `viewer`.
    pub fn for_viewer(&self, viewer: Viewer) -> &ViewerUpdate {
        let index = match viewer {
            Viewer::Seat(p) => p as usize,
            Viewer::Spectator => self.updates.len() - 1,
        };
        &self.updates[index.min(self.updates.len() - 1)]
    }
}

/// How many past events a match keeps for watchers that resume.
pub const EVENT_HISTORY: usize = 256;

/// How many events a watcher may fall behind before it gets a fresh snapshot.
pub const WATCH_BUFFER: usize = 128;

impl Match {
    pub(crate) fn viewers(&self) -> impl Iterator<Item = Viewer> + use<> {
        (0..self.setup.players)
            .map(Viewer::Seat)
            .chain(std::iter::once(Viewer::Spectator))
    }

    pub(crate) fn publish(&mut self, event: MatchEvent) {
        let event = Arc::new(event);
        if self.history.len() == EVENT_HISTORY {
            self.history.pop_front();
        }
        self.history.push_back(Arc::clone(&event));
        // No receiver is fine: nobody watches.
        if let Some(events) = &self.events {
            let _ = events.send(event);
        }
    }

    pub(crate) fn publish_transition(
        &mut self,
        before: Option<Box<dyn DynState>>,
        transition: Transition,
    ) -> HostResult<()> {
        let Some(before) = before else {
            // Nobody watched: any history would now have a gap.
            self.history.clear();
            return Ok(());
        };
        // The transition that ends the match must carry the finished view
        // (state and results), not the last running one.
        if self.lifecycle != Lifecycle::Finished && self.state.status()? == Status::Terminal {
            self.finish_normally()?;
        }
        let mut updates = Vec::new();
        for viewer in self.viewers() {
            updates.push(ViewerUpdate::Transition {
                event_json: self.state.event(before.as_ref(), &transition, viewer)?,
                view: Box::new(self.view(viewer)?),
            });
        }
        let event = MatchEvent {
            version: self.version(),
            updates,
            finished: self.state.status()? == Status::Terminal,
        };
        self.publish(event);
        Ok(())
    }

    pub(crate) fn publish_host_event(&mut self, event_json: &str) -> HostResult<()> {
        if !self.watched() {
            self.history.clear();
            return Ok(());
        }
        let mut updates = Vec::new();
        for viewer in self.viewers() {
            updates.push(ViewerUpdate::Transition {
                event_json: event_json.to_string(),
                view: Box::new(self.view(viewer)?),
            });
        }
        let event = MatchEvent {
            version: self.version(),
            updates,
            finished: self.lifecycle == Lifecycle::Finished,
        };
        self.publish(event);
        Ok(())
    }

    pub(crate) fn publish_seat_acted(&mut self, seat: Player) {
        if !self.watched() {
            return;
        }
        let updates = self
            .viewers()
            .map(|_| ViewerUpdate::SeatActed { seat })
            .collect();
        self.publish(MatchEvent {
            version: self.version(),
            updates,
            finished: false,
        });
    }

    /// Whether anyone watches now.
    pub(crate) fn watched(&self) -> bool {
        self.events.as_ref().is_some_and(|e| e.receiver_count() > 0)
    }

    /// Subscribes to future events, and returns the past events after
    /// `from_version` if the history still holds all of them.
    pub fn subscribe(
        &mut self,
        from_version: Option<u64>,
    ) -> (
        broadcast::Receiver<Arc<MatchEvent>>,
        Option<Vec<Arc<MatchEvent>>>,
    ) {
        let receiver = self
            .events
            .get_or_insert_with(|| broadcast::channel(WATCH_BUFFER).0)
            .subscribe();
        let replay = from_version.and_then(|from| {
            if from > self.version() {
                return None;
            }
            if from == self.version() {
                return Some(Vec::new());
            }
            let missed: Vec<Arc<MatchEvent>> = self
                .history
                .iter()
                .filter(|e| e.version > from)
                .cloned()
                .collect();
            // Complete only if the first missed state change is there.
            let first_transition = missed
                .iter()
                .find(|e| !matches!(e.updates.first(), Some(ViewerUpdate::SeatActed { .. })));
            match first_transition {
                Some(e) if e.version == from + 1 => Some(missed),
                _ => None,
            }
        });
        (receiver, replay)
    }

    /// A copy of the state before a change, only when someone watches (events
    /// need it; unwatched matches skip the clone).
    pub(crate) fn snapshot_if_watched(&self) -> HostResult<Option<Box<dyn DynState>>> {
        if !self.watched() {
            return Ok(None);
        }
        Ok(Some(self.state.clone_state()?))
    }
}
