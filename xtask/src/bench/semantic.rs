//! `bench semantic` (feature `semantic-eval`): would a small local embedding model beside
//! our lexical ranking find what lexical search cannot? Measured before
//! anything ships: on LoCoMo, on our war-room relevance set and on the paraphrase set
//! (`tests/fixtures/relevance/paraphrase.yaml`, queries sharing no content word with the
//! entry they should find — checked here through our own tokenizer).
//!
//! Rankers, all over the same index and the same entries:
//! - `lexical`: the server's search (BM25F × the default time factor), top 10;
//! - `dense`: cosine similarity of the model's vectors alone;
//! - `hybrid w`: candidates = lexical top 100 ∪ dense top 100, score = (w × lexical +
//!   (1 − w) × semantic) × the same time factor, with each side put on one scale by a
//!   [`Fusion`]: BM25F over the query's best or over its ideal (the sum of its terms' idf);
//!   the cosine raw, min-max, or above the candidates' 90th percentile (what ships, see
//!   `warroom_memory::semantic`); or reciprocal ranks. `w` chosen by
//!   leave-one-conversation-out on LoCoMo (each conversation ranked with the `w` that does
//!   best on the nine others), never on the questions it is scored on.
//!
//! The model is crates.io's `pocket-encoder` (paraphrase-MiniLM-L3-v2, 4-bit weights
//! expanded to f32, 384 dimensions), bundled in the crate: no network at build or run time.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::quality::{Group, Metrics};
use warroom_memory::config::Settings;
use warroom_memory::index::{Filter, LedgerIndex, Ranking, Scorer, decay};
use warroom_memory::ledger::Ledger;
use warroom_memory::store::jsonl::AppendOptions;

/// Fusion weights tried (the share of normalised BM25F).
const WEIGHTS: [f64; 9] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
/// Candidates taken from each side before fusing.
const POOL: usize = 100;
/// Reciprocal rank fusion's constant (Elasticsearch's and OpenSearch's default).
const RRF_K: f64 = 60.0;

/// How the two sides are put on one scale before the weighted sum.
#[derive(Debug, Clone, Copy)]
enum Fusion {
    /// BM25F over the query's best BM25F; the cosine raw or min-max over the candidates.
    Best { mm: bool },
    /// BM25F over the query's ideal score (the sum of its terms' idf), capped at 1: a weak
    /// best match stays weak. The cosine raw.
    Ideal,
    /// Reciprocal rank fusion: 1/(k + rank) on each side.
    Rrf,
    /// BM25F over the ideal; the cosine above the candidates' 90th percentile `m` (the
    /// query's baseline similarity): `(c − m) / (1 − m)`, clipped at 0 — the product's.
    Centred,
}

impl Fusion {
    fn label(self) -> &'static str {
        match self {
            Fusion::Best { mm: false } => "BM25/best, raw cosine",
            Fusion::Best { mm: true } => "BM25/best, cosine min-max",
            Fusion::Ideal => "BM25/ideal, raw cosine",
            Fusion::Rrf => "reciprocal rank",
            Fusion::Centred => "BM25/ideal, cosine above its 90th percentile (shipped)",
        }
    }
}

/// Everything one case needs to be ranked any way, computed once.
struct Scored {
    /// Lexical top 10 under the server's default ranking (ids).
    lexical: Vec<String>,
    /// Lexical pool: (position, BM25F).
    pool: Vec<(u32, f64)>,
    /// The query's ideal BM25F: the sum of its terms' idf (an entry holding every term
    /// once, in a field of average length, scores about this).
    ideal: f64,
    /// Cosine of every entry, by position.
    cos: Vec<f32>,
    /// Time factor of every entry, by position.
    time: Vec<f64>,
    /// Ids by position.
    ids: Vec<String>,
    category: String,
    relevant: Vec<String>,
}

impl Scored {
    fn dense(&self) -> Vec<String> {
        let mut order: Vec<usize> = (0..self.cos.len()).collect();
        order.sort_by(|&a, &b| self.cos[b].total_cmp(&self.cos[a]));
        order
            .iter()
            .take(10)
            .map(|&i| self.ids[i].clone())
            .collect()
    }

    /// Fused ranking with weight `w` on the lexical side.
    fn hybrid(&self, w: f64, fusion: Fusion) -> Vec<String> {
        let mm = matches!(fusion, Fusion::Best { mm: true });
        let best = self.pool.iter().map(|p| p.1).fold(0.0, f64::max);
        let mut bm: BTreeMap<u32, f64> = BTreeMap::new();
        for (rank, &(p, s)) in self.pool.iter().enumerate() {
            let lex = match fusion {
                Fusion::Best { .. } if best > 0.0 => s / best,
                Fusion::Best { .. } => 0.0,
                Fusion::Ideal | Fusion::Centred if self.ideal > 0.0 => (s / self.ideal).min(1.0),
                Fusion::Ideal | Fusion::Centred => 0.0,
                Fusion::Rrf => 1.0 / (RRF_K + rank as f64 + 1.0),
            };
            bm.insert(p, lex);
        }
        let mut dense: Vec<u32> = (0..self.cos.len() as u32).collect();
        dense.sort_by(|&a, &b| self.cos[b as usize].total_cmp(&self.cos[a as usize]));
        let mut cands: Vec<u32> = bm.keys().copied().collect();
        cands.extend(dense.into_iter().take(POOL));
        cands.sort_unstable();
        cands.dedup();
        let (lo, hi) = cands.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &p| {
            let c = f64::from(self.cos[p as usize]);
            (lo.min(c), hi.max(c))
        });
        // The product's baseline: about the 90th percentile of the candidates' cosines.
        let cs: Vec<f64> = cands
            .iter()
            .map(|&p| f64::from(self.cos[p as usize]))
            .collect();
        let median = warroom_memory::semantic::baseline(&cs);
        let mut dense_rank: BTreeMap<u32, usize> = BTreeMap::new();
        if matches!(fusion, Fusion::Rrf) {
            let mut by_cos = cands.clone();
            by_cos.sort_by(|&a, &b| self.cos[b as usize].total_cmp(&self.cos[a as usize]));
            for (r, p) in by_cos.into_iter().enumerate() {
                dense_rank.insert(p, r);
            }
        }
        let score = |p: u32| {
            let lex = bm.get(&p).copied().unwrap_or(0.0);
            let c = f64::from(self.cos[p as usize]);
            let cos = match fusion {
                Fusion::Rrf => 1.0 / (RRF_K + dense_rank[&p] as f64 + 1.0),
                Fusion::Centred => ((c - median) / (1.0 - median).max(1e-6)).max(0.0),
                _ if mm && hi > lo => (c - lo) / (hi - lo),
                _ => c.max(0.0),
            };
            (w * lex + (1.0 - w) * cos) * self.time[p as usize]
        };
        cands.sort_by(|&a, &b| score(b).total_cmp(&score(a)).then(b.cmp(&a)));
        cands
            .iter()
            .take(10)
            .map(|&p| self.ids[p as usize].clone())
            .collect()
    }
}

fn q_dims(qv: &[Vec<f32>]) -> usize {
    qv.first().map_or(0, Vec::len)
}

/// One ranker's figures on one dataset.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SemanticRanker {
    /// `lexical`, `dense`, `hybrid (w LOCO)` or `hybrid w=…`.
    pub ranker: String,
    /// Over the headline categories.
    pub headline: Metrics,
    /// Per category.
    pub by_category: BTreeMap<String, Metrics>,
}

/// Every ranker on one dataset, and what embedding cost.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SemanticReport {
    /// Dataset name.
    pub dataset: String,
    /// Entries embedded.
    pub entries: usize,
    /// Milliseconds per entry to embed (one core, batches of 64).
    pub embed_ms_per_entry: f64,
    /// The rankers.
    pub rankers: Vec<SemanticRanker>,
    /// Weights chosen per conversation by leave-one-out (LoCoMo), or the weight used.
    pub weights: Vec<f64>,
}

/// A sentence encoder: L2-normalised vectors, one per text.
pub enum Embedder {
    /// crates.io's pocket-encoder: paraphrase-MiniLM-L3-v2, 4-bit, bundled.
    Pocket(pocket_encoder::Encoder),
    /// A BERT-style sentence-transformers model loaded from a directory (`config.json`,
    /// `model.safetensors`, `tokenizer.json`), mean-pooled like the 3-layer one.
    Dir(Box<DirModel>),
}

/// A model loaded from a directory.
pub struct DirModel {
    model: candle_transformers::models::bert::BertModel,
    tokenizer: tokenizers::Tokenizer,
    name: String,
}

/// Tokens a text is cut to (both models were trained on short sentences).
const MAX_TOKENS: usize = 128;

impl Embedder {
    /// The bundled 3-layer model, or the model in `dir`.
    pub fn new(dir: Option<&Path>) -> anyhow::Result<Embedder> {
        let Some(dir) = dir else {
            return Ok(Embedder::Pocket(pocket_encoder::Encoder::new()?));
        };
        use candle_core::{DType, Device};
        let config: candle_transformers::models::bert::Config =
            serde_json::from_str(&std::fs::read_to_string(dir.join("config.json"))?)?;
        let vb = candle_nn::VarBuilder::from_buffered_safetensors(
            std::fs::read(dir.join("model.safetensors"))?,
            DType::F32,
            &Device::Cpu,
        )?;
        let model = candle_transformers::models::bert::BertModel::load(vb, &config)?;
        let mut tokenizer = tokenizers::Tokenizer::from_file(dir.join("tokenizer.json"))
            .map_err(|e| anyhow::anyhow!("tokenizer.json: {e}"))?;
        tokenizer
            .with_truncation(Some(tokenizers::TruncationParams {
                max_length: MAX_TOKENS,
                ..Default::default()
            }))
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        tokenizer.with_padding(None);
        Ok(Embedder::Dir(Box::new(DirModel {
            model,
            tokenizer,
            name: dir.display().to_string(),
        })))
    }

    /// What the vectors come from.
    pub fn name(&self) -> String {
        match self {
            Embedder::Pocket(_) => "paraphrase-MiniLM-L3-v2 (pocket-encoder, 4-bit)".into(),
            Embedder::Dir(d) => d.name.clone(),
        }
    }

    /// One L2-normalised vector a text (an empty text embeds as "-").
    pub fn embed(&self, texts: &[String]) -> anyhow::Result<Vec<Vec<f32>>> {
        let texts: Vec<&str> = texts
            .iter()
            .map(|t| if t.trim().is_empty() { "-" } else { t.as_str() })
            .collect();
        match self {
            Embedder::Pocket(e) => {
                let mut out = Vec::with_capacity(texts.len());
                for chunk in texts.chunks(64) {
                    out.extend(e.embed(chunk)?);
                }
                Ok(out)
            }
            Embedder::Dir(d) => {
                let (model, tokenizer) = (&d.model, &d.tokenizer);
                use candle_core::{DType, Device, Tensor};
                let mut out = Vec::with_capacity(texts.len());
                for t in texts {
                    let enc = tokenizer
                        .encode(t, true)
                        .map_err(|e| anyhow::anyhow!("{e}"))?;
                    let ids = Tensor::new(enc.get_ids(), &Device::Cpu)?.unsqueeze(0)?;
                    let types = Tensor::new(enc.get_type_ids(), &Device::Cpu)?.unsqueeze(0)?;
                    let mask = Tensor::new(enc.get_attention_mask(), &Device::Cpu)?.unsqueeze(0)?;
                    let hidden = model.forward(&ids, &types, Some(&mask))?;
                    let m = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
                    let summed = hidden.broadcast_mul(&m)?.sum(1)?.squeeze(0)?;
                    let n = enc
                        .get_attention_mask()
                        .iter()
                        .filter(|&&x| x > 0)
                        .count()
                        .max(1);
                    let mut v: Vec<f32> = summed.to_vec1::<f32>()?;
                    for x in &mut v {
                        *x /= n as f32;
                    }
                    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
                    for x in &mut v {
                        *x /= norm;
                    }
                    out.push(v);
                }
                Ok(out)
            }
        }
    }
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn time_factors(ix: &LedgerIndex, scorer: &Scorer) -> Vec<f64> {
    (0..ix.len() as u32)
        .map(|p| {
            let m = ix.meta(p);
            let age = ((scorer.now.0 - m.ts) as f64 / 3600.0).max(0.0);
            scorer
                .ranking
                .time_factor(decay(age, scorer.half_lives[m.kind.index()]))
        })
        .collect()
}

/// Scores every case of every group (one `Vec<Scored>` per group). With `check_disjoint`,
/// fails if a query shares an indexed term with an entry it should find.
fn score_groups(
    encoder: &Embedder,
    groups: &[Group],
    work: &Path,
    (check_disjoint, held): (bool, bool),
    embed_time: &mut (f64, usize),
) -> anyhow::Result<Vec<Vec<Scored>>> {
    let half_lives = Settings::default().half_life_hours;
    let mut out = Vec::new();
    let mut shared = Vec::new();
    for g in groups {
        let path = work.join(format!("{}.jsonl", g.name));
        let mut text = String::new();
        for e in &g.entries {
            text.push_str(&serde_json::to_string(e)?);
            text.push('\n');
        }
        std::fs::write(&path, text)?;
        let ledger = Ledger::open(&path, AppendOptions::default())?;
        let ix = ledger.index();
        let all = Filter::default().compile(ix);
        let ids: Vec<String> = (0..ix.len() as u32).map(|p| ix.id(p).to_string()).collect();
        let texts: Vec<String> = (0..ix.len() as u32)
            .map(|p| {
                ix.entry(p)
                    .map(|e| format!("{} {}", e.summary, e.detail).trim().to_string())
            })
            .collect::<Result<_, _>>()?;
        let t = Instant::now();
        let vectors = encoder.embed(&texts)?;
        embed_time.0 += t.elapsed().as_secs_f64() * 1e3;
        embed_time.1 += texts.len();
        let queries: Vec<String> = g.cases.iter().map(|c| c.query.clone()).collect();
        let qv = encoder.embed(&queries)?;
        let blend = Scorer {
            now: g.now,
            half_lives,
            ranking: Ranking::default(),
        };
        let relevance = Scorer {
            ranking: Ranking::Relevance,
            ..blend
        };
        let time = time_factors(ix, &blend);
        let held = held.then(|| {
            let mut store = warroom_memory::semantic::Vectors::new(q_dims(&qv));
            for (p, v) in vectors.iter().enumerate() {
                store.set(p as u32, p as u64 + 1, v);
            }
            store
        });
        let mut scored = Vec::new();
        for (c, q) in g.cases.iter().zip(&qv) {
            if check_disjoint {
                let terms = ix.text().query(&c.query);
                for r in &c.relevant {
                    let p = ix
                        .position(r)
                        .ok_or_else(|| anyhow::anyhow!("{}: no entry {r}", c.name))?;
                    if terms.iter().any(|t| ix.text().has(t, p)) {
                        shared.push(c.name.clone());
                    }
                }
            }
            let lexical = ix
                .search(&c.query, &all, 10, &blend)
                .hits
                .iter()
                .map(|h| ids[h.pos as usize].clone())
                .collect();
            let pool = ix
                .search(&c.query, &all, POOL, &relevance)
                .hits
                .iter()
                .map(|h| (h.pos, h.bm25))
                .collect();
            let ideal = ix.text().query(&c.query).iter().map(|q| q.idf).sum();
            scored.push(Scored {
                lexical,
                pool,
                ideal,
                cos: match &held {
                    Some(store) => (0..vectors.len())
                        .map(|p| store.cosine(p as u32, q).unwrap_or(0.0))
                        .collect(),
                    None => vectors.iter().map(|v| dot(v, q)).collect(),
                },
                time: time.clone(),
                ids: ids.clone(),
                category: c.category.clone(),
                relevant: c.relevant.clone(),
            });
        }
        std::fs::remove_file(&path)?;
        out.push(scored);
    }
    anyhow::ensure!(
        shared.is_empty(),
        "paraphrase cases sharing an indexed word with the entry they should find (the set \
         must not have any): {shared:?}"
    );
    Ok(out)
}

fn metrics(
    name: &str,
    groups: &[Vec<Scored>],
    rank: &dyn Fn(usize, &Scored) -> Vec<String>,
    headline: &dyn Fn(&str) -> bool,
) -> SemanticRanker {
    let mut head = Metrics::default();
    let mut by: BTreeMap<String, Metrics> = BTreeMap::new();
    for (gi, g) in groups.iter().enumerate() {
        for s in g {
            let r = rank(gi, s);
            by.entry(s.category.clone())
                .or_default()
                .add(&r, &s.relevant);
            if headline(&s.category) {
                head.add(&r, &s.relevant);
            }
        }
    }
    SemanticRanker {
        ranker: name.to_string(),
        headline: head.finish(),
        by_category: by.into_iter().map(|(k, m)| (k, m.finish())).collect(),
    }
}

/// How a set is evaluated.
#[derive(Debug, Clone, Copy)]
pub struct Tuning {
    /// Choose the hybrid weight per group by leave-one-group-out (LoCoMo).
    pub loco: bool,
    /// Otherwise this weight.
    pub fixed: f64,
    /// Fail if a query shares an indexed term with an entry it should find.
    pub check_disjoint: bool,
    /// Cosines from the vectors as the server holds them (4-bit magnitudes and sign
    /// bits, `warroom_memory::semantic::Vectors`) instead of exact `f32` ones.
    pub held: bool,
}

/// Evaluates every ranker on `groups`. `loco`: choose the hybrid weight per group by
/// leave-one-group-out; otherwise use `fixed` (the weight LoCoMo chose overall).
pub fn evaluate(
    dataset: &str,
    groups: &[Group],
    headline: &dyn Fn(&str) -> bool,
    work: &Path,
    how: Tuning,
    encoder: &Embedder,
) -> anyhow::Result<SemanticReport> {
    let Tuning {
        loco,
        fixed,
        check_disjoint,
        held,
    } = how;
    let mut embed_time = (0.0, 0);
    let scored = score_groups(
        encoder,
        groups,
        work,
        (check_disjoint, held),
        &mut embed_time,
    )?;
    let mut rankers = vec![
        metrics("lexical", &scored, &|_, s| s.lexical.clone(), headline),
        metrics("dense", &scored, &|_, s| s.dense(), headline),
    ];
    let r10 = |w: f64, mm: Fusion, skip: Option<usize>| {
        let mut m = Metrics::default();
        for (gi, g) in scored.iter().enumerate() {
            if Some(gi) == skip {
                continue;
            }
            for s in g.iter().filter(|s| headline(&s.category)) {
                m.add(&s.hybrid(w, mm), &s.relevant);
            }
        }
        m.finish().r10
    };
    let mut weights = Vec::new();
    for mm in [
        Fusion::Best { mm: false },
        Fusion::Best { mm: true },
        Fusion::Ideal,
        Fusion::Rrf,
        Fusion::Centred,
    ] {
        let chosen: Vec<f64> = if loco {
            (0..scored.len())
                .map(|gi| {
                    WEIGHTS
                        .iter()
                        .copied()
                        .max_by(|&a, &b| r10(a, mm, Some(gi)).total_cmp(&r10(b, mm, Some(gi))))
                        .unwrap_or(0.5)
                })
                .collect()
        } else {
            vec![fixed; scored.len()]
        };
        let how = mm.label();
        let label = if loco {
            format!("hybrid, {how} (w by leave-one-out)")
        } else {
            format!("hybrid, {how}, w={fixed}")
        };
        rankers.push(metrics(
            &label,
            &scored,
            &|gi, s| s.hybrid(chosen[gi], mm),
            headline,
        ));
        for w in WEIGHTS {
            rankers.push(metrics(
                &format!("hybrid, {how}, w={w} (all, for reference)"),
                &scored,
                &|_, s| s.hybrid(w, mm),
                headline,
            ));
        }
        weights.extend(chosen);
    }
    Ok(SemanticReport {
        dataset: format!("{dataset}, {}", encoder.name()),
        entries: embed_time.1,
        embed_ms_per_entry: embed_time.0 / embed_time.1.max(1) as f64,
        rankers,
        weights,
    })
}

/// The reports as markdown.
pub fn markdown(reports: &[SemanticReport]) -> String {
    let mut s = String::new();
    for r in reports {
        s.push_str(&format!(
            "### {} ({} entries embedded, {:.2} ms each; weights {:?})\n\n| ranker | R@5 | R@10 | MRR@10 |\n|---|---:|---:|---:|\n",
            r.dataset, r.entries, r.embed_ms_per_entry, r.weights
        ));
        for k in &r.rankers {
            s.push_str(&format!(
                "| {} | {:.3} | {:.3} | {:.3} |\n",
                k.ranker, k.headline.r5, k.headline.r10, k.headline.mrr10
            ));
        }
        s.push('\n');
    }
    s
}
