//! `serve`: run the MCP server on stdio until stdin closes or SIGTERM/SIGINT arrives —
//! attached to the project's daemon when one serves it (a relay that loads no index), or
//! directly.
//!
//! Shutdown is graceful: the service stops reading, every tool call in flight finishes
//! (so an append in progress completes its line), then the process exits 0.

use std::io::IsTerminal;
use std::time::Duration;

use clap::Args;
use rmcp::ServiceExt;

use super::out::Outcome;
use super::{Ctx, Global};
use crate::config::RootSource;
use crate::daemon::{self, AttachMode};
use crate::mcp::ToolSet;
use crate::mcp::wire::LineTransport;
use crate::mcp::{MAX_MESSAGE_BYTES, Server};

/// Options of `serve`.
#[derive(Debug, Args)]
pub struct ServeCmd {
    /// Which tools to offer: `all`, or `core` (publish, query, search, get, get_context)
    /// for agents that need only the basics — fewer tool definitions in their context.
    #[arg(long, value_enum, default_value = "all", env = "WARROOM_TOOLS")]
    tools: ToolSet,
    /// Use the project's daemon: `auto` attaches when one runs and serves directly
    /// otherwise; `require` fails without one; `off` always serves directly.
    #[arg(long, value_enum, default_value = "auto", env = "WARROOM_DAEMON")]
    daemon: AttachMode,
    /// When no daemon serves the root, start one in the background (its log beside its
    /// socket) and attach to it: the first agent of a plan brings the global server up.
    #[arg(long, env = "WARROOM_SPAWN")]
    spawn: bool,
    /// Tool names and result shapes: `warroom` (ours), `ostwin` (OSTwin's memory and
    /// channel servers: publish, query, search, get_context, list_memories, post_message,
    /// read_messages, get_latest), or `auto` — OSTwin's when the project has OSTwin's
    /// layout (docs/ostwin.md).
    #[arg(long, value_enum, default_value = "auto", env = "WARROOM_PROFILE")]
    profile: Profile,
}

/// `serve --profile`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Profile {
    /// OSTwin's tools when the layout is OSTwin's, else ours.
    Auto,
    /// Our tools (`--tools` picks all or core).
    Warroom,
    /// OSTwin's tools.
    Ostwin,
}

impl ServeCmd {
    /// The tools to offer in a project of `layout`.
    fn tool_set(&self, layout: crate::layout::Layout) -> ToolSet {
        match (self.profile, layout) {
            (Profile::Ostwin, _) | (Profile::Auto, crate::layout::Layout::Ostwin) => {
                ToolSet::Ostwin
            }
            _ => self.tools,
        }
    }
}

fn banner(ctx: &Ctx) -> anyhow::Result<()> {
    let stats = ctx.memory.stats()?;
    let paths = ctx.memory.paths();
    let how = match ctx.root_source {
        RootSource::Flag => "--root",
        RootSource::WarroomRoot => "$WARROOM_ROOT",
        RootSource::AgentOsRoot => "$AGENT_OS_ROOT",
        RootSource::AgentOsRoomDir => "$AGENT_OS_ROOM_DIR/../..",
        RootSource::Ancestor => "nearest .agents/",
        RootSource::WorkingDir => "working directory (no .agents/ found)",
    };
    tracing::info!(
        root = %paths.root.display(),
        root_from = how,
        ledger = %ctx.memory.backend().label(&crate::store::Stream::Ledger, &paths.ledger),
        layout = paths.layout.0.name(),
        layout_why = %paths.layout.1,
        entries = stats.entries,
        live = stats.live,
        problems = stats.problems,
        room = ctx.who.room_id.as_deref().unwrap_or("-"),
        role = ctx.who.role.as_deref().unwrap_or("-"),
        "warroom-memory {} serving MCP on stdio",
        env!("CARGO_PKG_VERSION"),
    );
    if stats.pending_bytes > 0 {
        tracing::warn!(
            bytes = stats.pending_bytes,
            "the ledger ends with an unterminated line (a crashed writer?); the next publish terminates it — run `warroom-memory verify` for details"
        );
    }
    if std::io::stdin().is_terminal() {
        #[allow(clippy::print_stderr)]
        {
            eprintln!(
                "\nThis is an MCP server: it speaks JSON-RPC on stdin/stdout and is meant to be \
                 started by an MCP client.\nConnect one, e.g. Claude Code:\n  claude mcp add warroom -- {} serve --root {}\n\
                 (README § Connect an agent has Cursor, VS Code, opencode and Codex.)\n\
                 To look around from a shell instead: `warroom-memory query`, `warroom-memory search <words>`.\n\
                 Press Ctrl-D or Ctrl-C to stop.\n",
                std::env::current_exe()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|_| "warroom-memory".into()),
                paths.root.display()
            );
        }
    }
    Ok(())
}

/// Serves the agent on stdio: through the daemon when one serves the root, else directly.
pub fn run(g: &Global, cmd: ServeCmd) -> anyhow::Result<Outcome> {
    if cmd.daemon != AttachMode::Off {
        let (paths, _, _) = g.layout()?;
        let tools = cmd.tool_set(paths.layout.0);
        let who = g.identity()?;
        let env = |k: &str| std::env::var(k).ok();
        let place = daemon::place(&paths.root, &env);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let mut conn = match &place {
            Ok(p) => rt.block_on(daemon::attach(p, &who, tools)),
            Err(e) => {
                tracing::warn!("no daemon place for {}: {e}", paths.root.display());
                None
            }
        };
        if conn.is_none()
            && cmd.spawn
            && let Ok(p) = &place
        {
            spawn_daemon(&paths.root, p, None)?;
            conn = rt.block_on(daemon::attach(p, &who, tools));
        }
        match (conn, place) {
            (Some(conn), Ok(place)) => {
                tracing::info!(
                    root = %paths.root.display(),
                    socket = %place.socket.display(),
                    room = who.room_id.as_deref().unwrap_or("-"),
                    role = who.role.as_deref().unwrap_or("-"),
                    "warroom-memory {} attached to the project's daemon (relay on stdio)",
                    env!("CARGO_PKG_VERSION"),
                );
                let reattach = {
                    let (place, who) = (place.clone(), who.clone());
                    move || -> daemon::relay_future::BoxFuture<_> {
                        let (place, who) = (place.clone(), who.clone());
                        Box::pin(async move { daemon::attach(&place, &who, tools).await })
                    }
                };
                let result = rt.block_on(daemon::relay(
                    conn,
                    reattach,
                    || g.open_memory(),
                    who,
                    tools,
                ));
                rt.shutdown_timeout(Duration::from_millis(100));
                return result.map(|()| Outcome::Ok);
            }
            (None, Ok(place)) if let Ok(Some(info)) = daemon::running(&place) => {
                // A daemon holds the root's lock but did not answer the hello in time
                // (overloaded, or out of file descriptors): say so, never "no daemon".
                let why = format!(
                    "the daemon of {} (PID {}) did not answer within 2 s: it may be \
                     overloaded or out of file descriptors. Fix: see its log and \
                     `warroom-memory daemon status`, then retry",
                    paths.root.display(),
                    info.pid
                );
                if cmd.daemon == AttachMode::Require {
                    anyhow::bail!("{why} (serve --daemon require)");
                }
                tracing::warn!("{why}; serving directly meanwhile");
            }
            _ if cmd.daemon == AttachMode::Require => anyhow::bail!(
                "no daemon serves {} (serve --daemon require). Fix: start one with \
                 `warroom-memory daemon --root {}`, or use --daemon auto",
                paths.root.display(),
                paths.root.display()
            ),
            _ => {}
        }
    }
    match g.open() {
        Ok(ctx) => direct(ctx, cmd),
        Err(e) => {
            // Said once, here and in every tool call's answer.
            let reason = super::out::chain(&e);
            tracing::error!("{reason}; serving only this reason until restarted");
            let tools = g
                .layout()
                .map_or(cmd.tools, |(paths, _, _)| cmd.tool_set(paths.layout.0));
            unusable(&reason, tools)
        }
    }
}

/// Serves on stdio a server that answers `initialize` and returns `reason` from every
/// tool call ([`crate::mcp::unusable`]): an agent reads why instead of a client's "server
/// failed to start".
fn unusable(reason: &str, tools: ToolSet) -> anyhow::Result<Outcome> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let server = crate::mcp::unusable::Unusable::new(reason, tools);
    let result = rt.block_on(async {
        let mut signal = Box::pin(daemon::shutdown_signal());
        let transport =
            LineTransport::new(tokio::io::stdin(), tokio::io::stdout(), MAX_MESSAGE_BYTES);
        let service = tokio::select! {
            s = server.serve(transport) => s?,
            _ = &mut signal => return anyhow::Ok(()),
        };
        tokio::select! {
            q = service.waiting() => { q?; }
            _ = &mut signal => {}
        }
        anyhow::Ok(())
    });
    rt.shutdown_timeout(Duration::from_millis(100));
    match result {
        Err(e) if !e.to_string().contains("connection closed") => Err(e),
        _ => Ok(Outcome::Ok),
    }
}

/// How long `serve --spawn` waits for the daemon it started to load the ledger.
const SPAWN_WAIT: Duration = Duration::from_secs(120);

/// Starts a daemon for `root` detached from this process (its own process group, so the
/// agent's client closing does not stop it) and waits until it serves. Another agent
/// spawning at the same moment is harmless: one daemon wins the lock, both attach to it.
/// `listen`: its HTTP address (None: `WARROOM_LISTEN` if set, else no HTTP).
pub(super) fn spawn_daemon(
    root: &std::path::Path,
    place: &daemon::Place,
    listen: Option<&str>,
) -> anyhow::Result<()> {
    use std::os::unix::process::CommandExt;
    let log_path = place.socket.with_extension("log");
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)?;
    let mut cmd = std::process::Command::new(std::env::current_exe()?);
    cmd.arg("--root").arg(root).arg("daemon");
    match listen {
        Some(l) => {
            cmd.args(["--listen", l]);
        }
        // Several projects may spawn daemons; HTTP only where the operator asks for it.
        None if std::env::var_os("WARROOM_LISTEN").is_none() => {
            cmd.args(["--listen", "none"]);
        }
        None => {}
    }
    let mut child = cmd
        .env_remove("WARROOM_ROOM_ID")
        .env_remove("WARROOM_ROLE")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(log)
        .process_group(0)
        .spawn()?;
    tracing::info!(log = %log_path.display(), "no daemon served the root; started one");
    let deadline = std::time::Instant::now() + SPAWN_WAIT;
    while !daemon::running(place)?.is_some_and(|i| i.ready) {
        // Ours exited: fine if another agent's daemon won the lock, an error otherwise.
        if child.try_wait()?.is_some() && daemon::running(place)?.is_none() {
            anyhow::bail!(
                "the daemon started for {} exited; see {}",
                root.display(),
                log_path.display()
            );
        }
        if std::time::Instant::now() > deadline {
            anyhow::bail!(
                "the daemon started for {} did not become ready within {} s; see {}",
                root.display(),
                SPAWN_WAIT.as_secs(),
                log_path.display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// Runs the server in this process; returns when the client disconnects or a signal arrives.
fn direct(ctx: Ctx, cmd: ServeCmd) -> anyhow::Result<Outcome> {
    banner(&ctx)?;
    // A server runs for long: what other agents and hosts append gets its vector here.
    ctx.memory.embed_arrivals();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let tools = cmd.tool_set(ctx.memory.paths().layout.0);
    let server = Server::new(ctx.memory.clone(), ctx.who.clone())
        .with_tools(tools)
        .with_live();
    let result = rt.block_on(async {
        // Signals first: one arriving during the handshake stops the server too.
        let mut signal = Box::pin(daemon::shutdown_signal());
        let transport =
            LineTransport::new(tokio::io::stdin(), tokio::io::stdout(), MAX_MESSAGE_BYTES);
        let service = tokio::select! {
            s = server.clone().serve(transport) => s?,
            reason = &mut signal => {
                tracing::info!("{reason} before the handshake finished: stopping");
                return anyhow::Ok(());
            }
        };
        let ct = service.cancellation_token();
        tokio::spawn(async move {
            let reason = signal.await;
            tracing::info!("{reason}: shutting down; calls not yet written are abandoned");
            crate::cancel::shutdown();
            ct.cancel();
        });
        let quit = service.waiting().await?;
        tracing::debug!(?quit, "service stopped");
        server.drain().await;
        anyhow::Ok(())
    });
    // Tokio's stdin reader may still block in a read that cannot be cancelled; every tool
    // call has finished (drain), so do not wait for it.
    rt.shutdown_timeout(Duration::from_millis(100));
    ctx.memory.save_derived();
    match result {
        Ok(()) => Ok(Outcome::Ok),
        // A client that connects and leaves before initializing is not a server failure.
        Err(e) if e.to_string().contains("connection closed") => {
            tracing::info!("client closed the connection before initializing");
            Ok(Outcome::Ok)
        }
        Err(e) => Err(e),
    }
}
