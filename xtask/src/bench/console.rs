//! `bench console`: server-side time of every console page on a generated ledger, through
//! the real daemon over one kept-alive HTTP connection (what a browser holds): the plans
//! page with a 30-epic plan, the timeline (first page, a filtered one, a later page by its
//! cursor), an entry, a room (with its brief), search, the audit page (nothing new; then one new entry
//! a round, the kept verification continued, against a full verify), a diff from a line
//! position and `/overlaps` ([`super::console_overlaps`]). Figures in docs/performance.md.

use std::path::Path;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::corpus::Corpus;
use super::daemon::{start_http_daemon, stop_daemon};
use super::measure::Micros;
use warroom_memory::clock::Timestamp;

/// One page at one size.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PageReport {
    /// Ledger entries.
    pub entries: usize,
    /// What was asked.
    pub page: String,
    /// Round trips (request sent → whole page read), µs.
    pub time: Micros,
    /// Size of the page, bytes.
    pub bytes: usize,
}

/// A 30-epic plan over the generated ledger's rooms `room-000`…`room-029`.
fn plan() -> serde_json::Value {
    let epics: Vec<serde_json::Value> = (0..30)
        .map(|i| {
            let mut deps = Vec::new();
            if i > 0 {
                deps.push(format!("EPIC-{:03}", i - 1));
            }
            if i > 3 && i % 4 == 0 {
                deps.push(format!("EPIC-{:03}", i - 4));
            }
            serde_json::json!({"ref": format!("EPIC-{i:03}"), "room_id": format!("room-{i:03}"),
                "title": format!("Bench epic {i}"), "depends_on": deps})
        })
        .collect();
    serde_json::json!({"plan_id": "bench", "title": "Bench", "epics": epics})
}

/// Measures every page `rounds` times on the ledger at `root` (in place; a plan is added).
pub fn measure(
    exe: &Path,
    root: &Path,
    entries: usize,
    rounds: usize,
    progress: &mut dyn FnMut(&str),
) -> anyhow::Result<Vec<PageReport>> {
    let plans = root.join(".agents/plan");
    std::fs::create_dir_all(&plans)?;
    std::fs::write(plans.join("bench.json"), plan().to_string())?;
    let runtime = root.join("run");
    std::fs::create_dir_all(&runtime)?;
    progress(&format!("{entries} entries: starting the daemon"));
    let (daemon, url, bearer) = start_http_daemon(exe, root, &runtime)?;
    let mut conn = xtask::http_client::Conn::open(&url)?;
    let headers = [("Authorization", bearer.as_str())];
    let mut get = |path: &str| -> anyhow::Result<(String, std::time::Duration)> {
        let t = Instant::now();
        let r = conn.get(path, &headers)?;
        let took = t.elapsed();
        anyhow::ensure!(r.status == 200, "GET {path}: {} {}", r.status, r.body);
        Ok((r.body, took))
    };
    let first = get("/timeline")?.0;
    let cursor = first
        .split("before=")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap_or("")
        .to_string();
    let mut corpus = Corpus::new(7, Timestamp(1_795_608_000));
    let query = corpus.query();
    let tag = corpus.tag();
    let pages = [
        ("/".to_string(), "plans (30-epic DAG)"),
        ("/timeline".to_string(), "timeline"),
        ("/timeline?room=room-007".to_string(), "timeline, one room"),
        (
            format!("/timeline?kind=warning&tag={tag}"),
            "timeline, kind + tag",
        ),
        (format!("/timeline?before={cursor}"), "timeline, next page"),
        (format!("/entry/mem-bench-{:08}", entries / 2), "entry"),
        ("/room/room-007".to_string(), "room (with its brief)"),
        (format!("/search?q={}", query.replace(' ', "+")), "search"),
        ("/audit".to_string(), "audit (nothing new)"),
        (
            format!("/audit/diff?since=line:{}", entries.saturating_sub(100)),
            "diff, last 100 lines",
        ),
    ];
    let mut out = Vec::new();
    for (path, label) in pages {
        progress(&format!("{entries} entries: {label}"));
        let (body, _) = get(&path)?; // warm: the audit page computes verify once
        let mut samples = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            samples.push(get(&path)?.1);
        }
        out.push(PageReport {
            entries,
            page: label.to_string(),
            time: Micros::of(samples),
            bytes: body.len(),
        });
    }
    out.extend(audit_after_change(
        exe,
        root,
        entries,
        rounds.min(10),
        &mut get,
        progress,
    )?);
    out.extend(super::console_overlaps::measure(
        &url, &bearer, entries, rounds, &mut get, progress,
    )?);
    stop_daemon(exe, root, &runtime, daemon);
    Ok(out)
}

/// The audit page after one new entry (the kept verification continued over it) against a
/// full `verify` of the same project in this process: each round publishes one entry
/// through the binary (not timed), then times the page.
fn audit_after_change(
    exe: &Path,
    root: &Path,
    entries: usize,
    rounds: usize,
    get: &mut dyn FnMut(&str) -> anyhow::Result<(String, std::time::Duration)>,
    progress: &mut dyn FnMut(&str),
) -> anyhow::Result<Vec<PageReport>> {
    progress(&format!("{entries} entries: audit after one new entry"));
    let mut samples = Vec::with_capacity(rounds);
    let mut body = String::new();
    for i in 0..rounds {
        let out = std::process::Command::new(exe)
            .arg("--root")
            .arg(root)
            .args([
                "publish", "--kind", "artifact", "--room", "room-001", "--role", "bench",
            ])
            .args(["--summary", &format!("audit bench entry {i}")])
            .env("WARROOM_LOG", "warn")
            .output()?;
        anyhow::ensure!(
            out.status.success(),
            "publish: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (b, took) = get("/audit")?;
        anyhow::ensure!(b.contains("id=\"continued\""), "the page did not continue");
        samples.push(took);
        body = b;
    }
    progress(&format!("{entries} entries: a full verify, for comparison"));
    let paths = warroom_memory::config::Paths::under(root);
    let mut full = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        warroom_memory::audit::whole::verify_project(&paths, &Default::default(), &mut |_, _| {})?;
        full.push(t.elapsed());
    }
    Ok(vec![
        PageReport {
            entries,
            page: "audit after one new entry (continued)".into(),
            time: Micros::of(samples),
            bytes: body.len(),
        },
        PageReport {
            entries,
            page: "full verify (for comparison, in process)".into(),
            time: Micros::of(full),
            bytes: 0,
        },
    ])
}

/// The reports as a markdown table.
pub fn markdown(reports: &[PageReport]) -> String {
    let mut s =
        String::from("| entries | page | p50 ms | p99 ms | KB |\n|---:|---|---:|---:|---:|\n");
    for r in reports {
        s.push_str(&format!(
            "| {} | {} | {:.2} | {:.2} | {:.0} |\n",
            r.entries,
            r.page,
            r.time.p50 / 1000.0,
            r.time.p99 / 1000.0,
            r.bytes as f64 / 1024.0
        ));
    }
    s
}
