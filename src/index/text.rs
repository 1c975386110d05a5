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

use std::collections::HashMap;

use bm25::{DefaultTokenizer, Language, Tokenizer};

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
}

/// Postings index over `summary + tags` of every entry.
pub struct TextIndex {
    tokenizer: DefaultTokenizer,
    terms: HashMap<Box<str>, u32>,
    postings: Vec<Vec<Posting>>,
    doc_len: Vec<u32>,
    total_len: u64,
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
            terms: HashMap::new(),
            postings: Vec::new(),
            doc_len: Vec::new(),
            total_len: 0,
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

    /// Indexes `text` as document `doc`, which must be the next document number.
    pub fn add(&mut self, doc: u32, text: &str) {
        assert_eq!(
            doc as usize,
            self.doc_len.len(),
            "documents are added in order"
        );
        let tokens = self.tokenizer.tokenize(text);
        let mut counts: HashMap<&str, u32> = HashMap::with_capacity(tokens.len());
        for t in &tokens {
            *counts.entry(t.as_str()).or_default() += 1;
        }
        // Sorted so that postings are built in the same order on every run.
        let mut counts: Vec<(&str, u32)> = counts.into_iter().collect();
        counts.sort_unstable();
        for (term, tf) in counts {
            let id = match self.terms.get(term) {
                Some(&id) => id,
                None => {
                    let id = self.postings.len() as u32;
                    self.terms.insert(term.into(), id);
                    self.postings.push(Vec::new());
                    id
                }
            };
            self.postings[id as usize].push(Posting { doc, tf });
        }
        self.doc_len.push(tokens.len() as u32);
        self.total_len += tokens.len() as u64;
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
        postings + terms + self.doc_len.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(docs: &[&str]) -> TextIndex {
        let mut ix = TextIndex::default();
        for (i, d) in docs.iter().enumerate() {
            ix.add(i as u32, d);
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
