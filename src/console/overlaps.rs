//! `/overlaps` (and `/overlaps?room=R`): open overlaps side by side — two live entries of
//! different rooms about the same subject, neither superseding the other — with a word
//! diff of their summaries, their rooms and ages, and why they were paired. A pair leaves
//! the page when one side supersedes the other (or names the other's id). Read through
//! `Memory::open_overlaps`, like the `overlaps` command.

use axum::extract::{Query, State};
use axum::response::Response;
use maud::{Markup, html};

use super::entry::word_diff;
use super::layout::{ago, kind_badge, page, q, shown};
use super::{Shared, html, read};
use crate::clock::Timestamp;
use crate::memory::{OpenOverlaps, OverlapSide};

/// Pairs one page shows (the rest are counted).
const PAIRS: usize = 50;

#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct OverlapsQuery {
    #[serde(default)]
    room: Option<String>,
}

pub(crate) async fn handler(State(c): State<Shared>, Query(oq): Query<OverlapsQuery>) -> Response {
    let room = oq.room.filter(|r| !r.trim().is_empty());
    let r = room.clone();
    match read(&c, move |m| {
        Ok((m.open_overlaps(r.as_deref(), PAIRS)?, m.now()))
    })
    .await
    {
        Ok((found, now)) => html(render(&found, room.as_deref(), now)),
        Err(resp) => resp,
    }
}

fn side(s: &OverlapSide, now: Timestamp) -> Markup {
    html! {
        div.meta {
            (kind_badge(&s.kind))
            a.room href={ "/room/" (q(&s.room_id)) } { (shown(&s.room_id)) }
            span { (shown(&s.author_role)) }
            (ago(&s.ts, now))
            a href={ "/entry/" (q(&s.id)) } { code { (shown(&s.id)) } }
        }
    }
}

fn render(found: &OpenOverlaps, room: Option<&str>, now: Timestamp) -> Markup {
    let title = match room {
        Some(r) => format!("Open overlaps of {r}"),
        None => "Open overlaps".to_string(),
    };
    let body = html! {
        h1 { (shown(&title)) }
        p.sub {
            "Live entries of different rooms about the same subject where neither supersedes the other. "
            "A room reconciles in the channel, then supersedes one side (or names the other's id in its entry)."
        }
        section.panel #verdict {
            @if found.pairs.is_empty() {
                p.ok-text { "✓ No open overlaps (" (found.examined) " live entries looked up)." }
            } @else {
                p.bad-text { (found.open) " open overlap" @if found.open != 1 { "s" } " (" (found.examined) " live entries looked up)" }
                @if found.open > PAIRS { p.muted { "The strongest " (PAIRS) " are shown; " code { "warroom-memory overlaps --json" } " lists them all." } }
            }
            @if let Some(r) = room { p { a href="/overlaps" { "All rooms" } " · " a href={ "/room/" (q(r)) } { "Room " (shown(r)) } } }
        }
        ol.overlaps {
            @for p in found.pairs.iter().take(PAIRS) {
                li.overlap {
                    div.pair {
                        div.side { (side(&p.a, now)) div.summary { (shown(&p.a.summary)) } }
                        div.side { (side(&p.b, now)) div.summary { (shown(&p.b.summary)) } }
                    }
                    div.diff { span.muted { "word diff, older → newer: " } (word_diff(&p.a.summary, &p.b.summary)) }
                    div.why.muted { "why: " (shown(&p.why.join("; "))) }
                }
            }
        }
    };
    page(&title, "/overlaps", body)
}
