//! The domains of `bench brief`'s worlds ([`super::brief_world`]): each a plan (titles,
//! subject nouns, dependencies) and the words its rooms publish with. `freight` is the
//! world the selection was built and measured on; `clinic` was written afterwards, in
//! another domain, with another plan shape and other sentences for every kind of export
//! and note, and measured once as it was written: a check that the selection's figures do
//! not hang on one world's words. Neither is a fixture of a held-out set.

use warroom_memory::entry::Kind;

/// What a sentence is written about: the consumer room (empty for a convention or a
/// note), the publishing room's three nouns, a number and a downstream room's noun.
pub struct Ctx {
    /// The consuming epic's title.
    pub consumer: &'static str,
    /// The consuming epic's first noun.
    pub consumer_noun: &'static str,
    pub a: &'static str,
    pub b: &'static str,
    pub c: &'static str,
    /// A number a note carries (a file, a test, a size).
    pub r: u64,
    /// A downstream room's noun a note happens to share (its subject is still its own).
    pub neighbour: &'static str,
}

/// What an export says.
#[derive(Debug, Clone, Copy)]
pub enum Export {
    /// The interface a direct dependent calls.
    Interface,
    /// A decision binding the named consumer.
    DecisionNamed,
    /// The same decision, about the upstream's subject only (names no consumer).
    Decision,
    /// A warning to the named consumer.
    WarningNamed,
    /// The same warning, about the upstream's subject only.
    Warning,
    /// Client code for the consumer.
    Client,
    /// An event a room two steps down reads.
    Event,
    /// An export later replaced (stale once superseded).
    Replaced,
    /// What replaced it.
    Replacement,
}

/// One domain.
pub struct Domain {
    pub name: &'static str,
    /// (title, nouns, dependencies as indices of earlier epics).
    pub plan: &'static [(&'static str, [&'static str; 3], &'static [usize])],
    /// The epics that publish the four project-wide conventions.
    pub convention_rooms: [usize; 4],
    /// Convention `which` (0–3) of a room.
    pub convention: fn(usize, &Ctx) -> String,
    /// An export's sentence.
    pub export: fn(Export, &Ctx) -> String,
    /// Working note `n` (0–5): its kind and sentence.
    pub note: fn(usize, &Ctx) -> (Kind, String),
}

/// Every domain, the first the default.
pub const ALL: [&Domain; 3] = [&FREIGHT, &CLINIC, &ENERGY];

/// A freight platform, 14 epics, depth 7 (0 → 1 → 2 → 4 → 5 → 6 → 8 → 13).
pub const FREIGHT: Domain = Domain {
    name: "freight",
    plan: &[
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
    ],
    convention_rooms: [0, 2, 5, 9],
    convention: freight_convention,
    export: freight_export,
    note: freight_note,
};

fn freight_convention(which: usize, x: &Ctx) -> String {
    let a = x.a;
    match which {
        0 => format!("All services log JSON lines with a trace_id field; {a} does too."),
        1 => format!(
            "Every public API is versioned in the path (/v1/...), starting with the {a} API."
        ),
        2 => "Money is integer minor units with an ISO 4217 currency; never floats.".to_string(),
        _ => "Timestamps on the wire are RFC 3339 UTC; no local times anywhere.".to_string(),
    }
}

fn freight_export(what: Export, x: &Ctx) -> String {
    let (ct, cn, a, b, c) = (x.consumer, x.consumer_noun, x.a, x.b, x.c);
    match what {
        Export::Interface => format!(
            "{ct} calls GET /v1/{a}/{{id}} for its {cn} flow; the reply carries {b}_id and {c}."
        ),
        Export::DecisionNamed => format!(
            "{ct} must treat a {a} as immutable once confirmed; changes come as a new {a} event."
        ),
        Export::Decision => {
            format!("A confirmed {a} is immutable; a change is a new {a} event with a new {b}_id.")
        }
        Export::WarningNamed => format!(
            "{ct}: the {a} feed may deliver an event twice; deduplicate on {b}_id before acting."
        ),
        Export::Warning => {
            format!("The {a} feed may deliver an event twice; consumers deduplicate on {b}_id.")
        }
        Export::Client => {
            format!("Client for {ct}: import {a}_client and call {a}_client.fetch({b}_id).")
        }
        Export::Event => format!(
            "{ct} reads the {a}.{b}.changed event (schema v2: {b}_id, {c}, at) to keep its {cn} data current."
        ),
        Export::Replaced => format!("{ct} polls the {a} status every 5 seconds."),
        Export::Replacement => format!("{ct} subscribes to {a} status events instead of polling."),
    }
}

fn freight_note(n: usize, x: &Ctx) -> (Kind, String) {
    let (a, b, c, r, nb) = (x.a, x.b, x.c, x.r, x.neighbour);
    match n {
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
                "Internally the {b} worker batches {nb} requests in a bounded queue of {r} items."
            ),
        ),
        3 => (
            Kind::Warning,
            format!("The {c} unit test {r} is flaky under {nb} load; rerun before blaming {b}."),
        ),
        4 => (
            Kind::Decision,
            format!("Feature flag {a}_fast_path_{r} stays off until the {nb} soak test passes."),
        ),
        _ => (
            Kind::Artifact,
            format!("Dashboard for {a} latency {r} lives in ops/{b}.json."),
        ),
    }
}

/// A hospital's clinical platform, 13 epics, depth 6 (0 → 1 → 2 → 4 → 6 → 9 → 12), with
/// more fan-in than freight (scheduling, orders and the portal each join two or three
/// lines of the plan).
pub const CLINIC: Domain = Domain {
    name: "clinic",
    plan: &[
        ("Staff directory", ["staff", "clinician", "shift"], &[]),
        ("Patient registry", ["patient", "chart", "consent"], &[0]),
        ("Scheduling", ["appointment", "exam", "waitlist"], &[1, 0]),
        ("Formulary", ["drug", "dosage", "interaction"], &[]),
        ("Orders", ["order", "specimen", "priority"], &[2, 3]),
        ("Pharmacy", ["prescription", "refill", "dispense"], &[4, 3]),
        ("Lab results", ["result", "panel", "range"], &[4]),
        ("Insurance", ["coverage", "payer", "claim"], &[1]),
        ("Billing", ["charge", "statement", "copay"], &[7, 2]),
        ("Care alerts", ["alarm", "escalation", "pager"], &[6, 5]),
        ("Audit trail", ["access", "trail", "reason"], &[1]),
        ("Patient portal", ["portal", "message", "visit"], &[8, 6, 2]),
        (
            "Quality analytics",
            ["cohort", "outcome", "measure"],
            &[9, 10],
        ),
    ],
    convention_rooms: [0, 3, 7, 10],
    convention: clinic_convention,
    export: clinic_export,
    note: clinic_note,
};

fn clinic_convention(which: usize, x: &Ctx) -> String {
    let a = x.a;
    match which {
        0 => format!(
            "No patient name or record number appears in a log line; the {a} service logs opaque refs only."
        ),
        1 => "Write endpoints take an Idempotency-Key header and replay the first answer for a repeated key.".to_string(),
        2 => format!(
            "Errors are RFC 9457 problem details with a stable type URI, as the {a} service returns them."
        ),
        _ => "Dates of service are calendar dates in the hospital's zone, stored with the zone's name beside them.".to_string(),
    }
}

fn clinic_export(what: Export, x: &Ctx) -> String {
    let (ct, cn, a, b, c) = (x.consumer, x.consumer_noun, x.a, x.b, x.c);
    match what {
        Export::Interface => format!(
            "For {ct}: POST /api/{a}s/search takes a {b} filter and a cursor and answers pages of {a}s with their {c}."
        ),
        Export::DecisionNamed => format!(
            "{ct} never sees a {a} disappear: a removed one is kept with {b}_state retired, so no 404 to handle."
        ),
        Export::Decision => format!(
            "A {a} is never deleted; retiring one sets its {b}_state and keeps every earlier version."
        ),
        Export::WarningNamed => format!(
            "{ct} should allow for {a} search trailing writes by up to two seconds when it looks up a {cn}."
        ),
        Export::Warning => format!(
            "{a} search is eventually consistent: a {b} written a moment ago can be missing from it for two seconds."
        ),
        Export::Client => format!(
            "SDK for {ct}: {a}_api.Client(base_url).find_{b}(ref) returns the {c} with its version."
        ),
        Export::Event => format!(
            "{ct} keeps its copy of {a} data current from the nightly {a} snapshot (columns {b}_ref, {c}, version)."
        ),
        Export::Replaced => format!("{ct} reads {a}s through the old SOAP endpoint."),
        Export::Replacement => {
            format!("{ct} reads {a}s through the REST search; the SOAP endpoint is gone.")
        }
    }
}

fn clinic_note(n: usize, x: &Ctx) -> (Kind, String) {
    let (a, b, c, r, nb) = (x.a, x.b, x.c, x.r, x.neighbour);
    match n {
        0 => (
            Kind::Code,
            format!(
                "Split {a}_handlers into {a}/read and {a}/write; {r} lines moved, none changed."
            ),
        ),
        1 => (
            Kind::Artifact,
            format!("Load-test report {r} for the {b} endpoints is in perf/{a}-{r}.html."),
        ),
        2 => (
            Kind::Decision,
            format!("Inside the {b} service we cache {nb} look-ups for {r} ms."),
        ),
        3 => (
            Kind::Warning,
            format!(
                "Local {c} fixtures drift from the {nb} staging data; regenerate them with make fixtures-{r}."
            ),
        ),
        4 => (
            Kind::Decision,
            format!("The {a} team reviews {nb} pull requests in pairs until release {r}."),
        ),
        _ => (
            Kind::Artifact,
            format!("The runbook for {b} pages is docs/runbooks/{a}-{r}.md."),
        ),
    }
}

/// A power grid operator's platform, 13 epics, depth 6 (0 → 1 → 3 → 5 → 7 → 10 → 12),
/// written third, for the harder worlds: long lines and a wide join at the end.
pub const ENERGY: Domain = Domain {
    name: "energy",
    plan: &[
        ("Asset registry", ["asset", "substation", "feeder"], &[]),
        ("Meter ingest", ["meter", "reading", "interval"], &[0]),
        ("Weather feed", ["forecast", "irradiance", "windspeed"], &[]),
        ("Load model", ["load", "profile", "baseline"], &[1, 2]),
        ("Tariff engine", ["tariff", "band", "peak"], &[1]),
        (
            "Outage detection",
            ["outage", "fault", "restoration"],
            &[3, 0],
        ),
        ("Crew dispatch", ["crew", "ticket", "truck"], &[5]),
        (
            "Demand response",
            ["event", "enrolment", "curtailment"],
            &[5, 4],
        ),
        (
            "Settlement",
            ["settlement", "imbalance", "statement"],
            &[4, 3],
        ),
        ("Grid map", ["map", "layer", "tile"], &[0]),
        ("Customer portal", ["account", "usage", "notice"], &[7, 8]),
        (
            "Regulator reports",
            ["filing", "kpi", "submission"],
            &[8, 5],
        ),
        (
            "Control room",
            ["console", "alarm", "shift"],
            &[10, 6, 9, 11],
        ),
    ],
    convention_rooms: [0, 2, 4, 9],
    convention: energy_convention,
    export: energy_export,
    note: energy_note,
};

fn energy_convention(which: usize, x: &Ctx) -> String {
    let a = x.a;
    match which {
        0 => format!("Every {a} and every reading carries its source system and a quality flag."),
        1 => "Energy is in watt-hours as 64-bit integers; power in watts; never kWh floats."
            .to_string(),
        2 => {
            format!("Intervals are half-open [start, end) in UTC, as the {a} service stores them.")
        }
        _ => "Map coordinates are WGS 84 longitude then latitude, six decimals.".to_string(),
    }
}

fn energy_export(what: Export, x: &Ctx) -> String {
    let (ct, cn, a, b, c) = (x.consumer, x.consumer_noun, x.a, x.b, x.c);
    match what {
        Export::Interface => format!(
            "{ct} streams {a} updates from the {a}.{b} topic (key {b}_id, value {c}) for its {cn} view."
        ),
        Export::DecisionNamed => format!(
            "{ct} gets corrected {a} values as new versions, never an edit in place of an old {b}."
        ),
        Export::Decision => {
            format!(
                "A published {a} is never edited: a correction is a new version with the same {b}_id."
            )
        }
        Export::WarningNamed => format!(
            "{ct}: {a} values for the last interval can arrive up to fifteen minutes late; hold {cn} totals open."
        ),
        Export::Warning => format!(
            "The last interval's {a} values can arrive up to fifteen minutes late, out of order by {b}."
        ),
        Export::Client => {
            format!("Reader for {ct}: {a}_stream.subscribe(group, {b}_id) yields {c} batches.")
        }
        Export::Event => format!(
            "{ct} rebuilds its {cn} totals from the daily {a} extract ({b}_id, {c}, version) at 02:00."
        ),
        Export::Replaced => format!("{ct} pulls {a} files over SFTP every hour."),
        Export::Replacement => {
            format!("{ct} subscribes to the {a} topic; the SFTP drop is closed.")
        }
    }
}

fn energy_note(n: usize, x: &Ctx) -> (Kind, String) {
    let (a, b, c, r, nb) = (x.a, x.b, x.c, x.r, x.neighbour);
    match n {
        0 => (
            Kind::Code,
            format!("Vectorised the {a} parser; {r} lines removed."),
        ),
        1 => (
            Kind::Artifact,
            format!("Replay capture {r} of {b} traffic is in captures/{a}-{r}.pcap."),
        ),
        2 => (
            Kind::Decision,
            format!("Our {b} consumer commits offsets every {r} {nb} messages."),
        ),
        3 => (
            Kind::Warning,
            format!("The {c} soak test {r} times out on the shared runner; use the {nb} pool."),
        ),
        4 => (
            Kind::Decision,
            format!("{a} schema migrations wait for the {nb} freeze to end ({r})."),
        ),
        _ => (
            Kind::Artifact,
            format!("Grafana board {r} for {b} lag: ops/{a}-lag.json."),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each plan is a DAG in order (an epic depends only on earlier ones), of depth ≥ 4,
    /// and at least 12 epics.
    #[test]
    fn every_plan_is_a_deep_enough_dag() {
        for d in ALL {
            assert!(d.plan.len() >= 12, "{}", d.name);
            let mut depth = vec![0usize; d.plan.len()];
            for (i, (_, _, deps)) in d.plan.iter().enumerate() {
                for &p in *deps {
                    assert!(p < i, "{}: epic {i} depends on a later one", d.name);
                    depth[i] = depth[i].max(depth[p] + 1);
                }
            }
            assert!(depth.iter().max().copied().unwrap_or(0) >= 4, "{}", d.name);
        }
    }
}
