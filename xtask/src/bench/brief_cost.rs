//! `bench brief-cost`: what a brief deep in a plan costs through MCP as the ledger and the
//! plan grow — p50 of `memory_get_context` over stdio at each ledger size, for plans of
//! each number of epics in two shapes: a chain (each epic depends on the two before it,
//! so the deepest rooms have nearly every other room upstream, at growing distances) and
//! a wide plan (half the epics are roots, every other epic depends on all of them: many
//! direct predecessors, each given a direct predecessor's share). One fresh project and
//! one server per cell; the briefed rooms are the deepest (at most 12), each `ROUNDS`
//! times, after one untimed brief.

use std::path::Path;

use serde::Serialize;

use super::compare::{chain_plan, fresh_project, time_briefs};
use super::daemon::spawn_agent_as;
use super::measure::Micros;

/// Briefs of each briefed room timed.
const ROUNDS: usize = 3;
/// Most rooms briefed per plan.
const ROOMS: usize = 12;

/// A plan's shape.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Shape {
    /// Each epic on the two before it.
    Chain,
    /// Half the epics roots, the others each on every root.
    Wide,
}

/// One cell's figures.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    pub entries: usize,
    pub epics: usize,
    pub shape: Shape,
    /// Upstream rooms of the briefed rooms (the most of them).
    pub upstream: usize,
    /// Brief round trips, µs.
    pub context: Micros,
}

/// The wide plan of `epics` epics (rooms `room-000…`): the first half roots, the others
/// each depending on every root.
pub fn wide_plan(epics: usize) -> serde_json::Value {
    let roots = (epics / 2).max(1);
    let mut plan = chain_plan(epics);
    for (i, e) in plan["epics"]
        .as_array_mut()
        .expect("a plan's epics")
        .iter_mut()
        .enumerate()
    {
        let deps: Vec<String> = if i < roots {
            Vec::new()
        } else {
            (0..roots).map(|d| format!("EPIC-{d:03}")).collect()
        };
        e["depends_on"] = serde_json::json!(deps);
    }
    plan
}

/// The briefed rooms of a plan of `epics` epics in `shape`, and the most upstream rooms
/// one of them has.
fn briefed(epics: usize, shape: Shape) -> (Vec<String>, usize) {
    let from = match shape {
        Shape::Chain => epics.saturating_sub(ROOMS),
        Shape::Wide => (epics / 2).max(1).max(epics.saturating_sub(ROOMS)),
    };
    let rooms = (from..epics).map(|i| format!("room-{i:03}")).collect();
    let upstream = match shape {
        Shape::Chain => epics.saturating_sub(1),
        Shape::Wide => (epics / 2).max(1),
    };
    (rooms, upstream)
}

/// Measures one cell: `exe` on a fresh project at `root` with the ledger at `ledger`.
pub fn cell(
    exe: &Path,
    root: &Path,
    ledger: &Path,
    entries: usize,
    epics: usize,
    shape: Shape,
) -> anyhow::Result<Cell> {
    anyhow::ensure!(epics >= 2, "a plan needs at least two epics");
    let plan = match shape {
        Shape::Chain => chain_plan(epics),
        Shape::Wide => wide_plan(epics),
    };
    fresh_project(exe, root, ledger, &plan)?;
    let runtime = root.join("run");
    std::fs::create_dir_all(&runtime)?;
    let cache = root.join("cache");
    let mut agent = spawn_agent_as(exe, root, &runtime, "cost", None, "direct", Some(&cache))?;
    agent.wait_for(0)?;
    let (rooms, upstream) = briefed(epics, shape);
    let times = time_briefs(&mut agent, &rooms, ROUNDS)?;
    drop(agent.stdin);
    let _ = agent.child.wait();
    Ok(Cell {
        entries,
        epics,
        shape,
        upstream,
        context: Micros::of(times),
    })
}

/// The cells as a table: one row per size, one column per plan.
pub fn markdown(cells: &[Cell]) -> String {
    use std::fmt::Write;
    let mut plans: Vec<(usize, Shape, usize)> = Vec::new();
    let mut sizes: Vec<usize> = Vec::new();
    for c in cells {
        if !plans.iter().any(|p| (p.0, p.1) == (c.epics, c.shape)) {
            plans.push((c.epics, c.shape, c.upstream));
        }
        if !sizes.contains(&c.entries) {
            sizes.push(c.entries);
        }
    }
    let mut out = String::from(
        "`memory_get_context` p50 over stdio, the deepest rooms of each plan (upstream rooms each):\n\n| entries |",
    );
    for (epics, shape, up) in &plans {
        let shape = match shape {
            Shape::Chain => "chain",
            Shape::Wide => "wide",
        };
        let _ = write!(out, " {epics} epics, {shape} ({up} up) |");
    }
    out.push_str("\n|---:|");
    out.push_str(&"---:|".repeat(plans.len()));
    out.push('\n');
    for n in sizes {
        let _ = write!(out, "| {n} |");
        for (epics, shape, _) in &plans {
            match cells
                .iter()
                .find(|c| (c.entries, c.epics, c.shape) == (n, *epics, *shape))
            {
                Some(c) => {
                    let _ = write!(out, " {:.2} ms |", c.context.p50 / 1e3);
                }
                None => out.push_str(" — |"),
            }
        }
        out.push('\n');
    }
    out
}
