//! The kept hits of a search, a leaf of the index: one hit with the parts of its score,
//! the seed's decay, and the best `k` so far in a heap whose top is the worst kept hit —
//! what the exhaustive search ([`crate::search`]) and the pruned walk ([`crate::walk`])
//! both fill, and which needs neither.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::{LedgerIndex, Scorer};
use warroom_base::clock::Timestamp;

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
    pub(crate) fn at(ix: &LedgerIndex, pos: u32, bm25: f64, scorer: &Scorer) -> SearchHit {
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
pub(crate) struct TopK<'a> {
    heap: BinaryHeap<Ranked<'a>>,
    limit: usize,
    cmp: &'a dyn Fn(&SearchHit, &SearchHit) -> Ordering,
}

impl<'a> TopK<'a> {
    pub(crate) fn new(
        limit: usize,
        cmp: &'a dyn Fn(&SearchHit, &SearchHit) -> Ordering,
    ) -> TopK<'a> {
        TopK {
            heap: BinaryHeap::with_capacity(limit + 1),
            limit,
            cmp,
        }
    }

    pub(crate) fn is_full(&self) -> bool {
        self.heap.len() == self.limit
    }

    /// The worst kept score, once `limit` hits are kept.
    pub(crate) fn threshold(&self) -> Option<f64> {
        self.heap
            .peek()
            .filter(|_| self.is_full())
            .map(|w| w.hit.score)
    }

    /// Considers the entry at `pos` of `ix` with relevance `bm25` (its time and kind are
    /// read only if it can enter).
    pub(crate) fn offer(&mut self, ix: &LedgerIndex, pos: u32, bm25: f64, scorer: &Scorer) {
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
    pub(crate) fn into_sorted(self) -> Vec<SearchHit> {
        let mut hits: Vec<SearchHit> = self.heap.into_iter().map(|r| r.hit).collect();
        hits.sort_unstable_by(self.cmp);
        hits
    }
}

/// The seed's decay: `exp(−ln 2 × age_hours / half_life_hours)`.
pub fn decay(age_hours: f64, half_life_hours: f64) -> f64 {
    (-std::f64::consts::LN_2 * age_hours / half_life_hours).exp()
}
