//! Full-text search: relevance (BM25F, or the seed's BM25) × a time factor from the
//! per-kind decay ([`super::Ranking`]), best first; ties newer first.
//!
//! Small searches (at most [`PRUNE_ABOVE`] postings) score every posting into a per-thread
//! accumulator ([`Scratch`]) and count every match exactly: with few postings that tight
//! loop is the fastest way. Larger ones walk the postings of the query's terms document at
//! a time, newest first (postings are in position order and walked from the end), and
//! prune (block-max MaxScore): the walk goes in windows of positions;
//! in each, every term gets a bound from the maxima of its blocks of postings there
//! ([`super::bounds`]). A window whose bounds add up below the k-th score is passed over
//! whole; otherwise the terms are split into "essential" ones, whose documents are
//! enumerated, and the rest, probed only while their bounds could still lift a document
//! over the threshold. The time factor is at most 1, so a BM25 bound bounds the final
//! score. Recent entries have the largest time factors, so the threshold rises fastest
//! when walking newest first. Both ways add a document's term scores in the query's term
//! order, so a search's hits do not depend on which way it ran (a property test holds
//! both to a brute-force reference).
//!
//! Documents are gathered and scored in batches: at a million entries the per-document
//! records outgrow the CPU's caches, and scoring a batch lets the reads of its documents
//! overlap instead of waiting for each in turn.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use std::cell::RefCell;

use super::text::{QueryTerm, Scratch};
use super::{Compiled, LedgerIndex, Scorer};
use crate::clock::Timestamp;

/// One search hit with the parts of its score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchHit {
    /// Position of the entry.
    pub pos: u32,
    /// `bm25 × time_factor`.
    pub score: f64,
    /// Relevance: BM25F over the fields, or the seed's BM25 of summary + tags.
    pub bm25: f64,
    /// The seed's decay `exp(−ln 2 × age_hours / half_life(kind))`.
    pub decay: f64,
    /// What the ranking multiplies relevance by (the decay itself under the seed).
    pub time_factor: f64,
    /// Age of the entry at the server's *now*, in hours (never negative).
    pub age_hours: f64,
}

impl SearchHit {
    /// The hit for the entry at `pos` of `ix` with relevance `bm25`, timed by `scorer`.
    pub(super) fn at(ix: &LedgerIndex, pos: u32, bm25: f64, scorer: &Scorer) -> SearchHit {
        let m = ix.meta(pos);
        let age_hours = Timestamp(m.ts).age_hours(scorer.now);
        let decay = decay(age_hours, scorer.half_lives[m.kind.index()]);
        let time_factor = scorer.ranking.time_factor(decay);
        SearchHit {
            pos,
            score: bm25 * time_factor,
            bm25,
            decay,
            time_factor,
            age_hours,
        }
    }
}

/// Search hits, best first, and how many entries matched in all.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResult {
    /// At most `limit` hits, best first.
    pub hits: Vec<SearchHit>,
    /// Every matching entry (BM25 > 0 and passing the filter), counted — or, when
    /// `total_exact` is false, those the pruned search looked at (a lower bound).
    pub total: usize,
    /// False when the search skipped entries that could not reach the results.
    pub total_exact: bool,
    /// The query's tokens as the index sees them (after stop words and stemming).
    pub terms: Vec<String>,
}

/// A search hit ordered by a comparison where "greater" means "worse", for the top-k heap.
struct Ranked<'a> {
    hit: SearchHit,
    cmp: &'a dyn Fn(&SearchHit, &SearchHit) -> Ordering,
}

impl PartialEq for Ranked<'_> {
    fn eq(&self, other: &Self) -> bool {
        (self.cmp)(&self.hit, &other.hit) == Ordering::Equal
    }
}
impl Eq for Ranked<'_> {}
impl PartialOrd for Ranked<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ranked<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.cmp)(&self.hit, &other.hit)
    }
}

/// The best `limit` hits so far, in a heap whose top is the worst kept hit. The time
/// factor is at most 1, so a hit whose BM25 alone is below the worst kept score cannot
/// enter: its decay (an `exp`) is never computed.
struct TopK<'a> {
    heap: BinaryHeap<Ranked<'a>>,
    limit: usize,
    cmp: &'a dyn Fn(&SearchHit, &SearchHit) -> Ordering,
}

impl<'a> TopK<'a> {
    fn new(limit: usize, cmp: &'a dyn Fn(&SearchHit, &SearchHit) -> Ordering) -> TopK<'a> {
        TopK {
            heap: BinaryHeap::with_capacity(limit + 1),
            limit,
            cmp,
        }
    }

    fn is_full(&self) -> bool {
        self.heap.len() == self.limit
    }

    /// The worst kept score, once `limit` hits are kept.
    fn threshold(&self) -> Option<f64> {
        self.heap
            .peek()
            .filter(|_| self.is_full())
            .map(|w| w.hit.score)
    }

    /// Considers the entry at `pos` of `ix` with relevance `bm25` (its time and kind are
    /// read only if it can enter).
    fn offer(&mut self, ix: &LedgerIndex, pos: u32, bm25: f64, scorer: &Scorer) {
        if self.threshold().is_some_and(|worst| bm25 < worst) {
            return;
        }
        let hit = SearchHit::at(ix, pos, bm25, scorer);
        let cmp = self.cmp;
        if self.heap.len() < self.limit {
            self.heap.push(Ranked { hit, cmp });
        } else if let Some(mut worst) = self.heap.peek_mut()
            && cmp(&hit, &worst.hit) == Ordering::Less
        {
            worst.hit = hit;
        }
    }

    /// The kept hits, best first.
    fn into_sorted(self) -> Vec<SearchHit> {
        let mut hits: Vec<SearchHit> = self.heap.into_iter().map(|r| r.hit).collect();
        hits.sort_unstable_by(self.cmp);
        hits
    }
}

/// Searches touching more postings than this are pruned; smaller ones look at every
/// matching entry and count every match exactly.
pub const PRUNE_ABOVE: usize = 20_000;

/// The seed's decay: `exp(−ln 2 × age_hours / half_life_hours)`.
pub fn decay(age_hours: f64, half_life_hours: f64) -> f64 {
    (-std::f64::consts::LN_2 * age_hours / half_life_hours).exp()
}

/// Documents gathered and scored together.
const BATCH: usize = if cfg!(test) { 3 } else { 64 };
/// "This term's postings do not have the document."
const ABSENT: u32 = u32::MAX;

impl LedgerIndex {
    /// Search order: higher score first, then newer first.
    pub(super) fn hit_order(&self, a: &SearchHit, b: &SearchHit) -> Ordering {
        b.score
            .total_cmp(&a.score)
            .then_with(|| self.newer_first(a.pos, b.pos))
    }

    /// True if the entry at `pos` passes `filter`, tags included; read from its slot when
    /// that decides (4 bytes per entry, where [`super::Meta`] has 32).
    fn passes(&self, filter: &Compiled, pos: u32) -> bool {
        let other = if filter.slot_decides {
            filter.matches_slot(self.slot(pos))
        } else {
            filter.matches_meta(self.meta(pos))
        };
        other && (filter.tags.is_none() || filter.matches_tags(self.tags_of(pos)))
    }

    /// Full-text search, ranked by `scorer`.
    pub fn search(
        &self,
        text: &str,
        filter: &Compiled,
        limit: usize,
        scorer: &Scorer,
    ) -> SearchResult {
        self.search_tuned(text, filter, limit, scorer, PRUNE_ABOVE)
    }

    /// [`LedgerIndex::search`], pruning when more than `prune_above` postings would be
    /// looked at (tests compare both ways).
    #[doc(hidden)]
    pub fn search_tuned(
        &self,
        text: &str,
        filter: &Compiled,
        limit: usize,
        scorer: &Scorer,
        prune_above: usize,
    ) -> SearchResult {
        let terms = self.text.query(text);
        let work: usize = terms.iter().map(|q| self.text.postings_len(q)).sum();
        let prune = work > prune_above;
        let (hits, total) = if prune {
            Walk::new(self, &terms, scorer).run(filter, limit)
        } else {
            self.score_all(&terms, filter, limit, scorer)
        };
        SearchResult {
            hits,
            total,
            total_exact: !prune,
            terms: self.text.tokenize(text),
        }
    }
}

thread_local! {
    /// Per-thread score accumulator (sized to the index on first use), so searches run
    /// side by side.
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

impl LedgerIndex {
    /// Every posting of `terms` scored into the accumulator, every match counted.
    fn score_all(
        &self,
        terms: &[QueryTerm],
        filter: &Compiled,
        limit: usize,
        scorer: &Scorer,
    ) -> (Vec<SearchHit>, usize) {
        SCRATCH.with_borrow_mut(|scratch| {
            self.text.score(terms, scorer.ranking.scoring(), scratch);
            let cmp = |a: &SearchHit, b: &SearchHit| self.hit_order(a, b);
            let mut top = TopK::new(limit, &cmp);
            let mut total = 0;
            for (pos, bm25) in scratch.drain() {
                if self.passes(filter, pos) {
                    total += 1;
                    top.offer(self, pos, bm25, scorer);
                }
            }
            (top.into_sorted(), total)
        })
    }
}

/// The state of one search's walk over the postings of its terms.
struct Walk<'a> {
    ix: &'a LedgerIndex,
    terms: &'a [QueryTerm],
    scorer: &'a Scorer,
    norms: (f64, f64),
    /// Per term: how many of its postings are not yet passed.
    cursor: Vec<usize>,
    /// Terms by their bound in the current window, ascending (indexes into `terms`), and
    /// the running sums of those bounds.
    order: Vec<usize>,
    prefix: Vec<f64>,
    /// Per term: its bound in the current window.
    bound: Vec<f64>,
    /// `order[..first_essential]` are non-essential.
    first_essential: usize,
    /// The score a document must reach to enter (−∞ until `limit` hits are kept).
    theta: f64,
    /// The largest time factor of any entry in the current window (1 unless file order
    /// is time order); BM25 bounds are compared with `theta / tmax`.
    tmax: f64,
    /// The largest half-life of any kind.
    longest_half_life: f64,
}

impl<'a> Walk<'a> {
    fn new(ix: &'a LedgerIndex, terms: &'a [QueryTerm], scorer: &'a Scorer) -> Walk<'a> {
        let n = terms.len();
        Walk {
            ix,
            terms,
            scorer,
            norms: ix.text.norms(),
            cursor: terms.iter().map(|q| ix.text.postings_len(q)).collect(),
            order: (0..n).collect(),
            prefix: vec![0.0; n],
            bound: vec![0.0; n],
            first_essential: 0,
            theta: f64::NEG_INFINITY,
            tmax: 1.0,
            longest_half_life: scorer.half_lives.iter().copied().fold(0.0, f64::max),
        }
    }

    /// The document of term `j`'s next posting, if any.
    fn current(&self, j: usize) -> Option<u32> {
        let i = self.cursor[j].checked_sub(1)?;
        self.ix.text.doc_at(&self.terms[j], i)
    }

    /// What a document's BM25 must reach to enter: the threshold over the window's
    /// largest time factor.
    fn needed(&self) -> f64 {
        self.theta / self.tmax
    }

    /// Term `j`'s score for the posting at `i` of its list.
    fn score(&self, j: usize, i: usize) -> f64 {
        let scoring = self.scorer.ranking.scoring();
        self.ix
            .text
            .term_score(&self.terms[j], i, scoring, self.norms)
    }

    /// The best `limit` hits passing `filter`, and how many matches were looked at.
    fn run(mut self, filter: &Compiled, limit: usize) -> (Vec<SearchHit>, usize) {
        let n = self.terms.len();
        let ix = self.ix;
        let cmp = |a: &SearchHit, b: &SearchHit| ix.hit_order(a, b);
        let mut top = TopK::new(limit, &cmp);
        let mut total = 0;
        let mut below = vec![0usize; n];
        // The batch: its documents, and per document and term the posting index (or
        // ABSENT) and that term's score.
        let mut docs: Vec<u32> = Vec::with_capacity(BATCH);
        let mut post = vec![ABSENT; BATCH * n];
        let mut contrib = vec![0.0f64; BATCH * n];
        while self.cursor.iter().any(|&c| c > 0) {
            let lo = self.window(&mut below);
            loop {
                // Gather the next documents of the essential terms in the window, newest
                // first (only positions are read here).
                let fe = self.first_essential;
                docs.clear();
                while docs.len() < BATCH {
                    let Some(doc) = self.order[fe..]
                        .iter()
                        .filter_map(|&j| self.current(j).filter(|&d| d >= lo))
                        .max()
                    else {
                        break;
                    };
                    let b = docs.len();
                    for k in fe..n {
                        let j = self.order[k];
                        if self.current(j) == Some(doc) {
                            self.cursor[j] -= 1;
                            post[b * n + j] = self.cursor[j] as u32;
                        }
                    }
                    docs.push(doc);
                }
                if docs.is_empty() {
                    break;
                }
                // Score them: independent reads the CPU can overlap.
                for b in 0..docs.len() {
                    for j in 0..n {
                        let i = post[b * n + j];
                        if i != ABSENT {
                            contrib[b * n + j] = self.score(j, i as usize);
                        }
                    }
                }
                for (b, &doc) in docs.iter().enumerate() {
                    let c = &mut contrib[b * n..(b + 1) * n];
                    if !ix.passes(filter, doc) {
                        continue;
                    }
                    let mut partial: f64 = c.iter().sum();
                    if partial > 0.0 {
                        total += 1;
                    }
                    // Non-essential terms (at gathering), largest bound first, while they
                    // could still matter.
                    let mut alive = true;
                    for k in (0..fe).rev() {
                        if partial + self.prefix[k] < self.needed() {
                            alive = false;
                            break;
                        }
                        let j = self.order[k];
                        self.cursor[j] = ix.text.seek_back(&self.terms[j], self.cursor[j], doc);
                        if self.current(j) == Some(doc) {
                            c[j] = self.score(j, self.cursor[j] - 1);
                            partial += c[j];
                        }
                    }
                    if !alive || (top.is_full() && partial < self.needed()) {
                        continue;
                    }
                    // The exact score, summed in the query's term order.
                    let mut bm25 = 0.0;
                    for x in c.iter() {
                        if *x != 0.0 {
                            bm25 += x;
                        }
                    }
                    if bm25 == 0.0 {
                        continue;
                    }
                    top.offer(ix, doc, bm25, self.scorer);
                    self.raise(top.threshold());
                }
                post[..docs.len() * n].fill(ABSENT);
                contrib[..docs.len() * n].fill(0.0);
            }
            // Every term passes the window (the skipped ones without a look).
            for (c, &b) in self.cursor.iter_mut().zip(&below) {
                *c = (*c).min(b);
            }
        }
        (top.into_sorted(), total)
    }

    /// Starts the next window: returns its lowest position, sets `below` (per term, its
    /// postings under the window) and splits the terms by their bounds in the window.
    fn window(&mut self, below: &mut [usize]) -> u32 {
        let (t, n) = (&self.ix.text, self.terms.len());
        // The window ends where the current block of a term essential in the last window
        // starts (only those: a window bounded by every term's blocks would be as short as
        // the densest term's blocks).
        let lo = self.order[self.first_essential.min(n - 1)..]
            .iter()
            .filter_map(|&j| {
                let last = self.cursor[j].checked_sub(1)?;
                t.doc_at(&self.terms[j], t.block_start(last))
            })
            .max()
            .unwrap_or(0);
        // In time order no entry of the window is newer than its last position, and none
        // has a longer half-life than the longest: its time factor is at most this.
        let hi = (0..n).filter_map(|j| self.current(j)).max();
        self.tmax = match hi {
            Some(hi) if self.ix.in_time_order() => {
                let age = Timestamp(self.ix.meta(hi).ts).age_hours(self.scorer.now);
                let f = (self.scorer.ranking).time_factor(decay(age, self.longest_half_life));
                if f > 0.0 { f.min(1.0) } else { 1.0 }
            }
            _ => 1.0,
        };
        let scoring = self.scorer.ranking.scoring();
        for (j, (b, q)) in below.iter_mut().zip(self.terms).enumerate() {
            *b = match lo.checked_sub(1) {
                Some(before) => t.seek_back(q, self.cursor[j], before),
                None => 0,
            };
            self.bound[j] = t.range_bound(q, *b, self.cursor[j], scoring);
        }
        let bound = &self.bound;
        self.order.sort_by(|&a, &b| bound[a].total_cmp(&bound[b]));
        let mut acc = 0.0;
        for (k, &j) in self.order.iter().enumerate() {
            acc += bound[j];
            self.prefix[k] = acc;
        }
        self.first_essential = 0;
        self.raise(None);
        lo
    }

    /// Raises the threshold to `worst` (the k-th kept score) if higher, and moves terms
    /// whose bounds cannot reach it out of the essential ones.
    fn raise(&mut self, worst: Option<f64>) {
        if let Some(w) = worst
            && w > self.theta
        {
            self.theta = w;
        }
        let n = self.terms.len();
        while self.first_essential < n && self.prefix[self.first_essential] < self.needed() {
            self.first_essential += 1;
        }
    }
}
