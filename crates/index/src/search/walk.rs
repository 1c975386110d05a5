//! Pruned top-k search (block-max MaxScore) for searches too large to score every
//! posting ([`crate::search`]).
//!
//! The walk goes over the postings of the query's terms document at a time, newest first
//! (postings are in position order and walked from the end), in windows of positions. In
//! each, every term gets a bound from the maxima of its blocks of postings there
//! ([`crate::bounds`]). A window whose bounds add up below the k-th score is passed over
//! whole; otherwise the terms are split into "essential" ones, whose documents are
//! enumerated, and the rest, probed only while their bounds could still lift a document
//! over the threshold. The time factor is at most 1, so a BM25 bound bounds the final
//! score. Recent entries have the largest time factors, so the threshold rises fastest
//! when walking newest first.
//!
//! Each enumerated document is first bounded from its one-byte length codes
//! ([`crate::norms`]; 2 MB at a million entries, mostly in cache): a candidate of common
//! words rarely can reach the k-th score, and those that cannot are passed over without
//! reading their 8-byte records (8 MB, mostly not in cache). With one essential term (the
//! common case once the threshold has risen) its postings are read straight through,
//! compared on frequency (no division), and the non-essential term of largest bound is
//! walked along with them, so a candidate's bound includes it while its codes are in
//! cache. When that term is required (a document without it cannot reach the threshold)
//! and the essential term's frequency alone lets many through (three common words), the
//! two lists are merged instead, and only documents in both are bounded. The candidates
//! that remain are gathered in batches and scored exactly from their records, so that
//! those reads overlap; a document's term scores are added in the query's term order, as
//! the unpruned search adds them, so a search's hits do not
//! depend on which way it ran (a property test holds both to a brute-force reference).

use crate::candidates::{ABSENT, BATCH, Batch, PassRate};
use crate::postings::List;
use crate::score::{CodeNorms, K1, QueryTerm, Scoring, saturate};
use crate::topk::{SearchHit, TopK, decay};
use crate::{Compiled, LedgerIndex, Scorer};
use warroom_base::clock::Timestamp;

/// The state of one search's walk over the postings of its terms.
pub(crate) struct Walk<'a> {
    ix: &'a LedgerIndex,
    terms: &'a [QueryTerm],
    /// Per term: its postings.
    lists: Vec<List<'a>>,
    scorer: &'a Scorer,
    scoring: Scoring,
    norms: (f64, f64),
    /// The length norms of every length code, for [`Walk::bound`].
    code_norms: CodeNorms,
    /// Per term: `idf × (k1 + 1)` under the scoring.
    weight: Vec<f64>,
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
    /// `theta / tmax`, what a document's BM25 must reach ([`Walk::needed`]).
    need: f64,
    /// The largest half-life of any kind.
    longest_half_life: f64,
    /// How often the essential term's bound alone passes, for [`Walk::gather_paired`].
    sift: PassRate,
}

impl<'a> Walk<'a> {
    pub(crate) fn new(ix: &'a LedgerIndex, terms: &'a [QueryTerm], scorer: &'a Scorer) -> Self {
        let n = terms.len();
        let norms = ix.text.norms();
        let scoring = scorer.ranking.scoring();
        let lists: Vec<List<'a>> = terms
            .iter()
            .map(|q| ix.text.postings.list(q.term))
            .collect();
        Walk {
            ix,
            terms,
            scorer,
            scoring,
            norms,
            code_norms: ix.text.code_norms(norms),
            weight: terms
                .iter()
                .map(|q| match scoring {
                    Scoring::Seed => q.idf_seed * (K1 + 1.0),
                    Scoring::Fielded => q.idf * (K1 + 1.0),
                })
                .collect(),
            cursor: lists.iter().map(|l| l.len()).collect(),
            lists,
            order: (0..n).collect(),
            prefix: vec![0.0; n],
            bound: vec![0.0; n],
            first_essential: 0,
            theta: f64::NEG_INFINITY,
            tmax: 1.0,
            need: f64::NEG_INFINITY,
            longest_half_life: scorer.half_lives.iter().copied().fold(0.0, f64::max),
            sift: PassRate::default(),
        }
    }

    /// The document of term `j`'s next posting, if any.
    fn current(&self, j: usize) -> Option<u32> {
        let i = self.cursor[j].checked_sub(1)?;
        Some(self.lists[j].doc(i))
    }

    /// What a document's BM25 must reach to enter: the threshold over the window's
    /// largest time factor.
    fn needed(&self) -> f64 {
        self.need
    }

    /// Term `j`'s score for the posting at `i` of its list.
    fn score(&self, j: usize, i: usize) -> f64 {
        (self.ix.text).term_score(&self.terms[j], i, self.scoring, self.norms)
    }

    /// At least [`Walk::score`], from the document's length codes (no record read).
    #[inline(always)]
    fn bound(&self, j: usize, i: usize) -> f64 {
        let p = &self.lists[j].get(i);
        (self.ix.text).term_bound(p, self.scoring, self.weight[j], &self.code_norms)
    }

    /// The (pseudo) term frequency that [`Walk::bound`] saturates.
    #[inline(always)]
    fn tf_bound(&self, j: usize, i: usize) -> f64 {
        (self.ix.text).tf_bound(&self.lists[j].get(i), self.scoring, &self.code_norms)
    }

    /// The best `limit` hits passing `filter`, and how many matches were looked at.
    pub(crate) fn run(mut self, filter: &Compiled, limit: usize) -> (Vec<SearchHit>, usize) {
        let n = self.terms.len();
        let ix = self.ix;
        let cmp = |a: &SearchHit, b: &SearchHit| ix.hit_order(a, b);
        let mut top = TopK::new(limit, &cmp);
        let mut total = 0;
        let mut below = vec![0usize; n];
        let mut batch = Batch::new(n);
        while self.cursor.iter().any(|&c| c > 0) {
            let lo = self.window(&mut below);
            loop {
                self.gather(lo, &mut batch);
                if batch.is_empty() {
                    break;
                }
                total += self.settle(&mut batch, filter, &mut top);
                batch.clear();
            }
            // Every term passes the window (the skipped ones without a look).
            for (c, &b) in self.cursor.iter_mut().zip(&below) {
                *c = (*c).min(b);
            }
        }
        (top.into_sorted(), total)
    }

    /// Fills `batch` with the next candidates of the essential terms in the window
    /// (positions `lo` and up), newest first, leaving out those whose bound cannot reach
    /// the threshold; leaves it empty when the window has none left.
    fn gather(&mut self, lo: u32, batch: &mut Batch) {
        let (fe, n) = (self.first_essential, self.terms.len());
        batch.fe = fe;
        if fe == n {
            return;
        }
        // What the essential terms must add up to: the terms not gathered can add at
        // most their bounds.
        let rest = fe.checked_sub(1).map_or(0.0, |k| self.prefix[k]);
        let floor = self.needed() - rest;
        if fe == n - 1 {
            // One essential term: its postings, read straight through, each bounded
            // without a division.
            let j = self.order[fe];
            let w = self.weight[j];
            let t_min = if floor <= 0.0 {
                f64::NEG_INFINITY
            } else if floor < w {
                // A hair low, so that rounding never drops a candidate.
                K1 * floor / (w - floor) * (1.0 - 1e-9)
            } else {
                // `w` is more than any score of the term.
                f64::INFINITY
            };
            if fe == 0 {
                let mut i = self.cursor[j];
                while i > 0 && !batch.is_full() {
                    let doc = self.lists[j].doc(i - 1);
                    if doc < lo {
                        break;
                    }
                    i -= 1;
                    // s = w × t / (k1 + t) reaches `floor` where t reaches `t_min`.
                    let t = self.tf_bound(j, i);
                    batch.set(j, i, saturate(w, t));
                    batch.push(doc, t >= t_min);
                }
                self.cursor[j] = i;
                batch.close();
            } else {
                self.gather_paired(j, t_min, lo, batch);
            }
            return;
        }
        while !batch.is_full() {
            let Some(doc) = self.order[fe..]
                .iter()
                .filter_map(|&j| self.current(j).filter(|&d| d >= lo))
                .max()
            else {
                break;
            };
            let mut sum = 0.0;
            for k in fe..n {
                let j = self.order[k];
                if self.current(j) == Some(doc) {
                    self.cursor[j] -= 1;
                    let s = self.bound(j, self.cursor[j]);
                    batch.set(j, self.cursor[j], s);
                    sum += s;
                }
            }
            batch.push(doc, sum >= floor);
            if sum < floor {
                batch.close();
            }
        }
    }

    /// [`Walk::gather`] with one essential term `j` and others: each posting of `j` whose
    /// frequency reaches `t_min` is paired with the largest-bound other term's posting
    /// of the same document, if any, found by walking that term's list along (the
    /// document's length codes are then in cache), and kept if the two bounds and the
    /// bounds of the rest can reach the threshold. The paired term counts as gathered.
    fn gather_paired(&mut self, j: usize, t_min: f64, lo: u32, batch: &mut Batch) {
        let fe = self.first_essential;
        let jb = self.order[fe - 1];
        batch.fe = fe - 1;
        let rest = fe.checked_sub(2).map_or(0.0, |k| self.prefix[k]);
        let floor = self.needed() - rest;
        let (w, list, list_b) = (self.weight[j], self.lists[j], self.lists[jb]);
        if self.bound[j] + rest < self.needed()
            && self
                .sift
                .merge_pays(list_b.len() as f64 / list.len() as f64)
        {
            return self.gather_merged(j, jb, t_min, floor, lo, batch);
        }
        let (mut i, mut ib) = (self.cursor[j], self.cursor[jb]);
        let start = i;
        let mut passed = 0;
        while i > 0 && !batch.is_full() {
            let doc = list.doc(i - 1);
            if doc < lo {
                break;
            }
            i -= 1;
            let t = self.tf_bound(j, i);
            if t < t_min {
                continue;
            }
            passed += 1;
            ib = self.ix.text.seek_back(&self.terms[jb], ib, doc);
            let s = saturate(w, t);
            batch.set(j, i, s);
            if ib > 0 && list_b.doc(ib - 1) == doc {
                let sb = self.bound(jb, ib - 1);
                batch.set(jb, ib - 1, sb);
                batch.push(doc, s + sb >= floor);
            } else {
                batch.set_absent(jb);
                batch.push(doc, s >= floor);
            }
        }
        self.sift.observe(start - i, passed);
        self.cursor[j] = i;
        self.cursor[jb] = ib;
        batch.close();
    }

    /// [`Walk::gather_paired`] when a document lacking term `jb` cannot reach the threshold
    /// (the bounds of `j` and of the terms other than `jb` fall short of it): only the
    /// documents of both lists are candidates, found by merging the two lists without a
    /// branch per posting (chosen when that costs less than galloping, by [`PassRate`]),
    /// then bounded from their length codes.
    fn gather_merged(
        &mut self,
        j: usize,
        jb: usize,
        t_min: f64,
        floor: f64,
        lo: u32,
        batch: &mut Batch,
    ) {
        let (w, list, list_b) = (self.weight[j], self.lists[j], self.lists[jb]);
        let (mut i, mut ib) = (self.cursor[j], self.cursor[jb]);
        let mut pairs = [(0u32, 0u32); BATCH];
        let (mut seen, mut passed) = (0, 0);
        while !batch.is_full() {
            // Both lists walked down together: the larger document is not in the other
            // list (whose documents left are all smaller), equal ones are a pair.
            let room = BATCH - batch.len;
            let mut m = 0;
            while i > 0 && ib > 0 && m < room {
                let (a, b) = (list.doc(i - 1), list_b.doc(ib - 1));
                if a < lo {
                    break;
                }
                pairs[m] = ((i - 1) as u32, (ib - 1) as u32);
                m += usize::from(a == b);
                i -= usize::from(a >= b);
                ib -= usize::from(b >= a);
            }
            for &(pa, pb) in &pairs[..m] {
                let (pa, pb) = (pa as usize, pb as usize);
                let t = self.tf_bound(j, pa);
                passed += usize::from(t >= t_min);
                let s = saturate(w, t);
                let sb = self.bound(jb, pb);
                batch.set(j, pa, s);
                batch.set(jb, pb, sb);
                batch.push(list.doc(pa), s + sb >= floor);
            }
            seen += m;
            if m < room {
                break;
            }
        }
        self.sift.observe(seen, passed);
        // Postings of `j` left in the window once `jb`'s list is done have no pair; the
        // window's end passes them.
        self.cursor[j] = i;
        self.cursor[jb] = ib;
        batch.close();
    }

    /// Probes the terms that were not gathered for each candidate of `batch`, while they
    /// could still matter (bounded from the length codes too), scores the candidates that
    /// can still enter exactly from their records, and offers them to `top`; returns how
    /// many of those matched `filter`.
    fn settle(&mut self, batch: &mut Batch, filter: &Compiled, top: &mut TopK) -> usize {
        let (ix, n, fe) = (self.ix, self.terms.len(), batch.fe);
        let mut matched = 0;
        for (b, &doc) in batch.docs[..batch.len].iter().enumerate() {
            let post = &mut batch.post[b * n..(b + 1) * n];
            let mut bound: f64 = batch.bound[b * n..(b + 1) * n].iter().sum();
            // Non-essential terms (at gathering), largest bound first.
            let mut alive = true;
            for k in (0..fe).rev() {
                if bound + self.prefix[k] < self.needed() {
                    alive = false;
                    break;
                }
                let j = self.order[k];
                self.cursor[j] = ix.text.seek_back(&self.terms[j], self.cursor[j], doc);
                if self.current(j) == Some(doc) {
                    let i = self.cursor[j] - 1;
                    post[j] = i as u32;
                    bound += self.bound(j, i);
                }
            }
            if !alive || (top.is_full() && bound < self.needed()) || !ix.passes(filter, doc) {
                continue;
            }
            // The exact score, summed in the query's term order.
            let mut bm25 = 0.0;
            for (j, &i) in post.iter().enumerate() {
                if i != ABSENT {
                    let x = self.score(j, i as usize);
                    if x != 0.0 {
                        bm25 += x;
                    }
                }
            }
            if bm25 == 0.0 {
                continue;
            }
            matched += 1;
            top.offer(ix, doc, bm25, self.scorer);
            self.raise(top.threshold());
        }
        matched
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
        self.need = self.theta / self.tmax;
        let n = self.terms.len();
        while self.first_essential < n && self.prefix[self.first_essential] < self.needed() {
            self.first_essential += 1;
        }
    }
}
