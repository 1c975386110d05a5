//! `bench daemon`: N agents in direct mode (each `serve` loads the ledger) against N agents
//! attached to one daemon (each `serve` a relay), through the real binary and stdio, on a
//! generated ledger: time until every agent has its first answer, resident memory of all
//! processes, and search round-trip latency seen by an agent (client side, so relay and
//! direct are compared on the same footing), and the brief's round trip (stdio and HTTP)
//! for rooms deep in the 100-epic bench plan.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use serde::{Deserialize, Serialize};

use super::corpus::Corpus;
use super::measure::Micros;
use warroom_memory::clock::Timestamp;

/// One mode at one size and agent count.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DaemonReport {
    /// Ledger entries.
    pub entries: usize,
    /// Agents started at once.
    pub agents: usize,
    /// `direct` or `daemon`.
    pub mode: String,
    /// Milliseconds from starting the agents until every one had its first search answer
    /// (daemon mode: the daemon was already running, as it is when a plan starts).
    pub all_answered_ms: f64,
    /// Median per agent of spawn → first answer, ms.
    pub attach_ms_p50: f64,
    /// Resident memory of all agent processes, MB.
    pub agents_rss_mb: f64,
    /// Resident memory of the daemon, MB (0 in direct mode).
    pub daemon_rss_mb: f64,
    /// Search round trips of one agent, µs.
    pub search: Micros,
    /// Search round trips of one HTTP session on the daemon, µs (daemon mode only).
    #[serde(default)]
    pub http_search: Option<Micros>,
    /// Searches per second with every agent searching at once (20 each).
    pub parallel_searches_per_s: f64,
    /// `memory_get_context` round trips of one agent (a room deep in the 100-epic bench
    /// plan, with brief keywords; its receipt written), µs.
    #[serde(default)]
    pub context: Option<Micros>,
    /// The same briefs from an HTTP session on the daemon, µs (daemon mode only).
    #[serde(default)]
    pub http_context: Option<Micros>,
}

/// Registers the 100-epic bench plan in the project at `root` (once: a plan registered as
/// it is not registered again), so that briefs have upstream rooms near and far.
pub fn register_bench_plan(exe: &Path, root: &Path) -> anyhow::Result<()> {
    let plan = super::measure::bench_plan()
        .plan
        .context("the bench plan is JSON")?;
    register_plan(exe, root, &plan)
}

/// Registers `plan` (JSON) in the project at `root` through the binary `exe`.
pub(crate) fn register_plan(
    exe: &Path,
    root: &Path,
    plan: &serde_json::Value,
) -> anyhow::Result<()> {
    let file = root.join("bench-plan.json");
    std::fs::write(&file, plan.to_string())?;
    let out = Command::new(exe)
        .args(["plan", "register"])
        .arg(&file)
        .arg("--root")
        .arg(root)
        .output()?;
    anyhow::ensure!(
        out.status.success(),
        "registering the bench plan: {}",
        String::from_utf8_lossy(&out.stderr).trim()
    );
    Ok(())
}

/// Fails unless `answer` is a brief with entries (a refused or empty brief would time
/// nothing worth a figure).
pub(crate) fn ensure_brief(answer: &serde_json::Value) -> anyhow::Result<()> {
    let r = &answer["result"];
    anyhow::ensure!(
        r["isError"] != true
            && r["structuredContent"]["entry_ids"]
                .as_array()
                .is_some_and(|e| !e.is_empty()),
        "a brief came back without entries: {}",
        warroom_memory::text::clip(&answer.to_string(), 400)
    );
    Ok(())
}

/// The arguments of the `i`-th timed brief: rooms 50–99 in turn, the query's words as
/// its brief keywords (as the in-process bench's briefs).
fn context_args(queries: &[String], i: usize) -> serde_json::Value {
    let words: Vec<&str> = queries[i % queries.len()].split(' ').collect();
    serde_json::json!({"room_id": format!("room-{:03}", 50 + i % 50), "brief_keywords": words})
}

pub(crate) struct Agent {
    pub(crate) child: Child,
    pub(crate) stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Agent {
    pub(crate) fn call(&mut self, tool: &str, args: serde_json::Value) -> anyhow::Result<()> {
        self.call_value(tool, args).map(drop)
    }

    /// Calls a tool and returns the JSON-RPC answer.
    pub(crate) fn call_value(
        &mut self,
        tool: &str,
        args: serde_json::Value,
    ) -> anyhow::Result<serde_json::Value> {
        self.next_id += 1;
        let req = serde_json::json!({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call",
            "params": {"name": tool, "arguments": args}});
        writeln!(self.stdin, "{req}")?;
        self.stdin.flush()?;
        self.answer(self.next_id)
    }

    pub(crate) fn wait_for(&mut self, id: u64) -> anyhow::Result<()> {
        self.answer(id).map(drop)
    }

    fn answer(&mut self, id: u64) -> anyhow::Result<serde_json::Value> {
        let mut line = String::new();
        loop {
            line.clear();
            anyhow::ensure!(
                self.stdout.read_line(&mut line)? > 0,
                "agent closed its stdout"
            );
            let v: serde_json::Value = serde_json::from_str(&line)?;
            if v["id"] == id {
                anyhow::ensure!(v.get("error").is_none(), "agent answered an error: {line}");
                return Ok(v);
            }
        }
    }
}

fn spawn_agent(
    exe: &Path,
    root: &Path,
    runtime: &Path,
    i: usize,
    mode: &str,
) -> anyhow::Result<Agent> {
    let room = format!("room-{:03}", i % 100);
    spawn_agent_as(
        exe,
        root,
        runtime,
        &format!("agent-{i}"),
        Some(&room),
        mode,
        None,
    )
}

/// An agent whose server has the room identity `room` (None: none, as an operator's
/// client, which may ask any room's brief), logging to `<name>.log`. `cache`: the
/// directory its index snapshots go to (`XDG_CACHE_HOME`; None: the user's).
pub(crate) fn spawn_agent_as(
    exe: &Path,
    root: &Path,
    runtime: &Path,
    name: &str,
    room: Option<&str>,
    mode: &str,
    cache: Option<&Path>,
) -> anyhow::Result<Agent> {
    let mut cmd = Command::new(exe);
    cmd.args([
        "serve",
        "--daemon",
        if mode == "daemon" { "require" } else { "off" },
        "--root",
    ])
    .arg(root)
    .env("XDG_RUNTIME_DIR", runtime)
    .env_remove("WARROOM_ROOM_ID")
    .env("WARROOM_ROLE", "bench")
    .env("WARROOM_LOG", "warn");
    if let Some(room) = room {
        cmd.env("WARROOM_ROOM_ID", room);
    }
    if let Some(cache) = cache {
        cmd.env("XDG_CACHE_HOME", cache);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(root.join(format!("{name}.log")))?)
        .spawn()?;
    let mut stdin = child.stdin.take().context("agent stdin")?;
    let stdout = BufReader::new(child.stdout.take().context("agent stdout")?);
    const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;
    writeln!(stdin, "{INITIALIZE}")?;
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )?;
    Ok(Agent {
        child,
        stdin,
        stdout,
        next_id: 0,
    })
}

/// Asks the daemon of `root` to stop (in-flight calls finish) and reaps it.
pub(crate) fn stop_daemon(exe: &Path, root: &Path, runtime: &Path, mut daemon: Child) {
    let _ = Command::new(exe)
        .args(["daemon", "stop", "--root"])
        .arg(root)
        .env("XDG_RUNTIME_DIR", runtime)
        .stderr(Stdio::null())
        .status();
    let _ = daemon.wait();
}

pub(crate) fn rss_mb(pid: u32) -> f64 {
    let kb: u64 = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0);
    kb as f64 / 1024.0
}

/// Measures `agents` agents in `mode` on the ledger at `root` (already in place).
pub fn measure(
    exe: &Path,
    root: &Path,
    entries: usize,
    agents: usize,
    mode: &str,
    searches: usize,
) -> anyhow::Result<DaemonReport> {
    let runtime = root.join("run");
    std::fs::create_dir_all(&runtime)?;
    let mut daemon = None;
    let mut url = None;
    if mode == "daemon" {
        let (d, u, bearer) = start_http_daemon(exe, root, &runtime)?;
        daemon = Some(d);
        url = Some((u, bearer));
    }
    let mut corpus = Corpus::new(99, Timestamp(1_795_608_000));
    let queries: Vec<String> = (0..searches.max(agents)).map(|_| corpus.query()).collect();
    let t0 = Instant::now();
    let threads: Vec<_> = (0..agents)
        .map(|i| {
            let (exe, root, runtime, q) = (
                exe.to_path_buf(),
                root.to_path_buf(),
                runtime.clone(),
                queries[i].clone(),
            );
            let mode = mode.to_string();
            std::thread::spawn(move || -> anyhow::Result<(Agent, f64)> {
                let started = Instant::now();
                let mut a = spawn_agent(&exe, &root, &runtime, i, &mode)?;
                let first = a
                    .wait_for(0)
                    .and_then(|()| a.call("memory_search", serde_json::json!({"text": q})));
                if let Err(e) = first {
                    let log = std::fs::read_to_string(root.join(format!("agent-{i}.log")))
                        .unwrap_or_default();
                    anyhow::bail!("agent {i} ({mode}): {e}; its log: {}", log.trim());
                }
                Ok((a, started.elapsed().as_secs_f64() * 1e3))
            })
        })
        .collect();
    let mut started = Vec::new();
    for t in threads {
        started.push(
            t.join()
                .map_err(|_| anyhow::anyhow!("agent thread panicked"))??,
        );
    }
    let all_answered_ms = t0.elapsed().as_secs_f64() * 1e3;
    let mut attach: Vec<f64> = started.iter().map(|(_, ms)| *ms).collect();
    attach.sort_by(f64::total_cmp);
    let agents_rss_mb = started.iter().map(|(a, _)| rss_mb(a.child.id())).sum();
    let daemon_rss_mb = daemon.as_ref().map_or(0.0, |d| rss_mb(d.id()));
    let mut samples = Vec::with_capacity(searches);
    let first = &mut started[0].0;
    for q in queries.iter().take(searches) {
        let t = Instant::now();
        first.call("memory_search", serde_json::json!({"text": q}))?;
        samples.push(t.elapsed());
    }
    // Briefs of rooms deep in the plan (room-050 … room-099), asked as an operator's
    // client asks them: a server without a room identity (an agent's may brief only its
    // own room).
    let mut briefer = spawn_agent_as(exe, root, &runtime, "briefs", None, mode, None)?;
    briefer.wait_for(0)?;
    ensure_brief(&briefer.call_value("memory_get_context", context_args(&queries, 0))?)?;
    let mut briefs = Vec::with_capacity(searches);
    for i in 0..searches {
        let t = Instant::now();
        briefer.call("memory_get_context", context_args(&queries, i))?;
        briefs.push(t.elapsed());
    }
    drop(briefer.stdin);
    let _ = briefer.child.wait();
    let context = Some(Micros::of(briefs));
    // The same searches and briefs from an HTTP session (no relay process in between).
    // One kept-alive connection, as MCP clients hold one.
    let (http_search, http_context) = match &url {
        Some((u, bearer)) => {
            let mut session = LoadAgent::Http(
                xtask::http_client::Conn::open(u)?,
                xtask::http_client::open_session(
                    u,
                    &[
                        ("X-Warroom-Room", "room-bench"),
                        ("Authorization", bearer.as_str()),
                    ],
                )?,
            );
            let mut samples = Vec::with_capacity(searches);
            for q in queries.iter().take(searches) {
                let t = Instant::now();
                session.call("memory_search", serde_json::json!({"text": q}))?;
                samples.push(t.elapsed());
            }
            // Briefs from a session naming no room (the operator's token may; an agent's
            // session may brief only its own room).
            let mut session = LoadAgent::Http(
                xtask::http_client::Conn::open(u)?,
                xtask::http_client::open_session(u, &[("Authorization", bearer.as_str())])?,
            );
            ensure_brief(&session.call("memory_get_context", context_args(&queries, 0))?)?;
            let mut briefs = Vec::with_capacity(searches);
            for i in 0..searches {
                let t = Instant::now();
                session.call("memory_get_context", context_args(&queries, i))?;
                briefs.push(t.elapsed());
            }
            (Some(Micros::of(samples)), Some(Micros::of(briefs)))
        }
        None => (None, None),
    };
    // Every agent searches at once: the daemon serves reads side by side.
    const EACH: usize = 20;
    let t = Instant::now();
    let workers: Vec<_> = started
        .into_iter()
        .enumerate()
        .map(|(i, (mut a, _))| {
            let qs: Vec<String> = (0..EACH)
                .map(|k| queries[(i * EACH + k) % queries.len()].clone())
                .collect();
            std::thread::spawn(move || -> anyhow::Result<Agent> {
                for q in qs {
                    a.call("memory_search", serde_json::json!({"text": q}))?;
                }
                Ok(a)
            })
        })
        .collect();
    let mut done = Vec::new();
    for w in workers {
        done.push(
            w.join()
                .map_err(|_| anyhow::anyhow!("agent thread panicked"))??,
        );
    }
    let parallel_searches_per_s = (agents * EACH) as f64 / t.elapsed().as_secs_f64();
    for mut a in done {
        drop(a.stdin);
        let _ = a.child.wait();
    }
    if let Some(d) = daemon {
        stop_daemon(exe, root, &runtime, d);
    }
    Ok(DaemonReport {
        entries,
        agents,
        mode: mode.to_string(),
        all_answered_ms,
        attach_ms_p50: attach[attach.len() / 2],
        agents_rss_mb,
        daemon_rss_mb,
        search: Micros::of(samples),
        http_search,
        parallel_searches_per_s,
        context,
        http_context,
    })
}

/// The reports as a markdown table (for README).
pub fn markdown(reports: &[DaemonReport]) -> String {
    let mut s = String::from(
        "| entries | agents | mode | all answered ms | attach p50 ms | agents RSS MB | daemon RSS MB | total MB | search p50 / p99 µs (stdio) | search p50 / p99 µs (HTTP) | searches/s, all at once | brief p50 ms (stdio / HTTP) |\n|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in reports {
        s.push_str(&format!(
            "| {} | {} | {} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} / {:.0} | {} | {:.0} | {} |\n",
            r.entries,
            r.agents,
            r.mode,
            r.all_answered_ms,
            r.attach_ms_p50,
            r.agents_rss_mb,
            r.daemon_rss_mb,
            r.agents_rss_mb + r.daemon_rss_mb,
            r.search.p50,
            r.search.p99,
            r.http_search
                .as_ref()
                .map_or("—".to_string(), |h| format!("{:.0} / {:.0}", h.p50, h.p99)),
            r.parallel_searches_per_s,
            match (&r.context, &r.http_context) {
                (Some(c), Some(h)) => format!("{:.2} / {:.2}", c.p50 / 1e3, h.p50 / 1e3),
                (Some(c), None) => format!("{:.2} / —", c.p50 / 1e3),
                _ => "—".to_string(),
            }
        ));
    }
    s
}

/// `bench daemon --load`: many agents on one daemon, half stdio relays and half HTTP
/// sessions, each calling once a second (search, query, publish in turn).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LoadReport {
    /// Ledger entries at the start.
    pub entries: usize,
    /// Agents attached through `serve` relays.
    pub stdio_agents: usize,
    /// Agents speaking Streamable HTTP.
    pub http_agents: usize,
    /// Seconds of load.
    pub seconds: u64,
    /// Calls made.
    pub calls: usize,
    /// Calls that failed.
    pub errors: usize,
    /// Call latency seen by the agents, µs.
    pub latency: Micros,
    /// Publishes acknowledged.
    pub published: usize,
    /// Acknowledged publishes missing from, or duplicated in, the ledger.
    pub lost_or_duplicated: usize,
    /// Resident memory of all relays, MB.
    pub relays_rss_mb: f64,
    /// Resident memory of the daemon, MB.
    pub daemon_rss_mb: f64,
}

/// One agent of the load: how it calls.
enum LoadAgent {
    Stdio(Agent),
    Http(xtask::http_client::Conn, Vec<(String, String)>),
}

impl LoadAgent {
    pub(crate) fn call(
        &mut self,
        tool: &str,
        args: serde_json::Value,
    ) -> anyhow::Result<serde_json::Value> {
        match self {
            LoadAgent::Stdio(a) => a.call_value(tool, args),
            LoadAgent::Http(conn, headers) => {
                let req = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": tool, "arguments": args}});
                let h: Vec<(&str, &str)> = headers
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect();
                let reply = conn.post(&h, &req.to_string())?;
                reply
                    .message()
                    .ok_or_else(|| anyhow::anyhow!("HTTP {}: no answer", reply.status))
            }
        }
    }
}

/// Starts a daemon for `root` serving HTTP on a free loopback port; returns it, its URL
/// and the `Authorization` value of its operator token.
pub(crate) fn start_http_daemon(
    exe: &Path,
    root: &Path,
    runtime: &Path,
) -> anyhow::Result<(Child, String, String)> {
    let daemon = Command::new(exe)
        .arg("--root")
        .arg(root)
        .args(["daemon", "--listen", "127.0.0.1:0"])
        .env("XDG_RUNTIME_DIR", runtime)
        .env("XDG_STATE_HOME", runtime)
        .env("WARROOM_LOG", "warn")
        .stderr(Stdio::null())
        .spawn()?;
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        let out = Command::new(exe)
            .args(["--json", "daemon", "status", "--root"])
            .arg(root)
            .env("XDG_RUNTIME_DIR", runtime)
            .env("XDG_STATE_HOME", runtime)
            .stderr(Stdio::null())
            .output()?;
        if out.status.success() {
            let info: serde_json::Value = serde_json::from_slice(&out.stdout)?;
            let url = info["url"]
                .as_str()
                .context("the daemon serves HTTP")?
                .to_string();
            let file = info["token_file"]
                .as_str()
                .context("the daemon's token file")?;
            let token = std::fs::read_to_string(file)?.trim().to_string();
            return Ok((daemon, url, format!("Bearer {token}")));
        }
        anyhow::ensure!(Instant::now() < deadline, "the daemon did not come up");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Runs the load on the ledger at `root`.
pub fn load(
    exe: &Path,
    root: &Path,
    entries: usize,
    agents: usize,
    seconds: u64,
) -> anyhow::Result<LoadReport> {
    let runtime = root.join("run");
    std::fs::create_dir_all(&runtime)?;
    let (daemon, url, bearer) = start_http_daemon(exe, root, &runtime)?;
    let stdio_agents = agents / 2;
    let mut pool = Vec::with_capacity(agents);
    for i in 0..agents {
        if i < stdio_agents {
            let mut a = spawn_agent(exe, root, &runtime, i, "daemon")?;
            a.wait_for(0)?;
            pool.push(LoadAgent::Stdio(a));
        } else {
            let room = format!("room-{:03}", i % 100);
            let who = [
                ("X-Warroom-Room", room.as_str()),
                ("X-Warroom-Role", "bench"),
                ("Authorization", bearer.as_str()),
            ];
            pool.push(LoadAgent::Http(
                xtask::http_client::Conn::open(&url)?,
                xtask::http_client::open_session(&url, &who)?,
            ));
        }
    }
    let mut corpus = Corpus::new(7, Timestamp(1_795_608_000));
    let queries: Vec<String> = (0..agents).map(|_| corpus.query()).collect();
    let start = Instant::now() + Duration::from_millis(500);
    let workers: Vec<_> = pool
        .into_iter()
        .enumerate()
        .map(|(i, mut a)| {
            let q = queries[i].clone();
            let offset = Duration::from_millis((i as u64 * 1000) / agents.max(1) as u64);
            std::thread::spawn(move || {
                let mut samples = Vec::new();
                let (mut errors, mut ids) = (0usize, Vec::new());
                for k in 0..seconds {
                    let at = start + offset + Duration::from_secs(k);
                    std::thread::sleep(at.saturating_duration_since(Instant::now()));
                    let t = Instant::now();
                    let r = match k % 3 {
                        0 => a.call("memory_search", serde_json::json!({"text": q})),
                        1 => a.call("memory_query", serde_json::json!({"last_n": 10})),
                        _ => a.call(
                            "memory_publish",
                            serde_json::json!({"kind": "warning",
                            "summary": format!("load agent {i} call {k}")}),
                        ),
                    };
                    samples.push(t.elapsed());
                    match r {
                        Ok(v) if v["result"]["isError"] != true => {
                            if let Some(id) =
                                v["result"]["structuredContent"]["entry"]["id"].as_str()
                            {
                                ids.push(id.to_string());
                            }
                        }
                        _ => errors += 1,
                    }
                }
                (a, samples, errors, ids)
            })
        })
        .collect();
    let (mut samples, mut errors, mut acked, mut relays_rss_mb) = (Vec::new(), 0, Vec::new(), 0.0);
    let mut finished = Vec::new();
    for w in workers {
        let (a, s, e, ids) = w
            .join()
            .map_err(|_| anyhow::anyhow!("load thread panicked"))?;
        samples.extend(s);
        errors += e;
        acked.extend(ids);
        finished.push(a);
    }
    for a in &finished {
        if let LoadAgent::Stdio(a) = a {
            relays_rss_mb += rss_mb(a.child.id());
        }
    }
    let daemon_rss_mb = rss_mb(daemon.id());
    for a in finished {
        if let LoadAgent::Stdio(mut a) = a {
            drop(a.stdin);
            let _ = a.child.wait();
        }
    }
    stop_daemon(exe, root, &runtime, daemon);
    let mut in_ledger: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for line in std::fs::read_to_string(root.join(".agents/ledger.jsonl"))?.lines() {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(line)
            && let Some(id) = v["id"].as_str()
        {
            *in_ledger.entry(id.to_string()).or_default() += 1;
        }
    }
    let lost_or_duplicated = acked
        .iter()
        .filter(|id| in_ledger.get(*id) != Some(&1))
        .count();
    Ok(LoadReport {
        entries,
        stdio_agents,
        http_agents: agents - stdio_agents,
        seconds,
        calls: samples.len(),
        errors,
        latency: Micros::of(samples),
        published: acked.len(),
        lost_or_duplicated,
        relays_rss_mb,
        daemon_rss_mb,
    })
}

/// The load report as a markdown table.
pub fn load_markdown(r: &LoadReport) -> String {
    format!(
        "| entries | stdio relays + HTTP sessions | seconds | calls | errors | latency p50 / p99 µs | publishes acknowledged | lost or duplicated | relays RSS MB | daemon RSS MB |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n| {} | {} + {} | {} | {} | {} | {:.0} / {:.0} | {} | {} | {:.0} ({:.1} each) | {:.0} |\n",
        r.entries,
        r.stdio_agents,
        r.http_agents,
        r.seconds,
        r.calls,
        r.errors,
        r.latency.p50,
        r.latency.p99,
        r.published,
        r.lost_or_duplicated,
        r.relays_rss_mb,
        r.relays_rss_mb / r.stdio_agents.max(1) as f64,
        r.daemon_rss_mb
    )
}
