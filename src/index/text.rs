//! Full-text index: the `bm25` crate's tokenizer, our own postings and BM25 scoring.
//!
//! Why our own index: the `bm25` crate's `SearchEngine` re-scores every document per query
//! (~7 ms at 100k entries), while a postings list touches only documents that contain a
//! query term (~0.1 ms). We keep the crate's tokenizer (Unicode word split, ASCII folding,
//! English stop words and Snowball stemming) so that scores agree with what users of that
//! crate expect.
//!
//! Scoring is Okapi BM25 with k1 = 1.2, b = 0.75 and the non-negative idf
//! `ln(1 + (N − df + 0.5) / (df + 0.5))` — the same constants SQLite FTS5 uses. `N`, `df` and
//! the average length count every indexed entry, superseded ones included: the index is
//! append-only like the ledger, and scores stay stable when an entry is superseded.

use bm25::{DefaultTokenizer, Language, Tokenizer};
use foldhash::HashMap;

/// BM25 term-frequency saturation.
pub const K1: f64 = 1.2;
/// BM25 length normalisation.
pub const B: f64 = 0.75;

/// One document containing a term.
#[derive(Clone, Copy, Debug)]
struct Posting {
    doc: u32,
    tf: u32,
}

/// A query term present in the index, with its idf.
#[derive(Clone, Debug)]
pub struct QueryTerm {
    term: u32,
    /// Inverse document frequency of the term.
    pub idf: f64,
}

/// Reusable score accumulator, sized to the number of documents.
#[derive(Debug, Default)]
pub struct Scratch {
    scores: Vec<f64>,
    touched: Vec<u32>,
}

impl Scratch {
    /// Documents that scored above zero, with their BM25 score; clears the accumulator.
    pub fn drain(&mut self) -> impl Iterator<Item = (u32, f64)> + '_ {
        let scores = &mut self.scores;
        self.touched.drain(..).map(move |d| {
            let s = std::mem::take(&mut scores[d as usize]);
            (d, s)
        })
    }

    /// The accumulated score of `doc` (0 if it matched nothing), without clearing.
    pub fn get(&self, doc: u32) -> f64 {
        self.scores.get(doc as usize).copied().unwrap_or(0.0)
    }

    /// Resets the accumulator.
    pub fn clear(&mut self) {
        for d in self.touched.drain(..) {
            self.scores[d as usize] = 0.0;
        }
    }
}

/// Most whitespace-separated chunks the tokenizer cache remembers; later new chunks are
/// tokenized every time (correct, just slower).
const CHUNK_CACHE_MAX: usize = 200_000;

/// Postings index over `summary + tags` of every entry.
pub struct TextIndex {
    tokenizer: DefaultTokenizer,
    terms: HashMap<Box<str>, u32>,
    postings: Vec<Vec<Posting>>,
    doc_len: Vec<u32>,
    total_len: u64,
    /// Tokenizing (Unicode split, folding, stop words, Snowball stemming) dominates
    /// indexing, and text repeats a small vocabulary, so each distinct whitespace-separated
    /// chunk is tokenized once. Exact: the tokenizer never joins text across whitespace, so
    /// tokenizing chunk by chunk yields the same tokens as the whole text (a test checks).
    chunks: ChunkCache,
}

/// Entries of the direct-mapped hot cache (32 bytes each: 128 KiB, fits in L2).
const HOT_SLOTS: usize = 4096;
/// "This chunk has no term" (a stop word or punctuation) in the hot cache.
const NO_TERM: u32 = u32::MAX;

/// One hot-cache slot: a short chunk stored inline with its single term id.
#[derive(Clone, Copy)]
struct Hot {
    len: u8,
    bytes: [u8; 27],
    id: u32,
}

/// Chunk → term ids, laid out for few cache misses. Frequent short chunks that map to at
/// most one term sit inline in a direct-mapped array (one cache line per lookup, exact
/// byte comparison); the rest go through a map of 64-bit hashes whose chunk bytes and ids
/// live in two contiguous arenas.
struct ChunkCache {
    hot: Box<[Hot]>,
    by_hash: HashMap<u64, u32>,
    slots: Vec<(u32, u32, u32, u32)>, // (text start, text len, ids start, ids len)
    text: Vec<u8>,
    ids: Vec<u32>,
    hasher: foldhash::fast::FixedState,
}

impl Default for ChunkCache {
    fn default() -> Self {
        let empty = Hot {
            len: u8::MAX,
            bytes: [0; 27],
            id: NO_TERM,
        };
        ChunkCache {
            hot: vec![empty; HOT_SLOTS].into_boxed_slice(),
            by_hash: HashMap::default(),
            slots: Vec::new(),
            text: Vec::new(),
            ids: Vec::new(),
            hasher: foldhash::fast::FixedState::default(),
        }
    }
}

impl ChunkCache {
    fn hash(&self, chunk: &str) -> u64 {
        use std::hash::BuildHasher;
        self.hasher.hash_one(chunk)
    }

    /// The hot slot's answer for `chunk`: `Some(None)` no term, `Some(Some(id))` one term.
    fn hot_get(&self, hash: u64, chunk: &str) -> Option<Option<u32>> {
        let h = &self.hot[hash as usize % HOT_SLOTS];
        (usize::from(h.len) == chunk.len() && &h.bytes[..chunk.len()] == chunk.as_bytes())
            .then_some((h.id != NO_TERM).then_some(h.id))
    }

    fn hot_put(&mut self, hash: u64, chunk: &str, ids: &[u32]) {
        if chunk.len() <= 27 && ids.len() <= 1 {
            let h = &mut self.hot[hash as usize % HOT_SLOTS];
            h.len = chunk.len() as u8;
            h.bytes[..chunk.len()].copy_from_slice(chunk.as_bytes());
            h.id = ids.first().copied().unwrap_or(NO_TERM);
        }
    }

    fn get(&self, hash: u64, chunk: &str) -> Option<&[u32]> {
        let &slot = self.by_hash.get(&hash)?;
        let (ts, tl, is, il) = self.slots[slot as usize];
        (&self.text[ts as usize..(ts + tl) as usize] == chunk.as_bytes())
            .then(|| &self.ids[is as usize..(is + il) as usize])
    }

    fn insert(&mut self, hash: u64, chunk: &str, ids: &[u32]) {
        if self.slots.len() >= CHUNK_CACHE_MAX || self.by_hash.contains_key(&hash) {
            return; // full, or a (rare) 64-bit hash collision: just don't cache
        }
        let slot = (
            self.text.len() as u32,
            chunk.len() as u32,
            self.ids.len() as u32,
            ids.len() as u32,
        );
        self.text.extend_from_slice(chunk.as_bytes());
        self.ids.extend_from_slice(ids);
        self.by_hash.insert(hash, self.slots.len() as u32);
        self.slots.push(slot);
    }

    fn heap_bytes(&self) -> usize {
        HOT_SLOTS * std::mem::size_of::<Hot>()
            + self.by_hash.capacity() * 16
            + self.slots.capacity() * 16
            + self.text.capacity()
            + self.ids.capacity() * 4
    }
}

impl std::fmt::Debug for TextIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextIndex")
            .field("docs", &self.doc_len.len())
            .field("terms", &self.terms.len())
            .finish()
    }
}

impl Default for TextIndex {
    fn default() -> Self {
        TextIndex {
            tokenizer: DefaultTokenizer::new(Language::English),
            terms: HashMap::default(),
            postings: Vec::new(),
            doc_len: Vec::new(),
            total_len: 0,
            chunks: ChunkCache::default(),
        }
    }
}

impl TextIndex {
    /// Tokens of `text` as the index sees them (normalised, stop words removed, stemmed).
    pub fn tokenize(&self, text: &str) -> Vec<String> {
        self.tokenizer.tokenize(text)
    }

    /// Number of indexed documents.
    pub fn len(&self) -> usize {
        self.doc_len.len()
    }

    /// True if nothing is indexed.
    pub fn is_empty(&self) -> bool {
        self.doc_len.is_empty()
    }

    fn intern(&mut self, term: &str) -> u32 {
        if let Some(&id) = self.terms.get(term) {
            return id;
        }
        let id = self.postings.len() as u32;
        self.terms.insert(term.into(), id);
        self.postings.push(Vec::new());
        id
    }

    /// Term ids of `text`, in order, through the chunk cache.
    fn term_ids<'t>(&mut self, texts: impl IntoIterator<Item = &'t str>) -> Vec<u32> {
        let mut out = Vec::with_capacity(32);
        for chunk in texts.into_iter().flat_map(str::split_whitespace) {
            if chunk.len() > 64 {
                // Long chunks (URLs, hashes) rarely repeat; tokenize without caching.
                for t in self.tokenizer.tokenize(chunk) {
                    out.push(self.intern(&t));
                }
                continue;
            }
            let hash = self.chunks.hash(chunk);
            if let Some(id) = self.chunks.hot_get(hash, chunk) {
                out.extend(id);
                continue;
            }
            if let Some(ids) = self.chunks.get(hash, chunk) {
                let ids = ids.to_vec();
                self.chunks.hot_put(hash, chunk, &ids);
                out.extend_from_slice(&ids);
                continue;
            }
            let start = out.len();
            for t in self.tokenizer.tokenize(chunk) {
                out.push(self.intern(&t));
            }
            let ids = out[start..].to_vec();
            self.chunks.insert(hash, chunk, &ids);
            self.chunks.hot_put(hash, chunk, &ids);
        }
        out
    }

    /// Reserves room for about `n` more documents.
    pub fn reserve(&mut self, n: usize) {
        self.doc_len.reserve(n);
    }

    /// Indexes the concatenation of `texts` as document `doc`, which must be the next
    /// document number.
    pub fn add<'t>(&mut self, doc: u32, texts: impl IntoIterator<Item = &'t str>) {
        assert_eq!(
            doc as usize,
            self.doc_len.len(),
            "documents are added in order"
        );
        let mut ids = self.term_ids(texts);
        let len = ids.len() as u32;
        ids.sort_unstable();
        let mut i = 0;
        while i < ids.len() {
            let term = ids[i];
            let run = ids[i..].iter().take_while(|&&t| t == term).count();
            self.postings[term as usize].push(Posting {
                doc,
                tf: run as u32,
            });
            i += run;
        }
        self.doc_len.push(len);
        self.total_len += u64::from(len);
    }

    /// The distinct indexed terms of a query, with their idf. Terms absent from the index
    /// cannot match and are dropped.
    pub fn query(&self, text: &str) -> Vec<QueryTerm> {
        let n = self.doc_len.len() as f64;
        let mut out: Vec<QueryTerm> = Vec::new();
        for tok in self.tokenizer.tokenize(text) {
            let Some(&term) = self.terms.get(tok.as_str()) else {
                continue;
            };
            if out.iter().any(|q| q.term == term) {
                continue;
            }
            let df = self.postings[term as usize].len() as f64;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            out.push(QueryTerm { term, idf });
        }
        out
    }

    /// Adds the BM25 score of every document matching any of `terms` into `scratch`.
    pub fn score(&self, terms: &[QueryTerm], scratch: &mut Scratch) {
        if scratch.scores.len() < self.doc_len.len() {
            scratch.scores.resize(self.doc_len.len(), 0.0);
        }
        let avgdl = if self.doc_len.is_empty() {
            1.0
        } else {
            (self.total_len as f64 / self.doc_len.len() as f64).max(1.0)
        };
        for q in terms {
            for p in &self.postings[q.term as usize] {
                let dl = f64::from(self.doc_len[p.doc as usize]);
                let tf = f64::from(p.tf);
                let s = q.idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * dl / avgdl));
                let slot = &mut scratch.scores[p.doc as usize];
                if *slot == 0.0 {
                    scratch.touched.push(p.doc);
                }
                *slot += s;
            }
        }
    }

    /// BM25 of one document for `terms` (used by `--explain` and by tests).
    pub fn score_one(&self, terms: &[QueryTerm], doc: u32) -> f64 {
        let mut scratch = Scratch::default();
        self.score(terms, &mut scratch);
        scratch
            .drain()
            .find(|(d, _)| *d == doc)
            .map(|(_, s)| s)
            .unwrap_or(0.0)
    }

    /// Approximate heap bytes held by the index (for the memory report).
    pub fn heap_bytes(&self) -> usize {
        let postings: usize = self
            .postings
            .iter()
            .map(|p| p.capacity() * std::mem::size_of::<Posting>() + 24)
            .sum();
        let terms: usize = self.terms.keys().map(|k| k.len() + 16 + 4 + 8).sum();
        postings + terms + self.chunks.heap_bytes() + self.doc_len.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(docs: &[&str]) -> TextIndex {
        let mut ix = TextIndex::default();
        for (i, d) in docs.iter().enumerate() {
            ix.add(i as u32, [*d]);
        }
        ix
    }

    fn ranked(ix: &TextIndex, q: &str) -> Vec<(u32, f64)> {
        let mut s = Scratch::default();
        ix.score(&ix.query(q), &mut s);
        let mut v: Vec<(u32, f64)> = s.drain().collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        v
    }

    #[test]
    fn stems_and_drops_stop_words() {
        let ix = TextIndex::default();
        assert_eq!(
            ix.tokenize("The Passwords are hashed"),
            vec!["password", "hash"]
        );
    }

    #[test]
    fn bm25_matches_hand_computation() {
        let docs = [
            "bcrypt password hashing",
            "argon2 password",
            "jwt tokens expire",
        ];
        let ix = index(&docs);
        // "bcrypt": df 1 of N 3 → idf = ln(1 + 2.5/1.5); lengths as the tokenizer counts them.
        let lens: Vec<f64> = docs.iter().map(|d| ix.tokenize(d).len() as f64).collect();
        assert_eq!(lens, vec![3.0, 2.0, 3.0]);
        let idf = (1.0f64 + 2.5 / 1.5).ln();
        let dl = lens[0];
        let avgdl = lens.iter().sum::<f64>() / 3.0;
        let expect = idf * 2.2 / (1.0 + 1.2 * (0.25 + 0.75 * dl / avgdl));
        let got = ranked(&ix, "bcrypt");
        assert_eq!(got.len(), 1);
        assert!(
            (got[0].1 - expect).abs() < 1e-12,
            "{} vs {expect}",
            got[0].1
        );
    }

    #[test]
    fn rarer_terms_and_shorter_docs_rank_higher() {
        let ix = index(&[
            "password hashing chosen for the auth service login flow today",
            "password hashing",
            "tokens",
        ]);
        let r = ranked(&ix, "password hashing");
        assert_eq!(r.iter().map(|x| x.0).collect::<Vec<_>>(), vec![1, 0]);
        assert!(ranked(&ix, "nothing-here").is_empty());
        assert!(ranked(&ix, "").is_empty());
    }

    #[test]
    fn chunked_tokenizing_equals_whole_text_tokenizing() {
        let texts = [
            "Chose bcrypt over argon2 for password-hashing; don't use MD5!",
            "POST /auth/login returns {token, expires_at} — JWT (RS256)",
            "Café naïve résumé Ångström 中文 日本語 x² ½ e.g. i.e. U.S.A.",
            "tabs\tand\nnewlines\u{a0}nbsp  double  spaces",
            "it's the users' cache: 3.14 v1.2.3 foo_bar foo-bar CamelCase",
            "",
            "   ",
        ];
        for t in texts {
            let mut ix = TextIndex::default();
            let ids = ix.term_ids([t]);
            let names: Vec<&str> = ids
                .iter()
                .map(|id| {
                    ix.terms
                        .iter()
                        .find(|(_, v)| **v == *id)
                        .unwrap()
                        .0
                        .as_ref()
                })
                .collect();
            assert_eq!(names, ix.tokenize(t), "{t:?}");
        }
    }

    #[test]
    fn scratch_is_clean_between_queries() {
        let ix = index(&["alpha beta", "beta gamma"]);
        let mut s = Scratch::default();
        ix.score(&ix.query("beta"), &mut s);
        let first: Vec<_> = s.drain().collect();
        ix.score(&ix.query("beta"), &mut s);
        let second: Vec<_> = s.drain().collect();
        assert_eq!(first, second);
    }
}
