//! The score accumulator of a search or a brief's ranking: one slot per document and the
//! documents touched, reused from query to query so a query costs what it touches.

/// Reusable score accumulator, sized to the number of documents.
#[derive(Debug, Default)]
pub struct Scratch {
    scores: Vec<f64>,
    touched: Vec<u32>,
}

impl Scratch {
    /// Documents that scored above zero, with their BM25 score; clears the accumulator.
    pub fn drain(&mut self) -> impl Iterator<Item = (u32, f64)> + '_ {
        let scores = &mut self.scores;
        self.touched.drain(..).map(move |d| {
            let s = std::mem::take(&mut scores[d as usize]);
            (d, s)
        })
    }

    /// Documents that scored above zero so far, in no particular order.
    pub fn touched(&self) -> &[u32] {
        &self.touched
    }

    /// The accumulated score of `doc` (0 if it matched nothing), without clearing.
    pub fn get(&self, doc: u32) -> f64 {
        self.scores.get(doc as usize).copied().unwrap_or(0.0)
    }

    /// Sizes the accumulator for `docs` documents.
    pub(crate) fn fit(&mut self, docs: usize) {
        if self.scores.len() < docs {
            self.scores.resize(docs, 0.0);
        }
    }

    #[inline]
    pub(crate) fn add(&mut self, doc: u32, s: f64) {
        let slot = &mut self.scores[doc as usize];
        if *slot == 0.0 {
            self.touched.push(doc);
        }
        *slot += s;
    }

    /// Replaces every score with `scores` (documents below `docs`; those not above zero
    /// are left out): how a brief's lexical scores give way to fused ones.
    pub fn replace(&mut self, docs: usize, scores: impl IntoIterator<Item = (u32, f64)>) {
        self.clear();
        self.fit(docs);
        for (doc, s) in scores {
            if s > 0.0 && (doc as usize) < docs {
                self.add(doc, s);
            }
        }
    }

    /// Resets the accumulator.
    pub fn clear(&mut self) {
        for d in self.touched.drain(..) {
            self.scores[d as usize] = 0.0;
        }
    }
}

/// Accumulators kept for readers between calls (more may be in use at once; past this
/// many, one is dropped when given back).
const KEPT: usize = 4;

static SPARE: std::sync::Mutex<Vec<Scratch>> = std::sync::Mutex::new(Vec::new());

/// Runs `f` with an accumulator of the process's spares (or a new one), so a reader that
/// holds only the shared lock — a brief — scores without the ledger's own accumulator,
/// which needs the exclusive lock. Each costs 8 bytes per document; at most [`KEPT`] are
/// kept between calls.
pub fn with_spare_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    let mut s = SPARE
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .pop()
        .unwrap_or_default();
    s.clear();
    let out = f(&mut s);
    s.clear();
    let mut spare = SPARE.lock().unwrap_or_else(|p| p.into_inner());
    if spare.len() < KEPT {
        spare.push(s);
    }
    out
}
