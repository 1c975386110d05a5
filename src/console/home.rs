//! `/`: every plan with its epic DAG, each epic's status (its room's latest lifecycle
//! message), its room's entry counts by kind and last activity; then the rooms no plan
//! names. `/plan/{id}`: one plan alone (a permalink; 404 for a plan not registered).

use std::collections::{BTreeMap, HashMap};

use axum::extract::State;
use axum::response::Response;
use maud::{Markup, html};

use super::dag_svg::{self, Node};
use super::shell::{ago, kind_badge, page, q, shown, type_badge};
use super::{Shared, html, read};
use crate::api::plan::DagOut;
use crate::clock::Timestamp;
use crate::entry::Kind;
use crate::memory::RoomSummary;

/// Channel message types that say where an epic stands.
pub(crate) const LIFECYCLE: [&str; 8] = [
    "task", "done", "review", "pass", "fail", "fix", "error", "signoff",
];
/// How many of a room's newest messages are looked through for its status.
const STATUS_LOOKBACK: usize = 50;

struct Data {
    dag: DagOut,
    rooms: BTreeMap<String, RoomSummary>,
    status: HashMap<String, (String, String)>,
    now: Timestamp,
}

pub(crate) async fn handler(State(c): State<Shared>) -> Response {
    match load(&c).await {
        Ok(d) => html(render(&d, None)),
        Err(r) => r,
    }
}

pub(crate) async fn plan(
    State(c): State<Shared>,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> Response {
    match load(&c).await {
        Ok(d) if d.dag.epics.iter().any(|e| e.plan_id == id) => html(render(&d, Some(&id))),
        Ok(_) => super::error_response(crate::error::Error::NotFound(format!(
            "no plan `{}` is registered",
            crate::validate::printable(&id)
        ))),
        Err(r) => r,
    }
}

async fn load(c: &Shared) -> Result<Data, Response> {
    read(c, |m| {
        let dag = m.plan_view()?;
        let rooms = m.room_summaries()?;
        let mut status = HashMap::new();
        for e in &dag.epics {
            let (msgs, _) = m.channel_after(&e.room_id, None, STATUS_LOOKBACK)?;
            if let Some(last) = msgs
                .iter()
                .rev()
                .find(|x| LIFECYCLE.contains(&x.type_.as_str()))
            {
                status.insert(e.room_id.clone(), (last.type_.clone(), last.ts.clone()));
            }
        }
        Ok(Data {
            dag,
            rooms,
            status,
            now: m.now(),
        })
    })
    .await
}

fn counts(s: Option<&RoomSummary>) -> Markup {
    html! {
        div.counts {
            @match s {
                Some(s) => {
                    @for k in Kind::ALL {
                        @let n = s.live[k.index()];
                        @if n > 0 { span title={ (n) " live " (k.as_str()) " entries" } { (kind_badge(k.as_str())) " " (n) } }
                    }
                }
                None => { span.muted { "no entries yet" } }
            }
        }
    }
}

fn render(d: &Data, only: Option<&str>) -> Markup {
    let mut plans: Vec<&str> = Vec::new();
    for e in &d.dag.epics {
        if !plans.contains(&e.plan_id.as_str()) && only.is_none_or(|o| o == e.plan_id) {
            plans.push(&e.plan_id);
        }
    }
    if let Some(p) = only {
        let body = plan_section(d, p);
        return page(&format!("Plan {p}"), "/", body);
    }
    let planned: Vec<&str> = d.dag.epics.iter().map(|e| e.room_id.as_str()).collect();
    let body = html! {
        h1 { "Plans" }
        p.sub { (plans.len()) " plans · " (d.dag.epics.len()) " epics · " (d.rooms.len()) " rooms with entries · "
            a #overlaps-link href="/overlaps" { "open overlaps between rooms" } }
        @if plans.is_empty() {
            section.panel {
                p { "No plan is registered yet. Register one with " code { "warroom-memory plan register FILE" } " or the "
                    code { "memory_register_plan" } " tool; its epics and their dependencies appear here." }
            }
        }
        @for cycle in &d.dag.cycles {
            section.panel.warn { p.bad-text { "Dependency cycle: " (cycle.join(" → ")) } }
        }
        @for p in &d.dag.problems {
            section.panel.warn { p.bad-text { (shown(p)) } }
        }
        @for plan in &plans {
            (plan_section(d, plan))
        }
        @let others: Vec<(&String, &RoomSummary)> = d.rooms.iter().filter(|(r, _)| !planned.contains(&r.as_str())).collect();
        @if !others.is_empty() {
            h2 { "Rooms outside the plans" }
            div.grid {
                @for (room, s) in others {
                    div.card {
                        h3 { a href={ "/room/" (q(room)) } { (shown(room)) } }
                        (counts(Some(s)))
                        @if let Some(t) = s.last { p.muted { "last entry " (ago(&t.to_rfc3339(), d.now)) } }
                    }
                }
            }
        }
    };
    page("Plans", "/", body)
}

fn plan_section(d: &Data, plan: &str) -> Markup {
    let epics: Vec<&crate::api::plan::EpicOut> =
        d.dag.epics.iter().filter(|e| e.plan_id == plan).collect();
    let label = |e: &crate::api::plan::EpicOut| format!("{}/{}", e.plan_id, e.ref_);
    let index: HashMap<String, usize> = epics
        .iter()
        .enumerate()
        .map(|(i, e)| (label(e), i))
        .collect();
    let edges: Vec<(usize, usize)> = d
        .dag
        .edges
        .iter()
        .filter_map(|[a, b]| Some((*index.get(a)?, *index.get(b)?)))
        .collect();
    let nodes: Vec<Node> = epics
        .iter()
        .map(|e| Node {
            reference: e.ref_.clone(),
            title: e.title.clone(),
            room: e.room_id.clone(),
            status: d.status.get(&e.room_id).map(|s| s.0.clone()),
        })
        .collect();
    html! {
        section.panel.plan data-plan=(plan) {
            h2 { a href={ "/plan/" (q(plan)) } { "Plan " (shown(plan)) } }
            div.dag { (dag_svg::draw(&nodes, &edges)) }
            table.data.epics {
                thead { tr { th { "Epic" } th { "Room" } th { "Status" } th { "Live entries" } th { "Last entry" } } }
                tbody {
                    @for e in &epics {
                        @let s = d.rooms.get(&e.room_id);
                        tr {
                            td { strong { (shown(&e.ref_)) } " " (shown(&e.title))
                                @if !e.depends_on.is_empty() { div.muted { "after " (e.depends_on.join(", ")) } } }
                            td { a href={ "/room/" (q(&e.room_id)) } { (shown(&e.room_id)) } }
                            td { @match d.status.get(&e.room_id) {
                                Some((t, ts)) => { (type_badge(t)) " " (ago(ts, d.now)) }
                                None => { span.muted { "not started" } }
                            } }
                            td { (counts(s)) }
                            td { @match s.and_then(|s| s.last) {
                                Some(t) => { (ago(&t.to_rfc3339(), d.now)) }
                                None => { span.muted { "—" } }
                            } }
                        }
                    }
                }
            }
        }
    }
}
