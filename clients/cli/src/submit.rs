//! `tabletop move`, and the submission `play` makes: always with the
//! match's expected version, so that a submission made again on the next
//! server, after the first got no answer, can never apply twice (the server
//! refuses a stale version). When that second try is refused as stale (or,
//! in a simultaneous turn, because the seat has acted), the first one may
//! well have been applied: the CLI says so instead of a bare refusal.

use tabletop_proto::v1 as pb;
use tabletop_proto::v1::matches_client::MatchesClient;
use tonic_types::StatusExt;

use crate::error::{CliError, CliResult};
use crate::failover::{Retry, Servers, never_sent, server_gone};
use crate::render;
use crate::render::print_json;

/// `move`: submits `action` at `expect_version`, or at the version the seat
/// sees now, and prints the view after it.
pub async fn run(
    servers: &Servers,
    match_id: String,
    token: String,
    action: pb::submit_action_request::Action,
    expect_version: Option<u64>,
    json: bool,
) -> CliResult {
    let expected_version = match expect_version {
        Some(version) => version,
        None => seat_view(servers, &match_id, &token).await?.version,
    };
    let request = pb::SubmitActionRequest {
        match_id: match_id.clone(),
        seat_token: token.clone(),
        action: Some(action),
        expected_version: Some(expected_version),
        ..Default::default()
    };
    let response = match submit(servers, request).await {
        Ok(response) => response,
        Err(error @ CliError::MaybeApplied { .. }) => {
            // What the match looks like now, for the player to judge.
            if let Ok(view) = seat_view(servers, &match_id, &token).await {
                print_view(&view, json);
            }
            return Err(error);
        }
        Err(error) => return Err(error),
    };
    let view = response.view.unwrap_or_default();
    if json {
        print_json(&serde_json::json!({
            "pending": response.pending,
            "view": render::view_json(&view),
        }));
    } else {
        out!("{}", render::view_text(&view));
        if response.pending {
            outln!("(action recorded; waiting for the other seats)");
        }
    }
    Ok(())
}

fn print_view(view: &pb::MatchView, json: bool) {
    if json {
        print_json(&render::view_json(view));
    } else {
        out!("{}", render::view_text(view));
    }
}

/// The match as the seat of `token` sees it now.
pub async fn seat_view(
    servers: &Servers,
    match_id: &str,
    token: &str,
) -> Result<pb::MatchView, CliError> {
    let request = pb::GetViewRequest {
        match_id: match_id.to_string(),
        seat_token: token.to_string(),
        at_version: None,
        svg: false,
    };
    servers
        .call(Retry::Safe, request, |c, r| async move {
            MatchesClient::new(c).get_view(r).await
        })
        .await
}

/// Submits `request`, on the next server when the one in use is gone —
/// only when it carries its expected version. A refusal of such a second
/// try as stale or already acted is [`CliError::MaybeApplied`].
pub async fn submit(
    servers: &Servers,
    request: pb::SubmitActionRequest,
) -> Result<pb::SubmitActionResponse, CliError> {
    let retry = if request.expected_version.is_some() {
        Retry::Safe
    } else {
        Retry::NotSent
    };
    let mut outage = None;
    // The failure of a try that may have reached its server.
    let mut unanswered: Option<tonic::Status> = None;
    loop {
        let (at, conn) = servers.conn(&mut outage).await?;
        match MatchesClient::new(conn)
            .submit_action(request.clone())
            .await
        {
            Ok(response) => return Ok(response.into_inner()),
            Err(status) if servers.several() && crate::failover::may_call_again(retry, &status) => {
                if server_gone(&status) && !never_sent(&status) {
                    unanswered = Some(status.clone());
                }
                servers.move_on(at, &mut outage, status.into()).await?;
            }
            Err(status) => {
                return Err(match unanswered {
                    Some(first) if applied_before(&status) => CliError::MaybeApplied {
                        first: Box::new(first),
                        refusal: Box::new(status),
                    },
                    _ => status.into(),
                });
            }
        }
    }
}

/// Whether a refusal is what a try of an action already applied gets: a
/// stale version, or (in a simultaneous turn, where acting moves no
/// version) a seat that has acted.
fn applied_before(status: &tonic::Status) -> bool {
    status
        .get_details_error_info()
        .is_some_and(|info| matches!(info.reason.as_str(), "STALE_VERSION" | "ALREADY_ACTED"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic_types::ErrorDetails;

    fn refusal(reason: &str) -> tonic::Status {
        let details = ErrorDetails::with_error_info(reason, "tabletop", []);
        tonic::Status::with_error_details(tonic::Code::FailedPrecondition, "no", details)
    }

    #[test]
    fn a_stale_version_or_a_seat_that_acted_is_what_an_applied_action_gets() {
        assert!(applied_before(&refusal("STALE_VERSION")));
        assert!(applied_before(&refusal("ALREADY_ACTED")));
        assert!(!applied_before(&refusal("ILLEGAL_ACTION")));
        assert!(!applied_before(&tonic::Status::failed_precondition("no")));
    }
}
