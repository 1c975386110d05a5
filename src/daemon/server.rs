//! The daemon: one [`Memory`] for a project root, served to every session attached through
//! its Unix socket (shape after mini-redis: an accept loop, one task per connection holding
//! that session's identity, a shutdown signal, and a drain before exit).
//!
//! Life cycle: take the lock (a second daemon for the root is refused before it loads
//! anything), open the memory, bind the socket (0600), write [`DaemonInfo`] into the lock
//! file, accept until SIGTERM/SIGINT or a `stop` hello, then stop accepting, end every
//! session, wait for every tool call in flight (so no append is cut), remove the socket.
//! Writes keep the file-lock commit discipline, so direct-mode servers, the CLI and the
//! daemon can share one ledger.

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use rmcp::ServiceExt;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio_util::sync::CancellationToken;

use super::{DaemonInfo, HELLO_OK, Hello, Place, running};
use crate::config::Identity;
use crate::mcp::ToolSet;
use crate::mcp::wire::LineTransport;
use crate::mcp::{MAX_MESSAGE_BYTES, Server};
use crate::memory::Memory;

/// Longest hello line accepted, and how long a new connection may take to send it.
const MAX_HELLO_BYTES: u64 = 4096;
const HELLO_TIMEOUT: Duration = Duration::from_secs(5);
/// The first and the longest pause after a failed accept.
const ACCEPT_BACKOFF_START: Duration = Duration::from_millis(5);
const ACCEPT_BACKOFF_MAX: Duration = Duration::from_secs(1);
/// How long shutdown waits for sessions to end before it stops waiting for them.
const SESSION_DRAIN: Duration = Duration::from_secs(10);

/// What a daemon needs besides its memory.
#[derive(Debug, Clone)]
pub struct DaemonOptions {
    /// The project root served.
    pub root: PathBuf,
    /// Its socket and lock file.
    pub place: Place,
    /// The ledger, for the info file.
    pub ledger: PathBuf,
    /// Tools offered to every session.
    pub tools: ToolSet,
    /// The start time to record (RFC 3339; time is an input).
    pub started: String,
    /// MCP over HTTP, if wanted.
    pub http: Option<super::http::HttpOptions>,
}

/// How long a starting daemon waits for its lock when someone else holds it: `daemon
/// status` (and a relay looking for a daemon) probe the lock by taking it shared for a
/// moment, and a daemon starting in that moment must not take the probe for a running
/// daemon. A running daemon holds the lock for its life, so the wait ends in a refusal.
const LOCK_PROBE_WAIT: Duration = Duration::from_millis(500);

/// Takes `lock` exclusively, retrying for up to `wait` while it is held (by a probe).
fn lock_exclusive(lock: &std::fs::File, wait: Duration) -> Result<(), std::fs::TryLockError> {
    let deadline = std::time::Instant::now() + wait;
    loop {
        match lock.try_lock() {
            Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            other => return other,
        }
    }
}

/// Runs the daemon until it is told to stop. `open` loads the memory; it is called only
/// once the lock is held, so a refused second daemon never loads the ledger.
pub fn run_daemon(
    mut opts: DaemonOptions,
    open: impl FnOnce() -> anyhow::Result<Arc<Memory>>,
) -> anyhow::Result<()> {
    let mut lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&opts.place.lock)
        .with_context(|| format!("opening {}", opts.place.lock.display()))?;
    if let Err(e) = lock_exclusive(&lock, LOCK_PROBE_WAIT) {
        let who = running(&opts.place).ok().flatten();
        anyhow::bail!(
            "a daemon already serves {}{} ({e}). Fix: use it, or stop it with `warroom-memory daemon stop`",
            opts.root.display(),
            who.map(|i| format!(": PID {}, socket {}", i.pid, i.socket.display()))
                .unwrap_or_default()
        );
    }
    let mut token_file = None;
    if let Some(h) = &mut opts.http {
        h.check()?;
        let store = opts.place.credentials.clone();
        if h.token.is_none() {
            h.token = Some(
                store
                    .operator_token()
                    .with_context(|| format!("the operator token in {}", store.dir().display()))?,
            );
            token_file = Some(store.operator_file());
        }
        h.credentials = Some(store);
    }
    let mut info = DaemonInfo {
        pid: std::process::id(),
        root: opts.root.clone(),
        socket: opts.place.socket.clone(),
        ledger: opts.ledger.clone(),
        started: opts.started.clone(),
        ready: false,
        url: None,
        token_file,
    };
    // Replace a dead daemon's record at once: until `ready`, nobody may think we serve.
    write_info(&mut lock, &info)?;
    let memory = open()?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    // Bind before publishing the info: `daemon status` succeeding means agents can attach.
    let listener = {
        let _guard = rt.enter();
        bind(&opts.place)?
    };
    let http = match &opts.http {
        Some(h) => {
            let tcp = rt.block_on(super::http::bind(h))?;
            let url = format!("http://{}/mcp", tcp.local_addr()?);
            tracing::info!(url, "serving MCP Streamable HTTP");
            info.url = Some(url);
            Some((tcp, h.clone()))
        }
        None => None,
    };
    info.ready = true;
    write_info(&mut lock, &info)?;
    let template = Server::new(memory.clone(), Identity::default())
        .with_tools(opts.tools)
        .with_live();
    let result = rt.block_on(serve(listener, http, template));
    let _ = std::fs::remove_file(&opts.place.socket);
    rt.shutdown_timeout(Duration::from_millis(100));
    // Before the lock goes: the next daemon reads what this one embedded.
    memory.save_derived();
    drop(lock);
    result
}

fn write_info(lock: &mut std::fs::File, info: &DaemonInfo) -> anyhow::Result<()> {
    use std::io::Seek as _;
    lock.set_len(0)?;
    lock.rewind()?;
    lock.write_all(serde_json::to_string(info)?.as_bytes())?;
    lock.sync_all()?;
    Ok(())
}

/// Binds the socket, owner-only. We hold the lock, so a socket file left here is a dead
/// daemon's and may be removed.
fn bind(place: &Place) -> anyhow::Result<UnixListener> {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::remove_file(&place.socket);
    let listener = UnixListener::bind(&place.socket)
        .with_context(|| format!("binding {}", place.socket.display()))?;
    std::fs::set_permissions(&place.socket, std::fs::Permissions::from_mode(0o600))?;
    tracing::info!(socket = %place.socket.display(), "warroom-memory daemon listening");
    Ok(listener)
}

async fn serve(
    listener: UnixListener,
    http: Option<(tokio::net::TcpListener, super::http::HttpOptions)>,
    template: Server,
) -> anyhow::Result<()> {
    let stop = CancellationToken::new();
    let mut sessions = tokio::task::JoinSet::new();
    let http_task = http.map(|(tcp, opts)| {
        let (t, s) = (template.clone(), stop.clone());
        tokio::spawn(async move {
            if let Err(e) = super::http::serve(tcp, opts, t, s.clone()).await {
                tracing::error!("HTTP stopped: {e:#}");
                s.cancel();
            }
        })
    });
    // Accept errors (out of file descriptors, most often) are retried with a growing
    // pause, logged once when they start and once when they end: never a busy loop.
    let mut backoff: Option<Duration> = None;
    let reason = loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    if backoff.take().is_some() {
                        tracing::info!("accepting connections again");
                    }
                    let (t, s) = (template.clone(), stop.clone());
                    sessions.spawn(session(stream, t, s));
                }
                Err(e) => {
                    let pause = match backoff {
                        None => {
                            tracing::warn!(
                                "accept failed: {e}; retrying with a pause of up to 1 s \
                                 (logged again only when it recovers)"
                            );
                            ACCEPT_BACKOFF_START
                        }
                        Some(p) => (p * 2).min(ACCEPT_BACKOFF_MAX),
                    };
                    backoff = Some(pause);
                    tokio::time::sleep(pause).await;
                }
            },
            r = super::shutdown_signal() => break r,
            () = stop.cancelled() => break "a stop request",
        }
        // Reap finished sessions so the set does not grow with every connection.
        while sessions.try_join_next().is_some() {}
    };
    tracing::info!("{reason}: no new sessions; ending sessions after in-flight calls");
    drop(listener);
    stop.cancel();
    let _ = tokio::time::timeout(SESSION_DRAIN, async {
        while sessions.join_next().await.is_some() {}
        if let Some(t) = http_task {
            let _ = t.await;
        }
    })
    .await;
    template.drain().await;
    tracing::info!("daemon stopped");
    Ok(())
}

/// One connection: the hello, then MCP with the hello's identity until either side ends.
async fn session(stream: UnixStream, template: Server, stop: CancellationToken) {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    let mut line = String::new();
    let hello = tokio::time::timeout(
        HELLO_TIMEOUT,
        (&mut reader).take(MAX_HELLO_BYTES).read_line(&mut line),
    )
    .await;
    let (who, tools) = match hello {
        Ok(Ok(_)) => match parse_hello(&line) {
            Ok(Some(session)) => session,
            Ok(None) => {
                let _ = write.write_all(format!("{HELLO_OK}\n").as_bytes()).await;
                stop.cancel();
                return;
            }
            Err(e) => {
                let reply = serde_json::json!({ "error": e }).to_string();
                let _ = write.write_all(format!("{reply}\n").as_bytes()).await;
                return;
            }
        },
        _ => return,
    };
    // The daemon's tool setting wins: a relay asking for more than `--tools core` gets
    // the core set; asking for another profile than the daemon allows is refused.
    let tools = match (template.tool_set(), tools) {
        (_, None) => template.tool_set(),
        (ToolSet::Core, Some(ToolSet::All | ToolSet::Core)) => ToolSet::Core,
        (ToolSet::Core, Some(ToolSet::Ostwin)) => {
            let reply = serde_json::json!({ "error": "this daemon offers only the core tools \
                (daemon --tools core); the OSTwin tool profile is not served. Fix: run the \
                daemon with --tools all, or serve this agent directly (--daemon off)" });
            let _ = write.write_all(format!("{reply}\n").as_bytes()).await;
            return;
        }
        (_, Some(asked)) => asked,
    };
    if write
        .write_all(format!("{HELLO_OK}\n").as_bytes())
        .await
        .is_err()
    {
        return;
    }
    let transport = LineTransport::new(reader, write, MAX_MESSAGE_BYTES);
    let server = template.for_session(who).with_tools(tools);
    let Ok(service) = server.serve(transport).await else {
        return;
    };
    let ct = service.cancellation_token();
    tokio::select! {
        _ = service.waiting() => {}
        () = stop.cancelled() => ct.cancel(),
    }
}

/// The identity (and tools) of an `attach` hello (`None` for `stop`), validated like the
/// environment variables of a stdio server.
fn parse_hello(line: &str) -> Result<Option<(Identity, Option<ToolSet>)>, String> {
    let hello: Hello = serde_json::from_str(line.trim())
        .map_err(|e| format!("bad hello: {e}; send {{\"warroom\":1,\"action\":\"attach\",…}}"))?;
    if hello.warroom != 1 {
        return Err(format!("unknown hello version {}", hello.warroom));
    }
    match hello.action.as_str() {
        "stop" => Ok(None),
        "attach" => {
            let env = |k: &str| match k {
                "WARROOM_ROOM_ID" => hello.room.clone(),
                "WARROOM_ROLE" => hello.role.clone(),
                _ => None,
            };
            Identity::from_env(&env)
                .map(|who| Some((who, hello.tools)))
                .map_err(|e| e.to_string())
        }
        other => Err(format!("unknown action `{other}`; use attach or stop")),
    }
}

/// Asks the daemon at `place` to stop; returns once its lock is free (bounded wait).
pub fn request_stop(place: &Place, wait: Duration) -> anyhow::Result<bool> {
    use std::io::{BufRead, BufReader as StdBufReader};
    let Some(info) = running(place)?.filter(|i| i.ready) else {
        return Ok(false);
    };
    let mut stream = std::os::unix::net::UnixStream::connect(&place.socket)
        .with_context(|| format!("connecting to {}", place.socket.display()))?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    let hello = Hello {
        warroom: 1,
        action: "stop".into(),
        room: None,
        role: None,
        tools: None,
    };
    stream.write_all(format!("{}\n", serde_json::to_string(&hello)?).as_bytes())?;
    let mut reply = String::new();
    StdBufReader::new(&stream).read_line(&mut reply)?;
    let deadline = std::time::Instant::now() + wait;
    while running(place)?.is_some() {
        if std::time::Instant::now() > deadline {
            anyhow::bail!(
                "the daemon (PID {}) did not stop within {} s; it may be finishing long calls",
                info.pid,
                wait.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::lock_exclusive;
    use std::time::Duration;

    #[test]
    fn a_probe_holding_the_lock_for_a_moment_does_not_stop_a_start() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("daemon.lock");
        let probe = std::fs::File::create(&path).unwrap();
        probe.try_lock_shared().unwrap();
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            drop(probe);
        });
        let lock = std::fs::File::options().write(true).open(&path).unwrap();
        lock_exclusive(&lock, Duration::from_secs(5)).expect("the probe let go");
        release.join().unwrap();
        // A holder that keeps it (a running daemon) is refused once the wait is over.
        let other = std::fs::File::options().write(true).open(&path).unwrap();
        assert!(matches!(
            lock_exclusive(&other, Duration::from_millis(30)),
            Err(std::fs::TryLockError::WouldBlock)
        ));
    }
}
