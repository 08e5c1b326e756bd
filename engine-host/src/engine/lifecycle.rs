//! What a change means for a match's life: the lifecycle rows the store
//! writes with it, in the same transaction (a platform's feed of created,
//! seat filled, started, seat out, finished).

use tabletop_core::{Lifecycle, LogKind, Match, now_ms};

use crate::store::{LifecycleEvent, LifecycleKind, OutReason};

fn event(m: &Match, at_ms: i64, kind: LifecycleKind) -> LifecycleEvent {
    LifecycleEvent {
        match_id: m.setup().match_id.clone(),
        at_ms,
        kind,
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
            game: setup.game.clone(),
            players: setup.players,
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
    let mut events = vec![event(m, at_ms, LifecycleKind::SeatFilled { seat })];
    if m.lifecycle() == Lifecycle::Running {
        events.push(event(m, at_ms, LifecycleKind::Started));
    }
    events
}

/// The log entries after `version_before`: seats out (clock, resignation),
/// and the end if they ended the match.
pub(super) fn ended(m: &Match, version_before: u64) -> Vec<LifecycleEvent> {
    let new = m.log().get(version_before as usize..).unwrap_or_default();
    let mut events = Vec::new();
    for entry in new {
        let out = match entry.kind {
            LogKind::Out { seat } | LogKind::Timeout { seat } => Some((seat, OutReason::Clock)),
            LogKind::Resign { seat } => Some((seat, OutReason::Resigned)),
            LogKind::Moves { .. } | LogKind::Chance { .. } => None,
        };
        if let Some((seat, reason)) = out {
            events.push(event(
                m,
                entry.at_ms,
                LifecycleKind::SeatOut { seat, reason },
            ));
        }
    }
    if m.lifecycle() == Lifecycle::Finished && !new.is_empty() {
        let at = new.last().map_or_else(now_ms, |e| e.at_ms);
        let results = m.results().to_vec();
        events.push(event(m, at, LifecycleKind::Finished { results }));
    }
    events
}
