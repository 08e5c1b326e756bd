//! Any host answers any call: a call about a match another live host of the
//! shared store holds is forwarded to that host, as the gRPC call it is
//! (headers, credentials and body unchanged, the answer or stream relayed
//! back), so the owner authenticates the caller itself and the caller's
//! identity is kept.
//!
//! The layer reads the match id from the request's message (the field each
//! method keeps it in, `MATCH_FIELD`), serves the call here when this
//! host holds the match or nobody does (the engine then takes its lease),
//! and otherwise forwards it to the holder's advertised address. A match
//! nobody holds whose plugin build this host lacks, and a creation of a
//! game this host has not loaded (or an import of its record), go to a
//! host that has it (each host
//! writes its builds into the database). A holder
//! that cannot be reached (it died, or is stopping) is asked for again
//! every `RETRY_EVERY` until its lease runs out and this host takes the
//! match over, for at most the lease time and a second: a caller sees the
//! failover as a slow answer, not an error. A forwarded call carries the
//! store's cluster key ([`FORWARDED`]); it is never forwarded again, and a
//! call that presents a wrong key is refused. A host that serves TLS
//! advertises an `https://` address, and calls reach it over TLS, its
//! certificate checked against the peer CA ([`Cluster::peer_tls`]), so the
//! caller's credential and the cluster key never cross the network
//! readable.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderValue, Request, Response};
use http_body::Frame;
use http_body_util::{BodyExt, Full, Limited};
use tonic::Status;
use tonic::body::Body;
use tonic::transport::{Channel, ClientTlsConfig, Endpoint};
use tower::{Layer, Service, ServiceExt};

use super::layer::code_of;
use crate::engine::Engine;

/// The header a forwarded call carries: the store's cluster key, hex.
pub const FORWARDED: &str = "x-tabletop-forwarded";

/// How often a forwarding host asks again who holds a match whose holder
/// cannot be reached.
const RETRY_EVERY: Duration = Duration::from_millis(200);

/// The largest request message read to find its match id: requests about a
/// match are small (the largest, ImportRecord, names no match).
const MAX_REQUEST_BYTES: usize = 1 << 20;

/// The field number of the match id in each method's request that names
/// one match (the rest are served where they arrive: listings and the
/// feed read the shared store).
const MATCH_FIELD: [(&str, u32); 15] = [
    ("/tabletop.v1.Matches/JoinMatch", 1),
    ("/tabletop.v1.Matches/GetView", 1),
    ("/tabletop.v1.Matches/ListLegalActions", 1),
    ("/tabletop.v1.Matches/SubmitAction", 1),
    ("/tabletop.v1.Matches/Resign", 1),
    ("/tabletop.v1.Matches/ExportRecord", 1),
    ("/tabletop.v1.Watch/WatchMatch", 1),
    ("/tabletop.v1.Watch/ListEvents", 1),
    ("/tabletop.v1.Director/AbortMatch", 2),
    ("/tabletop.v1.Director/AdjudicateMatch", 2),
    ("/tabletop.v1.Director/PauseMatch", 2),
    ("/tabletop.v1.Director/ResumeMatch", 2),
    ("/tabletop.v1.Director/AddTime", 2),
    ("/tabletop.v1.Director/ReissueSeatToken", 2),
    ("/tabletop.v1.Admin/LiftQuarantine", 2),
];

fn match_field(path: &str) -> Option<u32> {
    MATCH_FIELD
        .iter()
        .find(|(method, _)| *method == path)
        .map(|(_, field)| *field)
}

/// The hosts of one shared store, as one of them sees the others.
#[derive(Debug, Clone)]
pub struct Cluster {
    /// The key every host of the store holds, proving a forwarded call.
    pub key: [u8; 32],
    /// How long a host's leases last past its last heartbeat.
    pub lease: Duration,
    /// How the certificates of hosts that serve TLS are checked.
    pub peer_tls: ClientTlsConfig,
}

/// The cluster key as the header value a forwarded call carries.
fn key_header(key: &[u8; 32]) -> HeaderValue {
    let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
    HeaderValue::from_str(&hex).unwrap_or_else(|_| HeaderValue::from_static("-"))
}

/// Whether a call was forwarded by another host of the store: it carries
/// the cluster key.
pub fn from_peer(headers: &http::HeaderMap, key: &[u8; 32]) -> bool {
    headers
        .get(FORWARDED)
        .is_some_and(|presented| *presented == key_header(key))
}

/// What the forwarding needs: the engine (who holds a match), the key
/// hosts prove themselves with, and a channel per peer.
#[derive(Debug)]
pub struct Forwarding {
    engine: Arc<Engine>,
    key: HeaderValue,
    /// How long a call waits for an unreachable holder's lease to run out.
    patience: Duration,
    peer_tls: ClientTlsConfig,
    channels: Mutex<HashMap<String, Channel>>,
}

impl Forwarding {
    /// Forwarding among the hosts of `cluster`.
    pub fn new(engine: Arc<Engine>, cluster: Cluster) -> Forwarding {
        Forwarding {
            engine,
            key: key_header(&cluster.key),
            patience: cluster.lease + Duration::from_secs(1),
            peer_tls: cluster.peer_tls,
            channels: Mutex::new(HashMap::new()),
        }
    }

    /// The channel to the host advertised at `address`: `https://…` over
    /// TLS, a bare `HOST:PORT` in plaintext.
    fn channel(&self, address: &str) -> Result<Channel, Status> {
        let mut channels = self.channels.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(channel) = channels.get(address) {
            return Ok(channel.clone());
        }
        let bad = |e: &dyn std::fmt::Display| {
            Status::internal(format!("a host advertises a bad address {address}: {e}"))
        };
        let endpoint = if address.starts_with("https://") {
            Endpoint::from_shared(address.to_string())
                .map_err(|e| bad(&e))?
                .tls_config(self.peer_tls.clone())
                .map_err(|e| bad(&e))?
        } else {
            Endpoint::from_shared(format!("http://{address}")).map_err(|e| bad(&e))?
        };
        let channel = endpoint
            .connect_timeout(Duration::from_secs(1))
            .tcp_nodelay(true)
            .connect_lazy();
        channels.insert(address.to_string(), channel.clone());
        Ok(channel)
    }
}

/// The layer; without [`Forwarding`] (a store only this host opens) it
/// passes every call through.
#[derive(Debug, Clone)]
pub struct ForwardLayer {
    forwarding: Option<Arc<Forwarding>>,
}

impl ForwardLayer {
    /// Forwards with `forwarding`, or never.
    pub fn new(forwarding: Option<Arc<Forwarding>>) -> ForwardLayer {
        ForwardLayer { forwarding }
    }
}

impl<S> Layer<S> for ForwardLayer {
    type Service = Forward<S>;

    fn layer(&self, inner: S) -> Forward<S> {
        Forward {
            inner,
            forwarding: self.forwarding.clone(),
        }
    }
}

/// The service the layer wraps around the routes.
#[derive(Debug, Clone)]
pub struct Forward<S> {
    inner: S,
    forwarding: Option<Arc<Forwarding>>,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S> Service<Request<Body>> for Forward<S>
where
    S: Service<Request<Body>, Response = Response<Body>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Response<Body>, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        // The clone answers this call; `self.inner` stays ready for the
        // next (tower's rule for a service polled ready).
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let path = request.uri().path();
        let routed = match_field(path).map(Routed::Match).or(match path {
            CREATE_MATCH => Some(Routed::Game),
            IMPORT_RECORD => Some(Routed::Record),
            _ => None,
        });
        let (Some(forwarding), Some(routed)) = (self.forwarding.clone(), routed) else {
            return Box::pin(inner.call(request));
        };
        if let Some(presented) = request.headers().get(FORWARDED) {
            // From another host: served here, whoever holds the match now.
            if *presented == forwarding.key {
                return Box::pin(inner.call(request));
            }
            let refused = Status::unauthenticated("a forwarded call with a wrong cluster key");
            return Box::pin(std::future::ready(Ok(refused.into_http())));
        }
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let limit = match routed {
                Routed::Record => MAX_RECORD_REQUEST_BYTES,
                _ => MAX_REQUEST_BYTES,
            };
            let bytes = match Limited::new(body, limit).collect().await {
                Ok(collected) => collected.to_bytes(),
                Err(_) => {
                    let refused = Status::invalid_argument("the request could not be read");
                    return Ok(refused.into_http());
                }
            };
            let local_body = |bytes: Bytes| Body::new(Full::new(bytes).map_err(|e| match e {}));
            // What the call is about; a call served here needs nothing
            // kept to send it on (most calls: a held match, a game loaded).
            let about = match routed {
                Routed::Match(field) => string_field(&bytes, field).map(About::Match),
                Routed::Game | Routed::Record => routed.game(&bytes).map(About::Game),
            };
            let served_here = match &about {
                // Names none: the handler says why.
                None => true,
                Some(About::Match(match_id)) => forwarding.engine.holds(match_id),
                Some(About::Game((game, version))) => {
                    forwarding.engine.has_game(game, version.as_deref())
                }
            };
            let (false, Some(about)) = (served_here, about) else {
                return inner
                    .call(Request::from_parts(parts, local_body(bytes)))
                    .await;
            };
            let call = Call {
                method: parts.method.clone(),
                uri: parts.uri.clone(),
                version: parts.version,
                headers: parts.headers.clone(),
                bytes: bytes.clone(),
            };
            let local = Request::from_parts(parts, local_body(bytes));
            let match_id = match about {
                About::Match(match_id) => match_id,
                // A game not loaded here is created (or a record of it
                // imported) where it is.
                About::Game((game, version)) => {
                    let engine = Arc::clone(&forwarding.engine);
                    let elsewhere = tokio::task::spawn_blocking(move || {
                        engine.host_with_game(&game, version.as_deref())
                    })
                    .await
                    .ok()
                    .flatten();
                    return match elsewhere {
                        Some(address) => Ok(forwarding
                            .relay(&address, &call, "")
                            .await
                            .unwrap_or_else(|e| Status::unavailable(e).into_http())),
                        None => inner.call(local).await,
                    };
                }
            };
            let started = Instant::now();
            loop {
                if forwarding.engine.holds(&match_id) {
                    return inner.call(local).await;
                }
                let engine = Arc::clone(&forwarding.engine);
                let id = match_id.clone();
                let holder = tokio::task::spawn_blocking(move || engine.holder(&id))
                    .await
                    .ok()
                    .and_then(Result::ok)
                    .flatten();
                let Some(holder) = holder else {
                    // Nobody else holds it (or the store cannot say): the
                    // engine takes it, or answers why not; when that is for
                    // want of the match's plugin build, a host that has it
                    // serves the call.
                    let response = inner.call(local).await?;
                    if !is_unavailable(response.headers()) || forwarding.engine.holds(&match_id) {
                        return Ok(response);
                    }
                    let engine = Arc::clone(&forwarding.engine);
                    let id = match_id.clone();
                    let placed =
                        tokio::task::spawn_blocking(move || engine.host_with_build_of(&id))
                            .await
                            .ok()
                            .flatten();
                    return match placed {
                        Some(address) => Ok(forwarding
                            .relay(&address, &call, &match_id)
                            .await
                            .unwrap_or(response)),
                        None => Ok(response),
                    };
                };
                let failure = match forwarding.relay(&holder.address, &call, &match_id).await {
                    Ok(response) => return Ok(response),
                    Err(failure) => failure,
                };
                if started.elapsed() > forwarding.patience {
                    tracing::warn!(match_id, holder = %holder.address, error = %failure, "the host holding the match cannot be reached");
                    let status =
                        crate::grpc::status::to_status(tabletop_core::HostError::MatchMoved {
                            match_id,
                        });
                    return Ok(status.into_http());
                }
                tracing::debug!(match_id, holder = %holder.address, error = %failure, "the host holding the match cannot be reached; asking again");
                tokio::time::sleep(RETRY_EVERY).await;
            }
        })
    }
}

/// The path of CreateMatch, routed by its game.
const CREATE_MATCH: &str = "/tabletop.v1.Matches/CreateMatch";

/// The path of ImportRecord, routed by the game its record names.
const IMPORT_RECORD: &str = "/tabletop.v1.Matches/ImportRecord";

/// The largest ImportRecord request read: a record of at most 4 MiB (the
/// import's own bound), with room for the rest of the message.
const MAX_RECORD_REQUEST_BYTES: usize = (4 << 20) + 4096;

/// How a call is routed: by the match its request names (in this field),
/// by the game a creation names, or by the game of an imported record.
#[derive(Debug, Clone, Copy)]
enum Routed {
    Match(u32),
    Game,
    Record,
}

impl Routed {
    /// The game (and version, if given) a creation or an imported record
    /// names; `None` for a call about a match, or an import whose record
    /// names none.
    fn game(self, body: &[u8]) -> Option<(String, Option<String>)> {
        match self {
            Routed::Match(_) => None,
            Routed::Game => Some((
                string_field(body, 1).unwrap_or_default(),
                string_field(body, 2),
            )),
            Routed::Record => string_field(body, 1)
                .as_deref()
                .and_then(recorded_game)
                .map(|(game, version)| (game, Some(version))),
        }
    }
}

/// The game and version a match record (JSON) names.
fn recorded_game(record_json: &str) -> Option<(String, String)> {
    #[derive(serde::Deserialize)]
    struct Named {
        game: String,
        plugin_version: String,
    }
    let named: Named = serde_json::from_str(record_json).ok()?;
    Some((named.game, named.plugin_version))
}

/// A call as received, to send on to another host.
struct Call {
    method: http::Method,
    uri: http::Uri,
    version: http::Version,
    headers: http::HeaderMap,
    bytes: Bytes,
}

/// What a routed call is about, read from its request.
enum About {
    /// The match it names.
    Match(String),
    /// The game (and version) a creation or an imported record names.
    Game((String, Option<String>)),
}

/// Whether headers (a trailers-only answer's, or trailers) carry the status
/// UNAVAILABLE.
fn is_unavailable(headers: &http::HeaderMap) -> bool {
    code_of(headers) == Some(tonic::Code::Unavailable as i32)
}

impl Forwarding {
    /// Sends `call` to the host at `address` with the cluster key and
    /// relays its answer (see [`Relayed`]); the failure when the host
    /// cannot be reached.
    async fn relay(
        &self,
        address: &str,
        call: &Call,
        match_id: &str,
    ) -> Result<Response<Body>, String> {
        let mut channel = self
            .channel(address)
            .map_err(|status| status.message().to_string())?;
        let mut forwarded = Request::builder()
            .method(call.method.clone())
            .uri(call.uri.clone())
            .version(call.version)
            .body(Body::new(
                Full::new(call.bytes.clone()).map_err(|e| match e {}),
            ))
            .map_err(|e| e.to_string())?;
        for (name, value) in &call.headers {
            if name != http::header::HOST {
                forwarded.headers_mut().append(name, value.clone());
            }
        }
        forwarded.headers_mut().insert(FORWARDED, self.key.clone());
        let ready = channel.ready().await.map_err(|e| e.to_string())?;
        let response = ready.call(forwarded).await.map_err(|e| e.to_string())?;
        let match_id = match_id.to_string();
        Ok(response.map(|body| {
            Body::new(Relayed {
                inner: body,
                match_id,
                ended: false,
            })
        }))
    }
}

/// The answer of the holder, relayed: a stream whose holder dies or stops
/// mid-way ends with UNAVAILABLE, reason MATCH_MOVED (a client resumes it
/// after its last event, through any host), not with the broken
/// connection's INTERNAL or the holder's SHUTTING_DOWN, since the host the
/// client called goes on.
struct Relayed {
    inner: Body,
    match_id: String,
    ended: bool,
}

impl Relayed {
    fn moved(&mut self) -> Frame<Bytes> {
        self.ended = true;
        let status = crate::grpc::status::to_status(tabletop_core::HostError::MatchMoved {
            match_id: self.match_id.clone(),
        });
        let mut trailers = http::HeaderMap::new();
        let _ = status.add_header(&mut trailers);
        Frame::trailers(trailers)
    }
}

impl http_body::Body for Relayed {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        if self.ended {
            return Poll::Ready(None);
        }
        match Pin::new(&mut self.inner).poll_frame(cx) {
            Poll::Ready(Some(Err(_))) => Poll::Ready(Some(Ok(self.moved()))),
            Poll::Ready(Some(Ok(frame))) => match frame.into_trailers() {
                Ok(trailers) => {
                    if is_unavailable(&trailers) {
                        Poll::Ready(Some(Ok(self.moved())))
                    } else {
                        self.ended = true;
                        Poll::Ready(Some(Ok(Frame::trailers(trailers))))
                    }
                }
                Err(frame) => Poll::Ready(Some(Ok(frame))),
            },
            other => other,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.ended || self.inner.is_end_stream()
    }
}

/// The string in field `field` of the top level of a gRPC request body
/// (one uncompressed message); `None` when the body is not one such
/// message or the field is empty or absent.
fn string_field(body: &[u8], field: u32) -> Option<String> {
    let (&compressed, rest) = body.split_first()?;
    if compressed != 0 || rest.len() < 4 {
        return None;
    }
    let (length, mut message) = rest.split_at(4);
    let length = u32::from_be_bytes(length.try_into().ok()?) as usize;
    if message.len() != length {
        return None;
    }
    let mut found = None;
    while !message.is_empty() {
        let key = varint(&mut message)?;
        let (number, wire) = ((key >> 3) as u32, key & 7);
        match wire {
            0 => {
                varint(&mut message)?;
            }
            1 => message = message.get(8..)?,
            5 => message = message.get(4..)?,
            2 => {
                let len = usize::try_from(varint(&mut message)?).ok()?;
                let value = message.get(..len)?;
                if number == field {
                    found = Some(String::from_utf8(value.to_vec()).ok()?);
                }
                message = &message[len..];
            }
            _ => return None,
        }
    }
    found.filter(|id| !id.is_empty())
}

/// Reads a protobuf varint off the front of `bytes`.
fn varint(bytes: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = bytes.split_first()?;
        *bytes = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use prost::Message;
    use tabletop_proto::v1::{AbortMatchRequest, SubmitActionRequest};

    use super::*;

    fn framed(message: &impl Message) -> Vec<u8> {
        let encoded = message.encode_to_vec();
        let mut body = vec![0];
        body.extend((encoded.len() as u32).to_be_bytes());
        body.extend(encoded);
        body
    }

    #[test]
    fn the_match_id_is_read_from_the_field_each_method_keeps_it_in() {
        let submit = SubmitActionRequest {
            match_id: "m-42".into(),
            seat_token: "secret".into(),
            ..Default::default()
        };
        let path = "/tabletop.v1.Matches/SubmitAction";
        assert_eq!(
            string_field(&framed(&submit), match_field(path).unwrap()).as_deref(),
            Some("m-42")
        );
        let abort = AbortMatchRequest {
            match_id: "m-7".into(),
            reason: "m-8".into(),
            ..Default::default()
        };
        let path = "/tabletop.v1.Director/AbortMatch";
        assert_eq!(
            string_field(&framed(&abort), match_field(path).unwrap()).as_deref(),
            Some("m-7")
        );
    }

    #[test]
    fn an_imported_record_is_routed_by_the_game_and_version_it_names() {
        let record =
            r#"{"format":"tabletop-record/1","game":"war","plugin_version":"1.2.0","players":2}"#;
        assert_eq!(
            recorded_game(record),
            Some(("war".to_string(), "1.2.0".to_string()))
        );
        assert_eq!(recorded_game("not json"), None);
        assert_eq!(recorded_game(r#"{"game":"war"}"#), None);
    }

    #[test]
    fn a_body_that_is_not_one_plain_message_names_no_match() {
        let submit = SubmitActionRequest {
            match_id: "m-42".into(),
            ..Default::default()
        };
        let mut body = framed(&submit);
        assert_eq!(string_field(&body[..body.len() - 1], 1), None, "cut short");
        body[0] = 1;
        assert_eq!(string_field(&body, 1), None, "compressed");
        assert_eq!(string_field(&[0, 0, 0, 0, 3, 0xff, 0xff, 0xff], 1), None);
        assert_eq!(string_field(&[], 1), None);
        assert_eq!(match_field("/tabletop.v1.Matches/ListMatches"), None);
    }
}
