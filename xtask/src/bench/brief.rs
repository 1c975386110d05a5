//! `cargo xtask bench brief`: what a room's brief carries of what it needs.
//!
//! On each generated world of [`super::brief_world`] (one per domain of
//! [`super::brief_domains`]: freight, clinic, energy), and on a harder world of each
//! ([`super::brief_world::hard_world`], three seeds), for each room with upstream rooms,
//! the ledger holds what the rooms before it in the plan's order wrote, the room starts
//! now, and its brief is read with the plan's brief keywords. Recall is
//! `|needed ∩ brief| / min(|needed|, 15)`, averaged over those rooms; stale counts
//! superseded entries shown. Three baselines run on the same ledgers: the newest 15
//! upstream entries, kind-first and kind-first with twins last, as
//! `../shared/brief-check/brief_recall.py` defines them; that script's own world (written
//! outside the project) is run on the product binary and printed beside. Then the brief's
//! latency at `--sizes`.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;
use warroom_memory::api::brief::BriefArgs;
use warroom_memory::api::plan::RegisterPlanArgs;
use warroom_memory::clock::{FixedClock, Timestamp};
use warroom_memory::config::{Identity, Paths, Settings};
use warroom_memory::entry::Kind;
use warroom_memory::memory::Memory;

use super::brief_domains::{self, Domain};
use super::brief_world::{Epic, Gen, distance, hard_world, world};

/// The noise levels: working notes per room.
pub const NOISE: [usize; 4] = [0, 5, 20, 60];
/// The brief's entry limit.
const MAX: usize = 15;

/// One noise level's figures.
#[derive(Debug, Clone, Serialize)]
pub struct Level {
    /// The world's domain ([`brief_domains`]).
    pub world: &'static str,
    /// Working notes per room.
    pub notes: usize,
    /// Notes published with `audience: room` (and exports with theirs).
    pub marked: bool,
    /// The harder world ([`super::brief_world::hard_world`]), averaged over `seeds`.
    pub hard: bool,
    pub seeds: usize,
    /// Mean recall of our brief and of the baselines: the newest 15, kind-first and
    /// kind-first with twins last (`brief_recall.py`'s `kinds` and `twins`, rule for rule).
    pub ours: f64,
    pub newest: f64,
    pub kinds: f64,
    pub twins: f64,
    /// The lowest room's recall (ours).
    pub worst: f64,
    /// Superseded entries our briefs showed, in all.
    pub stale: usize,
    /// Mean bytes of our briefs.
    pub bytes: usize,
    /// Mean entries needed per room.
    pub needed: f64,
}

/// Latency of one brief at a ledger size.
#[derive(Debug, Clone, Serialize)]
pub struct Latency {
    pub entries: usize,
    pub p50_ms: f64,
    pub p90_ms: f64,
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct BriefReport {
    pub levels: Vec<Level>,
    pub latency: Vec<Latency>,
    /// One room's oversized conventions (and short ones, for comparison).
    pub oversized: Vec<super::brief_oversized::Oversized>,
    /// `../shared/brief-check/brief_recall.py` on the product binary (the shop world,
    /// written outside the project), as it printed it; None where it is not found.
    pub outside: Option<String>,
}

fn plan_of(name: &str, epics: &[Epic]) -> RegisterPlanArgs {
    let list: Vec<serde_json::Value> = epics
        .iter()
        .map(|e| {
            serde_json::json!({
                "ref": e.ref_, "room_id": e.room, "title": e.title,
                "depends_on": e.deps.iter().map(|&d| epics[d].ref_.clone()).collect::<Vec<_>>(),
                "brief_keywords": e.keywords,
            })
        })
        .collect();
    RegisterPlanArgs {
        plan: Some(serde_json::json!({"plan_id": name, "title": name, "epics": list})),
        markdown: None,
        plan_id: None,
    }
}

/// A memory over `gens` (in a fresh directory under `work`), the plan registered.
pub(crate) fn memory_of(
    work: &std::path::Path,
    epics: &[Epic],
    gens: &[&Gen],
) -> anyhow::Result<(Memory, tempfile::TempDir)> {
    memory_with(work, brief_domains::FREIGHT.name, epics, gens, false)
}

/// [`memory_of`], with semantic ranking on (every entry embedded first) if `semantic`.
fn memory_with(
    work: &std::path::Path,
    name: &str,
    epics: &[Epic],
    gens: &[&Gen],
    semantic: bool,
) -> anyhow::Result<(Memory, tempfile::TempDir)> {
    let dir = tempfile::tempdir_in(work)?;
    let paths = Paths::under(dir.path());
    std::fs::create_dir_all(paths.ledger.parent().unwrap())?;
    let mut text = String::new();
    for g in gens {
        text.push_str(&g.entry.to_line());
        text.push('\n');
    }
    std::fs::write(&paths.ledger, text)?;
    let last = gens.last().map_or(0, |g| {
        warroom_memory::clock::parse_rfc3339(&g.entry.ts).map_or(0, |t| t.0)
    });
    let clock = Arc::new(FixedClock::new(Timestamp(last + 3600)));
    let mut settings = Settings {
        fsync: false,
        ..Settings::default()
    };
    settings.semantic.on = semantic;
    let m = Memory::open(paths, settings, clock)?;
    if semantic {
        let stop = std::sync::atomic::AtomicBool::new(false);
        m.semantic_backfill(2, &stop, &mut |_, _| {})?;
    }
    m.register_plan(plan_of(name, epics), &Identity::default())?;
    Ok((m, dir))
}

/// The share of `needed` that `chosen` carries. An entry counts as carried when an entry
/// of the same kind and summary is (the brief collapses such duplicates into one).
fn recall(gens: &[Gen], chosen: &HashSet<usize>, needed: &[usize]) -> f64 {
    if needed.is_empty() {
        return 1.0;
    }
    let fact = |i: usize| (gens[i].entry.kind, gens[i].entry.summary.as_str());
    let facts: HashSet<_> = chosen.iter().map(|&i| fact(i)).collect();
    let hit = needed.iter().filter(|&&n| facts.contains(&fact(n))).count();
    hit as f64 / needed.len().min(MAX) as f64
}

/// Words `brief_recall.py`'s twins rule compares: lower-cased runs of `[a-z0-9_]`
/// longer than two, stop words aside.
fn twin_words(text: &str) -> HashSet<String> {
    const STOP: &str = "the a an of to and or in on for is are be by with at from it its this that as we our their them they every each all any no not never only one two into than then when";
    let stop: HashSet<&str> = STOP.split(' ').collect();
    text.to_lowercase()
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
        .filter(|w| w.len() > 2 && !stop.contains(w))
        .map(str::to_string)
        .collect()
}

/// The baselines' choices for room `r` over the ledger `seen` (indices into `gens`): the
/// newest 15 upstream entries; kind-first (every other room's conventions in ledger
/// order, then upstream interfaces, warnings, decisions by distance, kind, age); and
/// kind-first with twins last (code and artifacts after decisions, and an upstream entry
/// whose words overlap another's of its room by half or more after every other) — as
/// `brief_recall.py`'s `baseline_newest`, `baseline_kinds` and `baseline_twins`.
fn baselines(epics: &[Epic], gens: &[Gen], seen: &[usize], r: usize) -> [HashSet<usize>; 3] {
    let live: Vec<usize> = seen
        .iter()
        .copied()
        .filter(|&i| !gens[i].superseded && gens[i].entry.room_id != epics[r].room)
        .collect();
    let up = |i: usize| distance(epics, r, gens[i].epic);
    let mut newest: Vec<usize> = live.iter().copied().filter(|&i| up(i).is_some()).collect();
    newest.sort_by_key(|&i| std::cmp::Reverse(i));
    let conv: Vec<usize> = live
        .iter()
        .copied()
        .filter(|&i| gens[i].entry.kind == Kind::Convention)
        .collect();
    let rank = |k: Kind, with_code: bool| match k {
        Kind::Interface => Some(0),
        Kind::Warning => Some(1),
        Kind::Decision => Some(2),
        Kind::Code if with_code => Some(3),
        Kind::Artifact if with_code => Some(4),
        _ => None,
    };
    let mut kinds: Vec<usize> = live
        .iter()
        .copied()
        .filter(|&i| up(i).is_some() && rank(gens[i].entry.kind, false).is_some())
        .collect();
    kinds.sort_by_key(|&i| (up(i), rank(gens[i].entry.kind, false), i));
    let mut twins_up: Vec<usize> = live
        .iter()
        .copied()
        .filter(|&i| up(i).is_some() && rank(gens[i].entry.kind, true).is_some())
        .collect();
    let words: std::collections::HashMap<usize, HashSet<String>> = twins_up
        .iter()
        .map(|&i| (i, twin_words(&gens[i].entry.summary)))
        .collect();
    let twin: HashSet<usize> = twins_up
        .iter()
        .copied()
        .filter(|&i| {
            twins_up.iter().any(|&j| {
                j != i && gens[j].entry.room_id == gens[i].entry.room_id && {
                    let (a, b) = (&words[&i], &words[&j]);
                    let both = a.intersection(b).count() as f64;
                    both >= 0.5 * a.union(b).count().max(1) as f64
                }
            })
        })
        .collect();
    twins_up.sort_by_key(|&i| (twin.contains(&i), up(i), rank(gens[i].entry.kind, true), i));
    let take = |head: &[usize], rest: Vec<usize>| -> HashSet<usize> {
        head.iter().copied().chain(rest).take(MAX).collect()
    };
    [
        newest.into_iter().take(MAX).collect(),
        take(&conv, kinds),
        take(&conv, twins_up),
    ]
}

/// Recall at one noise level (on stderr, `BENCH_BRIEF_DEBUG=1`: every needed entry a brief
/// missed; `BENCH_BRIEF_SHOW=1`: every entry it showed, its reason and whether it is needed).
fn level(
    work: &std::path::Path,
    domain: &'static Domain,
    notes: usize,
    marked: bool,
    semantic: bool,
    hard: Option<u64>,
) -> anyhow::Result<Level> {
    let (epics, gens) = match hard {
        Some(seed) => hard_world(domain, notes, marked, seed),
        None => world(domain, notes, marked, 7 + notes as u64),
    };
    let index_of = |id: &str| {
        id.strip_prefix("mem-b")
            .and_then(|n| n.parse::<usize>().ok())
    };
    let (mut ours, mut newest, mut kinds, mut twins, mut worst) = (0.0, 0.0, 0.0, 0.0, f64::MAX);
    let (mut stale, mut bytes, mut needed_sum, mut rooms) = (0usize, 0usize, 0usize, 0usize);
    for (r, epic) in epics.iter().enumerate() {
        if epic.deps.is_empty() {
            continue;
        }
        let seen: Vec<usize> = (0..gens.len()).filter(|&i| gens[i].epic < r).collect();
        let refs: Vec<&Gen> = seen.iter().map(|&i| &gens[i]).collect();
        let (m, _dir) = memory_with(work, domain.name, &epics, &refs, semantic)?;
        let who = Identity {
            room_id: Some(epic.room.clone()),
            role: Some("manager".into()),
            credential: None,
        };
        let out = m.brief_unrecorded(BriefArgs::default(), &who)?;
        let chosen: HashSet<usize> = out.entry_ids.iter().filter_map(|id| index_of(id)).collect();
        let needed: Vec<usize> = seen
            .iter()
            .copied()
            .filter(|&i| !gens[i].superseded && gens[i].needed_by.contains(&r))
            .collect();
        if std::env::var_os("BENCH_BRIEF_SHOW").is_some() {
            for inc in &out.included {
                if let Some(i) = index_of(&inc.id) {
                    warroom_memory::cli::out::note(&format!(
                        "{} {} ({notes} notes) showed {} {} {:?} {} from {}: {}",
                        domain.name,
                        epic.room,
                        if gens[i].needed_by.contains(&r) {
                            "needed"
                        } else {
                            "unneeded"
                        },
                        inc.reason,
                        inc.distance,
                        gens[i].entry.kind,
                        gens[i].entry.room_id,
                        gens[i].entry.summary
                    ));
                }
            }
        }
        if std::env::var_os("BENCH_BRIEF_DEBUG").is_some() {
            let facts: HashSet<_> = chosen
                .iter()
                .map(|&i| (gens[i].entry.kind, &gens[i].entry.summary))
                .collect();
            for &i in needed
                .iter()
                .filter(|&&i| !facts.contains(&(gens[i].entry.kind, &gens[i].entry.summary)))
            {
                warroom_memory::cli::out::note(&format!(
                    "{} {} ({notes} notes) missed {} {} from {}: {}",
                    domain.name,
                    epic.room,
                    gens[i].entry.id,
                    gens[i].entry.kind,
                    gens[i].entry.room_id,
                    gens[i].entry.summary
                ));
            }
        }
        let [n, k, t] = baselines(&epics, &gens, &seen, r);
        let x = recall(&gens, &chosen, &needed);
        ours += x;
        worst = worst.min(x);
        newest += recall(&gens, &n, &needed);
        kinds += recall(&gens, &k, &needed);
        twins += recall(&gens, &t, &needed);
        stale += chosen.iter().filter(|&&i| gens[i].superseded).count();
        bytes += out.bytes;
        needed_sum += needed.len();
        rooms += 1;
    }
    let n = rooms.max(1) as f64;
    Ok(Level {
        world: domain.name,
        notes,
        marked,
        hard: hard.is_some(),
        seeds: 1,
        ours: ours / n,
        newest: newest / n,
        kinds: kinds / n,
        twins: twins / n,
        worst,
        stale,
        bytes: bytes / rooms.max(1),
        needed: needed_sum as f64 / n,
    })
}

/// The brief of the deepest room, timed, on the world grown to `entries` by notes.
fn latency(work: &std::path::Path, entries: usize) -> anyhow::Result<Latency> {
    let freight = &brief_domains::FREIGHT;
    let per_room = entries / freight.plan.len();
    let (epics, gens) = world(freight, per_room, false, 99);
    let refs: Vec<&Gen> = gens.iter().collect();
    let (m, _dir) = memory_of(work, &epics, &refs)?;
    let deep = epics.last().map(|e| e.room.clone()).unwrap_or_default();
    let who = Identity {
        room_id: Some(deep),
        role: Some("manager".into()),
        credential: None,
    };
    for _ in 0..5 {
        m.brief_unrecorded(BriefArgs::default(), &who)?;
    }
    let mut samples: Vec<f64> = (0..40)
        .map(|_| {
            let t = Instant::now();
            let _ = m.brief_unrecorded(BriefArgs::default(), &who);
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    Ok(Latency {
        entries: gens.len(),
        p50_ms: samples[samples.len() / 2],
        p90_ms: samples[samples.len() * 9 / 10],
    })
}

/// Runs the bench: every noise level, unmarked and marked, then latency at `sizes`.
/// `semantic`: every brief with semantic ranking on (xtask built with `--features
/// semantic`), the figures to set beside the lexical ones.
pub fn run(sizes: &[usize], semantic: bool, note: &dyn Fn(&str)) -> anyhow::Result<BriefReport> {
    let work = tempfile::tempdir()?;
    let mut levels = Vec::new();
    for domain in brief_domains::ALL {
        for marked in [false, true] {
            for notes in NOISE {
                note(&format!(
                    "bench brief: {}, {notes} notes a room{}",
                    domain.name,
                    if marked { ", marked" } else { "" }
                ));
                levels.push(level(work.path(), domain, notes, marked, semantic, None)?);
            }
        }
    }
    for domain in brief_domains::ALL {
        for notes in NOISE {
            note(&format!(
                "bench brief: hard {}, {notes} notes a room, {} seeds",
                domain.name,
                SEEDS.len()
            ));
            let runs: Vec<Level> = SEEDS
                .iter()
                .map(|&seed| level(work.path(), domain, notes, false, semantic, Some(seed)))
                .collect::<anyhow::Result<_>>()?;
            levels.push(mean(runs));
        }
    }
    let mut lat = Vec::new();
    for &n in sizes {
        note(&format!("bench brief: latency at {n} entries"));
        lat.push(latency(work.path(), n)?);
    }
    let mut oversized = Vec::new();
    for (n, big) in [(2_000, false), (2_000, true), (20_000, true)] {
        note(&format!(
            "bench brief: {n} {} conventions from one room",
            if big { "oversized" } else { "short" }
        ));
        oversized.push(super::brief_oversized::measure(work.path(), n, big)?);
    }
    Ok(BriefReport {
        levels,
        latency: lat,
        oversized,
        outside: outside(note)?,
    })
}

/// Seeds of the harder worlds: each level is their mean.
const SEEDS: [u64; 3] = [11, 23, 37];

/// The mean of one level's runs over the seeds (the worst room the worst of all).
fn mean(runs: Vec<Level>) -> Level {
    let n = runs.len().max(1) as f64;
    let sum = |f: fn(&Level) -> f64| runs.iter().map(f).sum::<f64>() / n;
    Level {
        seeds: runs.len(),
        ours: sum(|l| l.ours),
        newest: sum(|l| l.newest),
        kinds: sum(|l| l.kinds),
        twins: sum(|l| l.twins),
        worst: runs.iter().map(|l| l.worst).fold(f64::MAX, f64::min),
        stale: runs.iter().map(|l| l.stale).sum(),
        bytes: (sum(|l| l.bytes as f64)) as usize,
        needed: sum(|l| l.needed),
        ..runs[0].clone()
    }
}

/// The outside check (`../shared/brief-check/brief_recall.py --beat kinds,twins`) on the
/// product binary built in release from this tree, as it prints; None when the check is
/// not beside the workspace.
fn outside(note: &dyn Fn(&str)) -> anyhow::Result<Option<String>> {
    let root = super::compare::workspace_root();
    let script = root.join("../shared/brief-check/brief_recall.py");
    if !script.is_file() {
        note("bench brief: ../shared/brief-check not found; the outside world is not run");
        return Ok(None);
    }
    note("bench brief: the outside world (brief_recall.py, the shop world)");
    let mut say = |m: &str| note(&format!("bench brief: {m}"));
    let (_, exe) = super::compare::build_current(&mut say)?;
    let out = std::process::Command::new("python3")
        .arg(&script)
        .arg("--bin")
        .arg(&exe)
        .args(["--noise", "0,5,20,60", "--beat", "kinds,twins"])
        .env_remove("WARROOM_ROOM_ID")
        .output()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    anyhow::ensure!(
        out.status.success() || !text.is_empty(),
        "brief_recall.py failed: {}",
        String::from_utf8_lossy(&out.stderr).trim()
    );
    Ok(Some(text))
}

/// The report as markdown (docs/brief.md, README).
pub fn markdown(r: &BriefReport) -> String {
    let mut s = String::from(
        "| world | working notes per room | notes marked `room` | ours | worst room | newest 15 | kind-first | kind-first, twins last | stale shown | bytes | needed |\n|---|---:|:---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for l in &r.levels {
        s.push_str(&format!(
            "| {}{} | {} | {} | **{:.2}** | {:.2} | {:.2} | {:.2} | {:.2} | {} | {} | {:.1} |\n",
            if l.hard { "hard " } else { "" },
            l.world,
            l.notes,
            if l.marked { "yes" } else { "no" },
            l.ours,
            l.worst,
            l.newest,
            l.kinds,
            l.twins,
            l.stale,
            l.bytes,
            l.needed
        ));
    }
    s.push_str("\n| entries | brief p50 | p90 |\n|---:|---:|---:|\n");
    for l in &r.latency {
        s.push_str(&format!(
            "| {} | {:.2} ms | {:.2} ms |\n",
            l.entries, l.p50_ms, l.p90_ms
        ));
    }
    s.push_str(
        "\n| one room's conventions | bytes each | another room's brief p50 | p90 | a publish while briefs run p50 | p90 | a publish alone p50 |\n|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for o in &r.oversized {
        s.push_str(&format!(
            "| {} | {} | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms |\n",
            o.conventions,
            o.bytes_each,
            o.brief_p50_ms,
            o.brief_p90_ms,
            o.publish_p50_ms,
            o.publish_p90_ms,
            o.alone_p50_ms
        ));
    }
    if let Some(o) = &r.outside {
        s.push_str("\nThe outside world (`../shared/brief-check/brief_recall.py --beat kinds,twins`):\n\n```\n");
        s.push_str(o.trim_end());
        s.push_str("\n```\n");
    }
    s
}
