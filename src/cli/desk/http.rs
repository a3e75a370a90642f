//! The desk's HTTP side (axum on tokio): the pages and the JSON API over the store
//! and the queue, behind a guard (a token when one is set, else a loopback Host),
//! request bodies bounded, no CORS headers, nothing served but the reports and pages.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use scoresheet::SheetReport;

use super::super::read::round_key;
use super::page::{INDEX, Pages};
use super::store::{CorrectionBody, Store, StoreError};
use super::watch::Queue;

/// The largest request body taken (a correction is a few dozen bytes).
pub const BODY_LIMIT: usize = 16 * 1024;

/// A client that has not sent a request's headers within this is dropped (an idle
/// keep-alive connection too).
pub const HEADER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Connections served at once; more wait to be accepted.
pub const MAX_CONNECTIONS: usize = 256;

/// The name of the cookie that carries the token for a browser.
const COOKIE: &str = "scoresheet_desk";

/// What every handler shares.
pub struct Desk {
    pub store: Arc<Store>,
    pub queue: Arc<Queue>,
    pub pages: Pages,
    /// Required on every request when set.
    pub token: Option<String>,
}

type Shared = State<Arc<Desk>>;

/// The desk's routes, guarded.
pub fn router(desk: Arc<Desk>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/games/{stem}", get(game_page))
        .route("/api/games", get(list))
        .route("/api/games/{stem}", get(report))
        .route("/api/games/{stem}/corrections", post(correct))
        .route("/api/queue", get(queue))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(middleware::from_fn_with_state(desk.clone(), guard))
        .with_state(desk)
}

fn error(status: StatusCode, msg: impl std::fmt::Display) -> Response {
    (status, axum::Json(json!({ "error": msg.to_string() }))).into_response()
}

impl IntoResponse for StoreError {
    fn into_response(self) -> Response {
        let status = match &self {
            StoreError::Bad(_) => StatusCode::BAD_REQUEST,
            StoreError::NoGame(_) => StatusCode::NOT_FOUND,
            StoreError::Conflict { .. } => StatusCode::CONFLICT,
            StoreError::Refused(_) => StatusCode::UNPROCESSABLE_ENTITY,
            StoreError::Failed(_) => StatusCode::INTERNAL_SERVER_ERROR,
        };
        error(status, self)
    }
}

/// Runs blocking store work off the async workers.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| Err(StoreError::Failed(format!("the desk failed: {e}"))))
}

/// Byte-wise comparison that does not stop at the first difference.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

/// The token a request carries: `Authorization: Bearer T`, the cookie, or `?token=T`
/// (the last one also says so).
fn token_of(req: &Request) -> Option<(String, bool)> {
    let headers = req.headers();
    if let Some(t) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    {
        return Some((t.trim().to_string(), false));
    }
    let cookie = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|c| {
            c.trim()
                .strip_prefix(&format!("{COOKIE}="))
                .map(str::to_string)
        });
    if let Some(t) = cookie {
        return Some((t, false));
    }
    req.uri()
        .query()?
        .split('&')
        .find_map(|kv| kv.strip_prefix("token="))
        .map(|t| (t.to_string(), true))
}

/// Whether the Host header names this machine's loopback (a page of another site
/// that reached the desk through DNS rebinding names its own host).
fn loopback_host(headers: &HeaderMap) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let name = if host.starts_with('[') {
        host.split(']').next().map(|h| &h[1..]).unwrap_or("")
    } else {
        host.rsplit_once(':').map_or(host, |(h, _)| h)
    };
    name == "localhost"
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Whether a request's `Origin`, when it has one, is this desk (`http://HOST`).
fn same_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    let origin = origin.to_str().ok().and_then(|o| o.strip_prefix("http://"));
    matches!((origin, host), (Some(o), Some(h)) if o == h)
}

/// Every request: the token when one is set (else a loopback Host); every answer:
/// headers that keep it to this origin.
async fn guard(State(desk): Shared, req: Request, next: Next) -> Response {
    if req.method() != Method::GET && !same_origin(req.headers()) {
        return harden(error(
            StatusCode::FORBIDDEN,
            "a page of another site may not correct on this desk",
        ));
    }
    let mut set_cookie = None;
    match &desk.token {
        Some(token) => match token_of(&req) {
            Some((given, in_query)) if same(&given, token) => {
                if in_query {
                    if req.method() == Method::GET && !req.uri().path().starts_with("/api/") {
                        // Into a cookie, and off the address bar.
                        let mut r = Response::new(axum::body::Body::empty());
                        *r.status_mut() = StatusCode::SEE_OTHER;
                        let to = HeaderValue::from_str(req.uri().path())
                            .unwrap_or(HeaderValue::from_static("/"));
                        r.headers_mut().insert(header::LOCATION, to);
                        r.headers_mut().insert(header::SET_COOKIE, cookie(token));
                        return harden(r);
                    }
                    set_cookie = Some(cookie(token));
                }
            }
            _ => {
                return harden(error(
                    StatusCode::UNAUTHORIZED,
                    "this desk needs its token (Authorization: Bearer TOKEN, or open /?token=TOKEN)",
                ));
            }
        },
        None => {
            if !loopback_host(req.headers()) {
                return harden(error(
                    StatusCode::FORBIDDEN,
                    "this desk answers only requests for localhost / 127.0.0.1",
                ));
            }
        }
    }
    let mut r = next.run(req).await;
    if let Some(c) = set_cookie {
        r.headers_mut().insert(header::SET_COOKIE, c);
    }
    harden(r)
}

fn cookie(token: &str) -> HeaderValue {
    HeaderValue::from_str(&format!(
        "{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict"
    ))
    .unwrap_or(HeaderValue::from_static(""))
}

fn harden(mut r: Response) -> Response {
    let h = r.headers_mut();
    h.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    h.insert("x-frame-options", HeaderValue::from_static("DENY"));
    h.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
             img-src data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; \
             base-uri 'none'",
        ),
    );
    r
}

async fn not_found() -> Response {
    error(StatusCode::NOT_FOUND, "not found")
}

async fn index() -> Html<&'static str> {
    Html(INDEX)
}

async fn game_page(State(desk): Shared, Path(stem): Path<String>) -> Response {
    let d = desk.clone();
    match blocking(move || {
        let (report, version) = d.store.load(&stem)?;
        d.pages.game(&stem, &report, &version)
    })
    .await
    {
        Ok(html) => Html(html).into_response(),
        Err(e) => e.into_response(),
    }
}

/// One line of the round: a game, its players and result, the moves left to check.
fn summary(stem: &str, report: &SheetReport, version: &str) -> Value {
    let g = report.game.clone().unwrap_or_default();
    let to_check = report
        .moves
        .iter()
        .filter(|m| m.review && m.state != scoresheet::MoveState::Locked)
        .count();
    json!({
        "stem": stem, "source": report.source, "version": version,
        "round": g.round, "board": g.board, "white": g.white, "black": g.black,
        "result": report.result, "status": report.status, "plies": report.summary.plies,
        "to_check": to_check, "corrections": report.corrections.len(),
        "header_corrections": report.header_corrections.len(),
    })
}

async fn list(State(desk): Shared) -> Response {
    let d = desk.clone();
    let games = blocking(move || {
        let mut games: Vec<_> = d
            .store
            .stems()
            .into_iter()
            .filter_map(|stem| {
                let (r, v) = d.store.load(&stem).ok()?;
                Some((round_key(&r), summary(&stem, &r, &v)))
            })
            .collect();
        games.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(games.into_iter().map(|g| g.1).collect::<Vec<_>>())
    })
    .await;
    match games {
        Ok(g) => axum::Json(g).into_response(),
        Err(e) => e.into_response(),
    }
}

/// The report as `read` wrote it (its file's text), with `stem` and `version` added.
fn with_version(stem: &str, text: &str, version: &str) -> Response {
    let mut v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    if let Some(o) = v.as_object_mut() {
        o.insert("stem".into(), json!(stem));
        o.insert("version".into(), json!(version));
    }
    let mut r = axum::Json(v).into_response();
    if let Ok(etag) = HeaderValue::from_str(&format!("\"{version}\"")) {
        r.headers_mut().insert(header::ETAG, etag);
    }
    r
}

async fn report(State(desk): Shared, Path(stem): Path<String>) -> Response {
    let d = desk.clone();
    let s = stem.clone();
    match blocking(move || d.store.load_text(&s)).await {
        Ok((_, v, text)) => with_version(&stem, &text, &v),
        Err(e) => e.into_response(),
    }
}

async fn correct(
    State(desk): Shared,
    Path(stem): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let json_body = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("application/json"));
    if !json_body {
        return error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "send the correction as application/json",
        );
    }
    let mut body: CorrectionBody = match serde_json::from_slice(&body) {
        Ok(b) => b,
        Err(e) => return error(StatusCode::BAD_REQUEST, format!("not a correction: {e}")),
    };
    if body.version.is_none() {
        body.version = headers
            .get(header::IF_MATCH)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim().trim_matches('"').to_string());
    }
    let d = desk.clone();
    let s = stem.clone();
    match blocking(move || d.store.correct(&s, body)).await {
        Ok((text, v)) => with_version(&stem, &text, &v),
        Err(e) => e.into_response(),
    }
}

async fn queue(State(desk): Shared) -> Response {
    axum::Json(desk.queue.snapshot()).into_response()
}

/// Serves `app` on `listener` until Ctrl-C: HTTP/1.1, at most [`MAX_CONNECTIONS`] at
/// once, each dropped when a request's headers take longer than [`HEADER_TIMEOUT`]
/// (so that slow or idle clients cannot hold the desk's connections).
pub async fn serve(listener: tokio::net::TcpListener, app: Router) {
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    let accept = async {
        loop {
            let Ok(permit) = slots.clone().acquire_owned().await else {
                return;
            };
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of file descriptors and the like: wait, then go on.
                    super::super::diag(format!("cannot accept a connection: {e}"));
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    continue;
                }
            };
            let service = hyper_util::service::TowerToHyperService::new(app.clone());
            tokio::spawn(async move {
                let _slot = permit;
                let _ = hyper::server::conn::http1::Builder::new()
                    .timer(hyper_util::rt::TokioTimer::new())
                    .header_read_timeout(HEADER_TIMEOUT)
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    };
    tokio::select! {
        () = accept => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts() {
        let cases = [
            ("127.0.0.1:8080", true),
            ("localhost:8080", true),
            ("localhost", true),
            ("[::1]:8080", true),
            ("127.0.0.2", true),
            ("evil.example", false),
            ("evil.example:8080", false),
            ("192.168.1.10:8080", false),
            ("localhost.evil.example", false),
            ("[::2]:80", false),
        ];
        for (host, want) in cases {
            let mut h = HeaderMap::new();
            h.insert(header::HOST, HeaderValue::from_static(host));
            assert_eq!(loopback_host(&h), want, "{host}");
        }
        assert!(!loopback_host(&HeaderMap::new()));
    }

    #[test]
    fn origins() {
        let cases = [
            (None, true),
            (Some("http://127.0.0.1:8080"), true),
            (Some("http://evil.example"), false),
            (Some("https://127.0.0.1:8080"), false),
            (Some("null"), false),
            (Some("http://127.0.0.1:9090"), false),
        ];
        for (origin, want) in cases {
            let mut h = HeaderMap::new();
            h.insert(header::HOST, HeaderValue::from_static("127.0.0.1:8080"));
            if let Some(o) = origin {
                h.insert(header::ORIGIN, HeaderValue::from_static(o));
            }
            assert_eq!(same_origin(&h), want, "{origin:?}");
        }
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(same("abcdef", "abcdef"));
        assert!(!same("abcdef", "abcdeg"));
        assert!(!same("abc", "abcdef"));
    }
}
