//! The index as it was at a ledger position, without a copy: a *horizon* `h` makes every
//! entry at position `h` or later invisible and undoes the supersedes they made. What a
//! receipt's replay ranks on (`memory::receipts::replay`), instead of re-indexing the ledger's
//! prefix.
//!
//! Why this is exact — equal to an index rebuilt from the prefix, not an approximation:
//!
//! - Positions are given in file order and never change, so the prefix's entries are the
//!   live index's positions `0..h`, with the same texts, symbols' meanings and term ids
//!   (terms are interned in order of first use: a term of an entry before `h` got its id
//!   then).
//! - Supersedes are decided one line at a time and never revised: a later line only ever
//!   *sets* `superseded_by` on an entry that had none. A line at position `a` sets it to
//!   `a` on an earlier target, or (a superseder that came before its target) on the entry
//!   at `a` itself. So an entry before `h` was live at `h` exactly when its
//!   `superseded_by` is none or at least `h` ([`LedgerIndex::live_at`]).
//! - BM25's statistics are recounted for the prefix: `N = h`, a term's document
//!   frequencies from its postings before `h` (postings are in document order), the
//!   average lengths from the documents before `h` — the same integers, so the same
//!   floating-point scores, added in the same order ([`TextIndex::score_at`]).
//!
//! The cost is one pass over the hot columns of the prefix (lengths, liveness), not a
//! parse and re-index of its lines.

use crate::inverted::{QueryTerm, Scoring, TextIndex};
use crate::postings::List;
use crate::{LedgerIndex, Scratch};

impl LedgerIndex {
    /// The horizon of a ledger position given in lines: how many indexed entries lie on
    /// lines `1..=lines` (a malformed or duplicate line is not an entry).
    pub fn horizon_at_line(&self, lines: u64) -> u32 {
        self.rows
            .stored_all()
            .partition_point(|s| s.loc.line <= lines) as u32
    }

    /// True if the entry at `pos` was live at horizon `h`: before it, and not superseded
    /// by an entry before it.
    pub fn live_at(&self, pos: u32, h: u32) -> bool {
        pos < h && self.stored(pos).superseded_by().is_none_or(|by| by >= h)
    }
}

impl TextIndex {
    /// [`TextIndex::query`] as the index was at horizon `h`: the same terms in the same
    /// order, their idf over the first `h` documents, terms no document before `h` has
    /// dropped.
    pub fn query_at(&self, text: &str, h: u32) -> Vec<QueryTerm> {
        self.query_counted(text, h as usize, |term| {
            let before = before(self.postings.list(term), h);
            let seed = before.in_summary_or_tags();
            (!before.is_empty()).then_some((seed, before.len()))
        })
    }

    /// True if the first `h` documents can be scored as an index of only them would:
    /// no document's length saturated its 16-bit counter (then the prefix's total length
    /// is not the sum of its documents'). The ledger's size limits make saturation
    /// impossible for entries written through the server.
    pub fn exact_at(&self, h: u32) -> bool {
        self.docs[..h as usize]
            .iter()
            .all(|d| d.st < u16::MAX && d.detail < u16::MAX)
    }

    /// The average lengths of summary + tags and of detail over the first `h` documents,
    /// as an index of those documents computes them (given [`TextIndex::exact_at`]).
    fn averages_at(&self, h: u32) -> (f64, f64) {
        let (mut st, mut d) = (0u64, 0u64);
        for doc in &self.docs[..h as usize] {
            st += u64::from(doc.st);
            d += u64::from(doc.detail);
        }
        let n = f64::from(h.max(1));
        ((st as f64 / n).max(1.0), (d as f64 / n).max(1.0))
    }

    /// [`TextIndex::score`] as the index was at horizon `h` (exact given
    /// [`TextIndex::exact_at`]); `terms` from [`TextIndex::query_at`] with the same `h`.
    pub fn score_at(&self, terms: &[QueryTerm], scoring: Scoring, scratch: &mut Scratch, h: u32) {
        self.score_lists(terms, scoring, scratch, self.averages_at(h), |list| {
            before(list, h)
        });
    }
}

/// The postings of documents before `h`.
fn before(list: List<'_>, h: u32) -> List<'_> {
    list.slice(0, list.below(h))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::index_of;

    fn line(i: u32, room: &str, summary: &str, detail: &str, sup: Option<&str>) -> String {
        let mut v = serde_json::json!({
            "id": format!("mem-{i:04}"), "ts": format!("2026-01-01T00:{:02}:{:02}Z", i / 60, i % 60),
            "kind": "decision", "room_id": room, "author_role": "engineer", "ref": "EPIC-1",
            "tags": ["t"], "summary": summary, "detail": detail, "supersedes": null,
        });
        if let Some(s) = sup {
            v["supersedes"] = serde_json::json!(s);
        }
        v.to_string()
    }

    /// Every prefix of a ledger with supersedes in both directions, a repeated supersede
    /// and growing vocabulary: the horizon's liveness and scores equal a rebuilt index's.
    #[test]
    fn every_prefix_equals_the_index_rebuilt_from_it() {
        let words = [
            "token", "expiry", "queue", "cache", "login", "refresh", "index",
        ];
        let mut lines = Vec::new();
        for i in 0..40u32 {
            let summary = format!(
                "{} {} {} note {i}",
                words[i as usize % 7],
                words[(i as usize * 3) % 7],
                if i > 20 { "late-word" } else { "early" }
            );
            let detail = "more words ".repeat(i as usize % 5);
            let sup = match i {
                10 => Some("mem-0003".to_string()),
                15 => Some("mem-0018".to_string()), // before its target
                25 => Some("mem-0003".to_string()), // already superseded: ignored
                30 => Some("mem-0012".to_string()),
                _ => None,
            };
            lines.push(line(
                i,
                &format!("room-{}", i % 3),
                &summary,
                &detail,
                sup.as_deref(),
            ));
        }
        let live = index_of(&lines);
        for cut in 0..=lines.len() {
            let prefix = index_of(&lines[..cut]);
            let h = live.horizon_at_line(cut as u64);
            assert_eq!(h as usize, prefix.len());
            assert!(live.text.exact_at(h));
            for pos in 0..h {
                assert_eq!(
                    live.live_at(pos, h),
                    prefix.meta(pos).live,
                    "cut {cut} pos {pos}"
                );
            }
            for q in ["token expiry", "late-word queue", "login", "nothing"] {
                let want = prefix.text.query(q);
                let got = live.text.query_at(q, h);
                let key = |v: &[QueryTerm]| {
                    v.iter()
                        .map(|t| (t.term, t.idf.to_bits(), t.idf_seed.to_bits()))
                        .collect::<Vec<_>>()
                };
                assert_eq!(key(&got), key(&want), "cut {cut} query {q}");
                for scoring in [Scoring::Seed, Scoring::Fielded] {
                    let (mut a, mut b) = (Scratch::default(), Scratch::default());
                    prefix.text.score(&want, scoring, &mut a);
                    live.text.score_at(&got, scoring, &mut b, h);
                    for doc in 0..h {
                        assert_eq!(a.get(doc).to_bits(), b.get(doc).to_bits(), "{cut} {q}");
                    }
                }
            }
        }
    }
}
