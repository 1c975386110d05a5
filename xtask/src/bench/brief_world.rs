//! The generated worlds of `cargo xtask bench brief`: a plan of 13–14 epics in a DAG
//! (depth ≥ 5) whose rooms publish, in the plan's order, what named downstream rooms need
//! — interfaces they will call, decisions that bind them, warnings about what they
//! consume, client code and artifacts for them — project-wide conventions, a few
//! superseded exports, and `notes` working notes each (code, artifacts, internal
//! decisions and warnings about the room's own implementation, some sharing a downstream
//! room's nouns). Ground truth by construction: a room needs the live exports naming it
//! and every live convention. The domains — their plans and their words — are
//! [`super::brief_domains`]: the generator is the same, the texts are not.
//!
//! Ours, written for this bench: no fixture of a held-out set, no word of one.

use warroom_memory::clock::Timestamp;
use warroom_memory::entry::{Audience, Entry, Kind};

use super::brief_domains::{Ctx, Domain, Export};
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

/// The epics of `domain`'s world.
pub fn epics(domain: &Domain) -> Vec<Epic> {
    domain
        .plan
        .iter()
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

/// What a sentence of room `ep` is written about ([`Ctx`]).
fn ctx_of(ep: &Epic, consumer: Option<&Epic>, r: u64, neighbour: &'static str) -> Ctx {
    let [a, b, c] = ep.nouns;
    Ctx {
        consumer: consumer.map_or("", |c| c.title),
        consumer_noun: consumer.map_or("", |c| c.nouns[0]),
        a,
        b,
        c,
        r,
        neighbour,
    }
}

impl Writer {
    /// A writer whose first entry is published at a fixed time (every run alike).
    fn new(marked: bool) -> Writer {
        Writer {
            out: Vec::new(),
            ts: 1_790_000_000,
            marked,
        }
    }

    /// Room `e`'s project-wide convention, if it is one of the four rooms that write one.
    fn convention(&mut self, domain: &Domain, ep: &Epic, e: usize, all: &[usize]) {
        if let Some(which) = domain.convention_rooms.iter().position(|&x| x == e) {
            let rule = (domain.convention)(which, &ctx_of(ep, None, 0, ep.nouns[1]));
            self.push(ep, e, Kind::Convention, rule, all.to_vec());
        }
    }

    /// An export of room `e` for `consumer` (epic `d`) replaced by a newer one: the old
    /// one superseded (stale), the new one needed.
    fn replaced(&mut self, domain: &Domain, ep: &Epic, e: usize, consumer: &Epic, d: usize) {
        let cx = ctx_of(ep, Some(consumer), 0, ep.nouns[1]);
        let old = self.out.len();
        self.push(
            ep,
            e,
            Kind::Decision,
            (domain.export)(Export::Replaced, &cx),
            vec![d],
        );
        self.out[old].needed_by.clear();
        self.out[old].superseded = true;
        let new = self.out.len();
        self.push(
            ep,
            e,
            Kind::Decision,
            (domain.export)(Export::Replacement, &cx),
            vec![d],
        );
        self.out[new].entry.supersedes = Some(self.out[old].entry.id.clone());
    }

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

/// `domain`'s entries, in the plan's order (each epic after those it depends on), with
/// `notes` working notes per room; `marked`: every entry published with its audience.
pub fn world(domain: &Domain, notes: usize, marked: bool, seed: u64) -> (Vec<Epic>, Vec<Gen>) {
    let epics = epics(domain);
    let mut rng = Rng::new(seed);
    let mut w = Writer::new(marked);
    let all: Vec<usize> = (0..epics.len()).collect();
    for (e, ep) in epics.iter().enumerate() {
        let b = ep.nouns[1];
        let ctx = |consumer: Option<&Epic>, r: u64, neighbour: &'static str| {
            ctx_of(ep, consumer, r, neighbour)
        };
        w.convention(domain, ep, e, &all);
        // Exports, each naming its consumers.
        for (d, dist) in downstream(&epics, e) {
            let cx = ctx(Some(&epics[d]), 0, b);
            if dist == 1 {
                w.push(
                    ep,
                    e,
                    Kind::Interface,
                    (domain.export)(Export::Interface, &cx),
                    vec![d],
                );
                let decision = (e + d) % 2 == 0;
                // One in three is about the upstream's subject only and names no
                // consumer: what a keyword of the consumer's own job cannot find.
                let named = (e + d) % 3 != 0;
                let (kind, what) = match (decision, named) {
                    (true, true) => (Kind::Decision, Export::DecisionNamed),
                    (true, false) => (Kind::Decision, Export::Decision),
                    (false, true) => (Kind::Warning, Export::WarningNamed),
                    (false, false) => (Kind::Warning, Export::Warning),
                };
                w.push(ep, e, kind, (domain.export)(what, &cx), vec![d]);
                if e % 3 == 0 {
                    w.push(
                        ep,
                        e,
                        Kind::Code,
                        (domain.export)(Export::Client, &cx),
                        vec![d],
                    );
                }
            } else if dist == 2 && (e + d) % 2 == 1 {
                w.push(
                    ep,
                    e,
                    Kind::Interface,
                    (domain.export)(Export::Event, &cx),
                    vec![d],
                );
            }
        }
        // An export replaced by a newer one: the old one is stale.
        if e % 4 == 1
            && !epics[e].deps.is_empty()
            && let Some(&(d, _)) = downstream(&epics, e).iter().find(|(_, dist)| *dist == 1)
        {
            w.replaced(domain, ep, e, &epics[d], d);
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
            let (kind, text) = (domain.note)(n % 6, &ctx(None, r, neighbour));
            w.push(ep, e, kind, text, Vec::new());
        }
    }
    (epics, w.out)
}

/// Words a hard world's notes vary by: generic subjects any room's notes name.
const VARIANTS: [&str; 12] = [
    "session", "catalog", "login", "listing", "codec", "routes", "worker", "bcrypt", "jwt",
    "export", "import", "retry",
];

/// A hard world's generic note `n` (0–5) of a room: one shape whose variable parts are a
/// word `w` and paths, not only a number — internal interfaces among them (a room's
/// private helpers).
fn hard_note(n: usize, a: &str, b: &str, w: &str, nb: &str, r: u64) -> (Kind, String) {
    match n {
        0 => (
            Kind::Warning,
            format!("Do not run the {w} seed script against staging; it truncates the {a} tables."),
        ),
        1 => (
            Kind::Warning,
            format!(
                "Local runs need the {a} fixtures regenerated after pulling; stale ones fail {w} tests."
            ),
        ),
        2 => (
            Kind::Code,
            format!("Dead code from the {w} prototype removed from src/{b}/{w}.rs ({r} lines)."),
        ),
        3 => (
            Kind::Interface,
            format!(
                "Internal: {a}_{w}_helper() in src/{b}/{w}.rs is private to this service; no one else calls it."
            ),
        ),
        4 => (
            Kind::Decision,
            format!("Internally the {w} worker batches {nb} requests in a bounded queue."),
        ),
        _ => (
            Kind::Artifact,
            format!("Moved the {w} snapshot to fixtures/{b}/{w}.json."),
        ),
    }
}

/// A hard world's export `j` of a room, naming no consumer: what its dependents need from
/// it, near and far (the words are the upstream's own).
fn hard_export(j: usize, a: &str, b: &str, c: &str) -> (Kind, String) {
    match j % 6 {
        0 => (
            Kind::Interface,
            format!(
                "GET /v2/{a}s/{{{b}_id}} returns the {a} with its {c} and a version; 404 once retired."
            ),
        ),
        1 => (
            Kind::Decision,
            format!(
                "{a} ids are UUIDv7 strings: sort by them, never parse them or derive the {b} from them."
            ),
        ),
        2 => (
            Kind::Warning,
            format!(
                "The {a} events arrive at least once and out of order; keep the highest version per {b}_id."
            ),
        ),
        3 => (
            Kind::Interface,
            format!(
                "The {a}.{c}.changed event carries {b}_id, {c} and the new version, on the {a} topic."
            ),
        ),
        4 => (
            Kind::Decision,
            format!(
                "A {b} is priced once, when the {a} is confirmed; later {c} changes never re-price it."
            ),
        ),
        _ => (
            Kind::Warning,
            format!(
                "The {a} service answers 429 above fifty requests a second per caller; back off on {c}."
            ),
        ),
    }
}

/// A harder world of `domain` than [`world`]: most exports name no consumer (one in four
/// does) and are needed by dependents one, two and three steps down (each with a chance
/// falling with the distance, drawn from `seed`), a room's internal interfaces among its
/// notes, notes of six generic shapes varying by words and paths, and the deepest rooms
/// needing more than a brief's 15 entries.
pub fn hard_world(domain: &Domain, notes: usize, marked: bool, seed: u64) -> (Vec<Epic>, Vec<Gen>) {
    let epics = epics(domain);
    let mut rng = Rng::new(seed);
    let mut w = Writer::new(marked);
    let all: Vec<usize> = (0..epics.len()).collect();
    for (e, ep) in epics.iter().enumerate() {
        let [a, b, c] = ep.nouns;
        let ctx = |consumer: Option<&Epic>, r: u64, neighbour: &'static str| {
            ctx_of(ep, consumer, r, neighbour)
        };
        w.convention(domain, ep, e, &all);
        let below: Vec<(usize, u32)> = downstream(&epics, e)
            .into_iter()
            .filter(|&(_, d)| d <= 3)
            .collect();
        if !below.is_empty() {
            // Exports naming no consumer: each needed by some of the rooms below.
            for j in 0..(3 + e % 3) {
                let needed: Vec<usize> = below
                    .iter()
                    .filter(|&&(_, d)| rng.below(10) < [9, 6, 4][d as usize - 1])
                    .map(|&(i, _)| i)
                    .collect();
                let (kind, text) = hard_export(j + e, a, b, c);
                w.push(ep, e, kind, text, needed);
            }
            // One in four direct dependents gets an export naming it.
            for &(d, dist) in &below {
                if dist == 1 && rng.below(4) == 0 {
                    let cx = ctx(Some(&epics[d]), 0, b);
                    let what = if rng.below(2) == 0 {
                        Export::Interface
                    } else {
                        Export::DecisionNamed
                    };
                    let kind = if matches!(what, Export::Interface) {
                        Kind::Interface
                    } else {
                        Kind::Decision
                    };
                    w.push(ep, e, kind, (domain.export)(what, &cx), vec![d]);
                }
            }
        }
        // An export replaced by a newer one: the old one is stale.
        if e % 4 == 1
            && let Some(&(d, _)) = below.iter().find(|(_, dist)| *dist == 1)
        {
            w.replaced(domain, ep, e, &epics[d], d);
        }
        for n in 0..notes {
            let r = rng.below(1000);
            let word = VARIANTS[rng.below(VARIANTS.len() as u64) as usize];
            let nb = if below.is_empty() {
                b
            } else {
                epics[below[rng.below(below.len() as u64) as usize].0].nouns[0]
            };
            let (kind, text) = hard_note(n % 6, a, b, word, nb, r);
            w.push(ep, e, kind, text, Vec::new());
        }
    }
    (epics, w.out)
}

#[cfg(test)]
mod hard_tests {
    use super::*;

    /// What the harder worlds promise: most exports name no consumer, some are needed two
    /// and three steps down, rooms write internal interfaces, and some room needs more
    /// than a brief's 15 entries — in every domain.
    #[test]
    fn a_hard_world_is_harder_as_it_says() {
        for d in super::super::brief_domains::ALL {
            let (epics, gens) = hard_world(d, 12, false, 11);
            let exports: Vec<&Gen> = gens
                .iter()
                .filter(|g| !g.needed_by.is_empty() && g.entry.kind != Kind::Convention)
                .collect();
            let named = exports
                .iter()
                .filter(|g| {
                    g.needed_by
                        .iter()
                        .any(|&n| g.entry.summary.contains(epics[n].title))
                })
                .count();
            assert!(
                named * 3 < exports.len(),
                "{}: {named} of {} named",
                d.name,
                exports.len()
            );
            let far = exports
                .iter()
                .filter(|g| {
                    g.needed_by
                        .iter()
                        .any(|&n| distance(&epics, n, g.epic) >= Some(2))
                })
                .count();
            assert!(far > 0, "{}", d.name);
            assert!(
                gens.iter()
                    .any(|g| g.needed_by.is_empty() && g.entry.kind == Kind::Interface),
                "{}",
                d.name
            );
            let most = (0..epics.len())
                .map(|r| {
                    gens.iter()
                        .filter(|g| !g.superseded && g.needed_by.contains(&r))
                        .count()
                })
                .max()
                .unwrap_or(0);
            assert!(most > 15, "{}: {most}", d.name);
        }
    }
}
