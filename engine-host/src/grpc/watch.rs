//! The Watch service: live streams that start from any point of a match's
//! history, and pages of past events.
//!
//! A stream is the match's past events after the resume point, read from
//! its history in pages, then its live feed. The subscription and the
//! history are taken together under the match's lock, so an event is in
//! one or the other; a live event at or before the last one sent (the
//! history overlaps the feed after a catch-up) is skipped by its sequence
//! number. A watcher that falls behind the live feed catches up from the
//! history again instead of losing events.

use crate::metrics::metrics;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tabletop_core::error::HostError;
use tabletop_core::fanout::Subscription;
use tabletop_core::history::Page;
use tabletop_core::{History, MatchView, ViewerEvent, ViewerUpdate, now_ms};
use tabletop_proto::v1 as pb;
use tabletop_proto::v1::watch_server::Watch;
use tabletop_sdk::Viewer;
use tokio::sync::{broadcast, mpsc};
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use super::convert;
use super::outbound::{NotSent, Outbound, Queued, fell_behind};
use super::services::Api;
use super::status::to_status;
use super::streams::{Opener, StreamSlot};
use crate::engine::{OpenedWith, Resume, SeatGrant, WatchStart};

/// A stream of watch events.
pub type WatchStream = Pin<Box<dyn Stream<Item = Result<pb::WatchEvent, Status>> + Send>>;

/// A stream's messages until `end` resolves: then its status, one last
/// message, and the end, whatever the match or the feed does. `end` is
/// [`Api::stream_end`]: the server shutting down (without it an open
/// stream would hold a graceful shutdown until its grace period ran out),
/// or the withdrawal of the credential or seat token that opened the
/// stream. It is polled first, so events still queued are not sent once
/// it has resolved. The stream holds its place among the open streams
/// until it is dropped.
pub(super) struct UntilEnded<T> {
    events: mpsc::UnboundedReceiver<Queued<T>>,
    end: Pin<Box<dyn Future<Output = Status> + Send>>,
    ended: bool,
    _slot: StreamSlot,
}

impl<T> UntilEnded<T> {
    /// `events` until `end` resolves, open in `slot`.
    pub(super) fn new(
        events: mpsc::UnboundedReceiver<Queued<T>>,
        end: Pin<Box<dyn Future<Output = Status> + Send>>,
        slot: StreamSlot,
    ) -> UntilEnded<T> {
        UntilEnded {
            events,
            end,
            ended: false,
            _slot: slot,
        }
    }
}

impl<T> Stream for UntilEnded<T> {
    type Item = Result<T, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.ended {
            return Poll::Ready(None);
        }
        if let Poll::Ready(status) = self.end.as_mut().poll(cx) {
            self.ended = true;
            return Poll::Ready(Some(Err(status)));
        }
        self.events
            .poll_recv(cx)
            .map(|queued| queued.map(Queued::into_message))
    }
}

/// Past events read from the history per call: a page is one walk through
/// the log, and its views are held until sent.
const CATCH_UP_PAGE: usize = 64;

/// ListEvents' page size when the request names none, and its largest.
const DEFAULT_PAGE: usize = 100;
const MAX_PAGE: usize = 1000;

/// The text a page of ListEvents holds at most (its last event may pass
/// it): a page of a thousand War views would be ~56 MB, over any reply
/// limit, and built whole before it was refused.
const PAGE_BYTES: usize = 1 << 20;

fn snapshot_event(view: MatchView) -> pb::WatchEvent {
    pb::WatchEvent {
        version: view.version,
        kind: Some(pb::watch_event::Kind::Snapshot(convert::view(view))),
        seq: 0,
        at_ms: 0,
    }
}

/// The wire form of an event, with its view unless `omit_views`.
fn event_message(event: &ViewerEvent, omit_views: bool) -> pb::WatchEvent {
    let kind = match &event.update {
        ViewerUpdate::Transition { event_json, view } => {
            pb::watch_event::Kind::Transition(pb::Transition {
                event_json: event_json.clone(),
                view: view
                    .as_deref()
                    .filter(|_| !omit_views)
                    .map(convert::view_cloned),
            })
        }
        ViewerUpdate::SeatActed { seat } => {
            pb::watch_event::Kind::SeatActed(pb::SeatActed { seat: *seat })
        }
    };
    pb::WatchEvent {
        version: event.version,
        kind: Some(kind),
        seq: event.seq,
        at_ms: event.at_ms,
    }
}

/// Resolves when a version due to show at `at_ms` (ms since the Unix
/// epoch) does; never without one.
async fn next_showing(at_ms: Option<i64>) {
    match at_ms {
        Some(at_ms) => {
            let wait = at_ms.saturating_sub(now_ms()).max(0) as u64;
            tokio::time::sleep(Duration::from_millis(wait)).await;
        }
        None => std::future::pending().await,
    }
}

fn resume_point(after_seq: Option<u64>, from_version: Option<u64>) -> Resume {
    match (after_seq, from_version) {
        (Some(seq), _) => Resume::AfterSeq(seq),
        (None, Some(version)) => Resume::FromVersion(version),
        (None, None) => Resume::Live,
    }
}

/// How long a stream whose match left memory waits for its store to reach
/// the database again and read the match back, before it ends.
const REJOIN_PATIENCE: Duration = Duration::from_secs(60);

/// How often such a stream tries meanwhile.
const REJOIN_EVERY: Duration = Duration::from_millis(500);

/// One watcher: sends what it is given in order, once, and says when the
/// match is over.
struct Watcher {
    api: Api,
    match_id: String,
    viewer: Viewer,
    omit_views: bool,
    tx: Outbound<pb::WatchEvent>,
    /// The last event sent.
    sent: u64,
    /// The seat token it was opened with (empty: a spectator), to watch
    /// the match again when it is read back from the store.
    token: String,
    /// The event sent last when the stream last watched the match again:
    /// a match that leaves memory again before any new event is not
    /// followed round and round.
    rejoined_at: Option<u64>,
}

/// Whether the watcher goes on.
enum Next {
    More,
    Done,
}

impl Watcher {
    /// Sends `event` unless it was sent already; `Done` when the client is
    /// gone, has fallen behind (its stream is cut) or the match is over.
    async fn send(&mut self, event: &ViewerEvent) -> Next {
        if event.seq <= self.sent {
            return Next::More;
        }
        let message = event_message(event, self.omit_views);
        if !self.queue(message).await {
            return Next::Done;
        }
        self.sent = event.seq;
        if event.finished {
            return Next::Done;
        }
        Next::More
    }

    /// Queues `message`; false when the client is gone or fell behind, whose
    /// stream is then cut, resuming after the last event queued.
    async fn queue(&self, message: pb::WatchEvent) -> bool {
        match self.tx.send(message).await {
            Ok(()) => true,
            Err(NotSent::Gone) => false,
            Err(NotSent::Behind) => {
                self.fail(fell_behind("after_seq", self.sent, self.api.stream_budget));
                false
            }
        }
    }

    /// Ends the stream with `status`.
    fn fail(&self, status: Status) {
        self.tx.end_with(status);
    }

    /// Sends every event of `history` after the last one sent, a page at a
    /// time.
    async fn catch_up(&mut self, history: Arc<History>) -> Next {
        self.catch_up_to(history, u64::MAX).await
    }

    /// Sends the events of `history` after the last one sent, up to the
    /// one numbered `last`, a page at a time.
    async fn catch_up_to(&mut self, history: Arc<History>, last: u64) -> Next {
        let last = last.min(history.last_seq());
        while self.sent < last {
            let (viewer, after, with_views) = (self.viewer, self.sent, !self.omit_views);
            let page_size = CATCH_UP_PAGE.min((last - after) as usize);
            let history = Arc::clone(&history);
            let page = self
                .api
                .call(move |_| history.events(viewer, after, page_size, with_views))
                .await;
            let page = match page {
                Ok(page) if !page.is_empty() => page,
                Ok(_) => return Next::More,
                Err(status) => {
                    self.fail(status);
                    return Next::Done;
                }
            };
            for event in &page {
                if let Next::Done = self.send(event).await {
                    return Next::Done;
                }
            }
        }
        Next::More
    }

    /// A spectator's stream of a match with a spectator delay: the events
    /// up to what the delay shows, then more each time that moves, which
    /// it does on a new event of the match (a move delay) or at the time
    /// the next version becomes old enough (a time delay), and all of them
    /// once the match is finished. The live feed only wakes it.
    async fn follow_delayed(
        &mut self,
        mut history: Arc<History>,
        mut receiver: broadcast::Receiver<Arc<tabletop_core::MatchEvent>>,
    ) {
        loop {
            let id = self.match_id.clone();
            let horizon = match self.api.call(move |e| e.spectator_horizon(&id)).await {
                Ok(horizon) => horizon,
                Err(status) => {
                    self.fail(status);
                    return;
                }
            };
            if horizon.seq > history.last_seq() {
                let id = self.match_id.clone();
                history = match self.api.call(move |e| e.history(&id)).await {
                    Ok(history) => history,
                    Err(status) => {
                        self.fail(status);
                        return;
                    }
                };
            }
            if let Next::Done = self.catch_up_to(Arc::clone(&history), horizon.seq).await {
                return;
            }
            let shows_next = next_showing(horizon.next_at_ms);
            tokio::select! {
                received = receiver.recv() => {
                    if let Err(broadcast::error::RecvError::Closed) = received {
                        // Read back from the store: the loop catches up
                        // from its history.
                        match self.rejoin().await {
                            Some(start) => receiver = start.subscription.receiver,
                            None => return,
                        }
                        continue;
                    }
                    // One look at the horizon serves every event queued.
                    while !matches!(
                        receiver.try_recv(),
                        Err(broadcast::error::TryRecvError::Empty | broadcast::error::TryRecvError::Closed)
                    ) {}
                }
                () = shows_next => {}
                () = self.tx.closed() => return,
            }
        }
    }

    /// Watches the match again, after the last event sent, once its live
    /// feed has closed while it was not over: the host let go of it (a
    /// change of it could not be stored, or its plugin's worker was
    /// replaced) and reads it back from the store. `None` when the stream
    /// ended instead, with the status that says why.
    async fn rejoin(&mut self) -> Option<WatchStart> {
        if self.rejoined_at == Some(self.sent) {
            self.fail(to_status(HostError::MatchUnavailable {
                match_id: self.match_id.clone(),
                reason: "the match left memory twice with no event between; watch it again \
                         after the last event received"
                    .into(),
            }));
            return None;
        }
        self.rejoined_at = Some(self.sent);
        let (id, token, with_views) = (self.match_id.clone(), self.token.clone(), !self.omit_views);
        // While the store cannot reach its database the match cannot be
        // read back: the stream waits, quiet, for it to come back.
        let patience = tokio::time::Instant::now() + REJOIN_PATIENCE;
        let start = loop {
            let (id, token) = (id.clone(), token.clone());
            let read_back = self
                .api
                // From the start: a resume point needs no snapshot view,
                // and the catch-up goes on from the last event sent.
                .call(move |e| Ok(e.watch(&id, &token, Resume::AfterSeq(0), with_views)))
                .await;
            match read_back {
                Ok(Ok(start)) => break start,
                Ok(Err(HostError::StoreUnavailable(_)))
                    if tokio::time::Instant::now() < patience =>
                {
                    tokio::select! {
                        () = tokio::time::sleep(REJOIN_EVERY) => {}
                        () = self.tx.closed() => return None,
                    }
                }
                Ok(Err(e)) => {
                    self.fail(to_status(e));
                    return None;
                }
                Err(status) => {
                    self.fail(status);
                    return None;
                }
            }
        };
        let stored = start.history.last_seq();
        if stored < self.sent {
            // Events are told as the change is made, before it is stored:
            // these were, and the store refused them. No cursor of this
            // stream leads on from here.
            self.fail(to_status(HostError::StoreUnavailable(format!(
                "events {} to {} this stream sent were not stored (the match store lost its \
                 database before they were); watch the match again without after_seq",
                stored + 1,
                self.sent
            ))));
            return None;
        }
        Some(start)
    }

    /// The live feed, from where the catch-up left off.
    async fn follow(&mut self, mut subscription: Subscription) {
        loop {
            // A stream ended by its withdrawal or its client drops the
            // queue's receiver: stop then, not at the match's next event.
            let received = tokio::select! {
                received = subscription.receiver.recv() => received,
                () = self.tx.closed() => return,
            };
            match received {
                Ok(event) => {
                    let event = event.for_viewer(self.viewer);
                    if let Next::Done = self.send(&event).await {
                        return;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    let id = self.match_id.clone();
                    let history = match self.api.call(move |e| e.history(&id)).await {
                        Ok(history) => history,
                        Err(status) => {
                            self.fail(status);
                            return;
                        }
                    };
                    if let Next::Done = self.catch_up(history).await {
                        return;
                    }
                }
                Err(broadcast::error::RecvError::Closed) => {
                    let Some(start) = self.rejoin().await else {
                        return;
                    };
                    subscription = start.subscription;
                    if let Next::Done = self.catch_up(start.history).await {
                        return;
                    }
                }
            }
        }
    }
}

#[tonic::async_trait]
impl Watch for Api {
    type WatchMatchStream = WatchStream;

    async fn watch_match(
        &self,
        request: Request<pb::WatchMatchRequest>,
    ) -> Result<Response<WatchStream>, Status> {
        if self.is_draining() {
            return Err(to_status(HostError::ShuttingDown));
        }
        let charged = super::seat_calls::charge(&request, &request.get_ref().seat_token)?;
        // Subscribed before the checks, so a withdrawal after them is told.
        let withdrawals = self.engine.withdrawals();
        let caller = self.caller(&request, "")?;
        let r = request.into_inner();
        super::in_match(&r.match_id);
        let resume = resume_point(r.after_seq, r.from_version);
        let (match_id, token) = (r.match_id.clone(), r.seat_token.clone());
        let token_for_rejoin = r.seat_token.clone();
        let with_views = !r.omit_views;
        let start = self
            .call(move |e| e.watch(&match_id, &token, resume, with_views))
            .await?;
        charged.succeeded();
        let seat = match start.viewer {
            Viewer::Seat(seat) => Some((r.match_id.as_str(), seat)),
            Viewer::Spectator => None,
        };
        let slot = self.streams.open(Opener::of(&caller, seat))?;
        let opened = OpenedWith {
            caller,
            seat: match start.viewer {
                Viewer::Seat(seat) => Some(SeatGrant {
                    match_id: r.match_id.clone(),
                    seat,
                    token: r.seat_token,
                }),
                Viewer::Spectator => None,
            },
        };
        let (tx, rx) = super::outbound::queue(self.stream_budget);
        let mut watcher = Watcher {
            api: self.clone(),
            match_id: r.match_id,
            viewer: start.viewer,
            omit_views: r.omit_views,
            tx,
            sent: start.after_seq,
            token: token_for_rejoin,
            rejoined_at: None,
        };
        tokio::spawn(async move {
            let _open = metrics().watch_stream();
            if let Some(view) = start.snapshot {
                if !watcher.queue(snapshot_event(view)).await || start.finished {
                    return;
                }
            } else if start.finished && watcher.sent >= start.history.last_seq() {
                // Resumed at the end of a finished match: nothing to tell.
                return;
            }
            if start.paced {
                watcher
                    .follow_delayed(start.history, start.subscription.receiver)
                    .await;
                return;
            }
            if let Next::Done = watcher.catch_up(start.history).await {
                return;
            }
            watcher.follow(start.subscription).await;
        });
        Ok(Response::new(Box::pin(UntilEnded::new(
            rx,
            self.stream_end(opened, withdrawals),
            slot,
        ))))
    }

    async fn list_events(
        &self,
        request: Request<pb::ListEventsRequest>,
    ) -> Result<Response<pb::ListEventsResponse>, Status> {
        let charged = super::seat_calls::charge(&request, &request.get_ref().seat_token)?;
        let r = request.into_inner();
        super::in_match(&r.match_id);
        let limit = match r.page_size as usize {
            0 => DEFAULT_PAGE,
            n => n.min(MAX_PAGE),
        };
        let after_seq = (r.after_seq > 0).then_some(r.after_seq);
        let resume = match resume_point(after_seq, r.from_version) {
            Resume::Live => Resume::AfterSeq(0),
            other => other,
        };
        let with_views = r.include_views;
        let (events, last_seq) = self
            .call(move |e| {
                let page = Page {
                    events: limit,
                    bytes: PAGE_BYTES,
                };
                e.list_events(&r.match_id, &r.seat_token, resume, page, with_views)
            })
            .await?;
        charged.succeeded();
        Ok(Response::new(pb::ListEventsResponse {
            events: events.iter().map(|e| event_message(e, false)).collect(),
            last_seq,
        }))
    }
}
