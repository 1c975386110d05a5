//! Why each entry is in a brief, and what was left out: the provenance every
//! `memory_get_context` result and every receipt carries.

use std::collections::HashSet;

use crate::api::context::{IncludedOut, OmittedOut};
use crate::context::Scope;
use crate::context::render::Rendered;
use crate::error::Result;
use crate::index::LedgerIndex;

/// The rank group's name (see the module doc of [`crate::context`]).
fn reason(group: u8) -> &'static str {
    match group {
        0 => "upstream-match",
        1 => "upstream",
        2 => "project-wide-match",
        3 => "project-wide",
        _ => "unrelated-match",
    }
}

/// Each included entry with its reason, the keywords it matched and its score parts.
/// Reads back the text of the (at most 15) included entries to find the keywords.
pub(crate) fn reasons(
    ix: &LedgerIndex,
    r: &Rendered,
    keywords: &[String],
) -> Result<Vec<IncludedOut>> {
    let keyword_tokens: Vec<(&String, Vec<String>)> = keywords
        .iter()
        .map(|k| (k, ix.text.tokenize(k)))
        .filter(|(_, t)| !t.is_empty())
        .collect();
    let mut out = Vec::with_capacity(r.included.len());
    for c in &r.included {
        let e = ix.entry(c.pos)?;
        let matched = if c.relevance > 0.0 {
            let text = format!("{} {} {} {}", e.summary, e.tags.join(" "), e.detail, e.ref_);
            let tokens: HashSet<String> = ix.text.tokenize(&text).into_iter().collect();
            keyword_tokens
                .iter()
                .filter(|(_, t)| t.iter().any(|t| tokens.contains(t)))
                .map(|(k, _)| (*k).clone())
                .collect()
        } else {
            Vec::new()
        };
        out.push(IncludedOut {
            id: e.id,
            room_id: e.room_id,
            reason: reason(c.group).to_string(),
            distance: c.distance,
            matched,
            score: c.log_score.exp(),
            relevance: c.relevance,
            time_factor: c.log_time.exp(),
        });
    }
    Ok(out)
}

/// What was left out, by reason: the limits, the rules, supersedes, duplicates, and the
/// room's own entries (from the index's live counts, not a scan).
pub(crate) fn omitted(ix: &LedgerIndex, scope: &Scope, r: &Rendered) -> OmittedOut {
    let own = ix.rooms.get(&scope.room_id);
    let (mut own_room, mut superseded) = (0usize, 0usize);
    for cell in ix.cells() {
        let live: usize = cell.live.iter().map(|&n| n as usize).sum();
        if Some(cell.room) == own {
            own_room += live;
        } else {
            let all: usize = cell.positions.iter().map(Vec::len).sum();
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
    }
}
