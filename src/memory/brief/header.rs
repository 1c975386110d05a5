//! The brief's title block ([`header`]): the room, its epic and plan, its upstream, the
//! keywords and what else was searched. Counted in the brief's byte budget.

use std::fmt::Write;

use super::BriefInputs;

/// Upstream epics named in the header before "and N more".
const HEADER_UPSTREAM: usize = 8;

/// The brief's title block: the room, its epic and plan, its upstream, the keywords.
pub(super) fn header(i: &BriefInputs) -> String {
    let mut header = format!("# Predecessor context for {}", i.room);
    if let (Some(r), Some(p)) = (&i.epic_ref, &i.plan_id) {
        let _ = write!(header, " ({r} · plan {p})");
    }
    header.push_str("\n\n");
    if !i.upstream.is_empty() {
        let names: Vec<String> = i
            .upstream
            .iter()
            .take(HEADER_UPSTREAM)
            .map(|u| {
                format!(
                    "{} ({}, {})",
                    u.ref_,
                    u.room_id,
                    if u.distance == 1 {
                        "direct".to_string()
                    } else {
                        format!("{} steps up", u.distance)
                    }
                )
            })
            .collect();
        let more = i.upstream.len().saturating_sub(HEADER_UPSTREAM);
        let _ = writeln!(
            header,
            "Upstream: {}{}",
            names.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        );
    }
    if !i.keywords.is_empty() {
        let kw = crate::text::clip(&i.keywords.join(", "), 300);
        let _ = writeln!(header, "Brief keywords: {kw}");
    }
    // As `BriefInputs::searched` says: the title when it is not one of the keywords, the
    // epic's words, and neither without keywords.
    let title_searched = i.epic_title.as_ref().is_some_and(|t| {
        !i.keywords.is_empty()
            && !i
                .keywords
                .iter()
                .any(|k| k.to_lowercase() == t.to_lowercase())
    });
    if let (Some(t), true) = (&i.epic_title, title_searched) {
        let t = crate::text::clip(&t.split_whitespace().collect::<Vec<_>>().join(" "), 120);
        let _ = writeln!(header, "Searched too: the epic's title, {t}");
    }
    if let (Some(w), false) = (&i.epic_words, i.keywords.is_empty()) {
        let _ = writeln!(
            header,
            "Searched too: the epic's objective, description and criteria ({})",
            crate::text::count(w.lines().count(), "line", "lines")
        );
    }
    header.push('\n');
    header
}
