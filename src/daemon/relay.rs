//! The relay: what `serve` becomes when a daemon serves its root. It loads no index; it
//! copies JSON-RPC lines between the agent's stdio and the daemon's socket, after a hello
//! carrying the agent's identity (from its own environment, never from a message).
//!
//! It understands only framing and what failover needs: the agent's `initialize` request
//! and `initialized` notification (to replay them), and the ids of requests in flight. If
//! the daemon goes away mid-session (killed, restarted), the relay
//! 1. answers every request in flight with an error saying it may or may not have been
//!    applied (it was never acknowledged, so nothing acknowledged is lost; it is never
//!    resent, so nothing is written twice),
//! 2. attaches to a daemon serving the root again if one answers, else opens the memory
//!    itself (direct mode, in this process),
//! 3. replays `initialize` (its answer is swallowed) and `initialized`, and goes on.
//!
//! Reading stdin and the upstream run as separate tasks feeding one channel, so no read is
//! ever cancelled half-way.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::{HELLO_OK, Hello, Place};
use crate::config::Identity;
use crate::mcp::wire::LineTransport;
use crate::mcp::{MAX_MESSAGE_BYTES, Server};
use crate::memory::Memory;

/// How `serve` uses a daemon (`serve --daemon`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum AttachMode {
    /// Attach when a daemon serves the root; otherwise serve directly.
    #[default]
    Auto,
    /// Attach or fail: never load the ledger in this process.
    Require,
    /// Never attach: always serve directly.
    Off,
}

/// How long connecting and saying hello to a daemon may take.
const ATTACH_TIMEOUT: Duration = Duration::from_secs(2);

type Writer = Box<dyn AsyncWrite + Unpin + Send>;

/// Connects to the daemon at `place` as `who`; `None` if no daemon answers in time.
pub async fn attach(
    place: &Place,
    who: &Identity,
    tools: crate::mcp::ToolSet,
) -> Option<(Box<dyn AsyncRead + Unpin + Send>, Writer)> {
    let connect = async {
        let stream = tokio::net::UnixStream::connect(&place.socket).await.ok()?;
        let (read, mut write) = stream.into_split();
        let hello = serde_json::to_string(&Hello::attach(who, tools)).ok()?;
        write
            .write_all(format!("{hello}\n").as_bytes())
            .await
            .ok()?;
        let mut reader = BufReader::new(read);
        let mut reply = String::new();
        reader.read_line(&mut reply).await.ok()?;
        if reply.trim() != HELLO_OK {
            tracing::warn!("the daemon refused the session: {}", reply.trim());
            return None;
        }
        Some((
            Box::new(reader) as Box<dyn AsyncRead + Unpin + Send>,
            Box::new(write) as Writer,
        ))
    };
    tokio::time::timeout(ATTACH_TIMEOUT, connect)
        .await
        .ok()
        .flatten()
}

/// A server in this process behind an in-memory pipe, speaking the same lines.
fn direct(server: Server) -> (Box<dyn AsyncRead + Unpin + Send>, Writer) {
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    let (their_read, their_write) = tokio::io::split(theirs);
    tokio::spawn(async move {
        let transport = LineTransport::new(their_read, their_write, MAX_MESSAGE_BYTES);
        if let Ok(service) = server.serve(transport).await {
            let _ = service.waiting().await;
        }
    });
    let (read, write) = tokio::io::split(ours);
    (Box::new(read), Box::new(write))
}

enum Event {
    Client(Vec<u8>),
    ClientClosed,
    Upstream(u64, Vec<u8>),
    UpstreamClosed(u64),
}

/// Reads lines (≤ the message bound; longer ones are passed on cut, for the far side to
/// refuse) and sends them as events until EOF.
fn pump(
    reader: impl AsyncRead + Unpin + Send + 'static,
    tx: mpsc::Sender<Event>,
    line: impl Fn(Vec<u8>) -> Event + Send + 'static,
    closed: Event,
) {
    tokio::spawn(async move {
        let mut reader = BufReader::new(reader);
        loop {
            let mut buf = Vec::new();
            match reader.read_until(b'\n', &mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if tx.send(line(buf)).await.is_err() {
                        return;
                    }
                }
            }
        }
        let _ = tx.send(closed).await;
    });
}

/// What the relay remembers to fail over.
#[derive(Default)]
struct Session {
    initialize: Option<Vec<u8>>,
    initialized: Option<Vec<u8>>,
    in_flight: HashSet<String>,
    /// Id of a replayed `initialize` whose answer the agent must not see twice.
    swallow: Option<String>,
}

fn id_key(v: &Value) -> Option<String> {
    v.get("id").filter(|i| !i.is_null()).map(Value::to_string)
}

impl Session {
    fn note_client(&mut self, line: &[u8]) {
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            return;
        };
        match v.get("method").and_then(Value::as_str) {
            Some("initialize") => self.initialize = Some(line.to_vec()),
            Some("notifications/initialized") => self.initialized = Some(line.to_vec()),
            _ => {}
        }
        if v.get("method").is_some()
            && let Some(id) = id_key(&v)
        {
            self.in_flight.insert(id);
        }
    }

    /// False if the line must not reach the agent (the answer to a replayed initialize).
    fn pass_upstream(&mut self, line: &[u8]) -> bool {
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            return true;
        };
        if v.get("method").is_some() {
            return true; // the server's own notifications and requests
        }
        let Some(id) = id_key(&v) else {
            return true;
        };
        if self.swallow.as_deref() == Some(id.as_str()) {
            self.swallow = None;
            return false;
        }
        self.in_flight.remove(&id);
        true
    }
}

/// Relays the agent's stdio to `upstream` until the agent disconnects. `reattach` finds a
/// daemon again after the first one went away; `open_direct` serves in this process when
/// none does.
pub async fn relay(
    upstream: (Box<dyn AsyncRead + Unpin + Send>, Writer),
    reattach: impl Fn() -> relay_future::BoxFuture<Option<(Box<dyn AsyncRead + Unpin + Send>, Writer)>>,
    open_direct: impl Fn() -> anyhow::Result<Arc<Memory>>,
    who: Identity,
    tools: crate::mcp::ToolSet,
) -> anyhow::Result<()> {
    let (tx, mut rx) = mpsc::channel::<Event>(64);
    pump(
        tokio::io::stdin(),
        tx.clone(),
        Event::Client,
        Event::ClientClosed,
    );
    let mut stdout = tokio::io::stdout();
    let mut generation = 0u64;
    let (read, mut up) = upstream;
    pump(
        read,
        tx.clone(),
        move |l| Event::Upstream(0, l),
        Event::UpstreamClosed(0),
    );
    let mut session = Session::default();
    let mut direct_memory: Option<Arc<Memory>> = None;
    // The in-process server after a failover, drained before exit like direct mode.
    let mut direct_server: Option<Server> = None;
    let signal = super::shutdown_signal();
    tokio::pin!(signal);
    loop {
        let event = tokio::select! {
            e = rx.recv() => match e {
                Some(e) => e,
                None => break,
            },
            reason = &mut signal => {
                tracing::info!("{reason}: the relay stops after in-flight calls");
                break;
            }
        };
        match event {
            Event::Client(line) => {
                session.note_client(&line);
                if up.write_all(&line).await.is_err() || up.flush().await.is_err() {
                    // The upstream end is gone; its reader will report it closed.
                    tracing::warn!("the memory daemon went away while a message was sent");
                }
            }
            Event::ClientClosed => break,
            Event::Upstream(g, line) if g == generation => {
                if session.pass_upstream(&line) {
                    stdout.write_all(&line).await?;
                    stdout.flush().await?;
                }
            }
            Event::UpstreamClosed(g) if g == generation => {
                fail_in_flight(&mut session, &mut stdout).await?;
                generation += 1;
                let (read, write) = match reattach().await {
                    Some(conn) => {
                        tracing::warn!("the memory daemon went away; attached to a daemon again");
                        conn
                    }
                    None => {
                        tracing::warn!("the memory daemon went away; serving directly from now on");
                        let memory = match &direct_memory {
                            Some(m) => m.clone(),
                            None => open_direct()?,
                        };
                        direct_memory = Some(memory.clone());
                        let server = Server::new(memory, who.clone())
                            .with_tools(tools)
                            .with_live();
                        direct_server = Some(server.clone());
                        direct(server)
                    }
                };
                up = write;
                let g = generation;
                pump(
                    read,
                    tx.clone(),
                    move |l| Event::Upstream(g, l),
                    Event::UpstreamClosed(g),
                );
                replay(&mut session, &mut up).await;
            }
            Event::Upstream(..) | Event::UpstreamClosed(_) => {} // a replaced upstream
        }
    }
    if let Some(server) = direct_server {
        server.drain().await;
    }
    if let Some(memory) = &direct_memory {
        memory.save_derived();
    }
    Ok(())
}

async fn fail_in_flight(
    session: &mut Session,
    stdout: &mut tokio::io::Stdout,
) -> anyhow::Result<()> {
    for id in session.in_flight.drain() {
        let id: Value = serde_json::from_str(&id).unwrap_or(Value::Null);
        let reply = serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603,
            "message": "the memory daemon went away while this call ran: it may or may not have been applied. Fix: check (e.g. memory_query) before repeating a publish; the session goes on"}});
        stdout.write_all(format!("{reply}\n").as_bytes()).await?;
    }
    stdout.flush().await?;
    Ok(())
}

async fn replay(session: &mut Session, up: &mut Writer) {
    if let Some(init) = session.initialize.clone() {
        session.swallow = serde_json::from_slice::<Value>(&init)
            .ok()
            .and_then(|v| id_key(&v));
        let _ = up.write_all(&init).await;
        if let Some(done) = session.initialized.clone() {
            let _ = up.write_all(&done).await;
        }
        let _ = up.flush().await;
    }
}

/// A boxed future, so callers can pass an async reattach closure.
pub mod relay_future {
    /// A pinned, boxed, sendable future.
    pub type BoxFuture<T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send>>;
}
