//! The page shell and the pieces every page shares: agent text made safe to show, kinds
//! and channel message types as badges, times as ages, an entry as a timeline row, a
//! channel message as a feed row, and the compiled-in stylesheet and script.

use axum::response::{IntoResponse, Response};
use http::{StatusCode, header};
use maud::{DOCTYPE, Markup, html};

use crate::api::audit::HistoryEntry;
use crate::channel::Message;
use crate::clock::{Timestamp, parse_rfc3339};

const CSS: &str = include_str!("assets/console.css");
const JS: &str = include_str!("assets/console.js");
const ICON: &str = include_str!("assets/icon.svg");

/// The top navigation: (path, label).
const NAV: [(&str, &str); 5] = [
    ("/", "Plans"),
    ("/timeline", "Timeline"),
    ("/search", "Search"),
    ("/overlaps", "Overlaps"),
    ("/audit", "Audit"),
];

/// A whole page. `active` is the navigation path to mark.
pub(crate) fn page(title: &str, active: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (plain(title)) " · warroom-memory" }
                link rel="icon" type="image/svg+xml" href="/assets/icon.svg";
                link rel="stylesheet" href="/assets/console.css";
                script src="/assets/console.js" defer {}
            }
            body {
                header.top {
                    a.brand href="/" { "warroom" span { "memory" } }
                    nav {
                        @for (path, label) in NAV {
                            a href=(path) .active[path == active] { (label) }
                        }
                    }
                    form.quick action="/search" method="get" role="search" {
                        input type="search" name="q" placeholder="Search the memory" aria-label="Search";
                    }
                    span #live.live title="Live updates" {}
                    form.signout action="/logout" method="post" {
                        button type="submit" title="End this browser's console session" { "Sign out" }
                    }
                }
                main { (body) }
            }
        }
    }
}

/// An error page with its status.
pub(crate) fn error_page(status: StatusCode, title: &str, message: &str) -> Response {
    let body = html! {
        section.error {
            h1 { (status.as_u16()) " · " (title) }
            p { (message) }
            p { a href="/" { "Back to the plans" } }
        }
    };
    (status, page(title, "", body)).into_response()
}

/// `GET /logout`: the Sign out button on a page of its own (signing out is a POST).
pub(crate) fn sign_out_page() -> Response {
    let body = html! {
        section.error {
            h1 { "Sign out" }
            p { "End this browser's console session?" }
            form.signout-page action="/logout" method="post" {
                button type="submit" { "Sign out" }
            }
        }
    };
    (StatusCode::OK, page("Sign out", "", body)).into_response()
}

pub(crate) async fn css() -> Response {
    asset("text/css; charset=utf-8", CSS)
}

pub(crate) async fn icon() -> Response {
    asset("image/svg+xml", ICON)
}

pub(crate) async fn js() -> Response {
    asset("text/javascript; charset=utf-8", JS)
}

fn asset(kind: &'static str, text: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "max-age=300"),
        ],
        text,
    )
        .into_response()
}

/// A character shown as a marker instead of itself: bidi controls, zero-width and other
/// format characters, controls other than newline and tab.
fn hidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || crate::secrets::invisible(c)
}

/// Agent-written text, escaped, with every hidden character replaced by a visible marker
/// (`U+202E`) that names it, as code-review tools show them; never applied.
pub(crate) fn shown(text: &str) -> Markup {
    if !text.chars().any(hidden) {
        return html! { (text) };
    }
    let mut parts: Vec<(bool, String)> = Vec::new();
    for c in text.chars() {
        let h = hidden(c);
        match parts.last_mut() {
            Some((false, s)) if !h => s.push(c),
            _ => parts.push((h, c.to_string())),
        }
    }
    html! {
        @for (h, s) in &parts {
            @if *h {
                @let code = format!("U+{:04X}", s.chars().next().map_or(0, u32::from));
                span.hidden title={ "hidden character " (code) " (shown, not applied)" } { (code) }
            } @else {
                (s)
            }
        }
    }
}

/// Text for places that hold no markup (a page title, an attribute): hidden characters
/// become their code point in brackets.
pub(crate) fn plain(text: &str) -> String {
    text.chars()
        .map(|c| {
            if hidden(c) {
                format!("[U+{:04X}]", u32::from(c))
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// How long ago `ts` was, coarsely ("3 min ago", "2 d ago"), with the time as a tooltip.
pub(crate) fn ago(ts: &str, now: Timestamp) -> Markup {
    let text = match parse_rfc3339(ts) {
        Ok(t) => {
            let s = now.0 - t.0;
            match s {
                s if s < 0 => "in the future".to_string(),
                0..60 => format!("{s} s ago"),
                60..3600 => format!("{} min ago", s / 60),
                3600..86400 => format!("{} h ago", s / 3600),
                _ => format!("{} d ago", s / 86400),
            }
        }
        Err(_) => ts.to_string(),
    };
    html! { time datetime=(ts) title=(ts) { (text) } }
}

/// A kind as a coloured badge.
pub(crate) fn kind_badge(kind: &str) -> Markup {
    html! { span class={ "kind k-" (kind) } { (kind) } }
}

/// A channel message type as a badge (known lifecycle types have their own colour).
pub(crate) fn type_badge(t: &str) -> Markup {
    let known = [
        "task", "done", "review", "pass", "fail", "fix", "error", "signoff",
    ];
    let class = if known.contains(&t) { t } else { "other" };
    html! { span class={ "mtype t-" (class) } { (shown(t)) } }
}

/// Query-string escaping for a link's parameter value.
pub(crate) fn q(value: &str) -> String {
    let mut out = String::new();
    for b in value.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// One entry as a timeline row.
pub(crate) fn entry_row(h: &HistoryEntry, now: Timestamp) -> Markup {
    let e = &h.entry;
    html! {
        li.entry.retired[!h.live] data-id=(e.id) {
            div.meta {
                (kind_badge(e.kind.as_str()))
                a.room href={ "/room/" (q(&e.room_id)) } { (shown(&e.room_id)) }
                @if !e.author_role.is_empty() { span.role { (shown(&e.author_role)) } }
                @if !e.ref_.is_empty() {
                    a.ref href={ "/timeline?ref=" (q(&e.ref_)) } { (shown(&e.ref_)) }
                }
                (ago(&e.ts, now))
                @if !h.live { span.badge.superseded { "superseded" } }
                @if !e.redacted.is_empty() { span.badge.redacted title="secrets were redacted before writing" { "redacted" } }
            }
            a.summary href={ "/entry/" (q(&e.id)) } { (shown(&e.summary)) }
            @if !e.tags.is_empty() {
                div.tags {
                    @for t in &e.tags { a.tag href={ "/timeline?tag=" (q(t)) } { (shown(t)) } }
                }
            }
        }
    }
}

/// One channel message as a feed row.
pub(crate) fn message_row(m: &Message, now: Timestamp) -> Markup {
    html! {
        li.msg data-id=(m.id) {
            div.meta {
                (type_badge(&m.type_))
                span.from { (shown(&m.from)) }
                @if !m.to.is_empty() { span.arrow { "→" } span.to { (shown(&m.to)) } }
                @if !m.ref_.is_empty() { span.ref { (shown(&m.ref_)) } }
                (ago(&m.ts, now))
            }
            div.body { (shown(&m.body)) }
        }
    }
}

/// Markup on one line, for an SSE `data:` field (newlines become character references,
/// which mean the same inside text and attribute values).
pub(crate) fn one_line(m: Markup) -> String {
    m.into_string()
        .replace('\r', "&#13;")
        .replace('\n', "&#10;")
}
