//! The console: a read-only web view of the memory for people (README § The console), served by
//! the daemon on its HTTP listener beside `/mcp`.
//!
//! An edge like `mcp` and `cli`: every page reads through [`Memory`]'s operations and
//! renders on the server (maud); pages work without JavaScript, and the one script
//! (`assets/console.js`, ours) only adds live updates from `/events` (Server-Sent Events).
//! Every asset is compiled into the binary.
//!
//! Pages: `/` plans and their DAGs, `/plan/{id}` one of them ([`home`]), `/timeline` ([`timeline`]), `/entry/{id}`
//! ([`entry`]), `/room/{room}` and `/receipt/{id}` ([`room`]), `/search` ([`search`]),
//! `/audit` and `/audit/diff` ([`audit`]), `/events` ([`events`]).
//!
//! Security ([`guard`]): every request passes the `Host` allowlist (DNS rebinding) and is
//! refused with a foreign `Origin`; only GET and HEAD; the operator's credential is needed
//! on every page — a browser signs in once through `/login?code=…` (the URL
//! `warroom-memory console` prints: a one-time, minute-long code, never the token) and
//! keeps a random session of its own in an `HttpOnly; SameSite=Strict` cookie, ended by
//! idle or absolute expiry or `/logout` ([`signin`]); responses carry a strict Content-Security-Policy (no inline
//! script, no `eval`, nothing from elsewhere), `nosniff`, `frame-ancestors 'none'` and
//! `no-store`. Agent text is always escaped, with bidi controls and invisible characters
//! shown as visible markers ([`shell::shown`]).

mod audit;
mod dag_svg;
mod entry;
#[cfg(test)]
mod escape_tests;
mod events;
mod guard;
mod home;
mod overlaps;
mod room;
mod search;
mod shell;
pub mod signin;
mod timeline;

use std::sync::Arc;

use axum::Router;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tokio_util::sync::CancellationToken;

use crate::error::Error;
use crate::memory::Memory;

/// Most `/events` streams open at once; past it a new one gets 503.
pub const MAX_EVENT_CLIENTS: usize = 64;

/// What the console needs besides the memory.
#[derive(Debug, Clone)]
pub struct ConsoleOptions {
    /// The operator's bearer token: a request carries it, or the cookie derived from it.
    pub operator_token: String,
    /// `Host` values accepted (`name:port`), compared case-insensitively.
    pub hosts: Vec<String>,
    /// A console session without a request for this long ends (`--console-idle`).
    pub idle: std::time::Duration,
    /// A console session ends this long after sign-in (`--console-max-age`).
    pub max_age: std::time::Duration,
}

/// Shared by every handler.
pub(crate) struct Console {
    pub memory: Arc<Memory>,
    pub stop: CancellationToken,
    pub events: Arc<tokio::sync::Semaphore>,
    pub guard: Arc<guard::Guard>,
}

type Shared = Arc<Console>;

/// The console's routes, guarded; merged beside `/mcp` by the daemon's HTTP edge.
pub fn router(memory: Arc<Memory>, opts: ConsoleOptions, stop: CancellationToken) -> Router {
    let guard = Arc::new(guard::Guard::new(opts));
    let state: Shared = Arc::new(Console {
        memory,
        stop,
        events: Arc::new(tokio::sync::Semaphore::new(MAX_EVENT_CLIENTS)),
        guard: guard.clone(),
    });
    Router::new()
        .route("/", get(home::handler))
        .route("/plan/{id}", get(home::plan))
        .route("/timeline", get(timeline::handler))
        .route("/entry/{id}", get(entry::handler))
        .route("/room/{room}", get(room::handler))
        .route("/receipt/{id}", get(room::receipt))
        .route("/search", get(search::handler))
        .route("/overlaps", get(overlaps::handler))
        .route("/audit", get(audit::handler))
        .route("/audit/diff", get(audit::diff))
        .route("/events", get(events::stream))
        .route("/login", get(guard::login))
        .route("/logout", get(guard::logout_page).post(guard::logout))
        .route("/assets/console.css", get(shell::css))
        .route("/assets/console.js", get(shell::js))
        .route("/assets/icon.svg", get(shell::icon))
        .fallback(not_found)
        .with_state(state)
        .layer(axum::middleware::from_fn_with_state(guard, guard::check))
}

async fn not_found(uri: axum::http::Uri) -> Response {
    shell::error_page(
        http::StatusCode::NOT_FOUND,
        "Not found",
        &format!("There is no page at {}.", uri.path()),
    )
}

/// A core error as a page: 404 for what does not exist, 400 for a bad parameter.
pub(crate) fn error_response(e: Error) -> Response {
    let (status, title) = match &e {
        Error::NotFound(_) => (http::StatusCode::NOT_FOUND, "Not found"),
        Error::Invalid { .. } => (http::StatusCode::BAD_REQUEST, "Bad request"),
        _ => (http::StatusCode::INTERNAL_SERVER_ERROR, "Could not read"),
    };
    if status == http::StatusCode::INTERNAL_SERVER_ERROR {
        tracing::warn!("console: {e}");
    }
    shell::error_page(status, title, &e.to_string())
}

/// Runs a blocking read of the memory off the async workers.
pub(crate) async fn read<T: Send + 'static>(
    c: &Shared,
    f: impl FnOnce(&Memory) -> crate::error::Result<T> + Send + 'static,
) -> Result<T, Response> {
    let memory = c.memory.clone();
    match tokio::task::spawn_blocking(move || f(&memory)).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(error_response(e)),
        Err(e) => Err(shell::error_page(
            http::StatusCode::INTERNAL_SERVER_ERROR,
            "Could not read",
            &format!("the read failed: {e}"),
        )),
    }
}

/// A rendered page as a response.
pub(crate) fn html(markup: maud::Markup) -> Response {
    markup.into_response()
}
