//! Query: entries passing a filter, newest first — by merging tag postings from the end
//! when file order is time order, else through the time-ordered positions.
//!
//! Deterministic for the same ledger: newest first means ts descending, then later in the
//! file first (the order [`crate::search`] breaks score ties by).

use std::cmp::Ordering;

use crate::{Compiled, LedgerIndex};

/// Positions of matching entries, newest first, and how many matched in all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryResult {
    /// At most `limit` positions, newest first.
    pub positions: Vec<u32>,
    /// Every matching entry, counted.
    pub total: usize,
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

impl LedgerIndex {
    /// Newest first: later `ts` first, then later in the file first.
    pub(crate) fn newer_first(&self, a: u32, b: u32) -> Ordering {
        let (ma, mb) = (self.meta(a), self.meta(b));
        mb.ts.cmp(&ma.ts).then(b.cmp(&a))
    }

    /// The postings of each wanted tag that has any.
    fn tag_lists(&self, want: &std::collections::HashSet<crate::Sym>) -> Vec<&[u32]> {
        want.iter()
            .filter_map(|t| self.tag_postings.get(t).map(Vec::as_slice))
            .collect()
    }

    /// Entries passing `filter`, newest first, at most `limit`, with the total count.
    pub fn query(&self, filter: &Compiled, limit: usize) -> QueryResult {
        match &filter.tags {
            Some(want) => {
                let lists = self.tag_lists(want);
                if self.in_time_order() {
                    // Newest first is descending position: merge the postings from the end.
                    return self.page(filter, merge_descending(&lists), limit);
                }
                let mut cands: Vec<u32> = lists
                    .iter()
                    .flat_map(|l| l.iter().copied())
                    .filter(|&p| filter.matches(self, p))
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
                let lo = chrono.partition_point(|p| self.meta(p).ts < filter.since);
                let hi = chrono.partition_point(|p| self.meta(p).ts <= filter.until);
                self.page(filter, chrono.positions(lo, hi).rev(), limit)
            }
        }
    }

    /// Up to `limit` entries passing `filter`, newest first, all older than `before`
    /// (`(ts, position)` of the last entry of the previous page) when given. Never counts
    /// the rest: a page costs what it shows plus what the filter passes over.
    pub fn page_before(
        &self,
        filter: &Compiled,
        before: Option<(i64, u32)>,
        limit: usize,
    ) -> Vec<u32> {
        let older = |p: u32| before.is_none_or(|b| (self.meta(p).ts, p) < b);
        match &filter.tags {
            Some(want) => {
                let lists = self.tag_lists(want);
                if self.in_time_order() {
                    return merge_descending(&lists)
                        .filter(|&p| older(p) && filter.matches(self, p))
                        .take(limit)
                        .collect();
                }
                let mut cands: Vec<u32> = lists
                    .iter()
                    .flat_map(|l| l.iter().copied())
                    .filter(|&p| older(p) && filter.matches(self, p))
                    .collect();
                cands.sort_unstable_by(|&a, &b| self.newer_first(a, b));
                cands.dedup();
                cands.truncate(limit);
                cands
            }
            None => {
                let chrono = self.chrono();
                let lo = chrono.partition_point(|p| self.meta(p).ts < filter.since);
                let mut hi = chrono.partition_point(|p| self.meta(p).ts <= filter.until);
                if let Some(b) = before {
                    hi = hi.min(chrono.partition_point(|p| (self.meta(p).ts, p) < b));
                }
                chrono
                    .positions(lo, hi)
                    .rev()
                    .filter(|&p| filter.matches(self, p))
                    .take(limit)
                    .collect()
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
            if filter.matches(self, p) {
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
}
