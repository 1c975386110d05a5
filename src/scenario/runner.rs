//! Runs scenarios: each in a fresh temporary project root, each agent as its own
//! `warroom-memory serve` process over stdio (as in production), the clock shared through a
//! clock file that every process reads (`WARROOM_NOW_FILE`).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Instant;

use rmcp::model::CallToolRequestParams;
use rmcp::service::{Peer, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde::Serialize;
use serde_json::Value;

use super::expect::{self, Failure};
use super::{Scenario, Step};
use crate::clock::{parse_duration, parse_rfc3339};

/// How one scenario ended.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    /// The scenario file.
    pub file: String,
    /// Scenario id (the file name if it could not be loaded).
    pub id: String,
    /// Title.
    pub title: String,
    /// True if every step passed.
    pub passed: bool,
    /// Steps run.
    pub steps: usize,
    /// Wall time in milliseconds.
    pub ms: u128,
    /// The first failure.
    pub failure: Option<Failed>,
    /// Why it was not run on this backend (`backends:` in the scenario), if it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_applicable: Option<String>,
}

/// The failing step and why.
#[derive(Debug, Clone, Serialize)]
pub struct Failed {
    /// Which step.
    pub step: String,
    /// What was expected.
    pub expectation: String,
    /// What was found.
    pub actual: String,
    /// A diff, when useful.
    pub diff: Option<String>,
}

struct Agent {
    client: RunningService<RoleClient, ()>,
    pid: Option<u32>,
}

/// The daemon a scenario runs under (`scenario run --daemon`).
struct DaemonRun {
    child: std::process::Child,
    /// `XDG_RUNTIME_DIR` of the daemon and its agents (keeps the socket per scenario).
    runtime: PathBuf,
}

pub(super) struct Run<'a> {
    pub(super) exe: &'a Path,
    /// With `--daemon`: the daemon serving `root`; agents attach to it.
    daemon: Option<DaemonRun>,
    /// True if the scenario runs under a daemon.
    under_daemon: bool,
    pub(super) root: PathBuf,
    /// The scenario's clock file, `<project>/.agents/.scenario-clock`.
    pub(super) clock: PathBuf,
    /// Where logs and the daemon's runtime dir go (outside the project).
    work: PathBuf,
    /// The scenario's own PostgreSQL database, when the suite runs on that backend.
    pub(super) database: Option<String>,
    fsync: bool,
    specs: &'a BTreeMap<String, super::AgentSpec>,
    agents: HashMap<String, Agent>,
    pub(super) vars: HashMap<String, Value>,
    spawned: usize,
}

pub(super) fn failed(
    step: &str,
    expectation: impl Into<String>,
    actual: impl Into<String>,
) -> Failed {
    Failed {
        step: step.into(),
        expectation: expectation.into(),
        actual: actual.into(),
        diff: None,
    }
}

impl Run<'_> {
    async fn spawn(
        &mut self,
        room: Option<&str>,
        role: Option<&str>,
        env: &BTreeMap<String, String>,
    ) -> Result<Agent, String> {
        self.spawned += 1;
        let log = std::fs::File::create(self.work.join(format!("server-{}.log", self.spawned)))
            .map_err(|e| e.to_string())?;
        let mut cmd = tokio::process::Command::from(super::isolated(self.exe));
        cmd.arg("serve").arg("--root").arg(&self.root);
        if !self.fsync {
            cmd.arg("--no-fsync");
        }
        cmd.env("WARROOM_NOW_FILE", &self.clock)
            .env("WARROOM_LOG", "warn");
        if let Some(d) = &self.daemon {
            cmd.arg("--daemon")
                .arg("require")
                .env("XDG_RUNTIME_DIR", &d.runtime);
        }
        if let Some(r) = room {
            cmd.env("WARROOM_ROOM_ID", r);
        }
        if let Some(r) = role {
            cmd.env("WARROOM_ROLE", r);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        let (transport, _) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::from(log))
            .spawn()
            .map_err(|e| format!("spawning the server: {e}"))?;
        let pid = transport.id();
        let client =
            ().serve(transport)
                .await
                .map_err(|e| format!("server did not initialize: {e}"))?;
        Ok(Agent { client, pid })
    }

    async fn peer(&mut self, name: &str) -> Result<Peer<RoleClient>, String> {
        if !self.agents.contains_key(name) {
            let spec = self.specs[name].clone();
            let a = self
                .spawn(spec.room.as_deref(), spec.role.as_deref(), &spec.env)
                .await?;
            self.agents.insert(name.to_string(), a);
        }
        Ok(self.agents[name].client.peer().clone())
    }

    fn set_clock(&self, text: &str) -> Result<(), String> {
        if let Some(dir) = self.clock.parent() {
            std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        }
        std::fs::write(&self.clock, text).map_err(|e| e.to_string())
    }

    pub(super) fn path(&self, rel: &str) -> Result<PathBuf, String> {
        let p = Path::new(rel);
        if p.is_absolute()
            || p.components()
                .any(|c| matches!(c, std::path::Component::ParentDir))
        {
            return Err(format!("`{rel}` must be a path inside the project root"));
        }
        Ok(self.root.join(p))
    }

    async fn setup(&mut self, s: &Scenario) -> Result<(), String> {
        std::fs::create_dir_all(self.root.join(".agents")).map_err(|e| e.to_string())?;
        self.set_clock(s.setup.now.as_deref().unwrap_or("2026-01-01T00:00:00Z"))?;
        for (rel, content) in &s.setup.files {
            let p = self.path(rel)?;
            if let Some(d) = p.parent() {
                std::fs::create_dir_all(d).map_err(|e| e.to_string())?;
            }
            std::fs::write(&p, content).map_err(|e| e.to_string())?;
        }
        if let Some(url) = &self.database {
            // Every process of the project (agents, daemon, CLI steps) reads this.
            let config = self.root.join(".agents").join(crate::config::CONFIG_FILE);
            let mut text = std::fs::read_to_string(&config).unwrap_or_default();
            text.push_str(&format!(
                "\nledger: {}\n",
                serde_json::to_string(url).expect("a string")
            ));
            std::fs::write(&config, text).map_err(|e| e.to_string())?;
        }
        if self.under_daemon {
            self.daemon = Some(self.start_daemon()?);
        }
        if !s.setup.plans.is_empty() {
            let admin = self.spawn(None, None, &BTreeMap::new()).await?;
            for plan in &s.setup.plans {
                let r = call(
                    admin.client.peer(),
                    "memory_register_plan",
                    serde_json::json!({"plan": plan}),
                )
                .await;
                r.map_err(|e| format!("registering a setup plan: {e}"))?;
            }
            let _ = admin.client.cancel().await;
        }
        Ok(())
    }

    /// Starts a daemon for the scenario's root on the scenario's clock file and waits (≤ 20 s)
    /// until agents can attach.
    fn start_daemon(&self) -> Result<DaemonRun, String> {
        let runtime = self.work.join("run");
        std::fs::create_dir_all(&runtime).map_err(|e| e.to_string())?;
        let log = std::fs::File::create(self.work.join("daemon.log")).map_err(|e| e.to_string())?;
        let mut cmd = super::isolated(self.exe);
        cmd.arg("--root").arg(&self.root);
        if !self.fsync {
            cmd.arg("--no-fsync");
        }
        let child = cmd
            .args(["daemon", "--listen", "none"])
            .env("WARROOM_NOW_FILE", &self.clock)
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("WARROOM_LOG", "warn")
            .env_remove("WARROOM_ROOM_ID")
            .env_remove("WARROOM_ROLE")
            .stderr(Stdio::from(log))
            .spawn()
            .map_err(|e| format!("starting the daemon: {e}"))?;
        let deadline = Instant::now() + std::time::Duration::from_secs(20);
        loop {
            let ready = super::isolated(self.exe)
                .args(["daemon", "status", "--root"])
                .arg(&self.root)
                .env("XDG_RUNTIME_DIR", &runtime)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if ready {
                return Ok(DaemonRun { child, runtime });
            }
            if Instant::now() > deadline {
                return Err("the scenario's daemon did not come up within 20 s".into());
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// Stops the scenario's daemon, if any.
    fn stop_daemon(&mut self) {
        if let Some(mut d) = self.daemon.take() {
            let _ = super::isolated(self.exe)
                .args(["daemon", "stop", "--root"])
                .arg(&self.root)
                .env("XDG_RUNTIME_DIR", &d.runtime)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            let _ = d.child.kill();
            let _ = d.child.wait();
        }
    }

    async fn step(&mut self, s: &Step, label: &str) -> Result<(), Failed> {
        if let Some(tool) = &s.call {
            let peer = self
                .peer(s.agent.as_deref().unwrap_or_default())
                .await
                .map_err(|e| failed(label, "the agent's server starts", e))?;
            for i in 0..s.repeat.unwrap_or(1) {
                self.vars.insert("i".into(), Value::from(i));
                let args = expect::substitute(
                    s.args
                        .as_ref()
                        .unwrap_or(&Value::Object(Default::default())),
                    &self.vars,
                );
                let result = call(&peer, tool, args).await;
                self.judge(s, label, result)?;
            }
            return Ok(());
        }
        if let Some(c) = &s.clock {
            let now = std::fs::read_to_string(&self.clock).unwrap_or_default();
            let t = match (&c.set, &c.advance) {
                (Some(t), None) => {
                    parse_rfc3339(t).map_err(|e| failed(label, "a valid time", e.to_string()))?
                }
                (None, Some(d)) => {
                    let secs = parse_duration(d)
                        .ok_or_else(|| failed(label, "a duration like 72h", d.clone()))?;
                    let cur = parse_rfc3339(now.trim())
                        .map_err(|e| failed(label, "a readable clock", e.to_string()))?;
                    crate::clock::Timestamp(cur.0 + secs)
                }
                _ => return Err(failed(label, "clock: exactly one of set/advance", "")),
            };
            return self
                .set_clock(&t.to_rfc3339())
                .map_err(|e| failed(label, "the clock file is written", e));
        }
        if let Some(name) = &s.kill {
            if let Some(a) = self.agents.remove(name) {
                if let Some(pid) = a.pid {
                    let _ = std::process::Command::new("kill")
                        .args(["-9", &pid.to_string()])
                        .status();
                }
                drop(a);
            }
            return Ok(());
        }
        if let Some(w) = &s.write_file {
            let p = self
                .path(&w.path)
                .map_err(|e| failed(label, "a path inside the root", e))?;
            let content = match expect::substitute(&Value::String(w.content.clone()), &self.vars) {
                Value::String(s) => s,
                other => other.to_string(),
            };
            let r = if w.append {
                use std::io::Write;
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&p)
                    .and_then(|mut f| f.write_all(content.as_bytes()))
            } else {
                std::fs::write(&p, content)
            };
            return r.map_err(|e| failed(label, "the file is written", e.to_string()));
        }
        if let Some(c) = &s.check_file {
            return self.check_file(c, label);
        }
        if let Some(c) = &s.cli {
            return self.cli(c, label);
        }
        if let Some(group) = &s.parallel {
            let mut set = tokio::task::JoinSet::new();
            for (j, sub) in group.iter().enumerate() {
                let peer = self
                    .peer(sub.agent.as_deref().unwrap_or_default())
                    .await
                    .map_err(|e| failed(label, "the agent's server starts", e))?;
                let tool = sub.call.clone().unwrap_or_default();
                let calls: Vec<Value> = (0..sub.repeat.unwrap_or(1))
                    .map(|i| {
                        let mut vars = self.vars.clone();
                        vars.insert("i".into(), Value::from(i));
                        expect::substitute(
                            sub.args
                                .as_ref()
                                .unwrap_or(&Value::Object(Default::default())),
                            &vars,
                        )
                    })
                    .collect();
                set.spawn(async move {
                    let mut results = Vec::new();
                    for args in calls {
                        results.push(call(&peer, &tool, args).await);
                    }
                    (j, results)
                });
            }
            let mut done: Vec<(usize, Vec<Result<Value, String>>)> = set.join_all().await;
            done.sort_by_key(|(j, _)| *j);
            for (j, results) in done {
                for r in results {
                    self.judge(&group[j], &format!("{label} → parallel[{j}]"), r)?;
                }
            }
            return Ok(());
        }
        Err(failed(label, "an action", "none"))
    }

    fn judge(
        &mut self,
        s: &Step,
        label: &str,
        result: Result<Value, String>,
    ) -> Result<(), Failed> {
        let value = match (result, &s.error) {
            (Err(text), Some(want)) if text.contains(want.as_str()) => return Ok(()),
            (Err(text), Some(want)) => {
                return Err(failed(label, format!("an error containing {want:?}"), text));
            }
            (Ok(v), Some(want)) => {
                return Err(Failed {
                    diff: None,
                    ..failed(
                        label,
                        format!("an error containing {want:?}"),
                        serde_json::to_string_pretty(&v).unwrap_or_default(),
                    )
                });
            }
            (Err(text), None) => return Err(failed(label, "success", format!("error: {text}"))),
            (Ok(v), None) => v,
        };
        for e in &s.expect {
            let e = expect::Expect {
                equals: e.equals.as_ref().map(|v| expect::substitute(v, &self.vars)),
                not_equals: e
                    .not_equals
                    .as_ref()
                    .map(|v| expect::substitute(v, &self.vars)),
                contains: e
                    .contains
                    .as_ref()
                    .map(|v| expect::substitute(v, &self.vars)),
                not_contains: e
                    .not_contains
                    .as_ref()
                    .map(|v| expect::substitute(v, &self.vars)),
                order: e.order.as_ref().map(|o| {
                    o.iter()
                        .map(|v| expect::substitute(v, &self.vars))
                        .collect()
                }),
                ..e.clone()
            };
            expect::check(&e, &value).map_err(
                |Failure {
                     expectation,
                     actual,
                     diff,
                 }| Failed {
                    step: label.into(),
                    expectation,
                    actual,
                    diff,
                },
            )?;
        }
        for (name, path) in &s.save {
            let v = expect::get_path(&value, path)
                .map_err(|e| failed(label, format!("`{path}` to save as {name}"), e))?;
            self.vars.insert(name.clone(), v);
        }
        Ok(())
    }
}

/// Calls a tool: the structured result, or the error text (tool or protocol error).
async fn call(peer: &Peer<RoleClient>, tool: &str, args: Value) -> Result<Value, String> {
    let Value::Object(map) = args else {
        return Err("arguments must be an object".into());
    };
    let r = peer
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(map))
        .await
        .map_err(|e| e.to_string())?;
    let text: String = r
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n");
    if r.is_error == Some(true) {
        return Err(text);
    }
    Ok(r.structured_content.unwrap_or(Value::String(text)))
}

/// Runs one scenario file.
/// Runs one scenario file; with `under_daemon`, a daemon serves the scenario's project
/// and every agent attaches to it.
pub async fn run_file(
    path: &Path,
    exe: &Path,
    under_daemon: bool,
    database: Option<&str>,
) -> Outcome {
    let started = Instant::now();
    let file = path.display().to_string();
    let scenario = match super::load(path) {
        Ok(s) => s,
        Err(e) => {
            return Outcome {
                id: path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                title: "(could not be loaded)".into(),
                passed: false,
                steps: 0,
                ms: started.elapsed().as_millis(),
                failure: Some(failed("load", "a valid scenario file", e)),
                file,
                not_applicable: None,
            };
        }
    };
    let backend = if database.is_some() {
        "postgres"
    } else {
        "files"
    };
    if let Some(only) = scenario
        .backends
        .as_ref()
        .filter(|b| !b.iter().any(|b| b == backend))
    {
        return Outcome {
            file,
            id: scenario.id,
            title: scenario.title,
            passed: true,
            steps: 0,
            ms: 0,
            failure: None,
            not_applicable: Some(format!("applies to {} only (`backends:`)", only.join(", "))),
        };
    }
    let tmp = match tempfile::tempdir() {
        Ok(t) => t,
        Err(e) => {
            return Outcome {
                file,
                id: scenario.id,
                title: scenario.title,
                passed: false,
                steps: 0,
                ms: 0,
                failure: Some(failed("setup", "a temporary directory", e.to_string())),
                not_applicable: None,
            };
        }
    };
    let mut run = Run {
        exe,
        daemon: None,
        under_daemon,
        root: tmp.path().join("project"),
        clock: tmp
            .path()
            .join("project")
            .join(".agents")
            .join(crate::clock::SCENARIO_CLOCK),
        work: tmp.path().to_path_buf(),
        fsync: scenario.setup.fsync,
        specs: &scenario.setup.agents,
        agents: HashMap::new(),
        vars: HashMap::new(),
        spawned: 0,
        database: database.map(str::to_string),
    };
    let mut failure = run
        .setup(&scenario)
        .await
        .err()
        .map(|e| failed("setup", "the setup succeeds", e));
    let mut steps = 0;
    if failure.is_none() {
        for (i, s) in scenario.steps.iter().enumerate() {
            steps += 1;
            if let Err(f) = run.step(s, &s.label(i)).await {
                failure = Some(f);
                break;
            }
        }
    }
    for (_, a) in run.agents.drain() {
        let _ = a.client.cancel().await;
    }
    run.stop_daemon();
    // Every brief the scenario's agents read left a receipt; each must replay to the same
    // bytes from the ledger as it was (whatever the scenario wrote after it).
    if failure.is_none() {
        failure = run.replay_receipts().err();
    }
    Outcome {
        file,
        id: scenario.id,
        title: scenario.title,
        passed: failure.is_none(),
        steps,
        ms: started.elapsed().as_millis(),
        failure,
        not_applicable: None,
    }
}
