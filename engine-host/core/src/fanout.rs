//! Live event fan-out: each change described once per viewer (the game says
//! what each seat and the spectator saw happen) and sent to the match's
//! live watchers.
//!
//! Every change gets the next event sequence number whether or not anyone
//! watches, so the numbers a live watcher sees are the ones
//! [`crate::history`] regenerates from the log. The descriptions and views
//! themselves are built only while someone watches; the match keeps no
//! past events (its history is its log), and a live event lives only until
//! every watcher has taken it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;
use tabletop_sdk::{DynState, Player, Transition, Viewer};
use tokio::sync::broadcast;

use crate::Match;
use crate::error::HostResult;
use crate::setup::Lifecycle;
use crate::view::{MatchView, ViewDetail};

/// What a viewer is told of one change.
#[derive(Debug, Clone)]
pub enum ViewerUpdate {
    /// A state change (a log entry) or a seat taken.
    Transition {
        /// What happened, as JSON: the game's description of a move or a
        /// chance outcome, or the host's of a seat joining, resigning,
        /// running out of time or being taken out ([`HostEvent`]).
        event_json: String,
        /// The view right after it, with the clocks as of its time; `None`
        /// when the client asked for events without views.
        view: Option<Arc<MatchView>>,
    },
    /// A seat submitted its part of a simultaneous turn (what it chose
    /// stays hidden until the turn resolves).
    SeatActed {
        /// The seat.
        seat: u32,
    },
}

/// One event as one viewer sees it.
#[derive(Debug, Clone)]
pub struct ViewerEvent {
    /// The event's sequence number in its match: 1, 2, … with no gap. A
    /// watcher resumes after the last one it saw.
    pub seq: u64,
    /// The match version after the event. Several events share a version:
    /// a seat joining or acting in a simultaneous turn changes no state.
    pub version: u64,
    /// When it happened, ms since the Unix epoch.
    pub at_ms: i64,
    /// What the viewer is told.
    pub update: ViewerUpdate,
    /// Whether the match is over after it.
    pub finished: bool,
}

/// One change, prepared for every viewer (seats in order, then the
/// spectator): what live watchers receive.
#[derive(Debug)]
pub struct MatchEvent {
    /// The event's sequence number.
    pub seq: u64,
    /// The version after the change.
    pub version: u64,
    /// When it happened, ms since the Unix epoch.
    pub at_ms: i64,
    /// Per viewer: index = seat, last = spectator.
    pub updates: Vec<ViewerUpdate>,
    /// Whether the match is over after this event.
    pub finished: bool,
}

impl MatchEvent {
    /// The event as `viewer` sees it.
    pub fn for_viewer(&self, viewer: Viewer) -> ViewerEvent {
        let index = match viewer {
            Viewer::Seat(p) => p as usize,
            Viewer::Spectator => self.updates.len() - 1,
        };
        ViewerEvent {
            seq: self.seq,
            version: self.version,
            at_ms: self.at_ms,
            update: self.updates[index.min(self.updates.len() - 1)].clone(),
            finished: self.finished,
        }
    }
}

/// What the host, not the game, says happened: the `event_json` of a seat
/// joining, resigning, running out of time or leaving the game, and of a
/// director's control.
/// Every viewer is told the same.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HostEvent {
    /// A seat was taken.
    Joined {
        /// The seat.
        seat: u32,
    },
    /// A seat resigned; the match is over.
    Resigned {
        /// The seat.
        seat: u32,
    },
    /// A seat's clock ran out and it lost; the match is over.
    Timeout {
        /// The seat.
        seat: u32,
    },
    /// A seat's clock ran out and the game took it out; the others play on.
    Out {
        /// The seat.
        seat: u32,
    },
    /// A seat resigned and the game took it out; the others play on.
    ResignedOut {
        /// The seat.
        seat: u32,
    },
    /// A director ended the match without a result.
    Aborted {
        /// Why.
        reason: String,
    },
    /// A director ended the match with these results.
    Adjudicated {
        /// Every seat's result.
        results: Vec<crate::SeatResult>,
    },
    /// A director paused the match: clocks stopped, actions wait.
    Paused,
    /// A director resumed it.
    Resumed,
    /// A director gave a seat more time.
    TimeAdded {
        /// The seat.
        seat: u32,
        /// How much, in ms.
        ms: i64,
    },
    /// The open-seat deadline passed with these seats never taken: they
    /// are out.
    Absent {
        /// The seats.
        seats: Vec<u32>,
    },
}

impl HostEvent {
    /// The event's JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(&self).unwrap_or_default()
    }
}

/// A match's live feed: the channel, and how many of its watchers want
/// views (the rest are spared computing them).
#[derive(Debug)]
pub(crate) struct Feed {
    sender: broadcast::Sender<Arc<MatchEvent>>,
    view_watchers: Arc<AtomicUsize>,
}

/// A watcher's live subscription (see [`Match::subscribe`]).
#[derive(Debug)]
pub struct Subscription {
    /// The live events.
    pub receiver: broadcast::Receiver<Arc<MatchEvent>>,
    /// Held while the watcher wants views; dropping it says it no longer
    /// does.
    pub views: Option<ViewInterest>,
}

/// One watcher's interest in views with live events; released on drop.
#[derive(Debug)]
pub struct ViewInterest(Arc<AtomicUsize>);

impl Drop for ViewInterest {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// How many events a watcher may fall behind before it catches up from the
/// log instead of the live feed.
pub const WATCH_BUFFER: usize = 128;

impl Match {
    pub(crate) fn viewers(&self) -> impl Iterator<Item = Viewer> + use<> {
        (0..self.setup.players)
            .map(Viewer::Seat)
            .chain(std::iter::once(Viewer::Spectator))
    }

    /// The sequence number of the last event so far (0: none).
    pub fn event_seq(&self) -> u64 {
        self.event_seq
    }

    fn publish(&mut self, at_ms: i64, updates: Option<Vec<ViewerUpdate>>) {
        self.event_seq += 1;
        let (Some(updates), Some(feed)) = (updates, &self.events) else {
            return;
        };
        let event = MatchEvent {
            seq: self.event_seq,
            version: self.version(),
            at_ms,
            updates,
            finished: self.lifecycle == Lifecycle::Finished,
        };
        // No receiver is fine: the last watcher just left.
        let _ = feed.sender.send(Arc::new(event));
    }

    /// The views after a change, for every viewer, with the clocks as of
    /// `at_ms` (what a replay of the log shows at the same place); `None`
    /// each when no watcher wants views.
    fn views_at(&self, at_ms: i64) -> HostResult<Vec<Option<Arc<MatchView>>>> {
        let wanted = self.wants_views();
        self.viewers()
            .map(|viewer| {
                if !wanted {
                    return Ok(None);
                }
                let view = self.view_as_of(viewer, ViewDetail::Full, at_ms)?;
                Ok(Some(Arc::new(view)))
            })
            .collect()
    }

    pub(crate) fn publish_transition(
        &mut self,
        before: Option<Box<dyn DynState>>,
        transition: Transition,
        at_ms: i64,
    ) -> HostResult<()> {
        // The transition that ends the match must carry the finished view
        // (state and results), not the last running one.
        if self.lifecycle != Lifecycle::Finished
            && self.state.status()? == tabletop_sdk::Status::Terminal
        {
            self.finish_normally()?;
        }
        let Some(before) = before else {
            self.publish(at_ms, None);
            return Ok(());
        };
        let views = self.views_at(at_ms)?;
        let mut updates = Vec::with_capacity(views.len());
        for (viewer, view) in self.viewers().zip(views) {
            updates.push(ViewerUpdate::Transition {
                event_json: self.state.event(before.as_ref(), &transition, viewer)?,
                view,
            });
        }
        self.publish(at_ms, Some(updates));
        Ok(())
    }

    pub(crate) fn publish_host_event(&mut self, event: &HostEvent, at_ms: i64) -> HostResult<()> {
        if !self.watched() {
            self.publish(at_ms, None);
            return Ok(());
        }
        let event_json = event.to_json();
        let updates = self
            .views_at(at_ms)?
            .into_iter()
            .map(|view| ViewerUpdate::Transition {
                event_json: event_json.clone(),
                view,
            })
            .collect();
        self.publish(at_ms, Some(updates));
        Ok(())
    }

    pub(crate) fn publish_seat_acted(&mut self, seat: Player, at_ms: i64) -> HostResult<()> {
        let updates = self.watched().then(|| {
            self.viewers()
                .map(|_| ViewerUpdate::SeatActed { seat })
                .collect()
        });
        self.publish(at_ms, updates);
        Ok(())
    }

    /// Whether anyone watches the match now.
    pub fn is_watched(&self) -> bool {
        self.watched()
    }

    /// Whether anyone watches now.
    pub(crate) fn watched(&self) -> bool {
        self.events
            .as_ref()
            .is_some_and(|feed| feed.sender.receiver_count() > 0)
    }

    /// Subscribes to the events after [`Match::event_seq`]; the ones up to
    /// it come from [`Match::history`]. Live events carry views while at
    /// least one subscription made `with_views` is alive.
    pub fn subscribe(&mut self, with_views: bool) -> Subscription {
        if !self.watched() {
            // A feed nobody listens to may still hold the last events its
            // watchers left behind: start afresh.
            self.events = None;
        }
        let feed = self.events.get_or_insert_with(|| Feed {
            sender: broadcast::channel(WATCH_BUFFER).0,
            view_watchers: Arc::new(AtomicUsize::new(0)),
        });
        let views = with_views.then(|| {
            feed.view_watchers.fetch_add(1, Ordering::Relaxed);
            ViewInterest(Arc::clone(&feed.view_watchers))
        });
        Subscription {
            receiver: feed.sender.subscribe(),
            views,
        }
    }

    /// Whether a live watcher wants views with its events.
    fn wants_views(&self) -> bool {
        self.events
            .as_ref()
            .is_some_and(|feed| feed.view_watchers.load(Ordering::Relaxed) > 0)
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
