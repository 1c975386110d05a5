//! Query (filtered, newest first) and search (relevance × a time factor from the per-kind
//! decay, see [`super::Ranking`]) over the index.
//!
//! Both are deterministic for the same ledger and the same *now*: newest first means
//! (ts descending, then later in the file first); search ties are broken the same way after
//! the score.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::text::Scratch;
use super::{Compiled, LedgerIndex, Scorer};
use crate::clock::Timestamp;

/// Positions of matching entries, newest first, and how many matched in all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryResult {
    /// At most `limit` positions, newest first.
    pub positions: Vec<u32>,
    /// Every matching entry, counted.
    pub total: usize,
}

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

/// Search hits, best first, and how many entries matched in all.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResult {
    /// At most `limit` hits, best first.
    pub hits: Vec<SearchHit>,
    /// Every matching entry (BM25 > 0 and passing the filter), counted.
    pub total: usize,
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

/// Merges ascending position lists into one descending sequence without duplicates.
fn merge_descending<'a>(lists: &'a [&'a [u32]]) -> impl Iterator<Item = u32> + 'a {
    let mut ends: Vec<usize> = lists.iter().map(|l| l.len()).collect();
    let mut last = u32::MAX;
    std::iter::from_fn(move || {
        loop {
            let (i, p) = ends
                .iter()
                .enumerate()
                .filter(|&(_, &e)| e > 0)
                .map(|(i, &e)| (i, lists[i][e - 1]))
                .max_by_key(|&(_, p)| p)?;
            ends[i] -= 1;
            if p != last {
                last = p;
                return Some(p);
            }
        }
    })
}

/// The seed's decay: `exp(−ln 2 × age_hours / half_life_hours)`.
pub fn decay(age_hours: f64, half_life_hours: f64) -> f64 {
    (-std::f64::consts::LN_2 * age_hours / half_life_hours).exp()
}

impl LedgerIndex {
    fn newer_first(&self, a: u32, b: u32) -> Ordering {
        let (ma, mb) = (self.meta(a), self.meta(b));
        mb.ts.cmp(&ma.ts).then(b.cmp(&a))
    }

    /// Entries passing `filter`, newest first, at most `limit`, with the total count.
    pub fn query(&self, filter: &Compiled, limit: usize) -> QueryResult {
        match &filter.tags {
            Some(want) => {
                let lists: Vec<&[u32]> = want
                    .iter()
                    .filter_map(|t| self.tag_postings.get(t).map(Vec::as_slice))
                    .collect();
                if self.in_time_order() {
                    // Newest first is descending position: merge the postings from the end.
                    return self.page(filter, merge_descending(&lists), limit);
                }
                let mut cands: Vec<u32> = lists
                    .iter()
                    .flat_map(|l| l.iter().copied())
                    .filter(|&p| filter.matches_meta(self.meta(p)))
                    .collect();
                cands.sort_unstable_by(|&a, &b| self.newer_first(a, b));
                cands.dedup();
                let total = cands.len();
                cands.truncate(limit);
                QueryResult {
                    positions: cands,
                    total,
                }
            }
            None => {
                let chrono = self.chrono();
                let lo = chrono.partition_point(|&p| self.meta(p).ts < filter.since);
                let hi = chrono.partition_point(|&p| self.meta(p).ts <= filter.until);
                self.page(filter, chrono[lo..hi.max(lo)].iter().rev().copied(), limit)
            }
        }
    }

    /// The first `limit` of `newest_first` passing `filter`, counting every match — or,
    /// when the total is known from the live counts, stopping as soon as the page is full.
    fn page(
        &self,
        filter: &Compiled,
        newest_first: impl Iterator<Item = u32>,
        limit: usize,
    ) -> QueryResult {
        let known = filter.count_from_totals(self);
        let mut positions = Vec::with_capacity(limit.min(64));
        let mut total = 0;
        for p in newest_first {
            if filter.matches_meta(self.meta(p)) {
                total += 1;
                if positions.len() < limit {
                    positions.push(p);
                } else if known.is_some() {
                    break;
                }
            }
        }
        QueryResult {
            positions,
            total: known.unwrap_or(total),
        }
    }

    /// Full-text search, ranked by `scorer`.
    pub fn search(
        &self,
        text: &str,
        filter: &Compiled,
        limit: usize,
        scorer: &Scorer,
        scratch: &mut Scratch,
    ) -> SearchResult {
        let terms = self.text.query(text);
        self.text.score(&terms, scorer.ranking.scoring(), scratch);
        let cmp = |a: &SearchHit, b: &SearchHit| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| self.newer_first(a.pos, b.pos))
        };
        // Keep the best `limit` in a heap whose top is the worst kept hit. The time factor is
        // at most 1, so a hit whose BM25 alone is below the worst kept score cannot enter: it
        // is counted but its decay (an `exp`) is never computed.
        let mut heap: BinaryHeap<Ranked<'_>> = BinaryHeap::with_capacity(limit + 1);
        let mut total = 0;
        for (pos, bm25) in scratch.drain() {
            let m = self.meta(pos);
            if !filter.matches_meta(m)
                || (filter.tags.is_some() && !filter.matches_tags(&self.stored(pos).tags))
            {
                continue;
            }
            total += 1;
            if heap.len() == limit && heap.peek().is_some_and(|w| bm25 < w.hit.score) {
                continue;
            }
            let age_hours = Timestamp(m.ts).age_hours(scorer.now);
            let decay = decay(age_hours, scorer.half_lives[m.kind.index()]);
            let time_factor = scorer.ranking.time_factor(decay);
            let hit = SearchHit {
                pos,
                score: bm25 * time_factor,
                bm25,
                decay,
                time_factor,
                age_hours,
            };
            if heap.len() < limit {
                heap.push(Ranked { hit, cmp: &cmp });
            } else if let Some(mut worst) = heap.peek_mut()
                && cmp(&hit, &worst.hit) == Ordering::Less
            {
                worst.hit = hit;
            }
        }
        let mut hits: Vec<SearchHit> = heap.into_iter().map(|r| r.hit).collect();
        hits.sort_unstable_by(cmp);
        SearchResult {
            hits,
            total,
            terms: self.text.tokenize(text),
        }
    }
}
