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
//! Inside every share, keyword matches come first by their score (relevance × time), then
//! the newest; ties go to the later line. Superseded entries are never in the pool, the
//! renderer collapses duplicate facts, and a routine note — an entry of a room whose
//! shape (kind and words, numbers aside) that room already showed — waits until every
//! other entry had its turn: one migration note stands for the room's migrations.

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
        list.sort_by(|a, b| {
            // Keyword matches first, then what the room exposes first (by kind).
            let k = |c: &Candidate| (c.relevance <= 0.0, export_rank(ix.meta(c.pos).kind));
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
    // Routine notes: a room's entry whose shape (its kind and words, numbers aside) one of
    // its entries already took waits until every other entry had its turn. Looked at for
    // the first entries only (those a brief can show; each costs a read of its text).
    let mut shapes: Vec<std::collections::HashSet<u64>> = vec![Default::default(); lists.len()];
    let mut routine: Vec<Candidate> = Vec::new();
    let mut looked = 0;
    while lists.iter().any(|l| !l.is_empty()) {
        for (l, seen) in lists.iter_mut().zip(&mut shapes) {
            while let Some(c) = l.pop() {
                if looked < SHAPES_LOOKED {
                    looked += 1;
                    if let Some(shape) = shape(ix, c.pos)
                        && !seen.insert(shape)
                    {
                        routine.push(c);
                        continue;
                    }
                }
                out.push((c, Share::Upstream(round)));
                break;
            }
        }
        if round == 1 {
            out.extend(binding.by_ref().map(|c| (c, Share::Binding)));
        }
        round += 1;
    }
    out.extend(binding.map(|c| (c, Share::Binding)));
    out.extend(routine.into_iter().map(|c| (c, Share::Rest)));
    out.extend(rest.into_iter().map(|c| (c, Share::Rest)));
    out
}

/// Upstream entries whose shape is looked at (a brief shows at most 15).
const SHAPES_LOOKED: usize = 64;

/// An entry's shape: its kind and the words of its summary, lower-cased, without the
/// words (or identifier parts) that hold a digit — so "Migration 0042_users.sql adds an
/// index" and "Migration 0043_users.sql adds an index" are one shape. None if its text
/// cannot be read.
fn shape(ix: &LedgerIndex, pos: u32) -> Option<u64> {
    use std::hash::{BuildHasher, Hasher};
    let e = ix.entry(pos).ok()?;
    let mut h = foldhash::fast::FixedState::with_seed(0x5348_4150).build_hasher();
    h.write_u8(e.kind.index() as u8);
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
