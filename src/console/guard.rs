//! The console's checks, run before every handler: `Host` allowlist, `Origin`, method,
//! credential; and the headers every response carries. `/login` trades the operator token
//! (from the URL `warroom-memory console` prints) for a cookie and redirects to `/`, so the
//! token leaves the address bar at once.

use std::sync::Arc;

use axum::extract::{Query, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use sha2::{Digest, Sha256};

use super::ConsoleOptions;
use super::layout::error_page;

/// The cookie that carries the browser's credential.
const COOKIE: &str = "warroom_console";

/// Every response's Content-Security-Policy: our own files only, no inline script or
/// style, no `eval`, never framed, forms only to ourselves.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                   connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The cookie value for an operator token: a digest, so the token itself is never kept by
/// the browser (the cookie opens only the read-only console).
pub fn cookie_value(token: &str) -> String {
    let d = Sha256::digest(format!("warroom-console\n{token}").as_bytes());
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares two secrets by their digests, so the time taken says nothing about them.
fn same_secret(a: &str, b: &str) -> bool {
    Sha256::digest(a.as_bytes()) == Sha256::digest(b.as_bytes())
}

pub(crate) struct Guard {
    token: String,
    cookie: String,
    hosts: Vec<String>,
}

impl Guard {
    pub(crate) fn new(opts: ConsoleOptions) -> Guard {
        Guard {
            cookie: cookie_value(&opts.operator_token),
            token: opts.operator_token,
            hosts: opts.hosts.iter().map(|h| h.to_ascii_lowercase()).collect(),
        }
    }

    fn authorized(&self, req: &Request) -> bool {
        let h = req.headers();
        let bearer = h
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .is_some_and(|t| same_secret(t.trim(), &self.token));
        let cookie = h
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|kv| kv.trim().split_once('='))
            .any(|(k, v)| k == COOKIE && same_secret(v, &self.cookie));
        bearer || cookie
    }
}

/// The checks, then the security headers on whatever the handler answered.
pub(crate) async fn check(State(g): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    let mut resp = match refuse(&g, &req) {
        Some(r) => r,
        None => next.run(req).await,
    };
    let h = resp.headers_mut();
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, CSP),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::REFERRER_POLICY, "no-referrer"),
    ] {
        h.insert(name, HeaderValue::from_static(value));
    }
    h.entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    resp
}

fn refuse(g: &Guard, req: &Request) -> Option<Response> {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    if !g.hosts.contains(&host) {
        tracing::warn!(host = %host.escape_debug(), "console: refused a request for a foreign Host");
        return Some(error_page(
            StatusCode::FORBIDDEN,
            "Host not allowed",
            "This request named a host the daemon does not serve (a DNS-rebinding defence). \
             Open the console at the address `warroom-memory console` prints; a daemon off \
             loopback serves the hosts of its --allow-origin values.",
        ));
    }
    if let Some(origin) = req.headers().get(header::ORIGIN) {
        let ours = format!("http://{host}");
        if origin.to_str().map(str::to_ascii_lowercase).ok().as_deref() != Some(&ours) {
            return Some(error_page(
                StatusCode::FORBIDDEN,
                "Origin not allowed",
                "This request came from a page of another site; the console answers only its \
                 own pages.",
            ));
        }
    }
    if req.method() != http::Method::GET && req.method() != http::Method::HEAD {
        let mut r = error_page(
            StatusCode::METHOD_NOT_ALLOWED,
            "Read only",
            "The console only reads: it answers GET and HEAD.",
        );
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return Some(r);
    }
    let path = req.uri().path();
    if path == "/login" || path.starts_with("/assets/") || g.authorized(req) {
        return None;
    }
    Some(error_page(
        StatusCode::UNAUTHORIZED,
        "Sign in",
        "The console needs the operator's credential. Run `warroom-memory console` in the \
         project and open the address it prints (it signs this browser in), or send \
         `Authorization: Bearer <operator token>`.",
    ))
}

#[derive(serde::Deserialize)]
pub(crate) struct Login {
    #[serde(default)]
    token: String,
    /// The console page to go to after signing in (a path of ours; anything else: `/`).
    #[serde(default)]
    next: Option<String>,
}

/// `/login?token=…[&next=/path]`: the operator token for a session cookie, then the page.
pub(crate) async fn login(State(c): State<super::Shared>, Query(q): Query<Login>) -> Response {
    let g = &c.guard;
    if !same_secret(q.token.trim(), &g.token) {
        return error_page(
            StatusCode::UNAUTHORIZED,
            "Sign in",
            "That sign-in address carries a wrong or old token. Run `warroom-memory console` \
             again and open the address it prints.",
        );
    }
    let cookie = format!("{COOKIE}={}; Path=/; HttpOnly; SameSite=Strict", g.cookie);
    // Only a path on this site: never an address elsewhere (`//host`, `/\\host`).
    let next = q
        .next
        .filter(|n| {
            n.starts_with('/')
                && !n.starts_with("//")
                && !n.contains('\\')
                && n.chars().all(|c| c.is_ascii_graphic())
        })
        .unwrap_or_else(|| "/".to_string());
    (
        StatusCode::SEE_OTHER,
        [(header::LOCATION, next), (header::SET_COOKIE, cookie)],
    )
        .into_response()
}
