//! `/entry/{id}`: every field of one entry, its supersede chain both ways with a word
//! diff between consecutive versions, and its place in the ledger and the hash chain.

use axum::extract::{Path, State};
use axum::response::Response;
use maud::{Markup, html};

use super::shell::{ago, kind_badge, page, q, shown};
use super::{Shared, html, read};
use crate::api::audit::HistoryEntry;
use crate::clock::Timestamp;
use crate::entry::Entry;
use crate::memory::{EntryDetail, MAX_CHAIN};

pub(crate) async fn handler(State(c): State<Shared>, Path(id): Path<String>) -> Response {
    let data = read(&c, move |m| Ok((m.entry_detail(&id)?, m.now()))).await;
    match data {
        Ok((d, now)) => html(render(&d, now)),
        Err(r) => r,
    }
}

/// A word diff of two texts: removed words struck through, added ones marked.
pub(crate) fn word_diff(old: &str, new: &str) -> Markup {
    let diff = similar::TextDiff::from_words(old, new);
    html! {
        span.diff {
            @for ch in diff.iter_all_changes() {
                @match ch.tag() {
                    similar::ChangeTag::Equal => { (shown(ch.value())) }
                    similar::ChangeTag::Delete => { del { (shown(ch.value())) } }
                    similar::ChangeTag::Insert => { ins { (shown(ch.value())) } }
                }
            }
        }
    }
}

fn version(h: &HistoryEntry, current: &str, before: Option<&Entry>, now: Timestamp) -> Markup {
    let e = &h.entry;
    html! {
        li.current[e.id == current] data-id=(e.id) {
            div.meta {
                a href={ "/entry/" (q(&e.id)) } { code { (shown(&e.id)) } }
                (ago(&e.ts, now))
                span { "line " (h.line) }
                @if h.live { span.badge.ok { "live" } } @else { span.badge.superseded { "superseded" } }
            }
            @match before {
                Some(b) => {
                    div.summary { (word_diff(&b.summary, &e.summary)) }
                    @if b.detail != e.detail {
                        details { summary { "detail changed" } pre.detail { (word_diff(&b.detail, &e.detail)) } }
                    }
                }
                None => { div.summary { (shown(&e.summary)) } }
            }
        }
    }
}

fn render(d: &EntryDetail, now: Timestamp) -> Markup {
    let h = &d.entry;
    let e = &h.entry;
    let chain: Vec<&HistoryEntry> = d.older.iter().chain([h]).chain(d.newer.iter()).collect();
    let body = html! {
        h1 { (kind_badge(e.kind.as_str())) " " (shown(&e.summary)) }
        p.sub {
            "in " a href={ "/room/" (q(&e.room_id)) } { (shown(&e.room_id)) }
            " · " (ago(&e.ts, now))
            " · " a href={ "/entry/" (q(&e.id)) } title="permalink" { "permalink" }
        }
        section.panel {
            table.fields {
                tr { th { "id" } td { code { (shown(&e.id)) } } }
                tr { th { "status" } td {
                    @if h.live { span.badge.ok { "live" } }
                    @else {
                        span.badge.superseded { "superseded" }
                        @if let Some(by) = &h.superseded_by { " by " a href={ "/entry/" (q(by)) } { code { (shown(by)) } } }
                    }
                } }
                tr { th { "time" } td { (e.ts) } }
                tr { th { "kind" } td { (kind_badge(e.kind.as_str())) } }
                tr { th { "room" } td { a href={ "/room/" (q(&e.room_id)) } { (shown(&e.room_id)) } } }
                tr { th { "author role" } td { (shown(&e.author_role)) } }
                tr { th { "ref" } td { @if !e.ref_.is_empty() { a href={ "/timeline?superseded=1&ref=" (q(&e.ref_)) } { (shown(&e.ref_)) } } } }
                tr { th { "plan" } td { (shown(e.plan_id.as_deref().unwrap_or(""))) } }
                tr { th { "tags" } td { @for t in &e.tags { a.tag href={ "/timeline?tag=" (q(t)) } { (shown(t)) } } } }
                tr { th { "supersedes" } td { @if let Some(s) = &e.supersedes { a href={ "/entry/" (q(s)) } { code { (shown(s)) } } } } }
                @if !e.redacted.is_empty() { tr { th { "redacted" } td { (e.redacted.join(", ")) } } }
                tr { th { "summary" } td.summary { (shown(&e.summary)) } }
            }
            @if !e.detail.is_empty() { h3 { "Detail" } pre.detail { (shown(&e.detail)) } }
        }
        h2 { "Supersede chain" }
        section.panel {
            @if chain.len() == 1 {
                p.muted { "No other version: this entry replaces none and none replaces it." }
            } @else {
                p.muted { (chain.len()) " versions, oldest first; each shows what changed from the one before."
                    @if d.chain_cut { " The chain is longer than " (MAX_CHAIN) " versions each way and was cut." } }
                ol.chain {
                    @for (i, v) in chain.iter().enumerate() {
                        (version(v, &e.id, (i > 0).then(|| &chain[i - 1].entry), now))
                    }
                }
            }
        }
        h2 { "In the ledger" }
        section.panel {
            table.fields.mono {
                tr { th { "line" } td { (h.line) " (byte offset " (d.offset) ")" } }
                tr { th { "prev" } td { @match &d.prev {
                    Some(p) => { code { (p) } span.muted { " — the link of the line before" } }
                    None => { span.bad-text { "none: an unchained line" } }
                } } }
                tr { th { "its link" } td { code #link { (d.link) } span.muted { " — SHA-256 of this line (first 128 bits)" } } }
                tr { th { "next line" } td { @match &d.next_prev {
                    Some(n) if *n == d.link => { span.ok-text { "✓ carries this link" } }
                    Some(n) => { span.bad-text { "✗ carries " code { (n) } ", not this line's link" } }
                    None => { span.muted { "none (the last entry, or not an entry)" } }
                } } }
            }
        }
    };
    page(
        &e.summary.chars().take(60).collect::<String>(),
        "/timeline",
        body,
    )
}
