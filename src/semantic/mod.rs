//! Semantic recall (docs/semantic.md): opt-in ranking by meaning beside the lexical one.
//!
//! With `semantic: on`, every entry gets a vector from a small local sentence-embedding
//! model, and every ranked search fuses the lexical relevance (BM25F) with the cosine of
//! the query's vector before the time factor. Vectors are derived state, like the
//! snapshot: kept in [`Vectors`] (4-bit rows and sign bits by entry position), cached beside the
//! snapshot keyed by the model ([`cache`]), never written to the ledger; an entry without
//! a vector yet is still found lexically.
//!
//! The model stays behind one seam, [`Embedder`]: the index, the brief and the console
//! never name the runtime. The runtime (candle, and the bundled paraphrase-MiniLM-L3-v2
//! of crates.io's `pocket-encoder`) is compiled only with the cargo feature `semantic`
//! ([`model`]); without it, turning semantic ranking on is an error that says how to get
//! a build that has it.
//!
//! **Fusion** ([`fuse`]): `relevance = w × lexical + (1 − w) × semantic`, then the time
//! factor, as for lexical ranking. `lexical = min(1, BM25F / ideal)`, where `ideal` is the
//! query's ideal BM25F — the sum of its terms' idf, about what an entry holding every
//! query term once scores — so a weak lexical match (one shared common word) stays weak;
//! normalised by the query's *best* match instead it became a full 1.0 and beat the true
//! paraphrase. `semantic = max(0, (cos − z) / (1 − z))`, the cosine above `z`, the
//! [`CENTRE_QUANTILE`] of the candidates' cosines: a small model's cosines are compressed
//! (unrelated text still scores 0.3–0.5), so raw cosines made every candidate "comparably
//! relevant" and let the time factor pick the freshest; above the candidates' own
//! baseline, only the nearest few count (docs/semantic.md has the measurements).

pub mod cache;
#[cfg(feature = "semantic")]
pub mod fetch;
pub mod magnitudes;
#[cfg(feature = "semantic")]
pub mod model;
#[cfg(feature = "semantic")]
pub mod model_check;
pub mod vectors;

use std::path::PathBuf;

pub use vectors::{CANDIDATES, EXACT_UP_TO, MAX_CANDIDATES, Vectors, candidates, id_key};

/// A sentence encoder: one unit vector per text.
pub trait Embedder: Send + Sync {
    /// What the vectors come from, including a hash of the weights: vectors of another
    /// model id are never compared with these.
    fn model_id(&self) -> &str;
    /// A short name for people (`paraphrase-MiniLM-L3-v2 (bundled)`).
    fn name(&self) -> &str;
    /// Dimensions of a vector.
    fn dims(&self) -> usize;
    /// One L2-normalised vector per text, in order.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String>;
}

/// `semantic:` in warroom.yaml.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SemanticSettings {
    /// Fuse the cosine into every ranking.
    pub on: bool,
    /// A sentence-transformers model directory; none: the bundled model.
    pub model: Option<PathBuf>,
    /// The share of the lexical side in the fusion (default [`DEFAULT_WEIGHT`]).
    pub weight: f64,
    /// The cosine from which a published entry's neighbour counts as the same subject on
    /// its own (`overlap_cosine`, default [`DEFAULT_OVERLAP_COSINE`]): models' cosines
    /// differ in scale (docs/overlaps.md measures two).
    pub overlap_cosine: f64,
}

/// A cosine that makes an overlap on its own, chosen before measuring; docs/overlaps.md
/// has what it finds with the bundled and a 6-layer model.
pub const DEFAULT_OVERLAP_COSINE: f64 = 0.7;

/// Default share of the lexical side (chosen by `cargo xtask bench semantic`).
pub const DEFAULT_WEIGHT: f64 = 0.2;

/// The quantile of the candidates' cosines taken as the query's baseline similarity.
pub const CENTRE_QUANTILE: f64 = 0.9;

/// Candidates taken from each side before fusing.
pub const POOL: usize = 100;

/// The text of an entry a vector is computed from: the summary, its tags and the start
/// of its detail (the model reads 128 tokens).
pub fn entry_text(summary: &str, tags: &[String], detail: &str) -> String {
    let mut t = summary.to_string();
    if !tags.is_empty() {
        t.push_str(" (");
        t.push_str(&tags.join(", "));
        t.push(')');
    }
    if !detail.is_empty() {
        t.push_str(". ");
        t.push_str(crate::text::prefix_chars(detail, 600));
    }
    t
}

/// The parts of a fused score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fused {
    /// BM25F over the query's ideal, capped at 1.
    pub lexical: f64,
    /// The raw cosine of the query's and the entry's vectors.
    pub cosine: f64,
    /// The cosine above the candidates' baseline, on 0..=1.
    pub semantic: f64,
    /// `w × lexical + (1 − w) × semantic`.
    pub relevance: f64,
}

/// Candidates above the baseline in a full pool: the nearest tenth of [`POOL`].
const ABOVE_BASELINE: usize = 10;

/// The baseline of a query's candidate cosines: their [`CENTRE_QUANTILE`] — in a full pool
/// (a ledger of [`POOL`] entries or more) the cosine of about the 10th nearest. A smaller
/// pool (a young project's whole ledger) keeps that meaning: the baseline is the cosine of
/// its 10th nearest, but never below its median. Its 90th percentile would be its 2nd
/// nearest in a pool of 20, crediting one entry alone with any meaning.
pub fn baseline(cosines: &[f64]) -> f64 {
    let mut c: Vec<f64> = cosines.to_vec();
    c.sort_by(f64::total_cmp);
    let n = c.len();
    let quantile = (n as f64 * CENTRE_QUANTILE) as usize;
    let tenth_nearest = n.saturating_sub(ABOVE_BASELINE).max(n / 2);
    let i = quantile.min(tenth_nearest).min(n.saturating_sub(1));
    c.get(i).copied().unwrap_or(0.0)
}

/// Fuses a BM25F score and a cosine, given the query's ideal BM25F and cosine baseline
/// (see the module doc).
pub fn fuse(bm25: f64, ideal: f64, cosine: f64, base: f64, w: f64) -> Fused {
    let lexical = if ideal > 0.0 {
        (bm25 / ideal).min(1.0)
    } else {
        0.0
    };
    let semantic = ((cosine - base) / (1.0 - base).max(1e-6)).clamp(0.0, 1.0);
    Fused {
        lexical,
        cosine,
        semantic,
        relevance: w * lexical + (1.0 - w) * semantic,
    }
}

/// Loads the embedder the settings name: the bundled model, or a model directory. The
/// error says which file is wrong and how to fix it.
pub fn load(s: &SemanticSettings) -> Result<std::sync::Arc<dyn Embedder>, String> {
    #[cfg(feature = "semantic")]
    {
        model::load(s.model.as_deref())
    }
    #[cfg(not(feature = "semantic"))]
    {
        let _ = s;
        Err(
            "this build of warroom-memory has no semantic ranking (the cargo feature \
             `semantic`). Fix: install it with `cargo install --path . --features semantic`, \
             or set `semantic: off`"
                .to_string(),
        )
    }
}

/// A fake embedder for tests: texts sharing a "topic word" get near vectors. Each
/// dimension counts one word class, so paraphrase tests can be written against it.
#[doc(hidden)]
pub struct WordClasses {
    /// Word classes: each its words; a text's vector counts its words per class.
    pub classes: Vec<Vec<&'static str>>,
}

impl Embedder for WordClasses {
    fn model_id(&self) -> &str {
        "test/word-classes"
    }
    fn name(&self) -> &str {
        "word classes (tests)"
    }
    fn dims(&self) -> usize {
        self.classes.len() + 1
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        Ok(texts
            .iter()
            .map(|t| {
                let lower = t.to_lowercase();
                let mut v: Vec<f32> = self
                    .classes
                    .iter()
                    .map(|c| c.iter().filter(|w| lower.contains(*w)).count() as f32)
                    .collect();
                v.push(0.05);
                let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                v.iter().map(|x| x / n).collect()
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_weak_lexical_match_stays_weak_beside_a_strong_cosine() {
        // Candidates' cosines: most around 0.3–0.5 (unrelated text), a few near.
        let cands = [
            0.31, 0.35, 0.4, 0.42, 0.45, 0.38, 0.5, 0.33, 0.36, 0.55, 0.71,
        ];
        let base = baseline(&cands);
        assert!((base - 0.4).abs() < 1e-9, "the median of 11: {base}");
        // The trap: one common shared word (bm25 1.2 of an ideal 9), a middling cosine;
        // the paraphrase: no shared word, the nearest vector.
        let trap = fuse(1.2, 9.0, 0.5, base, DEFAULT_WEIGHT);
        let target = fuse(0.0, 9.0, 0.71, base, DEFAULT_WEIGHT);
        assert!(target.relevance > trap.relevance, "{target:?} vs {trap:?}");
        // A full lexical match still counts fully.
        let exact = fuse(12.0, 9.0, 0.4, base, DEFAULT_WEIGHT);
        assert!((exact.lexical - 1.0).abs() < 1e-9);
        assert_eq!(exact.semantic, 0.0);
    }

    #[test]
    fn a_small_pool_credits_its_nearest_ten_but_never_more_than_half() {
        // A full pool: the 90th percentile, whatever the rule for small ones says.
        let full: Vec<f64> = (0..200).map(|i| f64::from(i) / 200.0).collect();
        assert_eq!(baseline(&full), 180.0 / 200.0);
        let hundred: Vec<f64> = (0..100).map(f64::from).collect();
        assert_eq!(baseline(&hundred), 90.0, "the 10th nearest of 100");
        // A young project's 20 entries: three paraphrases, seventeen unrelated ones.
        let mut young = vec![0.84, 0.78, 0.75];
        young.extend((0..17).map(|i| 0.2 + f64::from(i) * 0.01));
        let base = baseline(&young);
        for near in [0.84, 0.78, 0.75] {
            assert!(
                fuse(0.0, 5.0, near, base, DEFAULT_WEIGHT).semantic > 0.0,
                "{near} {base}"
            );
        }
        assert_eq!(base, young[13], "the 10th nearest of 20");
        // Six entries: never more than half above the baseline.
        let six = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6];
        assert_eq!(baseline(&six), 0.4);
        assert_eq!(baseline(&[0.7]), 0.7);
        assert_eq!(baseline(&[]), 0.0);
    }

    #[test]
    fn entry_text_is_summary_tags_and_a_bounded_detail() {
        let t = entry_text("Tokens expire", &["auth".into()], &"x".repeat(5000));
        assert!(t.starts_with("Tokens expire (auth). "));
        assert!(t.len() < 700);
    }
}
