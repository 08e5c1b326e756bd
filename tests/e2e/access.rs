//! Who may do what: the admin token, organizer credentials, join codes and
//! seat tokens, checked call by call against the permission table in
//! `engine-host/src/engine/access.rs`; player identities carried into views,
//! results, records and the feed; and the seed-clone attack.

use std::time::Duration;

use tabletop_proto::v1 as pb;
use tabletop_proto::v1::admin_client::AdminClient;
use tabletop_proto::v1::director_client::DirectorClient;
use tabletop_proto::v1::lifecycle_event::Kind;
use tabletop_proto::v1::matches_client::MatchesClient;
use tabletop_tests::{ADMIN_TOKEN, Host, HostOptions, as_admin, with_credential};
use tokio_stream::StreamExt;
use tonic::Code;
use tonic::transport::Channel;

use crate::support::{issue_in_tenant, issue_organizer, reason, spectator};

/// Whether a call was refused for its caller rather than for anything else.
fn refused_for_caller(status: &tonic::Status) -> bool {
    matches!(
        status.code(),
        Code::Unauthenticated | Code::PermissionDenied
    )
}

/// A request carrying `secret` as its bearer credential (none if empty).
fn request<T>(secret: &str, message: T) -> tonic::Request<T> {
    if secret.is_empty() {
        tonic::Request::new(message)
    } else {
        with_credential(secret, message)
    }
}

/// A running two-seat Focus match the holder of `owner` created (so of
/// its tenant), with one open invite-only seat if `open` (then it waits):
/// (id, seat 0's token, the open seat's join code).
async fn match_of(
    matches: &mut MatchesClient<Channel>,
    owner: &str,
    open: bool,
) -> (String, String, String) {
    let created = matches
        .create_match(request(
            owner,
            pb::CreateMatchRequest {
                game: "focus".into(),
                players: 2,
                open_seats: if open { vec![1] } else { vec![] },
                ..Default::default()
            },
        ))
        .await
        .expect("the admin creates")
        .into_inner();
    let code = created
        .join_codes
        .first()
        .map(|c| c.code.clone())
        .unwrap_or_default();
    (created.match_id, created.seats[0].token.clone(), code)
}

/// Who a call needs, as the permission table says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Needs {
    Anyone,
    Organizer,
    /// An organizer, and an anonymous caller is told PERMISSION_DENIED
    /// rather than asked for a credential: choosing a secret.
    OrganizerForSecrets,
    /// An organizer of the match's tenant (or the admin): the calls on one
    /// match that only its director may make.
    TenantOrganizer,
    Admin,
}

/// Every call of the table that a bearer credential decides, made once by
/// the caller holding `secret` on matches the holder of `owner` created:
/// its outcome, by call name.
async fn attempt_every_call(
    host: &Host,
    secret: &str,
    owner: &str,
) -> Vec<(&'static str, Needs, Result<(), tonic::Status>)> {
    let mut matches = host.matches().await;
    let mut director = DirectorClient::new(host.channel().await);
    let mut admin = AdminClient::new(host.channel().await);
    let mut outcomes = Vec::new();
    let ok = |r: Result<(), tonic::Status>| r;

    let r = matches
        .create_match(request(
            secret,
            pb::CreateMatchRequest {
                game: "focus".into(),
                players: 2,
                ..Default::default()
            },
        ))
        .await
        .map(drop);
    outcomes.push(("create without a seed", Needs::Anyone, ok(r)));
    let r = matches
        .create_match(request(
            secret,
            pb::CreateMatchRequest {
                game: "lanzeloth".into(),
                players: 3,
                seed: Some(42),
                ..Default::default()
            },
        ))
        .await
        .map(drop);
    outcomes.push(("create with a seed", Needs::OrganizerForSecrets, r));

    let (waiting, _, _) = match_of(&mut matches, owner, true).await;
    let r = matches
        .join_match(request(
            secret,
            pb::JoinMatchRequest {
                match_id: waiting.clone(),
                seat: Some(1),
                display_name: "walk-in".into(),
                ..Default::default()
            },
        ))
        .await
        .map(drop);
    outcomes.push((
        "join an invite-only seat without its code",
        Needs::TenantOrganizer,
        r,
    ));

    let (running, _, _) = match_of(&mut matches, owner, false).await;
    let r = matches
        .get_view(request(
            secret,
            pb::GetViewRequest {
                match_id: running.clone(),
                ..Default::default()
            },
        ))
        .await
        .map(drop);
    outcomes.push(("a spectator's view", Needs::Anyone, r));
    let r = matches
        .list_matches(request(secret, pb::ListMatchesRequest::default()))
        .await
        .map(drop);
    outcomes.push(("list matches", Needs::Anyone, r));
    let r = matches
        .export_record(request(
            secret,
            pb::ExportRecordRequest {
                match_id: running.clone(),
                ..Default::default()
            },
        ))
        .await
        .map(drop);
    outcomes.push(("export a running match's record", Needs::TenantOrganizer, r));
    let r = director
        .reissue_seat_token(request(
            secret,
            pb::ReissueSeatTokenRequest {
                match_id: running.clone(),
                seat: 0,
                ..Default::default()
            },
        ))
        .await
        .map(drop);
    outcomes.push(("re-issue a seat token", Needs::TenantOrganizer, r));
    let r = director
        .pause_match(request(
            secret,
            pb::PauseMatchRequest {
                match_id: running.clone(),
                ..Default::default()
            },
        ))
        .await
        .map(drop);
    outcomes.push(("pause", Needs::TenantOrganizer, r));
    let r = director
        .abort_match(request(
            secret,
            pb::AbortMatchRequest {
                match_id: running.clone(),
                reason: "permission table".into(),
                ..Default::default()
            },
        ))
        .await
        .map(drop);
    outcomes.push(("abort", Needs::TenantOrganizer, r));
    let r = match director
        .follow_lifecycle(request(secret, pb::FollowLifecycleRequest::default()))
        .await
    {
        Ok(stream) => match stream.into_inner().next().await {
            Some(Err(status)) => Err(status),
            _ => Ok(()),
        },
        Err(status) => Err(status),
    };
    outcomes.push(("follow the lifecycle feed", Needs::Organizer, r));

    let r = admin
        .list_plugins(request(secret, pb::ListPluginsRequest::default()))
        .await
        .map(drop);
    outcomes.push(("list plugins", Needs::Admin, r));
    let r = admin
        .load_plugin(request(
            secret,
            pb::LoadPluginRequest {
                path: "/nonexistent/plugin.so".into(),
                ..Default::default()
            },
        ))
        .await
        .map(drop);
    outcomes.push(("load a plugin", Needs::Admin, r));
    let r = admin
        .issue_credential(request(
            secret,
            pb::IssueCredentialRequest {
                name: "a second organizer".into(),
                ..Default::default()
            },
        ))
        .await
        .map(drop);
    outcomes.push(("issue a credential", Needs::Admin, r));
    let r = admin
        .list_credentials(request(secret, pb::ListCredentialsRequest::default()))
        .await
        .map(drop);
    outcomes.push(("list credentials", Needs::Admin, r));
    let r = matches
        .import_record(request(
            secret,
            pb::ImportRecordRequest {
                record_json: "{}".into(),
                ..Default::default()
            },
        ))
        .await
        .map(drop);
    outcomes.push(("import a record", Needs::Admin, r));
    let r = admin
        .backup(request(
            secret,
            pb::BackupRequest {
                path: host
                    .data_dir
                    .join(format!("backup-{}.sqlite3", secret.len()))
                    .display()
                    .to_string(),
                ..Default::default()
            },
        ))
        .await
        .map(drop);
    outcomes.push(("take a backup", Needs::Admin, r));
    outcomes
}

#[tokio::test]
async fn the_organizer_can_do_exactly_its_table_and_nothing_more() {
    let host = Host::start().await;
    let (_, organizer) = issue_organizer(&host, "spring open").await;
    // Each caller on matches of its own tenant (an anonymous caller's are
    // the admin's); across tenants see the test after this one.
    for (caller, secret, owner, rank) in [
        ("anonymous", "", ADMIN_TOKEN, 0),
        ("organizer", organizer.as_str(), organizer.as_str(), 1),
        ("admin", ADMIN_TOKEN, ADMIN_TOKEN, 2),
    ] {
        for (call, needs, outcome) in attempt_every_call(&host, secret, owner).await {
            let allowed = match needs {
                Needs::Anyone => true,
                Needs::Organizer | Needs::OrganizerForSecrets | Needs::TenantOrganizer => rank >= 1,
                Needs::Admin => rank >= 2,
            };
            match (&outcome, allowed) {
                (Ok(()), true) => {}
                // Past the check of its caller, a call may still fail for
                // its content (a made-up plugin path, an empty record).
                (Err(status), true) => assert!(
                    !refused_for_caller(status),
                    "{caller}: {call} must be allowed: {status:?}"
                ),
                (Ok(()), false) => panic!("{caller}: {call} must be refused"),
                (Err(status), false) => {
                    let expected = if rank == 0 && needs != Needs::OrganizerForSecrets {
                        (Code::Unauthenticated, "TOKEN_REQUIRED")
                    } else {
                        (Code::PermissionDenied, "NOT_PERMITTED")
                    };
                    assert_eq!(
                        (status.code(), reason(status).as_str()),
                        expected,
                        "{caller}: {call}: {}",
                        status.message()
                    );
                }
            }
        }
    }
}

#[tokio::test]
async fn a_revoked_or_made_up_credential_is_refused_and_a_conflicting_one_too() {
    let host = Host::start().await;
    let (id, organizer) = issue_organizer(&host, "autumn cup").await;
    let mut matches = host.matches().await;
    let seeded = || pb::CreateMatchRequest {
        game: "focus".into(),
        players: 2,
        seed: Some(1),
        ..Default::default()
    };
    matches
        .create_match(with_credential(&organizer, seeded()))
        .await
        .expect("a valid organizer chooses a seed");

    let made_up = matches
        .create_match(with_credential("not-a-credential", seeded()))
        .await
        .expect_err("a made-up credential");
    assert_eq!(made_up.code(), Code::PermissionDenied);
    assert_eq!(reason(&made_up), "BAD_TOKEN");
    let conflicting = host
        .admin()
        .await
        .list_plugins(with_credential(
            &organizer,
            pb::ListPluginsRequest {
                admin_token: ADMIN_TOKEN.into(),
            },
        ))
        .await
        .expect_err("two different credentials in one call");
    assert!(refused_for_caller(&conflicting) || conflicting.code() == Code::InvalidArgument);

    let revoked = host
        .admin()
        .await
        .revoke_credential(as_admin(pb::RevokeCredentialRequest {
            credential_id: id.clone(),
            ..Default::default()
        }))
        .await
        .expect("revoke")
        .into_inner();
    assert!(revoked.revoked_at_ms.is_some());
    let refused = matches
        .create_match(with_credential(&organizer, seeded()))
        .await
        .expect_err("a revoked credential");
    assert_eq!(refused.code(), Code::PermissionDenied);
    assert_eq!(reason(&refused), "BAD_TOKEN");
    let listed = host
        .admin()
        .await
        .list_credentials(as_admin(pb::ListCredentialsRequest::default()))
        .await
        .expect("list")
        .into_inner()
        .credentials;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].credential_id, id);
    assert!(
        listed[0].revoked_at_ms.is_some(),
        "revoked, and still listed"
    );
}

#[tokio::test]
async fn credentials_are_kept_hashed_and_survive_a_restart() {
    let data = tempfile::tempdir().expect("temp dir");
    let options = HostOptions {
        data_dir: Some(data.path().to_path_buf()),
        ..Default::default()
    };
    let host = Host::start_with(options.clone()).await;
    let (_, organizer) = issue_organizer(&host, "league").await;
    drop(host);
    let store = std::fs::read(data.path().join("matches.sqlite3")).expect("the store");
    assert!(
        !store
            .windows(organizer.len())
            .any(|w| w == organizer.as_bytes()),
        "the secret itself is never stored"
    );
    let host = Host::start_with(options).await;
    host.matches()
        .await
        .create_match(with_credential(
            &organizer,
            pb::CreateMatchRequest {
                game: "focus".into(),
                players: 2,
                seed: Some(9),
                ..Default::default()
            },
        ))
        .await
        .expect("the credential still works after a restart");
}

#[tokio::test]
async fn an_open_seat_needs_its_join_code_unless_it_is_public() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    let created = matches
        .create_match(pb::CreateMatchRequest {
            game: "focus".into(),
            players: 3,
            open_seats: vec![1, 2],
            ..Default::default()
        })
        .await
        .expect("create")
        .into_inner();
    let codes: Vec<(u32, String)> = created
        .join_codes
        .iter()
        .map(|c| (c.seat, c.code.clone()))
        .collect();
    assert_eq!(
        codes.iter().map(|c| c.0).collect::<Vec<_>>(),
        vec![1, 2],
        "a code per open seat"
    );
    let join = |seat: Option<u32>, code: &str| pb::JoinMatchRequest {
        match_id: created.match_id.clone(),
        seat,
        join_code: code.to_string(),
        ..Default::default()
    };
    let without = matches
        .join_match(join(None, ""))
        .await
        .expect_err("no code");
    assert_eq!(without.code(), Code::Unauthenticated);
    assert_eq!(reason(&without), "TOKEN_REQUIRED");
    let guessed = matches
        .join_match(join(Some(1), "guessed-code"))
        .await
        .expect_err("a wrong code");
    assert_eq!(guessed.code(), Code::PermissionDenied);
    let other_seat = matches
        .join_match(join(Some(2), &codes[0].1))
        .await
        .expect_err("seat 1's code does not open seat 2");
    assert_eq!(other_seat.code(), Code::PermissionDenied);
    let view = spectator(&mut matches, &created.match_id).await;
    assert_eq!(
        view.state,
        pb::MatchState::Waiting as i32,
        "nothing changed"
    );

    let joined = matches
        .join_match(join(None, &codes[1].1))
        .await
        .expect("the code opens its own seat")
        .into_inner();
    assert_eq!(joined.seat, 2);

    let public = matches
        .create_match(pb::CreateMatchRequest {
            game: "focus".into(),
            players: 2,
            open_seats: vec![1],
            public_open_seats: true,
            ..Default::default()
        })
        .await
        .expect("create public")
        .into_inner();
    assert!(public.join_codes.is_empty());
    let joined = matches
        .join_match(pb::JoinMatchRequest {
            match_id: public.match_id,
            ..Default::default()
        })
        .await
        .expect("anyone takes a public seat")
        .into_inner();
    assert_eq!(joined.seat, 1);
}

#[tokio::test]
async fn a_reissued_seat_token_replaces_the_lost_one() {
    let host = Host::start().await;
    let (_, organizer) = issue_organizer(&host, "club").await;
    let mut matches = host.matches().await;
    let (match_id, old, _) = match_of(&mut matches, &organizer, false).await;
    let reissued = crate::support::reissue(&host, &organizer, &match_id, 0)
        .await
        .expect("the organizer re-issues");
    assert_eq!(reissued.seat, 0);
    assert_ne!(reissued.token, old);
    let as_seat = |token: &str| pb::ListLegalActionsRequest {
        match_id: match_id.clone(),
        seat_token: token.to_string(),
        ids_only: true,
    };
    let stale = matches
        .list_legal_actions(as_seat(&old))
        .await
        .expect_err("the old token stops working");
    assert_eq!(stale.code(), Code::PermissionDenied);
    let legal = matches
        .list_legal_actions(as_seat(&reissued.token))
        .await
        .expect("the new token plays the seat")
        .into_inner();
    assert_eq!(legal.seat, 0);
    assert!(
        !legal.action_ids.is_empty(),
        "Focus's first mover has moves"
    );
}

#[tokio::test]
async fn identities_appear_in_views_results_records_and_the_feed() {
    let host = Host::start().await;
    let (_, organizer) = issue_organizer(&host, "ladder").await;
    let mut matches = host.matches().await;
    let mut feed = DirectorClient::new(host.channel().await)
        .follow_lifecycle(with_credential(
            &organizer,
            pb::FollowLifecycleRequest::default(),
        ))
        .await
        .expect("follow")
        .into_inner();
    let created = matches
        .create_match(with_credential(
            &organizer,
            pb::CreateMatchRequest {
                game: "focus".into(),
                players: 2,
                open_seats: vec![1],
                seat_players: vec![pb::SeatPlayer {
                    seat: 0,
                    display_name: "Ada".into(),
                    external_id: "ladder:17".into(),
                    ..Default::default()
                }],
                ..Default::default()
            },
        ))
        .await
        .expect("create with a named seat")
        .into_inner();
    let joined = matches
        .join_match(pb::JoinMatchRequest {
            match_id: created.match_id.clone(),
            join_code: created.join_codes[0].code.clone(),
            display_name: "Grace".into(),
            external_id: "ladder:23".into(),
            ..Default::default()
        })
        .await
        .expect("join named")
        .into_inner();
    let names = |seats: &[pb::SeatStatus]| -> Vec<(String, String)> {
        seats
            .iter()
            .map(|s| (s.display_name.clone(), s.external_id.clone()))
            .collect()
    };
    let expected = vec![
        ("Ada".to_string(), "ladder:17".to_string()),
        ("Grace".to_string(), "ladder:23".to_string()),
    ];
    let view = spectator(&mut matches, &created.match_id).await;
    assert_eq!(names(&view.seats), expected, "the spectator's view");

    let over = matches
        .resign(pb::ResignRequest {
            match_id: created.match_id.clone(),
            seat_token: joined.token,
        })
        .await
        .expect("resign")
        .into_inner();
    let results: Vec<(u32, String, String)> = over
        .results
        .iter()
        .map(|r| (r.seat, r.display_name.clone(), r.external_id.clone()))
        .collect();
    assert_eq!(
        results,
        vec![
            (0, "Ada".into(), "ladder:17".into()),
            (1, "Grace".into(), "ladder:23".into())
        ]
    );

    let record = matches
        .export_record(pb::ExportRecordRequest {
            match_id: created.match_id.clone(),
            ..Default::default()
        })
        .await
        .expect("a finished match's record is public")
        .into_inner()
        .record_json;
    let record: serde_json::Value = serde_json::from_str(&record).expect("JSON");
    let players = record["seat_players"].as_array().expect("seat_players");
    assert_eq!(players[0]["display_name"], "Ada");
    assert_eq!(players[1]["external_id"], "ladder:23");

    let (mut seen_created, mut seen_filled, mut seen_finished) = (false, false, false);
    while !(seen_created && seen_filled && seen_finished) {
        let event = tokio::time::timeout(Duration::from_secs(10), feed.next())
            .await
            .expect("the feed goes on")
            .expect("an event")
            .expect("not an error");
        if event.match_id != created.match_id {
            continue;
        }
        match event.kind.expect("a kind") {
            Kind::Created(c) => {
                assert_eq!(c.seat_players.len(), 1);
                assert_eq!(c.seat_players[0].display_name, "Ada");
                seen_created = true;
            }
            Kind::SeatFilled(f) => {
                let player = f.player.expect("who took the seat");
                assert_eq!((f.seat, player.display_name.as_str()), (1, "Grace"));
                seen_filled = true;
            }
            Kind::Finished(f) => {
                assert_eq!(f.results[1].external_id, "ladder:23");
                seen_finished = true;
            }
            _ => {}
        }
    }
}

#[tokio::test]
async fn a_chosen_seed_cannot_clone_a_running_deal() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    // The victim's match: a hidden-information deal the server seeded.
    let victim = matches
        .create_match(pb::CreateMatchRequest {
            game: "lanzeloth".into(),
            players: 3,
            ..Default::default()
        })
        .await
        .expect("create")
        .into_inner();
    // Nothing public names its seed: not the view, not the listing.
    let view = spectator(&mut matches, &victim.match_id).await;
    let listed = matches
        .list_matches(pb::ListMatchesRequest::default())
        .await
        .expect("list")
        .into_inner();
    assert!(!format!("{view:?}{listed:?}").contains("seed"));
    let record = matches
        .export_record(pb::ExportRecordRequest {
            match_id: victim.match_id.clone(),
            ..Default::default()
        })
        .await
        .expect_err("a running match's record is not public");
    assert_eq!(record.code(), Code::Unauthenticated);

    // The attack: a clone with a chosen seed, resigned at once so its record
    // is public, would show the deal a player of the same seed holds face
    // down. Choosing the seed is refused, and so is writing the deal.
    for attempt in [
        pb::CreateMatchRequest {
            game: "lanzeloth".into(),
            players: 3,
            seed: Some(12_345),
            ..Default::default()
        },
        pb::CreateMatchRequest {
            game: "lanzeloth".into(),
            players: 3,
            start_position: Some("any position at all".into()),
            ..Default::default()
        },
    ] {
        let refused = matches
            .create_match(attempt)
            .await
            .expect_err("an anonymous caller chooses no secret");
        assert_eq!(refused.code(), Code::PermissionDenied);
        assert_eq!(reason(&refused), "NOT_PERMITTED");
    }

    // The seed appears once the match is over.
    for seat in &victim.seats {
        let _ = matches
            .resign(pb::ResignRequest {
                match_id: victim.match_id.clone(),
                seat_token: seat.token.clone(),
            })
            .await;
    }
    let finished = matches
        .export_record(pb::ExportRecordRequest {
            match_id: victim.match_id.clone(),
            ..Default::default()
        })
        .await
        .expect("a finished match's record is public")
        .into_inner()
        .record_json;
    let finished: serde_json::Value = serde_json::from_str(&finished).expect("JSON");
    assert!(finished["seed"].is_u64(), "{finished}");
}

#[tokio::test]
async fn anonymous_creation_can_be_turned_off() {
    let host = Host::start_with(HostOptions {
        args: vec!["--anonymous-create".into(), "deny".into()],
        ..Default::default()
    })
    .await;
    let (_, organizer) = issue_organizer(&host, "platform").await;
    let mut matches = host.matches().await;
    let new = || pb::CreateMatchRequest {
        game: "war".into(),
        players: 2,
        ..Default::default()
    };
    let refused = matches
        .create_match(new())
        .await
        .expect_err("anonymous creation is off");
    assert_eq!(refused.code(), Code::Unauthenticated);
    matches
        .create_match(with_credential(&organizer, new()))
        .await
        .expect("the organizer creates");
}

/// The matches whose rows the lifecycle feed shows the holder of `secret`
/// (every row is durable already: read until a pause).
async fn followed(host: &Host, secret: &str) -> std::collections::BTreeSet<String> {
    let mut feed = DirectorClient::new(host.channel().await)
        .follow_lifecycle(with_credential(
            secret,
            pb::FollowLifecycleRequest::default(),
        ))
        .await
        .expect("follow")
        .into_inner();
    let mut seen = std::collections::BTreeSet::new();
    while let Ok(Some(Ok(event))) =
        tokio::time::timeout(Duration::from_millis(500), feed.next()).await
    {
        seen.insert(event.match_id);
    }
    seen
}

#[tokio::test]
async fn every_call_of_the_table_across_tenants_keeps_each_organizer_to_its_own() {
    let host = Host::start().await;
    let (own_id, own_tenant, _) = issue_in_tenant(&host, "a platform of its own", "").await;
    assert_eq!(
        own_tenant, own_id,
        "without a tenant, a credential is its own"
    );
    let (_, spring, owner) = issue_in_tenant(&host, "spring desk", "spring").await;
    assert_eq!(spring, "spring");
    let (_, _, colleague) = issue_in_tenant(&host, "spring desk 2", "spring").await;
    let (_, _, stranger) = issue_in_tenant(&host, "autumn desk", "autumn").await;
    let bad = host
        .admin()
        .await
        .issue_credential(as_admin(pb::IssueCredentialRequest {
            name: "bad".into(),
            tenant: "Not/A Tenant".into(),
            ..Default::default()
        }))
        .await
        .expect_err("a tenant is a short lowercase name");
    assert_eq!(reason(&bad), "INVALID_REQUEST");

    // Every call on the spring tenant's matches: by a colleague in spring,
    // by the admin, and by an organizer of another tenant, who may make
    // the public calls and those that touch no match of spring's, and is
    // refused the rest as not permitted.
    for (caller, secret, same_tenant) in [
        ("spring colleague", colleague.as_str(), true),
        ("admin", ADMIN_TOKEN, true),
        ("autumn organizer", stranger.as_str(), false),
    ] {
        for (call, needs, outcome) in attempt_every_call(&host, secret, &owner).await {
            let allowed = match needs {
                Needs::Anyone | Needs::Organizer | Needs::OrganizerForSecrets => true,
                Needs::TenantOrganizer => same_tenant,
                Needs::Admin => secret == ADMIN_TOKEN,
            };
            match (&outcome, allowed) {
                (Ok(()), true) => {}
                (Err(status), true) => assert!(
                    !refused_for_caller(status),
                    "{caller}: {call} must be allowed: {status:?}"
                ),
                (Ok(()), false) => panic!("{caller}: {call} must be refused"),
                (Err(status), false) => {
                    // In another tenant's match an organizer is a walk-in:
                    // the invite-only seat asks for its join code.
                    let expected = if call.starts_with("join") {
                        (Code::Unauthenticated, "TOKEN_REQUIRED")
                    } else {
                        (Code::PermissionDenied, "NOT_PERMITTED")
                    };
                    assert_eq!(
                        (status.code(), reason(status).as_str()),
                        expected,
                        "{caller}: {call}: {}",
                        status.message()
                    );
                }
            }
        }
    }

    // The feed: each organizer follows its own tenant's matches alone; the
    // admin follows every tenant's.
    let mut matches = host.matches().await;
    let (spring_match, _, _) = match_of(&mut matches, &owner, false).await;
    let (autumn_match, _, _) = match_of(&mut matches, &stranger, false).await;
    let (admin_match, _, _) = match_of(&mut matches, ADMIN_TOKEN, false).await;
    let by_spring = followed(&host, &colleague).await;
    assert!(by_spring.contains(&spring_match));
    assert!(!by_spring.contains(&autumn_match), "another tenant's match");
    assert!(!by_spring.contains(&admin_match), "the admin's match");
    let by_autumn = followed(&host, &stranger).await;
    assert!(by_autumn.contains(&autumn_match));
    assert!(!by_autumn.contains(&spring_match), "another tenant's match");
    let by_admin = followed(&host, ADMIN_TOKEN).await;
    for id in [&spring_match, &autumn_match, &admin_match] {
        assert!(by_admin.contains(id), "the admin follows {id}");
    }

    // The re-issue attack of the issue: the stranger cannot take a seat
    // token of spring's, so spring's player keeps playing.
    let (victim, token, _) = match_of(&mut matches, &owner, false).await;
    let refused = crate::support::reissue(&host, &stranger, &victim, 0)
        .await
        .expect_err("another tenant's organizer re-issues nothing");
    assert_eq!(reason(&refused), "NOT_PERMITTED");
    matches
        .list_legal_actions(pb::ListLegalActionsRequest {
            match_id: victim,
            seat_token: token,
            ids_only: true,
        })
        .await
        .expect("the player's token still plays the seat");
}

/// The seed of the running Lanzeloth match created by the holder of
/// `secret` with `seed`, as its record (exported by its creator) says.
async fn dealt_seed(matches: &mut MatchesClient<Channel>, secret: &str, seed: u64) -> u64 {
    let created = matches
        .create_match(with_credential(
            secret,
            pb::CreateMatchRequest {
                game: "lanzeloth".into(),
                players: 3,
                seed: Some(seed),
                ..Default::default()
            },
        ))
        .await
        .expect("create with a seed")
        .into_inner();
    let record = matches
        .export_record(with_credential(
            secret,
            pb::ExportRecordRequest {
                match_id: created.match_id,
                ..Default::default()
            },
        ))
        .await
        .expect("its creator exports it")
        .into_inner()
        .record_json;
    let record: serde_json::Value = serde_json::from_str(&record).expect("JSON");
    record["seed"].as_u64().expect("a seed")
}

#[tokio::test]
async fn a_chosen_seed_deals_alike_within_a_tenant_and_never_clones_another_tenants_match() {
    let host = Host::start().await;
    let (_, _, spring) = issue_in_tenant(&host, "spring desk", "spring").await;
    let (_, _, colleague) = issue_in_tenant(&host, "spring desk 2", "spring").await;
    let (_, _, autumn) = issue_in_tenant(&host, "autumn desk", "autumn").await;
    let mut matches = host.matches().await;
    let victim = dealt_seed(&mut matches, &spring, 42).await;
    assert_eq!(
        dealt_seed(&mut matches, &colleague, 42).await,
        victim,
        "within its tenant a seed reproduces the deal"
    );
    assert_ne!(
        dealt_seed(&mut matches, &autumn, 42).await,
        victim,
        "another tenant choosing the same seed gets another deal"
    );
    assert_ne!(
        dealt_seed(&mut matches, &autumn, victim).await,
        victim,
        "nor by choosing the stream's own seed"
    );
    assert_eq!(
        dealt_seed(&mut matches, ADMIN_TOKEN, 42).await,
        42,
        "the admin's tenant deals a chosen seed as it always did"
    );
}
