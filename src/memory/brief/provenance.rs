//! Why each entry is in a brief, and what was left out: the provenance every
//! `memory_get_context` result and every receipt carries.

use crate::api::brief::{IncludedOut, OmittedOut};
use crate::brief::Scope;
use crate::brief::render::Rendered;
use crate::index::LedgerIndex;

/// The rank group's name (see the module doc of [`crate::brief`]).
fn reason(group: u8) -> &'static str {
    match group {
        0 => "upstream-match",
        1 => "upstream",
        2 => "project-wide-match",
        3 => "project-wide",
        _ => "unrelated-match",
    }
}

/// Each included entry with its reason, the keywords it matched (a keyword matches when
/// one of its terms is in the entry's postings: no text is read) and its score parts —
/// with semantic ranking, its cosine when it was a candidate by meaning or by words.
pub(crate) fn reasons(
    ix: &LedgerIndex,
    r: &Rendered,
    keywords: &[String],
    cosines: Option<&std::collections::HashMap<u32, f64>>,
    at: Option<u32>,
    selection: crate::brief::select::Version,
) -> Vec<IncludedOut> {
    // The terms the pool searched: a word the selection does not search matched nothing.
    let terms: Vec<(&String, Vec<crate::index::QueryTerm>)> = keywords
        .iter()
        .map(|k| {
            let distinct = selection == crate::brief::select::Version::Distinct;
            let mut t = match (distinct, at) {
                (true, Some(h)) => ix.text.query_at(k, h),
                _ => ix.text.query(k),
            };
            t.retain(|q| selection.searches(q));
            (k, t)
        })
        .filter(|(_, t)| !t.is_empty())
        .collect();
    let mut out = Vec::with_capacity(r.included.len());
    for (c, id) in r.included.iter().zip(&r.entry_ids) {
        let matched = if c.relevance > 0.0 {
            terms
                .iter()
                .filter(|(_, t)| t.iter().any(|q| ix.text.has(q, c.pos)))
                .map(|(k, _)| (*k).clone())
                .collect()
        } else {
            Vec::new()
        };
        out.push(IncludedOut {
            id: id.clone(),
            room_id: ix.room_of(c.pos).to_string(),
            reason: reason(c.group).to_string(),
            distance: c.distance,
            matched,
            score: c.log_score.exp(),
            relevance: c.relevance,
            time_factor: c.log_time.exp(),
            cosine: cosines.and_then(|m| m.get(&c.pos).copied()),
        });
    }
    out
}

/// What was left out, by reason: the limits, the rules, supersedes, duplicates, and the
/// room's own entries (from the index's live counts, not a scan; at a horizon `at`, from
/// the cells' positions before it).
pub(crate) fn omitted(
    ix: &LedgerIndex,
    scope: &Scope,
    r: &Rendered,
    at: Option<u32>,
) -> OmittedOut {
    let own = ix.rooms.get(&scope.room_id);
    let (mut own_room, mut superseded) = (0usize, 0usize);
    for cell in ix.cells() {
        let (live, all) = match at {
            None => (
                cell.live.iter().map(|&n| n as usize).sum(),
                cell.positions.iter().map(Vec::len).sum(),
            ),
            Some(h) => cell.positions.iter().fold((0, 0), |(live, all), ps| {
                let before = &ps[..ps.partition_point(|&p| p < h)];
                let l = before.iter().filter(|&&p| ix.live_at(p, h)).count();
                (live + l, all + before.len())
            }),
        };
        if Some(cell.room) == own {
            own_room += live;
        } else {
            superseded += all - live;
        }
    }
    let shown = r.included.len() + r.duplicates + r.over_bytes;
    OmittedOut {
        entry_limit: r.candidates.saturating_sub(shown),
        byte_limit: r.over_bytes,
        not_eligible: r.unrelated,
        superseded,
        duplicates: r.duplicates,
        own_room,
        kept_by_audience: r.held,
    }
}
