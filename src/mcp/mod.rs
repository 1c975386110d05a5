//! The MCP edge: an rmcp `ServerHandler` over the core [`Memory`], served on stdio.
//!
//! Architecture invariant: in stdio mode nothing but JSON-RPC reaches stdout. Logs go to
//! stderr through `tracing`; this module never prints.
//!
//! Tool calls run on tokio's blocking pool: the core does synchronous file I/O (and fsync),
//! and a call that has started writing finishes even if the client goes away, so a
//! disconnect never leaves half a line behind.

pub mod echo;
pub mod live;
pub mod live_budget;
pub mod ostwin;
mod portable;
pub mod profiles;
mod registry;
pub mod tools;
pub mod unusable;
pub mod wire;

pub use profiles::ToolSet;

use std::sync::Arc;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

use crate::config::Identity;
use crate::memory::Memory;

/// Largest JSON-RPC message accepted on stdin (bytes). Larger lines are dropped by the
/// transport without being buffered whole, so a hostile client cannot exhaust memory.
pub const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// How long a 2026-07-28 client may cache lists that never change while a server runs
/// (tools, resource templates). `resources/list` grows with the rooms: not cached.
pub const LIST_TTL_MS: u64 = 60 * 60 * 1000;

/// True for a request of the 2026-07-28 lifecycle (it names its protocol version in its
/// own `_meta`); a 2025 session's answers stay exactly as they were.
fn inline(context: &RequestContext<RoleServer>) -> bool {
    context.meta.protocol_version().is_some()
}

/// What agents are told when they connect (the server's `instructions`).
pub fn instructions(who: &Identity) -> String {
    let mut s = String::from(
        "warroom-memory is the shared memory of this project's war-rooms: an append-only \
         ledger every room publishes to and reads from.\n\
         Publish (memory_publish) what other rooms need, one fact per entry, choosing the kind:\n",
    );
    for k in crate::entry::Kind::ALL {
        s.push_str(&format!("- {}: {}\n", k.as_str(), k.purpose()));
    }
    s.push_str(
        "Read before you decide: memory_search for a topic, memory_query to filter \
         (tags, kind, room, ref, time). Reads hide your own room's entries unless you pass \
         room_id. A fact changed? Publish the new one with supersedes=<old id>; the old one \
         disappears from views but stays in the ledger for audit (memory_get shows the chain).",
    );
    match (&who.room_id, &who.role) {
        (Some(r), Some(role)) => s.push_str(&format!("\nYou are {role} in room {r}.")),
        (Some(r), None) => s.push_str(&format!("\nYou are in room {r}.")),
        _ => {}
    }
    s
}

/// Who an HTTP request's bearer token says it is. The daemon's HTTP edge puts it in the
/// request's extensions after checking the token; [`Server`] reads it to fix the
/// session's identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credential {
    /// The operator token: the session names its identity with `X-Warroom-*` headers.
    Operator,
    /// An agent token: the session is this identity; a header naming another is refused.
    Agent(Identity),
}

/// The MCP server: shared core plus the caller's identity (one process per agent in stdio
/// mode).
#[derive(Clone)]
pub struct Server {
    memory: Arc<Memory>,
    who: Identity,
    /// The tools this server lists and accepts.
    tools: ToolSet,
    /// HTTP sessions: the identity of the first request (its agent token's, or for the
    /// operator token its `X-Warroom-*` headers'), to which every later request of the
    /// session must agree.
    http_identity: Option<Arc<std::sync::OnceLock<Identity>>>,
    /// Held shared by every running tool call; [`Server::drain`] takes it exclusively to
    /// wait until in-flight calls (and their appends) have finished.
    inflight: Arc<tokio::sync::RwLock<()>>,
    /// The process's live feed, when it serves subscriptions.
    feed: Option<Arc<live::Feed>>,
    /// This session's subscriptions.
    subs: Arc<live::Subscriptions>,
}

impl Server {
    /// The memory this server serves (the daemon's console reads the same one).
    pub fn memory(&self) -> &Arc<Memory> {
        &self.memory
    }

    /// A server over `memory` for the agent identified by `who`.
    pub fn new(memory: Arc<Memory>, who: Identity) -> Self {
        Server {
            memory,
            who,
            tools: ToolSet::All,
            http_identity: None,
            inflight: Arc::new(tokio::sync::RwLock::new(())),
            feed: None,
            subs: Arc::default(),
        }
    }

    /// The same server with live updates: starts the process's feed (once; sessions made
    /// from this server share it).
    pub fn with_live(mut self) -> Self {
        self.feed = Some(live::Feed::start(self.memory.clone()));
        self
    }

    /// A server for one session of a shared daemon: the same memory, tools and in-flight
    /// tracking (so the daemon's shutdown drains every session), its own identity.
    pub fn for_session(&self, who: Identity) -> Server {
        Server {
            memory: self.memory.clone(),
            who,
            tools: self.tools,
            inflight: self.inflight.clone(),
            http_identity: None,
            feed: self.feed.clone(),
            subs: Arc::default(),
        }
    }

    /// A server for one HTTP session of a shared daemon: its identity comes from the
    /// session's headers, fixed by its first tool call.
    pub fn for_http(&self) -> Server {
        Server {
            http_identity: Some(Arc::new(std::sync::OnceLock::new())),
            ..self.for_session(Identity::default())
        }
    }

    /// The caller of one request: the fixed identity, or for HTTP the headers' — which
    /// must name the same identity on every request of a session.
    fn caller(&self, context: &RequestContext<RoleServer>) -> Result<Identity, String> {
        let (Some(bound), Some(parts)) = (
            &self.http_identity,
            context.extensions.get::<http::request::Parts>(),
        ) else {
            return Ok(self.who.clone());
        };
        let header = |name: &str| -> Result<Option<String>, String> {
            parts
                .headers
                .get(name)
                .map(|v| {
                    v.to_str()
                        .map(str::to_string)
                        .map_err(|_| format!("the `{name}` header is not plain text"))
                })
                .transpose()
        };
        let (room, role) = (header("x-warroom-room")?, header("x-warroom-role")?);
        let asked = match parts.extensions.get::<Credential>() {
            // The edge checked the token; no request without one reaches us.
            None => return Err("no credential on this request".into()),
            Some(Credential::Agent(bound)) => {
                let differs = |said: &Option<String>, is: &Option<String>| {
                    said.as_ref().is_some_and(|s| Some(s) != is.as_ref())
                };
                if differs(&room, &bound.room_id) || differs(&role, &bound.role) {
                    return Err(format!(
                        "this token acts as room {} / role {}; the X-Warroom-* headers cannot \
                         change that. Fix: drop the headers, or use a token issued for the \
                         other identity",
                        bound.room_id.as_deref().unwrap_or("-"),
                        bound.role.as_deref().unwrap_or("-"),
                    ));
                }
                bound.clone()
            }
            Some(Credential::Operator) => {
                let env = |k: &str| match k {
                    "WARROOM_ROOM_ID" => room.clone(),
                    "WARROOM_ROLE" => role.clone(),
                    _ => None,
                };
                Identity::from_env(&env).map_err(|e| format!("{e}"))?
            }
        };
        let fixed = bound.get_or_init(|| asked.clone());
        if *fixed != asked {
            return Err(format!(
                "this session acts as room {} / role {}; a request said room {} / role {}. Fix: \
                 open a new session for another identity",
                fixed.room_id.as_deref().unwrap_or("-"),
                fixed.role.as_deref().unwrap_or("-"),
                asked.room_id.as_deref().unwrap_or("-"),
                asked.role.as_deref().unwrap_or("-"),
            ));
        }
        Ok(asked)
    }

    /// The tools this server offers.
    pub fn tool_set(&self) -> ToolSet {
        self.tools
    }

    /// The same server listing only the tools of `set`.
    pub fn with_tools(mut self, set: ToolSet) -> Self {
        self.tools = set;
        self
    }

    /// Waits until every tool call in flight has finished; used on shutdown.
    pub async fn drain(&self) {
        let _all = self.inflight.write().await;
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let caps = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources();
        let caps = if self.feed.is_some() {
            caps.enable_resources_subscribe().build()
        } else {
            caps.build()
        };
        ServerConfig::new(caps)
            .with_server_info(
                Implementation::new("warroom-memory", env!("CARGO_PKG_VERSION"))
                    .with_title("warroom-memory: shared memory for war-rooms of agents"),
            )
            .with_instructions(instructions(&self.who))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        // Fixed for the life of the process; private because a session's tool profile is
        // its own (MCP 2026-07-28 caching hints; older clients never see them).
        let list = ListToolsResult::with_all_items(profiles::list(self.tools));
        Ok(if inline(&context) {
            list.with_ttl_ms(LIST_TTL_MS)
                .with_cache_scope(CacheScope::Private)
        } else {
            list
        })
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let who = self
            .caller(&context)
            .map_err(|m| McpError::invalid_request(m, None))?;
        let memory = self.memory.clone();
        let items = tokio::task::spawn_blocking(move || live::list(&memory, &who))
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        Ok(ListResourcesResult::with_all_items(items))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let list = ListResourceTemplatesResult::with_all_items(live::templates());
        Ok(if inline(&context) {
            list.with_ttl_ms(LIST_TTL_MS)
                .with_cache_scope(CacheScope::Public)
        } else {
            list
        })
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let who = self
            .caller(&context)
            .map_err(|m| McpError::invalid_request(m, None))?;
        let memory = self.memory.clone();
        tokio::task::spawn_blocking(move || live::read(&memory, &who, &request.uri))
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?
            .map(Into::into)
    }

    #[allow(deprecated)] // the protocol versions every client speaks today
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let who = self
            .caller(&context)
            .map_err(|m| McpError::invalid_request(m, None))?;
        let Some(feed) = &self.feed else {
            return Err(McpError::invalid_request(
                "this server does not serve subscriptions",
                None,
            ));
        };
        live::subscribe(
            &self.subs,
            feed,
            self.memory.clone(),
            who,
            request.uri,
            context.peer,
        )
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.feed.as_ref().map(|_| live::accepted(requested))
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        let who = self
            .caller(context.request_context())
            .map_err(|m| McpError::invalid_request(m, None))?;
        let Some(feed) = &self.feed else {
            return Err(McpError::invalid_request(
                "this server does not serve subscriptions",
                None,
            ));
        };
        live::listen(feed, &self.subs, self.memory.clone(), who, context).await
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        live::unsubscribe(&self.subs, &request.uri);
        Ok(())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let who = match self.caller(&context) {
            Ok(who) => who,
            Err(msg) => return Ok(registry::tool_error(msg).into()),
        };
        let Some(tool) = profiles::find(self.tools, &request.name) else {
            let names: Vec<&str> = tools::TOOLS
                .iter()
                .map(|t| t.name)
                .filter(|n| self.tools.includes(n))
                .collect();
            return Err(McpError::invalid_params(
                format!(
                    "unknown tool `{}`; this server has: {}",
                    crate::validate::printable(&request.name),
                    names.join(", ")
                ),
                None,
            ));
        };
        let args = request.arguments.unwrap_or_default();
        let memory = self.memory.clone();
        let started = std::time::Instant::now();
        let guard = self.inflight.clone().read_owned().await;
        // The client's cancellation (or its going away) reaches the call until its commit
        // point; see `crate::cancel`.
        let cancel = crate::cancel::Cancel::new();
        let watcher = {
            let (cancel, ct) = (cancel.clone(), context.ct.clone());
            tokio::spawn(async move {
                ct.cancelled().await;
                cancel.cancel();
            })
        };
        let result = tokio::task::spawn_blocking(move || {
            let _guard = guard;
            crate::cancel::scope(&cancel, || (tool.call)(&memory, &who, args))
        })
        .await
        .unwrap_or_else(|e| registry::tool_error(format!("{} failed internally: {e}", tool.name)));
        watcher.abort();
        tracing::debug!(
            tool = tool.name,
            error = result.is_error.unwrap_or(false),
            elapsed_us = started.elapsed().as_micros() as u64,
            "tool call"
        );
        Ok(result.into())
    }
}
