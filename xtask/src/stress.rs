//! `warroom-memory stress`: the heavy, documented versions of the reliability tests.
//!
//! 1. Concurrency: N server processes over stdio, each publishing M entries and M channel
//!    posts as fast as it can while querying; then every acknowledged write must be in the
//!    files exactly once, every line valid, and every process must see all N×M.
//! 2. Crashes: K rounds of a server publishing in a loop that is either killed -9 at a random
//!    moment or made to crash inside an append (a torn write); afterwards nothing
//!    acknowledged is lost, no line is glued to another, and `verify` names every torn line.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::service::{Peer, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde::Serialize;
use serde_json::{Value, json};

use crate::bench::corpus::Rng;

/// What to run.
#[derive(Debug, Clone)]
pub struct StressOptions {
    /// Concurrent server processes.
    pub processes: usize,
    /// Entries (and channel posts) per process.
    pub entries: usize,
    /// Rounds in which the publishing server is killed -9 at a random moment.
    pub kills: usize,
    /// Rounds in which the publishing server crashes inside an append (a torn write).
    pub tears: usize,
    /// Working directory (a fresh project is made inside).
    pub dir: PathBuf,
}

/// Results of the concurrency run.
#[derive(Debug, Clone, Serialize)]
pub struct ConcurrencyReport {
    /// Server processes.
    pub processes: usize,
    /// Ledger entries acknowledged to clients.
    pub entries_written: usize,
    /// Ledger lines found afterwards.
    pub entries_found: usize,
    /// Distinct ids among them.
    pub entries_unique: usize,
    /// Acknowledged entries missing from the file.
    pub entries_lost: usize,
    /// Channel posts acknowledged.
    pub posts_written: usize,
    /// Channel lines found.
    pub posts_found: usize,
    /// Acknowledged posts missing.
    pub posts_lost: usize,
    /// Lines that are not valid JSON, in both files.
    pub invalid_lines: usize,
    /// The smallest total any process saw in its final query.
    pub min_total_seen: usize,
    /// Wall time.
    pub seconds: f64,
}

/// Results of the crash run.
#[derive(Debug, Clone, Serialize)]
pub struct CrashReport {
    /// Rounds in which the server was killed -9 at a random moment.
    pub kill9: usize,
    /// Rounds in which the server crashed inside an append.
    pub torn_writes: usize,
    /// Entries acknowledged before the crashes.
    pub acknowledged: usize,
    /// Acknowledged entries missing afterwards.
    pub lost: usize,
    /// Ids found more than once.
    pub duplicated: usize,
    /// Lines holding more than one entry (a torn line glued to the next).
    pub glued_lines: usize,
    /// Torn fragments found (each on its own line).
    pub torn_fragments: usize,
    /// `verify` reported every torn fragment by line number.
    pub verify_named_all: bool,
    /// Wall time.
    pub seconds: f64,
}

/// Both runs.
#[derive(Debug, Clone, Serialize)]
pub struct StressReport {
    /// Concurrency results.
    pub concurrency: ConcurrencyReport,
    /// Crash results.
    pub crashes: CrashReport,
}

struct Proc {
    client: RunningService<RoleClient, ()>,
    pid: Option<u32>,
}

async fn spawn(
    exe: &Path,
    root: &Path,
    room: &str,
    role: &str,
    env: &[(&str, String)],
) -> anyhow::Result<Proc> {
    let mut cmd = tokio::process::Command::new(exe);
    cmd.arg("serve").arg("--root").arg(root);
    for v in [
        "WARROOM_ROOM_ID",
        "WARROOM_ROLE",
        "WARROOM_NOW",
        "WARROOM_ROOT",
        "WARROOM_LEDGER",
    ] {
        cmd.env_remove(v);
    }
    cmd.env("WARROOM_ROOM_ID", room)
        .env("WARROOM_ROLE", role)
        .env("WARROOM_LOG", "error");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let (t, _) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()?;
    let pid = t.id();
    let client = ().serve(t).await?;
    Ok(Proc { client, pid })
}

async fn call(peer: &Peer<RoleClient>, tool: &str, args: Value) -> Option<Value> {
    let Value::Object(map) = args else {
        return None;
    };
    let r = peer
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(map))
        .await
        .ok()?;
    if r.is_error == Some(true) {
        None
    } else {
        r.structured_content
    }
}

fn ids_in(path: &Path) -> (Vec<String>, usize, usize) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let (mut ids, mut invalid, mut glued) = (Vec::new(), 0, 0);
    for l in text.lines().filter(|l| !l.trim().is_empty()) {
        if l.matches("\"id\":").count() > 1 {
            glued += 1;
        }
        match serde_json::from_str::<Value>(l) {
            Ok(v) => ids.push(v["id"].as_str().unwrap_or_default().to_string()),
            Err(_) => invalid += 1,
        }
    }
    (ids, invalid, glued)
}

async fn concurrency(
    exe: &Path,
    root: &Path,
    o: &StressOptions,
) -> anyhow::Result<ConcurrencyReport> {
    let started = Instant::now();
    let mut procs = Vec::new();
    for i in 0..o.processes {
        procs.push(spawn(exe, root, "room-shared", &format!("eng-{i}"), &[]).await?);
    }
    let mut set = tokio::task::JoinSet::new();
    for (i, p) in procs.iter().enumerate() {
        let peer = p.client.peer().clone();
        let n = o.entries;
        set.spawn(async move {
            let (mut entries, mut posts) = (Vec::new(), Vec::new());
            for k in 0..n {
                if let Some(v) = call(&peer, "memory_publish", json!({"kind": "code", "summary": format!("p{i} entry {k}"), "tags": ["stress"]})).await {
                    entries.push(v["entry"]["id"].as_str().unwrap_or_default().to_string());
                }
                if let Some(v) = call(&peer, "channel_post", json!({"type": "review", "body": format!("p{i} post {k}")})).await {
                    posts.push(v["message"]["id"].as_str().unwrap_or_default().to_string());
                }
                if k % 50 == 0 {
                    call(&peer, "memory_query", json!({"room_id": "*", "tags": ["stress"], "last_n": 5})).await;
                }
            }
            (entries, posts)
        });
    }
    let acked: Vec<(Vec<String>, Vec<String>)> = set.join_all().await;
    let mut min_seen = usize::MAX;
    for p in &procs {
        let q = call(
            p.client.peer(),
            "memory_query",
            json!({"room_id": "*", "last_n": 1}),
        )
        .await;
        min_seen = min_seen.min(q.and_then(|v| v["total"].as_u64()).unwrap_or(0) as usize);
    }
    for p in procs {
        let _ = p.client.cancel().await;
    }
    let (e_ids, e_bad, _) = ids_in(&root.join(".agents/ledger.jsonl"));
    let (p_ids, p_bad, _) = ids_in(&root.join(".agents/war-rooms/room-shared/channel.jsonl"));
    let e_set: HashSet<&String> = e_ids.iter().collect();
    let p_set: HashSet<&String> = p_ids.iter().collect();
    Ok(ConcurrencyReport {
        processes: o.processes,
        entries_written: acked.iter().map(|a| a.0.len()).sum(),
        entries_found: e_ids.len(),
        entries_unique: e_set.len(),
        entries_lost: acked
            .iter()
            .flat_map(|a| &a.0)
            .filter(|id| !e_set.contains(id))
            .count(),
        posts_written: acked.iter().map(|a| a.1.len()).sum(),
        posts_found: p_ids.len(),
        posts_lost: acked
            .iter()
            .flat_map(|a| &a.1)
            .filter(|id| !p_set.contains(id))
            .count(),
        invalid_lines: e_bad + p_bad,
        min_total_seen: min_seen,
        seconds: started.elapsed().as_secs_f64(),
    })
}

async fn crashes(exe: &Path, root: &Path, o: &StressOptions) -> anyhow::Result<CrashReport> {
    let started = Instant::now();
    let mut rng = Rng::new(7);
    let (mut acked, mut kill9, mut torn) = (Vec::new(), 0, 0);
    for round in 0..o.kills + o.tears {
        // Tear rounds are spread evenly among the kill rounds.
        let tear =
            o.tears > 0 && round % ((o.kills + o.tears) / o.tears).max(1) == 0 && torn < o.tears;
        let env = if tear {
            vec![(
                "WARROOM_FAULT_CRASH_AFTER_BYTES",
                (500 + rng.below(4000)).to_string(),
            )]
        } else {
            Vec::new()
        };
        let p = spawn(exe, root, "room-crash", "engineer", &env).await?;
        let peer = p.client.peer().clone();
        let writer = tokio::spawn(async move {
            let mut mine = Vec::new();
            for k in 0..1_000_000 {
                match call(
                    &peer,
                    "memory_publish",
                    json!({"kind": "decision", "summary": format!("round {round} entry {k}")}),
                )
                .await
                {
                    Some(v) => mine.push(v["entry"]["id"].as_str().unwrap_or_default().to_string()),
                    None => break,
                }
            }
            mine
        });
        if tear {
            torn += 1;
        } else {
            kill9 += 1;
            tokio::time::sleep(Duration::from_millis(5 + rng.below(60))).await;
            if let Some(pid) = p.pid {
                let _ = std::process::Command::new("kill")
                    .args(["-9", &pid.to_string()])
                    .status();
            }
        }
        acked.extend(writer.await.unwrap_or_default());
        drop(p);
    }
    let ledger = root.join(".agents/ledger.jsonl");
    let (ids, invalid, glued) = ids_in(&ledger);
    let found: HashSet<&String> = ids.iter().collect();
    let report =
        warroom_memory::audit::verify::verify(&ledger, &Default::default(), &mut |_, _| {})?;
    let named = report
        .violations
        .iter()
        .filter(|v| v.kind == "malformed-json")
        .count();
    Ok(CrashReport {
        kill9,
        torn_writes: torn,
        acknowledged: acked.len(),
        lost: acked.iter().filter(|id| !found.contains(id)).count(),
        duplicated: ids.len() - found.len(),
        glued_lines: glued,
        torn_fragments: invalid,
        verify_named_all: named == invalid,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Runs both phases in fresh projects under `o.dir`.
pub async fn run(exe: &Path, o: &StressOptions) -> anyhow::Result<StressReport> {
    let base = tempfile::tempdir_in(&o.dir)?;
    let (a, b) = (base.path().join("concurrency"), base.path().join("crashes"));
    for d in [&a, &b] {
        std::fs::create_dir_all(d.join(".agents"))?;
    }
    Ok(StressReport {
        concurrency: concurrency(exe, &a, o).await?,
        crashes: crashes(exe, &b, o).await?,
    })
}
