//! `bench vectors` (feature `semantic-eval`): what the product's vector store costs in
//! ranking. Real vectors — every LoCoMo turn and question, embedded by the
//! bundled model — go through `warroom_memory::semantic::Vectors` as the server holds
//! them (4-bit codes and sign bits), and are compared with their exact `f32` cosines:
//!
//! - **codes**: the cosine error, and how many of the exact top 10 the codes' own top 10
//!   keeps (int8 codes, what rows were before, beside them for comparison);
//! - **two stages**: the recall of the sign-bit search (then codes) against scoring every
//!   row from its codes, at the share of rows a search at 100k and at 1M scores;
//! - **at 1M rows**: rows made from the real ones (each a turn's vector plus Gaussian
//!   noise, renormalised — a stand-in: embedding 1M texts takes hours), the store's bytes,
//!   one-core time of an exact and a two-stage search, and the two-stage recall.

use std::time::Instant;

use serde::Serialize;
use warroom_memory::semantic::{Vectors, candidates};

use super::quality::Group;
use super::semantic::Embedder;

/// Search depths whose recall is reported: a search's final top 10, and the pool of 100
/// nearest rows the fusion takes.
const DEPTHS: [usize; 2] = [10, 100];

/// What `bench vectors` measured.
#[derive(Debug, Clone, Serialize)]
pub struct VectorsReport {
    /// The model.
    pub model: String,
    /// Rows (LoCoMo turns) and queries (LoCoMo questions) embedded.
    pub rows: usize,
    /// Queries.
    pub queries: usize,
    /// Cosine error of 4-bit codes against `f32`: mean, 99th percentile, max.
    pub int4_error: [f64; 3],
    /// The same for int8 codes (rows before the 1M target).
    pub int8_error: [f64; 3],
    /// Share of the exact `f32` top 10 in the top 10 from 4-bit codes (over every query).
    pub int4_top10: f64,
    /// The same from int8 codes.
    pub int8_top10: f64,
    /// Two stages against every row scored from codes, on the real rows: per share of
    /// rows scored, recall at each of [`DEPTHS`].
    pub two_stage: Vec<ShareRecall>,
    /// At 1M rows made from the real ones.
    pub million: Million,
}

/// Recall of the two-stage search when `share` of the rows are scored.
#[derive(Debug, Clone, Serialize)]
pub struct ShareRecall {
    /// What the share stands for.
    pub label: String,
    /// Rows scored from codes.
    pub candidates: usize,
    /// Recall@10 and recall@100 against the exact search.
    pub recall: [f64; 2],
}

/// The store at 1M rows.
#[derive(Debug, Clone, Serialize)]
pub struct Million {
    /// Rows.
    pub rows: usize,
    /// Bytes the store holds, and per row.
    pub heap_bytes: usize,
    /// Bytes a row.
    pub bytes_per_row: f64,
    /// Milliseconds, p50 over the queries, of scoring every row (one core).
    pub exact_ms_p50: f64,
    /// Milliseconds, p50, of the two-stage search the server runs (one core).
    pub two_stage_ms_p50: f64,
    /// Recall@10 and @100 of the two-stage search against the exact one.
    pub recall: [f64; 2],
}

fn quantise_int8(v: &[f32]) -> (f32, Vec<i8>) {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs())).max(1e-12);
    let scale = max / 127.0;
    (
        scale,
        v.iter()
            .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8)
            .collect(),
    )
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn top(scores: &[f32], k: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    order.truncate(k);
    order
}

fn error_stats(mut e: Vec<f64>) -> [f64; 3] {
    e.sort_by(f64::total_cmp);
    let mean = e.iter().sum::<f64>() / e.len().max(1) as f64;
    let p99 = e[((e.len() as f64 * 0.99) as usize).min(e.len() - 1)];
    [mean, p99, *e.last().unwrap_or(&0.0)]
}

fn overlap(a: &[u32], b: &[u32]) -> usize {
    a.iter().filter(|x| b.contains(x)).count()
}

/// Recall at each of [`DEPTHS`] of `store`'s two-stage search with `candidates` against
/// its exact search, over `queries`.
fn recall(store: &Vectors, queries: &[Vec<f32>], candidates: usize) -> [f64; 2] {
    let mut out = [0.0; 2];
    for (i, &k) in DEPTHS.iter().enumerate() {
        let (mut hit, mut all) = (0, 0);
        for q in queries {
            let exact: Vec<u32> = store
                .nearest_exact(q, k, &|_| true)
                .iter()
                .map(|r| r.0)
                .collect();
            let two: Vec<u32> = store
                .nearest_two_stage(q, k, &|_| true, candidates)
                .iter()
                .map(|r| r.0)
                .collect();
            hit += overlap(&exact, &two);
            all += exact.len();
        }
        out[i] = hit as f64 / all.max(1) as f64;
    }
    out
}

/// A xorshift generator's next standard normal (Box–Muller).
fn normal(s: &mut u64) -> f32 {
    let mut next = || {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        ((*s >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    };
    let (u, v) = (next(), next());
    ((-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()) as f32
}

fn p50(mut ms: Vec<f64>) -> f64 {
    ms.sort_by(f64::total_cmp);
    ms[ms.len() / 2]
}

/// Measures; `noise` is the standard deviation a coordinate of a made-up row gets
/// (before renormalising), `million` the made-up rows.
pub fn run(
    groups: &[Group],
    encoder: &Embedder,
    noise: f32,
    million: usize,
) -> anyhow::Result<VectorsReport> {
    let texts: Vec<String> = groups
        .iter()
        .flat_map(|g| g.entries.iter().map(|e| e.summary.clone()))
        .collect();
    let questions: Vec<String> = groups
        .iter()
        .flat_map(|g| g.cases.iter().map(|c| c.query.clone()))
        .collect();
    warroom_memory::cli::out::note(&format!(
        "bench vectors: embedding {} turns and {} questions",
        texts.len(),
        questions.len()
    ));
    let rows = encoder.embed(&texts)?;
    let queries = encoder.embed(&questions)?;
    let dims = rows.first().map_or(0, Vec::len);
    let mut store = Vectors::new(dims);
    let int8: Vec<(f32, Vec<i8>)> = rows.iter().map(|r| quantise_int8(r)).collect();
    for (p, r) in rows.iter().enumerate() {
        store.set(p as u32, p as u64 + 1, r);
    }
    let (mut e4, mut e8) = (Vec::new(), Vec::new());
    let (mut top4, mut top8, mut top_all) = (0, 0, 0);
    for q in &queries {
        let exact: Vec<f32> = rows.iter().map(|r| dot(q, r)).collect();
        let c4: Vec<f32> = (0..rows.len())
            .map(|p| store.cosine(p as u32, q).unwrap_or(0.0))
            .collect();
        let c8: Vec<f32> = int8
            .iter()
            .map(|(s, c)| s * c.iter().zip(q).map(|(&c, x)| f32::from(c) * x).sum::<f32>())
            .collect();
        for p in 0..rows.len() {
            e4.push(f64::from((c4[p] - exact[p]).abs()));
            e8.push(f64::from((c8[p] - exact[p]).abs()));
        }
        let t = top(&exact, 10);
        let in_top = |other: &[f32]| top(other, 10).iter().filter(|p| t.contains(p)).count();
        top4 += in_top(&c4);
        top8 += in_top(&c8);
        top_all += t.len();
    }
    let shares = [
        ("a search at 100k", 100_000usize),
        ("a search at 1M", 1_000_000),
    ];
    let two_stage = shares
        .iter()
        .map(|&(label, n)| {
            let at_n = candidates(n);
            let scored = (rows.len() * at_n).div_ceil(n).max(1);
            ShareRecall {
                label: format!("{label} ({at_n} of {n} rows)"),
                candidates: scored,
                recall: recall(&store, &queries, scored),
            }
        })
        .collect();
    warroom_memory::cli::out::note(&format!(
        "bench vectors: {million} rows made from the real ones"
    ));
    let mut big = Vectors::new(dims);
    made_up(&rows, noise, million, &mut |p, v| {
        big.set(p as u32, p as u64 + 1, v)
    });
    let sample: Vec<Vec<f32>> = queries
        .iter()
        .step_by((queries.len() / 50).max(1))
        .cloned()
        .collect();
    let time = |f: &dyn Fn(&[f32])| {
        p50(sample
            .iter()
            .map(|q| {
                let t = Instant::now();
                f(q);
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect())
    };
    let exact_ms_p50 = time(&|q| {
        std::hint::black_box(big.nearest_exact(q, 100, &|_| true));
    });
    let two_stage_ms_p50 = time(&|q| {
        std::hint::black_box(big.nearest(q, 100, &|_| true));
    });
    let heap = big.heap_bytes();
    Ok(VectorsReport {
        model: encoder.name(),
        rows: rows.len(),
        queries: queries.len(),
        int4_error: error_stats(e4),
        int8_error: error_stats(e8),
        int4_top10: top4 as f64 / top_all.max(1) as f64,
        int8_top10: top8 as f64 / top_all.max(1) as f64,
        two_stage,
        million: Million {
            rows: million,
            heap_bytes: heap,
            bytes_per_row: heap as f64 / million.max(1) as f64,
            exact_ms_p50,
            two_stage_ms_p50,
            recall: recall(&big, &sample, candidates(million)),
        },
    })
}

/// Rows made from `real` ones: the `p`-th is real row `p mod n` plus Gaussian noise of
/// standard deviation `noise` a coordinate, renormalised; `put` receives each.
fn made_up(real: &[Vec<f32>], noise: f32, rows: usize, put: &mut dyn FnMut(usize, &[f32])) {
    let dims = real.first().map_or(0, Vec::len);
    let mut s = 0x2545_F491_4F6C_DD1Du64;
    let mut v = vec![0f32; dims];
    for p in 0..rows {
        let base = &real[p % real.len()];
        for (x, b) in v.iter_mut().zip(base) {
            *x = b + noise * normal(&mut s);
        }
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter_mut().for_each(|x| *x /= n);
        put(p, &v);
    }
}

/// Writes the bundled model's vector cache for the ledger file `ledger` (in the default
/// cache directory) with a made-up row for every entry, keyed to its id — so the server
/// can be measured through its binary at sizes no one embeds for a benchmark (1M entries
/// take hours). A bench fixture: the rankings it gives mean nothing.
pub fn fill_cache(
    groups: &[Group],
    encoder: &Embedder,
    noise: f32,
    ledger: &std::path::Path,
) -> anyhow::Result<usize> {
    use std::io::BufRead as _;
    let texts: Vec<String> = groups
        .iter()
        .flat_map(|g| g.entries.iter().map(|e| e.summary.clone()))
        .take(2_000)
        .collect();
    let real = encoder.embed(&texts)?;
    let mut ids = Vec::new();
    for line in std::io::BufReader::new(std::fs::File::open(ledger)?).lines() {
        let v: serde_json::Value = serde_json::from_str(&line?)?;
        ids.push(
            v["id"]
                .as_str()
                .ok_or_else(|| anyhow::anyhow!("a line without an id"))?
                .to_string(),
        );
    }
    let mut store = Vectors::new(real[0].len());
    made_up(&real, noise, ids.len(), &mut |p, v| {
        store.set(p as u32, warroom_memory::semantic::id_key(&ids[p]), v);
    });
    let cache = cache_of(ledger)?;
    cache.save(&store)?;
    warroom_memory::cli::out::note(&format!(
        "bench vectors: {} made-up rows written to {}",
        ids.len(),
        cache.file.display()
    ));
    Ok(ids.len())
}

/// The bundled model's vector cache of `ledger` (a cache directory as the server finds
/// it: `$XDG_CACHE_HOME/warroom-memory`).
fn cache_of(
    ledger: &std::path::Path,
) -> anyhow::Result<warroom_memory::semantic::cache::CachePlace> {
    let dir = warroom_memory::snapshot::SnapshotPlace::default_dir()
        .ok_or_else(|| anyhow::anyhow!("no cache directory (set HOME or XDG_CACHE_HOME)"))?;
    let place = warroom_memory::snapshot::SnapshotPlace {
        dir,
        min_entries: warroom_memory::snapshot::DEFAULT_MIN_ENTRIES,
    };
    let info = pocket_encoder::model_info();
    let label = ledger.canonicalize()?.display().to_string();
    Ok(warroom_memory::semantic::cache::CachePlace::new(
        &place,
        &label,
        &format!("{}@{}", info.id, info.revision),
    ))
}

/// Recall of the two-stage search against every row scored, on the *real* vectors a
/// `semantic backfill` of `ledger` wrote (the real embeddings matter; 1M of
/// them take hours to embed here, so a smaller ledger's rows are searched both at the
/// server's setting and scoring the share of rows a search at 1M scores). Queries: four
/// words from the summaries of 200 entries spread over the ledger, embedded by the model.
pub fn recall_cache(encoder: &Embedder, ledger: &std::path::Path) -> anyhow::Result<String> {
    use std::io::BufRead as _;
    let mut summaries = Vec::new();
    for line in std::io::BufReader::new(std::fs::File::open(ledger)?).lines() {
        let v: serde_json::Value = serde_json::from_str(&line?)?;
        summaries.push(v["summary"].as_str().unwrap_or("").to_string());
    }
    let n = summaries.len();
    let texts: Vec<String> = (0..200)
        .map(|i| {
            let words: Vec<&str> = summaries[i * n / 200].split_whitespace().collect();
            let from = (i * 7) % words.len().saturating_sub(3).max(1);
            words[from..(from + 4).min(words.len())].join(" ")
        })
        .collect();
    let queries = encoder.embed(&texts)?;
    let dims = queries[0].len();
    let store = cache_of(ledger)?.load_from(dims, &|_, _| true, usize::MAX)?;
    anyhow::ensure!(
        store.present() == n,
        "the cache holds {} rows for {n} entries: run `semantic backfill` first",
        store.present()
    );
    let here = candidates(n);
    let at_1m = (candidates(1_000_000) * n).div_ceil(1_000_000);
    let [a10, a100] = recall(&store, &queries, here);
    let [b10, b100] = recall(&store, &queries, at_1m);
    Ok(format!(
        "{n} real rows, {} queries: two stages scoring {here} rows (the server's) \
         recall@10 {a10:.3}, @100 {a100:.3}; scoring {at_1m} rows (the share at 1M) \
         recall@10 {b10:.3}, @100 {b100:.3}",
        queries.len()
    ))
}

/// README-ready tables.
pub fn markdown(r: &VectorsReport) -> String {
    let mut s = format!(
        "Model: {}; {} LoCoMo turns as rows, {} questions as queries.\n\n\
         | codes | cosine error mean / p99 / max | exact top 10 kept |\n|---|---|---|\n",
        r.model, r.rows, r.queries
    );
    for (name, e, t) in [
        ("int8 (before)", r.int8_error, r.int8_top10),
        ("4-bit (held now)", r.int4_error, r.int4_top10),
    ] {
        s.push_str(&format!(
            "| {name} | {:.4} / {:.4} / {:.4} | {:.3} |\n",
            e[0], e[1], e[2], t
        ));
    }
    s.push_str("\n| two stages, rows scored | recall@10 | recall@100 |\n|---|---|---|\n");
    for t in &r.two_stage {
        // Fewer rows scored than the depth asked for: recall there says nothing.
        let at100 = if t.candidates < DEPTHS[1] {
            "— (fewer than 100 scored)".to_string()
        } else {
            format!("{:.3}", t.recall[1])
        };
        s.push_str(&format!(
            "| {} — {} here | {:.3} | {at100} |\n",
            t.label, t.candidates, t.recall[0]
        ));
    }
    let m = &r.million;
    s.push_str(&format!(
        "\nAt {} rows made from the real ones: {:.1} MB held ({:.0} bytes a row); one core, \
         p50: every row scored {:.1} ms, two stages {:.1} ms (recall@10 {:.3}, @100 {:.3}).\n",
        m.rows,
        m.heap_bytes as f64 / 1e6,
        m.bytes_per_row,
        m.exact_ms_p50,
        m.two_stage_ms_p50,
        m.recall[0],
        m.recall[1]
    ));
    s
}
