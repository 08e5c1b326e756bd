//! Turning API messages into lines for a terminal or into JSON for scripts.

use tabletop_proto::v1 as pb;

/// A match state's name.
pub fn state_name(state: i32) -> &'static str {
    match pb::MatchState::try_from(state) {
        Ok(pb::MatchState::Waiting) => "waiting for players",
        Ok(pb::MatchState::Running) => "running",
        Ok(pb::MatchState::Finished) => "finished",
        Ok(pb::MatchState::Unavailable) => "unavailable",
        Ok(pb::MatchState::Quarantined) => "quarantined",
        _ => "unknown",
    }
}

/// The board and the status lines of a view.
pub fn view_text(view: &pb::MatchView) -> String {
    let mut out = String::new();
    out.push_str(&view.text);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    push_identity(&mut out, view);
    push_director_state(&mut out, view);
    push_turn(&mut out, view);
    push_results(&mut out, view);
    out
}

/// The match, its game, version and build, its labels and its named
/// players.
fn push_identity(out: &mut String, view: &pb::MatchView) {
    out.push_str(&format!(
        "match {} · {} {} · version {} · {}{}\n",
        view.match_id,
        view.game,
        view.plugin_version,
        view.version,
        state_name(view.state),
        build_of(view)
    ));
    if !view.labels.is_empty() {
        let mut labels: Vec<String> = view
            .labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        labels.sort();
        out.push_str(&format!("labels: {}\n", labels.join(" ")));
    }
    let players: Vec<String> = view
        .seats
        .iter()
        .filter(|s| !s.display_name.is_empty() || !s.external_id.is_empty())
        .map(|s| {
            format!(
                "{} {}",
                seat_label(s),
                player_name(&s.display_name, &s.external_id)
            )
        })
        .collect();
    if !players.is_empty() {
        out.push_str(&format!("players: {}\n", players.join(", ")));
    }
}

/// What the server, directors and the creator decided: a quarantine, a
/// pause, an abort, an adjudication, the open seats' deadline, the
/// spectators' delay.
fn push_director_state(out: &mut String, view: &pb::MatchView) {
    if !view.quarantine_reason.is_empty() {
        if view.state == pb::MatchState::Quarantined as i32 {
            out.push_str(&format!(
                "quarantined by the server: {} (clocks stopped, actions refused; a director \
                 may abort or adjudicate, the admin may lift it)\n",
                view.quarantine_reason
            ));
        } else {
            out.push_str(&format!(
                "ended while quarantined: {}\n",
                view.quarantine_reason
            ));
        }
    }
    if view.paused {
        out.push_str("paused by a director: clocks stopped, actions refused\n");
    }
    if !view.abort_reason.is_empty() {
        out.push_str(&format!("aborted by a director: {}\n", view.abort_reason));
    }
    if view.adjudicated {
        out.push_str("results decided by a director\n");
    }
    if let Some(deadline) = view.open_seat_deadline_ms {
        out.push_str(&format!(
            "open seats must be taken by {} (ms since the Unix epoch)\n",
            deadline
        ));
    }
    if let Some(delay) = &view.spectator_delay {
        let behind = delay_text(delay);
        if view.delayed {
            out.push_str(&format!(
                "delayed: you are watching {behind} behind the match\n"
            ));
        } else {
            out.push_str(&format!("spectators watch {behind} behind\n"));
        }
    }
}

/// Who is to move, the viewer's pending action, and the seats out.
fn push_turn(out: &mut String, view: &pb::MatchView) {
    if !view.to_move.is_empty() {
        let seats: Vec<String> = view
            .seats
            .iter()
            .filter(|s| s.to_move)
            .map(|s| {
                if s.has_acted {
                    format!("{}, acted", seat_label(s))
                } else {
                    seat_label(s)
                }
            })
            .collect();
        out.push_str(&format!("to move: {}\n", seats.join("; ")));
    }
    if let Some(pending) = &view.pending_action {
        out.push_str(&format!("your pending action: {pending}\n"));
    }
    for s in view.seats.iter().filter(|s| s.out) {
        out.push_str(&format!(
            "{}: out ({})\n",
            seat_label(s),
            out_reason_name(s.out_reason)
        ));
    }
}

/// Each seat's rank and score, once there are results.
fn push_results(out: &mut String, view: &pb::MatchView) {
    for r in &view.results {
        let label = match view.seats.get(r.seat as usize) {
            Some(s) => seat_label(s),
            None => format!("seat {}", r.seat),
        };
        out.push_str(&format!(
            "{label}: rank {} (score {}){}\n",
            r.rank,
            r.score,
            if r.resigned { ", resigned" } else { "" }
        ));
    }
}

/// `seat 1 (B)`: the API's number and the game's name of the seat, as
/// every message names a seat.
pub fn seat_label(seat: &pb::SeatStatus) -> String {
    if seat.name.is_empty() {
        format!("seat {}", seat.seat)
    } else {
        format!("seat {} ({})", seat.seat, seat.name)
    }
}

/// A player as `Name (external id)`, whichever of the two is known.
pub fn player_name(display_name: &str, external_id: &str) -> String {
    match (display_name.is_empty(), external_id.is_empty()) {
        (false, false) => format!("{display_name} ({external_id})"),
        (false, true) => display_name.to_string(),
        _ => format!("({external_id})"),
    }
}

/// How far behind a spectator delay holds spectators: "2 moves",
/// "1.5 s", "2 moves and 1.5 s".
fn delay_text(delay: &pb::SpectatorDelay) -> String {
    let moves = match delay.moves {
        0 => None,
        1 => Some("1 move".to_string()),
        n => Some(format!("{n} moves")),
    };
    let time = (delay.ms != 0).then(|| format!("{} s", delay.ms as f64 / 1000.0));
    match (moves, time) {
        (Some(moves), Some(time)) => format!("{moves} and {time}"),
        (Some(one), None) | (None, Some(one)) => one,
        (None, None) => "nothing".to_string(),
    }
}

/// Why a seat is out, in a word: `resigned`, `clock`, `absent` (never
/// taken by the open-seat deadline), `rule` (the game's rules put it out),
/// `director`.
fn out_reason_name(reason: i32) -> &'static str {
    match pb::SeatOutReason::try_from(reason) {
        Ok(pb::SeatOutReason::Resigned) => "resigned",
        Ok(pb::SeatOutReason::Clock) => "clock",
        Ok(pb::SeatOutReason::Absent) => "absent",
        Ok(pb::SeatOutReason::Rule) => "rule",
        Ok(pb::SeatOutReason::Director) => "director",
        // A host newer than this client may give a reason it does not know.
        Ok(pb::SeatOutReason::Unspecified) | Err(_) => "reason not given",
    }
}

/// ` · build ` and the first 12 hex digits of the plugin file's SHA-256
/// the match was created with; empty when it recorded none.
fn build_of(view: &pb::MatchView) -> String {
    match view.plugin_sha256.get(..12) {
        Some(short) => format!(" · build {short}"),
        None => String::new(),
    }
}

/// A view as JSON (the game's view embedded as JSON, not as a string).
pub fn view_json(view: &pb::MatchView) -> serde_json::Value {
    serde_json::json!({
        "match_id": view.match_id,
        "game": view.game,
        "plugin_version": view.plugin_version,
        "plugin_sha256": view.plugin_sha256,
        "version": view.version,
        "state": state_name(view.state),
        "viewer_seat": view.viewer_seat,
        "to_move": view.to_move,
        "view": serde_json::from_str::<serde_json::Value>(&view.view_json)
            .unwrap_or(serde_json::Value::String(view.view_json.clone())),
        "text": view.text,
        "seats": view.seats.iter().map(|s| serde_json::json!({
            "seat": s.seat, "name": s.name, "filled": s.filled, "to_move": s.to_move,
            "has_acted": s.has_acted, "resigned": s.resigned, "out": s.out,
            "display_name": s.display_name, "external_id": s.external_id,
            "out_reason": s.out.then(|| out_reason_name(s.out_reason)),
        })).collect::<Vec<_>>(),
        "results": view.results.iter().map(|r| serde_json::json!({
            "seat": r.seat, "rank": r.rank, "score": r.score, "resigned": r.resigned,
            "display_name": r.display_name, "external_id": r.external_id,
        })).collect::<Vec<_>>(),
        "pending_action": view.pending_action,
        "labels": view.labels,
        "paused": view.paused,
        "quarantine_reason": (!view.quarantine_reason.is_empty())
            .then_some(&view.quarantine_reason),
        "abort_reason": view.abort_reason,
        "adjudicated": view.adjudicated,
        "position": (!view.position.is_empty()).then_some(&view.position),
        "open_seat_deadline_ms": view.open_seat_deadline_ms,
        "spectator_delay": view.spectator_delay.as_ref().map(|d| serde_json::json!({
            "moves": d.moves, "ms": d.ms,
        })),
        "delayed": view.delayed,
    })
}

/// A game's description.
pub fn game_text(game: &pb::GameInfo) -> String {
    let mut out = format!(
        "{} {} — {}–{} players{}{}{}\n",
        game.name,
        game.version,
        game.min_players,
        game.max_players,
        if game.simultaneous {
            ", simultaneous"
        } else {
            ""
        },
        if game.hidden_information {
            ", hidden information"
        } else {
            ""
        },
        if game.chance { ", chance" } else { "" },
    );
    if game.builds.len() > 1 {
        out.push_str(&format!(
            "{} builds of {} are loaded (new matches refused until all but one file is removed):
",
            game.builds.len(),
            game.version
        ));
    } else {
        out.push_str(
            "build:
",
        );
    }
    for build in &game.builds {
        out.push_str(&format!(
            "  {build}
"
        ));
    }
    if !game.hosts.is_empty() {
        out.push_str(&format!("on hosts: {}\n", game.hosts.join(", ")));
    }
    if !game.options.is_empty() {
        out.push_str("options:\n");
        for o in &game.options {
            let range = match (o.min, o.max) {
                (Some(min), Some(max)) => format!(" {min}..{max}"),
                _ if !o.choices.is_empty() => format!(" {}", o.choices.join("|")),
                _ => String::new(),
            };
            out.push_str(&format!(
                "  {} ({}{range}, default {}): {}\n",
                o.name, o.r#type, o.default_value, o.description
            ));
        }
    }
    out.push('\n');
    out.push_str(&game.rules_summary);
    out.push('\n');
    out
}

/// A game as JSON.
pub fn game_json(game: &pb::GameInfo) -> serde_json::Value {
    serde_json::json!({
        "name": game.name,
        "version": game.version,
        "versions": game.versions,
        "builds": game.builds,
        "hosts": game.hosts,
        "min_players": game.min_players,
        "max_players": game.max_players,
        "simultaneous": game.simultaneous,
        "hidden_information": game.hidden_information,
        "chance": game.chance,
        "options": game.options.iter().map(|o| serde_json::json!({
            "name": o.name, "type": o.r#type, "default": o.default_value,
            "description": o.description, "choices": o.choices, "min": o.min, "max": o.max,
        })).collect::<Vec<_>>(),
        "rules_summary": game.rules_summary,
    })
}

/// Prints `value` as pretty JSON on standard output.
pub(crate) fn print_json(value: &serde_json::Value) {
    outln!(
        "{}",
        serde_json::to_string_pretty(value).expect("JSON values print")
    );
}
