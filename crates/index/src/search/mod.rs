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

pub(crate) mod bounds;
pub(crate) mod candidates;
pub(crate) mod filter;
pub(crate) mod query;
pub(crate) mod score;
pub(crate) mod scratch;
pub(crate) mod time_factor;
pub(crate) mod topk;
pub(crate) mod walk;

use std::cmp::Ordering;

use std::cell::RefCell;

use super::inverted::{QueryTerm, Scratch};
use super::topk::TopK;
pub use super::topk::{SearchHit, decay};
use super::walk::Walk;
use super::{Compiled, LedgerIndex, Scorer};

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

/// Searches touching more postings than this are pruned; smaller ones look at every
/// matching entry and count every match exactly. Since the pruned walk bounds candidates
/// from length codes and merges or gallops its lists, it beats the exhaustive loop well
/// below the 20,000 this was (1M mix p50 −17 %, 100k −25 %); 5,000 keeps exact totals for
/// the searches of a project of some ten thousand entries.
pub const PRUNE_ABOVE: usize = 5_000;

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
        // `slot_decides` only when the viewer may see every entry.
        let other = if filter.slot_decides {
            filter.matches_slot(self.slot(pos))
        } else {
            filter.matches(self, pos)
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
