//! `/search?q=`: the ranking `memory_search` uses, with its filters, each hit with its
//! explanation (BM25F share per field, the time factor, the age).

use axum::extract::{Query, State};
use axum::response::Response;
use maud::html;

use super::shell::{entry_row, page};
use super::timeline::TimelineQuery;
use super::{Shared, html, read};
use crate::api::audit::HistoryEntry;
use crate::api::ledger::{SearchArgs, SearchExplanation, SearchOutput};
use crate::config::Identity;

/// Hits a search page shows.
const HITS: u32 = 20;

#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct SearchQuery {
    #[serde(default)]
    q: String,
    #[serde(flatten)]
    filter: TimelineQuery,
}

pub(crate) async fn handler(State(c): State<Shared>, Query(sq): Query<SearchQuery>) -> Response {
    let text = sq.q.trim().to_string();
    let f = sq.filter.clone();
    let result = if text.is_empty() {
        None
    } else {
        let t = text.clone();
        let r = read(&c, move |m| {
            let args = SearchArgs {
                text: t.clone(),
                max_results: Some(HITS),
                filter: f.filter_args()?,
            };
            let out = m.search(args, &Identity::default())?;
            let why = m.explain_search(&t, &out.hits)?;
            Ok((out, why, m.now()))
        })
        .await;
        match r {
            Ok(v) => Some(v),
            Err(resp) => return resp,
        }
    };
    html(render(&text, &sq.filter, result))
}

fn render(
    text: &str,
    f: &TimelineQuery,
    result: Option<(
        SearchOutput,
        Vec<SearchExplanation>,
        crate::clock::Timestamp,
    )>,
) -> maud::Markup {
    let v = |x: &Option<String>| x.clone().unwrap_or_default();
    let body = html! {
        h1 { "Search" }
        form.filters method="get" action="/search" {
            label { "words" input name="q" value=(text) autofocus placeholder="password hashing"; }
            label { "room" input name="room" value=(v(&f.room)); }
            label { "kind" select name="kind" {
                option value="" { "any" }
                @for k in crate::entry::Kind::ALL {
                    option value=(k.as_str()) selected[v(&f.kind) == k.as_str()] { (k.as_str()) }
                }
            } }
            label { "tag" input name="tag" value=(v(&f.tag)); }
            label { "role" input name="role" value=(v(&f.role)); }
            label { "since" input name="since" value=(v(&f.since)); }
            button type="submit" { "Search" }
        }
        @match &result {
            None => { p.muted { "Ranked as agents' " code { "memory_search" } " ranks: BM25F over summary, tags, detail and ref (fused with the cosine of the entries' vectors when semantic ranking is on), times a per-kind time factor." } }
            Some((out, why, now)) => {
                p.sub { (out.total) @if !out.total_exact { "+" } " matches · terms: " code { (out.terms.join(" ")) } " · now " (out.now) }
                ol.feed.hits {
                    @for (i, hit) in out.hits.iter().enumerate() {
                        @let h = HistoryEntry { entry: hit.entry.clone(), live: true, superseded_by: None, line: 0 };
                        (entry_row(&h, *now))
                        @if let (Some(lex), Some(cos), Some(sem), Some(w)) = (hit.lexical, hit.cosine, hit.semantic, hit.weight) {
                            li.explain.semantic {
                                "#" (i + 1) " score " (format!("{:.3}", hit.score)) " = (" (w) " × lexical " (format!("{:.3}", lex))
                                " + " (format!("{:.1}", 1.0 - w)) " × semantic " (format!("{:.3}", sem)) " [cosine " (format!("{:.3}", cos)) "])"
                                " × time " (format!("{:.3}", hit.time_factor)) " (decay " (format!("{:.3}", hit.decay))
                                ", age " (format!("{:.1}", hit.age_hours)) " h) · BM25F " (format!("{:.3}", hit.bm25))
                            }
                        } @else if let Some(x) = why.iter().find(|x| x.id == hit.entry.id) {
                            li.explain {
                                "#" (i + 1) " score " (format!("{:.3}", hit.score)) " = BM25F " (format!("{:.3}", hit.bm25))
                                " (summary " (format!("{:.2}", x.fields[0])) ", tags " (format!("{:.2}", x.fields[1]))
                                ", detail " (format!("{:.2}", x.fields[2])) ", ref " (format!("{:.2}", x.fields[3])) ")"
                                " × time " (format!("{:.3}", hit.time_factor)) " (decay " (format!("{:.3}", hit.decay))
                                ", age " (format!("{:.1}", hit.age_hours)) " h)"
                            }
                        }
                    }
                    @if out.hits.is_empty() { li.empty.muted { "Nothing matches." } }
                }
            }
        }
    };
    page("Search", "/search", body)
}
