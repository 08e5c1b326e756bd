//! Any host answers any call: a call about a match another live host of the
//! shared store holds is forwarded to that host, as the gRPC call it is
//! (headers, credentials and body unchanged, the answer or stream relayed
//! back), so the owner authenticates the caller itself and the caller's
//! identity is kept.
//!
//! The layer reads the match id from the request's message (the field each
//! method keeps it in, [`MATCH_FIELD`]), serves the call here when this
//! host holds the match or nobody does (the engine then takes its lease),
//! and otherwise forwards it to the holder's advertised address. A holder
//! that cannot be reached (it died, or is stopping) is asked for again
//! every [`RETRY_EVERY`] until its lease runs out and this host takes the
//! match over, for at most the lease time and a second: a caller sees the
//! failover as a slow answer, not an error. A forwarded call carries the
//! store's cluster key ([`FORWARDED`]); it is never forwarded again, and a
//! call that presents a wrong key is refused.

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
use tonic::transport::{Channel, Endpoint};
use tower::{Layer, Service, ServiceExt};

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
const MATCH_FIELD: [(&str, u32); 14] = [
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
];

/// The methods that name a match beside [`MATCH_FIELD`]'s.
const MORE_MATCH_FIELDS: [(&str, u32); 1] = [("/tabletop.v1.Admin/LiftQuarantine", 2)];

fn match_field(path: &str) -> Option<u32> {
    MATCH_FIELD
        .iter()
        .chain(MORE_MATCH_FIELDS.iter())
        .find(|(method, _)| *method == path)
        .map(|(_, field)| *field)
}

/// What the forwarding needs: the engine (who holds a match), the key
/// hosts prove themselves with, and a channel per peer.
#[derive(Debug)]
pub struct Forwarding {
    engine: Arc<Engine>,
    key: HeaderValue,
    /// How long a call waits for an unreachable holder's lease to run out.
    patience: Duration,
    channels: Mutex<HashMap<String, Channel>>,
}

impl Forwarding {
    /// Forwarding among the hosts that hold `cluster_key`, whose leases
    /// last `lease`.
    pub fn new(engine: Arc<Engine>, cluster_key: [u8; 32], lease: Duration) -> Forwarding {
        let hex: String = cluster_key.iter().map(|b| format!("{b:02x}")).collect();
        Forwarding {
            engine,
            key: HeaderValue::from_str(&hex).unwrap_or_else(|_| HeaderValue::from_static("-")),
            patience: lease + Duration::from_secs(1),
            channels: Mutex::new(HashMap::new()),
        }
    }

    fn channel(&self, address: &str) -> Result<Channel, Status> {
        let mut channels = self.channels.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(channel) = channels.get(address) {
            return Ok(channel.clone());
        }
        let channel = Endpoint::from_shared(format!("http://{address}"))
            .map_err(|e| {
                Status::internal(format!("a host advertises a bad address {address}: {e}"))
            })?
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
        let (Some(forwarding), Some(field)) =
            (self.forwarding.clone(), match_field(request.uri().path()))
        else {
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
            let bytes = match Limited::new(body, MAX_REQUEST_BYTES).collect().await {
                Ok(collected) => collected.to_bytes(),
                Err(_) => {
                    let refused = Status::invalid_argument("the request could not be read");
                    return Ok(refused.into_http());
                }
            };
            let local = |parts, bytes: Bytes| {
                Request::from_parts(parts, Body::new(Full::new(bytes).map_err(|e| match e {})))
            };
            let Some(match_id) = match_id_of(&bytes, field) else {
                return inner.call(local(parts, bytes)).await;
            };
            let started = Instant::now();
            loop {
                if forwarding.engine.holds(&match_id) {
                    return inner.call(local(parts, bytes)).await;
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
                    // engine takes it, or answers why not.
                    return inner.call(local(parts, bytes)).await;
                };
                let failure = match forwarding.channel(&holder.address) {
                    Ok(mut channel) => {
                        let mut forwarded = Request::builder()
                            .method(parts.method.clone())
                            .uri(parts.uri.clone())
                            .version(parts.version)
                            .body(Body::new(Full::new(bytes.clone()).map_err(|e| match e {})))
                            .unwrap_or_default();
                        for (name, value) in &parts.headers {
                            if name != http::header::HOST {
                                forwarded.headers_mut().append(name, value.clone());
                            }
                        }
                        forwarded
                            .headers_mut()
                            .insert(FORWARDED, forwarding.key.clone());
                        let answer = match channel.ready().await {
                            Ok(ready) => ready.call(forwarded).await,
                            Err(e) => Err(e),
                        };
                        match answer {
                            Ok(response) => {
                                return Ok(response.map(|body| {
                                    Body::new(Relayed {
                                        inner: body,
                                        match_id: match_id.clone(),
                                        ended: false,
                                    })
                                }));
                            }
                            Err(e) => e.to_string(),
                        }
                    }
                    Err(status) => return Ok(status.into_http()),
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
                    let unavailable = trailers
                        .get("grpc-status")
                        .is_some_and(|code| code.as_bytes() == b"14");
                    if unavailable {
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

/// The match id in a gRPC request body (one uncompressed message): the
/// string in field `field` of the message's top level; `None` when the body
/// is not one such message or names no match.
fn match_id_of(body: &[u8], field: u32) -> Option<String> {
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
            match_id_of(&framed(&submit), match_field(path).unwrap()).as_deref(),
            Some("m-42")
        );
        let abort = AbortMatchRequest {
            match_id: "m-7".into(),
            reason: "m-8".into(),
            ..Default::default()
        };
        let path = "/tabletop.v1.Director/AbortMatch";
        assert_eq!(
            match_id_of(&framed(&abort), match_field(path).unwrap()).as_deref(),
            Some("m-7")
        );
    }

    #[test]
    fn a_body_that_is_not_one_plain_message_names_no_match() {
        let submit = SubmitActionRequest {
            match_id: "m-42".into(),
            ..Default::default()
        };
        let mut body = framed(&submit);
        assert_eq!(match_id_of(&body[..body.len() - 1], 1), None, "cut short");
        body[0] = 1;
        assert_eq!(match_id_of(&body, 1), None, "compressed");
        assert_eq!(match_id_of(&[0, 0, 0, 0, 3, 0xff, 0xff, 0xff], 1), None);
        assert_eq!(match_id_of(&[], 1), None);
        assert_eq!(match_field("/tabletop.v1.Matches/ListMatches"), None);
    }
}
