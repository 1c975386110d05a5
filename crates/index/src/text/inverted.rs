//! Full-text index: identifier-aware tokens ([`crate::tokens`]), our own postings, and two
//! scorings over them — the seed's BM25 of `summary + tags`, and BM25F over four fields.
//!
//! Why our own index: the `bm25` crate's `SearchEngine` re-scores every document per query
//! (~7 ms at 100k entries), while a postings list touches only documents that contain a
//! query term (~0.1 ms). We keep the crate's tokenizer for words (Unicode word split, ASCII
//! folding, English stop words and Snowball stemming) so that scores agree with what users
//! of that crate expect.
//!
//! Each posting holds the term's frequency in each field (summary, tags, detail, ref).
//!
//! - [`Scoring::Seed`] is Okapi BM25 over `summary + tags` exactly as the seed defines it:
//!   k1 = 1.2, b = 0.75, the non-negative idf `ln(1 + (N − df + 0.5) / (df + 0.5))` with
//!   `df` counting entries that have the term in summary or tags — the constants SQLite
//!   FTS5 uses. A term only in detail or ref does not match.
//! - [`Scoring::Fielded`] is BM25F: a pseudo term frequency
//!   `tf~ = Σ_f w_f × tf_f / (1 − b_f + b_f × len_f / avglen_f)`, then
//!   `idf × tf~ × (k1 + 1) / (k1 + tf~)` with `df` over every field. Summary and tags form
//!   one length-normalised group with weight 1 (the seed's field); detail weighs
//!   [`W_DETAIL`], ref [`W_REF`] (not length-normalised: a ref is one identifier). With
//!   only summary and tags matching it equals the seed's BM25 up to the idf's `df`.
//!
//! `N`, `df` and the average lengths count every indexed entry, superseded ones included:
//! the index is append-only like the ledger, and scores stay stable when an entry is
//! superseded.

use crate::bounds::Bounds;
use crate::chunks::{CACHED_CHUNK_MAX, ChunkCache, Cut};
use crate::postings::List;
pub use crate::scratch::Scratch;
use crate::tokens::Tokens;

pub use crate::score::{B, CodeNorms, FIELDS, K1, QueryTerm, Scoring, W_DETAIL, W_REF};
pub(crate) use crate::score::{Doc, Posting, fielded_parts, fielded_score, saturate, seed_score};

/// Postings index over summary, tags, detail and ref of every entry.
#[derive(Default)]
pub struct TextIndex {
    pub(crate) tokens: Tokens,
    pub(crate) terms: crate::vocab::Vocab,
    pub(crate) postings: crate::postings::Postings,
    /// Per slot ([`crate::postings::Postings::slot`]): entries having its term in summary
    /// or tags (the seed's document frequency); a list of one posting has no slot, and
    /// its count is that posting's ([`TextIndex::df_seed`]).
    pub(crate) df_seed: Vec<u32>,
    /// Per document: its lengths and its owner's word.
    pub(crate) docs: Vec<Doc>,
    /// Per document: the one-byte codes of its two lengths ([`crate::norms`]), for
    /// bounding scores without reading `docs`.
    pub(crate) norms: Vec<[u8; 2]>,
    pub(crate) total_len: [u64; 4],
    /// Tokenizing (Unicode split, folding, stop words, Snowball stemming) dominates
    /// indexing, and text repeats a small vocabulary, so each distinct whitespace-separated
    /// chunk is tokenized once. Exact: the tokenizer never joins text across whitespace, so
    /// tokenizing chunk by chunk yields the same tokens as the whole text (a test checks).
    pub(crate) chunks: ChunkCache,
    /// Upper bounds for pruned top-k search, per term and per block of postings.
    pub(crate) bounds: Bounds,
    /// Scratch of [`TextIndex::add`], kept between calls: the entry cut into chunks, its
    /// term ids and its (term, field) pairs.
    pub(crate) cut: Cut,
    pub(crate) ids: Vec<u32>,
    pub(crate) pairs: Vec<(u32, u8)>,
    /// This index's own number ([`crate::chunks::memo_keys`]).
    generation: Generation,
}

/// A number no other text index of this process has: with the number of terms (which
/// only grows), what a thread's memo of term keys is valid for.
#[derive(Debug)]
struct Generation(u64);

impl Default for Generation {
    fn default() -> Self {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Generation(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

impl std::fmt::Debug for TextIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextIndex")
            .field("docs", &self.docs.len())
            .field("terms", &self.terms.len())
            .finish()
    }
}

impl TextIndex {
    /// Tokens of `text` as the index sees them (normalised, stop words removed, stemmed,
    /// identifiers split and kept whole).
    pub fn tokenize(&self, text: &str) -> Vec<String> {
        self.tokens.tokenize(text)
    }

    /// The terms of `text` as sorted, distinct keys, without stemming what the index has
    /// seen: a term the index knows is its id, one it does not is a hash of the term with
    /// the top bit set (so the two never meet). Two texts share a key exactly when they
    /// share a term of [`TextIndex::tokenize`]. What overlaps compare, many times a brief.
    pub fn term_keys(&self, text: &str) -> Vec<u64> {
        use std::hash::BuildHasher;
        let unknown = foldhash::fast::FixedState::default();
        let mut out: Vec<u64> = Vec::new();
        let mut toks = Vec::new();
        for chunk in crate::chunks::words(text) {
            if chunk.len() <= CACHED_CHUNK_MAX {
                let hash = self.chunks.hash(chunk);
                if let Some(id) = self.chunks.hot_get(hash, chunk) {
                    out.extend(id.map(u64::from));
                    continue;
                }
                if let Some(ids) = self.chunks.get(hash, chunk) {
                    out.extend(ids.iter().map(|&i| u64::from(i)));
                    continue;
                }
            }
            // Not in the cache (a read after a snapshot starts with an empty one): stemmed
            // once per thread and state of the index ([`crate::chunks::memo_keys`]).
            let stamp = (self.generation.0, self.terms.len());
            crate::chunks::memo_keys(stamp, chunk, &mut out, |out| {
                toks.clear();
                self.tokens.chunk(chunk, &mut toks);
                for t in &toks {
                    out.push(match self.terms.get(t.as_str()) {
                        Some(id) => u64::from(id),
                        None => unknown.hash_one(t.as_str()) | (1 << 63),
                    });
                }
            });
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Number of indexed documents.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// True if nothing is indexed.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// The length normalisers `b / avg` of summary + tags and of detail, for
    /// [`TextIndex::term_score`] (computed once per query).
    pub fn norms(&self) -> (f64, f64) {
        let avg = self.averages();
        (B / avg.0, B / avg.1)
    }

    /// The score of term `q` in the posting at `i` of its list, exactly as
    /// [`TextIndex::score`] adds it; `norms` from [`TextIndex::norms`].
    pub fn term_score(&self, q: &QueryTerm, i: usize, scoring: Scoring, norms: (f64, f64)) -> f64 {
        let p = &self.postings.list(q.term).get(i);
        let (b_st, b_d) = norms;
        let len = &self.docs[p.doc as usize];
        match scoring {
            Scoring::Seed if p.tf[0] == 0 && p.tf[1] == 0 => 0.0,
            Scoring::Seed => seed_score(q.idf_seed * (K1 + 1.0), p, len, b_st),
            Scoring::Fielded => fielded_score(q.idf * (K1 + 1.0), p, len, b_st, b_d),
        }
    }

    /// The tables of [`TextIndex::term_bound`] for one query; `norms` from
    /// [`TextIndex::norms`].
    pub fn code_norms(&self, norms: (f64, f64)) -> CodeNorms {
        CodeNorms::at(norms)
    }

    /// At least [`TextIndex::term_score`] of posting `p`, from its document's length
    /// codes (2 bytes per document, mostly in cache) instead of its record (8 bytes, at a
    /// million entries mostly not); within a hair of it when both lengths are below
    /// [`crate::norms::EXACT`]. `w` is `idf × (k1 + 1)` of the scoring's idf.
    #[inline(always)]
    pub(crate) fn term_bound(&self, p: &Posting, scoring: Scoring, w: f64, cn: &CodeNorms) -> f64 {
        saturate(w, self.tf_bound(p, scoring, cn))
    }

    /// The length-normalised frequency [`TextIndex::term_bound`] saturates.
    #[inline(always)]
    pub(crate) fn tf_bound(&self, p: &Posting, scoring: Scoring, cn: &CodeNorms) -> f64 {
        cn.tf_bound(p, self.norms[p.doc as usize], scoring)
    }

    /// The distinct indexed terms of a query, with their idf. Terms absent from the index
    /// cannot match and are dropped.
    pub fn query(&self, text: &str) -> Vec<QueryTerm> {
        self.query_counted(text, self.docs.len(), |term| {
            Some((self.df_seed(term) as usize, self.postings.list(term).len()))
        })
    }

    /// Entries having term `t` in summary or tags.
    pub(crate) fn df_seed(&self, t: u32) -> u32 {
        match self.postings.slot(t) {
            Some(m) => self.df_seed[m as usize],
            None => self.postings.list(t).in_summary_or_tags() as u32,
        }
    }

    /// The distinct terms of `text` the index knows, with their idf among `n` documents;
    /// `df(term)` gives a term's document frequencies (summary + tags, every field), or
    /// `None` to drop the term.
    pub(crate) fn query_counted(
        &self,
        text: &str,
        n: usize,
        df: impl Fn(u32) -> Option<(usize, usize)>,
    ) -> Vec<QueryTerm> {
        let n = n as f64;
        let idf = |df: usize| (1.0 + (n - df as f64 + 0.5) / (df as f64 + 0.5)).ln();
        let mut out: Vec<QueryTerm> = Vec::new();
        for tok in self.tokens.tokenize(text) {
            let Some(term) = self.terms.get(tok.as_str()) else {
                continue;
            };
            if out.iter().any(|q| q.term == term) {
                continue;
            }
            let Some((seed, all)) = df(term) else {
                continue;
            };
            out.push(QueryTerm {
                term,
                idf_seed: idf(seed),
                idf: idf(all),
            });
        }
        out
    }

    /// Average length of summary + tags and of detail (at least 1).
    pub(crate) fn averages(&self) -> (f64, f64) {
        let n = self.docs.len().max(1) as f64;
        let st = (self.total_len[0] + self.total_len[1]) as f64 / n;
        let d = self.total_len[2] as f64 / n;
        (st.max(1.0), d.max(1.0))
    }

    /// Adds the score of every document matching any of `terms` into `scratch`.
    pub fn score(&self, terms: &[QueryTerm], scoring: Scoring, scratch: &mut Scratch) {
        self.score_lists(terms, scoring, scratch, self.averages(), |list| list);
    }

    /// Adds into `scratch` the score of every posting `within` keeps of each of `terms`'
    /// lists, at the average lengths `avg` (the whole index's, or a horizon's).
    pub(crate) fn score_lists<'a>(
        &'a self,
        terms: &[QueryTerm],
        scoring: Scoring,
        scratch: &mut Scratch,
        avg: (f64, f64),
        within: impl Fn(List<'a>) -> List<'a>,
    ) {
        scratch.fit(self.docs.len());
        // One loop per scoring, so the hot loop has no branch on it. Both skip the
        // normalisation of fields a posting does not have (most have one field).
        let (b_st, b_d) = (B / avg.0, B / avg.1);
        for q in terms {
            let postings = within(self.postings.list(q.term));
            match scoring {
                Scoring::Seed => {
                    let w = q.idf_seed * (K1 + 1.0);
                    for p in postings.iter() {
                        if p.tf[0] == 0 && p.tf[1] == 0 {
                            continue;
                        }
                        let len = &self.docs[p.doc as usize];
                        scratch.add(p.doc, seed_score(w, &p, len, b_st));
                    }
                }
                Scoring::Fielded => {
                    let w = q.idf * (K1 + 1.0);
                    for p in postings.iter() {
                        let len = &self.docs[p.doc as usize];
                        scratch.add(p.doc, fielded_score(w, &p, len, b_st, b_d));
                    }
                }
            }
        }
    }

    /// The score of one document for `terms`, as [`TextIndex::score`] gives it: the same
    /// arithmetic on that document's postings only, found by bisection (postings are in
    /// document order), so explaining a hit costs a few lookups, not a full scoring.
    pub fn score_one(&self, terms: &[QueryTerm], scoring: Scoring, doc: u32) -> f64 {
        let avg = self.averages();
        let (b_st, b_d) = (B / avg.0, B / avg.1);
        let len = &self.docs[doc as usize];
        let mut total = 0.0;
        for q in terms {
            let Some(p) = self.postings.list(q.term).find(doc) else {
                continue;
            };
            let p = &p;
            total += match scoring {
                Scoring::Seed if p.tf[0] == 0 && p.tf[1] == 0 => 0.0,
                Scoring::Seed => seed_score(q.idf_seed * (K1 + 1.0), p, len, b_st),
                Scoring::Fielded => fielded_score(q.idf * (K1 + 1.0), p, len, b_st, b_d),
            };
        }
        total
    }

    /// How much each field (in [`FIELDS`] order) contributes to the BM25F score of `doc`:
    /// each term's score is shared out in proportion to the fields' parts of `tf~`. The
    /// shares add up to the document's [`Scoring::Fielded`] score.
    pub fn field_shares(&self, terms: &[QueryTerm], doc: u32) -> [f64; 4] {
        let avg = self.averages();
        let mut shares = [0.0; 4];
        for q in terms {
            let Some(p) = self.postings.list(q.term).find(doc) else {
                continue;
            };
            let parts = fielded_parts(&p, &self.docs[doc as usize], avg);
            let tf: f64 = parts.iter().sum();
            if tf <= 0.0 {
                continue;
            }
            let s = q.idf * tf * (K1 + 1.0) / (K1 + tf);
            for (share, part) in shares.iter_mut().zip(parts) {
                *share += s * part / tf;
            }
        }
        shares
    }

    /// Approximate heap bytes held by the index (for the memory report).
    pub fn heap_bytes(&self) -> usize {
        let postings = self.postings.heap_bytes();
        let terms = self.terms.heap_bytes();
        postings
            + terms
            + self.chunks.heap_bytes()
            + self.docs.capacity() * 8
            + self.norms.capacity() * 2
            + self.df_seed.capacity() * 4
    }
}

#[cfg(test)]
#[path = "inverted_tests.rs"]
mod tests;
