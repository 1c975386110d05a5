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
use super::walk::Walk;
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
pub(super) struct TopK<'a> {
    heap: BinaryHeap<Ranked<'a>>,
    limit: usize,
    cmp: &'a dyn Fn(&SearchHit, &SearchHit) -> Ordering,
}

impl<'a> TopK<'a> {
    pub(super) fn new(
        limit: usize,
        cmp: &'a dyn Fn(&SearchHit, &SearchHit) -> Ordering,
    ) -> TopK<'a> {
        TopK {
            heap: BinaryHeap::with_capacity(limit + 1),
            limit,
            cmp,
        }
    }

    pub(super) fn is_full(&self) -> bool {
        self.heap.len() == self.limit
    }

    /// The worst kept score, once `limit` hits are kept.
    pub(super) fn threshold(&self) -> Option<f64> {
        self.heap
            .peek()
            .filter(|_| self.is_full())
            .map(|w| w.hit.score)
    }

    /// Considers the entry at `pos` of `ix` with relevance `bm25` (its time and kind are
    /// read only if it can enter).
    pub(super) fn offer(&mut self, ix: &LedgerIndex, pos: u32, bm25: f64, scorer: &Scorer) {
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
    pub(super) fn into_sorted(self) -> Vec<SearchHit> {
        let mut hits: Vec<SearchHit> = self.heap.into_iter().map(|r| r.hit).collect();
        hits.sort_unstable_by(self.cmp);
        hits
    }
}

/// Searches touching more postings than this are pruned; smaller ones look at every
/// matching entry and count every match exactly. Since the pruned walk bounds candidates
/// from length codes and merges or gallops its lists, it beats the exhaustive loop well
/// below the 20,000 this was (1M mix p50 −17 %, 100k −25 %); 5,000 keeps exact totals for
/// the searches of a project of some ten thousand entries.
pub const PRUNE_ABOVE: usize = 5_000;

/// The seed's decay: `exp(−ln 2 × age_hours / half_life_hours)`.
pub fn decay(age_hours: f64, half_life_hours: f64) -> f64 {
    (-std::f64::consts::LN_2 * age_hours / half_life_hours).exp()
}

impl LedgerIndex {
    /// Search order: higher score first, then newer first.
    pub(super) fn hit_order(&self, a: &SearchHit, b: &SearchHit) -> Ordering {
        b.score
            .total_cmp(&a.score)
            .then_with(|| self.newer_first(a.pos, b.pos))
    }

    /// True if the entry at `pos` passes `filter`, tags included; read from its slot when
    /// that decides (4 bytes per entry, where [`super::Meta`] has 32).
    pub(super) fn passes(&self, filter: &Compiled, pos: u32) -> bool {
        let other = if filter.slot_decides {
            filter.matches_slot(self.slot(pos))
        } else {
            filter.matches_meta(self.meta(pos))
        };
        other && (filter.tags.is_none() || filter.matches_tags(self.tags_of(pos)))
    }

    /// True if the entry at `pos` passes `filter` (for rankings beside the text index's,
    /// such as the semantic one).
    pub fn passes_filter(&self, filter: &Compiled, pos: u32) -> bool {
        self.passes(filter, pos)
    }

    /// The hit for the entry at `pos` with relevance `relevance`, timed by `scorer`.
    pub fn hit_at(&self, pos: u32, relevance: f64, scorer: &Scorer) -> SearchHit {
        SearchHit::at(self, pos, relevance, scorer)
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
