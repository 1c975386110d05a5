//! Scenario-driven acceptance tests: scripted multi-agent stories run through the real
//! binary. The format (`scenarios/*.scenario.yaml`) is documented in `scenarios/README.md`
//! and `schemas/scenario.schema.json`; [`load`] validates a file against both the schema and
//! the rules the schema cannot express, [`runner`] runs it, [`expect`] checks results.

pub mod expect;
mod files;
pub mod runner;

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use crate::schema::Schema;

/// A scenario file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Short unique id (kebab-case).
    pub id: String,
    /// One-line title.
    pub title: String,
    /// The design principles this scenario proves.
    pub proves: Vec<String>,
    /// The storage backends it applies to (`files`, `postgres`; default both).
    #[serde(default)]
    pub backends: Option<Vec<String>>,
    /// What exists before the first step.
    #[serde(default)]
    pub setup: Setup,
    /// The story.
    pub steps: Vec<Step>,
}

/// Initial state.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// The fixed *now* of every server process (RFC 3339); moved by `clock` steps.
    pub now: Option<String>,
    /// fsync after each append (default false in scenarios, to keep them fast).
    #[serde(default)]
    pub fsync: bool,
    /// Plans registered (through `memory_register_plan`) before the first step: JSON
    /// objects, or markdown strings.
    #[serde(default)]
    pub plans: Vec<Value>,
    /// Files written before any server starts, by path relative to the project root.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    /// The agents: name → room and role. Each runs its own server process.
    #[serde(default)]
    pub agents: BTreeMap<String, AgentSpec>,
}

/// One agent's identity.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentSpec {
    /// `WARROOM_ROOM_ID`.
    pub room: Option<String>,
    /// `WARROOM_ROLE`.
    pub role: Option<String>,
    /// Extra environment variables for its process.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

/// One step: exactly one action, then expectations.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Shown in reports.
    pub name: Option<String>,
    /// The agent making the call.
    pub agent: Option<String>,
    /// Action: call this MCP tool as `agent`.
    pub call: Option<String>,
    /// Tool arguments (`${name}` substitutes saved values, `${i}` the repeat index).
    pub args: Option<Value>,
    /// Run the call this many times (i = 0..N-1).
    pub repeat: Option<u32>,
    /// Name values of the result for later steps: name → path.
    #[serde(default)]
    pub save: BTreeMap<String, String>,
    /// The call must fail with an error whose text contains this.
    pub error: Option<String>,
    /// Expectations on the result (`structuredContent`).
    #[serde(default)]
    pub expect: Vec<expect::Expect>,
    /// Action: move the clock of every process (`set: TIME` or `advance: 72h`).
    pub clock: Option<ClockStep>,
    /// Action: kill -9 this agent's process (it restarts on its next call).
    pub kill: Option<String>,
    /// Action: write or append to a file under the root.
    pub write_file: Option<WriteFile>,
    /// Action: check a file under the root.
    pub check_file: Option<CheckFile>,
    /// Action: run the command line.
    pub cli: Option<CliStep>,
    /// Action: run these steps at the same moment.
    pub parallel: Option<Vec<Step>>,
}

/// Moving the clock.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockStep {
    /// Set to this RFC 3339 time.
    pub set: Option<String>,
    /// Advance by this duration (30m, 72h, 14d).
    pub advance: Option<String>,
}

/// Writing a file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WriteFile {
    /// Path relative to the root.
    pub path: String,
    /// Bytes to write (as UTF-8 text).
    pub content: String,
    /// Append instead of replacing.
    #[serde(default)]
    pub append: bool,
}

/// Checking a file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckFile {
    /// Path relative to the root.
    pub path: String,
    /// The file exists (default: it must, unless this says false).
    pub exists: Option<bool>,
    /// Number of lines (a last line without `\n` counts).
    pub lines: Option<usize>,
    /// Number of lines that are valid ledger entries.
    pub valid_entries: Option<usize>,
    /// Number of non-blank lines that are not valid entries.
    pub invalid_lines: Option<usize>,
    /// The file ends with `\n`.
    pub ends_with_newline: Option<bool>,
    /// The file contains this text.
    pub contains: Option<String>,
    /// The file does not contain this text.
    pub not_contains: Option<String>,
    /// Every id in this list appears in exactly one line.
    #[serde(default)]
    pub ids_once: Vec<String>,
}

/// Running the command line.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CliStep {
    /// Arguments after `warroom-memory --root <root>`.
    pub args: Vec<String>,
    /// Expected exit code (default 0).
    #[serde(default)]
    pub exit: i32,
    /// Texts stdout must contain.
    #[serde(default)]
    pub stdout_contains: Vec<String>,
    /// Texts stdout must not contain.
    #[serde(default)]
    pub stdout_not_contains: Vec<String>,
}

impl Step {
    fn actions(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        for (present, name) in [
            (self.call.is_some(), "call"),
            (self.clock.is_some(), "clock"),
            (self.kill.is_some(), "kill"),
            (self.write_file.is_some(), "write_file"),
            (self.check_file.is_some(), "check_file"),
            (self.cli.is_some(), "cli"),
            (self.parallel.is_some(), "parallel"),
        ] {
            if present {
                v.push(name);
            }
        }
        v
    }

    /// A label for reports.
    pub fn label(&self, index: usize) -> String {
        let what = match (&self.call, &self.agent) {
            (Some(c), Some(a)) => format!("{c} as {a}"),
            _ => self.actions().join("+"),
        };
        match &self.name {
            Some(n) => format!("step {} \"{n}\" ({what})", index + 1),
            None => format!("step {} ({what})", index + 1),
        }
    }
}

fn check_steps(
    steps: &[Step],
    agents: &BTreeMap<String, AgentSpec>,
    at: &str,
) -> Result<(), String> {
    for (i, s) in steps.iter().enumerate() {
        let where_ = format!("{at}steps[{i}]");
        let actions = s.actions();
        if actions.len() != 1 {
            return Err(format!(
                "{where_}: a step needs exactly one action (call, clock, kill, write_file, check_file, cli, parallel); found {}",
                if actions.is_empty() {
                    "none".into()
                } else {
                    actions.join(", ")
                }
            ));
        }
        if s.call.is_some() {
            match &s.agent {
                Some(a) if agents.contains_key(a) => {}
                Some(a) => {
                    return Err(format!(
                        "{where_}: agent `{a}` is not declared in setup.agents"
                    ));
                }
                None => return Err(format!("{where_}: a `call` step needs an `agent`")),
            }
        } else if !s.expect.is_empty()
            || s.error.is_some()
            || !s.save.is_empty()
            || s.repeat.is_some()
        {
            return Err(format!(
                "{where_}: expect/error/save/repeat belong to `call` steps"
            ));
        }
        if let Some(k) = &s.kill
            && !agents.contains_key(k)
        {
            return Err(format!(
                "{where_}: agent `{k}` is not declared in setup.agents"
            ));
        }
        if let Some(p) = &s.parallel {
            check_steps(p, agents, &format!("{where_}.parallel."))?;
        }
    }
    Ok(())
}

/// Reads and validates a scenario file.
pub fn load(path: &Path) -> Result<Scenario, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let value: Value =
        serde_saphyr::from_str(&text).map_err(|e| format!("{}: not YAML: {e}", path.display()))?;
    Schema::Scenario.check(&value).map_err(|e| {
        format!(
            "{}: does not match schemas/scenario.schema.json: {}",
            path.display(),
            e.join("; ")
        )
    })?;
    let s: Scenario = serde_path_to_error::deserialize(value)
        .map_err(|e| format!("{}: at {}: {}", path.display(), e.path(), e.inner()))?;
    check_steps(&s.steps, &s.setup.agents, "").map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(s)
}

/// Every `*.scenario.yaml` under the given files and directories, sorted.
pub fn expand(paths: &[std::path::PathBuf]) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut v: Vec<std::path::PathBuf> = std::fs::read_dir(p)
                .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
                .unwrap_or_default();
            v.retain(|f| f.to_string_lossy().ends_with(".scenario.yaml"));
            v.sort();
            out.extend(v);
        } else {
            out.push(p.clone());
        }
    }
    out
}

/// A command running the binary with none of the caller's `WARROOM_*` / `AGENT_OS_*`
/// variables: a scenario describes its whole environment (`setup`, each agent's `env`),
/// so a `WARROOM_DATABASE_URL` or `WARROOM_ROOM_ID` in the shell that runs the suite
/// must not leak in (it used to put every scenario on one shared database).
pub(crate) fn isolated(exe: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(exe);
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy();
        if k.starts_with("WARROOM_") || k.starts_with("AGENT_OS_") {
            cmd.env_remove(&*k);
        }
    }
    cmd
}
