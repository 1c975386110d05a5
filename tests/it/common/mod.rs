//! Test harness: real `warroom-memory serve` processes driven by an rmcp client over stdio,
//! and the CLI run as a subprocess. Every integration test goes through the real binary.
#![allow(dead_code)]

pub mod browser;
pub mod daemon;
pub mod pg;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

/// Path of the binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_warroom-memory");

static SPAWNED: AtomicUsize = AtomicUsize::new(0);

/// A temporary project root with `.agents/`.
pub fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".agents")).unwrap();
    dir
}

/// The ledger path of a project root.
pub fn ledger(root: &Path) -> PathBuf {
    root.join(".agents/ledger.jsonl")
}

/// Lines of the ledger (empty if absent).
pub fn ledger_lines(root: &Path) -> Vec<String> {
    std::fs::read_to_string(ledger(root))
        .map(|t| t.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

/// One agent: a server process with its own identity, and a client connected to it.
pub struct Agent {
    pub client: RunningService<RoleClient, ()>,
    pub stderr_log: PathBuf,
    pub pid: u32,
}

/// Builder for an agent process.
pub struct Spawn<'a> {
    root: &'a Path,
    env: Vec<(String, String)>,
    netns: Option<String>,
}

pub fn agent(root: &Path) -> Spawn<'_> {
    Spawn {
        root,
        env: Vec::new(),
        netns: None,
    }
}

/// `BIN`, or `ip netns exec NS BIN` to run it on another (simulated) host.
pub fn bin_in(netns: Option<&str>) -> tokio::process::Command {
    match netns {
        Some(ns) => {
            let mut c = tokio::process::Command::new("ip");
            c.args(["netns", "exec", ns, BIN]);
            c
        }
        None => tokio::process::Command::new(BIN),
    }
}

impl Spawn<'_> {
    /// Runs the server in network namespace `ns` (a host of a multi-host test).
    pub fn netns(mut self, ns: &str) -> Self {
        self.netns = Some(ns.to_string());
        self
    }
    pub fn room(mut self, room: &str) -> Self {
        self.env.push(("WARROOM_ROOM_ID".into(), room.into()));
        self
    }
    pub fn role(mut self, role: &str) -> Self {
        self.env.push(("WARROOM_ROLE".into(), role.into()));
        self
    }
    /// Pins reads only (`WARROOM_NOW`): writes keep the real time.
    pub fn read_now(mut self, now: &str) -> Self {
        self.env.push(("WARROOM_NOW".into(), now.into()));
        self
    }
    /// Pins reads and writes: sets the project's scenario clock file
    /// (`.agents/.scenario-clock`, shared by every process of the project) to `now`.
    pub fn now(mut self, now: &str) -> Self {
        let file = scenario_clock(self.root, now);
        self.env
            .push(("WARROOM_NOW_FILE".into(), file.display().to_string()));
        self
    }
    pub fn env(mut self, k: &str, v: &str) -> Self {
        self.env.push((k.into(), v.into()));
        self
    }

    /// Starts the server and connects with the 2025-11-25 `initialize` handshake.
    pub async fn start(self) -> Agent {
        self.start_with(rmcp::service::ClientLifecycleMode::Initialize)
            .await
    }

    /// Starts the server and connects with `lifecycle` (e.g. discover only: MCP 2026-07-28).
    pub async fn start_with(self, lifecycle: rmcp::service::ClientLifecycleMode) -> Agent {
        let n = SPAWNED.fetch_add(1, Ordering::SeqCst);
        let stderr_log = self.root.join(format!("stderr-{n}.log"));
        let log = std::fs::File::create(&stderr_log).unwrap();
        let mut cmd = bin_in(self.netns.as_deref());
        cmd.arg("serve")
            .arg("--root")
            .arg(self.root)
            .env_remove("WARROOM_ROOM_ID")
            .env_remove("WARROOM_ROLE")
            .env_remove("WARROOM_NOW")
            .env_remove("WARROOM_NOW_FILE")
            .env_remove("WARROOM_ROOT")
            .env_remove("WARROOM_DATABASE_URL")
            .env_remove("AGENT_OS_ROOM_DIR")
            .env_remove("AGENT_OS_ROLE")
            .env("WARROOM_LOG", "info");
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        let (transport, _) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::from(log))
            .spawn()
            .unwrap();
        let pid = transport.id().expect("the server has a pid");
        let client =
            rmcp::service::ClientServiceExt::serve_with_lifecycle((), transport, lifecycle)
                .await
                .expect("server initializes");
        Agent {
            client,
            stderr_log,
            pid,
        }
    }
}

impl Agent {
    /// Calls a tool; panics only on protocol failure.
    pub async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        let Value::Object(map) = args else {
            panic!("arguments must be an object")
        };
        self.client
            .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(map))
            .await
            .unwrap_or_else(|e| panic!("{tool}: protocol error {e}"))
    }

    /// Calls a tool that must succeed; returns its structured content.
    pub async fn ok(&self, tool: &str, args: Value) -> Value {
        let r = self.call(tool, args).await;
        assert_ne!(r.is_error, Some(true), "{tool} failed: {}", text(&r));
        assert!(
            !text(&r).is_empty(),
            "{tool}: a readable text copy is expected"
        );
        r.structured_content.expect("structured content")
    }

    /// Calls a tool that must fail with a tool error; returns the error text.
    pub async fn err(&self, tool: &str, args: Value) -> String {
        let r = self.call(tool, args).await;
        assert_eq!(
            r.is_error,
            Some(true),
            "{tool} should fail but returned {}",
            text(&r)
        );
        assert!(r.structured_content.is_none());
        text(&r)
    }

    pub async fn tools(&self) -> Vec<Tool> {
        self.client.list_all_tools().await.unwrap()
    }

    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr_log).unwrap_or_default()
    }

    pub async fn stop(self) {
        let _ = self.client.cancel().await;
    }

    /// kill -9 the server process.
    pub fn kill9(&self) {
        let _ = std::process::Command::new("kill")
            .args(["-9", &self.pid.to_string()])
            .status();
    }
}

/// The text content of a tool result.
pub fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Publishes with sensible defaults merged with `extra`.
pub async fn publish(a: &Agent, kind: &str, summary: &str, extra: Value) -> Value {
    let mut args = json!({"kind": kind, "summary": summary});
    if let (Value::Object(base), Value::Object(more)) = (&mut args, extra) {
        base.extend(more);
    }
    a.ok("memory_publish", args).await["entry"].clone()
}

/// Ids of the entries in a query result.
pub fn entry_ids(result: &Value) -> Vec<String> {
    result["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect()
}

/// Ids of the hits in a search result.
pub fn hit_ids(result: &Value) -> Vec<String> {
    result["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["entry"]["id"].as_str().unwrap().to_string())
        .collect()
}

/// The stdout of a command that must have succeeded (its stderr in the panic if not).
pub fn succeeded(out: std::process::Output) -> Vec<u8> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The JSON a command that must have succeeded printed.
pub fn succeeded_json(out: std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&succeeded(out)).unwrap()
}

/// Runs the CLI; returns (exit code, stdout, stderr).
pub fn cli(root: &Path, args: &[&str]) -> (i32, String, String) {
    cli_env(root, args, &[])
}

/// Runs the CLI with reads and writes at `time` (the project's scenario clock file;
/// `--now` pins reads only).
pub fn cli_at(root: &Path, time: &str, args: &[&str]) -> (i32, String, String) {
    let file = scenario_clock(root, time);
    cli_env(
        root,
        args,
        &[("WARROOM_NOW_FILE", &file.display().to_string())],
    )
}

/// `publish --kind KIND --summary SUMMARY --room ROOM --role ROLE EXTRA…` through the CLI,
/// at `at` (the project's scenario clock) when given; the result (`entry`, `redacted`).
/// Panics if it fails.
pub fn cli_publish_as(
    root: &Path,
    at: Option<&str>,
    (kind, room, role): (&str, &str, &str),
    summary: &str,
    extra: &[&str],
) -> Value {
    let mut args = vec![
        "--json",
        "publish",
        "--kind",
        kind,
        "--summary",
        summary,
        "--room",
        room,
        "--role",
        role,
    ];
    args.extend(extra);
    let (code, out, err) = match at {
        Some(t) => cli_at(root, t, &args),
        None => cli(root, &args),
    };
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap()
}

/// Sets the project's scenario clock (the only clock file that moves writes) to `time`.
pub fn scenario_clock(root: &Path, time: &str) -> PathBuf {
    let file = root.join(".agents/.scenario-clock");
    std::fs::create_dir_all(root.join(".agents")).unwrap();
    std::fs::write(&file, time).unwrap();
    file
}

pub fn cli_env(root: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = std::process::Command::new(BIN);
    cmd.arg("--root")
        .arg(root)
        .args(args)
        .env_remove("WARROOM_ROOM_ID")
        .env_remove("WARROOM_ROLE")
        .env_remove("WARROOM_NOW")
        .env_remove("WARROOM_NOW_FILE")
        .env_remove("WARROOM_DATABASE_URL")
        .env_remove("WARROOM_ROOT");
    for (k, v) in env {
        cmd.env(k, v);
    }
    output_within(&mut cmd, CLI_DEADLINE)
}

/// How long one CLI command of a test may take before the test fails (not hangs).
pub const CLI_DEADLINE: std::time::Duration = std::time::Duration::from_secs(120);

/// Runs `cmd` (stdin closed) and returns (exit code, stdout, stderr); a command still
/// running after `deadline` is killed — by its own handle, never by a PID that could have
/// been reused — and the test fails saying so, instead of hanging the suite.
pub fn output_within(
    cmd: &mut std::process::Command,
    deadline: std::time::Duration,
) -> (i32, String, String) {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            let _ = r.read_to_end(&mut s);
            String::from_utf8_lossy(&s).into_owned()
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{cmd:?} did not finish within {} s (killed); stderr so far:\n{}",
                deadline.as_secs(),
                err.join().unwrap_or_default()
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    (
        status.code().unwrap_or(-1),
        out.join().unwrap(),
        err.join().unwrap(),
    )
}

/// Compares `actual` with `tests/snapshots/<name>`; `UPDATE_SNAPSHOTS=1` rewrites it.
pub fn assert_snapshot(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(name);
    if std::env::var("UPDATE_SNAPSHOTS").is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "missing snapshot {}; run with UPDATE_SNAPSHOTS=1 to create it",
            path.display()
        )
    });
    if expected != actual {
        let diff = similar::TextDiff::from_lines(&expected, actual)
            .unified_diff()
            .header("snapshot", "actual")
            .to_string();
        panic!("snapshot {name} differs (UPDATE_SNAPSHOTS=1 to accept):\n{diff}");
    }
}

/// A temporary copy of the bundled example project (`.agents/`).
pub fn example_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(".agents"),
        &dir.path().join(".agents"),
    );
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// A four-epic plan: auth → catalog → checkout, and an unrelated analytics epic.
pub fn shop_plan() -> Value {
    json!({
        "plan_id": "shop",
        "title": "Shop",
        "epics": [
            {"ref": "EPIC-001", "room_id": "room-001", "title": "Auth", "brief_keywords": ["auth"]},
            {"ref": "EPIC-002", "room_id": "room-002", "title": "Catalog", "depends_on": ["EPIC-001"]},
            {"ref": "EPIC-003", "room_id": "room-003", "title": "Checkout", "depends_on": ["EPIC-002"],
             "brief_keywords": ["payments", "checkout"]},
            {"ref": "EPIC-009", "room_id": "room-009", "title": "Unrelated analytics"}
        ]
    })
}

/// The strings of a JSON array.
pub fn strs(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect()
}
