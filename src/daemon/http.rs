//! The daemon's HTTP edge: MCP Streamable HTTP at `/mcp` (rmcp's `StreamableHttpService`
//! on axum), in front of the same tool table as stdio. This module only translates:
//! checks come first as layers (bearer token → 401; rmcp's Host and `Origin` validation
//! → 403), then every session gets an `mcp::Server` whose identity comes from the
//! `X-Warroom-Room` / `X-Warroom-Role` headers ([`crate::mcp::Server::for_http`]).
//!
//! Security defaults: loopback only; binding any other address needs a bearer token (a
//! file or `WARROOM_TOKEN`), refused otherwise; browser requests (they carry `Origin`)
//! are refused unless their origin is allowed (`--allow-origin`), the MCP spec's
//! DNS-rebinding defence.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context as _;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use crate::mcp::Server;

/// Default address of the daemon's HTTP endpoint.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:7391";

/// How the daemon serves HTTP.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Address to bind (port 0: any free port).
    pub listen: SocketAddr,
    /// Bearer token every request must carry (required off loopback).
    pub token: Option<String>,
    /// Browser origins allowed to call (e.g. `http://localhost:5173`); none by default.
    pub allow_origins: Vec<String>,
}

impl HttpOptions {
    /// Refuses a non-loopback address without a token, saying how to give one.
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
    if let Some(token) = opts.token.clone() {
        router = router.layer(axum::middleware::from_fn_with_state(
            Arc::new(token),
            require_token,
        ));
    }
    axum::serve(listener, router)
        .with_graceful_shutdown(stop.cancelled_owned())
        .await
        .context("serving HTTP")
}

/// 401 unless the request carries `Authorization: Bearer <token>`.
async fn require_token(State(token): State<Arc<String>>, req: Request, next: Next) -> Response {
    let given = req
        .headers()
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    if given.is_some_and(|g| constant_time_eq(g.as_bytes(), token.as_bytes())) {
        return next.run(req).await;
    }
    (
        http::StatusCode::UNAUTHORIZED,
        [(http::header::WWW_AUTHENTICATE, "Bearer")],
        "missing or wrong bearer token: send `Authorization: Bearer <token>` (the daemon's --token-file)",
    )
        .into_response()
}

/// Compares without an early exit, so timing does not reveal a matching prefix.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
