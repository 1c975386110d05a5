//! The candidates of a pruned search's walk ([`crate::walk`]), gathered in batches
//! before they are scored exactly, and the pass rate that picks how they are gathered.

/// Candidates scored together.
pub(crate) const BATCH: usize = if cfg!(test) { 3 } else { 64 };
/// "This term's postings do not have the document."
pub(crate) const ABSENT: u32 = u32::MAX;

/// How many of the essential term's postings seen lately had a bound that passed on its
/// own (in `Walk::gather_merged`, of those paired). Pairing each that passes by galloping
/// costs ~30 ns, merging the two lists ~4 ns per posting of either: for lists of equal
/// length merging pays once over ~28 % pass (measured at a million entries: ~7 % for two
/// common words, ~45 % for three, where merging halves the time).
#[derive(Default)]
pub(crate) struct PassRate {
    seen: usize,
    passed: usize,
}

impl PassRate {
    /// Whether merging costs less than galloping, when the list paired is `ratio` times
    /// as long as the essential one.
    pub(crate) fn merge_pays(&self, ratio: f64) -> bool {
        // Per posting of the essential term: sifting ~3.5 ns, and ~32 ns for each that
        // passes; merging ~4 ns per posting of either list, and ~0.5 ns more for pairs.
        self.passed as f64 * 32.0 > self.seen as f64 * (4.0 * (1.0 + ratio) + 1.0)
    }

    /// Counts `passed` of `seen` postings; older counts weigh less and less.
    pub(crate) fn observe(&mut self, seen: usize, passed: usize) {
        self.seen += seen;
        self.passed += passed;
        if self.seen > 4096 {
            self.seen /= 2;
            self.passed /= 2;
        }
    }
}

/// Candidates whose bound can reach the k-th score, waiting to be scored exactly: per
/// candidate its document, and per candidate and term the posting index (or [`ABSENT`])
/// and a bound of that term's score.
pub(crate) struct Batch {
    n: usize,
    /// `first_essential` when the candidates were gathered.
    pub(crate) fe: usize,
    /// Candidates `..len` are kept; the slot at `len` is the next one, written before
    /// it is known whether it is kept (so the gathering loop does not branch on it).
    pub(crate) len: usize,
    pub(crate) docs: Vec<u32>,
    pub(crate) post: Vec<u32>,
    pub(crate) bound: Vec<f64>,
}

impl Batch {
    pub(crate) fn new(n: usize) -> Batch {
        Batch {
            n,
            fe: 0,
            len: 0,
            docs: vec![0; BATCH + 1],
            post: vec![ABSENT; (BATCH + 1) * n],
            bound: vec![0.0; (BATCH + 1) * n],
        }
    }

    pub(crate) fn is_full(&self) -> bool {
        self.len == BATCH
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Sets term `j` of the next candidate: posting `i`, bound `s`.
    #[inline(always)]
    pub(crate) fn set(&mut self, j: usize, i: usize, s: f64) {
        let at = self.len * self.n + j;
        self.post[at] = i as u32;
        self.bound[at] = s;
    }

    /// Marks term `j` absent from the next candidate.
    #[inline(always)]
    pub(crate) fn set_absent(&mut self, j: usize) {
        let at = self.len * self.n + j;
        self.post[at] = ABSENT;
        self.bound[at] = 0.0;
    }

    /// Makes the next candidate, document `doc`, kept if `keep`, else forgotten (its
    /// slot is overwritten by the one after, or cleared by [`Batch::close`]).
    #[inline(always)]
    pub(crate) fn push(&mut self, doc: u32, keep: bool) {
        self.docs[self.len] = doc;
        self.len += usize::from(keep);
    }

    /// Forgets the next candidate's terms (after a gathering that may have left some).
    pub(crate) fn close(&mut self) {
        let b = self.len * self.n;
        self.post[b..b + self.n].fill(ABSENT);
        self.bound[b..b + self.n].fill(0.0);
    }

    pub(crate) fn clear(&mut self) {
        let used = self.len * self.n;
        self.post[..used].fill(ABSENT);
        self.bound[..used].fill(0.0);
        self.len = 0;
    }
}
