//! `/overlaps` (and `/overlaps?room=R`): open overlaps side by side — two live entries of
//! different rooms about the same subject, neither superseding the other — with a word
//! diff of their summaries, their rooms and ages, and why they were paired. A pair leaves
//! the page when one side supersedes the other (or names the other's id).
//!
//! The whole-ledger pass behind it is kept between views
//! ([`Memory::overlaps_kept`](crate::memory::Memory::overlaps_kept)): a view of a ledger
//! that grew since starts a pass and waits for it at most [`WAIT`], then shows the kept
//! pairs (closed ones left out) and says how many newer entries the pass has not looked at;
//! a first view waits at most [`FIRST_WAIT`], then says the pass is running.

use axum::extract::{Query, State};
use axum::response::Response;
use maud::{Markup, html};

use super::entry::word_diff;
use super::shell::{self, ago, kind_badge, page, q, shown};
use super::{Shared, html, read};
use crate::clock::Timestamp;
use crate::memory::{OverlapSide, OverlapsView};

/// Pairs one page shows (the rest are counted).
const PAIRS: usize = 50;
/// How long a view of a grown ledger waits for the pass over it before showing the kept
/// pairs (the pass goes on; the next view shows its pairs): long enough for a ledger of
/// ~30k entries to be current at once, short enough that a live ledger of millions,
/// whose pass takes seconds, is not a stalled page after every new entry.
const WAIT: std::time::Duration = std::time::Duration::from_millis(250);
/// How long a first view, with nothing kept, waits for the pass before a page that says
/// it is running (~400k entries' pass on two cores).
const FIRST_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct OverlapsQuery {
    #[serde(default)]
    room: Option<String>,
}

pub(crate) async fn handler(State(c): State<Shared>, Query(oq): Query<OverlapsQuery>) -> Response {
    let room = oq.room.filter(|r| !r.trim().is_empty());
    let kept = |room: Option<String>| {
        let c = c.clone();
        async move { read(&c, move |m| m.overlaps_kept(room.as_deref(), PAIRS)).await }
    };
    let view = match kept(room.clone()).await {
        Ok(Some(v)) if v.current() => v,
        Ok(before) => {
            let m = c.memory.clone();
            let pass = tokio::task::spawn_blocking(move || m.overlaps_refresh_paced());
            let wait = if before.is_some() { WAIT } else { FIRST_WAIT };
            let ended = tokio::time::timeout(wait, pass).await.ok();
            let finished = ended.is_some();
            let failed = match ended {
                Some(Ok(Err(e))) => Some(e),
                Some(Err(e)) => Some(crate::error::Error::Conflict(format!(
                    "the open-overlaps pass ended: {e}"
                ))),
                _ => None,
            };
            if let Some(e) = &failed {
                tracing::warn!("console: the open-overlaps pass failed: {e}");
            }
            match (kept(room.clone()).await, failed, finished) {
                (Ok(Some(v)), _, _) => v,
                (Ok(None), Some(e), _) => return super::error_response(e),
                (Ok(None), None, false) => return html(pending()),
                (Ok(None), None, true) => {
                    return shell::error_page(
                        http::StatusCode::SERVICE_UNAVAILABLE,
                        "Could not read",
                        "the ledger changed under the open-overlaps pass; reload to run it again",
                    );
                }
                (Err(resp), _, _) => return resp,
            }
        }
        Err(resp) => return resp,
    };
    html(render(&view, room.as_deref()))
}

/// A first view whose pass is still running.
fn pending() -> Markup {
    let body = html! {
        h1 { "Open overlaps" }
        section.panel #verdict {
            p #pass-pending {
                "The first pass over the ledger is running (every live decision, interface, "
                "convention and warning is looked up). Reload in a moment: its pairs are kept, "
                "and later views read them."
            }
        }
    };
    page("Open overlaps", "/overlaps", body)
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

fn render(view: &OverlapsView, room: Option<&str>) -> Markup {
    let (found, now) = (&view.found, view.at);
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
            p.muted #as-of {
                "Found by a pass over "
                @if view.current() { "all " (view.as_of) " entries, " } @else { "the first " (view.as_of) " entries, " }
                (ago(&view.computed_at.to_rfc3339(), now)) "."
                @if !view.current() {
                    " " span #newer { (view.entries - view.as_of) }
                    @if view.entries - view.as_of == 1 { " newer entry is" } @else { " newer entries are" }
                    " not looked at yet"
                    @if view.running { " (" span #pass-running { "a pass is running" } ": reload in a moment)" }
                    @else if view.next_pass > now {
                        " (the next pass runs " span #next-pass { "in " (view.next_pass.0 - now.0) " s" }
                        ": one at most every ten times the last one's " (view.took) " s)"
                    }
                    "."
                }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn view(as_of: usize, entries: usize, running: bool) -> OverlapsView {
        OverlapsView {
            found: Default::default(),
            as_of,
            entries,
            computed_at: Timestamp(1_795_608_000),
            at: Timestamp(1_795_608_030),
            running,
            took: 12,
            next_pass: Timestamp(1_795_608_120),
        }
    }

    /// A view of a ledger that grew since the pass says how many entries the pass has not
    /// looked at, and whether one is running; a current one says it looked at all.
    #[test]
    fn the_page_says_how_current_its_pass_is() {
        let stale = render(&view(3, 5, true), None).into_string();
        assert!(stale.contains("the first 3 entries"), "{stale}");
        assert!(
            stale.contains(r#"<span id="newer">2</span> newer entries"#),
            "{stale}"
        );
        assert!(stale.contains(r#"id="pass-running""#), "{stale}");
        assert!(!stale.contains("next-pass"), "{stale}");
        let one = render(&view(4, 5, false), None).into_string();
        assert!(
            one.contains("</span> newer entry is not looked at"),
            "{one}"
        );
        let idle = render(&view(3, 5, false), None).into_string();
        assert!(!idle.contains("pass-running"), "{idle}");
        // Paced: 90 s until the next pass (ten times 12 s after the last one ended).
        assert!(
            idle.contains(r#"<span id="next-pass">in 90 s</span>"#),
            "{idle}"
        );
        let pending = pending().into_string();
        assert!(pending.contains(r#"id="pass-pending""#), "{pending}");
        let current = render(&view(5, 5, false), Some("room-001")).into_string();
        assert!(current.contains("all 5 entries"), "{current}");
        assert!(!current.contains("newer"), "{current}");
    }
}
