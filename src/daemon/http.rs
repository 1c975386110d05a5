//! The daemon's HTTP edge: MCP Streamable HTTP at `/mcp` (rmcp's `StreamableHttpService`
//! on axum), in front of the same tool table as stdio. This module only translates:
//! checks come first as layers (bearer token → 401; rmcp's Host and `Origin` validation
//! → 403), then every session gets an `mcp::Server` whose identity comes from its
//! credential ([`super::credentials`]): an agent token *is* a room and role; the operator
//! token names one with the `X-Warroom-Room` / `X-Warroom-Role` headers
//! ([`crate::mcp::Server::for_http`]).
//!
//! Limits: open connections, open sessions and idle times are bounded
//! ([`super::http_conn`], [`HttpOptions`]); a refusal says which limit and how to raise it.
//!
//! Security defaults: every request needs a bearer token, on loopback too — any account
//! on the machine can reach a loopback port. Without `--token-file` / `WARROOM_TOKEN` the
//! daemon uses the operator token of its credentials directory (made on first use, 0600).
//! Binding off loopback needs an explicitly given token; browser requests (they carry
//! `Origin`) are refused unless their origin is allowed (`--allow-origin`), the MCP
//! spec's DNS-rebinding defence.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context as _;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::credentials::{CredentialStore, Verifier};
use super::http_sessions::{CredentialKey, SessionOwners, bind_sessions};
use crate::mcp::Server;

/// Default address of the daemon's HTTP endpoint.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:7391";

/// How the daemon serves HTTP.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Address to bind (port 0: any free port).
    pub listen: SocketAddr,
    /// The operator token: given (`--token-file`, `WARROOM_TOKEN`), else the credentials
    /// directory's (filled in by the daemon before it serves).
    pub token: Option<String>,
    /// Browser origins allowed to call (e.g. `http://localhost:5173`); none by default.
    pub allow_origins: Vec<String>,
    /// Where agent tokens are kept (`token issue`); none: only the operator token.
    pub credentials: Option<CredentialStore>,
    /// Cap on open connections (`--max-connections`).
    pub max_connections: usize,
    /// Connections one credential may hold (`--max-connections-per-credential`).
    pub max_connections_per_credential: usize,
    /// Cap on open MCP sessions (`--max-sessions`).
    pub max_sessions: usize,
    /// Cap on the open MCP sessions of one credential (`--max-sessions-per-credential`).
    pub max_sessions_per_credential: usize,
    /// A session without a request for this long ends (`--session-idle`).
    pub session_idle: std::time::Duration,
    /// A connection sending half a request head, or idle between requests, is closed
    /// after this long (`--header-timeout`).
    pub header_timeout: std::time::Duration,
    /// A console session without a request for this long ends (`--console-idle`).
    pub console_idle: std::time::Duration,
    /// A console session ends this long after sign-in (`--console-max-age`).
    pub console_max_age: std::time::Duration,
}

/// Default cap on open MCP sessions (~50 KB each while open).
pub const DEFAULT_MAX_SESSIONS: usize = 1000;
/// Default idle time after which a session ends.
pub const DEFAULT_SESSION_IDLE: std::time::Duration = std::time::Duration::from_secs(300);

impl HttpOptions {
    /// Refuses a non-loopback address without an explicitly given token, saying how to
    /// give one (on loopback the daemon's own operator token is used when none is given).
    pub fn check(&self) -> anyhow::Result<()> {
        if !self.listen.ip().is_loopback() && self.token.is_none() {
            anyhow::bail!(
                "refusing to serve HTTP on {} (not loopback) without a bearer token. Fix: \
                 pass --token-file FILE (or set WARROOM_TOKEN) and give clients \
                 `Authorization: Bearer <token>`, or listen on 127.0.0.1",
                self.listen
            );
        }
        if let Some(t) = &self.token
            && t.len() < 16
        {
            anyhow::bail!(
                "the bearer token is {} bytes; use at least 16 random bytes (e.g. `openssl rand -hex 32`)",
                t.len()
            );
        }
        Ok(())
    }
}

/// Binds the HTTP listener (inside a runtime).
pub async fn bind(opts: &HttpOptions) -> anyhow::Result<tokio::net::TcpListener> {
    tokio::net::TcpListener::bind(opts.listen)
        .await
        .with_context(|| {
            format!(
                "binding HTTP on {}. Fix: pick another address with --listen (port 0 = any free \
             port), or --listen none for no HTTP",
                opts.listen
            )
        })
}

/// Serves `/mcp` on `listener` until `stop` is cancelled.
pub async fn serve(
    listener: tokio::net::TcpListener,
    opts: HttpOptions,
    template: Server,
    stop: CancellationToken,
) -> anyhow::Result<()> {
    let mut config = StreamableHttpServerConfig::default()
        .with_allowed_origins(opts.allow_origins.clone())
        .enforce_origin_validation()
        .with_json_response(true)
        .with_cancellation_token(stop.child_token());
    if !opts.listen.ip().is_loopback() {
        // Off loopback the token guards every request; Host names are the operator's.
        config = config.with_allowed_hosts(Vec::<String>::new());
    }
    let console = crate::console::router(
        template.memory().clone(),
        crate::console::ConsoleOptions {
            operator_token: opts
                .token
                .clone()
                .context("the HTTP edge needs an operator token")?,
            hosts: console_hosts(listener.local_addr()?, &opts.allow_origins),
            idle: opts.console_idle,
            max_age: opts.console_max_age,
        },
        stop.child_token(),
    );
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(opts.session_idle);
    let sessions = Arc::new(sessions);
    let service =
        StreamableHttpService::new(move || Ok(template.for_http()), sessions.clone(), config);
    let operator = opts
        .token
        .clone()
        .context("the HTTP edge needs an operator token")?;
    let verifier = Arc::new(Verifier::new(operator, opts.credentials.clone()));
    let owners = Arc::new(SessionOwners::new(
        sessions,
        opts.max_sessions,
        opts.max_sessions_per_credential,
    ));
    // Layers run outside in: the credential first, then the sessions' owners and caps. The console
    // has its own guard (a browser brings a cookie, not a bearer header).
    let router = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn(screen_errors))
        .layer(axum::middleware::from_fn_with_state(owners, bind_sessions))
        .layer(axum::middleware::from_fn_with_state(verifier, authenticate))
        .merge(console);
    super::http_conn::serve(
        listener,
        router,
        super::http_conn::Limits {
            max_connections: opts.max_connections,
            per_credential: opts.max_connections_per_credential,
            header_timeout: opts.header_timeout,
        },
        stop,
    )
    .await;
    Ok(())
}

/// The `Host` values the console answers: the bound address, its loopback names when it
/// is on loopback, and the hosts of the allowed browser origins.
fn console_hosts(addr: SocketAddr, origins: &[String]) -> Vec<String> {
    let port = addr.port();
    let mut hosts = vec![addr.to_string()];
    if addr.ip().is_loopback() {
        hosts.extend([
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
        ]);
    }
    for o in origins {
        let host = o.split_once("://").map_or(o.as_str(), |(_, h)| h);
        hosts.push(host.trim_end_matches('/').to_string());
    }
    hosts
}

/// Most bytes of a JSON answer read back to screen it (rmcp's answers are whole buffers;
/// a tool's result is bounded far below this by the tools' own limits).
const MAX_SCREENED_BODY: usize = 64 << 20;

/// Screens the client strings an error answer repeats ([`crate::mcp::echo`]), as the stdio
/// wire does; results and event streams pass untouched.
async fn screen_errors(req: Request, next: Next) -> Response {
    let resp = next.run(req).await;
    let json = resp
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("application/json"));
    if !json {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_SCREENED_BODY).await {
        Ok(b) => b,
        Err(e) => {
            tracing::warn!("http: an answer could not be read back to screen it: {e}");
            return (
                http::StatusCode::INTERNAL_SERVER_ERROR,
                "the answer could not be screened; retry the call",
            )
                .into_response();
        }
    };
    let is_error = bytes.windows(8).any(|w| w == b"\"error\":");
    match is_error
        .then(|| crate::mcp::echo::screen_body(&bytes))
        .flatten()
    {
        Some(screened) => {
            parts.headers.remove(http::header::CONTENT_LENGTH);
            Response::from_parts(parts, axum::body::Body::from(screened))
        }
        None => Response::from_parts(parts, axum::body::Body::from(bytes)),
    }
}

/// 401 unless the request carries `Authorization: Bearer <token>` with a token the
/// verifier knows; otherwise the request goes on carrying its [`crate::mcp::Credential`].
async fn authenticate(State(v): State<Arc<Verifier>>, mut req: Request, next: Next) -> Response {
    let given = req
        .headers()
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    if let Some((key, who)) = given.and_then(|g| Some((CredentialKey::of(g), v.check(g)?))) {
        if let Err(at) = super::http_conn::Proven::mark(&req, &key.holder()) {
            return crate::conn::at_share_response(at.limit);
        }
        req.extensions_mut().insert(who);
        req.extensions_mut().insert(key);
        return next.run(req).await;
    }
    (
        http::StatusCode::UNAUTHORIZED,
        [(http::header::WWW_AUTHENTICATE, "Bearer")],
        "missing, wrong or revoked bearer token: send `Authorization: Bearer <token>`. The \
         operator token is in the file `warroom-memory daemon status` names; an agent gets \
         its own with `warroom-memory token issue --room R --role ROLE`",
    )
        .into_response()
}
