//! MCP sessions over HTTP belong to the credential that opened them.
//!
//! rmcp's session manager knows sessions by id only; anyone holding a valid token and a
//! session's id could end it (`DELETE /mcp`) or listen to its notifications (`GET /mcp`).
//! This layer, after the bearer check, records which credential (a digest of its token)
//! opened each session and answers a request on a session with another credential as
//! rmcp answers an unknown session (404), so it learns nothing either.
//!
//! It also bounds sessions: all of them (`--max-sessions`, 503) and those of one
//! credential (`--max-sessions-per-credential`, 429), so one agent token cannot take every
//! session and shut the others out. And a `DELETE` rmcp accepts is answered `204 No
//! Content` (the official Python client reports 202 as a failed termination).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

/// Which credential a request carries: a digest of its bearer token (set by the bearer
/// check, read here).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CredentialKey(pub [u8; 32]);

impl CredentialKey {
    /// The key of `token`.
    pub fn of(token: &str) -> CredentialKey {
        CredentialKey(*blake3::hash(token.as_bytes()).as_bytes())
    }

    /// The key as a connection's holder name (hex of the digest; never the token).
    pub fn holder(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// Default cap on the sessions one credential may hold open.
pub const DEFAULT_PER_CREDENTIAL: usize = 32;

/// Open sessions, their owners and the caps.
pub struct SessionOwners {
    /// rmcp's sessions (the live ones: ended and expired sessions leave its map).
    pub sessions: Arc<LocalSessionManager>,
    /// Cap on all open sessions.
    pub max: usize,
    /// Cap on one credential's open sessions.
    pub per_credential: usize,
    owners: Mutex<HashMap<String, CredentialKey>>,
}

impl SessionOwners {
    /// Owners of the sessions of `sessions`, under the two caps.
    pub fn new(sessions: Arc<LocalSessionManager>, max: usize, per_credential: usize) -> Self {
        SessionOwners {
            sessions,
            max,
            per_credential,
            owners: Mutex::new(HashMap::new()),
        }
    }

    fn owners(&self) -> std::sync::MutexGuard<'_, HashMap<String, CredentialKey>> {
        self.owners.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn refuse(status: StatusCode, retry: bool, message: String) -> Response {
    let mut r = (status, message).into_response();
    if retry {
        r.headers_mut().insert(
            http::header::RETRY_AFTER,
            http::HeaderValue::from_static("30"),
        );
    }
    r
}

/// The layer: owner check on requests naming a session, caps on requests that may open
/// one, and the owner recorded from the response that opened it.
pub async fn bind_sessions(
    State(s): State<Arc<SessionOwners>>,
    req: Request,
    next: Next,
) -> Response {
    let who = req.extensions().get::<CredentialKey>().copied();
    let session = req
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    if let Some(id) = session {
        let owner = s.owners().get(&id).copied();
        if owner.is_some() && owner != who {
            return refuse(
                StatusCode::NOT_FOUND,
                false,
                "Session not found: no session with that id belongs to this credential. \
                 Fix: open a session of your own (initialize)"
                    .into(),
            );
        }
        let delete = req.method() == http::Method::DELETE;
        let mut resp = next.run(req).await;
        if delete && resp.status().is_success() {
            *resp.status_mut() = StatusCode::NO_CONTENT;
            *resp.body_mut() = axum::body::Body::empty();
            s.owners().remove(&id);
        }
        return resp;
    }
    if req.method() != http::Method::POST {
        return next.run(req).await;
    }
    let live: HashSet<String> = s
        .sessions
        .sessions
        .read()
        .await
        .keys()
        .map(|k| k.to_string())
        .collect();
    let mine = {
        let mut owners = s.owners();
        owners.retain(|k, _| live.contains(k));
        owners.values().filter(|o| Some(**o) == who).count()
    };
    if live.len() >= s.max {
        tracing::warn!(
            open = live.len(),
            max = s.max,
            "HTTP: session cap reached; refusing a new one"
        );
        return refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            true,
            format!(
                "{} MCP sessions are open, the daemon's cap (--max-sessions {}). Fix: close \
                 sessions you no longer use (HTTP DELETE), wait for idle ones to expire, or \
                 raise --max-sessions",
                live.len(),
                s.max
            ),
        );
    }
    if mine >= s.per_credential {
        tracing::warn!(
            mine,
            max = s.per_credential,
            "HTTP: one credential's session cap reached"
        );
        return refuse(
            StatusCode::TOO_MANY_REQUESTS,
            true,
            format!(
                "this credential already holds {mine} open MCP sessions, the cap for one \
                 credential (--max-sessions-per-credential {}). Fix: close sessions you no \
                 longer use (HTTP DELETE) or reuse one; idle sessions expire after \
                 --session-idle",
                s.per_credential
            ),
        );
    }
    let resp = next.run(req).await;
    if let (Some(id), Some(w)) = (
        resp.headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok()),
        who,
    ) {
        s.owners().insert(id.to_string(), w);
    }
    resp
}
