//! Live updates: MCP resources over the ledger, `resources/subscribe`, and
//! `notifications/resources/updated` when another room publishes.
//!
//! Resources:
//! - `warroom://upstream` — the newest entries of the session's upstream rooms in the plan
//!   DAG (for an operator session, of every room);
//! - `warroom://room/{room_id}` — the newest entries of one room.
//!
//! One [`Feed`] per process (the daemon's serves every session) polls the ledger — a few
//! `stat`s when nothing changed — every [`POLL`], and broadcasts the rooms of new entries,
//! whoever appended them (this process, a direct-mode server, the CLI, OSTwin). Each
//! subscription is a task that maps those rooms onto its URI (the DAG is read at that
//! moment, so a plan registered later counts) and sends `notifications/resources/updated`;
//! the client then reads the resource. Subscriptions end with `resources/unsubscribe` or
//! the session.
//!
//! MCP 2026-07-28 replaces subscribe/unsubscribe with one long-lived request:
//! `subscriptions/listen` names the URIs, is acknowledged with the ones served, and carries
//! `notifications/resources/updated` until the client cancels it. [`listen`] runs it on
//! the same feed, so both revisions see a publish within the same [`POLL`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
    ResourceUpdatedNotificationParam, SubscriptionFilter,
};
use rmcp::service::{Peer, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer};
use tokio::sync::broadcast;

use crate::config::Identity;
use crate::memory::{Cursor, Memory};

/// How often the feed looks for new entries (on PostgreSQL, a `NOTIFY` from any host
/// wakes it at once).
pub const POLL: Duration = Duration::from_millis(200);
/// Entries a resource read returns.
pub const RESOURCE_ENTRIES: usize = 20;
/// Subscriptions one session may hold.
pub const MAX_SUBSCRIPTIONS: usize = 64;
/// URIs a `subscriptions/listen` filter may name (duplicates and unknown shapes counted):
/// a longer one is refused whole rather than held while the stream lives.
pub const MAX_FILTER_URIS: usize = 1024;

use super::live_budget::{Budget, MAX_STREAM_URIS, MAX_STREAMS_PER_SESSION};

const UPSTREAM: &str = "warroom://upstream";
const ROOM_PREFIX: &str = "warroom://room/";

/// The process's poller: broadcasts the rooms of every batch of new entries.
pub struct Feed {
    tx: broadcast::Sender<Arc<Vec<String>>>,
    /// What every stream and subscription of the process holds ([`super::live_budget`]).
    pub budget: Budget,
}

impl Feed {
    /// Starts polling `memory` on a background thread for the life of the process.
    pub fn start(memory: Arc<Memory>) -> Arc<Feed> {
        let (tx, _) = broadcast::channel(256);
        let feed = Arc::new(Feed {
            tx: tx.clone(),
            budget: Budget::default(),
        });
        std::thread::Builder::new()
            .name("warroom-feed".into())
            .spawn(move || {
                let mut cursor = Cursor::default();
                loop {
                    let mark = memory.news_mark();
                    // Keep the cursor current even with no subscriber, so a first
                    // subscriber is not sent the backlog.
                    match memory.rooms_appended_since(&mut cursor) {
                        Ok(rooms) if !rooms.is_empty() && tx.receiver_count() > 0 => {
                            let _ = tx.send(Arc::new(rooms));
                        }
                        Ok(_) => {}
                        Err(e) => {
                            tracing::warn!(error = %e, "live feed: reading the ledger failed")
                        }
                    }
                    memory.wait_for_news(mark, POLL);
                }
            })
            .expect("the feed thread starts");
        feed
    }
}

/// What a URI covers.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    Upstream,
    Room(String),
}

fn parse(uri: &str) -> Result<Target, McpError> {
    if uri == UPSTREAM {
        return Ok(Target::Upstream);
    }
    if let Some(room) = uri.strip_prefix(ROOM_PREFIX)
        && crate::validate::path_component("room_id", room).is_ok()
    {
        return Ok(Target::Room(room.to_string()));
    }
    Err(McpError::resource_not_found(
        format!(
            "no resource `{}`: use {UPSTREAM} or {ROOM_PREFIX}<room_id>",
            crate::validate::printable(uri)
        ),
        None,
    ))
}

/// The rooms `target` covers now (`None` = every room).
fn rooms(memory: &Memory, target: &Target, who: &Identity) -> Option<Vec<String>> {
    match (target, &who.room_id) {
        (Target::Room(r), _) => Some(vec![r.clone()]),
        (Target::Upstream, Some(own)) => Some(memory.upstream_rooms(own).unwrap_or_default()),
        (Target::Upstream, None) => None,
    }
}

/// True if a batch of new entries' rooms touches what `target` covers now (the DAG read at
/// this moment). An empty batch stands for a lagged receiver that missed batches: the
/// client is told to re-read, to be safe.
async fn covers(
    memory: &Arc<Memory>,
    target: &Target,
    who: &Identity,
    batch: &Arc<Vec<String>>,
) -> bool {
    let targets = vec![target.clone()];
    covered(memory, &targets, who, batch).await.first() == Some(&true)
}

/// For each of `targets`, whether `batch` touches it: one read of the DAG off the async
/// workers for all of them, whatever their number.
async fn covered(
    memory: &Arc<Memory>,
    targets: &[Target],
    who: &Identity,
    batch: &Arc<Vec<String>>,
) -> Vec<bool> {
    if batch.is_empty() {
        return vec![true; targets.len()];
    }
    let (m, t, w, b) = (memory.clone(), targets.to_vec(), who.clone(), batch.clone());
    tokio::task::spawn_blocking(move || {
        let mut upstream: Option<Option<Vec<String>>> = None;
        t.iter()
            .map(|target| match target {
                Target::Room(r) => b.contains(r),
                Target::Upstream => upstream
                    .get_or_insert_with(|| rooms(&m, target, &w))
                    .as_ref()
                    .is_none_or(|rs| b.iter().any(|x| rs.contains(x))),
            })
            .collect()
    })
    .await
    .unwrap_or_else(|_| vec![true; targets.len()])
}

/// The session's live state: its subscriptions and how many listen streams it holds.
#[derive(Default)]
pub struct Subscriptions {
    tasks: Mutex<HashMap<String, tokio::task::JoinHandle<()>>>,
    streams: Arc<std::sync::atomic::AtomicUsize>,
}

/// One open listen stream of a session; counted until dropped.
struct Open(Arc<std::sync::atomic::AtomicUsize>);

impl Drop for Open {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Drop for Subscriptions {
    fn drop(&mut self) {
        for (_, t) in self.tasks.lock().unwrap_or_else(|p| p.into_inner()).drain() {
            t.abort();
        }
    }
}

/// `resources/list`: the upstream feed and one resource per room with entries.
pub fn list(memory: &Memory, who: &Identity) -> Vec<Resource> {
    let mut out = vec![resource(
        UPSTREAM,
        "upstream",
        match &who.room_id {
            Some(r) => format!("Newest entries of the rooms upstream of {r} in the plan"),
            None => "Newest entries of every room".to_string(),
        },
    )];
    for r in memory.room_names().unwrap_or_default() {
        out.push(resource(
            &format!("{ROOM_PREFIX}{r}"),
            &r,
            format!("Newest entries of {r}"),
        ));
    }
    out
}

fn resource(uri: &str, name: &str, description: String) -> Resource {
    let mut r = Resource::new(uri, name).with_description(description);
    r.mime_type = Some("text/markdown".into());
    r
}

/// `resources/templates/list`.
pub fn templates() -> Vec<ResourceTemplate> {
    let mut t = ResourceTemplate::new(format!("{ROOM_PREFIX}{{room_id}}"), "room")
        .with_description("Newest entries of one room");
    t.mime_type = Some("text/markdown".into());
    vec![t]
}

/// `resources/read`: the newest live entries the URI covers, as markdown.
pub fn read(memory: &Memory, who: &Identity, uri: &str) -> Result<ReadResourceResult, McpError> {
    let target = parse(uri)?;
    let covered = rooms(memory, &target, who);
    let entries = memory
        .recent_in_rooms(covered.as_deref(), None, RESOURCE_ENTRIES, who)
        .map_err(|e| McpError::internal_error(e.to_string(), None))?;
    let mut text = format!("# {uri}\n");
    if let Some(rs) = &covered {
        text.push_str(&format!(
            "rooms: {}\n",
            if rs.is_empty() {
                "none".into()
            } else {
                rs.join(", ")
            }
        ));
    }
    for e in &entries {
        text.push_str(&format!(
            "- [{}] {} ({}, {}, {}) id={}\n",
            e.kind.as_str(),
            e.summary,
            e.room_id,
            e.author_role,
            e.ts,
            e.id
        ));
    }
    if entries.is_empty() {
        text.push_str("(no entries yet)\n");
    }
    let mut contents = ResourceContents::text(text, uri);
    if let ResourceContents::TextResourceContents { mime_type, .. } = &mut contents {
        *mime_type = Some("text/markdown".into());
    }
    Ok(ReadResourceResult::new(vec![contents]))
}

/// `resources/subscribe`: a task that notifies `peer` whenever an entry of a covered room
/// is appended.
pub fn subscribe(
    subs: &Subscriptions,
    feed: &Feed,
    memory: Arc<Memory>,
    who: Identity,
    uri: String,
    peer: Peer<RoleServer>,
) -> Result<(), McpError> {
    let target = parse(&uri)?;
    let mut tasks = subs.tasks.lock().unwrap_or_else(|p| p.into_inner());
    if tasks.contains_key(&uri) {
        return Ok(());
    }
    if tasks.len() >= MAX_SUBSCRIPTIONS {
        return Err(McpError::invalid_params(
            format!(
                "this session holds {MAX_SUBSCRIPTIONS} subscriptions, the limit; unsubscribe first"
            ),
            None,
        ));
    }
    let charge = feed
        .budget
        .charge(&who, 1)
        .map_err(|m| McpError::invalid_params(m, None))?;
    let mut rx = feed.tx.subscribe();
    let key = uri.clone();
    let task = tokio::spawn(async move {
        let _charge = charge;
        loop {
            let batch = match rx.recv().await {
                Ok(b) => b,
                Err(broadcast::error::RecvError::Lagged(_)) => Arc::new(Vec::new()),
                Err(broadcast::error::RecvError::Closed) => return,
            };
            if covers(&memory, &target, &who, &batch).await
                && peer
                    .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri.clone()))
                    .await
                    .is_err()
            {
                return; // the session is gone
            }
        }
    });
    tasks.insert(key, task);
    Ok(())
}

/// `resources/unsubscribe`.
pub fn unsubscribe(subs: &Subscriptions, uri: &str) {
    if let Some(t) = subs
        .tasks
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(uri)
    {
        t.abort();
    }
}

/// `subscriptions/listen`: the part of `requested` this server serves — the URIs of
/// [`list`]'s shapes, each once, at most [`MAX_STREAM_URIS`] of them (the rest are left
/// out of the acknowledgment, which is how the revision says "not served").
pub fn accepted(requested: &SubscriptionFilter) -> SubscriptionFilter {
    let mut seen = std::collections::HashSet::new();
    let uris: Vec<String> = requested
        .resource_subscriptions
        .iter()
        .flatten()
        .take(MAX_FILTER_URIS)
        .filter(|u| parse(u).is_ok() && seen.insert(u.as_str()))
        .take(MAX_STREAM_URIS)
        .cloned()
        .collect();
    SubscriptionFilter::builder()
        .resource_subscriptions(uris)
        .build()
}

/// Runs one `subscriptions/listen` stream until the client cancels it or goes away:
/// every batch of new entries is mapped onto each accepted URI (the DAG read at that
/// moment), and a covered URI gets `notifications/resources/updated`.
///
/// Refused at once (the stream ends with the error; nothing is held): a filter naming
/// more than [`MAX_FILTER_URIS`] URIs, a session already holding
/// [`MAX_STREAMS_PER_SESSION`] streams, a spent budget ([`super::live_budget`]).
pub async fn listen(
    feed: &Feed,
    subs: &Subscriptions,
    memory: Arc<Memory>,
    who: Identity,
    context: SubscriptionContext,
) -> Result<(), McpError> {
    let named = context
        .requested()
        .resource_subscriptions
        .as_ref()
        .map_or(0, Vec::len);
    if named > MAX_FILTER_URIS {
        return Err(McpError::invalid_params(
            format!(
                "the filter names {named} URIs; a stream may name at most {MAX_FILTER_URIS}                  (and is served {MAX_STREAM_URIS} distinct ones). Fix: name the URIs you read"
            ),
            None,
        ));
    }
    use std::sync::atomic::Ordering;
    if subs.streams.fetch_add(1, Ordering::SeqCst) >= MAX_STREAMS_PER_SESSION {
        subs.streams.fetch_sub(1, Ordering::SeqCst);
        return Err(McpError::invalid_params(
            format!(
                "this session holds {MAX_STREAMS_PER_SESSION} listen streams, the limit. Fix: \
                 one stream can name up to {MAX_STREAM_URIS} URIs; cancel streams you no \
                 longer read"
            ),
            None,
        ));
    }
    let _open = Open(subs.streams.clone());
    // rmcp acknowledges the requested URIs that [`accepted`] serves, repeats included; each
    // is served once.
    let mut seen = std::collections::HashSet::new();
    let (uris, targets): (Vec<String>, Vec<Target>) = context
        .accepted()
        .resource_subscriptions
        .iter()
        .flatten()
        .filter(|u| seen.insert(u.as_str()))
        .take(MAX_STREAM_URIS)
        .filter_map(|u| parse(u).ok().map(|t| (u.clone(), t)))
        .unzip();
    let _charge = feed
        .budget
        .charge(&who, uris.len())
        .map_err(|m| McpError::invalid_params(m, None))?;
    let mut rx = feed.tx.subscribe();
    loop {
        let batch = tokio::select! {
            _ = context.cancelled() => return Ok(()),
            b = rx.recv() => match b {
                Ok(b) => b,
                // A lagged receiver missed batches: every URI is told to re-read.
                Err(broadcast::error::RecvError::Lagged(_)) => Arc::new(Vec::new()),
                Err(broadcast::error::RecvError::Closed) => return Ok(()),
            },
        };
        let hit = covered(&memory, &targets, &who, &batch).await;
        for (uri, _) in uris.iter().zip(hit).filter(|(_, h)| *h) {
            if context
                .sink()
                .notify_resource_updated(uri.clone())
                .await
                .is_err()
            {
                return Ok(()); // the stream or the session is gone
            }
        }
    }
}
