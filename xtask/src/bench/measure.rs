//! One benchmark size, measured inside one process: cold start, resident memory, search,
//! query, tail pick-up, publish with and without fsync, and the comparison engines.
//!
//! Timings are server-side: the core call an MCP tool makes, without JSON-RPC transport.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::corpus::Corpus;
use warroom_memory::api::ledger::{FilterArgs, PublishArgs, QueryArgs, SearchArgs};
use warroom_memory::clock::{FixedClock, Timestamp};
use warroom_memory::config::{Identity, Paths, Settings};
use warroom_memory::entry::Kind;
use warroom_memory::memory::Memory;

/// Latency percentiles in microseconds.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct Micros {
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
}

impl Micros {
    /// Percentiles of `samples`.
    pub fn of(mut samples: Vec<Duration>) -> Micros {
        samples.sort();
        let at = |q: f64| {
            let i = ((samples.len() as f64 - 1.0) * q).round() as usize;
            samples.get(i).map_or(0.0, |d| d.as_secs_f64() * 1e6)
        };
        Micros {
            p50: at(0.50),
            p95: at(0.95),
            p99: at(0.99),
        }
    }
}

/// Results for one ledger size.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SizeReport {
    /// Entries in the ledger.
    pub entries: usize,
    /// Ledger size on disk.
    pub ledger_bytes: u64,
    /// Read + parse + index, milliseconds.
    pub cold_start_ms: f64,
    /// A first start that also writes the snapshot, milliseconds.
    #[serde(default)]
    pub snapshot_first_ms: f64,
    /// A restart that reads the snapshot (checked against the ledger), milliseconds.
    #[serde(default)]
    pub restart_ms: f64,
    /// Resident memory added by loading the ledger (VmRSS after − before).
    pub rss_bytes: u64,
    /// Peak resident memory of the process (VmHWM).
    pub peak_rss_bytes: u64,
    /// `memory_search` (10 hits, default own-room exclusion).
    pub search: Micros,
    /// `memory_query` with one tag, newest 50.
    pub query_tag: Micros,
    /// `memory_query` with no filter but the own-room exclusion (a full scan with count).
    pub query_all: Micros,
    /// `memory_get_context` for a room deep in a 100-epic plan, with brief keywords (its
    /// receipt written, as every served brief's is).
    pub context: Micros,
    /// Replaying one brief's receipt (`context --replay`), ms, median of three: on the
    /// live index at the receipt's horizon (the prefix's chain still read and checked).
    #[serde(default)]
    pub replay_ms: Option<f64>,
    /// The same replay on an index rebuilt from a copy of the prefix (`--rebuild`: what
    /// every replay did before horizons), ms, median of three.
    #[serde(default)]
    pub replay_rebuilt_ms: Option<f64>,
    /// Open overlaps of the whole ledger: the pass, with the 50 strongest pairs built and
    /// the rest counted (the console's first view), ms, one run.
    #[serde(default)]
    pub overlaps_pass_ms: Option<f64>,
    /// The same pairs again from what the pass kept (the console's next view), ms.
    #[serde(default)]
    pub overlaps_kept_ms: Option<f64>,
    /// Open pairs found by that pass.
    #[serde(default)]
    pub overlaps_open: Option<usize>,
    /// The same briefs without writing their receipts: what receipts cost.
    #[serde(default)]
    pub context_unrecorded: Option<Micros>,
    /// `memory_diff` / `diff --since T` when nothing was added since T.
    pub diff_since_nothing_new: Micros,
    /// Picking up one entry appended by another writer.
    pub tail_pickup: Micros,
    /// `memory_publish` with fsync.
    pub publish_fsync: Micros,
    /// `memory_publish` without fsync.
    pub publish_nofsync: Micros,
    /// The `bm25` crate's own `SearchEngine` on the same texts (sizes ≤ 100k).
    pub bm25_crate_search: Option<Micros>,
    /// SQLite FTS5 `bm25()` on the same texts (built with `--features sqlite-compare`).
    pub sqlite_fts5_search: Option<Micros>,
    /// Time SQLite took to build its FTS5 index, milliseconds.
    pub sqlite_fts5_build_ms: Option<f64>,
    /// tantivy (BM25, top 10) on the same texts (built with `--features tantivy-compare`).
    #[serde(default)]
    pub tantivy_search: Option<Micros>,
    /// Time tantivy took to build its index, milliseconds.
    #[serde(default)]
    pub tantivy_build_ms: Option<f64>,
    /// tantivy doing what `memory_search` does: own room left out, BM25 × our time factor,
    /// the hits' entries fetched and parsed (built with `--features tantivy-compare`);
    /// every match scored with the time factor (`tweak_score`).
    #[serde(default)]
    pub tantivy_tweaked: Option<Micros>,
    /// The same work as the best k by BM25 re-ranked, k widened until exact.
    #[serde(default)]
    pub tantivy_reranked: Option<Micros>,
}

fn proc_status_kb(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn time<T>(n: usize, mut f: impl FnMut(usize) -> T) -> Vec<Duration> {
    (0..n)
        .map(|i| {
            let t = Instant::now();
            std::hint::black_box(f(i));
            t.elapsed()
        })
        .collect()
}

/// Measures one size. `corpus_file` is a ledger generated by [`Corpus::write_ledger`];
/// `work` is an empty directory to run in. `queries` is the number of timed calls per
/// operation.
pub fn measure(
    corpus_file: &Path,
    work: &Path,
    entries: usize,
    queries: usize,
) -> anyhow::Result<SizeReport> {
    let paths = Paths::under(work);
    std::fs::create_dir_all(paths.ledger.parent().unwrap())?;
    std::fs::copy(corpus_file, &paths.ledger)?;
    let ledger_bytes = std::fs::metadata(&paths.ledger)?.len();
    let end = Timestamp(1_795_608_000);
    let clock = Arc::new(FixedClock::new(end));

    let rss_before = proc_status_kb("VmRSS:");
    let t = Instant::now();
    let memory = Memory::open(paths.clone(), Settings::default(), clock.clone())?;
    let cold_start_ms = t.elapsed().as_secs_f64() * 1e3;
    let rss_bytes = proc_status_kb("VmRSS:").saturating_sub(rss_before) * 1024;
    let peak_rss_bytes = proc_status_kb("VmHWM:") * 1024;

    let who = Identity {
        room_id: Some("room-000".into()),
        role: Some("engineer".into()),
        credential: None,
    };
    let mut corpus = Corpus::new(99, end);
    let texts: Vec<String> = (0..queries).map(|_| corpus.query()).collect();
    let tags: Vec<String> = (0..queries).map(|_| corpus.tag()).collect();
    let search = |i: usize| {
        let args = SearchArgs {
            text: texts[i % texts.len()].clone(),
            ..SearchArgs::default()
        };
        memory.search(args, &who).map(|o| o.hits.len()).unwrap_or(0)
    };
    time(20, search); // warm-up
    let search = Micros::of(time(queries, search));
    let query_tag = Micros::of(time(queries, |i| {
        let filter = FilterArgs {
            tags: Some(vec![tags[i].clone()]),
            ..FilterArgs::default()
        };
        memory
            .query(
                QueryArgs {
                    filter,
                    last_n: None,
                },
                &who,
            )
            .map(|o| o.total)
            .unwrap_or(0)
    }));
    let query_all = Micros::of(time(queries, |_| {
        memory
            .query(QueryArgs::default(), &who)
            .map(|o| o.total)
            .unwrap_or(0)
    }));

    memory.register_plan(bench_plan(), &warroom_memory::config::Identity::default())?;
    let context_args = |i: usize| warroom_memory::api::brief::BriefArgs {
        room_id: Some(format!("room-{:03}", 50 + i % 50)),
        brief_keywords: Some(
            texts[i % texts.len()]
                .split(' ')
                .map(str::to_string)
                .collect(),
        ),
        max_entries: None,
        plan_id: None,
    };
    // The same briefs without their receipts, then with them (in the same process and
    // run, one after the other).
    let context_unrecorded = Some(Micros::of(time(queries, |i| {
        memory
            .brief_unrecorded(context_args(i), &Identity::default())
            .map(|o| o.bytes)
            .unwrap_or(0)
    })));
    let context = Micros::of(time(queries, |i| {
        memory
            .brief(context_args(i), &Identity::default())
            .map(|o| o.bytes)
            .unwrap_or(0)
    }));

    let receipt = memory.brief(context_args(0), &Identity::default())?.receipt;
    let replay = |rebuild: bool| {
        receipt.as_ref().map(|id| {
            let mut t: Vec<f64> = (0..3)
                .map(|_| {
                    let start = std::time::Instant::now();
                    let r = memory.replay_receipt_with(id, None, rebuild);
                    let ms = start.elapsed().as_secs_f64() * 1000.0;
                    let identical = r.map(|r| (r.identical, r.markdown));
                    assert!(
                        matches!(identical, Ok((true, _))),
                        "the replay of {id}: {identical:?}"
                    );
                    ms
                })
                .collect();
            t.sort_by(f64::total_cmp);
            t[1]
        })
    };
    let replay_ms = replay(false);
    let replay_rebuilt_ms = replay(true);

    let overlaps = || {
        let start = std::time::Instant::now();
        let found = memory.open_overlaps(None, 50);
        (
            start.elapsed().as_secs_f64() * 1000.0,
            found.map(|f| f.open),
        )
    };
    let (overlaps_pass_ms, open) = overlaps();
    let (overlaps_kept_ms, shown_open) = overlaps();
    let overlaps_open = Some(open?);
    assert_eq!(
        overlaps_open,
        Some(shown_open?),
        "the same pairs, found or kept"
    );

    let since = warroom_memory::api::audit::DiffArgs {
        since: Some(end.to_rfc3339()),
        ..Default::default()
    };
    let diff_since_nothing_new = Micros::of(time(queries, |_| {
        memory
            .diff_report(&since)
            .map(|r| r.counts.added)
            .unwrap_or(usize::MAX)
    }));

    // Another writer appends one line; we time the refresh that picks it up.
    let mut other = std::fs::OpenOptions::new()
        .append(true)
        .open(&paths.ledger)?;
    let mut pickups = Vec::with_capacity(queries);
    for i in 0..queries {
        let line = corpus.entry(entries + i, entries + queries).to_line();
        let line = line.replace("mem-bench-", "mem-other-");
        other.write_all(format!("{line}\n").as_bytes())?;
        let t = Instant::now();
        let n = memory.refresh()?;
        pickups.push(t.elapsed());
        anyhow::ensure!(n == 1, "expected to pick up one line, got {n}");
    }
    let tail_pickup = Micros::of(pickups);

    let publish = |i: usize| {
        memory
            .publish(publish_args(i), &who)
            .map(|o| o.entry.id.len())
            .unwrap_or(0)
    };
    let n_pub = queries.min(200);
    memory.set_fsync(true);
    let publish_fsync = Micros::of(time(n_pub, publish));
    memory.set_fsync(false);
    let publish_nofsync = Micros::of(time(n_pub, |i| publish(i + n_pub)));

    // The comparison engines' texts (the whole corpus in memory): read only when one of
    // them runs, so 10M entries are measured without them.
    let compare =
        entries <= 100_000 || cfg!(feature = "sqlite-compare") || cfg!(feature = "tantivy-compare");
    let docs = if compare {
        read_texts(corpus_file)?
    } else {
        Vec::new()
    };
    let bm25_crate_search = (entries <= 100_000).then(|| bm25_crate(&docs, &texts));
    let (sqlite_fts5_search, sqlite_fts5_build_ms) = match super::sqlite::measure(&docs, &texts)? {
        Some((s, b)) => (Some(s), Some(b)),
        None => (None, None),
    };
    let (tantivy_search, tantivy_build_ms) = match super::tantivy_cmp::measure(&docs, &texts)? {
        Some((s, b)) => (Some(s), Some(b)),
        None => (None, None),
    };
    drop(docs);
    let defaults = Settings::default();
    let scorer = warroom_memory::index::Scorer {
        now: end,
        half_lives: defaults.half_life_hours,
        ranking: defaults.ranking,
    };
    let own_room = who.room_id.as_deref().unwrap_or_default();
    let (tantivy_tweaked, tantivy_reranked) =
        match super::tantivy_cmp::measure_same_work(corpus_file, &texts, scorer, own_room)? {
            Some((t, r)) => (Some(t), Some(r)),
            None => (None, None),
        };
    drop(memory);
    // The same ledger with a snapshot: a first start (read everything, write the
    // snapshot), then a restart that reads the snapshot.
    let settings = Settings {
        snapshot: Some(warroom_memory::snapshot::SnapshotPlace {
            dir: work.join("snapshot-cache"),
            min_entries: 0,
        }),
        ..Settings::default()
    };
    let t = Instant::now();
    drop(Memory::open(
        paths.clone(),
        settings.clone(),
        clock.clone(),
    )?);
    let snapshot_first_ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    drop(Memory::open(paths.clone(), settings, clock.clone())?);
    let restart_ms = t.elapsed().as_secs_f64() * 1e3;
    Ok(SizeReport {
        entries,
        ledger_bytes,
        cold_start_ms,
        snapshot_first_ms,
        restart_ms,
        rss_bytes,
        peak_rss_bytes,
        search,
        query_tag,
        query_all,
        context,
        context_unrecorded,
        replay_ms,
        replay_rebuilt_ms,
        overlaps_pass_ms: Some(overlaps_pass_ms),
        overlaps_kept_ms: Some(overlaps_kept_ms),
        overlaps_open,
        diff_since_nothing_new,
        tail_pickup,
        publish_fsync,
        publish_nofsync,
        bm25_crate_search,
        sqlite_fts5_search,
        sqlite_fts5_build_ms,
        tantivy_search,
        tantivy_build_ms,
        tantivy_tweaked,
        tantivy_reranked,
    })
}

/// The `i`-th entry a benchmark publishes.
pub(crate) fn publish_args(i: usize) -> PublishArgs {
    PublishArgs {
        kind: Kind::Decision,
        summary: format!("benchmark decision number {i} about cache retry budgets"),
        tags: vec!["bench".into()],
        room_id: None,
        author_role: None,
        ref_: Some("EPIC-001".into()),
        detail: None,
        supersedes: None,
        idempotency_key: None,
        audience: None,
    }
}

/// A 100-epic plan over the corpus's rooms: epic i depends on epics i−1 and i/2.
/// The 100-epic plan the brief is timed on (a chain with a second, far parent).
pub(crate) fn bench_plan() -> warroom_memory::api::plan::RegisterPlanArgs {
    let epics: Vec<serde_json::Value> = (0..100)
        .map(|i: usize| {
            let mut deps: Vec<String> = Vec::new();
            if i > 0 {
                deps.push(format!("EPIC-{:03}", i - 1));
            }
            if i > 1 && i / 2 != i - 1 {
                deps.push(format!("EPIC-{:03}", i / 2));
            }
            serde_json::json!({"ref": format!("EPIC-{i:03}"), "room_id": format!("room-{i:03}"), "depends_on": deps})
        })
        .collect();
    warroom_memory::api::plan::RegisterPlanArgs {
        plan: Some(serde_json::json!({"plan_id": "bench", "epics": epics})),
        markdown: None,
        plan_id: None,
    }
}

/// The text of every line that our default ranking searches (summary, tags, detail and
/// ref), as one string: what every comparison engine indexes, so each one's postings hold
/// the same words as ours. (Up to this version they held summary + tags only, the seed's
/// fields: less text than we index since BM25F.)
fn read_texts(path: &Path) -> anyhow::Result<Vec<String>> {
    // Line by line: at 10M entries the ledger is 5 GB.
    let mut texts = Vec::new();
    for line in std::io::BufRead::lines(std::io::BufReader::new(std::fs::File::open(path)?)) {
        if let Ok((e, _)) = warroom_memory::entry::Entry::from_line(line?.as_bytes()) {
            texts.push(format!(
                "{} {} {} {}",
                e.summary,
                e.tags.join(" "),
                e.detail,
                e.ref_
            ));
        }
    }
    Ok(texts)
}

fn bm25_crate(docs: &[String], queries: &[String]) -> Micros {
    use bm25::{DefaultTokenizer, Language, SearchEngineBuilder};
    let engine = SearchEngineBuilder::<u32>::with_tokenizer_and_corpus(
        DefaultTokenizer::new(Language::English),
        docs.iter().cloned(),
    )
    .build();
    let n = queries.len().min(50);
    Micros::of(time(n, |i| engine.search(&queries[i], 10).len()))
}
