//! The command line: `serve` plus one subcommand per operation, for scripts and people.
//!
//! Edge code: parses flags (clap), opens the core with the resolved paths, settings, clock
//! and identity, and formats results (text by default, `--json` for machines).

mod audit_cmds;
mod console_cmd;
mod daemon_cmd;
mod db_cmd;
mod ledger_cmds;
pub mod out;
mod receipts_cmd;
mod room_cmds;
mod scenario_cmd;
mod semantic_cmd;
mod serve;
mod token_cmd;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};

use crate::clock::{Clock, FileClock, FixedClock, SCENARIO_CLOCK, SystemClock, parse_rfc3339};
use crate::config::{Identity, Paths, RootSource, Settings};
use crate::memory::Memory;
use out::Outcome;

/// warroom-memory: the shared, append-only memory of a multi-agent software team.
///
/// Agents publish decisions, interfaces, conventions, warnings, artifacts and code to one
/// ledger (.agents/ledger.jsonl) and read each other's knowledge through filtered views.
/// `serve` speaks MCP on stdio; the other commands do the same operations from a shell.
///
/// Exit codes: 0 ok, 1 nothing found (or violations for verify/diff), 2 error, 70 internal error.
#[derive(Debug, Parser)]
#[command(name = "warroom-memory", version, max_term_width = 100)]
pub struct Cli {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: Command,
}

/// Options every command accepts.
#[derive(Debug, Args)]
pub(crate) struct Global {
    /// Project root (the directory holding .agents/). Default: $WARROOM_ROOT, else
    /// $AGENT_OS_ROOT, else the nearest ancestor of the working directory with .agents/,
    /// else the working directory.
    #[arg(long, global = true, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Ledger file (default: <root>/.agents/ledger.jsonl).
    #[arg(long, global = true, value_name = "FILE", env = "WARROOM_LEDGER")]
    ledger: Option<PathBuf>,
    /// Keep the ledger, channels and registered plans in this PostgreSQL database
    /// (postgres://USER@HOST:PORT/DB; also `ledger: postgres://…` in .agents/warroom.yaml).
    /// A password in it is never shown or logged.
    #[arg(
        long,
        global = true,
        value_name = "URL",
        env = "WARROOM_DATABASE_URL",
        hide_env_values = true
    )]
    database_url: Option<String>,
    /// Directory of war-rooms (default: <root>/.agents/war-rooms; OSTwin: .war-rooms).
    #[arg(long, global = true, value_name = "DIR", env = "WARROOM_WAR_ROOMS")]
    war_rooms: Option<PathBuf>,
    /// Do not fsync after each append (faster, loses the last entries on power failure).
    #[arg(long, global = true)]
    no_fsync: bool,
    /// Where to keep the cold-start snapshot of a ledger of 20,000 entries or more (a
    /// cache: checked against the ledger and authenticated on every start, safe to
    /// delete). Default: $XDG_CACHE_HOME/warroom-memory, else ~/.cache/warroom-memory.
    /// `off` disables it.
    #[arg(long, global = true, value_name = "DIR", env = "WARROOM_SNAPSHOT_DIR")]
    snapshot_dir: Option<PathBuf>,
    /// Pin the server's clock (RFC 3339), e.g. for reproducible search scores.
    #[arg(long, global = true, value_name = "TIME", env = "WARROOM_NOW")]
    now: Option<String>,
    /// Read the clock from this file (one RFC 3339 timestamp, re-read on every call).
    #[arg(
        long,
        global = true,
        value_name = "FILE",
        env = "WARROOM_NOW_FILE",
        hide = true
    )]
    now_file: Option<PathBuf>,
    /// Act as this room (default $WARROOM_ROOM_ID): publish defaults and own-room exclusion.
    #[arg(long, global = true, value_name = "ROOM")]
    as_room: Option<String>,
    /// Act as this role (default $WARROOM_ROLE).
    #[arg(long, global = true, value_name = "ROLE")]
    as_role: Option<String>,
    /// Machine-readable JSON output instead of text.
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the MCP server on stdio (what an agent's MCP client spawns). When a daemon
    /// serves the project, attach to it instead of loading the ledger.
    Serve(serve::ServeCmd),
    /// The one global memory server of a project: run it, or ask for its status or stop it.
    Daemon(daemon_cmd::DaemonCmd),
    /// Open the read-only web console (plans, timeline, rooms, search, audit): starts the
    /// project's daemon with HTTP when none runs, and prints the address that signs a
    /// browser in.
    Console(console_cmd::ConsoleCmd),
    /// Publish one entry to the ledger.
    Publish(ledger_cmds::PublishCmd),
    /// List live entries matching filters, newest first.
    Query(ledger_cmds::QueryCmd),
    /// Search ranked by relevance × per-kind time decay: BM25F, fused with meaning when
    /// semantic ranking is on (see `semantic status`).
    Search(ledger_cmds::SearchCmd),
    /// Show one entry with its supersede chain.
    Get(ledger_cmds::GetCmd),
    /// Every entry of a ref or room, superseded ones marked (oldest first).
    History(audit_cmds::HistoryCmd),
    /// Filtered history, newest first; --include-superseded for the full record.
    Log(audit_cmds::LogCmd),
    /// What changed between two ledgers, two git revisions or two times; violations of
    /// append-only. Exit 1 if a line was changed or removed.
    Diff(audit_cmds::DiffCmd),
    /// Open overlaps: live entries of different rooms about the same subject where neither
    /// supersedes the other. Exit 1 while any is open.
    ///
    /// The same subject: the same ref, a shared identifier (`amount_cents`,
    /// `/auth/refresh`) or enough shared content words; never shared words alone, and not
    /// a cosine (a publish's `related` uses that too). A pair closes when one side
    /// supersedes the other or names its id. Every live decision, interface, convention
    /// and warning is looked up (about 1.5 s at 100k entries, 25 s at 1M; a progress line
    /// on a terminal); pairs are listed strongest first. Exit 0 when none is open, 1 while
    /// any is, 2 when the command could not run. docs/overlaps.md
    Overlaps(audit_cmds::OverlapsCmd),
    /// Check every line of a ledger: schema, unique ids, supersedes, torn lines.
    /// Exit 0 clean, 1 violations, 2 could not run.
    Verify(audit_cmds::VerifyCmd),
    /// Print the predecessor context of a room (what a manager reads first); every brief
    /// leaves a receipt. `--replay RECEIPT` proves what a manager read.
    Context(room_cmds::ContextCmd),
    /// List context receipts: every brief served, who asked, at which ledger position,
    /// what it included and its SHA-256.
    Receipts(receipts_cmd::ReceiptsCmd),
    /// Register and show plans (the epic DAG).
    #[command(subcommand)]
    Plan(room_cmds::PlanCmd),
    /// Post to and read war-room channels.
    #[command(subcommand)]
    Channel(room_cmds::ChannelCmd),
    /// Run scenario-driven acceptance tests (scenarios/*.scenario.yaml).
    #[command(subcommand)]
    Scenario(scenario_cmd::ScenarioCmd),
    /// The PostgreSQL backend: migrate the schema, import a JSONL ledger, export it back.
    #[command(subcommand)]
    Db(db_cmd::DbCmd),
    /// Per-agent credentials for the daemon's HTTP edge: issue (bound to a room and role),
    /// list, revoke.
    #[command(subcommand)]
    Token(token_cmd::TokenCmd),
    /// Semantic ranking (opt-in, `semantic: on`): `status`, and `backfill` to embed the
    /// entries that have no vector yet.
    #[command(subcommand)]
    Semantic(semantic_cmd::SemanticCmd),
}

/// Everything a command needs from the global options.
pub struct Ctx {
    /// The opened project.
    pub memory: Arc<Memory>,
    /// Who the caller is.
    pub who: Identity,
    /// `--json`.
    pub json: bool,
    /// How the root was found.
    pub root_source: RootSource,
}

/// True if `a` and `b` are the same existing file.
fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

impl Global {
    /// The system clock, or the test clock file when given (`daemon status` times).
    pub(crate) fn clock(&self) -> Arc<dyn Clock> {
        match &self.now_file {
            Some(p) => Arc::new(FileClock::new(p.clone())),
            None => Arc::new(SystemClock),
        }
    }

    /// Opens a memory. Reads see `--now` / `WARROOM_NOW`, else the clock file
    /// (`WARROOM_NOW_FILE`), else the system clock. Writes are stamped by the system clock,
    /// except under a scenario: the clock file moves writes too only when it is the
    /// project's own [`SCENARIO_CLOCK`] — a file the scenario runner or a test creates in
    /// its project, which no setting in an agent's MCP config can bring about.
    fn memory(&self, paths: Paths, settings: Settings) -> anyhow::Result<Memory> {
        let scenario = paths.root.join(".agents").join(SCENARIO_CLOCK);
        let write: Arc<dyn Clock> = match &self.now_file {
            Some(p) if same_file(p, &scenario) => Arc::new(FileClock::new(p.clone())),
            Some(p) => {
                tracing::warn!(
                    file = %p.display(),
                    "WARROOM_NOW_FILE pins reads only: writes follow it only when it is the \
                     project's .agents/{SCENARIO_CLOCK}"
                );
                Arc::new(SystemClock)
            }
            None => Arc::new(SystemClock),
        };
        let memory = Memory::open(paths, settings, write)?;
        Ok(match (&self.now, &self.now_file) {
            (Some(t), _) => {
                let t = parse_rfc3339(t).context("--now / WARROOM_NOW")?;
                memory.with_read_clock(Arc::new(FixedClock::new(t)))
            }
            (None, Some(p)) => memory.with_read_clock(Arc::new(FileClock::new(p.clone()))),
            (None, None) => memory,
        })
    }

    /// The reads' now: `--now` / `WARROOM_NOW`, else the clock file, else the system clock.
    pub(crate) fn read_now(&self) -> anyhow::Result<crate::clock::Timestamp> {
        match &self.now {
            Some(t) => Ok(parse_rfc3339(t).context("--now / WARROOM_NOW")?),
            None => Ok(self.clock().now()),
        }
    }

    /// Resolves paths and settings without opening anything ([`crate::settle::settle`]).
    pub(crate) fn layout(&self) -> anyhow::Result<(Paths, Settings, RootSource)> {
        let env = |k: &str| std::env::var(k).ok();
        let cwd = std::env::current_dir().context("reading the working directory")?;
        let overrides = crate::settle::Overrides {
            root: self.root.clone(),
            ledger: self.ledger.clone(),
            database_url: self.database_url.clone(),
            war_rooms: self.war_rooms.clone(),
            no_fsync: self.no_fsync,
            snapshot_dir: self.snapshot_dir.clone(),
        };
        let p = crate::settle::settle(&overrides, &env, &cwd)?;
        Ok((p.paths, p.settings, p.root_source))
    }

    /// The caller's identity: the environment, overridden by `--as-room`/`--as-role`.
    pub(crate) fn identity(&self) -> anyhow::Result<Identity> {
        let env = |k: &str| std::env::var(k).ok();
        let mut who = Identity::from_env(&env)?;
        if let Some(r) = &self.as_room {
            crate::validate::path_component("--as-room", r)?;
            who.room_id = Some(r.clone());
        }
        if let Some(r) = &self.as_role {
            who.role = Some(r.clone());
        }
        Ok(who)
    }

    /// Opens the memory of the resolved layout for a server that runs for long (the
    /// daemon, a relay that serves directly once its daemon is gone): with semantic
    /// ranking on, what others append is embedded in the background.
    pub(crate) fn open_memory(&self) -> anyhow::Result<Arc<Memory>> {
        let (paths, settings, _) = self.layout()?;
        let memory = Arc::new(self.memory(paths, settings)?);
        memory.embed_arrivals();
        Ok(memory)
    }

    pub(crate) fn open(&self) -> anyhow::Result<Ctx> {
        let (paths, settings, root_source) = self.layout()?;
        let who = self.identity()?;
        let memory = self.memory(paths, settings)?;
        Ok(Ctx {
            memory: Arc::new(memory),
            who,
            json: self.json,
            root_source,
        })
    }
}

/// Sets up logging on stderr. `WARROOM_LOG` (or `RUST_LOG`) picks the level; default info.
///
/// Whatever the level, the MCP library (rmcp) logs at `error` at most: at `debug` and
/// `trace` it logs whole requests and responses — entries' text, a secret before it was
/// redacted — and at `warn` every error response with its message, which echoes what the
/// client sent (a method name, a tool name, a URI: a token pasted there reached the log);
/// the client gets those errors itself. Logs never carry an entry's raw text (nor the
/// HTTP stack's headers, which carry bearer tokens). Our own logs name ids, lines and
/// sizes, never texts, and what a client sent only through `validate::printable`.
pub fn init_logging() {
    use std::io::IsTerminal;
    let filter = std::env::var("WARROOM_LOG")
        .or_else(|_| std::env::var("RUST_LOG"))
        .unwrap_or_else(|_| "info".into());
    let mut filter = tracing_subscriber::EnvFilter::new(filter);
    // The libraries that see requests (and their headers: bearer tokens) are capped too.
    for cap in [
        "rmcp=error",
        "hyper=info",
        "hyper_util=info",
        "axum=info",
        "h2=info",
    ] {
        filter = filter.add_directive(cap.parse().expect("a valid directive"));
    }
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .try_init();
}

/// Runs the command line; returns the process exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging();
    out::install_progress();
    install_panic_hook();
    // The command's name, for an internal error's message (clap's own spelling).
    let name = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .map(|a| crate::text::prefix(&crate::validate::printable(&a), 32).to_string())
        .unwrap_or_default();
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(cli))) {
        Ok(Ok(outcome)) => outcome.into(),
        Ok(Err(e)) => {
            out::note(&format!("error: {}", out::chain(&e)));
            ExitCode::from(2)
        }
        // A panic is a bug, caught at the command's boundary: what the command wrote
        // before it is said by the command's own output rules (a write is never reported
        // as failed: see `crate::error::after_commit`).
        Err(_) => {
            out::note(&format!(
                "error: `{name}` failed internally (a bug; please report it with the line \
                 above). Run `warroom-memory verify` to check the ledger"
            ));
            ExitCode::from(70)
        }
    }
}

/// Panics are logged by where they happened, not by their message: a message can quote
/// an entry's text (a slice error shows the string it cut), and logs never carry it.
/// `WARROOM_PANIC_DETAIL=1` shows the message too, for a developer on their own data.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map_or_else(String::new, |l| format!(" at {}:{}", l.file(), l.line()));
        let detail = std::env::var_os("WARROOM_PANIC_DETAIL").is_some_and(|v| v == "1");
        let message = if detail {
            info.payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_default()
        } else {
            "message withheld (it may quote entry text; WARROOM_PANIC_DETAIL=1 shows it)".into()
        };
        tracing::error!("internal error{at}: {message}");
    }));
}

fn run(cli: Cli) -> anyhow::Result<Outcome> {
    let g = &cli.global;
    match cli.command {
        Command::Serve(cmd) => serve::run(g, cmd),
        Command::Daemon(cmd) => cmd.run(g),
        Command::Console(cmd) => cmd.run(g),
        Command::Publish(cmd) => cmd.run(&g.open()?),
        Command::Query(cmd) => cmd.run(&g.open()?),
        Command::Search(cmd) => cmd.run(&g.open()?),
        Command::Get(cmd) => cmd.run(&g.open()?),
        Command::History(cmd) => cmd.run(&g.open()?),
        Command::Log(cmd) => cmd.run(&g.open()?),
        Command::Diff(cmd) => cmd.run(g),
        Command::Verify(cmd) => cmd.run(g),
        Command::Overlaps(cmd) => cmd.run(&g.open()?),
        Command::Context(cmd) => cmd.run(&g.open()?),
        Command::Receipts(cmd) => cmd.run(&g.open()?),
        Command::Plan(cmd) => cmd.run(&g.open()?),
        Command::Channel(cmd) => cmd.run(&g.open()?),
        Command::Scenario(cmd) => cmd.run(g.json),
        Command::Db(cmd) => cmd.run(g),
        Command::Token(cmd) => cmd.run(g),
        Command::Semantic(cmd) => cmd.run(&g.open()?),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_line_definition_is_consistent() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
