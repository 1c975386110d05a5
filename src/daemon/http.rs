//! The daemon's HTTP edge: MCP Streamable HTTP at `/mcp` (rmcp's `StreamableHttpService`
//! on axum), in front of the same tool table as stdio. This module only translates:
//! checks come first as layers (bearer token → 401; rmcp's Host and `Origin` validation
//! → 403), then every session gets an `mcp::Server` whose identity comes from its
//! credential ([`super::credentials`]): an agent token *is* a room and role; the operator
//! token names one with the `X-Warroom-Room` / `X-Warroom-Role` headers
//! ([`crate::mcp::Server::for_http`]).
//!
//! Security defaults: every request needs a bearer token, on loopback too — any account
//! on the machine can reach a loopback port. Without `--token-file` / `WARROOM_TOKEN` the
//! daemon uses the operator token of its credentials directory (made on first use, 0600).
//! Binding off loopback needs an explicitly given token; browser requests (they carry
//! `Origin`) are refused unless their origin is allowed (`--allow-origin`), the MCP
//! spec's DNS-rebinding defence. Accepted connections get `TCP_NODELAY`: MCP clients keep
//! a connection alive, and with Nagle's algorithm every later response on it waited
//! ~40 ms for the client's delayed ACK.

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
}

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
    let service = StreamableHttpService::new(
        move || Ok(template.for_http()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let mut router = axum::Router::new().nest_service("/mcp", service);
    let operator = opts
        .token
        .clone()
        .context("the HTTP edge needs an operator token")?;
    let verifier = Arc::new(Verifier::new(operator, opts.credentials.clone()));
    router = router.layer(axum::middleware::from_fn_with_state(verifier, authenticate));
    use axum::serve::ListenerExt as _;
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!("TCP_NODELAY: {e}");
        }
    });
    axum::serve(listener, router)
        .with_graceful_shutdown(stop.cancelled_owned())
        .await
        .context("serving HTTP")
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
    if let Some(who) = given.and_then(|g| v.check(g)) {
        req.extensions_mut().insert(who);
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
