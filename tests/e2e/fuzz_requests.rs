//! A bounded random request fuzzer over every RPC of every service
//! (Catalog, Matches, Watch, Director, Admin): a few hundred seeded random
//! and mutated requests with random credentials, ids and tokens, huge and
//! odd strings and extreme numbers, against the real host. Every refusal
//! must be a clear error (never INTERNAL, its message under 1 KB, its
//! `ErrorInfo` reason and metadata keys in the host's table of reasons)
//! that changes nothing, and the host must still answer at the end.

use std::collections::HashMap;
use std::time::Duration;

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabletop_proto::v1 as pb;
use tabletop_proto::v1::admin_client::AdminClient;
use tabletop_proto::v1::catalog_client::CatalogClient;
use tabletop_proto::v1::director_client::DirectorClient;
use tabletop_proto::v1::matches_client::MatchesClient;
use tabletop_proto::v1::watch_client::WatchClient;
use tabletop_tests::{Host, as_admin};
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::{Code, Status};

use values::{Fuzzer, Table, create_request, mutate_submit, random_submit};

mod values;

/// Requests sent.
const REQUESTS: usize = 400;
/// The longest status message a client may be sent.
const LONGEST_MESSAGE: usize = 1023;
/// How long a stream is read for its first item: a quiet stream is fine.
const STREAM_WAIT: Duration = Duration::from_millis(200);

/// Every RPC of every service.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rpc {
    ListGames,
    GetGame,
    CreateMatch,
    JoinMatch,
    GetView,
    ListLegalActions,
    SubmitAction,
    Resign,
    ListMatches,
    ExportRecord,
    ImportRecord,
    WatchMatch,
    ListEvents,
    FollowLifecycle,
    AbortMatch,
    AdjudicateMatch,
    PauseMatch,
    ResumeMatch,
    AddTime,
    ReissueSeatToken,
    ListPlugins,
    LoadPlugin,
    Backup,
    IssueCredential,
    RevokeCredential,
    ListCredentials,
    LiftQuarantine,
}

impl Rpc {
    const ALL: [Rpc; 27] = [
        Rpc::ListGames,
        Rpc::GetGame,
        Rpc::CreateMatch,
        Rpc::JoinMatch,
        Rpc::GetView,
        Rpc::ListLegalActions,
        Rpc::SubmitAction,
        Rpc::Resign,
        Rpc::ListMatches,
        Rpc::ExportRecord,
        Rpc::ImportRecord,
        Rpc::WatchMatch,
        Rpc::ListEvents,
        Rpc::FollowLifecycle,
        Rpc::AbortMatch,
        Rpc::AdjudicateMatch,
        Rpc::PauseMatch,
        Rpc::ResumeMatch,
        Rpc::AddTime,
        Rpc::ReissueSeatToken,
        Rpc::ListPlugins,
        Rpc::LoadPlugin,
        Rpc::Backup,
        Rpc::IssueCredential,
        Rpc::RevokeCredential,
        Rpc::ListCredentials,
        Rpc::LiftQuarantine,
    ];

    /// Whether a success may change a match: its refusals must not.
    fn changes_a_match(self) -> bool {
        matches!(
            self,
            Rpc::JoinMatch
                | Rpc::SubmitAction
                | Rpc::Resign
                | Rpc::AbortMatch
                | Rpc::AdjudicateMatch
                | Rpc::PauseMatch
                | Rpc::ResumeMatch
                | Rpc::AddTime
                | Rpc::ReissueSeatToken
                | Rpc::LiftQuarantine
        )
    }
}

/// What a spectator sees of a match: must not move on a refusal.
type Snapshot = (u64, i32, String, Vec<u32>, String);

fn snapshot_of(view: &pb::MatchView) -> Snapshot {
    (
        view.version,
        view.state,
        view.view_json.clone(),
        view.to_move.clone(),
        format!("{:?}{:?}", view.seats, view.results),
    )
}

/// Everything that went wrong, by RPC.
#[derive(Debug, Default)]
struct Findings {
    internal: Vec<String>,
    long_messages: Vec<String>,
    changed: Vec<String>,
}

/// One client per service.
struct Clients {
    catalog: CatalogClient<Channel>,
    matches: MatchesClient<Channel>,
    watch: WatchClient<Channel>,
    director: DirectorClient<Channel>,
    admin: AdminClient<Channel>,
}

/// A running (or, with an open seat, waiting) match created by the admin.
async fn new_table(
    matches: &mut MatchesClient<Channel>,
    game: &str,
    players: u32,
    open: bool,
) -> Table {
    let created = matches
        .create_match(as_admin(pb::CreateMatchRequest {
            game: game.into(),
            players,
            seed: Some(27),
            open_seats: if open { vec![players - 1] } else { vec![] },
            ..Default::default()
        }))
        .await
        .unwrap_or_else(|e| panic!("create {game}: {e}"))
        .into_inner();
    let mut tokens = vec![String::new(); players as usize];
    for seat in created.seats {
        tokens[seat.seat as usize] = seat.token;
    }
    Table {
        match_id: created.match_id,
        tokens,
        join_codes: created.join_codes.into_iter().map(|c| c.code).collect(),
    }
}

/// The spectator's snapshot of `match_id`, if the host shows it.
async fn snapshot(matches: &mut MatchesClient<Channel>, match_id: &str) -> Option<Snapshot> {
    matches
        .get_view(pb::GetViewRequest {
            match_id: match_id.to_string(),
            ..Default::default()
        })
        .await
        .ok()
        .map(|view| snapshot_of(view.get_ref()))
}

/// The first item of a stream, or its refusal; a stream quiet for
/// [`STREAM_WAIT`] counts as answered.
async fn first_item<T>(
    stream: Result<tonic::Response<tonic::Streaming<T>>, Status>,
) -> Result<(), Status> {
    let mut stream = stream?.into_inner();
    match tokio::time::timeout(STREAM_WAIT, stream.next()).await {
        Ok(Some(Err(status))) => Err(status),
        _ => Ok(()),
    }
}

/// Sends one random request of `rpc` aimed at `table`; a success may hand
/// out a seat token, which replaces the table's.
async fn send(fz: &mut Fuzzer, c: &mut Clients, rpc: Rpc, table: &mut Table) -> Result<(), Status> {
    match rpc {
        Rpc::ListGames => done(
            c.catalog
                .list_games(fz.request(pb::ListGamesRequest {}))
                .await,
        ),
        Rpc::GetGame => {
            let game = if fz.chance(50) {
                "war".into()
            } else {
                fz.text()
            };
            let version = fz.chance(50).then(|| fz.text());
            let r = fz.request(pb::GetGameRequest { game, version });
            done(c.catalog.get_game(r).await)
        }
        Rpc::CreateMatch => {
            let message = create_request(fz);
            let r = fz.request(message);
            done(c.matches.create_match(r).await)
        }
        Rpc::JoinMatch => {
            let message = pb::JoinMatchRequest {
                match_id: fz.match_id(table),
                seat: fz.chance(70).then(|| fz.u32() % 4),
                join_code: match table.join_codes.first() {
                    Some(code) if fz.chance(40) => code.clone(),
                    _ => fz.text(),
                },
                display_name: fz.text(),
                external_id: fz.text(),
                bot: String::new(),
            };
            let r = fz.request(message);
            let joined = c.matches.join_match(r).await?.into_inner();
            if let Some(slot) = table.tokens.get_mut(joined.seat as usize) {
                *slot = joined.token;
            }
            Ok(())
        }
        Rpc::GetView => {
            let message = pb::GetViewRequest {
                match_id: fz.match_id(table),
                seat_token: fz.seat_token(table),
                at_version: fz.chance(50).then(|| fz.u64()),
                svg: fz.chance(50),
            };
            let r = fz.request(message);
            done(c.matches.get_view(r).await)
        }
        Rpc::ListLegalActions => {
            let message = pb::ListLegalActionsRequest {
                match_id: fz.match_id(table),
                seat_token: fz.seat_token(table),
                ids_only: fz.chance(50),
            };
            let r = fz.request(message);
            done(c.matches.list_legal_actions(r).await)
        }
        Rpc::SubmitAction => {
            let message = match legal_submit(c, table).await {
                Some(legal) if fz.chance(50) => mutate_submit(fz, table, legal),
                _ => random_submit(fz, table),
            };
            let r = fz.request(message);
            done(c.matches.submit_action(r).await)
        }
        Rpc::Resign => {
            let message = pb::ResignRequest {
                match_id: fz.match_id(table),
                seat_token: fz.seat_token(table),
            };
            let r = fz.request(message);
            done(c.matches.resign(r).await)
        }
        Rpc::ListMatches => {
            let message = pb::ListMatchesRequest {
                game: if fz.chance(50) {
                    String::new()
                } else {
                    fz.text()
                },
                state: fz.enum_value(3),
                page_size: fz.u32(),
                page_token: if fz.chance(50) {
                    String::new()
                } else {
                    fz.text()
                },
                labels: fz.map(),
                created_from_ms: fz.chance(30).then(|| fz.i64()),
                created_before_ms: fz.chance(30).then(|| fz.i64()),
            };
            let r = fz.request(message);
            done(c.matches.list_matches(r).await)
        }
        Rpc::ExportRecord => {
            let message = pb::ExportRecordRequest {
                match_id: fz.match_id(table),
                admin_token: fz.admin_token(),
            };
            let r = fz.request(message);
            done(c.matches.export_record(r).await)
        }
        Rpc::ImportRecord => {
            let message = pb::ImportRecordRequest {
                record_json: fz.record_json(),
                admin_token: fz.admin_token(),
            };
            let r = fz.request(message);
            done(c.matches.import_record(r).await)
        }
        Rpc::WatchMatch => {
            let message = pb::WatchMatchRequest {
                match_id: fz.match_id(table),
                seat_token: fz.seat_token(table),
                from_version: fz.chance(50).then(|| fz.u64()),
                after_seq: fz.chance(30).then(|| fz.u64()),
                omit_views: fz.chance(50),
            };
            let r = fz.request(message);
            first_item(c.watch.watch_match(r).await).await
        }
        Rpc::ListEvents => {
            let message = pb::ListEventsRequest {
                match_id: fz.match_id(table),
                seat_token: fz.seat_token(table),
                after_seq: fz.u64(),
                from_version: fz.chance(50).then(|| fz.u64()),
                page_size: fz.u32(),
                include_views: fz.chance(50),
            };
            let r = fz.request(message);
            done(c.watch.list_events(r).await)
        }
        Rpc::FollowLifecycle => {
            let message = pb::FollowLifecycleRequest {
                admin_token: fz.admin_token(),
                after_cursor: fz.u64(),
                game: if fz.chance(50) {
                    String::new()
                } else {
                    fz.text()
                },
                labels: fz.map(),
            };
            let r = fz.request(message);
            first_item(c.director.follow_lifecycle(r).await).await
        }
        Rpc::AbortMatch => {
            let message = pb::AbortMatchRequest {
                admin_token: fz.admin_token(),
                match_id: fz.match_id(table),
                reason: fz.text(),
            };
            let r = fz.request(message);
            done(c.director.abort_match(r).await)
        }
        Rpc::AdjudicateMatch => {
            let results = (0..fz.rng.random_range(0..5))
                .map(|_| pb::PlayerResult {
                    seat: fz.u32() % 5,
                    rank: fz.u32() % 5,
                    score: fz.f64(),
                    resigned: fz.chance(20),
                    ..Default::default()
                })
                .collect();
            let message = pb::AdjudicateMatchRequest {
                admin_token: fz.admin_token(),
                match_id: fz.match_id(table),
                results,
            };
            let r = fz.request(message);
            done(c.director.adjudicate_match(r).await)
        }
        Rpc::PauseMatch => {
            let message = pb::PauseMatchRequest {
                admin_token: fz.admin_token(),
                match_id: fz.match_id(table),
            };
            let r = fz.request(message);
            done(c.director.pause_match(r).await)
        }
        Rpc::ResumeMatch => {
            let message = pb::ResumeMatchRequest {
                admin_token: fz.admin_token(),
                match_id: fz.match_id(table),
            };
            let r = fz.request(message);
            done(c.director.resume_match(r).await)
        }
        Rpc::AddTime => {
            let message = pb::AddTimeRequest {
                admin_token: fz.admin_token(),
                match_id: fz.match_id(table),
                seat: fz.u32() % 5,
                added_ms: fz.i64(),
            };
            let r = fz.request(message);
            done(c.director.add_time(r).await)
        }
        Rpc::ReissueSeatToken => {
            let message = pb::ReissueSeatTokenRequest {
                admin_token: fz.admin_token(),
                match_id: fz.match_id(table),
                seat: if fz.chance(70) {
                    fz.u32() % 4
                } else {
                    fz.u32()
                },
            };
            let r = fz.request(message);
            let issued = c.director.reissue_seat_token(r).await?.into_inner();
            if let Some(slot) = table.tokens.get_mut(issued.seat as usize) {
                *slot = issued.token;
            }
            Ok(())
        }
        Rpc::ListPlugins => {
            let message = pb::ListPluginsRequest {
                admin_token: fz.admin_token(),
            };
            let r = fz.request(message);
            done(c.admin.list_plugins(r).await)
        }
        Rpc::LoadPlugin => {
            let message = pb::LoadPluginRequest {
                admin_token: fz.admin_token(),
                path: fz.plugin_path(),
            };
            let r = fz.request(message);
            done(c.admin.load_plugin(r).await)
        }
        Rpc::Backup => {
            let message = pb::BackupRequest {
                admin_token: fz.admin_token(),
                path: fz.backup_path(),
            };
            let r = fz.request(message);
            done(c.admin.backup(r).await)
        }
        Rpc::IssueCredential => {
            let message = pb::IssueCredentialRequest {
                admin_token: fz.admin_token(),
                name: fz.text(),
                role: fz.enum_value(1),
                tenant: if fz.chance(50) {
                    String::new()
                } else {
                    fz.text()
                },
            };
            let r = fz.request(message);
            done(c.admin.issue_credential(r).await)
        }
        Rpc::RevokeCredential => {
            let known = fz.credential_ids.choose(&mut fz.rng).cloned();
            let credential_id = match known {
                Some(id) if fz.chance(30) => id,
                _ => fz.text(),
            };
            let message = pb::RevokeCredentialRequest {
                admin_token: fz.admin_token(),
                credential_id,
            };
            let r = fz.request(message);
            done(c.admin.revoke_credential(r).await)
        }
        Rpc::ListCredentials => {
            let message = pb::ListCredentialsRequest {
                admin_token: fz.admin_token(),
            };
            let r = fz.request(message);
            done(c.admin.list_credentials(r).await)
        }
        Rpc::LiftQuarantine => {
            let message = pb::LiftQuarantineRequest {
                admin_token: fz.admin_token(),
                match_id: fz.match_id(table),
                plugin_version: if fz.chance(50) {
                    fz.text()
                } else {
                    String::new()
                },
            };
            let r = fz.request(message);
            done(c.admin.lift_quarantine(r).await)
        }
    }
}

/// A submission the host would accept now: a seat to move, its token, a
/// legal action and the current version.
async fn legal_submit(c: &mut Clients, table: &Table) -> Option<pb::SubmitActionRequest> {
    let view = c
        .matches
        .get_view(pb::GetViewRequest {
            match_id: table.match_id.clone(),
            ..Default::default()
        })
        .await
        .ok()?
        .into_inner();
    let seat = *view.to_move.first()?;
    let token = table.tokens.get(seat as usize)?.clone();
    let legal = tabletop_tests::legal(&mut c.matches, &table.match_id, &token)
        .await
        .ok()?;
    let action = legal.actions.first()?;
    Some(pb::SubmitActionRequest {
        match_id: table.match_id.clone(),
        seat_token: token,
        action: Some(pb::submit_action_request::Action::ActionId(action.id)),
        expected_version: Some(legal.version),
        view_detail: 0,
    })
}

/// A call's outcome without its answer.
fn done<T>(result: Result<T, Status>) -> Result<(), Status> {
    result.map(drop)
}

/// Records what is wrong with `result` of `rpc`.
fn check(findings: &mut Findings, rpc: Rpc, result: &Result<(), Status>) {
    let Err(status) = result else {
        return;
    };
    // Panics on a reason or metadata key the table lacks.
    tabletop_tests::error_info(status);
    let head: String = status.message().chars().take(160).collect();
    if status.code() == Code::Internal {
        findings.internal.push(format!("{rpc:?}: {head}"));
    }
    if status.message().len() > LONGEST_MESSAGE {
        findings.long_messages.push(format!(
            "{rpc:?}: {:?}, {} bytes: {head}…",
            status.code(),
            status.message().len()
        ));
    }
}

#[tokio::test]
async fn hostile_requests_to_every_rpc_are_refused_cleanly_and_change_nothing() {
    let mut host = Host::start().await;
    let channel = host.channel().await;
    let mut c = Clients {
        catalog: CatalogClient::new(channel.clone()),
        matches: MatchesClient::new(channel.clone()),
        watch: WatchClient::new(channel.clone()),
        director: DirectorClient::new(channel.clone()),
        admin: AdminClient::new(channel),
    };
    let mut tables = Vec::new();
    for (game, players, open) in [
        ("focus", 2, false),
        ("lanza", 2, false),
        ("lanzeloth", 3, false),
        ("war", 2, false),
        ("focus", 2, true),
    ] {
        tables.push(new_table(&mut c.matches, game, players, open).await);
    }
    let issued = c
        .admin
        .issue_credential(as_admin(pb::IssueCredentialRequest {
            name: "fuzz organizer".into(),
            ..Default::default()
        }))
        .await
        .expect("the admin issues a credential")
        .into_inner();
    let record_json = c
        .matches
        .export_record(as_admin(pb::ExportRecordRequest {
            match_id: tables[0].match_id.clone(),
            ..Default::default()
        }))
        .await
        .expect("the admin exports a running match")
        .into_inner()
        .record_json;
    let mut fz = Fuzzer {
        rng: ChaCha8Rng::seed_from_u64(27),
        tables,
        organizer: issued.secret,
        credential_ids: vec![issued.credential.expect("the credential").credential_id],
        record_json,
        data_dir: host.data_dir.clone(),
        plugin_file: tabletop_tests::built_plugin("focus").display().to_string(),
    };

    let mut findings = Findings::default();
    let mut counts: HashMap<&'static str, usize> = HashMap::new();
    let mut tried: HashMap<String, (usize, usize)> = HashMap::new();
    for _ in 0..REQUESTS {
        let rpc = *Rpc::ALL.choose(&mut fz.rng).expect("rpcs");
        let index = fz.rng.random_range(0..fz.tables.len());
        let mut table = fz.tables[index].clone();
        let before = if rpc.changes_a_match() {
            snapshot(&mut c.matches, &table.match_id).await
        } else {
            None
        };
        let result = send(&mut fz, &mut c, rpc, &mut table).await;
        *counts
            .entry(if result.is_ok() {
                "answered"
            } else {
                "refused"
            })
            .or_default() += 1;
        let entry = tried.entry(format!("{rpc:?}")).or_default();
        if result.is_ok() {
            entry.0 += 1;
        } else {
            entry.1 += 1;
        }
        check(&mut findings, rpc, &result);
        if result.is_err()
            && let Some(before) = before
        {
            let after = snapshot(&mut c.matches, &table.match_id).await;
            if after.as_ref() != Some(&before) {
                findings.changed.push(format!(
                    "{rpc:?} was refused ({:?}) but match {} went from {before:?} to {after:?}",
                    result.as_ref().err().map(Status::code),
                    table.match_id
                ));
            }
        }
        fz.tables[index] = table;
    }

    // The host still answers, and still plays.
    assert!(host.is_running(), "the host died under hostile requests");
    let games = c
        .catalog
        .list_games(pb::ListGamesRequest {})
        .await
        .expect("the host still answers")
        .into_inner();
    assert!(games.games.len() >= 4, "{games:?}");
    new_table(&mut c.matches, "focus", 2, false).await;
    assert!(
        counts.get("refused").copied().unwrap_or(0) > REQUESTS / 4,
        "most hostile requests should be refused: {counts:?}"
    );
    let mut tried: Vec<_> = tried.into_iter().collect();
    tried.sort();
    println!("(answered, refused) by RPC: {tried:?}");
    assert_eq!(tried.len(), Rpc::ALL.len(), "every RPC is tried: {tried:?}");
    assert!(
        findings.internal.is_empty()
            && findings.long_messages.is_empty()
            && findings.changed.is_empty(),
        "{} INTERNAL, {} messages over {LONGEST_MESSAGE} bytes, {} refusals that changed a match:\n{findings:#?}",
        findings.internal.len(),
        findings.long_messages.len(),
        findings.changed.len()
    );
}
