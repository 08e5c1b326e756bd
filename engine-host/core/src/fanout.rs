//! Live event fan-out: each change described once per viewer (the game says
//! what each seat and the spectator saw happen) and sent to the match's
//! live watchers.
//!
//! Every change gets the next event sequence number whether or not anyone
//! watches, so the numbers a live watcher sees are the ones the match's
//! history regenerates from the log. The descriptions and views
//! themselves are built only while someone watches; the match keeps no
//! past events (its history is its log), and a live event lives only until
//! every watcher has taken it.
//!
//! `Feed` is that part of a match: the count of events so far, the
//! channel, created on the first watch, and the events of a sealed match
//! (`Match::is_sealed`) since its quarantine. Those are the one exception
//! to keeping no past events: telling a sealed match's history again would
//! replay its log through the plugin it may not call, so its events from
//! the quarantine on (the quarantine, and the abort or adjudication that
//! may end it: host events whose views need no plugin) are kept as they
//! are made, at most two per match.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;
use tabletop_sdk::Viewer;
use tokio::sync::broadcast;

use crate::seat::SeatResult;
use crate::view::MatchView;

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

impl ViewerEvent {
    /// About how many bytes the event takes in a reply: its text fields,
    /// which are nearly all of it (a page of events stops at a byte budget
    /// by this measure).
    pub fn text_bytes(&self) -> usize {
        match &self.update {
            ViewerUpdate::Transition { event_json, view } => {
                event_json.len()
                    + view
                        .as_ref()
                        .map_or(0, |v| v.view_json.len() + v.text.len())
            }
            ViewerUpdate::SeatActed { .. } => 0,
        }
    }
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
/// joining, resigning, running out of time or leaving the game, of a
/// director's control, and of a quarantine and its release.
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
        results: Vec<SeatResult>,
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
    /// The host quarantined the match: its plugin's worker died in one of
    /// its calls. Clocks stopped, actions refused, no game events until it
    /// is released.
    Quarantined {
        /// Why.
        reason: String,
    },
    /// The admin lifted the quarantine: play goes on.
    Released,
}

impl HostEvent {
    /// The event's JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(&self).unwrap_or_default()
    }
}

/// A match's events so far and its live channel: the channel is created
/// on the first watch (its buffer would otherwise be most of an idle
/// match's memory) and dropped when a new watcher finds nobody listening.
#[derive(Debug, Default)]
pub(crate) struct Feed {
    /// The sequence number of the last event (0: none).
    seq: u64,
    live: Option<Channel>,
    /// A sealed match's events since its quarantine, oldest first.
    kept: Vec<Arc<MatchEvent>>,
}

/// The live channel, and how many of its watchers want views (the rest are
/// spared computing them).
#[derive(Debug)]
struct Channel {
    sender: broadcast::Sender<Arc<MatchEvent>>,
    view_watchers: Arc<AtomicUsize>,
}

/// A watcher's live subscription (see `Match::subscribe`).
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

impl Feed {
    /// The sequence number of the last event so far (0: none).
    pub(crate) fn seq(&self) -> u64 {
        self.seq
    }

    /// Whether anyone watches now.
    pub(crate) fn is_watched(&self) -> bool {
        self.live
            .as_ref()
            .is_some_and(|live| live.sender.receiver_count() > 0)
    }

    /// Whether a live watcher wants views with its events.
    pub(crate) fn wants_views(&self) -> bool {
        self.live
            .as_ref()
            .is_some_and(|live| live.view_watchers.load(Ordering::Relaxed) > 0)
    }

    /// Subscribes to the events after [`Feed::seq`]. Live events carry
    /// views while at least one subscription made `with_views` is alive.
    pub(crate) fn subscribe(&mut self, with_views: bool) -> Subscription {
        if !self.is_watched() {
            // A channel nobody listens to may still hold the last events
            // its watchers left behind: start afresh.
            self.live = None;
        }
        let live = self.live.get_or_insert_with(|| Channel {
            sender: broadcast::channel(WATCH_BUFFER).0,
            view_watchers: Arc::new(AtomicUsize::new(0)),
        });
        let views = with_views.then(|| {
            live.view_watchers.fetch_add(1, Ordering::Relaxed);
            ViewInterest(Arc::clone(&live.view_watchers))
        });
        Subscription {
            receiver: live.sender.subscribe(),
            views,
        }
    }

    /// Counts the next event (the match at `version`, `finished` or not,
    /// at `at_ms`) and sends it to live watchers with `updates`, one per
    /// viewer; `None` when nobody watches (the event is only counted).
    /// `keep`: the match is sealed, and the event (with its `updates`) is
    /// kept as part of its history.
    pub(crate) fn publish(
        &mut self,
        version: u64,
        at_ms: i64,
        finished: bool,
        updates: Option<Vec<ViewerUpdate>>,
        keep: bool,
    ) {
        self.seq += 1;
        let Some(updates) = updates else {
            return;
        };
        let event = Arc::new(MatchEvent {
            seq: self.seq,
            version,
            at_ms,
            updates,
            finished,
        });
        if keep {
            self.kept.push(Arc::clone(&event));
        }
        if let Some(live) = &self.live {
            // No receiver is fine: the last watcher just left.
            let _ = live.sender.send(event);
        }
    }

    /// A sealed match's events since its quarantine, oldest first (empty
    /// for any other match).
    pub(crate) fn kept(&self) -> &[Arc<MatchEvent>] {
        &self.kept
    }

    /// The quarantine was lifted: the match's events are told by replaying
    /// its log again, these with the rest.
    pub(crate) fn forget_kept(&mut self) {
        self.kept = Vec::new();
    }
}
