//! `bench brief`'s oversized-entries figures: one room writes N
//! conventions of ~3 KB summary and ~8 KB detail — a brief of 10 KiB holds few of them —
//! and another room's brief, and other rooms' publishes while briefs run, are timed. The
//! same N of short conventions beside it says what the size alone costs.

use std::time::Instant;

use serde::Serialize;
use warroom_memory::api::brief::BriefArgs;
use warroom_memory::api::ledger::PublishArgs;
use warroom_memory::config::Identity;
use warroom_memory::entry::Kind;

use super::brief::memory_of;
use super::brief_world::{Gen, world};

/// One row: N conventions of one size.
#[derive(Debug, Clone, Serialize)]
pub struct Oversized {
    pub conventions: usize,
    /// Bytes of summary + detail of each.
    pub bytes_each: usize,
    pub brief_p50_ms: f64,
    pub brief_p90_ms: f64,
    /// Another room's publish while a thread asks for briefs without pause.
    pub publish_p50_ms: f64,
    pub publish_p90_ms: f64,
    /// The same publishes with no brief running.
    pub alone_p50_ms: f64,
}

fn text(i: usize, words: usize) -> String {
    const W: [&str; 12] = [
        "retry", "ledger", "invoice", "schema", "timeout", "backoff", "queue", "shard", "replica",
        "checksum", "cursor", "window",
    ];
    (0..words)
        .map(|k| format!("{}{}", W[(i * 7 + k * 3) % W.len()], (i + k) % 97))
        .collect::<Vec<_>>()
        .join(" ")
}

fn pct(mut v: Vec<f64>, p: usize) -> f64 {
    v.sort_by(f64::total_cmp);
    v[(v.len() * p / 100).min(v.len() - 1)]
}

/// The figures for `n` conventions of ~11 KB (`big`) or ~60 bytes from room `rooms[3]`.
pub fn measure(work: &std::path::Path, n: usize, big: bool) -> anyhow::Result<Oversized> {
    let (epics, mut gens) = world(&super::brief_domains::FREIGHT, 5, false, 7);
    let from = epics[3].room.clone();
    let mut ts = 1_790_000_000 + 10_000_000;
    let template = gens
        .iter()
        .find(|g| g.entry.kind == Kind::Convention)
        .expect("the world has conventions")
        .entry
        .clone();
    for i in 0..n {
        ts += 1;
        let mut e = template.clone();
        e.id = format!("mem-x{i:07}");
        e.ts = warroom_memory::clock::Timestamp(ts).to_rfc3339();
        e.room_id = from.clone();
        if big {
            e.summary = text(i, 380); // ~3 KB
            e.detail = text(i + 1, 1000); // ~8 KB
        } else {
            e.summary = text(i, 6);
            e.detail = String::new();
        }
        gens.push(Gen {
            entry: e,
            epic: 3,
            needed_by: Vec::new(),
            superseded: false,
        });
    }
    let bytes_each = gens
        .last()
        .map_or(0, |g| g.entry.summary.len() + g.entry.detail.len());
    let refs: Vec<&Gen> = gens.iter().collect();
    let (m, _dir) = memory_of(work, &epics, &refs)?;
    let deep = Identity {
        room_id: epics.last().map(|e| e.room.clone()),
        role: Some("manager".into()),
        credential: None,
    };
    for _ in 0..3 {
        m.brief_unrecorded(BriefArgs::default(), &deep)?;
    }
    let briefs: Vec<f64> = (0..30)
        .map(|_| {
            let t = Instant::now();
            let _ = m.brief_unrecorded(BriefArgs::default(), &deep);
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    let writer = Identity {
        room_id: Some(epics[1].room.clone()),
        role: Some("engineer".into()),
        credential: None,
    };
    let publish = |i: usize| {
        let args: PublishArgs = serde_json::from_value(serde_json::json!({
            "kind": "decision", "summary": format!("Publish {i} while briefs run")
        }))
        .expect("valid arguments");
        let t = Instant::now();
        let _ = m.publish(args, &writer);
        t.elapsed().as_secs_f64() * 1e3
    };
    let alone: Vec<f64> = (0..30).map(|i| publish(1000 + i)).collect();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let publishes: Vec<f64> = std::thread::scope(|s| {
        s.spawn(|| {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = m.brief_unrecorded(BriefArgs::default(), &deep);
            }
        });
        let out = (0..30)
            .map(|i| {
                let t = Instant::now();
                let args: PublishArgs = serde_json::from_value(serde_json::json!({
                    "kind": "decision", "summary": format!("Publish {i} while briefs run")
                }))
                .expect("valid arguments");
                let _ = m.publish(args, &writer);
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        out
    });
    Ok(Oversized {
        conventions: n,
        bytes_each,
        brief_p50_ms: pct(briefs.clone(), 50),
        brief_p90_ms: pct(briefs, 90),
        publish_p50_ms: pct(publishes.clone(), 50),
        publish_p90_ms: pct(publishes, 90),
        alone_p50_ms: pct(alone, 50),
    })
}
