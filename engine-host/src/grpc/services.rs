//! The gRPC services: validate the request, call the core, convert the
//! answer. Core calls run off the async workers, on the blocking pool with a
//! deadline (plugins may be slow or stuck), except the hot ones the core can
//! serve without waiting: a legal-actions ask answered from kept lists
//! (`Engine::kept_legal_actions`), and a submit, legal-actions ask or view
//! whose match is free and whose plugin has never overrun the inline limit
//! (`Engine::try_submit` and friends, `core::inline`). The hop to the pool
//! and back was the largest part of the server's CPU per action; one helper,
//! `Api::inline_or_pool`, serves every such call.
//!
//! Every error goes through [`to_status`]: no handler chooses a status code.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tabletop_proto::v1 as pb;
use tabletop_proto::v1::{admin_server::Admin, catalog_server::Catalog, matches_server::Matches};
use tokio::sync::{broadcast, watch};
use tonic::{Request, Response, Status};

use super::convert;
use super::outbound::StreamBudget;
use super::pool_share::PoolShares;
use super::seat_calls;
use super::status::to_status;
use super::streams::{OpenStreams, StreamCaps};
use crate::engine::{ActionRef, Engine, ListQuery, NewMatch, OpenedWith, TryCreate, Withdrawn};
use crate::store::{Commit, ListedState};
use tabletop_core::error::{HostError, HostResult};
use tabletop_core::legal::LegalDetail;
use tabletop_core::quote::quote;
use tabletop_core::{SeatPlayer, ViewDetail};

/// The API over one engine; cheap to clone (one per service).
#[derive(Debug, Clone)]
pub struct Api {
    pub(super) engine: Arc<Engine>,
    deadline: Duration,
    draining: watch::Receiver<bool>,
    /// The streams open, counted against their openers.
    pub(super) streams: Arc<OpenStreams>,
    /// How much each stream queues.
    pub(super) stream_budget: StreamBudget,
    /// Each caller's share of the blocking pool.
    pool: Arc<PoolShares>,
}

/// A core call tried on the calling thread.
#[derive(Debug)]
enum Tried<T, R> {
    /// It ran: the answer, and the writes to wait for before giving it.
    Ran(HostResult<T>, Commit),
    /// It may not run here: what the call on the blocking pool needs.
    Declined(R),
}

impl<T> From<Option<HostResult<T>>> for Tried<T, ()> {
    /// A try that writes nothing (`None`: declined).
    fn from(tried: Option<HostResult<T>>) -> Self {
        match tried {
            Some(answer) => Tried::Ran(answer, Commit::done()),
            None => Tried::Declined(()),
        }
    }
}

impl<T> From<Option<(HostResult<T>, Commit)>> for Tried<T, ()> {
    /// A try that may queue writes (`None`: declined).
    fn from(tried: Option<(HostResult<T>, Commit)>) -> Self {
        match tried {
            Some((answer, commit)) => Tried::Ran(answer, commit),
            None => Tried::Declined(()),
        }
    }
}

impl Api {
    /// Serves `engine`; a core call that takes longer than `deadline` (a stuck
    /// plugin) fails with INTERNAL instead of holding the caller forever.
    /// Open streams end once `draining` turns true (shutdown), or when what
    /// opened them is withdrawn (`Api::stream_end`).
    pub fn new(engine: Arc<Engine>, deadline: Duration, draining: watch::Receiver<bool>) -> Api {
        Api {
            engine,
            deadline,
            draining,
            streams: Arc::new(OpenStreams::new(StreamCaps::default())),
            stream_budget: StreamBudget::default(),
            pool: PoolShares::new(0),
        }
    }

    /// The same API with streams capped by `caps`, each queueing `budget`.
    pub fn with_streams(self, caps: StreamCaps, budget: StreamBudget) -> Api {
        Api {
            streams: Arc::new(OpenStreams::new(caps)),
            stream_budget: budget,
            ..self
        }
    }

    /// Api with each caller's calls on the blocking pool capped at
    /// `per_caller` at once (0: no cap).
    pub fn with_pool_shares(self, per_caller: usize) -> Api {
        Api {
            pool: PoolShares::new(per_caller),
            ..self
        }
    }

    /// Whether the server is shutting down.
    pub(super) fn is_draining(&self) -> bool {
        *self.draining.borrow()
    }

    /// Resolves when the server starts shutting down (never, if the signal
    /// is gone).
    pub(super) fn drained(&self) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        let mut draining = self.draining.clone();
        Box::pin(async move {
            if draining.wait_for(|d| *d).await.is_err() {
                std::future::pending::<()>().await;
            }
        })
    }

    /// Resolves, with the status that ends it, when a stream opened with
    /// `opened` must end: the server starts shutting down (SHUTTING_DOWN),
    /// or what it was opened with is withdrawn — its organizer credential
    /// revoked, its seat token re-issued — and a new call with it would be
    /// refused (that refusal: BAD_TOKEN). `withdrawals` was subscribed to
    /// before the stream's credential was checked, so nothing withdrawn
    /// since that check is missed.
    pub(super) fn stream_end(
        &self,
        opened: OpenedWith,
        mut withdrawals: broadcast::Receiver<Withdrawn>,
    ) -> Pin<Box<dyn Future<Output = Status> + Send>> {
        let drained = self.drained();
        let api = self.clone();
        let withdrawn = async move {
            if !opened.can_be_withdrawn() {
                return std::future::pending::<Status>().await;
            }
            loop {
                let concerned = match withdrawals.recv().await {
                    Ok(withdrawn) => withdrawn.concerns(&opened),
                    // Some withdrawals went untold: any may be this one's.
                    Err(broadcast::error::RecvError::Lagged(_)) => true,
                    Err(broadcast::error::RecvError::Closed) => {
                        return std::future::pending::<Status>().await;
                    }
                };
                if !concerned {
                    continue;
                }
                let check = opened.clone();
                // A seat token's check takes the match's lock: off the
                // async workers, as every call that takes it.
                if let Err(status) = api.call(move |e| e.still_open(&check)).await {
                    return status;
                }
            }
        };
        Box::pin(async move {
            tokio::select! {
                () = drained => to_status(HostError::ShuttingDown),
                status = withdrawn => status,
            }
        })
    }

    /// Gives the answer of a call `tried` on the calling thread once its
    /// writes are durable, or, when the try declined, runs `on_pool` on the
    /// blocking pool with the deadline ([`Api::call`]). An answer whose
    /// writes failed is not given: `lost` is told of it (to undo what the
    /// caller will never learn of) and the write's error is.
    async fn inline_or_pool<T, R>(
        &self,
        tried: Tried<T, R>,
        lost: impl FnOnce(&T),
        on_pool: impl FnOnce(&Engine, R) -> HostResult<T> + Send + 'static,
    ) -> Result<T, Status>
    where
        T: Send + 'static,
        R: Send + 'static,
    {
        match tried {
            Tried::Ran(answer, commit) => {
                // Acknowledged only once durable; the match is already
                // unlocked, so its next action need not wait for this fsync.
                if let Err(e) = commit.durable().await {
                    if let Ok(answer) = &answer {
                        lost(answer);
                    }
                    return Err(to_status(e));
                }
                answer.map_err(to_status)
            }
            Tried::Declined(request) => self.call(move |e| on_pool(e, request)).await,
        }
    }

    /// Runs a core call on the blocking pool with the deadline.
    pub(super) async fn call<T, F>(&self, f: F) -> Result<T, Status>
    where
        T: Send + 'static,
        F: FnOnce(&Engine) -> HostResult<T> + Send + 'static,
    {
        let deadline = self.deadline;
        self.call_within(deadline, move || HostError::PluginTimeout { deadline }, f)
            .await
    }

    /// Runs a core call on the blocking pool with `deadline`; past it the
    /// caller is answered `timed_out()` (what was too slow: a plugin, a
    /// plugin file's check, a backup).
    async fn call_within<T, F>(
        &self,
        deadline: Duration,
        timed_out: impl FnOnce() -> HostError,
        f: F,
    ) -> Result<T, Status>
    where
        T: Send + 'static,
        F: FnOnce(&Engine) -> HostResult<T> + Send + 'static,
    {
        let engine = Arc::clone(&self.engine);
        // Waits, holding no thread, while the caller has its share of the
        // pool in use; the wait counts against the call's deadline too.
        let waited_from = tokio::time::Instant::now();
        let place = match super::cost::sharer() {
            Some(sharer) => match tokio::time::timeout(deadline, self.pool.enter(sharer)).await {
                Ok(place) => place,
                Err(_) => return Err(to_status(timed_out())),
            },
            None => None,
        };
        let deadline = deadline.saturating_sub(waited_from.elapsed());
        crate::metrics::metrics().pool_call();
        let call = crate::logging::current_call();
        let job = tokio::task::spawn_blocking(move || {
            // The caller's place in the pool is the job's: a call answered
            // at its deadline gives the place back only when its job ends,
            // so a caller whose jobs hang (a plugin stuck in a call) holds
            // no more of the pool than its share.
            let _place = place;
            let _entered = crate::logging::enter(call);
            let started = super::cost::thread_cpu();
            let result = f(&engine);
            (result, super::cost::thread_cpu().saturating_sub(started))
        });
        match tokio::time::timeout(deadline, job).await {
            Ok(Ok((result, ran))) => {
                // What the call costs its caller's rate: the CPU it took,
                // not its waits (for a pool thread, a lock, an fsync).
                super::cost::add_work(ran);
                result.map_err(to_status)
            }
            Ok(Err(join)) => Err(to_status(HostError::Internal(format!(
                "the host failed while serving the call: {join}"
            )))),
            Err(_) => Err(to_status(timed_out())),
        }
    }
}

fn view_detail(detail: i32) -> HostResult<ViewDetail> {
    match pb::ViewDetail::try_from(detail) {
        Ok(pb::ViewDetail::Unspecified | pb::ViewDetail::Full) => Ok(ViewDetail::Full),
        Ok(pb::ViewDetail::Summary) => Ok(ViewDetail::Summary),
        Err(_) => Err(HostError::InvalidRequest(format!(
            "unknown view detail {detail}"
        ))),
    }
}

fn state_filter(state: i32) -> HostResult<Option<Option<ListedState>>> {
    match pb::MatchState::try_from(state) {
        Ok(pb::MatchState::Unspecified) => Ok(None),
        Ok(pb::MatchState::Waiting) => Ok(Some(Some(ListedState::Waiting))),
        Ok(pb::MatchState::Running) => Ok(Some(Some(ListedState::Running))),
        Ok(pb::MatchState::Quarantined) => Ok(Some(Some(ListedState::Quarantined))),
        Ok(pb::MatchState::Finished) => Ok(Some(Some(ListedState::Finished))),
        Ok(pb::MatchState::Unavailable) => Ok(Some(None)),
        Err(_) => Err(HostError::InvalidRequest(format!(
            "unknown match state {state}"
        ))),
    }
}

#[tonic::async_trait]
impl Catalog for Api {
    async fn list_games(
        &self,
        _: Request<pb::ListGamesRequest>,
    ) -> Result<Response<pb::ListGamesResponse>, Status> {
        let games = self.call(|e| Ok(e.list_games())).await?;
        Ok(Response::new(pb::ListGamesResponse {
            games: games.iter().map(convert::game).collect(),
        }))
    }

    async fn get_game(
        &self,
        request: Request<pb::GetGameRequest>,
    ) -> Result<Response<pb::GameInfo>, Status> {
        let r = request.into_inner();
        let game = self
            .call(move |e| e.get_game(&r.game, r.version.as_deref()))
            .await?;
        Ok(Response::new(convert::game(&game)))
    }
}

#[tonic::async_trait]
impl Matches for Api {
    async fn create_match(
        &self,
        request: Request<pb::CreateMatchRequest>,
    ) -> Result<Response<pb::CreateMatchResponse>, Status> {
        let caller = self.caller(&request, "")?;
        let r = request.into_inner();
        let new = NewMatch {
            game: r.game,
            version: r.version,
            players: r.players,
            options: r.options.into_iter().collect(),
            seed: r.seed,
            start_position: r.start_position,
            open_seats: r.open_seats,
            time_control: r
                .time_control
                .map(convert::time_control)
                .transpose()
                .map_err(to_status)?,
            view_detail: view_detail(r.view_detail).map_err(to_status)?,
            labels: r.labels.into_iter().collect(),
            request_id: (!r.request_id.is_empty()).then_some(r.request_id),
            open_seat_wait: r
                .open_seat_deadline
                .map(convert::open_seat_deadline)
                .transpose()
                .map_err(to_status)?,
            spectator_delay: r.spectator_delay.and_then(convert::spectator_delay),
            seat_players: r
                .seat_players
                .into_iter()
                .map(convert::seat_player_from)
                .collect::<Result<_, _>>()
                .map_err(to_status)?,
            public_open_seats: r.public_open_seats,
            bots: r.bots.into_iter().map(|b| (b.seat, b.spec)).collect(),
        };
        let tried = match self.engine.try_create_match(&caller, new) {
            TryCreate::Ran(answer, commit) => Tried::Ran(answer, commit),
            TryCreate::Declined(new) => Tried::Declined(new),
        };
        // A match whose creation was not stored is forgotten: its creator
        // never learns its tokens.
        let created = self
            .inline_or_pool(
                tried,
                |created| self.engine.discard(&created.match_id),
                move |e, new| e.create_match(&caller, new),
            )
            .await?;
        super::in_match(&created.match_id);
        Ok(Response::new(pb::CreateMatchResponse {
            match_id: created.match_id,
            seats: convert::tokens(&created.tokens),
            view: Some(convert::view(created.view)),
            join_codes: created
                .join_codes
                .into_iter()
                .map(|(seat, code)| pb::SeatJoinCode { seat, code })
                .collect(),
        }))
    }

    async fn join_match(
        &self,
        request: Request<pb::JoinMatchRequest>,
    ) -> Result<Response<pb::JoinMatchResponse>, Status> {
        let caller = self.caller(&request, "")?;
        let r = request.into_inner();
        super::in_match(&r.match_id);
        let player = SeatPlayer {
            seat: 0,
            display_name: r.display_name,
            external_id: r.external_id,
            bot: r.bot,
        };
        let (seat, token, view) = self
            .call(move |e| e.join(&caller, &r.match_id, r.seat, &r.join_code, &player))
            .await?;
        Ok(Response::new(pb::JoinMatchResponse {
            seat,
            token,
            view: Some(convert::view(view)),
        }))
    }

    async fn get_view(
        &self,
        request: Request<pb::GetViewRequest>,
    ) -> Result<Response<pb::MatchView>, Status> {
        let charged = seat_calls::charge(&request, &request.get_ref().seat_token)?;
        let r = request.into_inner();
        super::in_match(&r.match_id);
        let detail = if r.svg {
            ViewDetail::Board
        } else {
            ViewDetail::Full
        };
        if let Some(version) = r.at_version {
            // A past view replays the log: never on an async worker.
            let view = self
                .call(move |e| e.view_at_version(&r.match_id, &r.seat_token, version, detail))
                .await?;
            charged.succeeded();
            return Ok(Response::new(convert::view(view)));
        }
        let tried = self
            .engine
            .try_view(&r.match_id, &r.seat_token, detail)
            .into();
        let view = self
            .inline_or_pool(
                tried,
                |_| {},
                move |e, ()| e.view(&r.match_id, &r.seat_token, detail),
            )
            .await?;
        charged.succeeded();
        Ok(Response::new(convert::view(view)))
    }

    async fn list_legal_actions(
        &self,
        request: Request<pb::ListLegalActionsRequest>,
    ) -> Result<Response<pb::ListLegalActionsResponse>, Status> {
        let charged = seat_calls::charge(&request, &request.get_ref().seat_token)?;
        let r = request.into_inner();
        super::in_match(&r.match_id);
        // Kept lists are answered here on the worker: no plugin call, so no
        // hop to the blocking pool (the hop costs more than the answer).
        let detail = if r.ids_only {
            LegalDetail::IdsOnly
        } else {
            LegalDetail::Full
        };
        let answered = self
            .engine
            .kept_legal_actions(&r.match_id, &r.seat_token, detail)
            .or_else(|| {
                self.engine
                    .try_legal_actions(&r.match_id, &r.seat_token, detail)
            });
        let (version, seat, actions, targets) = self
            .inline_or_pool(
                answered.into(),
                |_| {},
                move |e, ()| e.legal_actions(&r.match_id, &r.seat_token, detail),
            )
            .await?;
        charged.succeeded();
        let (actions, action_ids) = match detail {
            LegalDetail::Full => (
                {
                    let mut targets = targets.into_iter();
                    actions
                        .into_iter()
                        .map(|(id, notation)| pb::LegalAction {
                            id,
                            notation,
                            targets: targets.next().unwrap_or_default(),
                        })
                        .collect()
                },
                Vec::new(),
            ),
            LegalDetail::IdsOnly => (Vec::new(), actions.into_iter().map(|(id, _)| id).collect()),
        };
        Ok(Response::new(pb::ListLegalActionsResponse {
            version,
            seat,
            actions,
            action_ids,
        }))
    }

    async fn submit_action(
        &self,
        request: Request<pb::SubmitActionRequest>,
    ) -> Result<Response<pb::SubmitActionResponse>, Status> {
        let charged = seat_calls::charge(&request, &request.get_ref().seat_token)?;
        let r = request.into_inner();
        super::in_match(&r.match_id);
        let action = match r.action {
            Some(pb::submit_action_request::Action::ActionId(id)) => ActionRef::Id(id),
            Some(pb::submit_action_request::Action::Notation(text)) => ActionRef::Notation(text),
            None => {
                return Err(to_status(HostError::InvalidRequest(
                    "an action is required: give `action_id` or `notation`".into(),
                )));
            }
        };
        let detail = view_detail(r.view_detail).map_err(to_status)?;
        let tried = self
            .engine
            .try_submit(
                &r.match_id,
                &r.seat_token,
                &action,
                r.expected_version,
                detail,
            )
            .into();
        let match_id = r.match_id.clone();
        let (view, pending) = self
            .inline_or_pool(
                tried,
                |_| self.engine.forget_unstored(&match_id),
                move |e, ()| {
                    e.submit(
                        &r.match_id,
                        &r.seat_token,
                        &action,
                        r.expected_version,
                        detail,
                    )
                },
            )
            .await?;
        charged.succeeded();
        Ok(Response::new(pb::SubmitActionResponse {
            view: Some(convert::view(view)),
            pending,
        }))
    }

    async fn resign(
        &self,
        request: Request<pb::ResignRequest>,
    ) -> Result<Response<pb::MatchView>, Status> {
        let charged = seat_calls::charge(&request, &request.get_ref().seat_token)?;
        let r = request.into_inner();
        super::in_match(&r.match_id);
        let view = self
            .call(move |e| e.resign(&r.match_id, &r.seat_token))
            .await?;
        charged.succeeded();
        Ok(Response::new(convert::view(view)))
    }

    async fn list_matches(
        &self,
        request: Request<pb::ListMatchesRequest>,
    ) -> Result<Response<pb::ListMatchesResponse>, Status> {
        let r = request.into_inner();
        let query = ListQuery {
            game: (!r.game.is_empty()).then_some(r.game),
            state: state_filter(r.state).map_err(to_status)?,
            labels: r.labels.into_iter().collect(),
            created_from_ms: r.created_from_ms,
            created_before_ms: r.created_before_ms,
            page_size: r.page_size as usize,
            page_token: r.page_token,
        };
        let (matches, next_page_token) = self.call(move |e| e.list_matches(&query)).await?;
        Ok(Response::new(pb::ListMatchesResponse {
            matches: matches.iter().map(convert::summary).collect(),
            next_page_token,
        }))
    }

    async fn export_record(
        &self,
        request: Request<pb::ExportRecordRequest>,
    ) -> Result<Response<pb::ExportRecordResponse>, Status> {
        let caller = self.caller(&request, &request.get_ref().admin_token)?;
        let r = request.into_inner();
        super::in_match(&r.match_id);
        let record_json = self.call(move |e| e.export(&caller, &r.match_id)).await?;
        Ok(Response::new(pb::ExportRecordResponse { record_json }))
    }

    async fn import_record(
        &self,
        request: Request<pb::ImportRecordRequest>,
    ) -> Result<Response<pb::ImportRecordResponse>, Status> {
        let caller = self.caller(&request, &request.get_ref().admin_token)?;
        let r = request.into_inner();
        let created = self
            .call(move |e| e.import(&caller, &r.record_json))
            .await?;
        Ok(Response::new(pb::ImportRecordResponse {
            match_id: created.match_id,
            seats: convert::tokens(&created.tokens),
            view: Some(convert::view(created.view)),
        }))
    }
}

#[tonic::async_trait]
impl Admin for Api {
    async fn list_plugins(
        &self,
        request: Request<pb::ListPluginsRequest>,
    ) -> Result<Response<pb::ListPluginsResponse>, Status> {
        let caller = self.caller(&request, &request.get_ref().admin_token)?;
        let plugins = self.call(move |e| e.list_plugins(&caller)).await?;
        Ok(Response::new(pb::ListPluginsResponse {
            plugins: plugins.iter().map(convert::plugin).collect(),
        }))
    }

    async fn retire_plugin(
        &self,
        request: Request<pb::RetirePluginRequest>,
    ) -> Result<Response<pb::PluginInfo>, Status> {
        let caller = self.caller(&request, "")?;
        let r = request.into_inner();
        let entry = self
            .call(move |e| e.retire_plugin(&caller, &r.game, &r.version))
            .await?;
        Ok(Response::new(convert::plugin(&entry)))
    }

    async fn load_plugin(
        &self,
        request: Request<pb::LoadPluginRequest>,
    ) -> Result<Response<pb::LoadPluginResponse>, Status> {
        let caller = self.caller(&request, &request.get_ref().admin_token)?;
        let r = request.into_inner();
        // The file is checked in a child process first, which may take up
        // to the vetting timeout before the load itself starts.
        let deadline = self.deadline + self.engine.vet_timeout();
        let path = quote(&r.path).into_owned();
        let timed_out = move || {
            HostError::Internal(format!(
                "loading {path} did not finish within {deadline:?}; the host goes on without it"
            ))
        };
        let (entry, already_loaded) = self
            .call_within(deadline, timed_out, move |e| {
                e.load_plugin(&caller, &r.path)
            })
            .await?;
        Ok(Response::new(pb::LoadPluginResponse {
            plugin: Some(convert::plugin(&entry)),
            already_loaded,
        }))
    }

    async fn backup(
        &self,
        request: Request<pb::BackupRequest>,
    ) -> Result<Response<pb::BackupResponse>, Status> {
        let caller = self.caller(&request, &request.get_ref().admin_token)?;
        let r = request.into_inner();
        let backup = self
            .call_within(
                BACKUP_DEADLINE,
                || {
                    HostError::Internal(format!(
                        "the backup did not finish within {BACKUP_DEADLINE:?}"
                    ))
                },
                move |e| e.backup(&caller, &r.path),
            )
            .await?;
        Ok(Response::new(pb::BackupResponse {
            path: backup.path.display().to_string(),
            bytes: backup.bytes,
            matches: backup.matches,
        }))
    }

    async fn issue_credential(
        &self,
        request: Request<pb::IssueCredentialRequest>,
    ) -> Result<Response<pb::IssueCredentialResponse>, Status> {
        let caller = self.caller(&request, &request.get_ref().admin_token)?;
        let r = request.into_inner();
        match pb::CredentialRole::try_from(r.role) {
            Ok(pb::CredentialRole::Unspecified | pb::CredentialRole::Organizer) => {}
            Err(_) => {
                return Err(to_status(HostError::InvalidRequest(format!(
                    "unknown credential role {}",
                    r.role
                ))));
            }
        }
        let (info, secret) = self
            .call(move |e| e.issue_credential(&caller, &r.name, &r.tenant))
            .await?;
        Ok(Response::new(pb::IssueCredentialResponse {
            credential: Some(convert::credential(&info)),
            secret,
        }))
    }

    async fn revoke_credential(
        &self,
        request: Request<pb::RevokeCredentialRequest>,
    ) -> Result<Response<pb::CredentialInfo>, Status> {
        let caller = self.caller(&request, &request.get_ref().admin_token)?;
        let r = request.into_inner();
        let info = self
            .call(move |e| e.revoke_credential(&caller, &r.credential_id))
            .await?;
        Ok(Response::new(convert::credential(&info)))
    }

    async fn list_credentials(
        &self,
        request: Request<pb::ListCredentialsRequest>,
    ) -> Result<Response<pb::ListCredentialsResponse>, Status> {
        let caller = self.caller(&request, &request.get_ref().admin_token)?;
        let credentials = self.call(move |e| e.list_credentials(&caller)).await?;
        Ok(Response::new(pb::ListCredentialsResponse {
            credentials: credentials.iter().map(convert::credential).collect(),
        }))
    }

    async fn lift_quarantine(
        &self,
        request: Request<pb::LiftQuarantineRequest>,
    ) -> Result<Response<pb::MatchView>, Status> {
        let caller = self.caller(&request, &request.get_ref().admin_token)?;
        let r = request.into_inner();
        super::in_match(&r.match_id);
        let view = self
            .call(move |e| {
                let version = Some(r.plugin_version.as_str()).filter(|v| !v.is_empty());
                e.lift_quarantine(&caller, &r.match_id, version)
            })
            .await?;
        Ok(Response::new(convert::view(view)))
    }
}

/// Longest a backup may take before the call fails: a copy runs at disk
/// speed, so minutes for a store of millions of matches, not the plugin
/// call deadline.
const BACKUP_DEADLINE: Duration = Duration::from_secs(30 * 60);
