//! `warroom-memory bench`: generated ledgers of 10k / 100k / 1M entries, measured for cold
//! start, resident memory, search, query, tail pick-up and publish, next to the `bm25`
//! crate's engine and SQLite FTS5 on the same texts.
//!
//! Each size runs in a fresh child process so that resident-memory figures are not
//! polluted by earlier sizes. This module measures; the CLI prints.

pub mod brief;
pub mod brief_cost;
pub mod brief_domains;
pub mod brief_oversized;
pub mod brief_world;
pub mod compare;
pub mod console;
mod console_overlaps;
pub mod corpus;
pub mod daemon;
pub mod kinds;

pub mod locomo;
pub mod measure;
pub mod pg;
pub mod quality;
pub mod secrets;
#[cfg(feature = "semantic-eval")]
pub mod semantic;
mod sqlite;
mod tantivy_cmp;
#[cfg(feature = "semantic-eval")]
pub mod vectors;

use std::path::{Path, PathBuf};

use anyhow::Context as _;

pub use measure::{Micros, SizeReport};
use warroom_memory::clock::Timestamp;

/// What to measure.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// Ledger sizes (entries).
    pub sizes: Vec<usize>,
    /// Timed calls per operation.
    pub queries: usize,
    /// Where generated ledgers and working copies live.
    pub dir: PathBuf,
    /// Runs per size; each figure reported is the median over the runs (shared machines
    /// are noisy).
    pub repeat: usize,
    /// Generate short entries (~440 bytes a line: no detail; an id, a path and a number
    /// in each) instead of the usual mix: where per-entry and per-term overhead show.
    pub short_entries: bool,
}

/// The generated ledger of `n` entries in `dir`, created if missing.
pub fn corpus_file(
    dir: &Path,
    n: usize,
    progress: &mut dyn FnMut(&str),
) -> anyhow::Result<PathBuf> {
    corpus_file_of(dir, n, false, progress)
}

/// [`corpus_file`], of short entries when `short`.
pub fn corpus_file_of(
    dir: &Path,
    n: usize,
    short: bool,
    progress: &mut dyn FnMut(&str),
) -> anyhow::Result<PathBuf> {
    // "ids": short entries carry ids, paths and numbers since 2026-11-28 (a ledger of the
    // words alone did not show the per-term overhead; an older file is not reused).
    let name = if short { "corpus-short-ids" } else { "corpus" };
    let path = dir.join(format!("{name}-{n}.jsonl"));
    if !path.exists() {
        progress(&format!(
            "generating a {n}-entry ledger at {}",
            path.display()
        ));
        let tmp = path.with_extension("tmp");
        let mut c = corpus::Corpus::new(42, Timestamp(1_795_608_000));
        c.short = short;
        c.write_ledger(&tmp, n)?;
        std::fs::rename(&tmp, &path)?;
    }
    Ok(path)
}

/// Runs every size, each in a child process (`exe bench --child …`).
pub fn run(
    opts: &BenchOptions,
    exe: &Path,
    progress: &mut dyn FnMut(&str),
) -> anyhow::Result<Vec<SizeReport>> {
    std::fs::create_dir_all(&opts.dir)?;
    let mut reports = Vec::new();
    for &n in &opts.sizes {
        let corpus = corpus_file_of(&opts.dir, n, opts.short_entries, progress)?;
        let mut runs = Vec::new();
        for r in 0..opts.repeat.max(1) {
            progress(&format!(
                "measuring {n} entries (run {} of {})",
                r + 1,
                opts.repeat.max(1)
            ));
            runs.push(run_child(exe, &opts.dir, &corpus, n, opts.queries)?);
        }
        reports.push(median(runs));
    }
    Ok(reports)
}

fn run_child(
    exe: &Path,
    dir: &Path,
    corpus: &Path,
    n: usize,
    queries: usize,
) -> anyhow::Result<SizeReport> {
    let work = dir.join(format!("work-{n}"));
    let _ = std::fs::remove_dir_all(&work);
    let out = std::process::Command::new(exe)
        .args([
            "bench",
            "--child-size",
            &n.to_string(),
            "--queries",
            &queries.to_string(),
        ])
        .arg("--child-corpus")
        .arg(corpus)
        .arg("--child-work")
        .arg(&work)
        .env("WARROOM_LOG", "warn")
        .stderr(std::process::Stdio::inherit())
        .output()
        .context("running the benchmark child")?;
    let _ = std::fs::remove_dir_all(&work);
    anyhow::ensure!(
        out.status.success(),
        "benchmark child for {n} entries failed"
    );
    serde_json::from_slice(&out.stdout).context("reading the child's report")
}

/// The run-by-run median of every figure (as JSON numbers, so no field is forgotten).
fn median(runs: Vec<SizeReport>) -> SizeReport {
    fn med(values: Vec<serde_json::Value>) -> serde_json::Value {
        use serde_json::Value;
        match values.first() {
            Some(Value::Object(first)) => Value::Object(
                first
                    .keys()
                    .map(|k| {
                        (
                            k.clone(),
                            med(values.iter().map(|v| v[k].clone()).collect()),
                        )
                    })
                    .collect(),
            ),
            Some(Value::Number(_)) => {
                let mut nums: Vec<f64> = values.iter().filter_map(Value::as_f64).collect();
                nums.sort_by(f64::total_cmp);
                let m = nums[nums.len() / 2];
                if values.iter().all(|v| v.is_u64()) {
                    Value::from(m as u64)
                } else {
                    Value::from(m)
                }
            }
            _ => values.into_iter().next().unwrap_or(Value::Null),
        }
    }
    if runs.len() == 1 {
        return runs.into_iter().next().expect("one run");
    }
    let values: Vec<serde_json::Value> = runs
        .iter()
        .map(|r| serde_json::to_value(r).expect("reports serialize"))
        .collect();
    serde_json::from_value(med(values)).expect("a median report has the report's shape")
}

fn mb(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / 1_048_576.0)
}

fn pair(m: &Micros) -> String {
    format!("{:.0} / {:.0}", m.p50, m.p99)
}

/// The reports as two markdown tables (for README).
pub fn markdown(reports: &[SizeReport]) -> String {
    let mut s = String::from(
        "| entries | ledger MB | cold start ms | first start + snapshot write ms | restart from snapshot ms | RSS MB (× ledger) | peak RSS MB | index build ms: SQLite FTS5 / tantivy | replay of a receipt ms: at its horizon / rebuilt | open overlaps, whole ledger ms: the pass / kept (pairs) |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let ms = |m: Option<f64>| m.map_or("n/a".to_string(), |m| format!("{m:.0}"));
    for r in reports {
        s.push_str(&format!(
            "| {} | {} | {:.0} | {:.0} | {:.0} | {} ({:.2}×) | {} | {} / {} | {} / {} | {} / {} ({}) |\n",
            r.entries,
            mb(r.ledger_bytes),
            r.cold_start_ms,
            r.snapshot_first_ms,
            r.restart_ms,
            mb(r.rss_bytes),
            r.rss_bytes as f64 / r.ledger_bytes.max(1) as f64,
            mb(r.peak_rss_bytes),
            ms(r.sqlite_fts5_build_ms),
            ms(r.tantivy_build_ms),
            ms(r.replay_ms),
            ms(r.replay_rebuilt_ms),
            ms(r.overlaps_pass_ms),
            ms(r.overlaps_kept_ms),
            r.overlaps_open.map_or("n/a".to_string(), |n| n.to_string())
        ));
    }
    s.push_str(
        "\nLatency in µs, p50 / p99 (server-side, one core):\n\n\
         | entries | search | query (tag) | query (all) | context (receipt written) | context, no receipt | diff --since, nothing new | tail pick-up | publish fsync | publish no-fsync | bm25 crate search | SQLite FTS5 bm25() | tantivy | tantivy, same work: tweak_score | tantivy, same work: top k re-ranked |\n\
         |---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in reports {
        // Another engine's p50 / p99 and its p50 over ours, with `digits` decimals.
        let ratio = |m: &Option<Micros>, digits: usize| match m {
            Some(m) => format!(
                "{} ({:.digits$}× ours)",
                pair(m),
                m.p50 / r.search.p50.max(0.001)
            ),
            None => "n/a".into(),
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.entries,
            pair(&r.search),
            pair(&r.query_tag),
            pair(&r.query_all),
            pair(&r.context),
            r.context_unrecorded.as_ref().map_or("n/a".into(), pair),
            pair(&r.diff_since_nothing_new),
            pair(&r.tail_pickup),
            pair(&r.publish_fsync),
            pair(&r.publish_nofsync),
            ratio(&r.bm25_crate_search, 0),
            ratio(&r.sqlite_fts5_search, 0),
            ratio(&r.tantivy_search, 2),
            ratio(&r.tantivy_tweaked, 2),
            ratio(&r.tantivy_reranked, 2)
        ));
    }
    s
}
