//! Upper bounds on what one query term can add to a document's score, for pruned top-k
//! search ([`crate::query`]): per term the largest pseudo term frequency of any posting,
//! and per block of [`BLOCK`] consecutive postings the largest in that block (block-max),
//! so a search can pass over stretches of the ledger where no document can reach the
//! k-th score without looking at their postings.
//!
//! Bounds are computed with the averages in [`Bounds::avg`], kept at or above the real
//! averages: a larger average only raises a posting's length-normalised frequency, so a
//! bound computed with it holds for every later, exact score. When the real averages
//! pass them (rare: each time they grow by a quarter), every bound is recomputed.
//!
//! The tables are per *slot* ([`Postings::slot`]): a list of one posting has none, and its
//! bound is that posting's own `tf~` at [`Bounds::avg`] ([`Bounds::single`]) — on a
//! ledger of ids most terms have one posting, and 16 bytes each of tables for them was
//! 67 MB at 1M short entries.
//!
//! Blocks store BM25F's `tf~` only, rounded up to `f32` (4 bytes per 128 postings, against
//! 8 bytes per posting). The seed's `tf` over its length norm is the same summary + tags
//! part without detail and ref, so it is at most `tf~` and the same block maxima bound it.

use crate::postings::{List, Postings};
use crate::score::{B, CodeNorms, Doc, K1, Posting, QueryTerm, Scoring, fielded_parts};

/// log2 of the postings per block. Unit tests use blocks of 4 so that small ledgers have
/// many; the binary uses 128.
pub(crate) const BLOCK_SHIFT: u32 = if cfg!(test) { 2 } else { 7 };
/// Postings per block.
pub(crate) const BLOCK: usize = 1 << BLOCK_SHIFT;

/// The bounds of every list of two postings or more (indexed by its slot).
#[derive(Default)]
pub(crate) struct Bounds {
    /// The averages (summary + tags length, detail length) the bounds are computed with.
    pub(crate) avg: (f64, f64),
    /// Per slot: the largest BM25F `tf~` of any posting, rounded up to `f32` (4 bytes,
    /// not 8: a ledger of ids and paths has millions of lists).
    pub(crate) fielded: Vec<f32>,
    /// Per slot: the largest seed `tf` over its length norm of any posting, rounded up.
    pub(crate) seed: Vec<f32>,
    /// Per slot: the largest `tf~` in each block, rounded up (empty for a list of one
    /// block).
    pub(crate) blocks: Blocks,
    /// While true, postings added are not bounded one by one: [`Bounds::settle`] bounds
    /// every list in one pass when the bulk load ends (see [`Bounds::defer`]).
    deferred: bool,
    /// The inverse length norms at the averages they were made at, kept between
    /// publishes (512 divisions to make).
    table: Option<((f64, f64), Box<CodeNorms>)>,
}

/// Each list's block maxima, kept only for the lists longer than a block: a slot costs 4
/// bytes here, not an empty vector's 24.
#[derive(Default)]
pub(crate) struct Blocks {
    /// Per slot: its index in `maxes`, or [`Blocks::NONE`].
    of: Vec<u32>,
    maxes: Vec<Vec<f32>>,
}

impl Blocks {
    const NONE: u32 = u32::MAX;

    /// Room for a new slot (no blocks).
    pub(crate) fn push_slot(&mut self) {
        self.of.push(Self::NONE);
    }

    /// `slots` slots, none with blocks.
    pub(crate) fn with_slots(slots: usize) -> Blocks {
        Blocks {
            of: vec![Self::NONE; slots],
            maxes: Vec::new(),
        }
    }

    /// Number of slots.
    pub(crate) fn len(&self) -> usize {
        self.of.len()
    }

    /// Slot `t`'s block maxima (empty: a list of one block).
    pub(crate) fn get(&self, t: usize) -> &[f32] {
        match self.of[t] {
            Self::NONE => &[],
            i => &self.maxes[i as usize],
        }
    }

    /// Slot `t`'s block maxima, if it has any.
    fn get_mut(&mut self, t: usize) -> Option<&mut Vec<f32>> {
        match self.of[t] {
            Self::NONE => None,
            i => Some(&mut self.maxes[i as usize]),
        }
    }

    /// Sets slot `t`'s block maxima.
    pub(crate) fn set(&mut self, t: usize, maxes: Vec<f32>) {
        match self.get_mut(t) {
            Some(m) => *m = maxes,
            None if maxes.is_empty() => {}
            None => {
                self.of[t] = u32::try_from(self.maxes.len()).expect("fewer than 2^32 terms");
                self.maxes.push(maxes);
            }
        }
    }

    /// The slots with block maxima, ascending, and their maxima.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (usize, &[f32])> {
        self.of
            .iter()
            .enumerate()
            .filter(|&(_, &i)| i != Self::NONE)
            .map(|(t, &i)| (t, &self.maxes[i as usize][..]))
            .filter(|(_, m)| !m.is_empty())
    }
}

/// One list's bounds from the inverse length norms `cn`: the largest BM25F `tf~`, the
/// largest seed `tf` over its norm, and (a list of more than one block) each block's
/// largest `tf~`.
///
/// A posting's lengths are taken from its document's one-byte length codes (`codes`, 2
/// bytes a document), not its 8-byte record: at 10M entries the records are 80 MB and a
/// posting's read of them was a cache miss (15 % of a first start's samples), the codes
/// are 20 MB. A code's floor is at most the length, so a bound is at least the exact
/// value, and equal to it within a hair below [`crate::norms::EXACT`] tokens.
///
/// Each block's largest is found in `f64` and rounded up once (rounding up is monotone, so
/// that is the largest of the rounded values), and a block's largest bounds the list's.
fn bound_of(list: List<'_>, codes: &[[u8; 2]], cn: &CodeNorms) -> (f64, f64, Vec<f32>) {
    let (mut f, mut sd) = (0.0f64, 0.0f64);
    let blocked = list.len() > BLOCK;
    let mut maxes = Vec::with_capacity(if blocked {
        list.len().div_ceil(BLOCK)
    } else {
        0
    });
    for block in list.chunks(BLOCK) {
        let (mut m, mut s) = (0.0f64, 0.0f64);
        for p in block.iter() {
            let (a, b) = tf_pair(&p, codes[p.doc as usize], cn);
            if a > m {
                m = a;
            }
            if b > s {
                s = b;
            }
        }
        f = f.max(m);
        sd = sd.max(s);
        if blocked {
            maxes.push(round_up(m));
        }
    }
    (f, sd, maxes)
}

/// At least a posting's BM25F `tf~` and seed `tf` over its length norm.
#[inline(always)]
fn tf_pair(p: &Posting, codes: [u8; 2], cn: &CodeNorms) -> (f64, f64) {
    (
        cn.tf_bound(p, codes, Scoring::Fielded),
        cn.tf_bound(p, codes, Scoring::Seed),
    )
}

/// The inverse length norms at the averages `avg`.
fn table(avg: (f64, f64)) -> CodeNorms {
    CodeNorms::at((B / avg.0, B / avg.1))
}

/// `x` as an `f32` no smaller than `x`.
pub(crate) fn round_up(x: f64) -> f32 {
    let f = x as f32;
    if f64::from(f) < x { f.next_up() } else { f }
}

/// BM25's saturation of a frequency bound `t` under `idf`, a hair above so that rounding
/// can never make a real score exceed it.
fn score_bound(idf: f64, t: f64) -> f64 {
    idf * (K1 + 1.0) * t / (K1 + t) * (1.0 + 1e-9) + 1e-12
}

impl Bounds {
    /// Room for a new slot (a list that just got its second posting; bounded by
    /// [`Bounds::after_add`] or [`Bounds::settle`]).
    pub(crate) fn push_slot(&mut self) {
        self.fielded.push(0.0);
        self.seed.push(0.0);
        self.blocks.push_slot();
    }

    /// The two bounds written for term `t` (the snapshot's per-term tables): its slot's,
    /// or for a list of one posting what bounding it would give, from the length codes
    /// and the table `cn` of [`Bounds::code_norms`].
    pub(crate) fn of_term(
        &self,
        postings: &Postings,
        codes: &[[u8; 2]],
        cn: &CodeNorms,
        t: u32,
    ) -> (f32, f32) {
        if let Some(m) = postings.slot(t) {
            return (self.fielded[m as usize], self.seed[m as usize]);
        }
        let (f, sd, _) = bound_of(postings.list(t), codes, cn);
        (round_up(f), round_up(sd))
    }

    /// The inverse length norms at [`Bounds::avg`].
    pub(crate) fn code_norms(&self) -> CodeNorms {
        table(self.avg)
    }

    /// Stops bounding postings as they are added, for a bulk load: bounding each one as
    /// it comes touches four per-term tables in random order (14 % of a first start at
    /// 1M entries), where [`Bounds::settle`] walks each list once. Nothing may search
    /// until `settle` is called: until then the bounds are below the scores.
    pub(crate) fn defer(&mut self) {
        self.deferred = true;
    }

    /// True between [`Bounds::defer`] and [`Bounds::settle`].
    pub(crate) fn deferred(&self) -> bool {
        self.deferred
    }

    /// Ends [`Bounds::defer`]: bounds every list at averages at or above `avg`, the real
    /// ones.
    pub(crate) fn settle(&mut self, postings: &Postings, codes: &[[u8; 2]], avg: (f64, f64)) {
        if !std::mem::take(&mut self.deferred) {
            return;
        }
        if avg.0 > self.avg.0 || avg.1 > self.avg.1 {
            self.avg = (avg.0 * 1.25, avg.1 * 1.25);
        }
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        // Below this many postings a thread costs more than it saves.
        self.settle_on(postings, codes, threads, 250_000);
    }

    /// Bounds every list, on up to `threads` threads (one per `per_thread` postings): each list's bounds depend on it and
    /// the documents' lengths only, so the lists are shared out in runs of about equal
    /// postings and the results are the same however many threads there are.
    fn settle_on(
        &mut self,
        postings: &Postings,
        codes: &[[u8; 2]],
        threads: usize,
        per_thread: usize,
    ) {
        let slots = postings.slotted() as u32;
        let total: usize = (0..slots).map(|m| postings.slot_list(m).len()).sum();
        let threads = threads.min(total / per_thread.max(1)).max(1);
        let cn = table(self.avg);
        let mut runs: Vec<std::ops::Range<u32>> = Vec::with_capacity(threads);
        let (mut start, mut acc) = (0, 0);
        for m in 0..slots {
            acc += postings.slot_list(m).len();
            if runs.len() + 1 < threads && acc >= total * (runs.len() + 1) / threads {
                runs.push(start..m + 1);
                start = m + 1;
            }
        }
        runs.push(start..slots);
        // Each run writes its lists' two bounds in place and hands back only the block
        // maxima of its long lists: a (f64, f64, Vec) a list collected for the whole
        // vocabulary was 40 bytes a list held at once, the first start's peak on a ledger
        // of ids (62 MB of 1.5M terms at 300k entries, heaptrack).
        let (mut fielded, mut seed) = (&mut self.fielded[..], &mut self.seed[..]);
        let mut parts = Vec::with_capacity(runs.len());
        for r in runs {
            let (f, f_rest) = std::mem::take(&mut fielded).split_at_mut(r.len());
            let (s, s_rest) = std::mem::take(&mut seed).split_at_mut(r.len());
            (fielded, seed) = (f_rest, s_rest);
            parts.push((r, f, s));
        }
        let blocks = &self.blocks;
        let blocked: Vec<Vec<(usize, Vec<f32>)>> =
            warroom_base::par::each(parts, "bounding", |(r, fs, ss)| {
                let mut out = Vec::new();
                for (i, m) in r.enumerate() {
                    let (f, sd, maxes) = bound_of(postings.slot_list(m), codes, &cn);
                    fs[i] = round_up(f);
                    ss[i] = round_up(sd);
                    let m = m as usize;
                    if !maxes.is_empty() || !blocks.get(m).is_empty() {
                        out.push((m, maxes));
                    }
                }
                out
            });
        for (m, maxes) in blocked.into_iter().flatten() {
            self.blocks.set(m, maxes);
        }
    }

    /// Takes in the posting just appended to each of `terms`' lists; `avg` are the real
    /// averages after the document was counted.
    pub(crate) fn after_add(
        &mut self,
        postings: &Postings,
        codes: &[[u8; 2]],
        avg: (f64, f64),
        terms: impl Iterator<Item = u32>,
    ) {
        if self.deferred {
            return;
        }
        if avg.0 > self.avg.0 || avg.1 > self.avg.1 {
            self.avg = (avg.0 * 1.25, avg.1 * 1.25);
            let cn = table(self.avg);
            for m in 0..postings.slotted() as u32 {
                self.recompute(m as usize, postings.slot_list(m), codes, &cn);
            }
            self.table = Some((self.avg, Box::new(cn)));
            return;
        }
        let cn = match self.table.take() {
            Some((at, cn)) if at == self.avg => cn,
            _ => Box::new(table(self.avg)),
        };
        for t in terms {
            // A list of one posting has no tables: its bound is the posting's own.
            let Some(m) = postings.slot(t) else { continue };
            let (m, list) = (m as usize, postings.list(t));
            if list.len() == 2 || list.len() == BLOCK + 1 {
                // The list just got its slot (its first posting was never bounded), or
                // its second block starts: bound it whole.
                self.recompute(m, list, codes, &cn);
                continue;
            }
            let p = list.last().expect("just pushed");
            let (f, sd) = tf_pair(&p, codes[p.doc as usize], &cn);
            self.fielded[m] = self.fielded[m].max(round_up(f));
            self.seed[m] = self.seed[m].max(round_up(sd));
            if let Some(maxes) = self.blocks.get_mut(m) {
                let b = (list.len() - 1) >> BLOCK_SHIFT;
                if b == maxes.len() {
                    maxes.push(round_up(f));
                } else if f > f64::from(maxes[b]) {
                    maxes[b] = round_up(f);
                }
            }
        }
        self.table = Some((self.avg, cn));
    }

    /// Recomputes slot `m`'s bounds from its postings.
    fn recompute(&mut self, m: usize, list: List<'_>, codes: &[[u8; 2]], cn: &CodeNorms) {
        let (f, sd, maxes) = bound_of(list, codes, cn);
        self.fielded[m] = round_up(f);
        self.seed[m] = round_up(sd);
        self.blocks.set(m, maxes);
    }

    /// The largest score any document can get from `q`, whose list has slot `m`, under
    /// `scoring`.
    pub(crate) fn whole(&self, q: &QueryTerm, m: u32, scoring: Scoring) -> f64 {
        let m = m as usize;
        match scoring {
            Scoring::Seed => score_bound(q.idf_seed, f64::from(self.seed[m])),
            Scoring::Fielded => score_bound(q.idf, f64::from(self.fielded[m])),
        }
    }

    /// The largest score `q`, whose list has slot `m`, can give the documents of its
    /// postings `from..to`.
    pub(crate) fn range(
        &self,
        q: &QueryTerm,
        m: u32,
        from: usize,
        to: usize,
        scoring: Scoring,
    ) -> f64 {
        if from >= to {
            return 0.0;
        }
        let maxes = self.blocks.get(m as usize);
        if maxes.is_empty() {
            return self.whole(q, m, scoring);
        }
        let blocks = &maxes[from >> BLOCK_SHIFT..=(to - 1) >> BLOCK_SHIFT];
        let b = f64::from(blocks.iter().copied().fold(0.0f32, f32::max));
        let m = m as usize;
        match scoring {
            Scoring::Seed => score_bound(q.idf_seed, b.min(f64::from(self.seed[m]))),
            Scoring::Fielded => score_bound(q.idf, b.min(f64::from(self.fielded[m]))),
        }
    }

    /// The largest score `q` can give the one document of its list of one posting `p`
    /// (`doc` its lengths): the posting's own frequencies at [`Bounds::avg`], at or above
    /// the real averages, so at least its score.
    pub(crate) fn single(&self, q: &QueryTerm, p: &Posting, doc: &Doc, scoring: Scoring) -> f64 {
        let parts = fielded_parts(p, doc, self.avg);
        match scoring {
            Scoring::Seed => score_bound(q.idf_seed, f64::from(round_up(parts[0] + parts[1]))),
            Scoring::Fielded => score_bound(q.idf, f64::from(round_up(parts.iter().sum()))),
        }
    }

    /// Checks the tables against the postings they bound (for a decoded snapshot).
    pub(crate) fn fits(&self, postings: &Postings) -> bool {
        let slots = postings.slotted();
        self.fielded.len() == slots
            && self.seed.len() == slots
            && self.blocks.len() == slots
            && (0..slots).all(|m| {
                let l = postings.slot_list(m as u32);
                let want = if l.len() > BLOCK {
                    l.len().div_ceil(BLOCK)
                } else {
                    0
                };
                self.blocks.get(m).len() == want
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lists of every length around a block's, shared out on 1 to 5 threads: the same
    /// bounds, bit for bit.
    #[test]
    fn bounds_settled_on_threads_equal_one_threads() {
        let codes: Vec<[u8; 2]> = (0..500u32)
            .map(|i| {
                let (st, detail) = ((i % 37 + 1) as u16, (i % 11) as u16 * 7);
                [crate::norms::code(st), crate::norms::code(detail * 30)]
            })
            .collect();
        let lists: Vec<Vec<Posting>> = (0..300usize)
            .map(|t| {
                (0..(t * 7) % (3 * BLOCK + 5))
                    .map(|i| Posting {
                        doc: ((i * 13 + t) % 500) as u32,
                        tf: [
                            (i % 3) as u8,
                            (t % 2) as u8,
                            (i % 5) as u8,
                            (t % 3 == 0) as u8,
                        ],
                    })
                    .collect()
            })
            .collect();
        let mut postings = Postings::default();
        for l in &lists {
            postings.push_list(l.clone());
        }
        let settled = |threads: usize| {
            let mut b = Bounds::default();
            for _ in 0..postings.slotted() {
                b.push_slot();
            }
            b.avg = (9.0, 21.0);
            b.settle_on(&postings, &codes, threads, 1000);
            let blocks: Vec<Vec<f32>> = (0..b.blocks.len())
                .map(|t| b.blocks.get(t).to_vec())
                .collect();
            (b.fielded, b.seed, blocks)
        };
        let one = settled(1);
        assert!(one.2.iter().any(|m| m.len() > 1), "some lists have blocks");
        for threads in 2..=5 {
            let many = settled(threads);
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&many.0), bits(&one.0), "{threads}");
            assert_eq!(bits(&many.1), bits(&one.1), "{threads}");
            assert_eq!(many.2, one.2, "{threads}");
        }
    }

    /// A list of one posting is bounded by that posting's own frequencies at the bounds'
    /// averages: at least its score under both scorings whenever the real averages are at
    /// or below them.
    #[test]
    fn a_list_of_one_posting_is_bounded_by_its_own_score() {
        use crate::inverted::{fielded_score, seed_score};
        let b = Bounds {
            avg: (12.5, 40.0),
            ..Bounds::default()
        };
        for i in 0..500u32 {
            let p = Posting {
                doc: 0,
                tf: [
                    (i % 5) as u8,
                    (i % 2) as u8,
                    (i % 7) as u8,
                    (i % 3 == 0) as u8,
                ],
            };
            let doc = Doc {
                st: (i * 7 % 90) as u16,
                detail: (i * 13 % 400) as u16,
                tag: 0,
            };
            let q = QueryTerm {
                term: 0,
                idf_seed: 0.3 + f64::from(i % 9),
                idf: 0.2 + f64::from(i % 11),
            };
            for real in [(12.5, 40.0), (10.0, 33.0), (1.0, 1.0)] {
                let (b_st, b_d) = (B / real.0, B / real.1);
                let fielded = fielded_score(q.idf * (K1 + 1.0), &p, &doc, b_st, b_d);
                assert!(
                    b.single(&q, &p, &doc, Scoring::Fielded) >= fielded,
                    "{i} {real:?}"
                );
                if p.tf[0] > 0 || p.tf[1] > 0 {
                    let seed = seed_score(q.idf_seed * (K1 + 1.0), &p, &doc, b_st);
                    assert!(
                        b.single(&q, &p, &doc, Scoring::Seed) >= seed,
                        "{i} {real:?}"
                    );
                }
            }
        }
    }

    /// Bounds from the length codes are at least every posting's exact `tf~` and seed
    /// part (lengths far above the exact codes too), and equal to them within a hair when
    /// both lengths are below `EXACT`.
    #[test]
    fn bounds_from_length_codes_hold_every_exact_value() {
        use crate::norms::{EXACT, code};
        let docs: Vec<Doc> = (0..700u32)
            .map(|i| Doc {
                st: (i * 7 % 260 + 1) as u16,
                detail: (i * 131 % 3_000) as u16,
                tag: 0,
            })
            .collect();
        let codes: Vec<[u8; 2]> = docs.iter().map(|d| [code(d.st), code(d.detail)]).collect();
        let avg = (40.0, 300.0);
        let cn = table(avg);
        let list: Vec<Posting> = (0..700u32)
            .map(|i| Posting {
                doc: i,
                tf: [(i % 4) as u8, (i % 3) as u8, (i % 9) as u8, (i % 2) as u8],
            })
            .collect();
        let mut stored = Postings::default();
        stored.push_list(list.clone());
        let (f, sd, maxes) = bound_of(stored.list(0), &codes, &cn);
        assert_eq!(maxes.len(), list.len().div_ceil(BLOCK));
        let (mut tighter, mut exact_max) = (0, 0.0f64);
        for (i, p) in list.iter().enumerate() {
            let d = &docs[p.doc as usize];
            let parts = fielded_parts(p, d, avg);
            let (want_f, want_sd) = (parts.iter().sum::<f64>(), parts[0] + parts[1]);
            let (got_f, got_sd) = tf_pair(p, codes[i], &cn);
            assert!(got_f >= want_f && got_sd >= want_sd, "posting {i}");
            if d.st < EXACT && d.detail < EXACT {
                assert!(got_f - want_f <= 1e-6 * want_f.max(1.0), "posting {i}");
                tighter += 1;
            }
            assert!(f64::from(maxes[i >> BLOCK_SHIFT]) >= want_f, "block of {i}");
            exact_max = exact_max.max(want_f);
            assert!(sd >= want_sd);
        }
        assert!(f >= exact_max);
        assert!(tighter > 10, "some documents have both lengths exact");
    }
}
