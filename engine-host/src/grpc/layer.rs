//! The tower layer in front of every service: who calls (their credential's
//! key, and the refusal of a credential that is malformed, unknown or
//! revoked, whatever the call), the limits ([`super::limits`]) and the
//! request timeout, a client certificate for the Admin service when the
//! listener asks for them, the request's tracing span, and the call's
//! metrics (method, status code, latency). A refusal never reaches a handler: the layer answers it with
//! the status, its `ErrorInfo` and a `RetryInfo` delay.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http::{HeaderMap, HeaderValue, Request, Response};
use http_body::Frame;
use percent_encoding::percent_decode;
use prost::Message;
use tonic::body::Body;
use tonic::{Code, Status};
use tower::{Layer, Service};

use super::auth::{AUTHORIZATION, parse_bearer};
use super::cost::CallCost;
use super::limits::{Key, Limiter, Refusal, SeatCharge};
use super::reason::Reason;
use super::status::{Described, to_status};
use crate::engine::{Caller, Engine};
use crate::logging::{self, CallContext};
use crate::metrics::{LimitKind, RpcStats, metrics};
use tabletop_core::HostError;

/// The paths of the calls that create a match.
const CREATING: [&str; 2] = [
    "/tabletop.v1.Matches/CreateMatch",
    "/tabletop.v1.Matches/ImportRecord",
];

/// The methods that take a seat token (field 2 of each request): called
/// without a credential, each is charged by its handler against the seat
/// the token names ([`SeatCharge`]).
const SEAT_CALLS: [&str; 6] = [
    "/tabletop.v1.Matches/GetView",
    "/tabletop.v1.Matches/ListLegalActions",
    "/tabletop.v1.Matches/SubmitAction",
    "/tabletop.v1.Matches/Resign",
    "/tabletop.v1.Watch/WatchMatch",
    "/tabletop.v1.Watch/ListEvents",
];

/// The label of a path that is no method served.
const UNKNOWN: &str = "unknown";

/// The Admin service's path prefix.
const ADMIN_PREFIX: &str = "/tabletop.v1.Admin/";

/// The shortest and longest a refusal of a credential's limit is held
/// before it is answered (see [`Held`]).
const HOLD_REFUSAL: (Duration, Duration) = (Duration::from_millis(50), Duration::from_secs(1));

/// Most refusals held at once; beyond it they are answered at once.
const MAX_HELD_REFUSALS: usize = 4096;

/// Calls the request timeout does not cut: a backup runs at disk speed,
/// under a deadline of its own.
const UNTIMED: [&str; 1] = ["/tabletop.v1.Admin/Backup"];

/// What the layer enforces besides the limits.
#[derive(Debug, Clone, Copy, Default)]
pub struct Guards {
    /// Longest a call may take to answer (a stream: to start); `None`: no
    /// limit beyond the handlers' own deadlines.
    pub timeout: Option<Duration>,
    /// Whether Admin calls need a verified client certificate.
    pub admin_client_cert: bool,
    /// On a store several hosts share, their cluster key: a call another
    /// host forwards with it passed that host's certificate check, made on
    /// the caller's own connection.
    pub cluster_key: Option<[u8; 32]>,
}

#[derive(Debug)]
struct Shared {
    engine: Arc<Engine>,
    limiter: Arc<Limiter>,
    guards: Guards,
    /// Every method served, by path, with its label and its metrics.
    methods: HashMap<String, (Arc<str>, Arc<RpcStats>)>,
    unknown: Arc<RpcStats>,
    /// Refusals being held now.
    held: Arc<AtomicUsize>,
}

/// A refusal held before it is answered, one of at most
/// [`MAX_HELD_REFUSALS`]. A refusal of a credential's own limit (its calls
/// in flight, rate, creations, its tenant's quotas, or the live-match cap)
/// is answered after its retry delay, clamped to [`HOLD_REFUSAL`]: a
/// client that retries at once, ignoring the delay, is paced by the server
/// instead of spending its CPU on refusals. The server's own load
/// shedding answers at once.
struct Held(Arc<AtomicUsize>);

impl Held {
    /// A slot to hold a refusal in, if one is free.
    fn take(counter: &Arc<AtomicUsize>) -> Option<Held> {
        let held = counter.fetch_add(1, Ordering::Relaxed);
        if held >= MAX_HELD_REFUSALS {
            counter.fetch_sub(1, Ordering::Relaxed);
            return None;
        }
        Some(Held(Arc::clone(counter)))
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The layer (see the module docs).
#[derive(Debug, Clone)]
pub struct OpsLayer {
    shared: Arc<Shared>,
}

impl OpsLayer {
    /// The layer for `engine` with `limiter` and `guards`; `descriptor_sets`
    /// are the encoded file descriptor sets of every service served, whose
    /// methods are the ones counted by name (any other path is `unknown`,
    /// so a client cannot grow the metrics with made-up paths).
    pub fn new(
        engine: Arc<Engine>,
        limiter: Arc<Limiter>,
        guards: Guards,
        descriptor_sets: &[&[u8]],
    ) -> OpsLayer {
        let mut methods = HashMap::new();
        for encoded in descriptor_sets {
            let Ok(set) = prost_types::FileDescriptorSet::decode(*encoded) else {
                continue;
            };
            for file in set.file {
                for service in &file.service {
                    let full = format!("{}.{}", file.package(), service.name());
                    for method in &service.method {
                        let label = format!("{full}/{}", method.name());
                        let stats = metrics().rpc(&label);
                        methods.insert(format!("/{label}"), (Arc::from(label), stats));
                    }
                }
            }
        }
        OpsLayer {
            shared: Arc::new(Shared {
                engine,
                limiter,
                guards,
                methods,
                unknown: metrics().rpc(UNKNOWN),
                held: Arc::new(AtomicUsize::new(0)),
            }),
        }
    }
}

impl<S> Layer<S> for OpsLayer {
    type Service = Ops<S>;

    fn layer(&self, inner: S) -> Ops<S> {
        Ops {
            inner,
            shared: Arc::clone(&self.shared),
        }
    }
}

/// The service the layer wraps around the routes.
#[derive(Debug, Clone)]
pub struct Ops<S> {
    inner: S,
    shared: Arc<Shared>,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S> Service<Request<Body>> for Ops<S>
where
    S: Service<Request<Body>, Response = Response<Body>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = Response<ObservedBody>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Self::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        let started = Instant::now();
        let path = request.uri().path();
        let (method, stats) = match self.shared.methods.get(path) {
            Some((label, stats)) => (Arc::clone(label), Arc::clone(stats)),
            None => (Arc::from(UNKNOWN), Arc::clone(&self.shared.unknown)),
        };
        let (mut key, presented) = self.presented(request.headers());
        let call = CallContext::new(method, key.label());
        let _entered = logging::enter(Some(Arc::clone(&call)));
        if key == Key::Anonymous && SEAT_CALLS.contains(&path) {
            key = Key::SeatCall;
        }
        let observed = move |response: Response<Body>, stats, cost: Option<CallCost>| {
            let code = code_of(response.headers());
            let mut response = response.map(|body| ObservedBody::new(body, stats, started, cost));
            // A trailers-only answer (an error) has its status in the
            // headers and nothing to come: it is counted now, before the
            // client can see it.
            if let Some(code) = code {
                response.body_mut().finish(code);
            }
            response
        };
        if self.shared.guards.admin_client_cert
            && path.starts_with(ADMIN_PREFIX)
            && !has_client_cert(&request)
            && !self
                .shared
                .guards
                .cluster_key
                .is_some_and(|key| super::forward::from_peer(request.headers(), &key))
        {
            let status = client_cert_required();
            tracing::warn!("admin call without a client certificate refused");
            return Box::pin(std::future::ready(Ok(observed(
                status.into_http(),
                stats,
                None,
            ))));
        }
        let creates = CREATING.contains(&path);
        let engine = &self.shared.engine;
        let live_matches = |tenant: Option<&str>| match tenant {
            None => engine.live_matches(),
            Some(tenant) => engine.tenant_live_matches(tenant),
        };
        let permit = match self
            .shared
            .limiter
            .admit(&key, creates, live_matches, started)
        {
            Ok(permit) => permit,
            Err(refusal) => {
                metrics().refused(refusal.kind);
                if let Some(count) = refusal.log {
                    tracing::warn!(
                        limit = refusal.kind.name(),
                        credential = %refusal.key,
                        tenant = refusal.tenant.as_deref(),
                        max = refusal.limit,
                        retry_after_ms = refusal.retry_after.as_millis() as u64,
                        refused = count,
                        "call refused by a limit"
                    );
                }
                let response = observed(refusal_status(&refusal).into_http(), stats, None);
                let held = (refusal.kind != LimitKind::ServerCalls)
                    .then(|| Held::take(&self.shared.held))
                    .flatten();
                return match held {
                    Some(slot) => {
                        let hold = refusal.retry_after.clamp(HOLD_REFUSAL.0, HOLD_REFUSAL.1);
                        Box::pin(async move {
                            tokio::time::sleep(hold).await;
                            drop(slot);
                            Ok(response)
                        })
                    }
                    None => Box::pin(std::future::ready(Ok(response))),
                };
            }
        };
        // Every call checks the credential it presents, also a call that
        // needs none: a revoked credential is refused, not taken for
        // anonymous. Counted against its key first, so a client repeating
        // a bad credential is limited like any other.
        if let Err(refused) = presented {
            drop(permit);
            return Box::pin(std::future::ready(Ok(observed(
                to_status(refused).into_http(),
                stats,
                None,
            ))));
        }
        let timeout = self
            .shared
            .guards
            .timeout
            .filter(|_| !UNTIMED.contains(&path));
        let mut request = request;
        let seat_charge = (key == Key::SeatCall).then(|| {
            let charge = SeatCharge::new(Arc::clone(&self.shared.limiter));
            request.extensions_mut().insert(charge.clone());
            charge
        });
        let cost = CallCost::new(Arc::clone(&self.shared.limiter), &key, seat_charge);
        // The clone answers this call; `self.inner` stays ready for the
        // next (tower's rule for a service polled ready).
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let in_flight = InFlight::new();
        Box::pin(logging::in_call(call, async move {
            let call = cost.meter(inner.call(request));
            let answer = match timeout {
                Some(limit) => match tokio::time::timeout(limit, call).await {
                    Ok(answer) => answer,
                    Err(_) => {
                        metrics().refused(LimitKind::Timeout);
                        tracing::warn!(timeout_ms = limit.as_millis() as u64, "call timed out");
                        Ok(timed_out(limit).into_http())
                    }
                },
                None => call.await,
            };
            drop(in_flight);
            drop(permit);
            answer.map(|response| observed(response, stats, Some(cost)))
        }))
    }
}

impl<S> Ops<S> {
    /// Who a call counts against (its bearer credential's key), and the
    /// refusal of the credential it presents, if that is malformed,
    /// unknown or revoked: the refusal a handler would answer.
    fn presented(&self, headers: &HeaderMap) -> (Key, Result<(), HostError>) {
        let Some(value) = headers.get(AUTHORIZATION) else {
            return (Key::Anonymous, Ok(()));
        };
        let secret = value
            .to_str()
            .map_err(|_| HostError::InvalidRequest("the authorization metadata is not text".into()))
            .and_then(parse_bearer);
        let caller = secret.and_then(|secret| self.shared.engine.authenticate(secret));
        match caller {
            Ok(Caller::Anonymous) => (Key::Anonymous, Ok(())),
            Ok(Caller::Admin) => (Key::Admin, Ok(())),
            Ok(Caller::Organizer {
                credential_id,
                tenant,
                ..
            }) => (
                Key::Credential {
                    id: credential_id,
                    tenant,
                },
                Ok(()),
            ),
            Err(refused) => (Key::Unrecognized, Err(refused)),
        }
    }
}

/// A call counted in `tabletop_rpcs_in_flight` until dropped (also when
/// the client goes away and its call's future is dropped).
struct InFlight;

impl InFlight {
    fn new() -> InFlight {
        metrics().add_in_flight(1);
        InFlight
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        metrics().add_in_flight(-1);
    }
}

/// Whether the call's connection presented a client certificate, which
/// rustls verified against the client CA during the handshake.
fn has_client_cert(request: &Request<Body>) -> bool {
    request
        .extensions()
        .get::<tonic::transport::server::TlsConnectInfo<tonic::transport::server::TcpConnectInfo>>()
        .and_then(|info| info.peer_certs())
        .is_some_and(|certs| !certs.is_empty())
}

/// The reasons the layer sends, in the table's order (the rest of the table
/// is the services' errors, [`super::status::to_status`]).
#[cfg(test)]
pub(crate) const REASONS: [Reason; 8] = [
    Reason::ClientCertificateRequired,
    Reason::ServerBusy,
    Reason::TooManyCallsInFlight,
    Reason::RateLimited,
    Reason::CreationQuota,
    Reason::LiveMatchLimit,
    Reason::RequestTimeout,
    Reason::ReplyTooLarge,
];

/// The status of a refused call: its code, `ErrorInfo` and `RetryInfo`.
pub fn refusal_status(refusal: &Refusal) -> Status {
    let (reason, message) = match refusal.kind {
        LimitKind::ServerCalls => (
            Reason::ServerBusy,
            format!(
                "the server is serving its most calls at once ({}); try again shortly",
                refusal.limit
            ),
        ),
        LimitKind::CredentialCalls => (
            Reason::TooManyCallsInFlight,
            format!(
                "credential `{}` has its most calls in flight ({})",
                refusal.key, refusal.limit
            ),
        ),
        LimitKind::CredentialRate => (
            Reason::RateLimited,
            format!(
                "credential `{}` is over its {} calls per second",
                refusal.key, refusal.limit
            ),
        ),
        LimitKind::CreatesPerMinute => (
            Reason::CreationQuota,
            format!(
                "credential `{}` created its {} matches of the last minute",
                refusal.key, refusal.limit
            ),
        ),
        LimitKind::LiveMatches => (
            Reason::LiveMatchLimit,
            format!(
                "the server holds its most live matches ({}); try again when some have ended",
                refusal.limit
            ),
        ),
        LimitKind::TenantCreatesPerMinute => (
            Reason::CreationQuota,
            format!(
                "tenant `{}` created its {} matches of the last minute (its credentials \
                 together); try again in {} ms",
                tenant_of(refusal),
                refusal.limit,
                refusal.retry_after.as_millis()
            ),
        ),
        LimitKind::TenantLiveMatches => (
            Reason::LiveMatchLimit,
            format!(
                "tenant `{}` holds its most live matches ({}); try again when some of them \
                 have ended (in {} ms or later)",
                tenant_of(refusal),
                refusal.limit,
                refusal.retry_after.as_millis()
            ),
        ),
        // The limiter does not refuse by time; a call cut by the timeout
        // is answered by `timed_out`.
        LimitKind::Timeout => return timed_out(Duration::from_millis(refusal.limit)),
    };
    let described = Described::new(reason)
        .with("limit", refusal.kind.name())
        .with("max", refusal.limit)
        .with("credential", &refusal.key)
        .with("retry_after_ms", refusal.retry_after.as_millis());
    match &refusal.tenant {
        Some(tenant) => described.with("tenant", tenant),
        None => described,
    }
    .retry_after(refusal.retry_after)
    .into_status(&message)
}

/// The tenant a refusal of a tenant's limit names.
fn tenant_of(refusal: &Refusal) -> &str {
    refusal.tenant.as_deref().unwrap_or_default()
}

fn timed_out(limit: Duration) -> Status {
    Described::new(Reason::RequestTimeout)
        .with("timeout_ms", limit.as_millis())
        .into_status(&format!(
            "the call took longer than the request timeout ({limit:?})"
        ))
}

fn client_cert_required() -> Status {
    Described::new(Reason::ClientCertificateRequired)
        .with("credential", "client_certificate")
        .into_status("Admin calls need a client certificate signed by the server's client CA")
}

/// tonic's message for a reply over `max_encoding_message_size`.
const REPLY_TOO_LARGE_PREFIX: &str = "Error, encoded message length too large";

/// A reply's body, observed: the call is counted with its status code and
/// latency when its status goes out (the headers of a trailers-only answer,
/// or the trailers), or, if the client leaves first, as CANCELLED when the
/// body is dropped. A reply too large for the cap (tonic answers
/// OUT_OF_RANGE without details) goes out as RESOURCE_EXHAUSTED with the
/// `ErrorInfo` reason `REPLY_TOO_LARGE`.
#[derive(Debug)]
pub struct ObservedBody {
    inner: Body,
    stats: Arc<RpcStats>,
    started: Instant,
    counted: bool,
    /// What the call costs its caller's rate (none for a refusal).
    cost: Option<CallCost>,
}

impl ObservedBody {
    fn new(
        inner: Body,
        stats: Arc<RpcStats>,
        started: Instant,
        cost: Option<CallCost>,
    ) -> ObservedBody {
        ObservedBody {
            inner,
            stats,
            started,
            counted: false,
            cost,
        }
    }

    /// Counts the call once, with `code`, and charges what it cost.
    fn finish(&mut self, code: i32) {
        if !self.counted {
            self.counted = true;
            self.stats.finished(code, self.started.elapsed());
            if let Some(cost) = &mut self.cost {
                cost.settle(Instant::now());
            }
        }
    }
}

/// The gRPC status code headers (a trailers-only answer's, or trailers)
/// carry, if any.
pub(super) fn code_of(headers: &HeaderMap) -> Option<i32> {
    headers
        .get(Status::GRPC_STATUS)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
}

/// Rewrites trailers that report tonic's reply-size error into a
/// RESOURCE_EXHAUSTED status with its `ErrorInfo`.
fn explain_reply_too_large(trailers: &mut HeaderMap) {
    if code_of(trailers) != Some(Code::OutOfRange as i32) {
        return;
    }
    let message = trailers
        .get(Status::GRPC_MESSAGE)
        .map(|value| {
            percent_decode(value.as_bytes())
                .decode_utf8_lossy()
                .into_owned()
        })
        .unwrap_or_default();
    if !message.starts_with(REPLY_TOO_LARGE_PREFIX) {
        return;
    }
    let status = Described::new(Reason::ReplyTooLarge).into_status(&format!(
        "the reply is larger than the server's cap (--max-reply-bytes): {message}"
    ));
    trailers.remove(Status::GRPC_MESSAGE);
    trailers.remove(Status::GRPC_STATUS_DETAILS);
    if status.add_header(trailers).is_err() {
        trailers.insert(
            Status::GRPC_STATUS,
            HeaderValue::from(Code::ResourceExhausted as i32),
        );
    }
}

impl http_body::Body for ObservedBody {
    type Data = bytes::Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = polled {
            return match frame.into_trailers() {
                Ok(mut trailers) => {
                    explain_reply_too_large(&mut trailers);
                    self.finish(code_of(&trailers).unwrap_or(Code::Unknown as i32));
                    Poll::Ready(Some(Ok(Frame::trailers(trailers))))
                }
                Err(frame) => {
                    if let (Some(cost), Some(data)) = (&mut self.cost, frame.data_ref()) {
                        cost.sent(data.len());
                    }
                    Poll::Ready(Some(Ok(frame)))
                }
            };
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for ObservedBody {
    fn drop(&mut self) {
        // No status went out: the client went away first.
        self.finish(Code::Cancelled as i32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grpc::status::DOMAIN;
    use tonic_types::StatusExt;

    #[test]
    fn every_refusal_carries_its_reason_and_a_retry_delay() {
        for (kind, code, reason) in [
            (LimitKind::ServerCalls, Code::Unavailable, "SERVER_BUSY"),
            (
                LimitKind::CredentialCalls,
                Code::ResourceExhausted,
                "TOO_MANY_CALLS_IN_FLIGHT",
            ),
            (
                LimitKind::CredentialRate,
                Code::ResourceExhausted,
                "RATE_LIMITED",
            ),
            (
                LimitKind::CreatesPerMinute,
                Code::ResourceExhausted,
                "CREATION_QUOTA",
            ),
            (
                LimitKind::LiveMatches,
                Code::ResourceExhausted,
                "LIVE_MATCH_LIMIT",
            ),
        ] {
            let status = refusal_status(&Refusal {
                kind,
                key: "cred-1".into(),
                tenant: None,
                limit: 7,
                retry_after: Duration::from_millis(250),
                log: None,
            });
            assert_eq!(status.code(), code, "{kind:?}");
            let details = status.get_error_details();
            let info = details.error_info().expect("ErrorInfo");
            assert_eq!(info.reason, reason);
            assert_eq!(info.domain, DOMAIN);
            assert_eq!(info.metadata["limit"], kind.name());
            assert_eq!(info.metadata["max"], "7");
            assert_eq!(info.metadata["credential"], "cred-1");
            assert_eq!(info.metadata["retry_after_ms"], "250");
            let retry = details.retry_info().expect("RetryInfo");
            assert_eq!(retry.retry_delay, Some(Duration::from_millis(250)));
        }
    }

    #[test]
    fn a_refusal_by_a_tenants_limit_names_the_tenant_and_the_wait() {
        for (kind, reason) in [
            (LimitKind::TenantCreatesPerMinute, "CREATION_QUOTA"),
            (LimitKind::TenantLiveMatches, "LIVE_MATCH_LIMIT"),
        ] {
            let status = refusal_status(&Refusal {
                kind,
                key: "cred-1".into(),
                tenant: Some("spring".into()),
                limit: 4,
                retry_after: Duration::from_millis(1500),
                log: None,
            });
            assert_eq!(status.code(), Code::ResourceExhausted, "{kind:?}");
            assert!(
                status.message().contains("tenant `spring`")
                    && status.message().contains("1500 ms"),
                "{}",
                status.message()
            );
            let info = status.get_details_error_info().expect("ErrorInfo");
            assert_eq!(info.reason, reason);
            assert_eq!(info.metadata["limit"], kind.name());
            assert_eq!(info.metadata["tenant"], "spring");
            assert_eq!(info.metadata["credential"], "cred-1");
            assert_eq!(info.metadata["max"], "4");
        }
    }

    #[test]
    fn the_layer_sends_its_reasons_of_the_table() {
        let mut statuses: Vec<Status> = [
            LimitKind::ServerCalls,
            LimitKind::CredentialCalls,
            LimitKind::CredentialRate,
            LimitKind::CreatesPerMinute,
            LimitKind::LiveMatches,
        ]
        .into_iter()
        .map(|kind| {
            refusal_status(&Refusal {
                kind,
                key: "anonymous".into(),
                tenant: None,
                limit: 1,
                retry_after: Duration::from_millis(1),
                log: None,
            })
        })
        .collect();
        statuses.push(timed_out(Duration::from_secs(1)));
        statuses.push(client_cert_required());
        let mut trailers = HeaderMap::new();
        Status::out_of_range(REPLY_TOO_LARGE_PREFIX)
            .add_header(&mut trailers)
            .unwrap();
        explain_reply_too_large(&mut trailers);
        statuses.push(Status::from_header_map(&trailers).expect("a status"));
        let mut sent: Vec<String> = statuses
            .iter()
            .map(|status| status.get_details_error_info().expect("ErrorInfo").reason)
            .collect();
        sent.sort();
        let mut table: Vec<String> = REASONS
            .iter()
            .map(|reason| reason.name().expect("a host reason").to_string())
            .collect();
        table.sort();
        assert_eq!(sent, table);
        let timeout = timed_out(Duration::from_millis(1500));
        assert_eq!(timeout.code(), Code::DeadlineExceeded);
        assert_eq!(
            timeout
                .get_details_error_info()
                .expect("ErrorInfo")
                .metadata["timeout_ms"],
            "1500"
        );
    }

    #[test]
    fn a_reply_over_the_cap_is_reported_as_resource_exhausted() {
        let mut trailers = HeaderMap::new();
        Status::out_of_range(format!(
            "{REPLY_TOO_LARGE_PREFIX}: found 10 bytes, the limit is: 5 bytes"
        ))
        .add_header(&mut trailers)
        .unwrap();
        explain_reply_too_large(&mut trailers);
        let status = Status::from_header_map(&trailers).expect("a status");
        assert_eq!(status.code(), Code::ResourceExhausted);
        assert!(
            status.message().contains("found 10 bytes"),
            "{}",
            status.message()
        );
        assert_eq!(
            status.get_details_error_info().expect("ErrorInfo").reason,
            "REPLY_TOO_LARGE"
        );
        let mut other = HeaderMap::new();
        Status::out_of_range("something else")
            .add_header(&mut other)
            .unwrap();
        explain_reply_too_large(&mut other);
        assert_eq!(
            Status::from_header_map(&other).map(|s| s.code()),
            Some(Code::OutOfRange)
        );
    }
}
