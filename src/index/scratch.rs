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
    pub(super) fn fit(&mut self, docs: usize) {
        if self.scores.len() < docs {
            self.scores.resize(docs, 0.0);
        }
    }

    #[inline]
    pub(super) fn add(&mut self, doc: u32, s: f64) {
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
