//! `/room/{room}`: the room's channel as a live feed, its entries, its upstream and
//! downstream rooms, what its manager reads first (the predecessor context, exactly as
//! `memory_get_context` returns it, computed without writing a receipt: a person looking
//! is not a brief served) and the receipts of the briefs it was served; `/receipt/{id}`:
//! one receipt with its reasons and omissions, replayed.

use axum::extract::{Path, State};
use axum::response::Response;
use maud::{Markup, html};

use super::shell::{ago, entry_row, message_row, page, q, shown};
use super::{Shared, html, read};
use crate::api::brief::{BriefArgs, BriefOutput};
use crate::channel::Message;
use crate::clock::Timestamp;
use crate::config::Identity;
use crate::error::Error;
use crate::index::{Filter, RoomPattern};
use crate::memory::{Replay, TimelinePage};
use crate::receipts::Receipt;

/// Channel messages and entries a room page shows (older ones: the timeline).
const MESSAGES: usize = 100;
const ENTRIES: usize = 30;
const RECEIPTS: usize = 20;

struct Data {
    room: String,
    count: u64,
    messages: Vec<Message>,
    channel_total: usize,
    entries: TimelinePage,
    upstream: Vec<String>,
    downstream: Vec<String>,
    brief: BriefOutput,
    receipts: Vec<Receipt>,
    now: Timestamp,
}

pub(crate) async fn handler(State(c): State<Shared>, Path(room): Path<String>) -> Response {
    let data = read(&c, move |m| {
        crate::validate::path_component("room_id", &room)?;
        if !m.room_exists(&room)? {
            return Err(Error::NotFound(format!(
                "no room `{}`: no entry names it and no plan gives it an epic",
                crate::validate::printable(&room)
            )));
        }
        let count = m.entry_count()?;
        let (messages, channel_total) = m.channel_after(&room, None, MESSAGES)?;
        let f = Filter {
            room: Some(RoomPattern::parse("room", &room)?),
            include_superseded: true,
            ..Filter::default()
        };
        let entries = m.timeline(&f, None, ENTRIES)?;
        let dag = m.plan_view()?;
        let rooms_of = |label: &str| {
            dag.epics
                .iter()
                .find(|e| format!("{}/{}", e.plan_id, e.ref_) == label)
                .map(|e| e.room_id.clone())
        };
        let mut downstream: Vec<String> = Vec::new();
        for [a, b] in &dag.edges {
            if rooms_of(a).as_deref() == Some(room.as_str())
                && let Some(r) = rooms_of(b)
                && !downstream.contains(&r)
            {
                downstream.push(r);
            }
        }
        let args = BriefArgs {
            room_id: Some(room.clone()),
            brief_keywords: None,
            max_entries: None,
            plan_id: None,
        };
        let brief = m.brief_unrecorded(args, &Identity::default())?;
        let receipts: Vec<Receipt> = m.receipts_newest(Some(&room), None, RECEIPTS)?;
        Ok(Data {
            upstream: m.upstream_rooms(&room)?,
            downstream,
            count,
            messages,
            channel_total,
            entries,
            brief,
            receipts,
            now: m.now(),
            room,
        })
    })
    .await;
    match data {
        Ok(d) => html(render(&d)),
        Err(r) => r,
    }
}

fn room_links(rooms: &[String]) -> Markup {
    html! {
        @if rooms.is_empty() { span.muted { "none" } }
        @for r in rooms { a.tag href={ "/room/" (q(r)) } { (shown(r)) } " " }
    }
}

fn render(d: &Data) -> Markup {
    let events = format!(
        "/events?after={}&room={}&chan={}",
        d.count,
        q(&d.room),
        d.channel_total
    );
    let body = html! {
        h1 { "Room " (shown(&d.room)) }
        p.sub {
            "upstream: " (room_links(&d.upstream)) " · downstream: " (room_links(&d.downstream))
            " · " a href={ "/timeline?superseded=1&room=" (q(&d.room)) } { "all its entries" }
            " · " a #overlaps-link href={ "/overlaps?room=" (q(&d.room)) } { "its open overlaps with other rooms" }
        }
        div.two {
            div {
                h2 { "What its manager reads first" }
                section.panel {
                    p.muted { "The predecessor context as " code { "memory_get_context" } " returns it now: "
                        (d.brief.entry_ids.len()) " entries, " (d.brief.bytes) " bytes"
                        @if d.brief.truncated { ", cut to fit" } "." }
                    pre.brief #brief { (shown(&d.brief.markdown)) }
                    @if !d.brief.accounts.is_empty() {
                        h3 { "Per upstream room" }
                        table.data #accounts {
                            thead { tr { th { "room" } th { "steps up" } th { "shown" } th { "working notes" } th { "left out" } th { "the rest" } } }
                            tbody { @for a in &d.brief.accounts { tr {
                                td { a href={ "/room/" (q(&a.room_id)) } { (a.room_id) } }
                                td { (a.distance) }
                                td { (a.shown) " of " (a.live) }
                                td { (a.working_notes) }
                                td { (a.left_out()) }
                                td { a href={ "/timeline?room=" (q(&a.room_id)) } { "its entries" } }
                            } } }
                        }
                        p.muted { "Why each entry is there: docs/brief.md (binding first, then nearer upstream rooms before farther ones, routine notes last, then the rest)." }
                    }
                }
            }
            div {
                h2 { "Channel" }
                p.muted { (d.channel_total) " messages" @if d.channel_total > d.messages.len() { ", the newest " (d.messages.len()) " shown" } "; new ones appear below." }
                ol #channel.feed {
                    @for msg in &d.messages { (message_row(msg, d.now)) }
                    @if d.messages.is_empty() { li.empty.muted { "No message yet." } }
                }
                h2 { "Its entries" }
                ol #feed.feed data-events=(events) {
                    @for h in &d.entries.entries { (entry_row(h, d.now)) }
                    @if d.entries.entries.is_empty() { li.empty.muted { "No entry yet." } }
                }
                @if d.entries.next.is_some() {
                    p { a href={ "/timeline?superseded=1&room=" (q(&d.room)) } { "Older entries →" } }
                }
                h2 { "Briefs served" }
                @if d.receipts.is_empty() { p.muted { "No brief was served to this room yet." } }
                @else {
                    table.data.receipts {
                        thead { tr { th { "receipt" } th { "asked by" } th { "entries" } th { "when" } } }
                        tbody { @for r in &d.receipts { tr {
                            td { a href={ "/receipt/" (q(&r.id)) } { code { (r.id) } } }
                            td { (shown(r.by.role.as_deref().unwrap_or("operator"))) }
                            td { (r.included.len()) }
                            td { (ago(&r.ts, d.now)) }
                        } } }
                    }
                }
            }
        }
    };
    page(&format!("Room {}", d.room), "/", body)
}

pub(crate) async fn receipt(State(c): State<Shared>, Path(id): Path<String>) -> Response {
    let data = read(&c, move |m| Ok((m.replay_receipt(&id)?, m.now()))).await;
    match data {
        Ok((r, now)) => html(render_receipt(&r, now)),
        Err(r) => r,
    }
}

fn render_receipt(rp: &Replay, now: Timestamp) -> Markup {
    let r = &rp.receipt;
    let o = &r.omitted;
    let body = html! {
        h1 { "Brief receipt " code { (r.id) } }
        p.sub { "served to " a href={ "/room/" (q(&r.room_id)) } { (shown(&r.room_id)) } " · " (ago(&r.ts, now)) }
        section.panel {
            @if rp.identical {
                p.ok-text #replay { "✓ Replayed: the brief recomputed from the ledger as it was is byte-identical (SHA-256 " code { (rp.sha256) } ")." }
            } @else {
                p.bad-text #replay { "✗ Replay differs from what was served:" }
                ul { @for d in &rp.differences { li { (shown(d)) } } }
            }
            table.fields {
                tr { th { "asked by" } td { (shown(r.by.room.as_deref().unwrap_or("operator"))) " / " (shown(r.by.role.as_deref().unwrap_or("-"))) } }
                tr { th { "ledger position" } td.mono { "line " (r.ledger.lines) ", head " (r.ledger.head) } }
                tr { th { "ranked at" } td { (r.now) } }
                tr { th { "plan / epic" } td { (shown(r.plan_id.as_deref().unwrap_or("-"))) " / " (shown(r.epic_ref.as_deref().unwrap_or("-"))) } }
                tr { th { "keywords" } td { (shown(&scrubbed(&r.keywords.join(", ")))) } }
                @if let Some(t) = &r.epic_title {
                    tr { th { "searched too" } td { "the epic's title, " (shown(&scrubbed(t))) } }
                }
                tr { th { "upstream" } td { @for u in &r.upstream { span.tag { (shown(&u.room_id)) " (" (u.distance) ")" } } } }
                tr { th { "size" } td { (r.bytes) " bytes, at most " (r.max_entries) " entries" } }
            }
        }
        h2 { "Included, in rank order" }
        table.data.included {
            thead { tr { th { "entry" } th { "room" } th { "why" } th { "matched" } th { "score" } th { "relevance" } th { "time" } } }
            tbody { @for i in &r.included { tr {
                td { a href={ "/entry/" (q(&i.id)) } { code { (shown(&i.id)) } } }
                td { (shown(&i.room_id)) @if let Some(d) = i.distance { span.muted { " (" (d) " up)" } } }
                td { (i.reason) }
                td { (shown(&scrubbed(&i.matched.join(", ")))) }
                td { (format!("{:.3}", i.score)) }
                td { (format!("{:.3}", i.relevance)) }
                td { (format!("{:.3}", i.time_factor)) }
            } } }
        }
        h2 { "Left out" }
        table.data.omitted { tbody {
            tr { th { "past the entry limit" } td { (o.entry_limit) } }
            tr { th { "past the byte limit" } td { (o.byte_limit) } }
            tr { th { "not eligible (no keyword matched)" } td { (o.not_eligible) } }
            tr { th { "superseded" } td { (o.superseded) } }
            tr { th { "duplicates collapsed" } td { (o.duplicates) } }
            tr { th { "the room's own entries" } td { (o.own_room) } }
            tr { th { "kept from this room by their audience (working notes)" } td { (o.kept_by_audience) } }
        } }
        @if !r.accounts.is_empty() {
            h2 { "Per upstream room" }
            table.data #receipt-accounts {
                thead { tr { th { "room" } th { "steps up" } th { "shown" } th { "working notes" } th { "left out" } } }
                tbody { @for a in &r.accounts { tr {
                    td { a href={ "/room/" (q(&a.room_id)) } { (shown(&a.room_id)) } }
                    td { (a.distance) }
                    td { (a.shown) " of " (a.live) }
                    td { (a.working_notes) }
                    td { (a.left_out()) }
                } } }
            }
        }
        @if rp.identical {
            h2 { "What the manager read" }
            pre.brief { (shown(&rp.markdown)) }
        }
    };
    page("Receipt", "/", body)
}

/// Receipts written before brief keywords were scanned may hold a secret among them:
/// shown only through the scanner's redaction.
fn scrubbed(text: &str) -> String {
    crate::secrets::scan(text).text
}
