//! The thin gRPC layer over the core, plus the standard companions: health
//! checking and server reflection (v1 and v1alpha, since grpcurl 1.8 speaks
//! only v1alpha); in front of them the tower layer with the limits, the
//! request spans and the metrics ([`layer`]), and TLS when configured
//! ([`tls`]). With a web listener the same services, behind the same
//! layer, are served to browsers over gRPC-web beside the page's files
//! ([`web`]). Every error status, a handler's or the layer's, is built
//! ([`status`]) from the table of reasons ([`reason`]).

pub mod auth;
mod convert;
pub mod cost;
pub mod director;
pub mod forward;
pub mod layer;
pub mod limits;
mod outbound;
pub mod pool_share;
pub mod reason;
mod seat_calls;
pub mod services;
pub mod status;
pub mod streams;
pub mod tls;
pub mod watch;
pub mod web;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tabletop_proto::v1::{
    admin_server::AdminServer, catalog_server::CatalogServer, director_server::DirectorServer,
    matches_server::MatchesServer, watch_server::WatchServer,
};
use tokio::net::TcpListener;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::server::NamedService;
use tonic::service::Routes;
use tonic_health::ServingStatus;
use tonic_health::server::HealthReporter;

use crate::engine::Engine;
use forward::{ForwardLayer, Forwarding};
use layer::{Guards, OpsLayer};
use limits::Limiter;
pub use outbound::StreamBudget;
use services::Api;
pub use streams::StreamCaps;

/// How the server is run, besides what it serves.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The deadline of a core call on the blocking pool.
    pub deadline: Duration,
    /// The limits every call passes.
    pub limiter: Arc<Limiter>,
    /// The request timeout and the Admin service's client certificates.
    pub guards: Guards,
    /// The largest reply a service sends; a larger one fails with
    /// RESOURCE_EXHAUSTED (reason REPLY_TOO_LARGE).
    pub max_reply_bytes: usize,
    /// TLS for the listeners; `None`: plaintext.
    pub tls: Option<tonic::transport::ServerTlsConfig>,
    /// How many streams may be open.
    pub stream_caps: StreamCaps,
    /// How much one stream queues, and for how long its client may leave
    /// its queue full.
    pub stream_budget: StreamBudget,
    /// Most of one caller's calls on the blocking pool at once (0: no
    /// limit; see [`pool_share`]).
    pub pool_calls_per_caller: usize,
    /// On a store several hosts share: how they forward calls to each
    /// other (see [`forward`]).
    pub cluster: Option<forward::Cluster>,
}

/// Notes the match a call is about, for the log lines written in it.
pub(crate) fn in_match(match_id: &str) {
    crate::logging::note_match(match_id);
}

/// How long calls in flight may take to finish after a shutdown signal: a
/// unary call stuck in a plugin, or a Watch stream whose client does not read
/// its last message, holds the shutdown no longer than this.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Serves the API on `listener` (and, with `web`, the web page and the API
/// over gRPC-web on that one) until `shutdown` resolves, then shuts down
/// gracefully: no new connections, every open Watch stream ends at once with
/// UNAVAILABLE (ErrorInfo reason SHUTTING_DOWN), unary calls in flight finish,
/// and the server stops as soon as they have, after [`SHUTDOWN_GRACE`] at
/// most.
pub async fn serve(
    engine: Arc<Engine>,
    listener: TcpListener,
    web: Option<TcpListener>,
    options: ServeOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let (draining_tx, draining_rx) = tokio::sync::watch::channel(false);
    let ops = OpsLayer::new(
        Arc::clone(&engine),
        options.limiter,
        options.guards,
        &[
            tabletop_proto::FILE_DESCRIPTOR_SET,
            tonic_health::pb::FILE_DESCRIPTOR_SET,
            tonic_reflection::pb::v1::FILE_DESCRIPTOR_SET,
            tonic_reflection::pb::v1alpha::FILE_DESCRIPTOR_SET,
        ],
    );
    let forwarding = ForwardLayer::new(
        options
            .cluster
            .map(|cluster| Arc::new(Forwarding::new(Arc::clone(&engine), cluster))),
    );
    let store_reachable = engine.store_reachable();
    let api = Api::new(engine, options.deadline, draining_rx.clone())
        .with_streams(options.stream_caps, options.stream_budget)
        .with_pool_shares(options.pool_calls_per_caller);
    let max_reply = options.max_reply_bytes;
    let (health_reporter, health_service) = tonic_health::server::health_reporter();
    report_health(&health_reporter, *store_reachable.borrow()).await;
    tokio::spawn(follow_store_reachability(
        health_reporter.clone(),
        store_reachable,
    ));
    let reflection_v1 = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(tabletop_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;
    let reflection_v1alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(tabletop_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1alpha()?;
    let routes = Routes::new(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(CatalogServer::new(api.clone()).max_encoding_message_size(max_reply))
        .add_service(MatchesServer::new(api.clone()).max_encoding_message_size(max_reply))
        .add_service(WatchServer::new(api.clone()).max_encoding_message_size(max_reply))
        .add_service(DirectorServer::new(api.clone()).max_encoding_message_size(max_reply))
        .add_service(AdminServer::new(api).max_encoding_message_size(max_reply));
    let local: Option<SocketAddr> = listener.local_addr().ok();
    tracing::info!(address = ?local, "serving");
    let (signalled_tx, signalled_rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        shutdown.await;
        // Watch streams never end by themselves: end them now, so that the
        // drain waits only for unary calls.
        let _ = draining_tx.send(true);
        let _ = signalled_tx.send(());
    });
    let stopping = move |mut draining: tokio::sync::watch::Receiver<bool>| async move {
        let _ = draining.wait_for(|draining| *draining).await;
    };
    let mut builder = tonic::transport::Server::builder();
    if let Some(tls) = &options.tls {
        builder = builder.tls_config(tls.clone())?;
    }
    let grpc = builder
        .layer(ops.clone())
        .layer(forwarding.clone())
        .add_routes(routes.clone())
        .serve_with_incoming_shutdown(incoming_nodelay(listener), stopping(draining_rx.clone()));
    let web = match web {
        Some(listener) => {
            // The page's files first, then gRPC-web turned into gRPC, so the
            // ops layer sees every browser call as the gRPC call it is.
            let mut builder = tonic::transport::Server::builder().accept_http1(true);
            if let Some(tls) = options.tls {
                builder = builder.tls_config(tls)?;
            }
            let served = builder
                .layer(web::WebPageLayer)
                .layer(tonic_web::GrpcWebLayer::new())
                .layer(ops)
                .layer(forwarding)
                .add_routes(routes)
                .serve_with_incoming_shutdown(incoming_nodelay(listener), stopping(draining_rx));
            Some(served)
        }
        None => None,
    };
    let served = async move {
        let web = async move {
            match web {
                Some(web) => web.await,
                None => Ok(()),
            }
        };
        tokio::try_join!(grpc, web).map(|_| ())
    };
    let deadline = async move {
        if signalled_rx.await.is_ok() {
            tokio::time::sleep(SHUTDOWN_GRACE).await;
        } else {
            std::future::pending::<()>().await;
        }
    };
    tokio::select! {
        served = served => served?,
        () = deadline => {
            tracing::warn!(grace = ?SHUTDOWN_GRACE, "connections still open after the grace period; closing them");
        }
    }
    Ok(())
}

/// The health of the server and of every service it serves: SERVING while
/// the match store reaches its database, NOT_SERVING while it does not
/// (every call that stores anything is refused meanwhile, so a load
/// balancer should send calls elsewhere).
async fn report_health(reporter: &HealthReporter, store_reachable: bool) {
    let status = if store_reachable {
        ServingStatus::Serving
    } else {
        ServingStatus::NotServing
    };
    for service in [
        "",
        <CatalogServer<Api> as NamedService>::NAME,
        <MatchesServer<Api> as NamedService>::NAME,
        <WatchServer<Api> as NamedService>::NAME,
        <AdminServer<Api> as NamedService>::NAME,
        <DirectorServer<Api> as NamedService>::NAME,
    ] {
        reporter.set_service_status(service, status).await;
    }
}

/// Reports the health anew each time the store's reachability changes,
/// until the store stops telling (a store that is always reachable tells
/// nothing after its first value).
async fn follow_store_reachability(
    reporter: HealthReporter,
    mut reachable: tokio::sync::watch::Receiver<bool>,
) {
    while reachable.changed().await.is_ok() {
        let now = *reachable.borrow_and_update();
        report_health(&reporter, now).await;
    }
}

/// The connections accepted on `listener`, each with TCP_NODELAY set. Serving
/// our own listener means tonic's `tcp_nodelay` setting does not apply, and
/// without it Nagle's algorithm holds a small response back until the
/// client's delayed ACK (~40 ms on Linux): every call waited for it.
pub fn incoming_nodelay(
    listener: TcpListener,
) -> impl tokio_stream::Stream<Item = std::io::Result<tokio::net::TcpStream>> {
    TcpListenerStream::new(listener).map(|accepted| {
        if let Ok(stream) = &accepted
            && let Err(e) = stream.set_nodelay(true)
        {
            tracing::warn!(error = %e, "could not set TCP_NODELAY");
        }
        accepted
    })
}

#[cfg(test)]
mod tests {
    use tonic_health::pb::health_check_response::ServingStatus as Sent;
    use tonic_health::pb::health_server::Health;
    use tonic_health::pb::{HealthCheckRequest, HealthCheckResponse};
    use tonic_health::server::HealthService;

    use super::*;

    async fn status(health: &HealthService, service: &str) -> i32 {
        let request = tonic::Request::new(HealthCheckRequest {
            service: service.into(),
        });
        let response: HealthCheckResponse = health.check(request).await.unwrap().into_inner();
        response.status
    }

    #[tokio::test]
    async fn health_follows_whether_the_store_reaches_its_database() {
        let (reachable_tx, reachable) = tokio::sync::watch::channel(true);
        let reporter = HealthReporter::new();
        report_health(&reporter, *reachable.borrow()).await;
        let following = tokio::spawn(follow_store_reachability(reporter.clone(), reachable));
        let health = HealthService::from_health_reporter(reporter);
        let matches = <MatchesServer<Api> as NamedService>::NAME;
        assert_eq!(status(&health, "").await, Sent::Serving as i32);
        assert_eq!(status(&health, matches).await, Sent::Serving as i32);

        let changes_to = |up: bool| {
            reachable_tx.send_replace(up);
            let health = &health;
            async move {
                let wanted = if up { Sent::Serving } else { Sent::NotServing } as i32;
                for _ in 0..200 {
                    if status(health, "").await == wanted && status(health, matches).await == wanted
                    {
                        return true;
                    }
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                false
            }
        };
        assert!(
            changes_to(false).await,
            "NOT_SERVING while the database is away"
        );
        assert!(changes_to(true).await, "SERVING again once it is back");
        drop(reachable_tx);
        following.await.unwrap();
    }
}
