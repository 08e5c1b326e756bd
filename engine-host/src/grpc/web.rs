//! The web page's files, embedded in the binary and served on the web
//! listener (`--web-listen`) in front of the gRPC-web API the page calls.
//!
//! The bundle is built from `web/` (`scripts/build-web`) and committed in
//! `web/dist/`, so building the host needs no npm. A `GET` or `HEAD` is
//! never a gRPC or gRPC-web call (both are `POST`s), so this layer answers
//! every one of them itself: a file of the page, or 404. Everything else
//! goes on to the API.

use std::future::Future;
use std::pin::Pin;
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
}

/// The page: one HTML file, its script and its style sheet.
const ASSETS: [Asset; 3] = [
    Asset {
        path: "/",
        content_type: "text/html; charset=utf-8",
        bytes: include_bytes!("../../../web/dist/index.html"),
    },
    Asset {
        path: "/app.js",
        content_type: "text/javascript; charset=utf-8",
        bytes: include_bytes!("../../../web/dist/app.js"),
    },
    Asset {
        path: "/app.css",
        content_type: "text/css; charset=utf-8",
        bytes: include_bytes!("../../../web/dist/app.css"),
    },
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

/// The answer to a `GET` or `HEAD` of `path`.
fn respond(method: &Method, path: &str) -> Response<Body> {
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
    let body = if method == Method::HEAD {
        Bytes::new()
    } else {
        Bytes::from_static(asset.bytes)
    };
    let mut response = Response::new(Body::new(Full::new(body)));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(asset.content_type),
    );
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(asset.bytes.len()));
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
            let response = respond(method, request.uri().path());
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
        let page = respond(&Method::GET, "/index.html");
        assert_eq!(page.status(), StatusCode::OK);
        assert_eq!(
            page.headers()[header::CONTENT_TYPE],
            "text/html; charset=utf-8"
        );
        let script = respond(&Method::GET, "/app.js");
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
            respond(&Method::GET, "/app.css").headers()[header::CONTENT_TYPE],
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
            assert_eq!(respond(&Method::GET, path).status(), StatusCode::NOT_FOUND);
        }
    }
}
