//! A match's history: every event any viewer was or will be told, rebuilt
//! from what the store keeps (the log, the seats taken after creation, the
//! actions held for the current turn). `Match::history` copies those out
//! of a match (through its accessors), so that the events are made without
//! holding it.
//!
//! An event for a viewer is a pure function of those and the viewer, so the
//! host never keeps past events: a watcher that starts late, resumes after
//! a restart or falls behind gets them by a walk through the log
//! (`Match::walk`), the same walk that restores a stored match. The walk makes each change through
//! the same code the live match does (the same publishing, so the same
//! sequence numbers) and reads each view with the clocks as of the event's
//! time, so a replayed event equals the live one byte for byte.
//!
//! Where events fall in the walk: a match's first entries are the chance
//! outcomes drawn at creation; seats taken later come after them (a waiting
//! match takes no action); every log entry is one event; a move held for a
//! simultaneous turn is one more, at the version it was submitted at
//! ([`LoggedMove::held`](crate::LoggedMove::held)).
//!
//! A sealed match (quarantined, or ended while it was:
//! [`Match::is_sealed`]) is never walked: a walk calls the plugin, which
//! may not be called for it. Its history holds the events it kept since
//! its quarantine (see [`crate::fanout`]) and tells those; asking for an
//! earlier event is refused with [`HostError::MatchQuarantined`] until the
//! quarantine is lifted.

use std::ops::ControlFlow;
use std::sync::Arc;

use tabletop_sdk::{DynGame, Viewer};

use crate::error::{HostError, HostResult};
use crate::fanout::{HostEvent, MatchEvent, ViewerEvent, ViewerUpdate};
use crate::game_match::Match;
use crate::game_match::replaying::{Chronicle, Happening, Sink};
use crate::log::{LogEntry, seq_of_version};
use crate::seat::SeatJoin;
use crate::setup::MatchSetup;
use crate::simultaneous::HeldAction;
use crate::stage::Lifecycle;
use crate::view::{MatchView, ViewDetail};

impl Match {
    /// Everything the match's past events are made from, copied so that
    /// they can be regenerated without holding the match.
    pub fn history(&self) -> History {
        History {
            game: Arc::clone(self.game()),
            setup: self.setup().clone(),
            token_hashes: self.seats().iter().map(|s| s.token_hash).collect(),
            joins: self.joins().to_vec(),
            log: self.log().to_vec(),
            pending: self.held_actions().to_vec(),
            last_seq: self.event_seq(),
            sealed: self.is_sealed().then(|| Sealed {
                error: self.quarantined(),
                kept: self.kept_events().to_vec(),
            }),
        }
    }
}

/// How much one page of events may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// Events, at most.
    pub events: usize,
    /// Bytes of text ([`ViewerEvent::text_bytes`]): the page ends with the
    /// event that reaches them.
    pub bytes: usize,
}

impl Page {
    /// Whether a page of `events` events and `bytes` bytes is full.
    fn is_full(self, events: usize, bytes: usize) -> bool {
        events >= self.events || bytes >= self.bytes
    }
}

/// What a sealed match's history holds in place of a walk.
struct Sealed {
    /// The refusal of an event before the kept ones.
    error: HostError,
    /// The events since the quarantine, oldest first.
    kept: Vec<Arc<MatchEvent>>,
}

impl Sealed {
    /// Up to `limit` kept events after `after_seq`, as `viewer` was told
    /// them; refused when an event before the kept ones is asked for.
    fn events(
        &self,
        viewer: Viewer,
        after_seq: u64,
        page: Page,
        with_views: bool,
    ) -> HostResult<Vec<ViewerEvent>> {
        let first = self.kept.first().map_or(u64::MAX, |e| e.seq);
        if after_seq.saturating_add(1) < first {
            return Err(self.error.clone());
        }
        let mut events = Vec::new();
        let mut bytes = 0;
        for kept in self.kept.iter().filter(|e| e.seq > after_seq) {
            let mut event = kept.for_viewer(viewer);
            if let ViewerUpdate::Transition { view, .. } = &mut event.update
                && !with_views
            {
                *view = None;
            }
            bytes += event.text_bytes();
            events.push(event);
            if page.is_full(events.len(), bytes) {
                break;
            }
        }
        Ok(events)
    }
}

/// Everything a match's past events are made from (see [`Match::history`]).
pub struct History {
    game: Arc<dyn DynGame>,
    setup: MatchSetup,
    token_hashes: Vec<Option<[u8; 32]>>,
    joins: Vec<SeatJoin>,
    log: Vec<LogEntry>,
    pending: Vec<HeldAction>,
    last_seq: u64,
    /// Set for a sealed match: what its history tells without a walk.
    sealed: Option<Sealed>,
}

impl std::fmt::Debug for History {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("History")
            .field("match_id", &self.setup.match_id)
            .field("last_seq", &self.last_seq)
            .finish_non_exhaustive()
    }
}

impl History {
    /// The sequence number of the last event it holds.
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// The sequence number of the event that produced `version` (0 for
    /// version 0): a watcher that saw that version resumes after it.
    pub fn seq_of_version(&self, version: u64) -> HostResult<u64> {
        if version == 0 {
            return Ok(0);
        }
        let current = self.log.len() as u64;
        if version > current {
            return Err(HostError::InvalidRequest(format!(
                "version {version} is beyond the match's current version {current}"
            )));
        }
        if self.sealed.is_some() {
            // Counted, not walked: the same number without the plugin.
            return Ok(seq_of_version(&self.log, self.joins.len(), version));
        }
        let mut seq = 0;
        self.walk_until(
            &mut |m, happened| {
                let entry_event = !matches!(happened, Happening::SeatActed { .. })
                    && !matches!(
                        happened,
                        Happening::Host {
                            event: HostEvent::Joined { .. },
                            ..
                        }
                    );
                if entry_event && m.version() == version {
                    seq = m.event_seq();
                    return Ok(ControlFlow::Break(()));
                }
                Ok(ControlFlow::Continue(()))
            },
            u64::MAX,
        )?;
        Ok(seq)
    }

    /// Up to `limit` events after `after_seq`, as `viewer` was told them,
    /// each with its view when `with_views`.
    pub fn events(
        &self,
        viewer: Viewer,
        after_seq: u64,
        limit: usize,
        with_views: bool,
    ) -> HostResult<Vec<ViewerEvent>> {
        self.page_of_events(
            viewer,
            after_seq,
            Page {
                events: limit,
                bytes: usize::MAX,
            },
            with_views,
        )
    }

    /// The events after `after_seq` that fill `page`, as `viewer` was told
    /// them, each with its view when `with_views`: the page ends at its
    /// count of events, or with the event that reaches its bytes, so a
    /// page of large views stops early instead of being built whole and
    /// refused as too large to send. Never empty while events remain.
    pub fn page_of_events(
        &self,
        viewer: Viewer,
        after_seq: u64,
        page: Page,
        with_views: bool,
    ) -> HostResult<Vec<ViewerEvent>> {
        let mut events = Vec::new();
        if page.events == 0 || after_seq >= self.last_seq {
            return Ok(events);
        }
        if let Some(sealed) = &self.sealed {
            return sealed.events(viewer, after_seq, page, with_views);
        }
        let mut bytes = 0;
        let last_seq = self.last_seq;
        self.walk_until(
            &mut |m, happened| {
                let seq = m.event_seq();
                if seq <= after_seq {
                    return Ok(ControlFlow::Continue(()));
                }
                let at_ms = happened.at_ms();
                let view = |m: &Match| -> HostResult<Option<Arc<MatchView>>> {
                    Ok(if with_views {
                        Some(Arc::new(m.view_as_of(viewer, ViewDetail::Full, at_ms)?))
                    } else {
                        None
                    })
                };
                let update = match happened {
                    Happening::Described {
                        before, transition, ..
                    } => {
                        let before = before.ok_or_else(|| {
                            HostError::Internal("an event to describe lacks its state".into())
                        })?;
                        ViewerUpdate::Transition {
                            event_json: m.state().event(before.as_ref(), &transition, viewer)?,
                            view: view(m)?,
                        }
                    }
                    Happening::Host { event, .. } => ViewerUpdate::Transition {
                        event_json: event.to_json(),
                        view: view(m)?,
                    },
                    Happening::SeatActed { seat, .. } => ViewerUpdate::SeatActed { seat },
                };
                events.push(ViewerEvent {
                    seq,
                    version: m.version(),
                    at_ms,
                    finished: !matches!(update, ViewerUpdate::SeatActed { .. })
                        && m.lifecycle() == Lifecycle::Finished,
                    update,
                });
                bytes += events.last().map_or(0, ViewerEvent::text_bytes);
                if page.is_full(events.len(), bytes) || seq >= last_seq {
                    return Ok(ControlFlow::Break(()));
                }
                Ok(ControlFlow::Continue(()))
            },
            after_seq,
        )?;
        Ok(events)
    }

    fn walk_until(&self, sink: &mut Sink<'_>, describe_after: u64) -> HostResult<()> {
        let chronicle = Chronicle {
            token_hashes: self.token_hashes.clone(),
            joins: &self.joins,
            log: &self.log,
            pending: &self.pending,
            notes_rule_outs: false,
        };
        Match::walk(
            Arc::clone(&self.game),
            self.setup.clone(),
            chronicle,
            describe_after,
            sink,
        )?;
        Ok(())
    }
}
