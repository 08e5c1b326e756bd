//! The metrics endpoint: `GET /metrics` over plain HTTP/1.1 (hyper)
//! answers the Prometheus text; anything else is 404 (or 405 for another
//! method). One request per connection, its head read with a size and time
//! limit, so a scraper that stalls or sends junk holds nothing for long.

use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::Full;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use prometheus_client::encoding::prometheus_text::CONTENT_TYPE;
use tokio::net::{TcpListener, TcpStream};

use super::metrics;

/// Longest request head read, in bytes (hyper's smallest read buffer).
const MAX_REQUEST: usize = 8 * 1024;

/// Longest a connection may take to send its request head.
const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// Serves `GET /metrics` on `listener` until the task is dropped.
pub async fn serve(listener: TcpListener) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                tokio::spawn(answer(stream));
            }
            Err(e) => {
                tracing::warn!(error = %e, "metrics endpoint: accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// Answers one request on `stream`, then closes it.
async fn answer(stream: TcpStream) {
    let served = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(READ_TIMEOUT)
        .max_buf_size(MAX_REQUEST)
        .keep_alive(false)
        .serve_connection(
            TokioIo::new(stream),
            service_fn(|request| async move { Ok::<_, Infallible>(respond(&request)) }),
        )
        .await;
    if let Err(e) = served {
        tracing::debug!(error = %e, "metrics endpoint: a connection ended early");
    }
}

/// The answer to a request.
fn respond<B>(request: &Request<B>) -> Response<Full<Bytes>> {
    let (status, content_type, body) = match (request.method(), request.uri().path()) {
        (&Method::GET, "/metrics") => (StatusCode::OK, CONTENT_TYPE, metrics().render()),
        (_, "/metrics") => (
            StatusCode::METHOD_NOT_ALLOWED,
            "text/plain",
            "GET only\n".to_string(),
        ),
        _ => (
            StatusCode::NOT_FOUND,
            "text/plain",
            "the metrics are at /metrics\n".to_string(),
        ),
    };
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    fn request(method: Method, target: &str) -> Request<()> {
        Request::builder()
            .method(method)
            .uri(target)
            .body(())
            .unwrap()
    }

    #[test]
    fn only_get_metrics_answers_the_metrics() {
        let answer = respond(&request(Method::GET, "/metrics"));
        assert_eq!(answer.status(), StatusCode::OK);
        assert_eq!(
            answer.headers()[header::CONTENT_TYPE],
            "text/plain; version=0.0.4; charset=utf-8"
        );
        assert_eq!(
            respond(&request(Method::GET, "/metrics?x=1")).status(),
            StatusCode::OK
        );
        assert_eq!(
            respond(&request(Method::POST, "/metrics")).status(),
            StatusCode::METHOD_NOT_ALLOWED
        );
        assert_eq!(
            respond(&request(Method::GET, "/")).status(),
            StatusCode::NOT_FOUND
        );
    }

    /// What a scraper sends and reads: one request, the answer, and the
    /// connection closed after it (a reader to end of stream finishes).
    async fn exchange(bytes: &[u8]) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let server = tokio::spawn(serve(listener));
        let mut stream = TcpStream::connect(address).await.unwrap();
        // The server may close before reading all of a refused request,
        // so a failed write or a reset is part of the exchange.
        let _ = stream.write_all(bytes).await;
        let mut answer = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
            .await
            .expect("the connection is closed after one answer");
        server.abort();
        String::from_utf8_lossy(&answer).into_owned()
    }

    #[tokio::test]
    async fn a_scrape_gets_the_text_and_the_connection_closes() {
        let answer = exchange(b"GET /metrics HTTP/1.1\r\nHost: test\r\n\r\n").await;
        let (head, body) = answer.split_once("\r\n\r\n").expect("a head and a body");
        assert!(head.starts_with("HTTP/1.1 200 OK"), "{head}");
        assert!(
            head.contains("content-type: text/plain; version=0.0.4"),
            "{head}"
        );
        assert!(
            body.contains("# TYPE tabletop_rpcs_in_flight gauge\n"),
            "{body}"
        );
    }

    #[tokio::test]
    async fn junk_and_an_oversized_head_are_refused() {
        let junk = exchange(b"\x00junk\r\n\r\n").await;
        assert!(
            junk.is_empty() || junk.starts_with("HTTP/1.1 400"),
            "{junk}"
        );
        let mut huge = b"GET /metrics HTTP/1.1\r\nX: ".to_vec();
        huge.resize(MAX_REQUEST * 2, b'a');
        huge.extend_from_slice(b"\r\n\r\n");
        let refused = exchange(&huge).await;
        assert!(!refused.starts_with("HTTP/1.1 200"), "{refused}");
    }
}
