//! Adding documents to the full-text index ([`TextIndex`]): terms interned in first-use
//! order, chunks looked up in the tokenizer cache, postings appended, and the bulk load
//! that bounds postings once at its end. Every entry's text reaches the index here, from
//! [`crate::LedgerIndex::apply`] directly or through a first read's lexing and posting
//! threads ([`crate::inverted_job`]), in two halves: [`Lexer`] and [`TextIndex::post`].

use crate::chunks::{CACHED_CHUNK_MAX, Chunk, ChunkCache, Cut};
use crate::inverted::{Doc, Posting, TextIndex};
use crate::postings::Pushed;
use crate::tokens::Tokens;
use crate::vocab::Vocab;

/// The tokenizing half of adding a document: chunks to term ids through the chunk cache,
/// new terms given the next ids. The other half ([`TextIndex::post`]) appends postings.
/// They share nothing but the ids, so a first read runs them on two threads
/// ([`crate::inverted_job`]); the per-term tables of the posting half grow to the vocabulary's
/// size as ids arrive ([`TextIndex::grow_terms`]).
pub(crate) struct Lexer<'a> {
    pub(crate) tokens: &'a Tokens,
    pub(crate) terms: &'a mut Vocab,
    pub(crate) chunks: &'a mut ChunkCache,
}

impl Lexer<'_> {
    fn intern(&mut self, term: &str) -> u32 {
        self.terms.intern(term)
    }

    fn intern_chunk(&mut self, chunk: &str, out: &mut Vec<u32>) {
        let mut toks = Vec::new();
        self.tokens.chunk(chunk, &mut toks);
        for t in toks {
            out.push(self.intern(&t));
        }
    }

    /// Appends the term ids of `chunk` (whose [`chunks::hash`] is `hash`) to `out`, in
    /// order, through the chunk cache.
    pub(crate) fn chunk_ids(&mut self, chunk: &str, hash: u64, out: &mut Vec<u32>) {
        if chunk.len() > CACHED_CHUNK_MAX {
            // Long chunks (URLs, hashes) rarely repeat; tokenize without caching.
            return self.intern_chunk(chunk, out);
        }
        if let Some(id) = self.chunks.hot_get(hash, chunk) {
            out.extend(id);
            return;
        }
        let start = out.len();
        if let Some(ids) = self.chunks.get(hash, chunk) {
            out.extend_from_slice(ids);
            self.chunks.hot_put(hash, chunk, &out[start..]);
            return;
        }
        // The ids are read back from `out`, not copied: no allocation a chunk.
        self.intern_chunk(chunk, out);
        self.chunks.insert(hash, chunk, &out[start..]);
        self.chunks.hot_put(hash, chunk, &out[start..]);
    }

    /// Appends the term ids of an entry's four fields (`fields`, chunks of `cut`) to
    /// `ids`; `ends[f]` is where field `f`'s ids end.
    pub(crate) fn entry_ids(
        &mut self,
        cut: &Cut,
        fields: [&[Chunk]; 4],
        ids: &mut Vec<u32>,
        ends: &mut [usize; 4],
    ) {
        for (field, chunks) in fields.into_iter().enumerate() {
            for c in chunks {
                self.chunk_ids(cut.text(c), c.hash, ids);
            }
            ends[field] = ids.len();
        }
    }
}

impl TextIndex {
    /// The tokenizing half of this index ([`Lexer`]).
    pub(crate) fn lexer(&mut self) -> Lexer<'_> {
        Lexer {
            tokens: &self.tokens,
            terms: &mut self.terms,
            chunks: &mut self.chunks,
        }
    }

    /// Appends the term ids of `chunk` to `out`, as [`Lexer::chunk_ids`] (the per-term
    /// tables grown to match).
    #[cfg(test)]
    pub(crate) fn chunk_ids(&mut self, chunk: &str, hash: u64, out: &mut Vec<u32>) {
        self.lexer().chunk_ids(chunk, hash, out);
        self.grow_terms(self.terms.len());
    }

    /// Gives the per-term tables of the posting half room for terms up to `n` (ids are
    /// dense and given in order, so a new id is always the next).
    pub(crate) fn grow_terms(&mut self, n: usize) {
        while self.postings.len() < n {
            self.postings.push_term();
        }
    }

    /// Reserves room for about `n` more documents.
    pub fn reserve(&mut self, n: usize) {
        self.docs.reserve(n);
        self.norms.reserve(n);
    }

    /// Indexes one entry as document `doc`, which must be the next document number.
    pub fn add<'t>(
        &mut self,
        doc: u32,
        summary: &str,
        tags: impl IntoIterator<Item = &'t str>,
        detail: &str,
        ref_: &str,
    ) {
        let mut cut = std::mem::take(&mut self.cut);
        cut.clear();
        cut.push(doc, summary, tags, detail, ref_);
        self.add_cut(&cut);
        self.cut = cut;
    }

    /// Indexes every entry of `cut`, in its order (each must be the next document).
    pub(crate) fn add_cut(&mut self, cut: &Cut) {
        for i in 0..cut.len() {
            let (doc, fields) = cut.entry(i);
            self.add_fields(doc, cut, fields);
        }
    }

    fn add_fields(&mut self, doc: u32, cut: &Cut, fields: [&[Chunk]; 4]) {
        let mut ids = std::mem::take(&mut self.ids);
        ids.clear();
        let mut ends = [0; 4];
        self.lexer().entry_ids(cut, fields, &mut ids, &mut ends);
        self.grow_terms(self.terms.len());
        self.post(doc, &ids, ends);
        self.ids = ids;
    }

    /// The posting half of adding document `doc` (the next one): `ids` are its term ids,
    /// field `f`'s ending at `ends[f]`, every id below the per-term tables' length.
    pub(crate) fn post(&mut self, doc: u32, ids: &[u32], ends: [usize; 4]) {
        assert_eq!(
            doc as usize,
            self.docs.len(),
            "documents are added in order"
        );
        // (term, field) pairs of the whole entry.
        let mut pairs = std::mem::take(&mut self.pairs);
        pairs.clear();
        let mut lens = [0u16; 4];
        let mut start = 0;
        for (field, &end) in ends.iter().enumerate() {
            lens[field] = u16::try_from(end - start).unwrap_or(u16::MAX);
            pairs.extend(ids[start..end].iter().map(|&t| (t, field as u8)));
            start = end;
        }
        pairs.sort_unstable();
        let mut i = 0;
        while i < pairs.len() {
            let term = pairs[i].0;
            let mut tf = [0u8; 4];
            while i < pairs.len() && pairs[i].0 == term {
                let f = pairs[i].1 as usize;
                tf[f] = tf[f].saturating_add(1);
                i += 1;
            }
            let in_st = u32::from(tf[0] > 0 || tf[1] > 0);
            match self.postings.push(term, Posting { doc, tf }) {
                Pushed::One => {}
                Pushed::Slotted(_) => {
                    // The list's first posting, and this one.
                    let first = self.postings.list(term).get(0);
                    self.df_seed
                        .push(u32::from(first.tf[0] > 0 || first.tf[1] > 0) + in_st);
                    self.bounds.push_slot();
                }
                Pushed::More(m) => self.df_seed[m as usize] += in_st,
            }
        }
        for (total, len) in self.total_len.iter_mut().zip(lens) {
            *total += u64::from(len);
        }
        let doc = Doc {
            st: lens[0].saturating_add(lens[1]),
            detail: lens[2],
            tag: 0,
        };
        self.norms.push(doc.codes());
        self.docs.push(doc);
        if !self.bounds.deferred() {
            let avg = self.averages();
            let mut distinct = pairs.iter().map(|&(t, _)| t).collect::<Vec<_>>();
            distinct.dedup();
            self.bounds
                .after_add(&self.postings, &self.norms, avg, distinct.into_iter());
        }
        self.pairs = pairs;
    }

    /// Starts a bulk load: postings are bounded when it ends ([`TextIndex::end_bulk`]),
    /// each list in one pass, instead of one by one. Nothing may search in between.
    pub fn begin_bulk(&mut self) {
        self.bounds.defer();
    }

    /// Ends [`TextIndex::begin_bulk`]: bounds every list (nothing if no bulk load runs),
    /// once the tokenizer cache has forgotten its cold chunks.
    pub fn end_bulk(&mut self) {
        self.chunks.forget_cold();
        let avg = self.averages();
        self.bounds.settle(&self.postings, &self.norms, avg);
    }
}
