//! The brief as a selection under a budget (DESIGN.md §3.2, docs/brief.md): the pool's
//! candidates put in the order the renderer takes them, so that what a room needs from
//! the rooms before it is covered before anything is repeated. Each rule is one line a
//! manager would accept when it is explained:
//!
//! 1. **Binding first.** Entries for the whole project (conventions, and anything
//!    published with `audience: project`) bind every room: up to a third of the brief.
//! 2. **Every upstream room, near and far, before any gets a second share.** Round by
//!    round, each upstream room (nearest first) gives its best remaining entry: what it
//!    exposes to others first — interfaces, then warnings, then decisions, then code and
//!    artifacts.
//! 3. **Binding entries past the first third** come after the first round.
//! 4. **Then the rest** in rank order (project-wide entries of unrelated rooms, keyword
//!    matches of unrelated rooms).
//!
//! Inside a room's share, its routine entries — those whose shape (the words, numbers
//! aside: "Migration 0042_users.sql adds an index", "Migration 0043_…") repeats among the
//! room's candidates — come after its other entries; then keyword matches come first by
//! their score (relevance × time), then the newest; ties go to the later line. Superseded
//! entries are never in the pool, and the renderer collapses duplicate facts.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use super::Candidate;
use crate::entry::{Audience, Kind};
use crate::index::{LedgerIndex, Sym};

/// Why a candidate is where the selection put it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Share {
    /// For the whole project (rule 1, or rule 3 past the first third).
    Binding,
    /// Its upstream room's share of round `n` (1-based; rule 2).
    Upstream(u32),
    /// What is left (rule 4).
    Rest,
}

impl Share {
    /// The reason a brief's provenance names (`-match` added for a keyword match).
    pub fn name(self) -> String {
        match self {
            Share::Binding => "binding".into(),
            Share::Upstream(n) => format!("upstream-{n}"),
            Share::Rest => "rest".into(),
        }
    }
}

/// What an upstream room shows others first (rule 2).
fn export_rank(kind: Kind) -> u8 {
    match kind {
        Kind::Interface => 0,
        Kind::Warning => 1,
        Kind::Decision => 2,
        Kind::Code => 3,
        Kind::Artifact => 4,
        Kind::Convention => 5,
    }
}

/// Inside a share: matches first by score, then newer, then later in the file.
fn within(a: &Candidate, b: &Candidate) -> Ordering {
    let matched = |c: &Candidate| c.relevance > 0.0;
    matched(b)
        .cmp(&matched(a))
        .then(b.log_score.total_cmp(&a.log_score))
        .then(b.ts.cmp(&a.ts))
        .then(b.pos.cmp(&a.pos))
}

/// The pool in the order the renderer takes it, each candidate with its share. `max`: the
/// brief's entry limit (the binding share is a third of it).
pub fn select(ix: &LedgerIndex, pool: &[Candidate], max: usize) -> Vec<(Candidate, Share)> {
    let mut binding: Vec<Candidate> = Vec::new();
    // Upstream rooms by (distance, room name), each with its candidates.
    let mut rooms: BTreeMap<(u32, &str, Sym), Vec<Candidate>> = BTreeMap::new();
    let mut rest: Vec<Candidate> = Vec::new();
    for c in pool {
        let m = ix.meta(c.pos);
        if Audience::of(ix.audience_of(c.pos), m.kind) == Audience::Project {
            binding.push(*c);
        } else if let Some(d) = c.distance {
            rooms
                .entry((d, ix.room_of(c.pos), m.room))
                .or_default()
                .push(*c);
        } else {
            rest.push(*c);
        }
    }
    binding.sort_by(|a, b| {
        let conv = |c: &Candidate| ix.meta(c.pos).kind != Kind::Convention;
        conv(a).cmp(&conv(b)).then(within(a, b))
    });
    for list in rooms.values_mut() {
        // A shape that repeats in the room marks its entries routine.
        let shapes: Vec<Option<u64>> = list.iter().map(|c| shape(ix, c.pos)).collect();
        let mut count: std::collections::HashMap<u64, usize> = Default::default();
        for s in shapes.iter().flatten() {
            *count.entry(*s).or_default() += 1;
        }
        let routine: std::collections::HashSet<u32> = list
            .iter()
            .zip(&shapes)
            .filter(|(_, s)| s.is_some_and(|s| count[&s] > 1))
            .map(|(c, _)| c.pos)
            .collect();
        list.sort_by(|a, b| {
            // The room's own entries before its routine ones; keyword matches first; then
            // what the room exposes first (by kind).
            let k = |c: &Candidate| {
                (
                    routine.contains(&c.pos),
                    c.relevance <= 0.0,
                    export_rank(ix.meta(c.pos).kind),
                )
            };
            k(a).cmp(&k(b)).then(within(a, b))
        });
        list.reverse(); // popped from the end, best first
    }
    rest.sort_by(|a, b| a.order(b));
    let third = max.div_ceil(3);
    let mut out = Vec::with_capacity(pool.len());
    let mut binding = binding.into_iter();
    out.extend(binding.by_ref().take(third).map(|c| (c, Share::Binding)));
    let mut round = 1;
    let mut lists: Vec<Vec<Candidate>> = rooms.into_values().collect();
    while lists.iter().any(|l| !l.is_empty()) {
        for l in &mut lists {
            if let Some(c) = l.pop() {
                out.push((c, Share::Upstream(round)));
            }
        }
        if round == 1 {
            out.extend(binding.by_ref().map(|c| (c, Share::Binding)));
        }
        round += 1;
    }
    out.extend(binding.map(|c| (c, Share::Binding)));
    out.extend(rest.into_iter().map(|c| (c, Share::Rest)));
    out
}

/// An entry's shape: the words of its summary, lower-cased, without the
/// words (or identifier parts) that hold a digit — so "Migration 0042_users.sql adds an
/// index" and "Migration 0043_users.sql adds an index" are one shape. None if its text
/// cannot be read.
fn shape(ix: &LedgerIndex, pos: u32) -> Option<u64> {
    use std::hash::{BuildHasher, Hasher};
    let e = ix.entry(pos).ok()?;
    let mut h = foldhash::fast::FixedState::with_seed(0x5348_4150).build_hasher();
    for w in e
        .summary
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !w.chars().any(|c| c.is_numeric()))
    {
        for c in w.chars().flat_map(char::to_lowercase) {
            h.write_u32(u32::from(c));
        }
        h.write_u8(0);
    }
    Some(h.finish())
}
