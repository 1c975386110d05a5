//! `daemon`: run the project's one global memory server in the foreground, or ask whether
//! one runs (`daemon status`) or stop it (`daemon stop`). Agents attach through `serve`.

use std::time::Duration;

use clap::{Args, Subcommand};

use super::Global;
use super::out::{Outcome, emit, note};
use crate::daemon::{self, DaemonOptions};
use crate::mcp::ToolSet;

/// Options of `daemon`.
#[derive(Debug, Args)]
pub struct DaemonCmd {
    #[command(subcommand)]
    action: Option<DaemonAction>,
    /// Which tools every session is offered: `all` or `core`.
    #[arg(long, value_enum, default_value = "all", env = "WARROOM_TOOLS")]
    tools: ToolSet,
    /// MCP Streamable HTTP address (`/mcp`): ADDR:PORT, port 0 for any free port (see
    /// `daemon status`), or `none`. Off loopback a bearer token is required.
    #[arg(long, value_name = "ADDR:PORT|none", default_value = crate::daemon::http::DEFAULT_LISTEN, env = "WARROOM_LISTEN")]
    listen: String,
    /// File holding the operator's bearer token HTTP clients send (`Authorization: Bearer
    /// …`); or set WARROOM_TOKEN. Default: the daemon's own, made on first use in its
    /// credentials directory (`daemon status` names the file). Required off loopback.
    #[arg(long, value_name = "FILE")]
    token_file: Option<std::path::PathBuf>,
    /// A browser origin allowed to call over HTTP (repeatable); browsers are refused
    /// otherwise (DNS-rebinding defence). Clients that send no `Origin` are not affected.
    #[arg(long, value_name = "ORIGIN")]
    allow_origin: Vec<String>,
    /// Most HTTP connections open at once. At the cap a new one takes the place of the
    /// oldest connection that never authenticated, else of the oldest of the credential
    /// holding the most; failing both it is closed at once.
    #[arg(long, value_name = "N", default_value_t = crate::daemon::http_conn::DEFAULT_MAX_CONNECTIONS)]
    max_connections: usize,
    /// Most HTTP connections one credential (one token; the console's browsers count as
    /// one) may hold, keep-open listen streams and slow request bodies included; past it
    /// the request is refused (429) and its connection closed. At most --max-connections.
    /// [default: 64, or --max-connections when lower]
    #[arg(long, value_name = "N")]
    max_connections_per_credential: Option<usize>,
    /// Most MCP sessions open at once over HTTP; past it a new one is refused (503).
    #[arg(long, value_name = "N", default_value_t = crate::daemon::http::DEFAULT_MAX_SESSIONS)]
    max_sessions: usize,
    /// Most MCP sessions one credential (one token) may hold open; past it a new one is
    /// refused (429), so one agent cannot take every session.
    #[arg(long, value_name = "N", default_value_t = crate::daemon::http_sessions::DEFAULT_PER_CREDENTIAL)]
    max_sessions_per_credential: usize,
    /// Seconds without a request after which an HTTP session ends (and its memory is
    /// returned).
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    session_idle: u64,
    /// Seconds an HTTP connection may take to send a request's head, or stay idle between
    /// requests, before it is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    header_timeout: u64,
    /// Seconds a console session (a browser signed in with `warroom-memory console`) may
    /// go without a request before it ends.
    #[arg(long, value_name = "SECONDS", default_value_t = crate::console::signin::DEFAULT_IDLE.as_secs())]
    console_idle: u64,
    /// Seconds after sign-in at which a console session ends, however busy.
    #[arg(long, value_name = "SECONDS", default_value_t = crate::console::signin::DEFAULT_MAX_AGE.as_secs())]
    console_max_age: u64,
}

impl DaemonCmd {
    fn http(&self) -> anyhow::Result<Option<crate::daemon::http::HttpOptions>> {
        if self.listen == "none" {
            return Ok(None);
        }
        let listen = self.listen.parse().map_err(|e| {
            anyhow::anyhow!(
                "--listen `{}`: {e}. Fix: give ADDR:PORT such as 127.0.0.1:7391, or `none`",
                self.listen
            )
        })?;
        let token = match &self.token_file {
            Some(f) => Some(
                crate::daemon::credentials::read_token_file(f)?
                    .trim()
                    .to_string(),
            ),
            None => std::env::var("WARROOM_TOKEN")
                .ok()
                .filter(|t| !t.is_empty()),
        };
        let per_credential = match self.max_connections_per_credential {
            Some(n) if n > self.max_connections => anyhow::bail!(
                "--max-connections-per-credential {n} is more than --max-connections {}: one \
                 credential could hold every connection. Fix: give it at most {}",
                self.max_connections,
                self.max_connections
            ),
            Some(n) => n,
            None => crate::daemon::http_conn::DEFAULT_MAX_PER_CREDENTIAL.min(self.max_connections),
        };
        Ok(Some(crate::daemon::http::HttpOptions {
            listen,
            token,
            allow_origins: self.allow_origin.clone(),
            credentials: None,
            max_connections: self.max_connections.max(1),
            max_connections_per_credential: per_credential.max(1),
            max_sessions: self.max_sessions.max(1),
            max_sessions_per_credential: self.max_sessions_per_credential.max(1),
            session_idle: Duration::from_secs(self.session_idle.max(1)),
            header_timeout: Duration::from_secs(self.header_timeout.max(1)),
            console_idle: Duration::from_secs(self.console_idle.max(1)),
            console_max_age: Duration::from_secs(self.console_max_age.max(1)),
        }))
    }
}

#[derive(Debug, Subcommand)]
enum DaemonAction {
    /// Run the daemon in the foreground (the default): one index for the whole project,
    /// served on a Unix socket that `serve` attaches to. Stops on SIGTERM/SIGINT or
    /// `daemon stop`, after in-flight calls finish.
    Run,
    /// Say whether a daemon serves this root (exit 0) or not (exit 1); `--json` for details.
    Status,
    /// Ask the daemon of this root to stop and wait (≤ 15 s) until it has.
    Stop,
}

impl DaemonCmd {
    pub(super) fn run(self, g: &Global) -> anyhow::Result<Outcome> {
        let (paths, _, _) = g.layout()?;
        let env = |k: &str| std::env::var(k).ok();
        let place = daemon::place(&paths.root, &env)?;
        match self.action.as_ref().unwrap_or(&DaemonAction::Run) {
            DaemonAction::Run => {
                let opts = DaemonOptions {
                    root: paths.root.clone(),
                    place,
                    ledger: match &paths.database {
                        Some(url) => format!("{url} (ledger)").into(),
                        None => paths.ledger.clone(),
                    },
                    tools: self.tools,
                    started: g.clock().now().to_rfc3339(),
                    http: self.http()?,
                };
                daemon::run_daemon(opts, || g.open_memory())?;
                Ok(Outcome::Ok)
            }
            DaemonAction::Status => match daemon::running(&place)? {
                Some(info) if !info.ready => {
                    note(&format!(
                        "a daemon for {} is starting (PID {}): loading the ledger",
                        paths.root.display(),
                        info.pid
                    ));
                    Ok(Outcome::NothingFound)
                }
                Some(info) => {
                    emit(g.json, &info, |i| {
                        format!(
                            "a daemon serves {}: PID {}, socket {}, HTTP {}{}, ledger {}, since {}",
                            i.root.display(),
                            i.pid,
                            i.socket.display(),
                            i.url.as_deref().unwrap_or("off"),
                            i.token_file
                                .as_ref()
                                .map(|f| format!(" (operator token in {})", f.display()))
                                .unwrap_or_default(),
                            i.ledger.display(),
                            i.started
                        )
                    });
                    Ok(Outcome::Ok)
                }
                None => {
                    note(&format!(
                        "no daemon serves {} (start one with `warroom-memory daemon`)",
                        paths.root.display()
                    ));
                    Ok(Outcome::NothingFound)
                }
            },
            DaemonAction::Stop => {
                if daemon::request_stop(&place, Duration::from_secs(15))? {
                    note(&format!("the daemon of {} stopped", paths.root.display()));
                    Ok(Outcome::Ok)
                } else {
                    note(&format!("no daemon serves {}", paths.root.display()));
                    Ok(Outcome::NothingFound)
                }
            }
        }
    }
}
