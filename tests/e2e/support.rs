//! Shared moves for the end-to-end tests: playing random matches over gRPC.

use rand::seq::IndexedRandom;
use tabletop_proto::v1 as pb;
use tabletop_proto::v1::matches_client::MatchesClient;
use tabletop_proto::v1::watch_client::WatchClient;
use tonic::Streaming;
use tonic::transport::Channel;

pub use tabletop_tests::legal;

/// The turn limit end-to-end matches are played with, where a game has a
/// `max_turns` option: random play to the default limit proves nothing more
/// over gRPC than the conformance kits prove in-process, and costs minutes.
pub const E2E_MAX_TURNS: i64 = 60;

/// Creates a match (with a short turn limit where the game has one) and
/// returns (match id, seat tokens by seat).
pub async fn create(
    matches: &mut MatchesClient<Channel>,
    game: &str,
    players: u32,
    seed: u64,
) -> (String, Vec<String>) {
    let request = |options: &[(&str, String)]| pb::CreateMatchRequest {
        game: game.to_string(),
        players,
        seed: Some(seed),
        options: options
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
        ..Default::default()
    };
    let short = [("max_turns", E2E_MAX_TURNS.to_string())];
    let created = match matches
        .create_match(tabletop_tests::as_admin(request(&short)))
        .await
    {
        Ok(created) => created,
        // A game without a (small enough) turn limit is played as it is.
        Err(status)
            if status.code() == tonic::Code::InvalidArgument
                && status.message().contains("max_turns") =>
        {
            matches
                .create_match(tabletop_tests::as_admin(request(&[])))
                .await
                .unwrap_or_else(|e| panic!("create {game} for {players}: {e}"))
        }
        Err(e) => panic!("create {game} for {players}: {e}"),
    }
    .into_inner();
    let mut tokens = vec![String::new(); players as usize];
    for seat in created.seats {
        tokens[seat.seat as usize] = seat.token;
    }
    (created.match_id, tokens)
}

/// The reason of a refusal's `ErrorInfo` (checked against the host's table
/// of reasons: see [`tabletop_tests::error_info`]).
pub fn reason(status: &tonic::Status) -> String {
    tabletop_tests::error_info(status)
        .map(|info| info.reason)
        .unwrap_or_default()
}

/// The match as a spectator sees it.
pub async fn spectator(matches: &mut MatchesClient<Channel>, match_id: &str) -> pb::MatchView {
    matches
        .get_view(pb::GetViewRequest {
            match_id: match_id.to_string(),
            seat_token: String::new(),
            at_version: None,
            svg: false,
        })
        .await
        .expect("spectator view")
        .into_inner()
}

/// Watches the match as a spectator from now on: the stream's first
/// message is a snapshot of the current view.
pub async fn watch_as_spectator(
    watch: &mut WatchClient<Channel>,
    match_id: &str,
) -> Streaming<pb::WatchEvent> {
    watch
        .watch_match(pb::WatchMatchRequest {
            match_id: match_id.to_string(),
            ..Default::default()
        })
        .await
        .expect("watch")
        .into_inner()
}

/// The match as the seat holding `token` sees it (a spectator with an empty
/// token), right after `at_version` if given; the refusal if there is one.
pub async fn view_of(
    matches: &mut MatchesClient<Channel>,
    match_id: &str,
    token: &str,
    at_version: Option<u64>,
) -> Result<pb::MatchView, tonic::Status> {
    matches
        .get_view(pb::GetViewRequest {
            match_id: match_id.to_string(),
            seat_token: token.to_string(),
            at_version,
            svg: false,
        })
        .await
        .map(tonic::Response::into_inner)
}

/// Submits the action `action_id` for the seat holding `token`, chosen at
/// `expected_version`; the response carries the full view.
pub async fn submit(
    matches: &mut MatchesClient<Channel>,
    match_id: &str,
    token: &str,
    action_id: u64,
    expected_version: Option<u64>,
) -> Result<pb::SubmitActionResponse, tonic::Status> {
    matches
        .submit_action(pb::SubmitActionRequest {
            match_id: match_id.to_string(),
            seat_token: token.to_string(),
            action: Some(pb::submit_action_request::Action::ActionId(action_id)),
            expected_version,
            ..Default::default()
        })
        .await
        .map(tonic::Response::into_inner)
}

/// The first seat to move plays its first legal action, chosen at the
/// version its list was read at; the answer (with the full view) or the
/// refusal of the listing or of the action. Who is to move is read from
/// seat 0's view, which no spectator delay holds back.
pub async fn play_first_legal(
    matches: &mut MatchesClient<Channel>,
    match_id: &str,
    tokens: &[String],
) -> Result<pb::SubmitActionResponse, tonic::Status> {
    let view = view_of(matches, match_id, &tokens[0], None).await?;
    let seat = *view
        .to_move
        .first()
        .unwrap_or_else(|| panic!("no seat is to move in {match_id}: {view:?}"))
        as usize;
    let list = legal(matches, match_id, &tokens[seat]).await?;
    let first = list
        .actions
        .first()
        .unwrap_or_else(|| panic!("seat {seat} is to move but has no legal action"));
    submit(
        matches,
        match_id,
        &tokens[seat],
        first.id,
        Some(list.version),
    )
    .await
}

/// Plays random legal actions until the match ends; returns the number of
/// actions submitted and the final spectator view.
pub async fn play_to_end(
    matches: &mut MatchesClient<Channel>,
    match_id: &str,
    tokens: &[String],
    rng: &mut impl rand::Rng,
    max_actions: usize,
) -> (usize, pb::MatchView) {
    let mut submitted = 0;
    loop {
        let view = matches
            .get_view(pb::GetViewRequest {
                match_id: match_id.to_string(),
                seat_token: String::new(),
                at_version: None,
                svg: false,
            })
            .await
            .expect("spectator view")
            .into_inner();
        if view.state == pb::MatchState::Finished as i32 {
            return (submitted, view);
        }
        assert_eq!(view.state, pb::MatchState::Running as i32, "{view:?}");
        assert!(
            !view.to_move.is_empty(),
            "a running match has seats to move"
        );
        for &seat in &view.to_move {
            let token = &tokens[seat as usize];
            let legal = legal(matches, match_id, token)
                .await
                .expect("legal actions");
            let action = legal
                .actions
                .choose(rng)
                .unwrap_or_else(|| panic!("seat {seat} is to move but has no legal action"));
            submit(matches, match_id, token, action.id, Some(legal.version))
                .await
                .unwrap_or_else(|e| panic!("submit {} for seat {seat}: {e}", action.notation));
            submitted += 1;
            assert!(
                submitted <= max_actions,
                "the match did not end within {max_actions} actions"
            );
        }
    }
}

/// Issues an organizer credential named `name`; returns (id, secret).
pub async fn issue_organizer(host: &tabletop_tests::Host, name: &str) -> (String, String) {
    let issued = host
        .admin()
        .await
        .issue_credential(tabletop_tests::as_admin(pb::IssueCredentialRequest {
            name: name.into(),
            ..Default::default()
        }))
        .await
        .expect("the admin issues a credential")
        .into_inner();
    let info = issued.credential.expect("the credential");
    assert_eq!(info.name, name);
    assert_eq!(info.role, pb::CredentialRole::Organizer as i32);
    assert!(info.revoked_at_ms.is_none());
    (info.credential_id, issued.secret)
}

/// An organizer credential in tenant `tenant` (empty: its own): (id, the
/// tenant it got, secret).
pub async fn issue_in_tenant(
    host: &tabletop_tests::Host,
    name: &str,
    tenant: &str,
) -> (String, String, String) {
    let issued = host
        .admin()
        .await
        .issue_credential(tabletop_tests::as_admin(pb::IssueCredentialRequest {
            name: name.into(),
            tenant: tenant.into(),
            ..Default::default()
        }))
        .await
        .expect("the admin issues a credential")
        .into_inner();
    let info = issued.credential.expect("the credential");
    (info.credential_id, info.tenant, issued.secret)
}

/// Re-issues `seat`'s token in `match_id` with the credential `secret`.
pub async fn reissue(
    host: &tabletop_tests::Host,
    secret: &str,
    match_id: &str,
    seat: u32,
) -> Result<pb::SeatToken, tonic::Status> {
    tabletop_proto::v1::director_client::DirectorClient::new(host.channel().await)
        .reissue_seat_token(tabletop_tests::with_credential(
            secret,
            pb::ReissueSeatTokenRequest {
                match_id: match_id.to_string(),
                seat,
                ..Default::default()
            },
        ))
        .await
        .map(tonic::Response::into_inner)
}

/// Waits up to `patience` until the match is finished; its final spectator
/// view.
pub async fn finished_by_itself(
    matches: &mut MatchesClient<Channel>,
    match_id: &str,
    patience: std::time::Duration,
) -> pb::MatchView {
    let waited = tokio::time::timeout(patience, async {
        loop {
            let view = spectator(matches, match_id).await;
            if view.state == pb::MatchState::Finished as i32 {
                return view;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    })
    .await;
    waited.unwrap_or_else(|_| panic!("match {match_id} did not finish by itself"))
}

/// Every sample of a scrape of the host's metrics endpoint at `address`, by
/// its name with labels as written.
pub async fn scrape(address: &str) -> std::collections::HashMap<String, f64> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(address)
        .await
        .expect("connect to the metrics endpoint");
    stream
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: test\r\n\r\n")
        .await
        .expect("send");
    let mut response = String::new();
    stream
        .read_to_string(&mut response)
        .await
        .expect("read the answer");
    let (head, body) = response.split_once("\r\n\r\n").expect("a head and a body");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(head.contains("text/plain; version=0.0.4"), "{head}");
    body.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (name, value) = l.rsplit_once(' ').expect("a sample");
            (name.to_string(), value.parse().expect("a number"))
        })
        .collect()
}

/// A finished War match between two random bots, created by the admin with
/// `seed`: hundreds of events, each with a large view.
pub async fn finished_random_war(host: &tabletop_tests::Host, seed: u64) -> String {
    let mut matches = host.matches().await;
    let created = matches
        .create_match(tabletop_tests::as_admin(pb::CreateMatchRequest {
            game: "war".into(),
            players: 2,
            seed: Some(seed),
            bots: seat_bots(&[(0, "random"), (1, "random")]),
            ..Default::default()
        }))
        .await
        .expect("create a War match of bots")
        .into_inner();
    finished_by_itself(
        &mut matches,
        &created.match_id,
        std::time::Duration::from_secs(60),
    )
    .await;
    created.match_id
}

/// The server-side bots of a CreateMatchRequest, by seat and spec.
pub fn seat_bots(bots: &[(u32, &str)]) -> Vec<pb::SeatBot> {
    bots.iter()
        .map(|&(seat, spec)| pb::SeatBot {
            seat,
            spec: spec.into(),
        })
        .collect()
}
