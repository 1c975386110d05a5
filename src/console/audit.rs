//! `/audit`: `verify`'s result — clean, or the violations with their lines; the head to
//! record; unchained lines and forks; a recorded head checked with `?head=`.
//! `/audit/diff?since=…`: what `diff` shows from a time, a line position (`line:N` or a
//! number) or a recorded head (32 hex digits) to now — additions by room and kind,
//! supersedes with their text diffs, violations marked.
//!
//! A full `verify` reads the whole ledger; the page instead continues the last verification
//! over the lines appended since ([`Memory::audit_view`](crate::memory::Memory::audit_view)),
//! says when the last full pass ran, and starts one in the background when it is due.

use axum::extract::{Query, State};
use axum::response::Response;
use maud::{Markup, html};

use super::entry::word_diff;
use super::shell::{ago, kind_badge, page, q, shown};
use super::{Shared, html, read};
use crate::api::audit::DiffArgs;
use crate::audit::diff::DiffReport;
use crate::error::Error;
use crate::memory::AuditView;

/// Changes (violations, supersedes, additions, in that order) on one page of a diff; the
/// page links to the next like the timeline, so a diff since the first line stays small.
const DIFF_PAGE: usize = 50;

#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct AuditQuery {
    #[serde(default)]
    head: Option<String>,
    #[serde(default)]
    since: Option<String>,
    #[serde(default)]
    until: Option<String>,
    /// `/audit/diff`: changes skipped (a page's start).
    #[serde(default)]
    offset: Option<usize>,
}

fn given(v: &Option<String>) -> Option<String> {
    v.as_ref()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

pub(crate) async fn handler(State(c): State<Shared>, Query(aq): Query<AuditQuery>) -> Response {
    let head = given(&aq.head);
    let h = head.clone();
    match read(&c, move |m| m.audit_view(h.as_deref())).await {
        Ok(mut view) => {
            if view.full_due {
                // A full pass in the background, at most one at a time and at most once
                // per `full_verify_seconds`; the next view continues from it.
                let m = c.memory.clone();
                tokio::task::spawn_blocking(move || {
                    if let Err(e) = m.verify_full_pass() {
                        tracing::warn!(error = %e, "the audit page's background full verify failed");
                    }
                });
                view.full_running = true;
            }
            html(render(&view, head.as_deref()))
        }
        Err(r) => r,
    }
}

fn render(view: &AuditView, head: Option<&str>) -> Markup {
    let (r, now) = (&view.report, view.at);
    let ch = &r.chain;
    let body = html! {
        h1 { "Audit" }
        p.sub { (shown(&r.file)) " · "
            (r.lines) " lines, " (r.entries) " entries, " (r.superseded) " superseded" }
        p.sub #passes {
            "last full pass " span #full-at { (ago(&view.full_at.to_rfc3339(), now)) }
            @if view.continued > 0 {
                " · continued over " span #continued { (view.continued) } " line(s) appended since"
            }
            @if view.full_running { " · " span #full-running { "a full pass is running in the background" } }
            " — the lines after a full pass are checked as they arrive; a line changed before them is found by the next full pass"
        }
        section.panel #verdict {
            @if r.ok() {
                p.ok-text { "✓ Clean: every line is a valid entry and every link of the hash chain holds." }
            } @else {
                p.bad-text { "✗ " (r.violations.len()) " violations"
                    @if let Some(rc) = &r.receipts { @if !rc.violations.is_empty() { " (and " (rc.violations.len()) " in the receipts)" } } }
            }
            table.fields {
                tr { th { "head to record" } td { code #head { (ch.head) } span.muted { " (line " (ch.head_line) ")" } } }
                tr { th { "chained lines" } td { (ch.chained) } }
                tr { th { "unchained lines" } td { (ch.unchained) } }
                tr { th { "forks" } td { @if ch.forks.is_empty() { "none" } @for f in &ch.forks { span.bad-text { "line " (f.line) " continues line " (f.continues) } " " } } }
                @if let Some(rh) = &ch.recorded_head {
                    tr { th { "recorded head" } td { code { (rh) } " " @match ch.recorded_head_line {
                        Some(l) => { span.ok-text { "found at line " (l) ", its history intact" } }
                        None => { span.bad-text { "not found" } }
                    } } }
                }
                @if let Some(rc) = &r.receipts {
                    tr { th { "receipts" } td { (rc.receipts) " receipts, head " code { (rc.head) } } }
                }
            }
            form.filters method="get" action="/audit" {
                label { "check a recorded head" input name="head" value=(head.unwrap_or("")) placeholder="32 hex digits" size="34"; }
                button type="submit" { "Check" }
            }
            p { a href={ "/audit/diff?since=" (q(&ch.head)) } { "What changed since this head →" } " (bookmark it to see later additions)" }
        }
        @if !r.violations.is_empty() {
            h2 { "Violations" }
            table.data.violations {
                thead { tr { th { "line" } th { "kind" } th { "what is wrong" } } }
                tbody { @for v in &r.violations { tr {
                    td { (v.line) } td { span.badge.bad { (v.kind) } } td { (shown(&v.message)) }
                } } }
            }
        }
        @if let Some(rc) = &r.receipts { @if !rc.violations.is_empty() {
            h2 { "Receipt violations" }
            table.data { tbody { @for v in &rc.violations { tr {
                td { (v.line) } td { span.badge.bad { (v.kind) } } td { (shown(&v.message)) }
            } } } }
        } }
    };
    page("Audit", "/audit", body)
}

pub(crate) async fn diff(State(c): State<Shared>, Query(aq): Query<AuditQuery>) -> Response {
    let Some(since) = given(&aq.since) else {
        return super::error_response(Error::invalid(
            "since",
            "no starting point given",
            "pass since= a time (24h, 2026-11-20), a line (line:120) or a recorded head",
        ));
    };
    let until = given(&aq.until);
    let offset = aq.offset.unwrap_or(0);
    let mut link = format!("/audit/diff?since={}", q(&since));
    if let Some(u) = &until {
        link.push_str(&format!("&until={}", q(u)));
    }
    let r = read(&c, move |m| {
        let line = since
            .strip_prefix("line:")
            .unwrap_or(&since)
            .parse::<u64>()
            .ok();
        let report = if crate::chain::parse_hex(&since).is_some() {
            let (v, _) = m.verify_cached(Some(&since))?;
            match v.chain.recorded_head_line {
                Some(l) => m.diff_after_line(l)?,
                None => {
                    return Err(Error::NotFound(format!(
                        "the head {since} is not in the ledger: lines were removed or \
                         changed since it was recorded (see /audit?head={since})"
                    )));
                }
            }
        } else if let Some(l) = line {
            m.diff_after_line(l)?
        } else {
            m.diff_report(&DiffArgs {
                since: Some(since),
                until,
                ..DiffArgs::default()
            })?
        };
        Ok(report)
    })
    .await;
    match r {
        Ok(report) => html(render_diff(&report, offset, &link)),
        Err(resp) => resp,
    }
}

/// The part of `list` that falls on the page `[from, to)` of the changes, where `list`
/// starts at change number `start`.
fn on_page<T>(list: &[T], start: usize, from: usize, to: usize) -> &[T] {
    let lo = from.saturating_sub(start).min(list.len());
    let hi = to.saturating_sub(start).min(list.len());
    &list[lo..hi]
}

fn render_diff(d: &DiffReport, offset: usize, link: &str) -> Markup {
    let (from, to) = (offset, offset + DIFF_PAGE);
    let violations = on_page(&d.violations, 0, from, to);
    let sup_start = d.violations.len();
    let superseded = on_page(&d.superseded, sup_start, from, to);
    let mut start = sup_start + d.superseded.len();
    let mut groups = Vec::new();
    for g in &d.added {
        let shown_here = on_page(&g.entries, start, from, to);
        if !shown_here.is_empty() {
            groups.push((g, shown_here));
        }
        start += g.entries.len();
    }
    let total = start;
    let body = html! {
        h1 { "What changed" }
        p.sub { (shown(&d.a)) " → " (shown(&d.b)) }
        section.panel #verdict {
            @if d.append_only() { p.ok-text { "✓ Append-only: nothing before was changed or removed." } }
            @else { p.bad-text { "✗ Not append-only: " (d.counts.violations) " violations" } }
            p { (d.counts.added) " added · " (d.counts.superseded) " superseded · "
                (d.counts.malformed_added) " malformed lines added" }
            @if total > DIFF_PAGE {
                p.muted #page { "Changes " (from.min(total) + usize::from(total > 0)) "–" (to.min(total)) " of " (total) " (violations, then supersedes, then additions)." }
            }
        }
        @if !violations.is_empty() {
            h2 { "Violations" }
            table.data.violations { tbody { @for v in violations { tr {
                td { "line " (v.line) } td { span.badge.bad { (v.kind) } } td { (shown(&v.before)) }
            } } } }
        }
        @if !superseded.is_empty() {
            h2 { "Superseded" }
            ol.feed { @for s in superseded { li {
                div.meta { (kind_badge(s.new.kind.as_str())) a href={ "/entry/" (q(&s.new.id)) } { code { (shown(&s.new.id)) } } " in " (shown(&s.new.room_id)) }
                div.summary { @match &s.old { Some(o) => { (word_diff(&o.summary, &s.new.summary)) } None => { (shown(&s.new.summary)) } } }
            } } }
        }
        @if d.added.is_empty() { h2 { "Added, by room and kind" } p.muted { "Nothing was added." } }
        @if !groups.is_empty() { h2 { "Added, by room and kind" } }
        @for (g, entries) in &groups {
            h3 { a href={ "/room/" (q(&g.room_id)) } { (shown(&g.room_id)) } " " (kind_badge(g.kind.as_str())) " " (g.entries.len()) }
            ul { @for e in entries.iter() {
                li { a href={ "/entry/" (q(&e.id)) } { (shown(&e.summary)) } }
            } }
        }
        nav.pager {
            @if offset > 0 { a rel="prev" href={ (link) "&offset=" (offset.saturating_sub(DIFF_PAGE)) } { "← Previous " (DIFF_PAGE) } }
            @if to < total { a rel="next" href={ (link) "&offset=" (to) } { "Next " (DIFF_PAGE) " changes →" } }
        }
    };
    page("What changed", "/audit", body)
}
