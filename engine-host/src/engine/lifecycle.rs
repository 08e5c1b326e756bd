//! What a change means for a match's life: the lifecycle rows the store
//! writes with it, in the same transaction (a platform's feed of created,
//! seat filled, started, seat out, paused, resumed, time added,
//! quarantined, released, finished, aborted).

use tabletop_core::{Lifecycle, LogKind, Match, now_ms};

use crate::store::{LifecycleEvent, LifecycleKind, OutReason};

fn event(m: &Match, at_ms: i64, kind: LifecycleKind) -> LifecycleEvent {
    let setup = m.setup();
    LifecycleEvent {
        match_id: setup.match_id.clone(),
        at_ms,
        game: setup.game.clone(),
        labels: setup.labels.clone(),
        tenant: setup.tenant.clone(),
        kind,
    }
}

/// A match found stored but not playable here (at the host's start).
pub(super) fn unavailable(
    setup: &tabletop_core::MatchSetup,
    reason: &str,
    at_ms: i64,
) -> LifecycleEvent {
    LifecycleEvent {
        match_id: setup.match_id.clone(),
        at_ms,
        game: setup.game.clone(),
        labels: setup.labels.clone(),
        tenant: setup.tenant.clone(),
        kind: LifecycleKind::Unavailable {
            reason: reason.to_string(),
        },
    }
}

/// A match just created (or imported): created, and started or finished
/// when it already is.
pub(super) fn created(m: &Match) -> Vec<LifecycleEvent> {
    let at = m.setup().created_at_ms;
    let setup = m.setup();
    let mut events = vec![event(
        m,
        at,
        LifecycleKind::Created {
            players: setup.players,
            plugin_version: setup.plugin_version.clone(),
            seat_players: setup.seat_players.clone(),
        },
    )];
    if m.lifecycle() != Lifecycle::Waiting {
        events.push(event(m, at, LifecycleKind::Started));
    }
    events.extend(ended(m, 0));
    events
}

/// A seat just taken: filled, and started when it was the last open one.
pub(super) fn joined(m: &Match, seat: u32, at_ms: i64) -> Vec<LifecycleEvent> {
    let player = m.player(seat);
    let mut events = vec![event(m, at_ms, LifecycleKind::SeatFilled { seat, player })];
    if m.lifecycle() == Lifecycle::Running {
        events.push(event(m, at_ms, LifecycleKind::Started));
    }
    events
}

/// The log entries after `version_before`: seats out (clock, resignation,
/// absence, the game's rules), a director's pauses and added time, the
/// host's quarantines and their releases, and the end if they ended the
/// match (with results, adjudicated, or aborted).
pub(super) fn ended(m: &Match, version_before: u64) -> Vec<LifecycleEvent> {
    let new = m.log().get(version_before as usize..).unwrap_or_default();
    let mut events = Vec::new();
    for entry in new {
        let out = |seat, reason| LifecycleKind::SeatOut { seat, reason };
        let kinds = match &entry.kind {
            LogKind::Out { seat } | LogKind::Timeout { seat } => vec![out(*seat, OutReason::Clock)],
            LogKind::Resign { seat } | LogKind::ResignOut { seat } => {
                vec![out(*seat, OutReason::Resigned)]
            }
            LogKind::Absent { seats } => {
                let mut kinds: Vec<LifecycleKind> = seats
                    .iter()
                    .map(|&seat| out(seat, OutReason::Absent))
                    .collect();
                kinds.push(LifecycleKind::Started);
                kinds
            }
            LogKind::Pause => vec![LifecycleKind::Paused],
            LogKind::Resume => vec![LifecycleKind::Resumed],
            LogKind::AddTime { seat, ms } => vec![LifecycleKind::TimeAdded {
                seat: *seat,
                added_ms: *ms,
            }],
            LogKind::Abort { reason } => vec![LifecycleKind::Aborted {
                reason: reason.clone(),
            }],
            LogKind::Quarantine { reason } => vec![LifecycleKind::Quarantined {
                reason: reason.clone(),
            }],
            LogKind::Release { .. } => vec![LifecycleKind::Released],
            LogKind::Moves { .. } => m
                .rule_outs()
                .iter()
                .filter(|r| r.version == entry.version)
                .map(|r| out(r.seat, OutReason::Rule))
                .collect(),
            LogKind::Chance { .. } | LogKind::Adjudicate { .. } => Vec::new(),
        };
        events.extend(kinds.into_iter().map(|kind| event(m, entry.at_ms, kind)));
    }
    if m.lifecycle() == Lifecycle::Finished && !new.is_empty() && m.abort_reason().is_none() {
        let at = new.last().map_or_else(now_ms, |e| e.at_ms);
        let results = m.results().to_vec();
        let adjudicated = m.is_adjudicated();
        let players = (0..m.setup().players)
            .map(|seat| m.player(seat))
            .filter(|p| !p.is_anonymous())
            .collect();
        events.push(event(
            m,
            at,
            LifecycleKind::Finished {
                results,
                players,
                adjudicated,
            },
        ));
    }
    events
}
