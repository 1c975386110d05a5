//! Semantic ranking in the brief: the relevance of a brief's candidates to its keywords,
//! fused from BM25F and the cosine of their vectors exactly as a search fuses them
//! ([`crate::semantic::fuse`] over the same baseline), handed to the ranking in place of
//! the keywords' BM25F. An entry the keywords share no word with can then be a match; one
//! without a vector keeps its lexical part. The receipt records the model and the weight
//! ([`crate::receipts::SemanticUsed`]) and each included entry's cosine, so a replay ranks
//! the same way — or says it cannot, when this server has another model or none.

use std::collections::HashMap;

use crate::index::{LedgerIndex, Scoring, Scratch};
use crate::memory::Memory;
use crate::receipts::SemanticUsed;
use crate::semantic::{POOL, baseline, fuse, id_key};

/// What meaning adds to one brief's ranking.
pub(crate) struct Meaning {
    /// Every candidate with a relevance: (position, fused relevance); the first `words`
    /// share a word with the keywords, the others are near them in meaning alone.
    pub fused: Vec<(u32, f64)>,
    /// How many of `fused` are matches by words.
    pub words: usize,
    /// Their cosines, for the receipt's reasons.
    pub cosines: HashMap<u32, f64>,
    /// The model and weight used.
    pub used: SemanticUsed,
}

impl Memory {
    /// The weight this server would fuse a brief with, when semantic ranking is on and
    /// its model loaded.
    pub(crate) fn semantic_in_use(&self) -> Option<SemanticUsed> {
        let s = self.semantic()?;
        let e = s.embedder.as_ref()?;
        Some(SemanticUsed {
            model_id: e.model_id().to_string(),
            weight: s.weight,
        })
    }

    /// The fused relevance of the candidates of a brief for `room` ranked by `keywords`
    /// on `ix` with the lexical side weighing `weight`; None when semantic ranking is off,
    /// there are no keywords, or they could not be embedded (the brief is then lexical).
    /// `title`: the epic's, searched with the keywords by words (an entry naming the
    /// room's epic is a match by words) and by meaning (embedded with them).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn brief_meaning(
        &self,
        ix: &LedgerIndex,
        room: &str,
        keywords: &[String],
        title: Option<&str>,
        scoring: Scoring,
        scratch: &mut Scratch,
        weight: f64,
    ) -> Option<Meaning> {
        let mut used = self.semantic_in_use()?;
        used.weight = weight;
        let text = keywords.join(" ");
        if text.trim().is_empty() {
            return None;
        }
        let s = self.semantic()?;
        // What the brief searches — its keywords and the epic's title — is searched by
        // words and by meaning alike.
        let searched = match title {
            Some(t) => format!("{text} {t}"),
            None => text.clone(),
        };
        let q = s.query(&searched)?;
        let terms = ix.text.query(&searched);
        let ideal: f64 = terms.iter().map(|t| t.idf).sum();
        scratch.clear();
        ix.text.score(&terms, scoring, scratch);
        let mut lexical: Vec<(u32, f64)> = scratch.drain().collect();
        lexical.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let own = ix.rooms.get(room);
        let eligible = |pos: u32| {
            (pos as usize) < ix.len() && ix.meta(pos).live && Some(ix.meta(pos).room) != own
        };
        let vectors = s.vectors.read().unwrap_or_else(|p| p.into_inner());
        let cosine = |pos: u32| {
            let key = id_key(ix.id(pos));
            vectors.cosine_of(pos, key, &q).map_or(0.0, f64::from)
        };
        let near = vectors.nearest(&q, POOL, &eligible);
        // The baseline over the same pool a search takes: the best lexical candidates and
        // the nearest vectors.
        let mut cosines: HashMap<u32, f64> = HashMap::new();
        for &(pos, _) in lexical.iter().filter(|(p, _)| eligible(*p)).take(POOL) {
            cosines.insert(pos, cosine(pos));
        }
        for &(pos, _) in &near {
            cosines.entry(pos).or_insert_with(|| cosine(pos));
        }
        let mut pool: Vec<f64> = cosines.values().copied().collect();
        pool.sort_by(f64::total_cmp);
        let base = baseline(&pool);
        let mut fused = Vec::with_capacity(lexical.len() + near.len());
        for &(pos, bm25) in &lexical {
            let c = *cosines.entry(pos).or_insert_with(|| cosine(pos));
            fused.push((pos, fuse(bm25, ideal, c, base, weight).relevance));
        }
        let words = fused.len();
        let lexical_at: std::collections::HashSet<u32> = lexical.iter().map(|l| l.0).collect();
        for &(pos, _) in &near {
            if !lexical_at.contains(&pos) {
                let f = fuse(0.0, ideal, cosines[&pos], base, weight);
                if f.relevance > 0.0 {
                    fused.push((pos, f.relevance));
                }
            }
        }
        let keep: std::collections::HashSet<u32> = fused.iter().map(|f| f.0).collect();
        cosines.retain(|p, _| keep.contains(p));
        Some(Meaning {
            fused,
            words,
            cosines,
            used,
        })
    }
}
