//! `/timeline`: live entries newest first, filtered by query parameters (`room`, `kind`,
//! `ref`, `tag`, `role`, `since`, `until`, `superseded=1`), a page at a time through a
//! cursor (`before`); on the first page new entries arrive from `/events` while it is open.

use axum::extract::{Query, State};
use axum::response::Response;
use maud::{Markup, html};

use super::shell::{entry_row, page, q};
use super::{Shared, html, read};
use crate::api::audit::HistoryEntry;
use crate::api::ledger::FilterArgs;
use crate::config::Identity;
use crate::entry::Kind;
use crate::error::Result;
use crate::index::Filter;
use crate::memory::Memory;

/// Entries per page.
pub(crate) const PAGE: usize = 50;

/// The timeline's parameters (also `/events`' filter).
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub(crate) struct TimelineQuery {
    #[serde(default)]
    pub room: Option<String>,
    #[serde(default)]
    pub kind: Option<String>,
    #[serde(default, rename = "ref")]
    pub ref_: Option<String>,
    #[serde(default)]
    pub tag: Option<String>,
    #[serde(default)]
    pub role: Option<String>,
    #[serde(default)]
    pub since: Option<String>,
    #[serde(default)]
    pub until: Option<String>,
    #[serde(default)]
    pub superseded: Option<String>,
    #[serde(default)]
    pub before: Option<String>,
}

fn given(v: &Option<String>) -> Option<String> {
    v.as_ref()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

impl TimelineQuery {
    /// The filter arguments of the operations (`memory_query`'s, `memory_search`'s).
    pub(crate) fn filter_args(&self) -> Result<FilterArgs> {
        Ok(FilterArgs {
            tags: given(&self.tag).map(|t| vec![t]),
            kind: given(&self.kind)
                .map(|k| Kind::parse("kind", &k))
                .transpose()?,
            room_id: given(&self.room),
            exclude_room: None,
            author_role: given(&self.role),
            ref_: given(&self.ref_),
            since: given(&self.since),
            until: given(&self.until),
        })
    }

    /// The core filter these parameters ask for (errors name the parameter).
    pub(crate) fn filter(&self, m: &Memory) -> Result<Filter> {
        let (mut f, _) = m.build_filter(&self.filter_args()?, &Identity::default())?;
        f.include_superseded = self.with_superseded();
        Ok(f)
    }

    fn with_superseded(&self) -> bool {
        self.superseded.as_deref() == Some("1")
    }

    /// The parameters as a query string (without `before`).
    pub(crate) fn query_string(&self) -> String {
        let pairs = [
            ("room", given(&self.room)),
            ("kind", given(&self.kind)),
            ("ref", given(&self.ref_)),
            ("tag", given(&self.tag)),
            ("role", given(&self.role)),
            ("since", given(&self.since)),
            ("until", given(&self.until)),
            (
                "superseded",
                self.with_superseded().then(|| "1".to_string()),
            ),
        ];
        pairs
            .iter()
            .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k}={}", q(v))))
            .collect::<Vec<_>>()
            .join("&")
    }
}

/// True if `h` passes `f` (for entries arriving live; the page itself asks the index).
pub(crate) fn passes(f: &Filter, h: &HistoryEntry) -> bool {
    let e = &h.entry;
    let ts = crate::clock::parse_rfc3339(&e.ts).map(|t| t.0).unwrap_or(0);
    (f.include_superseded || h.live)
        && f.kind.is_none_or(|k| k == e.kind)
        && f.room.as_ref().is_none_or(|r| r.matches(&e.room_id))
        && f.exclude_room
            .as_ref()
            .is_none_or(|r| !r.matches(&e.room_id))
        && f.author_role.as_ref().is_none_or(|r| *r == e.author_role)
        && f.ref_.as_ref().is_none_or(|r| *r == e.ref_)
        && (f.tags.is_empty() || f.tags.iter().any(|t| e.tags.contains(t)))
        && f.since.is_none_or(|s| ts >= s.0)
        && f.until.is_none_or(|u| ts <= u.0)
}

pub(crate) async fn handler(State(c): State<Shared>, Query(tq): Query<TimelineQuery>) -> Response {
    let t = tq.clone();
    let data = read(&c, move |m| {
        let count = m.entry_count()?;
        let f = t.filter(m)?;
        let page = m.timeline(&f, given(&t.before).as_deref(), PAGE)?;
        Ok((count, page, m.now()))
    })
    .await;
    let (count, p, now) = match data {
        Ok(d) => d,
        Err(r) => return r,
    };
    let qs = tq.query_string();
    let first = given(&tq.before).is_none();
    let events = format!(
        "/events?after={count}{}{qs}",
        if qs.is_empty() { "" } else { "&" }
    );
    let body = html! {
        h1 { "Timeline" }
        p.sub { "Entries newest first" @if first { ", live: new ones appear at the top" } "." }
        (filters(&tq))
        ol #feed.feed data-events=[first.then_some(&events)] {
            @for h in &p.entries { (entry_row(h, now)) }
            @if p.entries.is_empty() { li.empty.muted { "No entry matches." } }
        }
        div.pager {
            @if let Some(next) = &p.next {
                a.button href={ "/timeline?" (qs) @if !qs.is_empty() { "&" } "before=" (q(next)) } { "Older entries →" }
            }
            @if !first { " " a href={ "/timeline?" (qs) } { "Newest" } }
        }
    };
    html(page("Timeline", "/timeline", body))
}

fn filters(t: &TimelineQuery) -> Markup {
    let v = |x: &Option<String>| given(x).unwrap_or_default();
    html! {
        form.filters method="get" action="/timeline" {
            label { "room" input name="room" value=(v(&t.room)) placeholder="room-001 or room-*"; }
            label { "kind" select name="kind" {
                option value="" { "any" }
                @for k in Kind::ALL {
                    option value=(k.as_str()) selected[v(&t.kind) == k.as_str()] { (k.as_str()) }
                }
            } }
            label { "ref" input name="ref" value=(v(&t.ref_)) placeholder="EPIC-001"; }
            label { "tag" input name="tag" value=(v(&t.tag)); }
            label { "role" input name="role" value=(v(&t.role)); }
            label { "since" input name="since" value=(v(&t.since)) placeholder="24h or 2026-11-01"; }
            label { "until" input name="until" value=(v(&t.until)); }
            label { "retired" select name="superseded" {
                option value="" { "live only" }
                option value="1" selected[t.with_superseded()] { "include superseded" }
            } }
            button type="submit" { "Filter" }
        }
    }
}
