//! `bench compare`: the product binary at another revision beside this tree's, measured in
//! turn in one run on one machine, on one generated ledger with a 40-epic plan whose epics
//! each depend on the two before them (the long chains plans run). Both binaries get the same
//! project, fresh for every run: the first start (spawn → `initialize` → the first search
//! answered), resident memory after answering, search round trips (eight plain words, five
//! times each) and briefs of the twelve rooms deepest in the plan, all over stdio. Runs
//! alternate between the binaries so that a machine's drift falls on both.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use serde::Serialize;

use super::daemon::{Agent, ensure_brief, register_plan, rss_mb, spawn_agent_as};
use super::measure::Micros;

/// The searches: plain words of the generated corpus, each asked `SEARCH_ROUNDS` times.
const WORDS: [&str; 8] = [
    "auth",
    "session",
    "migration",
    "worker",
    "cache",
    "invoice",
    "deploy",
    "replica",
];
const SEARCH_ROUNDS: usize = 5;
/// Rooms briefed (the deepest of the plan), each `BRIEF_ROUNDS` times.
const DEEP_ROOMS: usize = 12;
const BRIEF_ROUNDS: usize = 3;

/// One binary's figures from one run.
#[derive(Debug, Clone, Serialize)]
pub struct Run {
    /// Spawn to the first search answered (no index snapshot on disk), ms.
    pub first_answer_ms: f64,
    /// Resident memory of the server after every timed call, MB.
    pub rss_mb: f64,
    /// Search round trips, µs.
    pub search: Micros,
    /// Brief round trips of the deepest rooms, µs.
    pub context: Micros,
}

/// The two binaries' runs.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// Ledger entries.
    pub entries: usize,
    /// Ledger bytes.
    pub ledger_bytes: u64,
    /// Epics of the plan.
    pub epics: usize,
    /// What each side is (`<rev> (<sha>)`), base first.
    pub sides: [String; 2],
    /// Runs of each side, in the order they ran.
    pub runs: [Vec<Run>; 2],
}

/// The plan: `epics` epics in rooms `room-000…`, each depending on the two before it,
/// each with two of the searched words as its brief keywords.
pub fn chain_plan(epics: usize) -> serde_json::Value {
    let epics: Vec<serde_json::Value> = (0..epics)
        .map(|i| {
            let deps: Vec<String> = (i.saturating_sub(2)..i)
                .map(|d| format!("EPIC-{d:03}"))
                .collect();
            let keywords = [WORDS[i % WORDS.len()], WORDS[(i + 3) % WORDS.len()]];
            serde_json::json!({"ref": format!("EPIC-{i:03}"), "room_id": format!("room-{i:03}"),
                "title": format!("Epic {i}"), "depends_on": deps, "brief_keywords": keywords})
        })
        .collect();
    serde_json::json!({"plan_id": "compare", "epics": epics})
}

/// The workspace's root (where `Cargo.toml` of the product is).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

fn git(root: &Path, args: &[&str]) -> anyhow::Result<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()?;
    anyhow::ensure!(
        out.status.success(),
        "git {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr).trim()
    );
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Builds the product at `manifest_dir` in release into `target`; returns the binary.
fn build(
    manifest_dir: &Path,
    target: &Path,
    note: &mut dyn FnMut(&str),
) -> anyhow::Result<PathBuf> {
    note(&format!(
        "building {} (target {})",
        manifest_dir.display(),
        target.display()
    ));
    let status = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .current_dir(manifest_dir)
        .args(["build", "--release", "--locked", "--bin", "warroom-memory"])
        .env("CARGO_TARGET_DIR", target)
        .status()
        .context("running cargo")?;
    anyhow::ensure!(
        status.success(),
        "building {} failed",
        manifest_dir.display()
    );
    Ok(target.join("release/warroom-memory"))
}

/// The binary of `rev`, built in a worktree of its own under `work` (kept between runs, so
/// a second comparison with the same revision builds nothing).
pub fn build_rev(
    rev: &str,
    work: &Path,
    note: &mut dyn FnMut(&str),
) -> anyhow::Result<(String, PathBuf)> {
    let root = workspace_root();
    let sha = git(
        &root,
        &["rev-parse", "--verify", &format!("{rev}^{{commit}}")],
    )
    .with_context(|| format!("{rev} is not a revision of this repository"))?;
    let short = sha.get(..12).unwrap_or(&sha).to_string();
    let tree = work.join(format!("src-{short}"));
    if !tree.join("Cargo.toml").exists() {
        let _ = git(&root, &["worktree", "prune"]);
        git(
            &root,
            &["worktree", "add", "--detach", &tree.to_string_lossy(), &sha],
        )?;
    }
    let bin = build(&tree, &work.join("target"), note)?;
    let kept = work.join(format!("warroom-memory-{short}"));
    std::fs::copy(&bin, &kept)?;
    Ok((short, kept))
}

/// This tree's binary, built in release in the workspace's own target directory.
pub fn build_current(note: &mut dyn FnMut(&str)) -> anyhow::Result<(String, PathBuf)> {
    let root = workspace_root();
    let sha = git(&root, &["rev-parse", "--short=12", "HEAD"])?;
    let dirty = !git(&root, &["status", "--porcelain", "--untracked-files=no"])?.is_empty();
    let bin = build(&root, &root.join("target"), note)?;
    Ok((if dirty { format!("{sha}+changes") } else { sha }, bin))
}

/// A fresh project at `root`: the ledger copied in, the plan registered by `exe`.
pub(crate) fn fresh_project(
    exe: &Path,
    root: &Path,
    ledger: &Path,
    plan: &serde_json::Value,
) -> anyhow::Result<()> {
    if root.exists() {
        std::fs::remove_dir_all(root)?;
    }
    std::fs::create_dir_all(root.join(".agents"))?;
    std::fs::copy(ledger, root.join(".agents/ledger.jsonl"))?;
    register_plan(exe, root, plan)
}

fn timed(agent: &mut Agent, tool: &str, args: serde_json::Value) -> anyhow::Result<Duration> {
    let t = Instant::now();
    let answer = agent.call_value(tool, args)?;
    let took = t.elapsed();
    anyhow::ensure!(
        answer["result"]["isError"] != true,
        "{tool} answered an error: {}",
        warroom_memory::text::clip(&answer.to_string(), 400)
    );
    Ok(took)
}

/// Briefs of `rooms` over `agent`, one untimed (it must hold entries), then each room
/// `rounds` times, timed.
pub(crate) fn time_briefs(
    agent: &mut Agent,
    rooms: &[String],
    rounds: usize,
) -> anyhow::Result<Vec<Duration>> {
    let brief = |room: &str| serde_json::json!({"room_id": room});
    let first = rooms.first().context("no room to brief")?;
    ensure_brief(&agent.call_value("memory_get_context", brief(first))?)?;
    let mut times = Vec::new();
    for _ in 0..rounds {
        for r in rooms {
            times.push(timed(agent, "memory_get_context", brief(r))?);
        }
    }
    Ok(times)
}

/// One run of `exe` on a fresh project at `root`.
fn run_once(
    exe: &Path,
    root: &Path,
    ledger: &Path,
    plan: &serde_json::Value,
    epics: usize,
) -> anyhow::Result<Run> {
    fresh_project(exe, root, ledger, plan)?;
    let runtime = root.join("run");
    std::fs::create_dir_all(&runtime)?;
    let started = Instant::now();
    // An operator's client (no room identity): it may ask any room's brief.
    // A cache of its own, empty: the first start builds the index from the ledger.
    let cache = root.join("cache");
    let mut agent = spawn_agent_as(exe, root, &runtime, "compare", None, "direct", Some(&cache))?;
    let first = agent
        .wait_for(0)
        .and_then(|()| agent.call("memory_search", serde_json::json!({"text": WORDS[0]})));
    if let Err(e) = first {
        let log = std::fs::read_to_string(root.join("compare.log")).unwrap_or_default();
        anyhow::bail!("{}: {e}; its log: {}", exe.display(), log.trim());
    }
    let first_answer_ms = started.elapsed().as_secs_f64() * 1e3;
    let mut searches = Vec::new();
    for _ in 0..SEARCH_ROUNDS {
        for w in WORDS {
            searches.push(timed(
                &mut agent,
                "memory_search",
                serde_json::json!({"text": w}),
            )?);
        }
    }
    let rooms: Vec<String> = (epics.saturating_sub(DEEP_ROOMS)..epics)
        .map(|i| format!("room-{i:03}"))
        .collect();
    let briefs = time_briefs(&mut agent, &rooms, BRIEF_ROUNDS)?;
    let rss_mb = rss_mb(agent.child.id());
    drop(agent.stdin);
    let _ = agent.child.wait();
    Ok(Run {
        first_answer_ms,
        rss_mb,
        search: Micros::of(searches),
        context: Micros::of(briefs),
    })
}

/// Runs both binaries `runs` times each, alternating (base first), on the ledger at
/// `ledger` with a chain plan of `epics` epics; projects live under `work`.
pub fn compare(
    bins: [(String, PathBuf); 2],
    ledger: &Path,
    entries: usize,
    epics: usize,
    runs: usize,
    work: &Path,
    note: &mut dyn FnMut(&str),
) -> anyhow::Result<Comparison> {
    anyhow::ensure!(epics >= DEEP_ROOMS, "--epics must be at least {DEEP_ROOMS}");
    let plan = chain_plan(epics);
    let mut out: [Vec<Run>; 2] = [Vec::new(), Vec::new()];
    for k in 0..runs {
        for (side, (name, exe)) in bins.iter().enumerate() {
            note(&format!("run {}/{runs}: {name}", k + 1));
            let root = work.join(format!("project-{side}"));
            out[side].push(run_once(exe, &root, ledger, &plan, epics)?);
            std::fs::remove_dir_all(&root)?;
        }
    }
    Ok(Comparison {
        entries,
        ledger_bytes: std::fs::metadata(ledger)?.len(),
        epics,
        sides: [bins[0].0.clone(), bins[1].0.clone()],
        runs: out,
    })
}

/// The comparison as a markdown table: each run's figure, runs separated by ` / `.
pub fn markdown(c: &Comparison) -> String {
    type Figure<'a> = &'a dyn Fn(&Run) -> String;
    let join = |side: usize, f: &dyn Fn(&Run) -> String| {
        c.runs[side].iter().map(f).collect::<Vec<_>>().join(" / ")
    };
    let rows: [(&str, Figure); 4] = [
        ("first start to first answer", &|r| {
            format!("{:.2} s", r.first_answer_ms / 1e3)
        }),
        ("resident memory after answering", &|r| {
            format!("{:.0} MB", r.rss_mb)
        }),
        ("`memory_search` p50 (8 words × 5)", &|r| {
            format!("{:.2} ms", r.search.p50 / 1e3)
        }),
        ("`memory_get_context` p50 (12 deepest rooms × 3)", &|r| {
            format!("{:.2} ms", r.context.p50 / 1e3)
        }),
    ];
    let mut s = format!(
        "{} entries ({} MB), a {}-epic plan (each epic on the two before it), stdio, runs alternating:\n\n| | {} | {} |\n|---|---:|---:|\n",
        c.entries,
        c.ledger_bytes / 1_000_000,
        c.epics,
        c.sides[0],
        c.sides[1]
    );
    for (label, f) in rows {
        s.push_str(&format!("| {label} | {} | {} |\n", join(0, f), join(1, f)));
    }
    s
}
