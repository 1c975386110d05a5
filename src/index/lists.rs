//! Walking one term's postings list: its length, its bounds over a range of postings
//! (from [`super::bounds`]), its blocks, and seeking back through it to a document — what
//! search and its pruned walk ([`super::walk`]) ask of a list.

use super::text::{Posting, QueryTerm, Scoring, TextIndex};

/// In `list[..end]`, ascending by document: how many postings are of documents `≤ doc`,
/// galloping back from `end`.
#[inline]
fn gallop_back(list: &[Posting], end: usize, doc: u32) -> usize {
    let le = |p: &Posting| p.doc <= doc;
    if end == 0 || le(&list[end - 1]) {
        return end;
    }
    let mut hi = end - 1; // list[hi].doc > doc
    let mut step = 1;
    loop {
        let lo = hi.saturating_sub(step);
        if lo == 0 || le(&list[lo]) {
            return lo + list[lo..=hi].partition_point(le);
        }
        hi = lo;
        step *= 2;
    }
}

impl TextIndex {
    /// The largest score term `q` can give the documents of its postings `from..to`
    /// (block-max: on part of a long list, tighter than the whole list's bound).
    pub fn range_bound(&self, q: &QueryTerm, from: usize, to: usize, scoring: Scoring) -> f64 {
        self.bounds.range(q, from, to, scoring)
    }

    /// Number of documents containing term `q`.
    pub fn postings_len(&self, q: &QueryTerm) -> usize {
        self.postings.list(q.term).len()
    }

    /// Walking `q`'s list from the end: the number of its first postings whose document
    /// is `≤ doc`, looking only below `end`. Most seeks move a few postings, so the first
    /// looks are a few postings back; a seek farther guesses the position from the list's
    /// mean gap between documents and gallops from the guess (~8 looks for a seek of 100
    /// postings, where galloping from `end` takes ~14).
    #[inline]
    pub fn seek_back(&self, q: &QueryTerm, end: usize, doc: u32) -> usize {
        let list = self.postings.list(q.term);
        let le = |p: &Posting| p.doc <= doc;
        if end == 0 || le(&list[end - 1]) {
            return end;
        }
        let mut hi = end - 1; // list[hi].doc > doc
        for step in [1, 2, 4] {
            let lo = hi.saturating_sub(step);
            if lo == 0 || le(&list[lo]) {
                return lo + list[lo..=hi].partition_point(le);
            }
            hi = lo;
        }
        let span = u64::from(list[list.len() - 1].doc - list[0].doc) + 1;
        let back = u64::from(list[hi].doc - doc) * list.len() as u64 / span;
        let g = hi.saturating_sub(usize::try_from(back).unwrap_or(usize::MAX).max(1));
        if !le(&list[g]) {
            return gallop_back(list, g, doc);
        }
        // The guess is at or before the answer: gallop forward from it.
        let (mut lo, mut step) = (g, 1); // list[lo].doc <= doc < list[hi].doc
        loop {
            let next = (lo + step).min(hi);
            if next == hi || !le(&list[next]) {
                return lo + 1 + list[lo + 1..next].partition_point(le);
            }
            lo = next;
            step *= 2;
        }
    }

    /// The first posting of the block holding posting `i` (blocks of [`TextIndex::range_bound`]).
    pub fn block_start(&self, i: usize) -> usize {
        i & !(super::bounds::BLOCK - 1)
    }

    /// True if document `doc` contains term `q` (a binary search of its list).
    pub fn has(&self, q: &QueryTerm, doc: u32) -> bool {
        let list = self.postings.list(q.term);
        let i = list.partition_point(|p| p.doc < doc);
        list.get(i).is_some_and(|p| p.doc == doc)
    }

    /// The document of posting `i` of `q`'s list, if any.
    pub fn doc_at(&self, q: &QueryTerm, i: usize) -> Option<u32> {
        self.postings.list(q.term).get(i).map(|p| p.doc)
    }
}
