//! The console's checks, run before every handler: `Host` allowlist, `Origin`, method,
//! credential; and the headers every response carries. `/login` trades a one-time code
//! (from the URL `warroom-memory console` prints) for a session cookie and redirects to
//! the page, so the code leaves the address bar at once; `/logout` ends the session
//! ([`super::signin`]).

use std::sync::Arc;

use axum::extract::{Query, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use sha2::{Digest, Sha256};

use super::ConsoleOptions;
use super::layout::error_page;
use super::signin::{CodeRefused, SignIn};

/// The cookie that carries the browser's credential.
const COOKIE: &str = "warroom_console";

/// Every response's Content-Security-Policy: our own files only, no inline script or
/// style, no `eval`, never framed, forms only to ourselves.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                   connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// Compares two secrets by their digests, so the time taken says nothing about them.
fn same_secret(a: &str, b: &str) -> bool {
    Sha256::digest(a.as_bytes()) == Sha256::digest(b.as_bytes())
}

pub(crate) struct Guard {
    token: String,
    signin: SignIn,
    hosts: Vec<String>,
}

/// The session cookie values a request carries.
fn cookies(req: &http::HeaderMap) -> impl Iterator<Item = &str> {
    req.get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .filter(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v)
}

/// The wall clock in unix seconds, for sign-in codes (the console is an edge).
fn unix_now() -> u64 {
    use crate::clock::Clock;
    crate::clock::SystemClock.now().0.max(0) as u64
}

impl Guard {
    pub(crate) fn new(opts: ConsoleOptions) -> Guard {
        Guard {
            signin: SignIn::new(&opts.operator_token, opts.idle, opts.max_age),
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
        let now = std::time::Instant::now();
        bearer || cookies(h).any(|v| self.signin.check(v, now))
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
        static FOREIGN_HOST: crate::ratelog::Limiter = crate::ratelog::Limiter::new();
        if let Some(held) = FOREIGN_HOST.allow(std::time::Instant::now()) {
            tracing::warn!(
                host = %crate::validate::printable(&host),
                held_back = held,
                "console: refused a request for a foreign Host (such warnings: at most one \
                 per 10 s)"
            );
        }
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
    if g.authorized(req) {
        crate::conn::Proven::mark(req);
        return None;
    }
    if path == "/login" || path == "/logout" || path.starts_with("/assets/") {
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
    /// The one-time code `warroom-memory console` printed.
    #[serde(default)]
    code: String,
    /// The console page to go to after signing in (a path of ours; anything else: `/`).
    #[serde(default)]
    next: Option<String>,
}

/// `/login?code=…[&next=/path]`: a one-time code for a session cookie, then the page.
pub(crate) async fn login(State(c): State<super::Shared>, Query(q): Query<Login>) -> Response {
    let g = &c.guard;
    if let Err(why) = g.signin.redeem(&q.code, unix_now()) {
        let why = match why {
            CodeRefused::Wrong => "That sign-in address is not one this daemon made",
            CodeRefused::Expired => "That sign-in address has expired (it is good for a minute)",
            CodeRefused::Used => "That sign-in address was already used (each is good once)",
        };
        return error_page(
            StatusCode::UNAUTHORIZED,
            "Sign in",
            &format!(
                "{why}. Run `warroom-memory console` again and open the new address it prints."
            ),
        );
    }
    let value = g.signin.open(std::time::Instant::now());
    let cookie = format!(
        "{COOKIE}={value}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}",
        g.signin.max_age().as_secs()
    );
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

/// `/logout`: ends this browser's session and clears its cookie.
pub(crate) async fn logout(State(c): State<super::Shared>, req: Request) -> Response {
    for v in cookies(req.headers()) {
        c.guard.signin.end(v);
    }
    let mut r = error_page(
        StatusCode::OK,
        "Signed out",
        "This browser's console session has ended. To sign in again, run \
         `warroom-memory console` and open the address it prints.",
    );
    r.headers_mut().insert(
        header::SET_COOKIE,
        HeaderValue::from_static("warroom_console=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"),
    );
    r
}
