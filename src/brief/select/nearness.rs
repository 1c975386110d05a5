//! The selection `coverage-3` (the rules in [`super`]'s doc): binding entries, then the
//! upstream rooms by distance, what each exposes first by kind, routine notes last.
//!
//! Routine is told by word prints kept per entry ([`crate::index::word_print`]): two
//! upstream candidates of one kind whose prints share half their bits or more are
//! near-twins ([`crate::index::near_twins`]), unless they state the same fact (that is a
//! duplicate, which the renderer collapses). The comparisons are bounded: the first
//! [`CHECKED`] upstream candidates in order are each compared with at most [`LOOK`] of
//! their kind, so a brief's cost does not grow with the ledger.

use super::{Candidate, Share, export_rank, tier, within};
use crate::entry::{Audience, Kind};
use crate::index::{LedgerIndex, near_twins};

/// Upstream candidates, in order, whose routine-ness is looked at; past them, candidates
/// are taken as they come (a brief shows 15).
const CHECKED: usize = 1024;
/// How many candidates of its kind (in order) one candidate is compared with.
const LOOK: usize = 512;
/// How many shapes already shown a routine candidate is compared with.
const SHOWN: usize = 64;

/// An upstream candidate: its order key (distance, what its room exposes first, how it
/// matched), its kind, word print and fact.
struct Up {
    key: (u32, u8, u8),
    kind: Kind,
    print: u64,
    fact: u64,
    c: Candidate,
}

/// The pool in the order the renderer takes it, each candidate with its share.
pub(super) fn select(ix: &LedgerIndex, pool: &[Candidate], max: usize) -> Vec<(Candidate, Share)> {
    let mut binding: Vec<(u8, Candidate)> = Vec::new();
    let mut up: Vec<Up> = Vec::new();
    let mut rest: Vec<Candidate> = Vec::new();
    for c in pool {
        let m = ix.meta(c.pos);
        if Audience::of(ix.audience_of(c.pos), m.kind) == Audience::Project {
            binding.push((u8::from(m.kind != Kind::Convention), *c));
        } else if let Some(d) = c.distance {
            up.push(Up {
                key: (d, export_rank(m.kind), tier(c)),
                kind: m.kind,
                print: ix.print(c.pos),
                fact: ix.fact(c.pos),
                c: *c,
            });
        } else {
            rest.push(*c);
        }
    }
    binding.sort_by(|a, b| a.0.cmp(&b.0).then(within(&a.1, &b.1)));
    up.sort_by(|a, b| a.key.cmp(&b.key).then(within(&a.c, &b.c)));
    rest.sort_by(|a, b| a.order(b));
    let routine = routine(&up);

    let third = max.div_ceil(3);
    let mut out = Vec::with_capacity(pool.len());
    let mut binding = binding.into_iter().map(|(_, c)| c);
    out.extend(binding.by_ref().take(third).map(|c| (c, Share::Binding)));
    // The binding entries past the third that match come after the direct
    // predecessors'; the unmatched ones wait for the end.
    let (matched, quiet): (Vec<Candidate>, Vec<Candidate>) =
        binding.partition(|c| c.relevance > 0.0);
    let mut matched = Some(matched);
    for (u, _) in up.iter().zip(&routine).filter(|(_, r)| !**r) {
        if u.key.0 > 1
            && let Some(m) = matched.take()
        {
            out.extend(m.into_iter().map(|c| (c, Share::Binding)));
        }
        out.push((u.c, Share::Near(u.key.0)));
    }
    if let Some(m) = matched.take() {
        out.extend(m.into_iter().map(|c| (c, Share::Binding)));
    }
    // Routine entries: one of each shape first, then the shape's others.
    let mut shown: Vec<(Kind, u64)> = Vec::new();
    let mut again: Vec<Candidate> = Vec::new();
    for (u, _) in up.iter().zip(&routine).filter(|(_, r)| **r) {
        let seen = shown
            .iter()
            .any(|&(k, p)| k == u.kind && near_twins(p, u.print));
        if seen {
            again.push(u.c);
            continue;
        }
        if shown.len() < SHOWN {
            shown.push((u.kind, u.print));
        }
        out.push((u.c, Share::Routine));
    }
    out.extend(again.into_iter().map(|c| (c, Share::Routine)));
    out.extend(rest.into_iter().map(|c| (c, Share::Rest)));
    out.extend(quiet.into_iter().map(|c| (c, Share::Binding)));
    out
}

/// For each upstream candidate (in order), true if it is routine: a near-twin of another
/// candidate of its kind that is not the same fact.
fn routine(up: &[Up]) -> Vec<bool> {
    let mut by_kind: [Vec<usize>; 6] = Default::default();
    for (i, u) in up.iter().enumerate() {
        by_kind[u.kind.index()].push(i);
    }
    // Of each shape, the first keyword match by words (in order) stays where it is: the
    // copy addressed to this room ("Booking calls GET /v1/route/{id}…" among the same
    // interface announced to every consumer).
    let mut addressed: Vec<(Kind, u64)> = Vec::new();
    up.iter()
        .enumerate()
        .map(|(i, u)| {
            let twin = i < CHECKED
                && by_kind[u.kind.index()]
                    .iter()
                    .take(LOOK)
                    .any(|&j| j != i && up[j].fact != u.fact && near_twins(up[j].print, u.print));
            if twin && u.key.2 == 0 {
                let seen = addressed
                    .iter()
                    .any(|&(k, p)| k == u.kind && near_twins(p, u.print));
                if !seen && addressed.len() < SHOWN {
                    addressed.push((u.kind, u.print));
                    return false;
                }
            }
            twin
        })
        .collect()
}
