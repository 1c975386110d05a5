//! Lays predecessor context out as markdown within hard limits: at most `max_entries`
//! entries (≤ 15) and at most [`MAX_CONTEXT_BYTES`] bytes, whatever the candidates' sizes.
//!
//! Duplicate facts (same kind and the same summary once case, whitespace and trailing
//! punctuation are ignored) are collapsed into the best-ranked copy, which notes how many
//! times the fact was published; duplicates never take a slot. Items are chosen in rank
//! order; an item that does not fit is tried once in a compact form (summary clipped, no
//! detail) and otherwise left out, and the next, smaller candidate may still fit.

use crate::text::count;
use std::collections::HashMap;
use std::fmt::Write;

use super::Candidate;
use crate::clock::Timestamp;
use crate::entry::{Entry, Kind};
use crate::error::Result;
use crate::index::LedgerIndex;

/// Hard limit on the markdown, in bytes.
pub const MAX_CONTEXT_BYTES: usize = 10_240;
/// Hard limit on entries (also the default).
pub const MAX_BRIEF_ENTRIES: usize = 15;
/// The text of an empty context.
pub const EMPTY: &str = "No cross-room context available yet.";

const OUTPUT_BYTES: usize = 1_200;
const OUTPUTS_TOTAL: usize = 3_600;
const SUMMARY_BYTES: usize = 1_000;
const SUMMARY_COMPACT: usize = 240;
const DETAIL_PREVIEW: usize = 240;
const FOOTER_RESERVE: usize = 200;

/// A direct predecessor's latest `done` message.
#[derive(Debug, Clone)]
pub struct PredecessorOutput {
    /// The predecessor's room.
    pub room_id: String,
    /// Its epic ref.
    pub ref_: String,
    /// Sending role.
    pub from: String,
    /// When.
    pub ts: Timestamp,
    /// Message id.
    pub id: String,
    /// Body.
    pub body: String,
}

/// What the renderer produced.
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    /// The markdown.
    pub markdown: String,
    /// Included entry ids, in rank order.
    pub entry_ids: Vec<String>,
    /// Ranked candidates considered, duplicates included.
    pub candidates: usize,
    /// Duplicate entries collapsed into an included one.
    pub duplicates: usize,
    /// Candidates neither included nor collapsed, plus the other rooms' entries the
    /// rules excluded (`unrelated`).
    pub left_out: usize,
    /// Of `left_out`: live entries of unrelated rooms excluded by rule.
    pub unrelated: usize,
    /// The included candidates, in rank order (why each is there).
    pub included: Vec<Candidate>,
    /// Of `left_out`: candidates that did not fit the byte budget, even compact.
    pub over_bytes: usize,
    /// Not in `left_out`: other rooms' live entries their audience keeps from this brief
    /// (the pool's [`crate::brief::pool::Pool::held`]; set by the selection's caller).
    pub held: usize,
}

/// Cuts at a char boundary to at most `max` bytes, marking the cut.
fn clip(text: &str, max: usize) -> String {
    crate::text::clip_within(text, max)
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn group_title(kind: Kind) -> &'static str {
    match kind {
        Kind::Interface => "## Interfaces (contracts to code against)",
        Kind::Convention => "## Conventions (team rules)",
        Kind::Warning => "## Warnings (watch out)",
        Kind::Decision => "## Decisions (and why)",
        Kind::Artifact => "## Artifacts (what was built, where)",
        Kind::Code => "## Code (snippets and commands to reuse)",
    }
}

const KIND_ORDER: [Kind; 6] = [
    Kind::Interface,
    Kind::Convention,
    Kind::Warning,
    Kind::Decision,
    Kind::Artifact,
    Kind::Code,
];

fn item(e: &Entry, ts: i64, copies: usize, compact: bool) -> String {
    let mut s = format!("- **{}**", e.kind);
    if !e.ref_.is_empty() {
        let _ = write!(s, " · {}", e.ref_);
    }
    let _ = write!(
        s,
        " · {} · {} · {} · `{}`\n  {}",
        e.room_id,
        e.author_role,
        Timestamp(ts).date(),
        e.id,
        clip(
            &one_line(&e.summary),
            if compact {
                SUMMARY_COMPACT
            } else {
                SUMMARY_BYTES
            }
        )
    );
    if !compact && !e.detail.trim().is_empty() {
        let _ = write!(
            s,
            "\n  _Detail:_ {}",
            clip(&one_line(&e.detail), DETAIL_PREVIEW)
        );
    }
    if copies > 1 {
        let _ = write!(s, "\n  _(published {copies} times; duplicates collapsed)_");
    }
    s.push('\n');
    s
}

fn outputs_section(outputs: &[PredecessorOutput]) -> String {
    if outputs.is_empty() {
        return String::new();
    }
    let mut s = String::from("## Predecessor outputs\n");
    let each = (OUTPUTS_TOTAL / outputs.len()).min(OUTPUT_BYTES);
    for o in outputs {
        let _ = write!(
            s,
            "\n### {} · {} · `done` by {} · {}\n{}\n",
            o.room_id,
            if o.ref_.is_empty() { "-" } else { &o.ref_ },
            o.from,
            o.ts.date(),
            clip(o.body.trim(), each)
        );
    }
    s.push('\n');
    s
}

/// A lower bound of the compact item of the entry at `pos`, from the index alone (no text
/// read): its fixed parts with the room, the id and one character of summary. A candidate
/// whose bound passes what is left of the budget is skipped at that cost, whatever its size.
fn compact_floor(ix: &LedgerIndex, pos: u32) -> usize {
    "- ****".len()
        + ix.meta(pos).kind.as_str().len()
        + " · ".len() * 3
        + ix.room_of(pos).len()
        + "YYYY-MM-DD".len()
        + " · ``\n  x\n".len()
        + ix.id(pos).len()
}

/// Renders the context. `header` is the title block (already bounded by the caller),
/// `overlaps` the "Open overlaps" section (bounded too: three pairs of clipped lines);
/// `ranked` is the sorted head of the candidates, `candidates` their total number;
/// `reserve` bytes are kept free for what the caller appends after the footer.
/// Duplicates are counted among `ranked`. An error only if an entry's text could not be
/// read back from the ledger.
#[allow(clippy::too_many_arguments)] // each is one input of the layout, named at the call
pub fn render(
    ix: &LedgerIndex,
    header: &str,
    overlaps: &str,
    outputs: &[PredecessorOutput],
    ranked: &[Candidate],
    candidates: usize,
    unrelated: usize,
    max_entries: usize,
    reserve: usize,
) -> Result<Rendered> {
    let max_entries = max_entries.min(MAX_BRIEF_ENTRIES);
    let outputs_md = outputs_section(outputs);
    let mut budget = MAX_CONTEXT_BYTES.saturating_sub(
        header.len() + outputs_md.len() + overlaps.len() + FOOTER_RESERVE + reserve,
    );
    // First pass: count the copies of every fact among the ranked head (by the index's
    // fact hashes: no text is read for candidates that are not shown).
    let mut copies: HashMap<u64, usize> = HashMap::new();
    for c in ranked {
        *copies.entry(ix.fact(c.pos)).or_default() += 1;
    }
    let mut seen: HashMap<u64, ()> = HashMap::new();
    let mut groups: HashMap<Kind, Vec<String>> = HashMap::new();
    let mut out = Rendered {
        candidates,
        ..Rendered::default()
    };
    for c in ranked {
        if out.entry_ids.len() >= max_entries {
            break;
        }
        let kind = ix.meta(c.pos).kind;
        let key = ix.fact(c.pos);
        if seen.contains_key(&key) {
            continue;
        }
        let n = copies[&key];
        let head = if groups.contains_key(&kind) {
            0
        } else {
            group_title(kind).len() + 3
        };
        if compact_floor(ix, c.pos) + head > budget {
            out.over_bytes += 1;
            continue;
        }
        let e = ix.entry(c.pos)?;
        let ts = ix.meta(c.pos).ts;
        let full = item(&e, ts, n, false);
        let chosen = if full.len() + head <= budget {
            Some(full)
        } else {
            Some(item(&e, ts, n, true)).filter(|s| s.len() + head <= budget)
        };
        let Some(text) = chosen else {
            out.over_bytes += 1;
            continue;
        };
        budget -= text.len() + head;
        groups.entry(kind).or_default().push(text);
        out.entry_ids.push(ix.id(c.pos).to_string());
        out.included.push(*c);
        out.duplicates += n - 1;
        seen.insert(key, ());
    }
    out.unrelated = unrelated;
    out.left_out = out.candidates - out.entry_ids.len() - out.duplicates + unrelated;
    if out.entry_ids.is_empty() && outputs.is_empty() && overlaps.is_empty() {
        out.markdown = EMPTY.to_string();
        return Ok(out);
    }
    let mut md = String::with_capacity(MAX_CONTEXT_BYTES);
    md.push_str(header);
    md.push_str(&outputs_md);
    for kind in KIND_ORDER {
        if let Some(items) = groups.get(&kind) {
            let _ = write!(md, "{}\n\n", group_title(kind));
            for i in items {
                md.push_str(i);
            }
            md.push('\n');
        }
    }
    md.push_str(overlaps);
    let _ = writeln!(
        md,
        "_{} shown; {} left out (limits: {max_entries} entries, {MAX_CONTEXT_BYTES} bytes{}){}._",
        count(out.entry_ids.len(), "entry", "entries"),
        count(out.left_out, "more entry", "more entries"),
        if unrelated > 0 {
            format!(
                "; {unrelated} of them decisions, artifacts or code of unrelated rooms that \
                 match no keyword"
            )
        } else {
            String::new()
        },
        if out.duplicates > 0 {
            format!(
                "; {} collapsed",
                count(out.duplicates, "duplicate", "duplicates")
            )
        } else {
            String::new()
        }
    );
    if md.len() > MAX_CONTEXT_BYTES {
        // Unreachable with the reserves above; kept so the limit holds whatever happens.
        md = format!("{}\n", clip(&md, MAX_CONTEXT_BYTES - 1));
    }
    out.markdown = md;
    Ok(out)
}

#[cfg(test)]
mod floor_tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The bound that lets a candidate be skipped unread never passes its real compact
        /// item, in any script: skipping by it changes no brief.
        #[test]
        fn the_floor_never_passes_the_compact_item(
            summary in crate::text::strategies::any_script().prop_filter("non-empty", |s| !s.trim().is_empty()),
            room in "[a-z][a-z0-9-]{0,30}",
            role in "[a-z]{0,12}",
            ref_ in "[A-Z0-9-]{0,8}",
            kind in prop_oneof![Just("decision"), Just("interface"), Just("convention"), Just("code")],
        ) {
            let line = serde_json::json!({"id": "mem-01jabc", "ts": "2026-01-02T03:04:05Z",
                "kind": kind, "room_id": room, "author_role": role, "ref": ref_,
                "summary": summary, "tags": []}).to_string();
            let ix = crate::index::test_support::index_of(&[line]);
            let e = ix.entry(0).unwrap();
            let compact = item(&e, ix.meta(0).ts, 1, true);
            prop_assert!(compact_floor(&ix, 0) <= compact.len(), "{} > {}", compact_floor(&ix, 0), compact.len());
        }
    }
}
