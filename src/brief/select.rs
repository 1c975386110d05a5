//! The brief as a selection under a budget (docs/brief.md): the pool's candidates put
//! in the order the renderer takes them. Each rule is one line a manager would accept when
//! it is explained (selection `coverage-4`, [`nearness`]):
//!
//! 1. **Binding first.** Entries for the whole project (conventions, and anything
//!    published with `audience: project`) bind every room: up to a third of the brief;
//!    the rest of them that match the keywords after the direct predecessors' entries.
//! 2. **Nearer rooms first.** A direct predecessor is what the plan says this room waits
//!    for: the rooms one step up give their entries before the rooms two steps up, and
//!    so on. At each distance, what a room exposes to others comes first by kind —
//!    interfaces, then warnings, then decisions, then code and artifacts — and within a
//!    kind the keyword matches (by words, then by meaning alone with semantic ranking)
//!    by score, then the newest.
//! 3. **A note written many times in one shape is routine.** An upstream entry whose
//!    words are half or more those of another upstream entry of its kind (in any room:
//!    routine notes are written alike everywhere; the same fact twice is not two notes)
//!    waits until every other upstream entry had its turn, and then one of each shape
//!    comes before the shape's others.
//! 4. **Words that tell entries apart.** The brief searches its keywords, the epic's
//!    title and its rarest own words, but not a word in more than half of the entries:
//!    such a word matches nearly everything and says nothing of any of it.
//! 5. **Then the rest** in rank order (project-wide entries of unrelated rooms, keyword
//!    matches of unrelated rooms), and last the binding entries past the first third that
//!    match no keyword.
//!
//! Superseded entries are never in the pool, and the renderer collapses duplicate facts.
//! Receipts recorded with an earlier selection replay with its rules ([`Version`],
//! [`rounds`]).

use std::cmp::Ordering;

use super::Candidate;
use crate::entry::Kind;
use crate::index::LedgerIndex;

mod nearness;
mod rounds;

/// The rules a brief's entries were chosen by, as its receipt records them
/// (`ranking.selection`), so that a replay chooses as the brief was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// Before selections (nothing recorded): the ranked head in group order.
    Ranked,
    /// `coverage`: this module's rules, with a match by meaning alone (semantic ranking)
    /// ordered among the matches by words by its fused score.
    Coverage,
    /// `coverage-2`: the same, with a match by meaning alone after every match by words
    /// of its share, and ahead only of the rest of its kind. For a lexical brief it
    /// chooses exactly as `coverage`.
    WordsFirst,
    /// `coverage-3`: nearer rooms first, routine notes by their words ([`nearness`]).
    Nearness,
    /// `coverage-4`: `coverage-3`, searching only the words that tell entries apart — a
    /// word in more than half of the entries is not searched ([`Version::searches`]).
    Distinct,
}

impl Version {
    /// Every selection this build replays.
    pub const ALL: [Version; 5] = [
        Version::Ranked,
        Version::Coverage,
        Version::WordsFirst,
        Version::Nearness,
        Version::Distinct,
    ];

    /// What a brief served now is chosen by.
    pub const CURRENT: Version = Version::Distinct;

    /// The name a receipt records (none before selections).
    pub fn name(self) -> Option<&'static str> {
        match self {
            Version::Ranked => None,
            Version::Coverage => Some("coverage"),
            Version::WordsFirst => Some("coverage-2"),
            Version::Nearness => Some("coverage-3"),
            Version::Distinct => Some("coverage-4"),
        }
    }

    /// True if this selection serves nearer rooms first ([`nearness`]).
    pub fn near_first(self) -> bool {
        matches!(self, Version::Nearness | Version::Distinct)
    }

    /// Whether a brief chosen by this selection searches a term of the ledger's: every
    /// term before `coverage-4`; since, only one in at most half of the entries (its idf
    /// at least ln 2, the point where BM25's Robertson–Spärck Jones weight turns
    /// negative). A word in most entries tells none of them apart — a plan's "Epic" in
    /// every title, a project's name in every note — yet every entry it is in becomes a
    /// "match" and each of its postings is scored: the brief's cost grew with the ledger
    /// and its order with the noise.
    pub fn searches(self, term: &crate::index::QueryTerm) -> bool {
        self != Version::Distinct || term.idf >= std::f64::consts::LN_2
    }

    /// The version a receipt names; None for a name this build does not know.
    pub fn of(recorded: Option<&str>) -> Option<Version> {
        Version::ALL.into_iter().find(|v| v.name() == recorded)
    }
}

/// Why a candidate is where the selection put it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Share {
    /// For the whole project (rule 1, or rule 3 past the first third).
    Binding,
    /// Its upstream room's share of round `n` (1-based; `coverage`, `coverage-2`).
    Upstream(u32),
    /// An upstream room `d` steps up (rule 2).
    Near(u32),
    /// A routine upstream entry (rule 3).
    Routine,
    /// What is left (rule 4).
    Rest,
}

impl Share {
    /// The reason a brief's provenance names (`-match` added for a keyword match).
    pub fn name(self) -> String {
        match self {
            Share::Binding => "binding".into(),
            Share::Upstream(n) => format!("upstream-{n}"),
            Share::Near(d) => format!("near-{d}"),
            Share::Routine => "routine".into(),
            Share::Rest => "rest".into(),
        }
    }
}

/// What an upstream room shows others first (rule 2).
fn export_rank(kind: Kind) -> u8 {
    match kind {
        Kind::Interface => 0,
        Kind::Warning => 1,
        Kind::Decision => 2,
        Kind::Code => 3,
        Kind::Artifact => 4,
        Kind::Convention => 5,
    }
}

/// How a candidate matched the keywords: by their words (0), by meaning alone (1,
/// semantic ranking), not at all (2).
fn tier(c: &Candidate) -> u8 {
    match (c.relevance > 0.0, c.by_meaning) {
        (true, false) => 0,
        (true, true) => 1,
        (false, _) => 2,
    }
}

/// Inside a share (after its key): matches by words first, then by meaning alone, each
/// by score; then newer, then later in the file.
fn within(a: &Candidate, b: &Candidate) -> Ordering {
    tier(a)
        .cmp(&tier(b))
        .then(b.log_score.total_cmp(&a.log_score))
        .then(b.ts.cmp(&a.ts))
        .then(b.pos.cmp(&a.pos))
}

/// The pool in the order the renderer takes it, each candidate with its share, by the
/// rules of `version`. `max`: the brief's entry limit (the binding share is a third of it).
pub fn select(
    ix: &LedgerIndex,
    pool: &[Candidate],
    max: usize,
    version: Version,
) -> Vec<(Candidate, Share)> {
    match version {
        Version::Nearness | Version::Distinct => nearness::select(ix, pool, max),
        _ => rounds::select(ix, pool, max),
    }
}

#[cfg(test)]
mod version_tests {
    use super::Version;

    #[test]
    fn a_recorded_selection_names_its_version_and_an_unknown_one_none() {
        for v in Version::ALL {
            assert_eq!(Version::of(v.name()), Some(v));
        }
        assert_eq!(Version::CURRENT.name(), Some("coverage-4"));
        assert_eq!(Version::of(Some("coverage-5")), None);
    }
}
