//! The baseline: a tonic service that only moves bytes, driven exactly like
//! engine-host (same workers, connections, and per action the same two round
//! trips with the same average payload sizes), so a throughput figure can be
//! given as a ratio to what tonic alone does on this machine at that moment.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use tonic::transport::Channel;
use tonic::{Request, Response, Status};

use crate::load::Drive;
use crate::stats::{self, Live, Sizes};

/// Generated from proto/echo.proto.
#[allow(missing_docs, clippy::all)]
pub mod pb {
    tonic::include_proto!("tabletop.bench.v1");
}

use pb::echo_client::EchoClient;
use pb::echo_server::{Echo, EchoServer};

/// Largest reply the server agrees to build (a bad request must not OOM it).
const MAX_REPLY: u32 = 16 << 20;

#[derive(Debug, Default)]
struct Service;

#[tonic::async_trait]
impl Echo for Service {
    async fn echo(
        &self,
        request: Request<pb::EchoRequest>,
    ) -> Result<Response<pb::EchoReply>, Status> {
        let size = request.into_inner().reply_size;
        if size > MAX_REPLY {
            return Err(Status::invalid_argument(format!(
                "reply_size {size} is over the limit of {MAX_REPLY}"
            )));
        }
        Ok(Response::new(pb::EchoReply {
            payload: vec![b'x'; size as usize],
        }))
    }
}

/// Serves the echo service on `listener` until the process is stopped,
/// with the same tonic server settings as engine-host's defaults.
pub async fn serve(listener: tokio::net::TcpListener) -> Result<(), String> {
    let incoming = engine_host::grpc::incoming_nodelay(listener);
    tonic::transport::Server::builder()
        .add_service(
            EchoServer::new(Service)
                .max_decoding_message_size(MAX_REPLY as usize * 2)
                .max_encoding_message_size(MAX_REPLY as usize * 2),
        )
        .serve_with_incoming(incoming)
        .await
        .map_err(|e| format!("echo server failed: {e}"))
}

/// Drives the echo service for `drive.duration`: per "action" one round trip
/// sized like ListLegalActions and one sized like SubmitAction.
pub async fn run(sizes: Sizes, drive: &Drive, live: Arc<Live>) {
    let deadline = Instant::now() + drive.duration;
    let mut tasks = tokio::task::JoinSet::new();
    for worker in 0..drive.players {
        let channel: Channel = drive.channels[worker % drive.channels.len()].clone();
        let live = live.clone();
        tasks.spawn(async move {
            let mut client = EchoClient::new(channel).max_decoding_message_size(64 << 20);
            let mut histogram = stats::new_histogram();
            // Request payload = the compared request's size minus the
            // reply_size field (a few bytes), so both encode to about the same.
            let pad = |n: u64| vec![b'x'; n.saturating_sub(6) as usize];
            let legal = pb::EchoRequest {
                payload: pad(sizes.legal_request),
                reply_size: sizes.legal_response.saturating_sub(3) as u32,
            };
            let submit = pb::EchoRequest {
                payload: pad(sizes.submit_request),
                reply_size: sizes.submit_response.saturating_sub(3) as u32,
            };
            while Instant::now() < deadline {
                live.rpcs.fetch_add(2, Ordering::Relaxed);
                if let Err(status) = client.echo(legal.clone()).await {
                    live.error(&status);
                    continue;
                }
                let start = Instant::now();
                let result = client.echo(submit.clone()).await;
                stats::record(&mut histogram, start.elapsed());
                match result {
                    Ok(_) => {
                        live.actions.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(status) => live.error(&status),
                }
            }
            live.merge(&histogram);
        });
    }
    while tasks.join_next().await.is_some() {}
}
