//! The Director service: the lifecycle feed of every match, and the
//! director's controls over one.
//!
//! The feed reads the store's lifecycle rows in pages after the client's
//! cursor, then waits for the store to report more rows durable and reads
//! again. A row is sent only once durable, and a cursor is a row's number,
//! so a client that follows again after its last cursor (after a restart,
//! a crash, or a dropped connection) misses nothing and sees nothing twice.

use crate::metrics::metrics;
use std::collections::BTreeMap;
use std::pin::Pin;

use tabletop_core::SeatResult;
use tabletop_core::error::HostError;
use tabletop_proto::v1 as pb;
use tabletop_proto::v1::director_server::Director;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use super::convert;
use super::outbound::{NotSent, fell_behind};
use super::services::Api;
use super::status::to_status;
use super::streams::Opener;
use super::watch::UntilEnded;
use crate::engine::{Caller, Control, OpenedWith};
use crate::store::{LifecycleEvent, LifecycleKind, LifecycleRow, OutReason};

/// A stream of lifecycle events.
pub type LifecycleStream = Pin<Box<dyn Stream<Item = Result<pb::LifecycleEvent, Status>> + Send>>;

/// Lifecycle rows read from the store per call.
const FEED_PAGE: usize = 256;

/// Which events a follower asked for.
struct FeedFilter {
    game: String,
    labels: BTreeMap<String, String>,
    /// Who follows: an organizer sees its own tenant's matches only.
    follower: Caller,
}

impl FeedFilter {
    fn selects(&self, event: &LifecycleEvent) -> bool {
        self.follower.runs(&event.tenant)
            && (self.game.is_empty() || event.game == self.game)
            && self
                .labels
                .iter()
                .all(|(key, value)| event.labels.get(key) == Some(value))
    }
}

fn out_reason(reason: OutReason) -> pb::OutReason {
    match reason {
        OutReason::Rule => pb::OutReason::Rule,
        OutReason::Clock => pb::OutReason::Clock,
        OutReason::Resigned => pb::OutReason::Resigned,
        OutReason::Absent => pb::OutReason::Absent,
    }
}

/// A lifecycle row as the API sends it.
fn lifecycle_event(row: LifecycleRow) -> pb::LifecycleEvent {
    use pb::lifecycle_event as le;
    let event = row.event;
    let kind = match event.kind {
        LifecycleKind::Created {
            players,
            plugin_version,
            seat_players,
        } => le::Kind::Created(le::Created {
            players,
            plugin_version,
            seat_players: seat_players.iter().map(convert::seat_player).collect(),
        }),
        LifecycleKind::SeatFilled { seat, player } => le::Kind::SeatFilled(le::SeatFilled {
            seat,
            player: (!player.is_anonymous()).then(|| convert::seat_player(&player)),
        }),
        LifecycleKind::Started => le::Kind::Started(le::Started {}),
        LifecycleKind::SeatOut { seat, reason } => le::Kind::SeatOut(le::SeatOut {
            seat,
            reason: out_reason(reason) as i32,
        }),
        LifecycleKind::Paused => le::Kind::Paused(le::Paused {}),
        LifecycleKind::Resumed => le::Kind::Resumed(le::Resumed {}),
        LifecycleKind::TimeAdded { seat, added_ms } => {
            le::Kind::TimeAdded(le::TimeAdded { seat, added_ms })
        }
        LifecycleKind::Finished {
            results,
            players,
            adjudicated,
        } => le::Kind::Finished(le::Finished {
            results: results
                .iter()
                .map(|r| convert::result(r, &players))
                .collect(),
            adjudicated,
        }),
        LifecycleKind::Aborted { reason } => le::Kind::Aborted(le::Aborted { reason }),
        LifecycleKind::Quarantined { reason } => le::Kind::Quarantined(le::Quarantined { reason }),
        LifecycleKind::Released => le::Kind::Released(le::Released {}),
        LifecycleKind::Unavailable { reason } => le::Kind::Unavailable(le::Unavailable { reason }),
    };
    pb::LifecycleEvent {
        cursor: row.seq,
        match_id: event.match_id,
        at_ms: event.at_ms,
        game: event.game,
        labels: event.labels.into_iter().collect(),
        kind: Some(kind),
    }
}

/// An adjudication's results as the core takes them.
fn results(given: Vec<pb::PlayerResult>) -> Vec<SeatResult> {
    given
        .into_iter()
        .map(|r| SeatResult {
            seat: r.seat,
            rank: r.rank,
            score: r.score,
            resigned: false,
        })
        .collect()
}

impl Api {
    /// Applies `control` on the blocking pool and answers the view after it.
    async fn control(
        &self,
        caller: Caller,
        match_id: String,
        control: Control,
    ) -> Result<Response<pb::MatchView>, Status> {
        let view = self
            .call(move |e| e.direct(&caller, &match_id, control))
            .await?;
        Ok(Response::new(convert::view(view)))
    }
}

#[tonic::async_trait]
impl Director for Api {
    type FollowLifecycleStream = LifecycleStream;

    async fn follow_lifecycle(
        &self,
        request: Request<pb::FollowLifecycleRequest>,
    ) -> Result<Response<LifecycleStream>, Status> {
        if self.is_draining() {
            return Err(to_status(HostError::ShuttingDown));
        }
        // Subscribed before the checks, so a revocation after them is told.
        let withdrawals = self.engine.withdrawals();
        let caller = self.caller(&request, &request.get_ref().admin_token)?;
        let r = request.into_inner();
        let follower = caller.clone();
        let opened = OpenedWith {
            caller: caller.clone(),
            seat: None,
        };
        let slot = self.streams.open(Opener::of(&caller, None))?;
        self.call(move |e| e.check_feed_access(&caller)).await?;
        let filter = FeedFilter {
            game: r.game,
            labels: r.labels.into_iter().collect(),
            follower,
        };
        let (tx, rx) = super::outbound::queue(self.stream_budget);
        let api = self.clone();
        let mut tail = self.engine.lifecycle_tail();
        let mut cursor = r.after_cursor;
        tokio::spawn(async move {
            let _open = metrics().lifecycle_stream();
            loop {
                // Every durable row after the cursor, page by page.
                loop {
                    let after = cursor;
                    let rows = match api.call(move |e| e.lifecycle_page(after, FEED_PAGE)).await {
                        Ok(rows) => rows,
                        Err(status) => {
                            tx.end_with(status);
                            return;
                        }
                    };
                    if rows.is_empty() {
                        break;
                    }
                    for row in rows {
                        let seq = row.seq;
                        if filter.selects(&row.event) {
                            match tx.send(lifecycle_event(row)).await {
                                Ok(()) => {}
                                Err(NotSent::Gone) => return,
                                Err(NotSent::Behind) => {
                                    tx.end_with(fell_behind(
                                        "after_cursor",
                                        cursor,
                                        api.stream_budget,
                                    ));
                                    return;
                                }
                            }
                        }
                        cursor = seq;
                    }
                }
                // Then wait until a later row is durable, or the follower
                // has gone.
                tokio::select! {
                    more = tail.wait_for(|&last| last > cursor) => {
                        if more.is_err() {
                            return;
                        }
                    }
                    () = tx.closed() => return,
                }
            }
        });
        Ok(Response::new(Box::pin(UntilEnded::new(
            rx,
            self.stream_end(opened, withdrawals),
            slot,
        ))))
    }

    async fn abort_match(
        &self,
        request: Request<pb::AbortMatchRequest>,
    ) -> Result<Response<pb::MatchView>, Status> {
        let caller = self.caller(&request, &request.get_ref().admin_token)?;
        let r = request.into_inner();
        super::in_match(&r.match_id);
        let reason = if r.reason.is_empty() {
            "aborted by the director".to_string()
        } else {
            r.reason
        };
        self.control(caller, r.match_id, Control::Abort { reason })
            .await
    }

    async fn adjudicate_match(
        &self,
        request: Request<pb::AdjudicateMatchRequest>,
    ) -> Result<Response<pb::MatchView>, Status> {
        let caller = self.caller(&request, &request.get_ref().admin_token)?;
        let r = request.into_inner();
        super::in_match(&r.match_id);
        let results = results(r.results);
        self.control(caller, r.match_id, Control::Adjudicate { results })
            .await
    }

    async fn pause_match(
        &self,
        request: Request<pb::PauseMatchRequest>,
    ) -> Result<Response<pb::MatchView>, Status> {
        let caller = self.caller(&request, &request.get_ref().admin_token)?;
        let r = request.into_inner();
        super::in_match(&r.match_id);
        self.control(caller, r.match_id, Control::Pause).await
    }

    async fn resume_match(
        &self,
        request: Request<pb::ResumeMatchRequest>,
    ) -> Result<Response<pb::MatchView>, Status> {
        let caller = self.caller(&request, &request.get_ref().admin_token)?;
        let r = request.into_inner();
        super::in_match(&r.match_id);
        self.control(caller, r.match_id, Control::Resume).await
    }

    async fn add_time(
        &self,
        request: Request<pb::AddTimeRequest>,
    ) -> Result<Response<pb::MatchView>, Status> {
        let caller = self.caller(&request, &request.get_ref().admin_token)?;
        let r = request.into_inner();
        super::in_match(&r.match_id);
        let control = Control::AddTime {
            seat: r.seat,
            ms: r.added_ms,
        };
        self.control(caller, r.match_id, control).await
    }

    async fn reissue_seat_token(
        &self,
        request: Request<pb::ReissueSeatTokenRequest>,
    ) -> Result<Response<pb::SeatToken>, Status> {
        let caller = self.caller(&request, &request.get_ref().admin_token)?;
        let r = request.into_inner();
        super::in_match(&r.match_id);
        let seat = r.seat;
        let token = self
            .call(move |e| e.reissue_seat_token(&caller, &r.match_id, seat))
            .await?;
        Ok(Response::new(pb::SeatToken { seat, token }))
    }
}
