//! Tenant quotas: every credential of a tenant counts against the tenant's
//! live matches and creations per minute together; another tenant, the
//! admin and anonymous callers are not bound by them; a match that ends or
//! is aborted frees its tenant's slot, and matches restored at a restart
//! count for their tenant.

use std::time::Duration;

use tabletop_proto::v1 as pb;
use tabletop_proto::v1::director_client::DirectorClient;
use tabletop_tests::{Host, HostOptions, as_admin, with_credential};
use tonic::Code;
use tonic_types::StatusExt;

use crate::support::reason;

fn new_focus() -> pb::CreateMatchRequest {
    pb::CreateMatchRequest {
        game: "focus".into(),
        players: 2,
        view_detail: pb::ViewDetail::Summary as i32,
        ..Default::default()
    }
}

/// An organizer credential named `name` in `tenant`: (id, secret).
async fn issue_in(host: &Host, name: &str, tenant: &str) -> (String, String) {
    let (id, got, secret) = crate::support::issue_in_tenant(host, name, tenant).await;
    assert_eq!(got, tenant);
    (id, secret)
}

fn metadata(status: &tonic::Status, key: &str) -> String {
    tabletop_tests::error_info(status)
        .and_then(|info| info.metadata.get(key).cloned())
        .unwrap_or_default()
}

/// Asserts `refused` is a refusal by `tenant`'s limit `limit` (of `max`),
/// counted for the credential `credential`, that says how long to wait.
fn assert_tenant_refusal(
    refused: &tonic::Status,
    reason_name: &str,
    limit: &str,
    max: &str,
    tenant: &str,
    credential: &str,
) -> Duration {
    assert_eq!(refused.code(), Code::ResourceExhausted, "{refused:?}");
    assert_eq!(reason(refused), reason_name);
    assert_eq!(metadata(refused, "limit"), limit);
    assert_eq!(metadata(refused, "max"), max);
    assert_eq!(metadata(refused, "tenant"), tenant);
    assert_eq!(metadata(refused, "credential"), credential);
    assert!(
        refused.message().contains(&format!("tenant `{tenant}`")),
        "{}",
        refused.message()
    );
    let delay = refused
        .get_error_details()
        .retry_info()
        .and_then(|r| r.retry_delay)
        .unwrap_or_else(|| panic!("no RetryInfo in {refused:?}"));
    assert!(delay > Duration::ZERO, "{delay:?}");
    assert!(
        refused
            .message()
            .contains(&format!("{} ms", delay.as_millis())),
        "the message says how long to wait: {}",
        refused.message()
    );
    delay
}

#[tokio::test]
async fn two_credentials_of_a_tenant_share_its_live_match_cap_until_one_of_its_matches_ends() {
    let root = tempfile::tempdir().expect("temp dir");
    let options = HostOptions {
        plugin_dir: Some(Host::fresh_plugin_dir(root.path())),
        data_dir: Some(root.path().join("data")),
        args: vec![
            "--store".into(),
            "sqlite".into(),
            "--tenant-max-live-matches".into(),
            "2".into(),
        ],
        ..Default::default()
    };
    let mut host = Host::start_with(options.clone()).await;
    let (first_id, first) = issue_in(&host, "spring desk", "spring").await;
    let (second_id, second) = issue_in(&host, "spring desk 2", "spring").await;
    let (_, autumn) = issue_in(&host, "autumn desk", "autumn").await;
    let mut matches = host.matches().await;
    let ending = matches
        .create_match(with_credential(&first, new_focus()))
        .await
        .expect("the tenant's first live match")
        .into_inner();
    let aborted = matches
        .create_match(with_credential(&second, new_focus()))
        .await
        .expect("the tenant's second, by its other credential")
        .into_inner();
    for (id, secret) in [(&first_id, &first), (&second_id, &second)] {
        let refused = matches
            .create_match(with_credential(secret, new_focus()))
            .await
            .expect_err("a third live match of the tenant");
        assert_tenant_refusal(
            &refused,
            "LIVE_MATCH_LIMIT",
            "tenant_live_matches",
            "2",
            "spring",
            id,
        );
    }
    for _ in 0..2 {
        matches
            .create_match(with_credential(&autumn, new_focus()))
            .await
            .expect("another tenant creates up to its own cap");
    }
    for _ in 0..3 {
        matches
            .create_match(as_admin(new_focus()))
            .await
            .expect("the admin is not bound by tenant quotas");
        matches
            .create_match(new_focus())
            .await
            .expect("anonymous callers are not bound by tenant quotas");
    }

    // The tenant's two matches are stored: a restart reads them back and
    // counts them for the tenant again.
    assert!(host.terminate().await, "the host stops");
    let host = Host::start_with(options).await;
    let mut matches = host.matches().await;
    let refused = matches
        .create_match(with_credential(&second, new_focus()))
        .await
        .expect_err("the restored matches hold the tenant's cap");
    assert_eq!(reason(&refused), "LIVE_MATCH_LIMIT", "{refused:?}");
    assert_eq!(metadata(&refused, "tenant"), "spring");

    matches
        .resign(pb::ResignRequest {
            match_id: ending.match_id.clone(),
            seat_token: ending.seats[0].token.clone(),
        })
        .await
        .expect("resigning ends a two-seat match");
    matches
        .create_match(with_credential(&second, new_focus()))
        .await
        .expect("an ended match frees its tenant's slot");
    let refused = matches
        .create_match(with_credential(&first, new_focus()))
        .await
        .expect_err("and only that one");
    assert_eq!(reason(&refused), "LIVE_MATCH_LIMIT", "{refused:?}");
    DirectorClient::new(host.channel().await)
        .abort_match(with_credential(
            &first,
            pb::AbortMatchRequest {
                match_id: aborted.match_id.clone(),
                reason: "the table is needed".into(),
                ..Default::default()
            },
        ))
        .await
        .expect("an organizer of the tenant aborts its match");
    matches
        .create_match(with_credential(&first, new_focus()))
        .await
        .expect("an aborted match frees its tenant's slot");
}

#[tokio::test]
async fn two_credentials_of_a_tenant_share_its_creations_per_minute() {
    let host = Host::start_with(HostOptions {
        args: vec!["--tenant-creates-per-minute".into(), "3".into()],
        ..Default::default()
    })
    .await;
    let (_, first) = issue_in(&host, "spring desk", "spring").await;
    let (second_id, second) = issue_in(&host, "spring desk 2", "spring").await;
    let (_, autumn) = issue_in(&host, "autumn desk", "autumn").await;
    let mut matches = host.matches().await;
    for secret in [&first, &first, &second] {
        matches
            .create_match(with_credential(secret, new_focus()))
            .await
            .expect("within the tenant's quota");
    }
    let refused = matches
        .create_match(with_credential(&second, new_focus()))
        .await
        .expect_err("the tenant's fourth creation of the minute");
    let delay = assert_tenant_refusal(
        &refused,
        "CREATION_QUOTA",
        "tenant_creates_per_minute",
        "3",
        "spring",
        &second_id,
    );
    assert!(
        delay <= Duration::from_secs(20),
        "a token comes back every 20 s: {delay:?}"
    );
    matches
        .create_match(with_credential(&autumn, new_focus()))
        .await
        .expect("another tenant creates");
    matches
        .create_match(as_admin(new_focus()))
        .await
        .expect("the admin is not bound by tenant quotas");
}
