//! BM25F's constants and scoring, a leaf of the index: the fields and their weights, one
//! posting's frequencies, a document's lengths, and the scores of a posting — what the
//! text index, the bound-pruned search ([`crate::bounds`]) and the walk over postings
//! ([`crate::walk`]) all compute with, and which needs none of them.

/// BM25 term-frequency saturation.
pub const K1: f64 = 1.2;
/// BM25 length normalisation (summary + tags, detail).
pub const B: f64 = 0.75;
/// BM25F weight of the detail field (summary + tags weigh 1).
pub const W_DETAIL: f64 = 0.5;
/// BM25F weight of the ref field.
pub const W_REF: f64 = 0.7;

/// The fields of an entry that are indexed, in posting order.
pub const FIELDS: [&str; 4] = ["summary", "tags", "detail", "ref"];

/// How a document is scored against a query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scoring {
    /// The seed: BM25 over summary + tags only.
    Seed,
    /// BM25F over summary, tags, detail and ref.
    Fielded,
}

/// One document containing a term: its frequency per field (saturating at 255, far past
/// where BM25's saturation makes more occurrences count).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Posting {
    pub(crate) doc: u32,
    pub(crate) tf: [u8; 4],
}

/// A query term present in the index, with its idf under both scorings.
#[derive(Clone, Debug)]
pub struct QueryTerm {
    pub(crate) term: u32,
    /// Inverse document frequency over summary + tags (the seed's).
    pub idf_seed: f64,
    /// Inverse document frequency over every field.
    pub idf: f64,
}

/// The seed's BM25 of one posting with summary or tags: `w` is `idf × (k1 + 1)`, `b_st`
/// is `b / avg(summary + tags length)`.
#[inline(always)]
pub(crate) fn seed_score(w: f64, p: &Posting, len: &Doc, b_st: f64) -> f64 {
    let tf = f64::from(p.tf[0]) + f64::from(p.tf[1]);
    let dl = f64::from(len.st);
    w * tf / (tf + K1 * (1.0 - B + b_st * dl))
}

/// BM25F of one posting; normalisation is skipped for fields the posting lacks (most have
/// one field).
#[inline(always)]
pub(crate) fn fielded_score(w: f64, p: &Posting, len: &Doc, b_st: f64, b_d: f64) -> f64 {
    let st = u32::from(p.tf[0]) + u32::from(p.tf[1]);
    let mut tf = 0.0;
    if st > 0 {
        tf += f64::from(st) / (1.0 - B + b_st * f64::from(len.st));
    }
    if p.tf[2] > 0 {
        tf += W_DETAIL * f64::from(p.tf[2]) / (1.0 - B + b_d * f64::from(len.detail));
    }
    tf += W_REF * f64::from(p.tf[3]);
    saturate(w, tf)
}

/// BM25's saturation of a (pseudo) term frequency `t` under weight `w` (`idf × (k1 + 1)`).
#[inline(always)]
pub(crate) fn saturate(w: f64, t: f64) -> f64 {
    w * t / (K1 + t)
}

/// The weighted, length-normalised frequency of one posting per field group (summary,
/// tags, detail, ref) under BM25F, at the averages `avg`; they add up to `tf~`.
pub(crate) fn fielded_parts(p: &Posting, len: &Doc, avg: (f64, f64)) -> [f64; 4] {
    let norm_st = 1.0 - B + B * f64::from(len.st) / avg.0;
    let norm_d = 1.0 - B + B * f64::from(len.detail) / avg.1;
    [
        f64::from(p.tf[0]) / norm_st,
        f64::from(p.tf[1]) / norm_st,
        W_DETAIL * f64::from(p.tf[2]) / norm_d,
        W_REF * f64::from(p.tf[3]),
    ]
}

/// What scoring needs of one document, and a word its owner keeps beside it: one 8-byte
/// record, so scoring and filtering a document read one cache line (at a million entries
/// these tables outgrow the CPU's caches, and a search's time is mostly such reads).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Doc {
    /// Tokens in summary and tags (saturating at 65,535).
    pub(crate) st: u16,
    /// Tokens in detail (saturating).
    pub(crate) detail: u16,
    /// The owner's word: [`crate::LedgerIndex`] keeps the entry's slot here (its (room,
    /// plan) cell, kind and superseded bit).
    pub(crate) tag: u32,
}

impl Doc {
    /// The one-byte codes of its lengths (summary + tags, detail).
    pub(crate) fn codes(&self) -> [u8; 2] {
        [crate::norms::code(self.st), crate::norms::code(self.detail)]
    }
}

/// Per query: the inverse of BM25's length norm at the floor of every length code, for
/// summary + tags and for detail ([`TextIndex::term_bound`]).
pub struct CodeNorms {
    st: [f64; 256],
    detail: [f64; 256],
}

impl CodeNorms {
    /// The tables at `norms` = `(B / average summary + tags length, B / average detail
    /// length)`.
    pub(crate) fn at(norms: (f64, f64)) -> CodeNorms {
        // A hair above the inverse, so that multiplying by it never gives less than the
        // exact score's division.
        let inv = |b: f64, c: usize| {
            (1.0 + 1e-9) / (1.0 - B + b * f64::from(crate::norms::floor(c as u8)))
        };
        CodeNorms {
            st: std::array::from_fn(|c| inv(norms.0, c)),
            detail: std::array::from_fn(|c| inv(norms.1, c)),
        }
    }

    /// At least the length-normalised frequency of posting `p` under `scoring`, from its
    /// document's length `codes`: the seed's is the summary + tags part of the fielded one.
    #[inline(always)]
    pub(crate) fn tf_bound(&self, p: &Posting, codes: [u8; 2], scoring: Scoring) -> f64 {
        let [st, detail] = codes;
        let t = f64::from(u32::from(p.tf[0]) + u32::from(p.tf[1])) * self.st[st as usize];
        match scoring {
            Scoring::Seed => t,
            Scoring::Fielded => {
                t + W_DETAIL * f64::from(p.tf[2]) * self.detail[detail as usize]
                    + W_REF * f64::from(p.tf[3])
            }
        }
    }
}
