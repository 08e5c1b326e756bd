//! Conversions from the core's types to the API's messages.

use std::time::UNIX_EPOCH;

use tabletop_proto::v1 as pb;
use tabletop_sdk::{DynGame, OptionKind, OptionSpec};

use crate::engine::{CredentialInfo, GameEntry, MatchSummary, PluginEntry};
use crate::store::ListedState;
use tabletop_core::error::HostError;
use tabletop_core::{
    Lifecycle, MatchView, OnDeadline, OnTimeout, OutReason, SeatPlayer, SeatResult, SpectatorDelay,
    TimeControl,
};

/// A match's state as the API says it (`None`: unavailable).
pub fn state(s: Option<ListedState>) -> pb::MatchState {
    match s {
        Some(ListedState::Waiting) => pb::MatchState::Waiting,
        Some(ListedState::Running) => pb::MatchState::Running,
        Some(ListedState::Quarantined) => pb::MatchState::Quarantined,
        Some(ListedState::Finished) => pb::MatchState::Finished,
        None => pb::MatchState::Unavailable,
    }
}

/// A request's clock; an `on_timeout` value this server does not know is
/// refused rather than read as `lose`.
pub fn time_control(tc: pb::TimeControl) -> Result<TimeControl, HostError> {
    let on_timeout = match pb::OnTimeout::try_from(tc.on_timeout) {
        Ok(pb::OnTimeout::Unspecified | pb::OnTimeout::Lose) => OnTimeout::Lose,
        Ok(pb::OnTimeout::Out) => OnTimeout::Out,
        Err(_) => {
            return Err(HostError::InvalidRequest(format!(
                "unknown on_timeout value {}",
                tc.on_timeout
            )));
        }
    };
    Ok(TimeControl {
        per_move_ms: tc.per_move_ms,
        bank_ms: tc.bank_ms,
        increment_ms: tc.increment_ms,
        on_timeout,
    })
}

/// A seat's result, with who played it where someone said (`players`
/// may name any seats, in any order).
pub fn result(r: &SeatResult, players: &[SeatPlayer]) -> pb::PlayerResult {
    let player = players.iter().find(|p| p.seat == r.seat);
    pb::PlayerResult {
        seat: r.seat,
        rank: r.rank,
        score: r.score,
        resigned: r.resigned,
        display_name: player.map(|p| p.display_name.clone()).unwrap_or_default(),
        external_id: player.map(|p| p.external_id.clone()).unwrap_or_default(),
    }
}

/// An issued credential, as a message (never its secret).
pub fn credential(c: &CredentialInfo) -> pb::CredentialInfo {
    pb::CredentialInfo {
        credential_id: c.credential_id.clone(),
        name: c.name.clone(),
        role: pb::CredentialRole::Organizer as i32,
        issued_at_ms: c.issued_at_ms,
        revoked_at_ms: c.revoked_at_ms,
        tenant: c.tenant.clone(),
    }
}

/// Who plays a seat, as a message.
pub fn seat_player(p: &SeatPlayer) -> pb::SeatPlayer {
    pb::SeatPlayer {
        seat: p.seat,
        display_name: p.display_name.clone(),
        external_id: p.external_id.clone(),
        bot: p.bot.clone(),
    }
}

/// A request's seat player; one that names a bot is refused, since only
/// `bots` (or JoinMatch's `bot`) seats one and the server names it.
pub fn seat_player_from(p: pb::SeatPlayer) -> Result<SeatPlayer, HostError> {
    if !p.bot.is_empty() {
        return Err(HostError::InvalidRequest(format!(
            "seat_players: seat {} names a bot, which the server sets; seat a bot with `bots`",
            p.seat
        )));
    }
    Ok(SeatPlayer {
        seat: p.seat,
        display_name: p.display_name,
        external_id: p.external_id,
        bot: String::new(),
    })
}

/// Why a seat is out, as a view says it.
fn seat_out_reason(reason: OutReason) -> pb::SeatOutReason {
    match reason {
        OutReason::Rule => pb::SeatOutReason::Rule,
        OutReason::Clock => pb::SeatOutReason::Clock,
        OutReason::Resigned => pb::SeatOutReason::Resigned,
        OutReason::Absent => pb::SeatOutReason::Absent,
    }
}

/// A view moved into its message: the game's JSON, text and board are
/// handed over, not copied.
pub fn view(v: MatchView) -> pb::MatchView {
    let players: Vec<SeatPlayer> = v.seats.iter().map(|s| s.player.clone()).collect();
    let quarantined = v.quarantine_reason.is_some() && v.lifecycle != Lifecycle::Finished;
    pb::MatchView {
        match_id: v.match_id,
        game: v.game,
        plugin_version: v.plugin_version,
        plugin_sha256: v.plugin_sha256,
        version: v.version,
        state: state(Some(ListedState::of(v.lifecycle, quarantined))) as i32,
        viewer_seat: v.viewer_seat,
        view_json: v.view_json,
        text: v.text,
        to_move: v.to_move,
        seats: v
            .seats
            .into_iter()
            .map(|s| pb::SeatStatus {
                seat: s.seat,
                filled: s.filled,
                to_move: s.to_move,
                has_acted: s.has_acted,
                resigned: s.resigned,
                clock_remaining_ms: s.clock_remaining_ms,
                out: s.out.is_some(),
                out_reason: s
                    .out
                    .map_or(pb::SeatOutReason::Unspecified, seat_out_reason)
                    as i32,
                display_name: s.player.display_name,
                external_id: s.player.external_id,
                name: s.name.unwrap_or_default(),
                bot: s.player.bot,
            })
            .collect(),
        results: v.results.iter().map(|r| result(r, &players)).collect(),
        pending_action: v.pending_action,
        unavailable_reason: String::new(),
        labels: v.labels.into_iter().collect(),
        paused: v.paused,
        abort_reason: v.abort_reason.unwrap_or_default(),
        adjudicated: v.adjudicated,
        open_seat_deadline_ms: v.open_seat_deadline_ms,
        spectator_delay: v.spectator_delay.map(spectator_delay_message),
        delayed: v.delayed,
        position: v.position.unwrap_or_default(),
        svg: v.svg,
        quarantine_reason: v.quarantine_reason.map(String::from).unwrap_or_default(),
    }
}

/// A request's spectator delay; one with both bounds 0 is no delay.
pub fn spectator_delay(d: pb::SpectatorDelay) -> Option<SpectatorDelay> {
    let delay = SpectatorDelay {
        moves: d.moves,
        ms: d.ms,
    };
    (!delay.is_none()).then_some(delay)
}

fn spectator_delay_message(d: SpectatorDelay) -> pb::SpectatorDelay {
    pb::SpectatorDelay {
        moves: d.moves,
        ms: d.ms,
    }
}

/// An open-seat deadline as the engine takes it: the wait and what then.
pub fn open_seat_deadline(d: pb::OpenSeatDeadline) -> Result<(i64, OnDeadline), HostError> {
    let on_deadline = match pb::OnDeadline::try_from(d.on_deadline) {
        Ok(pb::OnDeadline::Unspecified | pb::OnDeadline::Abort) => OnDeadline::Abort,
        Ok(pb::OnDeadline::StartWithout) => OnDeadline::StartWithout,
        Err(_) => {
            return Err(HostError::InvalidRequest(format!(
                "unknown on_deadline value {}",
                d.on_deadline
            )));
        }
    };
    Ok((d.within_ms, on_deadline))
}

/// A shared view (a watch event's, sent to many streams) as a message of its own.
pub fn view_cloned(v: &MatchView) -> pb::MatchView {
    view(v.clone())
}

fn option(o: &OptionSpec) -> pb::OptionInfo {
    let (kind, choices, min, max) = match &o.kind {
        OptionKind::Int { min, max } => ("integer", vec![], Some(*min), Some(*max)),
        OptionKind::Bool => ("boolean", vec![], None, None),
        OptionKind::Choice(values) => ("choice", values.clone(), None, None),
        OptionKind::Text => ("text", vec![], None, None),
    };
    pb::OptionInfo {
        name: o.name.clone(),
        r#type: kind.to_string(),
        default_value: o.default.to_text(),
        description: o.description.clone(),
        choices,
        min,
        max,
    }
}

pub fn game(g: &GameEntry) -> pb::GameInfo {
    let m = &g.manifest;
    pb::GameInfo {
        name: m.name.clone(),
        version: m.version.clone(),
        versions: g.versions.clone(),
        min_players: m.min_players,
        max_players: m.max_players,
        options: m.options.iter().map(option).collect(),
        rules_summary: m.rules_summary.clone(),
        simultaneous: m.simultaneous,
        hidden_information: m.hidden_information,
        chance: m.chance,
        removable_players: m.removable_players,
        seat_names: g
            .seat_names
            .iter()
            .map(|(players, names)| pb::SeatNames {
                players: *players,
                names: names.clone(),
            })
            .collect(),
        svg_board: g.svg_board,
        action_targets: g.action_targets,
        builds: g.builds.clone(),
        hosts: g.hosts.clone(),
    }
}

pub fn summary(s: &MatchSummary) -> pb::MatchSummary {
    pb::MatchSummary {
        match_id: s.match_id.clone(),
        game: s.game.clone(),
        plugin_version: s.plugin_version.clone(),
        players: s.players,
        state: state(s.state) as i32,
        version: s.version,
        open_seats: s.open_seats.clone(),
        created_at_ms: s.created_at_ms,
        unavailable_reason: s.unavailable_reason.clone(),
        labels: s
            .labels
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    }
}

pub fn plugin(p: &PluginEntry) -> pb::PluginInfo {
    let m = p.plugin.manifest();
    let worker = p.plugin.worker_status();
    pb::PluginInfo {
        game: m.name.clone(),
        version: m.version.clone(),
        file: p.plugin.file().display().to_string(),
        sha256: p.plugin.sha256().to_string(),
        loaded_at_ms: p
            .plugin
            .loaded_at()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0),
        match_ids: p.match_ids.clone(),
        trusted: p.plugin.is_trusted(),
        worker_pid: worker.as_ref().and_then(|w| w.pid).unwrap_or(0),
        worker_starts: worker.as_ref().map_or(0, |w| w.started),
        faults: worker.as_ref().map_or(0, |w| w.faults),
        recent_faults: worker.as_ref().map_or(0, |w| w.recent_faults),
        suspended: worker.as_ref().is_some_and(|w| w.suspended),
        quarantined_match_ids: p.quarantined.clone(),
        retired: p.plugin.is_retired(),
        hosts: p.hosts.clone(),
    }
}

pub fn tokens(tokens: &[(u32, String)]) -> Vec<pb::SeatToken> {
    tokens
        .iter()
        .map(|(seat, token)| pb::SeatToken {
            seat: *seat,
            token: token.clone(),
        })
        .collect()
}
