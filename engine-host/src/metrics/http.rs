//! The metrics endpoint: `GET /metrics` over plain HTTP/1.1 answers the
//! Prometheus text; anything else is 404 (or 405 for another method). One
//! request per connection, read with a size and time limit, so a scraper
//! that stalls or sends junk holds nothing for long.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::metrics;

/// Longest request head read, in bytes.
const MAX_REQUEST: usize = 8 * 1024;

/// Longest a connection may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// The content type of the text format.
const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

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

async fn answer(mut stream: TcpStream) {
    let head = match tokio::time::timeout(READ_TIMEOUT, read_head(&mut stream)).await {
        Ok(Some(head)) => head,
        _ => return,
    };
    let (status, content_type, body) = respond(&head);
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    if stream.write_all(response.as_bytes()).await.is_ok() {
        let _ = stream.write_all(body.as_bytes()).await;
    }
    let _ = stream.shutdown().await;
}

/// The request head (up to the blank line), or `None` if the peer closed
/// first or sent more than [`MAX_REQUEST`] bytes.
async fn read_head(stream: &mut TcpStream) -> Option<String> {
    let mut buffer = Vec::with_capacity(512);
    let mut chunk = [0u8; 1024];
    loop {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
        if buffer.windows(4).any(|w| w == b"\r\n\r\n") {
            return Some(String::from_utf8_lossy(&buffer).into_owned());
        }
        if buffer.len() > MAX_REQUEST {
            return None;
        }
    }
}

/// Status line, content type and body for a request head.
fn respond(head: &str) -> (&'static str, &'static str, String) {
    let mut parts = head.lines().next().unwrap_or("").split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let path = target.split('?').next().unwrap_or("");
    match (method, path) {
        ("GET", "/metrics") => ("200 OK", CONTENT_TYPE, metrics().render()),
        (_, "/metrics") => (
            "405 Method Not Allowed",
            "text/plain",
            "GET only\n".to_string(),
        ),
        _ => (
            "404 Not Found",
            "text/plain",
            "the metrics are at /metrics\n".to_string(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_get_metrics_answers_the_metrics() {
        let (status, content_type, body) = respond("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
        assert_eq!(status, "200 OK");
        assert_eq!(content_type, CONTENT_TYPE);
        assert!(body.contains("# TYPE tabletop_rpcs_total counter"));
        assert_eq!(respond("GET /metrics?x=1 HTTP/1.1\r\n\r\n").0, "200 OK");
        assert_eq!(
            respond("POST /metrics HTTP/1.1\r\n\r\n").0,
            "405 Method Not Allowed"
        );
        assert_eq!(respond("GET / HTTP/1.1\r\n\r\n").0, "404 Not Found");
        assert_eq!(respond("\u{0}junk").0, "404 Not Found");
    }
}
