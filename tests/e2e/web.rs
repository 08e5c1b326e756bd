//! The web listener (`--web-listen`): the page's files, and the API over
//! gRPC-web behind the same tower layer as gRPC (limits, metrics). The page
//! itself is tested in a browser by web/test.sh.

use tabletop_tests::{Host, HostOptions};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// One HTTP/1.1 exchange on a new connection: the whole answer as text
/// (the connection is closed after it).
async fn exchange(address: &str, request: &[u8]) -> String {
    String::from_utf8_lossy(&exchange_bytes(address, request).await).into_owned()
}

/// [`exchange`], the answer as bytes (a gzipped body is no text).
async fn exchange_bytes(address: &str, request: &[u8]) -> Vec<u8> {
    let mut stream = tokio::net::TcpStream::connect(address)
        .await
        .expect("connect to the web listener");
    stream.write_all(request).await.expect("send");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.expect("read");
    answer
}

async fn get(address: &str, path: &str) -> String {
    exchange(
        address,
        format!("GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .await
}

/// A gRPC-web call of `method` with an empty request message, as a
/// browser sends it over HTTP/1.1.
async fn grpc_web(address: &str, method: &str) -> String {
    let mut request = format!(
        "POST /{method} HTTP/1.1\r\nHost: test\r\nContent-Type: application/grpc-web+proto\r\n\
         X-Grpc-Web: 1\r\nContent-Length: 5\r\nConnection: close\r\n\r\n"
    )
    .into_bytes();
    // One uncompressed frame of length 0: the empty message.
    request.extend_from_slice(&[0, 0, 0, 0, 0]);
    exchange(address, &request).await
}

/// The gRPC status of a gRPC-web answer: in its headers for a
/// trailers-only answer, else in the trailer frame at the end of its body.
fn grpc_status(answer: &str) -> Option<u32> {
    let at = answer.find("grpc-status:")?;
    let digits: String = answer[at + "grpc-status:".len()..]
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[tokio::test]
async fn the_web_listener_serves_the_page_and_its_files_with_their_types() {
    let host = Host::start_with(HostOptions {
        args: vec!["--web-listen".into(), "127.0.0.1:0".into()],
        ..Default::default()
    })
    .await;
    let address = host.web_address.clone().expect("a web address");
    let page = get(&address, "/").await;
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(
        page.contains("content-type: text/html; charset=utf-8"),
        "{page}"
    );
    assert!(
        page.contains("content-security-policy: default-src 'self'"),
        "{page}"
    );
    assert!(page.contains("src=\"app.js\""), "{page}");
    let script = get(&address, "/app.js").await;
    assert!(script.starts_with("HTTP/1.1 200"));
    assert!(script.contains("content-type: text/javascript; charset=utf-8"));
    let style = get(&address, "/app.css").await;
    assert!(style.contains("content-type: text/css; charset=utf-8"));
    let missing = get(&address, "/secrets.txt").await;
    assert!(missing.starts_with("HTTP/1.1 404"), "{missing}");
    // A browser that accepts gzip gets the script gzipped, in fewer bytes.
    let zipped = exchange_bytes(
        &address,
        b"GET /app.js HTTP/1.1\r\nHost: test\r\nAccept-Encoding: gzip, deflate, br\r\n\
          Connection: close\r\n\r\n",
    )
    .await;
    let head_end = zipped
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("an answer with a head");
    let head = String::from_utf8_lossy(&zipped[..head_end]);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(head.contains("content-encoding: gzip"), "{head}");
    assert!(head.contains("vary: accept-encoding"), "{head}");
    assert!(
        zipped[head_end + 4..].starts_with(&[0x1f, 0x8b]),
        "a gzip body"
    );
    assert!(!script.contains("content-encoding"));
    assert!(
        zipped.len() * 2 < script.len(),
        "{} of {}",
        zipped.len(),
        script.len()
    );
}

#[tokio::test]
async fn grpc_web_calls_pass_the_same_limits_and_metrics_as_grpc_calls() {
    let host = Host::start_with(HostOptions {
        args: vec![
            "--metrics-listen".into(),
            "127.0.0.1:0".into(),
            "--web-listen".into(),
            "127.0.0.1:0".into(),
            "--credential-rate".into(),
            "2".into(),
        ],
        ..Default::default()
    })
    .await;
    let web = host.web_address.clone().expect("a web address");
    let first = grpc_web(&web, "tabletop.v1.Catalog/ListGames").await;
    assert!(first.starts_with("HTTP/1.1 200"), "{first}");
    assert!(
        first.contains("content-type: application/grpc-web+proto"),
        "{first}"
    );
    assert_eq!(grpc_status(&first), Some(0), "{first}");
    assert!(
        first.contains("focus"),
        "the catalog lists the games: {first}"
    );
    // Two tokens, refilled at two a second: the anonymous key runs out
    // long before twenty calls in a row are done.
    let mut refused = None;
    for _ in 0..20 {
        let answer = grpc_web(&web, "tabletop.v1.Catalog/ListGames").await;
        if grpc_status(&answer) != Some(0) {
            refused = Some(answer);
            break;
        }
    }
    let refused = refused.expect("a gRPC-web call past the rate");
    assert_eq!(
        grpc_status(&refused),
        Some(8),
        "RESOURCE_EXHAUSTED: {refused}"
    );
    let metrics = get(
        host.metrics_address.as_deref().expect("metrics"),
        "/metrics",
    )
    .await;
    let sample = |name: &str| -> f64 {
        metrics
            .lines()
            .find_map(|line| line.strip_prefix(name)?.trim().parse().ok())
            .unwrap_or(0.0)
    };
    assert!(
        sample(
            "tabletop_rpcs_total{service=\"tabletop.v1.Catalog\",method=\"ListGames\",code=\"OK\"}"
        ) >= 1.0,
        "{metrics}"
    );
    assert!(
        sample("tabletop_limit_refusals_total{limit=\"credential_rate\"}") >= 1.0,
        "{metrics}"
    );
}
