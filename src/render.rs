//! Human-readable text for results: the CLI's default output and the readable text copy
//! that accompanies every MCP `structuredContent`.
//!
//! Edge code: the core returns typed results; only this module decides how they look.

use std::fmt::Write;

use crate::api::ledger::{GetOutput, PublishOutput, QueryOutput, SearchOutput};
use crate::entry::Entry;

/// Longest detail shown in list views before pointing at `memory_get`.
const DETAIL_PREVIEW: usize = 300;

/// Cuts `text` to at most `max` bytes at a character boundary, marking the cut.
pub fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// One-line header of an entry: kind, id, room/role, ref, time, tags.
pub fn entry_header(e: &Entry) -> String {
    let mut s = format!("[{}] {} · {}/{}", e.kind, e.id, e.room_id, e.author_role);
    if !e.ref_.is_empty() {
        let _ = write!(s, " · {}", e.ref_);
    }
    let _ = write!(s, " · {}", e.ts);
    if !e.tags.is_empty() {
        let _ = write!(s, " · tags: {}", e.tags.join(", "));
    }
    if let Some(sup) = &e.supersedes {
        let _ = write!(s, " · supersedes {sup}");
    }
    s
}

/// An entry as a short block: header, summary, clipped detail.
pub fn entry_block(e: &Entry, full_detail: bool) -> String {
    let mut s = entry_header(e);
    for line in e.summary.lines() {
        let _ = write!(s, "\n    {line}");
    }
    if !e.detail.is_empty() {
        if full_detail {
            let _ = write!(s, "\n    detail:");
            for line in e.detail.lines() {
                let _ = write!(s, "\n      {line}");
            }
        } else {
            let shown = clip(&e.detail.replace('\n', " "), DETAIL_PREVIEW);
            let _ = write!(s, "\n    detail ({} bytes): {shown}", e.detail.len());
        }
    }
    if !e.redacted.is_empty() {
        let _ = write!(
            s,
            "\n    (redacted before storing: {})",
            e.redacted.join(", ")
        );
    }
    s
}

/// Text of a publish result.
pub fn publish(o: &PublishOutput) -> String {
    let mut s = format!("published {}\n{}", o.entry.id, entry_block(&o.entry, false));
    if !o.redacted.is_empty() {
        let _ = write!(
            s,
            "\nnote: secrets were redacted before writing: {}",
            o.redacted.join(", ")
        );
    }
    s
}

fn view_note(excluded: &Option<String>) -> String {
    match excluded {
        Some(r) => format!(" (your room {r} left out; pass room_id to include it)"),
        None => String::new(),
    }
}

/// Text of a query result.
pub fn query(o: &QueryOutput) -> String {
    if o.entries.is_empty() {
        return format!("no matching entries{}", view_note(&o.excluded_room));
    }
    let mut s = format!(
        "{} of {} matching entries, newest first{}{}",
        o.entries.len(),
        o.total,
        if o.truncated { " (truncated)" } else { "" },
        view_note(&o.excluded_room)
    );
    for e in &o.entries {
        let _ = write!(s, "\n\n{}", entry_block(e, false));
    }
    s
}

/// Text of a search result.
pub fn search(o: &SearchOutput) -> String {
    if o.hits.is_empty() {
        return format!(
            "no hits for terms [{}] at {}{}",
            o.terms.join(", "),
            o.now,
            view_note(&o.excluded_room)
        );
    }
    let mut s = format!(
        "{} of {} hits for terms [{}] at {}{}",
        o.hits.len(),
        o.total,
        o.terms.join(", "),
        o.now,
        view_note(&o.excluded_room)
    );
    for (i, h) in o.hits.iter().enumerate() {
        let _ = write!(
            s,
            "\n\n{}. score {:.4} = bm25 {:.4} × decay {:.4} (age {:.1} h)\n{}",
            i + 1,
            h.score,
            h.bm25,
            h.decay,
            h.age_hours,
            entry_block(&h.entry, false)
        );
    }
    s
}

/// Text of a get result, with the supersede chain.
pub fn get(o: &GetOutput) -> String {
    let mut s = format!(
        "{} (line {}, {})\n{}",
        o.entry.id,
        o.line,
        if o.live { "live" } else { "SUPERSEDED" },
        entry_block(&o.entry, true)
    );
    if !o.replaced.is_empty() {
        let _ = write!(s, "\n\nreplaced (older, nearest first):");
        for e in &o.replaced {
            let _ = write!(s, "\n  {}\n    {}", entry_header(e), clip(&e.summary, 200));
        }
    }
    if !o.replaced_by.is_empty() {
        let _ = write!(s, "\n\nreplaced by (newer, nearest first):");
        for e in &o.replaced_by {
            let _ = write!(s, "\n  {}\n    {}", entry_header(e), clip(&e.summary, 200));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_respects_char_boundaries() {
        assert_eq!(clip("héllo", 2), "h…");
        assert_eq!(clip("abc", 3), "abc");
    }
}
