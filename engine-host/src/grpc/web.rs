//! The web page's files, embedded in the binary and served on the web
//! listener (`--web-listen`) in front of the gRPC-web API the page calls.
//!
//! The bundle is built from `web/` (`scripts/build-web`) and committed in
//! `web/dist/`, so building the host needs no npm. A `GET` or `HEAD` is
//! never a gRPC or gRPC-web call (both are `POST`s), so this layer answers
//! every one of them itself: a file of the page, or 404. Everything else
//! goes on to the API. A browser that accepts gzip gets the larger files
//! gzipped, compressed once on first request.

use std::future::Future;
use std::io::Write;
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::Full;
use tonic::body::Body;
use tower::{Layer, Service};

/// One file of the page.
struct Asset {
    path: &'static str,
    content_type: &'static str,
    bytes: &'static [u8],
    /// The bytes gzipped, for a file worth compressing, made on first use.
    gzipped: OnceLock<Option<Bytes>>,
}

/// Files smaller than this are sent as they are: gzip would save less than
/// its own headers cost.
const COMPRESS_FROM_BYTES: usize = 1024;

impl Asset {
    const fn new(path: &'static str, content_type: &'static str, bytes: &'static [u8]) -> Asset {
        Asset {
            path,
            content_type,
            bytes,
            gzipped: OnceLock::new(),
        }
    }

    /// Whether the file is sent gzipped to a browser that accepts it.
    fn compressible(&self) -> bool {
        self.bytes.len() >= COMPRESS_FROM_BYTES
    }

    /// The gzipped bytes, if the file is worth compressing.
    fn gzipped(&self) -> Option<&Bytes> {
        self.gzipped
            .get_or_init(|| {
                if !self.compressible() {
                    return None;
                }
                let mut encoder =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
                // Writing to a Vec cannot fail.
                encoder.write_all(self.bytes).ok()?;
                encoder.finish().ok().map(Bytes::from)
            })
            .as_ref()
    }
}

/// Whether an `Accept-Encoding` value accepts gzip: a `gzip` (or `x-gzip`)
/// coding whose weight, if given, is not zero.
fn accepts_gzip(accept_encoding: &str) -> bool {
    accept_encoding.split(',').any(|coding| {
        let mut parts = coding.split(';');
        let name = parts.next().unwrap_or_default().trim();
        if !name.eq_ignore_ascii_case("gzip") && !name.eq_ignore_ascii_case("x-gzip") {
            return false;
        }
        parts.all(|parameter| {
            let (key, value) = parameter.split_once('=').unwrap_or((parameter, ""));
            !key.trim().eq_ignore_ascii_case("q")
                || value.trim().parse::<f32>().is_ok_and(|q| q > 0.0)
        })
    })
}

/// The page: one HTML file, its script and its style sheet.
static ASSETS: [Asset; 3] = [
    Asset::new(
        "/",
        "text/html; charset=utf-8",
        include_bytes!("../../../web/dist/index.html"),
    ),
    Asset::new(
        "/app.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../../web/dist/app.js"),
    ),
    Asset::new(
        "/app.css",
        "text/css; charset=utf-8",
        include_bytes!("../../../web/dist/app.css"),
    ),
];

/// What the page may load and run: its own files only. A board's SVG is
/// the plugin's markup put into the page, so no inline script may run
/// (an `onload` attribute in it would otherwise); inline styles may, as
/// boards style their elements.
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; \
     base-uri 'none'; frame-ancestors 'none'";

/// The file served for `path` (`/index.html` is `/`).
fn asset(path: &str) -> Option<&'static Asset> {
    let path = if path == "/index.html" { "/" } else { path };
    ASSETS.iter().find(|asset| asset.path == path)
}

/// The answer to a `GET` or `HEAD` of `path`, gzipped where the file is
/// worth it and the browser `gzip_ok`.
fn respond(method: &Method, path: &str, gzip_ok: bool) -> Response<Body> {
    let Some(asset) = asset(path) else {
        let mut response = Response::new(Body::new(Full::new(Bytes::from_static(
            b"not found: the page is at /\n",
        ))));
        *response.status_mut() = StatusCode::NOT_FOUND;
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        return response;
    };
    let gzipped = if gzip_ok { asset.gzipped() } else { None };
    let full = match gzipped {
        Some(gzipped) => gzipped.clone(),
        None => Bytes::from_static(asset.bytes),
    };
    let length = full.len();
    let body = if method == Method::HEAD {
        Bytes::new()
    } else {
        full
    };
    let mut response = Response::new(Body::new(Full::new(body)));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(asset.content_type),
    );
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    if gzipped.is_some() {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    }
    if asset.compressible() {
        // Caches keep the gzipped and the plain answer apart.
        headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    }
    // The files change with the binary: a browser asks again each time
    // (a few tens of KB on a local or platform network).
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

/// Answers the page's files before the API sees the request.
#[derive(Debug, Clone, Copy, Default)]
pub struct WebPageLayer;

impl<S> Layer<S> for WebPageLayer {
    type Service = WebPage<S>;

    fn layer(&self, inner: S) -> WebPage<S> {
        WebPage { inner }
    }
}

/// The service of [`WebPageLayer`].
#[derive(Debug, Clone)]
pub struct WebPage<S> {
    inner: S,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S, B> Service<Request<B>> for WebPage<S>
where
    S: Service<Request<B>, Response = Response<Body>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Response<Body>, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let method = request.method();
        if method == Method::GET || method == Method::HEAD {
            let gzip_ok = request
                .headers()
                .get_all(header::ACCEPT_ENCODING)
                .iter()
                .filter_map(|value| value.to_str().ok())
                .any(accepts_gzip);
            let response = respond(method, request.uri().path(), gzip_ok);
            return Box::pin(std::future::ready(Ok(response)));
        }
        Box::pin(self.inner.call(request))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_its_script_and_style_are_served_with_their_types() {
        let page = respond(&Method::GET, "/index.html", false);
        assert_eq!(page.status(), StatusCode::OK);
        assert_eq!(
            page.headers()[header::CONTENT_TYPE],
            "text/html; charset=utf-8"
        );
        let script = respond(&Method::GET, "/app.js", false);
        assert_eq!(
            script.headers()[header::CONTENT_TYPE],
            "text/javascript; charset=utf-8"
        );
        assert!(
            script
                .headers()
                .contains_key(header::CONTENT_SECURITY_POLICY)
        );
        assert_eq!(
            respond(&Method::GET, "/app.css", false).headers()[header::CONTENT_TYPE],
            "text/css; charset=utf-8"
        );
    }

    #[test]
    fn other_paths_are_not_found() {
        for path in [
            "/nope",
            "/../Cargo.toml",
            "/app.js/",
            "/tabletop.v1.Catalog/ListGames",
        ] {
            assert_eq!(
                respond(&Method::GET, path, true).status(),
                StatusCode::NOT_FOUND
            );
        }
    }

    /// The whole body of a response to a `GET`.
    fn body_of(response: Response<Body>) -> Bytes {
        use http_body_util::BodyExt;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        runtime
            .block_on(response.into_body().collect())
            .expect("a body")
            .to_bytes()
    }

    #[test]
    fn a_browser_that_accepts_gzip_gets_the_script_gzipped_and_the_same_bytes_inside() {
        use std::io::Read;
        let plain = respond(&Method::GET, "/app.js", false);
        assert!(!plain.headers().contains_key(header::CONTENT_ENCODING));
        assert_eq!(plain.headers()[header::VARY], "accept-encoding");
        let plain = body_of(plain);
        let zipped = respond(&Method::GET, "/app.js", true);
        assert_eq!(zipped.headers()[header::CONTENT_ENCODING], "gzip");
        assert_eq!(zipped.headers()[header::VARY], "accept-encoding");
        let length: usize = zipped.headers()[header::CONTENT_LENGTH]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        let zipped = body_of(zipped);
        assert_eq!(zipped.len(), length);
        assert!(
            zipped.len() * 2 < plain.len(),
            "{} of {}",
            zipped.len(),
            plain.len()
        );
        let mut inside = Vec::new();
        flate2::read::GzDecoder::new(&zipped[..])
            .read_to_end(&mut inside)
            .expect("gzip");
        assert_eq!(inside, plain);
        // A HEAD says the gzipped length, with no body.
        let head = respond(&Method::HEAD, "/app.js", true);
        assert_eq!(
            head.headers()[header::CONTENT_LENGTH],
            length.to_string().as_str()
        );
        assert!(body_of(head).is_empty());
    }

    #[test]
    fn a_small_file_is_sent_as_it_is() {
        let page = respond(&Method::GET, "/", true);
        assert!(!page.headers().contains_key(header::CONTENT_ENCODING));
        assert!(!page.headers().contains_key(header::VARY));
    }

    #[test]
    fn gzip_is_accepted_only_with_a_weight_above_zero() {
        for accepted in [
            "gzip",
            "gzip, deflate, br",
            "br;q=1.0, GZIP;q=0.5",
            "x-gzip",
            "deflate,gzip",
        ] {
            assert!(accepts_gzip(accepted), "{accepted}");
        }
        for refused in [
            "",
            "identity",
            "br",
            "gzip;q=0",
            "gzip; q=0.0",
            "gzipped",
            "gzip;q=x",
        ] {
            assert!(!accepts_gzip(refused), "{refused}");
        }
    }
}
