//! Walking one term's postings list: its length, its bounds over a range of postings
//! (from [`crate::bounds`]), its blocks, and seeking back through it to a document — what
//! search and its pruned walk ([`crate::walk`]) ask of a list.

use crate::inverted::{QueryTerm, Scoring, TextIndex};
use crate::postings::List;

/// In `list[..end]`, ascending by document: how many postings are of documents `≤ doc`,
/// galloping back from `end`.
#[inline]
fn gallop_back(list: List<'_>, end: usize, doc: u32) -> usize {
    let le = |i: usize| list.doc(i) <= doc;
    if end == 0 || le(end - 1) {
        return end;
    }
    let mut hi = end - 1; // list.doc(hi) > doc
    let mut step = 1;
    loop {
        let lo = hi.saturating_sub(step);
        if lo == 0 || le(lo) {
            return lo + list.count_le(lo, hi + 1, doc);
        }
        hi = lo;
        step *= 2;
    }
}

impl TextIndex {
    /// The largest score term `q` can give the documents of its postings `from..to`
    /// (block-max: on part of a long list, tighter than the whole list's bound).
    pub fn range_bound(&self, q: &QueryTerm, from: usize, to: usize, scoring: Scoring) -> f64 {
        if from >= to {
            return 0.0;
        }
        match self.postings.slot(q.term) {
            Some(m) => self.bounds.range(q, m, from, to, scoring),
            None => {
                // A list of one posting, which has no tables of its own.
                let p = self.postings.list(q.term).get(0);
                self.bounds
                    .single(q, &p, &self.docs[p.doc as usize], scoring)
            }
        }
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
        let le = |i: usize| list.doc(i) <= doc;
        if end == 0 || le(end - 1) {
            return end;
        }
        let mut hi = end - 1; // list.doc(hi) > doc
        for step in [1, 2, 4] {
            let lo = hi.saturating_sub(step);
            if lo == 0 || le(lo) {
                return lo + list.count_le(lo, hi + 1, doc);
            }
            hi = lo;
        }
        let span = u64::from(list.doc(list.len() - 1) - list.doc(0)) + 1;
        let back = u64::from(list.doc(hi) - doc) * list.len() as u64 / span;
        let g = hi.saturating_sub(usize::try_from(back).unwrap_or(usize::MAX).max(1));
        if !le(g) {
            return gallop_back(list, g, doc);
        }
        // The guess is at or before the answer: gallop forward from it.
        let (mut lo, mut step) = (g, 1); // list.doc(lo) <= doc < list.doc(hi)
        loop {
            let next = (lo + step).min(hi);
            if next == hi || !le(next) {
                return lo + 1 + list.count_le(lo + 1, next, doc);
            }
            lo = next;
            step *= 2;
        }
    }

    /// The first posting of the block holding posting `i` (blocks of [`TextIndex::range_bound`]).
    pub fn block_start(&self, i: usize) -> usize {
        i & !(crate::bounds::BLOCK - 1)
    }

    /// True if document `doc` contains term `q` (a binary search of its list).
    pub fn has(&self, q: &QueryTerm, doc: u32) -> bool {
        self.postings.list(q.term).find(doc).is_some()
    }

    /// The document of posting `i` of `q`'s list, if any.
    pub fn doc_at(&self, q: &QueryTerm, i: usize) -> Option<u32> {
        let list = self.postings.list(q.term);
        (i < list.len()).then(|| list.doc(i))
    }
}
