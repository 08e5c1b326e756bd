//! `tabletop matches`: a page of the server's matches (or every page), by
//! game, state and labels; and the `KEY=VALUE` pairs of options and labels.

use std::collections::HashMap;

use tabletop_proto::v1 as pb;
use tabletop_proto::v1::matches_client::MatchesClient;

use crate::error::{CliError, CliResult};
use crate::failover::{Retry, Servers};
use crate::render::print_json;
use crate::{StateArg, render};

/// Parses repeated `KEY=VALUE` arguments; `what` names them in the error.
pub fn pairs(what: &str, given: &[String]) -> Result<HashMap<String, String>, CliError> {
    let mut parsed = HashMap::new();
    for pair in given {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| CliError::Usage(format!("{what} `{pair}` must be KEY=VALUE")))?;
        parsed.insert(key.to_string(), value.to_string());
    }
    Ok(parsed)
}

/// What `tabletop matches` asks for.
pub struct Filters {
    /// Only this game (all if empty).
    pub game: String,
    /// Only this state.
    pub state: Option<StateArg>,
    /// Only matches with all of these labels.
    pub labels: HashMap<String, String>,
    /// Matches per page.
    pub page_size: u32,
}

fn state(state: Option<StateArg>) -> pb::MatchState {
    match state {
        None => pb::MatchState::Unspecified,
        Some(StateArg::Waiting) => pb::MatchState::Waiting,
        Some(StateArg::Running) => pb::MatchState::Running,
        Some(StateArg::Finished) => pb::MatchState::Finished,
        Some(StateArg::Unavailable) => pb::MatchState::Unavailable,
        Some(StateArg::Quarantined) => pb::MatchState::Quarantined,
    }
}

/// Prints one page from `page_token` (and the token of the next, on
/// stderr so `--json` stays one document), or with `all` every page.
pub async fn matches(
    servers: &Servers,
    filters: Filters,
    page_token: Option<String>,
    all: bool,
    json: bool,
) -> CliResult {
    let mut token = page_token.unwrap_or_default();
    let mut listed = Vec::new();
    loop {
        let request = pb::ListMatchesRequest {
            game: filters.game.clone(),
            state: state(filters.state) as i32,
            page_size: filters.page_size,
            page_token: token,
            labels: filters.labels.clone(),
            created_from_ms: None,
            created_before_ms: None,
        };
        let page = servers
            .call(Retry::Safe, request, |c, r| async move {
                MatchesClient::new(c).list_matches(r).await
            })
            .await?;
        if !json {
            // Printed page by page, so a long listing starts at once.
            for m in &page.matches {
                print_summary(m);
            }
        }
        listed.extend(page.matches);
        token = page.next_page_token;
        if token.is_empty() || !all {
            break;
        }
    }
    if json {
        print_json(&serde_json::json!(
            listed.iter().map(summary_json).collect::<Vec<_>>()
        ));
    }
    if !token.is_empty() {
        eprintln!("more: --page-token {token}");
    }
    Ok(())
}

fn summary_json(m: &pb::MatchSummary) -> serde_json::Value {
    serde_json::json!({
        "match_id": m.match_id, "game": m.game,
        "plugin_version": m.plugin_version, "players": m.players,
        "state": render::state_name(m.state), "version": m.version,
        "open_seats": m.open_seats, "created_at_ms": m.created_at_ms,
        "unavailable_reason": m.unavailable_reason,
        "labels": m.labels,
    })
}

fn print_summary(m: &pb::MatchSummary) {
    let mut labels: Vec<String> = m.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
    labels.sort();
    outln!(
        "{}  {} {}  {} players  v{}  {}{}{}",
        m.match_id,
        m.game,
        m.plugin_version,
        m.players,
        m.version,
        render::state_name(m.state),
        if m.unavailable_reason.is_empty() {
            String::new()
        } else {
            format!(" ({})", m.unavailable_reason)
        },
        if labels.is_empty() {
            String::new()
        } else {
            format!("  [{}]", labels.join(" "))
        }
    );
}
