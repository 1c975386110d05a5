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

    /// Considers the entry at `pos` with relevance `bm25`.
    fn offer(&mut self, pos: u32, m: &super::Meta, bm25: f64, scorer: &Scorer) {
        if self.threshold().is_some_and(|worst| bm25 < worst) {
            return;
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

/// Searches touching more postings than this are pruned (MaxScore); smaller ones score
/// every posting and count every match exactly.
pub const PRUNE_ABOVE: usize = 20_000;

/// The seed's decay: `exp(−ln 2 × age_hours / half_life_hours)`.
pub fn decay(age_hours: f64, half_life_hours: f64) -> f64 {
    (-std::f64::consts::LN_2 * age_hours / half_life_hours).exp()
}

impl LedgerIndex {
    /// Search order: higher score first, then newer first.
    fn hit_order(&self, a: &SearchHit, b: &SearchHit) -> Ordering {
        b.score
            .total_cmp(&a.score)
            .then_with(|| self.newer_first(a.pos, b.pos))
    }

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
        self.search_tuned(text, filter, limit, scorer, scratch, PRUNE_ABOVE)
    }

    /// [`LedgerIndex::search`], pruning when more than `prune_above` postings would be
    /// scored (tests compare both paths).
    #[doc(hidden)]
    pub fn search_tuned(
        &self,
        text: &str,
        filter: &Compiled,
        limit: usize,
        scorer: &Scorer,
        scratch: &mut Scratch,
        prune_above: usize,
    ) -> SearchResult {
        let terms = self.text.query(text);
        let work: usize = terms.iter().map(|q| self.text.postings_len(q)).sum();
        if work > prune_above && !terms.is_empty() {
            return self.search_pruned(text, &terms, filter, limit, scorer);
        }
        self.text.score(&terms, scorer.ranking.scoring(), scratch);
        let cmp = |a: &SearchHit, b: &SearchHit| self.hit_order(a, b);
        let mut top = TopK::new(limit, &cmp);
        let mut total = 0;
        for (pos, bm25) in scratch.drain() {
            let m = self.meta(pos);
            if !filter.matches_meta(m)
                || (filter.tags.is_some() && !filter.matches_tags(self.tags_of(pos)))
            {
                continue;
            }
            total += 1;
            top.offer(pos, m, bm25, scorer);
        }
        SearchResult {
            hits: top.into_sorted(),
            total,
            total_exact: true,
            terms: self.text.tokenize(text),
        }
    }
}

impl LedgerIndex {
    /// Top-k search that skips documents which cannot reach the k-th score (MaxScore):
    /// terms are split into "essential" lists, whose union is enumerated, and the rest,
    /// probed only while their upper bounds could still lift a document over the
    /// threshold. The time factor is at most 1, so a BM25 bound bounds the final score.
    /// Scores are summed in the query's term order, as the exhaustive path does, so the
    /// hits are identical. `total` counts the documents looked at (a lower bound).
    fn search_pruned(
        &self,
        text: &str,
        terms: &[super::text::QueryTerm],
        filter: &Compiled,
        limit: usize,
        scorer: &Scorer,
    ) -> SearchResult {
        let scoring = scorer.ranking.scoring();
        let t = &self.text;
        let norms = t.norms();
        // Terms by bound, ascending; `order[j]` is an index into `terms`.
        let bounds: Vec<f64> = terms.iter().map(|q| t.upper_bound(q, scoring)).collect();
        let mut order: Vec<usize> = (0..terms.len()).collect();
        order.sort_by(|&a, &b| bounds[a].total_cmp(&bounds[b]));
        let prefix: Vec<f64> = order
            .iter()
            .scan(0.0, |acc, &j| {
                *acc += bounds[j];
                Some(*acc)
            })
            .collect();
        // Newest first (postings are in position order, walked from the end): recent
        // entries have the largest time factors, so the threshold rises fastest.
        // `cursor[j]` is how many of term j's postings are not yet passed.
        let mut cursor: Vec<usize> = terms.iter().map(|q| t.postings_len(q)).collect();
        let current = |j: usize, cursor: &[usize]| -> Option<u32> {
            cursor[j]
                .checked_sub(1)
                .and_then(|i| t.doc_at(&terms[j], i))
        };
        let cmp = |a: &SearchHit, b: &SearchHit| self.hit_order(a, b);
        let mut top = TopK::new(limit, &cmp);
        let mut total = 0;
        let mut theta = f64::NEG_INFINITY;
        // Terms order[..first_essential] are non-essential.
        let mut first_essential = 0;
        let mut contrib = vec![0.0f64; terms.len()];
        // The next candidate: the largest document among essential lists.
        while let Some(doc) = order[first_essential..]
            .iter()
            .filter_map(|&j| current(j, &cursor))
            .max()
        {
            contrib.iter_mut().for_each(|c| *c = 0.0);
            let mut partial = 0.0;
            for &j in &order[first_essential..] {
                if current(j, &cursor) == Some(doc) {
                    cursor[j] -= 1;
                    contrib[j] = t.term_score(&terms[j], cursor[j], scoring, norms);
                    partial += contrib[j];
                }
            }
            let m = self.meta(doc);
            if !filter.matches_meta(m)
                || (filter.tags.is_some() && !filter.matches_tags(self.tags_of(doc)))
            {
                continue;
            }
            if partial > 0.0 {
                total += 1;
            }
            // Non-essential terms, largest bound first, while they could still matter.
            let mut alive = true;
            for k in (0..first_essential).rev() {
                if partial + prefix[k] < theta {
                    alive = false;
                    break;
                }
                let j = order[k];
                cursor[j] = t.seek_back(&terms[j], cursor[j], doc);
                if current(j, &cursor) == Some(doc) {
                    contrib[j] = t.term_score(&terms[j], cursor[j] - 1, scoring, norms);
                    partial += contrib[j];
                }
            }
            if !alive || (top.is_full() && partial < theta) {
                continue;
            }
            // The exact score, summed in the query's term order like the exhaustive path.
            let mut bm25 = 0.0;
            for c in &contrib {
                if *c != 0.0 {
                    bm25 += c;
                }
            }
            if bm25 == 0.0 {
                continue;
            }
            top.offer(doc, m, bm25, scorer);
            if let Some(worst) = top.threshold()
                && worst > theta
            {
                theta = worst;
                while first_essential < order.len() && prefix[first_essential] < theta {
                    first_essential += 1;
                }
            }
        }
        SearchResult {
            hits: top.into_sorted(),
            total,
            total_exact: false,
            terms: self.text.tokenize(text),
        }
    }
}
