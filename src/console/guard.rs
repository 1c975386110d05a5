//! The console's checks, run before every handler: `Host` allowlist, `Origin`, method,
//! credential; and the headers every response carries. `/login` trades a one-time code
//! (from the URL `warroom-memory console` prints) for a session cookie and redirects to
//! the page, so the code leaves the address bar at once; `/logout` ends the session
//! ([`super::signin`]) — by POST only, from one of our own pages (`Sec-Fetch-Site:
//! same-origin`, or our `Origin`), so a page elsewhere (another loopback port is the same
//! *site* to a browser) cannot sign the console out. The cookie is named after the port,
//! so two daemons on one host neither read nor clear each other's session.

use std::sync::Arc;

use axum::extract::{Query, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use sha2::{Digest, Sha256};

use super::ConsoleOptions;
use super::shell::error_page;
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

/// The request's `Host`, lower-cased (empty when missing or not text).
fn host_of(h: &http::HeaderMap) -> String {
    h.get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default()
}

/// The session cookie's name for the daemon at `host`: `warroom_console_<port>`.
/// Browsers send a host's cookies to all its ports; a name per port keeps two daemons'
/// sessions apart (neither is shown, used nor cleared by the other).
pub(crate) fn cookie_name(host: &str) -> String {
    match host.rsplit_once(':') {
        Some((_, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => {
            format!("{COOKIE}_{port}")
        }
        _ => COOKIE.to_string(),
    }
}

/// The session cookie values a request carries for this daemon.
fn cookies(req: &http::HeaderMap) -> impl Iterator<Item = &str> {
    let name = cookie_name(&host_of(req));
    req.get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .filter(move |(k, _)| *k == name)
        .map(|(_, v)| v)
}

/// Whether a state-changing request provably came from one of our own pages: the
/// browser's `Sec-Fetch-Site` says `same-origin`, or (a browser without it, or a script)
/// `Origin` is present and not `null` — the caller has already refused a foreign one.
/// Neither: not proven, refused.
fn same_origin(h: &http::HeaderMap) -> bool {
    match h.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        Some(site) => site.eq_ignore_ascii_case("same-origin"),
        None => h.get(header::ORIGIN).is_some_and(|o| o != "null"),
    }
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
    let host = host_of(req.headers());
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
    // `Origin: null` is what a browser sends from our own pages too (they carry
    // `Referrer-Policy: no-referrer`): it proves nothing either way and is judged as absent.
    if let Some(origin) = req.headers().get(header::ORIGIN).filter(|o| *o != "null") {
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
    let path = req.uri().path();
    let read = req.method() == http::Method::GET || req.method() == http::Method::HEAD;
    // The one state-changing route: signing out, by POST from our own page.
    let sign_out = req.method() == http::Method::POST && path == "/logout";
    if !read && !sign_out {
        let mut r = error_page(
            StatusCode::METHOD_NOT_ALLOWED,
            "Read only",
            "The console only reads: it answers GET and HEAD (and POST /logout, from its \
             own Sign out button).",
        );
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return Some(r);
    }
    if sign_out && !same_origin(req.headers()) {
        return Some(error_page(
            StatusCode::FORBIDDEN,
            "Origin not proven",
            "Signing out is done with the console's own Sign out button: this request carried \
             neither `Sec-Fetch-Site: same-origin` nor the console's Origin.",
        ));
    }
    if g.authorized(req) {
        // Browser sessions are counted together, as one credential of the operator's.
        if let Err(at) = crate::conn::Proven::mark(req, "console") {
            return Some(crate::conn::at_share_response(at.limit));
        }
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
pub(crate) async fn login(
    State(c): State<super::Shared>,
    headers: http::HeaderMap,
    Query(q): Query<Login>,
) -> Response {
    let g = &c.guard;
    let host = host_of(&headers);
    if let Err(why) = g.signin.redeem(&q.code, &host, unix_now()) {
        let why = match why {
            CodeRefused::Wrong => {
                "That sign-in address is not one made for this daemon (another token, \
                 another address, or garbled)"
            }
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
        "{}={value}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}",
        cookie_name(&host),
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

/// `GET /logout`: a page with the Sign out button (a GET changes nothing).
pub(crate) async fn logout_page() -> Response {
    super::shell::sign_out_page()
}

/// `POST /logout` (the guard has checked it came from our own page): ends this browser's
/// session and clears its cookie.
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
    let clear = format!(
        "{}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0",
        cookie_name(&host_of(req.headers()))
    );
    if let Ok(v) = HeaderValue::from_str(&clear) {
        r.headers_mut().insert(header::SET_COOKIE, v);
    }
    r
}
