//! Who may do what: organizer credentials (issue, revoke, list), re-issuing a
//! seat's token, and the `--player SEAT=NAME[:ID]` identities of `new`.

use tabletop_proto::v1 as pb;
use tabletop_proto::v1::admin_client::AdminClient;
use tabletop_proto::v1::director_client::DirectorClient;

use crate::error::{CliError, CliResult};
use crate::failover::{Retry, Servers};
use crate::render::print_json;
use crate::{Command, CredentialAction};

/// Parses repeated `SEAT=NAME` / `SEAT=NAME:EXTERNAL_ID` arguments.
pub fn seat_players(given: &[String]) -> Result<Vec<pb::SeatPlayer>, CliError> {
    given
        .iter()
        .map(|text| {
            let usage = || CliError::Usage(format!("player `{text}` must be SEAT=NAME[:ID]"));
            let (seat, who) = text.split_once('=').ok_or_else(usage)?;
            let seat = seat.trim().parse().map_err(|_| usage())?;
            let (display_name, external_id) = who.split_once(':').unwrap_or((who, ""));
            Ok(pb::SeatPlayer {
                seat,
                display_name: display_name.to_string(),
                external_id: external_id.to_string(),
                ..Default::default()
            })
        })
        .collect()
}

fn credential_json(c: &pb::CredentialInfo) -> serde_json::Value {
    serde_json::json!({
        "credential_id": c.credential_id,
        "name": c.name,
        "tenant": c.tenant,
        "issued_at_ms": c.issued_at_ms,
        "revoked_at_ms": c.revoked_at_ms,
    })
}

fn credential_line(c: &pb::CredentialInfo) -> String {
    match c.revoked_at_ms {
        Some(at) => format!(
            "{}  {}  tenant {}  revoked at {at}",
            c.credential_id, c.name, c.tenant
        ),
        None => format!(
            "{}  {}  tenant {}  valid",
            c.credential_id, c.name, c.tenant
        ),
    }
}

/// Runs `reissue-token` or `credential …`.
///
/// Only the listing is made again on the next server after no answer came:
/// a second issue would issue a second credential.
pub async fn run(servers: &Servers, command: Command, json: bool) -> CliResult {
    match command {
        Command::ReissueToken {
            match_id,
            seat,
            admin_token,
        } => {
            let request = pb::ReissueSeatTokenRequest {
                admin_token,
                match_id,
                seat,
            };
            let token = servers
                .call(Retry::NotSent, request, |c, r| async move {
                    DirectorClient::new(c).reissue_seat_token(r).await
                })
                .await?;
            if json {
                print_json(&serde_json::json!({ "seat": token.seat, "token": token.token }));
            } else {
                outln!("seat {} token {}", token.seat, token.token);
            }
            Ok(())
        }
        Command::Credential {
            action,
            admin_token,
        } => {
            match action {
                CredentialAction::Issue { name, tenant } => {
                    let request = pb::IssueCredentialRequest {
                        admin_token,
                        name,
                        role: pb::CredentialRole::Organizer as i32,
                        tenant,
                    };
                    let issued = servers
                        .call(Retry::NotSent, request, |c, r| async move {
                            AdminClient::new(c).issue_credential(r).await
                        })
                        .await?;
                    let info = issued.credential.unwrap_or_default();
                    if json {
                        let mut value = credential_json(&info);
                        value["secret"] = issued.secret.into();
                        print_json(&value);
                    } else {
                        outln!(
                            "credential {} for {} in tenant {}",
                            info.credential_id,
                            info.name,
                            info.tenant
                        );
                        outln!("secret {}", issued.secret);
                    }
                }
                CredentialAction::Revoke { credential_id } => {
                    let request = pb::RevokeCredentialRequest {
                        admin_token,
                        credential_id,
                    };
                    let info = servers
                        .call(Retry::NotSent, request, |c, r| async move {
                            AdminClient::new(c).revoke_credential(r).await
                        })
                        .await?;
                    if json {
                        print_json(&credential_json(&info));
                    } else {
                        outln!("{}", credential_line(&info));
                    }
                }
                CredentialAction::List => {
                    let request = pb::ListCredentialsRequest { admin_token };
                    let list = servers
                        .call(Retry::Safe, request, |c, r| async move {
                            AdminClient::new(c).list_credentials(r).await
                        })
                        .await?
                        .credentials;
                    if json {
                        print_json(&serde_json::json!(
                            list.iter().map(credential_json).collect::<Vec<_>>()
                        ));
                    } else {
                        for c in &list {
                            outln!("{}", credential_line(c));
                        }
                    }
                }
            }
            Ok(())
        }
        other => Err(CliError::Usage(format!(
            "{other:?} is not an access command"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn players_read_seat_name_and_optional_id() {
        let parsed = seat_players(&["0=Ada:p-17".into(), "2=Grace Hopper".into()]).unwrap();
        assert_eq!(parsed[0].seat, 0);
        assert_eq!(parsed[0].display_name, "Ada");
        assert_eq!(parsed[0].external_id, "p-17");
        assert_eq!(parsed[1].seat, 2);
        assert_eq!(parsed[1].display_name, "Grace Hopper");
        assert_eq!(parsed[1].external_id, "");
        assert!(seat_players(&["Ada".into()]).is_err());
        assert!(seat_players(&["x=Ada".into()]).is_err());
    }
}
