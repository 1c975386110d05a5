//! The generated world of `cargo xtask bench brief`: a plan of 14 epics (a freight
//! platform: depth 7) whose rooms publish, in the plan's order, what named downstream
//! rooms need — interfaces they will call, decisions that bind them, warnings about what
//! they consume, client code and artifacts for them — project-wide conventions, a few
//! superseded exports, and `notes` working notes each (code, artifacts, internal
//! decisions and warnings about the room's own implementation, some sharing a downstream
//! room's nouns). Ground truth by construction: a room needs the live exports naming it
//! and every live convention.
//!
//! Ours, written for this bench: no fixture of a held-out set, no word of one.

use warroom_memory::clock::Timestamp;
use warroom_memory::entry::{Audience, Entry, Kind};

use super::corpus::Rng;

/// One epic: its ref, room, title, the subject words its texts use, its dependencies
/// (indices of earlier epics) and its brief keywords (its own job).
#[derive(Debug, Clone)]
pub struct Epic {
    pub ref_: String,
    pub room: String,
    pub title: &'static str,
    pub nouns: [&'static str; 3],
    pub deps: Vec<usize>,
    pub keywords: Vec<String>,
}

/// One generated entry and what the world knows of it.
#[derive(Debug, Clone)]
pub struct Gen {
    pub entry: Entry,
    /// The publishing epic.
    pub epic: usize,
    /// Epics that need it (every epic for a convention).
    pub needed_by: Vec<usize>,
    /// Superseded by a later entry.
    pub superseded: bool,
}

/// (title, nouns, dependencies): the plan. Depth 7 (0 → 1 → 2 → 4 → 5 → 6 → 8 → 13).
const PLAN: [(&str, [&str; 3], &[usize]); 14] = [
    ("Identity", ["identity", "login", "credential"], &[]),
    ("Fleet registry", ["fleet", "vehicle", "registration"], &[0]),
    ("Route planning", ["route", "waypoint", "distance"], &[1]),
    ("Tariffs", ["tariff", "rate", "surcharge"], &[0]),
    ("Booking", ["booking", "shipment", "slot"], &[2, 3]),
    ("Dispatch", ["dispatch", "driver", "assignment"], &[4]),
    ("Tracking", ["tracking", "position", "geofence"], &[5]),
    ("Invoicing", ["invoice", "ledger", "payment"], &[4, 3]),
    ("Alerts", ["alert", "subscriber", "channel"], &[6, 7]),
    ("Reporting", ["report", "metric", "export"], &[7]),
    ("Partner gateway", ["partner", "webhook", "quota"], &[4, 0]),
    ("Warehouse", ["warehouse", "dock", "pallet"], &[4]),
    (
        "Customs",
        ["customs", "declaration", "tariffcode"],
        &[11, 7],
    ),
    ("Mobile app", ["mobile", "screen", "offline"], &[8, 10]),
];

/// The epics of the world.
pub fn epics() -> Vec<Epic> {
    PLAN.iter()
        .enumerate()
        .map(|(i, (title, nouns, deps))| Epic {
            ref_: format!("EPIC-{:02}", i + 1),
            room: format!("room-{:02}", i + 1),
            title,
            nouns: *nouns,
            deps: deps.to_vec(),
            keywords: vec![nouns[0].to_string(), nouns[1].to_string()],
        })
        .collect()
}

/// Every epic downstream of `e`, with its distance (1 = a direct dependent).
pub fn downstream(epics: &[Epic], e: usize) -> Vec<(usize, u32)> {
    (0..epics.len())
        .filter_map(|i| distance(epics, i, e).map(|d| (i, d)))
        .collect()
}

/// How far upstream of `from` epic `to` is, if it is.
pub fn distance(epics: &[Epic], from: usize, to: usize) -> Option<u32> {
    let mut frontier = vec![from];
    for d in 1..=epics.len() as u32 {
        let next: Vec<usize> = frontier
            .iter()
            .flat_map(|&f| epics[f].deps.clone())
            .collect();
        if next.contains(&to) {
            return Some(d);
        }
        if next.is_empty() {
            return None;
        }
        frontier = next;
    }
    None
}

struct Writer {
    out: Vec<Gen>,
    ts: i64,
    marked: bool,
}

impl Writer {
    fn push(&mut self, epic: &Epic, e: usize, kind: Kind, summary: String, needed_by: Vec<usize>) {
        let note = needed_by.is_empty();
        self.ts += 60;
        let audience = self.marked.then(|| {
            if kind == Kind::Convention {
                Audience::Project
            } else if note {
                Audience::Room
            } else {
                Audience::Downstream
            }
        });
        let i = self.out.len();
        self.out.push(Gen {
            entry: Entry {
                id: format!("mem-b{i:06}"),
                ts: Timestamp(self.ts).to_rfc3339(),
                kind,
                room_id: epic.room.clone(),
                author_role: if note { "engineer" } else { "architect" }.into(),
                ref_: epic.ref_.clone(),
                tags: vec![epic.nouns[0].to_string()],
                summary,
                detail: String::new(),
                supersedes: None,
                plan_id: None,
                redacted: Vec::new(),
                audience,
            },
            epic: e,
            needed_by,
            superseded: false,
        });
    }
}

/// The world's entries, in the plan's order (each epic after those it depends on), with
/// `notes` working notes per room; `marked`: every entry published with its audience.
pub fn world(notes: usize, marked: bool, seed: u64) -> (Vec<Epic>, Vec<Gen>) {
    let epics = epics();
    let mut rng = Rng::new(seed);
    let mut w = Writer {
        out: Vec::new(),
        ts: 1_790_000_000,
        marked,
    };
    let all: Vec<usize> = (0..epics.len()).collect();
    for (e, ep) in epics.iter().enumerate() {
        let [a, b, c] = ep.nouns;
        // Project-wide conventions, from four rooms.
        if [0, 2, 5, 9].contains(&e) {
            let rule = [
                format!("All services log JSON lines with a trace_id field; {a} does too."),
                format!("Every public API is versioned in the path (/v1/...), starting with the {a} API."),
                "Money is integer minor units with an ISO 4217 currency; never floats.".to_string(),
                "Timestamps on the wire are RFC 3339 UTC; no local times anywhere.".to_string(),
            ][[0, 2, 5, 9].iter().position(|&x| x == e).unwrap_or(0)]
            .clone();
            w.push(ep, e, Kind::Convention, rule, all.clone());
        }
        // Exports, each naming its consumers.
        for (d, dist) in downstream(&epics, e) {
            let cons = &epics[d];
            let (ct, cn) = (cons.title, cons.nouns[0]);
            if dist == 1 {
                w.push(ep, e, Kind::Interface, format!(
                    "{} calls GET /v1/{a}/{{id}} for its {cn} flow; the reply carries {b}_id and {c}.",
                    ct), vec![d]);
                let kind = if (e + d) % 2 == 0 {
                    Kind::Decision
                } else {
                    Kind::Warning
                };
                // One in three is about the upstream's subject only and names no
                // consumer: what a keyword of the consumer's own job cannot find.
                let named = (e + d) % 3 != 0;
                let text = match (kind == Kind::Decision, named) {
                    (true, true) => format!(
                        "{ct} must treat a {a} as immutable once confirmed; changes come as a new {a} event."
                    ),
                    (true, false) => format!(
                        "A confirmed {a} is immutable; a change is a new {a} event with a new {b}_id."
                    ),
                    (false, true) => format!(
                        "{ct}: the {a} feed may deliver an event twice; deduplicate on {b}_id before acting."
                    ),
                    (false, false) => format!(
                        "The {a} feed may deliver an event twice; consumers deduplicate on {b}_id."
                    ),
                };
                w.push(ep, e, kind, text, vec![d]);
                if e % 3 == 0 {
                    w.push(
                        ep,
                        e,
                        Kind::Code,
                        format!(
                            "Client for {ct}: import {a}_client and call {a}_client.fetch({b}_id)."
                        ),
                        vec![d],
                    );
                }
            } else if dist == 2 && (e + d) % 2 == 1 {
                w.push(ep, e, Kind::Interface, format!(
                    "{ct} reads the {a}.{b}.changed event (schema v2: {b}_id, {c}, at) to keep its {cn} data current."),
                    vec![d]);
            }
        }
        // An export replaced by a newer one: the old one is stale.
        if e % 4 == 1
            && !epics[e].deps.is_empty()
            && let Some(&(d, _)) = downstream(&epics, e).iter().find(|(_, dist)| *dist == 1)
        {
            let ct = epics[d].title;
            let old = w.out.len();
            w.push(
                ep,
                e,
                Kind::Decision,
                format!("{ct} polls the {a} status every 5 seconds."),
                vec![d],
            );
            w.out[old].needed_by.clear();
            w.out[old].superseded = true;
            let new = w.out.len();
            w.push(
                ep,
                e,
                Kind::Decision,
                format!("{ct} subscribes to {a} status events instead of polling."),
                vec![d],
            );
            w.out[new].entry.supersedes = Some(w.out[old].entry.id.clone());
        }

        // Working notes about the room's own implementation.
        let below = downstream(&epics, e);
        for n in 0..notes {
            let r = rng.below(1000);
            // Notes that merely share a downstream room's nouns (a keyword of its job).
            let neighbour = if below.is_empty() {
                b
            } else {
                epics[below[rng.below(below.len() as u64) as usize].0].nouns[0]
            };
            let (kind, text) = match n % 6 {
                0 => (
                    Kind::Code,
                    format!("Renamed {a}_v{r} to {a} in the code now that the old path is gone."),
                ),
                1 => (
                    Kind::Artifact,
                    format!("Migration {r:04}_{b}.sql adds an index on {c}."),
                ),
                2 => (
                    Kind::Decision,
                    format!(
                        "Internally the {b} worker batches {neighbour} requests in a bounded queue of {r} items."
                    ),
                ),
                3 => (
                    Kind::Warning,
                    format!(
                        "The {c} unit test {r} is flaky under {neighbour} load; rerun before blaming {b}."
                    ),
                ),
                4 => (
                    Kind::Decision,
                    format!(
                        "Feature flag {a}_fast_path_{r} stays off until the {neighbour} soak test passes."
                    ),
                ),
                _ => (
                    Kind::Artifact,
                    format!("Dashboard for {a} latency {r} lives in ops/{b}.json."),
                ),
            };
            w.push(ep, e, kind, text, Vec::new());
        }
    }
    (epics, w.out)
}
