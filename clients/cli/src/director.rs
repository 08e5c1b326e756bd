//! A tournament director's commands: the lifecycle feed, and abort,
//! adjudicate, pause, resume and add time on one match; and the admin's
//! lift of a match's quarantine, which answers the same view.

use tabletop_proto::v1 as pb;
use tabletop_proto::v1::admin_client::AdminClient;
use tabletop_proto::v1::director_client::DirectorClient;
use tabletop_proto::v1::lifecycle_event::Kind;
use tokio_stream::StreamExt;

use crate::Command;
use crate::error::{CliError, CliResult};
use crate::failover::{Retry, Servers, server_gone};
use crate::render;
use crate::render::print_json;

/// Runs one of the director's commands.
///
/// The controls are not made again on the next server after no answer
/// came: adding time twice adds it twice. The feed resumes after its last
/// cursor on the next server.
pub async fn run(servers: &Servers, command: Command, json: bool) -> CliResult {
    let view = match command {
        Command::Feed {
            labels,
            game,
            from,
            admin_token,
        } => {
            let request = pb::FollowLifecycleRequest {
                admin_token,
                after_cursor: from,
                game: game.unwrap_or_default(),
                labels: crate::listing::pairs("label", &labels)?,
            };
            return feed(servers, request, json).await;
        }
        Command::Abort {
            match_id,
            reason,
            admin_token,
        } => {
            let request = pb::AbortMatchRequest {
                admin_token,
                match_id,
                reason,
            };
            servers
                .call(Retry::NotSent, request, |c, r| async move {
                    DirectorClient::new(c).abort_match(r).await
                })
                .await?
        }
        Command::Adjudicate {
            match_id,
            ranks,
            admin_token,
        } => {
            let request = pb::AdjudicateMatchRequest {
                admin_token,
                match_id,
                results: ranks
                    .iter()
                    .enumerate()
                    .map(|(seat, &rank)| pb::PlayerResult {
                        seat: seat as u32,
                        rank,
                        ..Default::default()
                    })
                    .collect(),
            };
            servers
                .call(Retry::NotSent, request, |c, r| async move {
                    DirectorClient::new(c).adjudicate_match(r).await
                })
                .await?
        }
        Command::Pause {
            match_id,
            admin_token,
        } => {
            let request = pb::PauseMatchRequest {
                admin_token,
                match_id,
            };
            servers
                .call(Retry::NotSent, request, |c, r| async move {
                    DirectorClient::new(c).pause_match(r).await
                })
                .await?
        }
        Command::Resume {
            match_id,
            admin_token,
        } => {
            let request = pb::ResumeMatchRequest {
                admin_token,
                match_id,
            };
            servers
                .call(Retry::NotSent, request, |c, r| async move {
                    DirectorClient::new(c).resume_match(r).await
                })
                .await?
        }
        Command::AddTime {
            match_id,
            seat,
            ms,
            admin_token,
        } => {
            let request = pb::AddTimeRequest {
                admin_token,
                match_id,
                seat,
                added_ms: ms,
            };
            servers
                .call(Retry::NotSent, request, |c, r| async move {
                    DirectorClient::new(c).add_time(r).await
                })
                .await?
        }
        Command::LiftQuarantine {
            match_id,
            plugin_version,
            admin_token,
        } => {
            let request = pb::LiftQuarantineRequest {
                admin_token,
                match_id,
                plugin_version,
            };
            servers
                .call(Retry::NotSent, request, |c, r| async move {
                    AdminClient::new(c).lift_quarantine(r).await
                })
                .await?
        }
        _ => return Err(CliError::Usage("not a director's command".into())),
    };
    if json {
        print_json(&render::view_json(&view));
    } else {
        out!("{}", render::view_text(&view));
    }
    Ok(())
}

/// Prints the feed's events as they come, until the server ends the stream.
async fn feed(servers: &Servers, request: pb::FollowLifecycleRequest, json: bool) -> CliResult {
    let mut request = request;
    let mut outage = None;
    'open: loop {
        let (at, conn) = servers.conn(&mut outage).await?;
        let mut events = match DirectorClient::new(conn)
            .follow_lifecycle(request.clone())
            .await
        {
            Ok(events) => events.into_inner(),
            Err(status) if servers.several() && server_gone(&status) => {
                servers.move_on(at, &mut outage, status.into()).await?;
                continue;
            }
            Err(status) => return Err(status.into()),
        };
        while let Some(event) = events.next().await {
            let event = match event {
                Ok(event) => event,
                Err(status) => {
                    if let Some(after_cursor) =
                        crate::resume::after_fell_behind(&status, "after_cursor")
                    {
                        // Cut for reading too slowly: every row queued
                        // before the cut arrived, so follow on after the
                        // last of them.
                        request.after_cursor = after_cursor;
                        continue 'open;
                    }
                    if servers.several() && server_gone(&status) {
                        // The cursor is every host's: the next one goes on
                        // after the last row printed.
                        servers.move_on(at, &mut outage, status.into()).await?;
                        continue 'open;
                    }
                    return Err(status.into());
                }
            };
            outage = None;
            request.after_cursor = event.cursor;
            print_event(&event, json);
        }
        return Ok(());
    }
}

/// One event of the feed: a line, or a JSON object on a line.
fn print_event(event: &pb::LifecycleEvent, json: bool) {
    if json {
        outln!("{}", event_json(event));
    } else {
        outln!(
            "{:>8}  {}  {}  {}",
            event.cursor,
            event.match_id,
            event.game,
            describe(event.kind.as_ref())
        );
    }
}

fn describe(kind: Option<&Kind>) -> String {
    match kind {
        Some(Kind::Created(c)) => format!("created ({} seats)", c.players),
        Some(Kind::SeatFilled(s)) => match &s.player {
            Some(p) if p.bot == p.display_name && !p.bot.is_empty() => {
                format!("seat {} filled by the bot {}", s.seat, p.bot)
            }
            Some(p) if !p.bot.is_empty() => format!(
                "seat {} filled by {}, the bot {}",
                s.seat,
                render::player_name(&p.display_name, &p.external_id),
                p.bot
            ),
            Some(p) if !p.display_name.is_empty() || !p.external_id.is_empty() => format!(
                "seat {} filled by {}",
                s.seat,
                render::player_name(&p.display_name, &p.external_id)
            ),
            _ => format!("seat {} filled", s.seat),
        },
        Some(Kind::Started(_)) => "started".into(),
        Some(Kind::SeatOut(s)) => format!(
            "seat {} out ({})",
            s.seat,
            pb::OutReason::try_from(s.reason)
                .map(|r| r
                    .as_str_name()
                    .trim_start_matches("OUT_REASON_")
                    .to_lowercase())
                .unwrap_or_default()
        ),
        Some(Kind::Paused(_)) => "paused".into(),
        Some(Kind::Resumed(_)) => "resumed".into(),
        Some(Kind::TimeAdded(t)) => format!("seat {} given {} ms", t.seat, t.added_ms),
        Some(Kind::Finished(f)) => format!(
            "finished{}: {}",
            if f.adjudicated { " (adjudicated)" } else { "" },
            f.results
                .iter()
                .map(|r| format!("seat {} rank {}", r.seat, r.rank))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Some(Kind::Aborted(a)) => format!("aborted: {}", a.reason),
        Some(Kind::Unavailable(u)) => format!("unavailable: {}", u.reason),
        Some(Kind::Quarantined(q)) => format!("quarantined: {}", q.reason),
        Some(Kind::Released(_)) => "quarantine lifted".into(),
        None => "(an event this client does not know)".into(),
    }
}

/// Who took a seat, with the fields the platform gave.
fn player_json(player: &pb::SeatPlayer) -> serde_json::Value {
    let mut named = serde_json::json!({});
    if !player.display_name.is_empty() {
        named["display_name"] = player.display_name.clone().into();
    }
    if !player.external_id.is_empty() {
        named["external_id"] = player.external_id.clone().into();
    }
    if !player.bot.is_empty() {
        named["bot"] = player.bot.clone().into();
    }
    named
}

/// One event as a JSON line: its cursor, match, time, game, labels, and
/// its kind with the kind's fields.
fn event_json(event: &pb::LifecycleEvent) -> serde_json::Value {
    let (kind, detail) = match &event.kind {
        Some(Kind::Created(c)) => (
            "created",
            serde_json::json!({
                "players": c.players,
                "plugin_version": c.plugin_version,
                "seat_players": c.seat_players.iter().map(|p| {
                    let mut named = player_json(p);
                    named["seat"] = p.seat.into();
                    named
                }).collect::<Vec<_>>(),
            }),
        ),
        Some(Kind::SeatFilled(s)) => (
            "seat_filled",
            serde_json::json!({
                "seat": s.seat,
                "player": s.player.as_ref().map(player_json),
            }),
        ),
        Some(Kind::Started(_)) => ("started", serde_json::json!({})),
        Some(Kind::SeatOut(s)) => (
            "seat_out",
            serde_json::json!({"seat": s.seat, "reason": pb::OutReason::try_from(s.reason)
                .map(|r| r.as_str_name().trim_start_matches("OUT_REASON_").to_lowercase())
                .unwrap_or_default()}),
        ),
        Some(Kind::Paused(_)) => ("paused", serde_json::json!({})),
        Some(Kind::Resumed(_)) => ("resumed", serde_json::json!({})),
        Some(Kind::TimeAdded(t)) => (
            "time_added",
            serde_json::json!({"seat": t.seat, "added_ms": t.added_ms}),
        ),
        Some(Kind::Finished(f)) => (
            "finished",
            serde_json::json!({
                "adjudicated": f.adjudicated,
                "results": f.results.iter().map(|r| serde_json::json!({
                    "seat": r.seat, "rank": r.rank, "score": r.score, "resigned": r.resigned,
                    "display_name": r.display_name, "external_id": r.external_id,
                })).collect::<Vec<_>>(),
            }),
        ),
        Some(Kind::Aborted(a)) => ("aborted", serde_json::json!({"reason": a.reason})),
        Some(Kind::Unavailable(u)) => ("unavailable", serde_json::json!({"reason": u.reason})),
        Some(Kind::Quarantined(q)) => ("quarantined", serde_json::json!({"reason": q.reason})),
        Some(Kind::Released(_)) => ("released", serde_json::json!({})),
        None => ("unknown", serde_json::json!({})),
    };
    let mut value = serde_json::json!({
        "cursor": event.cursor,
        "match_id": event.match_id,
        "at_ms": event.at_ms,
        "game": event.game,
        "labels": event.labels,
        "type": kind,
    });
    if let (Some(object), serde_json::Value::Object(detail)) = (value.as_object_mut(), detail) {
        object.extend(detail);
    }
    value
}
