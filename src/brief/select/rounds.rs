//! The selections `coverage` and `coverage-2` (receipts recorded with them replay with
//! these rules): every upstream room, near and far, gives its best entry round by round
//! before any gives a second; a routine entry (one whose shape recurs among its room's
//! next candidates) waits until every room's other entries had their turn.

use std::collections::BTreeMap;

use super::{Candidate, Share, export_rank, tier, within};
use crate::entry::{Audience, Kind};
use crate::index::{LedgerIndex, Sym};

/// A candidate with its order key inside its room's share (a match by words or not,
/// kind, how it matched).
type Keyed = ((bool, u8, u8), Candidate);

/// The pool in the order the renderer takes it, each candidate with its share. `max`: the
/// brief's entry limit (the binding share is a third of it).
pub(super) fn select(ix: &LedgerIndex, pool: &[Candidate], max: usize) -> Vec<(Candidate, Share)> {
    // Each candidate's kind read once (a sort's comparisons would read it again and again).
    let mut binding: Vec<(u8, Candidate)> = Vec::new();
    // Upstream rooms by (distance, room name), each with its candidates and their keys.
    let mut rooms: BTreeMap<(u32, &str, Sym), Vec<Keyed>> = BTreeMap::new();
    let mut rest: Vec<Candidate> = Vec::new();
    for c in pool {
        let m = ix.meta(c.pos);
        if Audience::of(ix.audience_of(c.pos), m.kind) == Audience::Project {
            binding.push((u8::from(m.kind != Kind::Convention), *c));
        } else if let Some(d) = c.distance {
            // Matches by words first; then what the room exposes first (by kind), a match
            // by meaning before the rest of its kind.
            let key = (tier(c) != 0, export_rank(m.kind), tier(c));
            rooms
                .entry((d, ix.room_of(c.pos), m.room))
                .or_default()
                .push((key, *c));
        } else {
            rest.push(*c);
        }
    }
    binding.sort_by(|a, b| a.0.cmp(&b.0).then(within(&a.1, &b.1)));
    let binding: Vec<Candidate> = binding.into_iter().map(|(_, c)| c).collect();
    let rooms: Vec<Vec<Candidate>> = rooms
        .into_values()
        .map(|mut list| {
            list.sort_by(|a, b| a.0.cmp(&b.0).then(within(&a.1, &b.1)));
            // Popped from the end, best first.
            list.into_iter().rev().map(|(_, c)| c).collect()
        })
        .collect();
    rest.sort_by(|a, b| a.order(b));
    let third = max.div_ceil(3);
    let mut out = Vec::with_capacity(pool.len());
    let mut binding = binding.into_iter();
    out.extend(binding.by_ref().take(third).map(|c| (c, Share::Binding)));
    let mut round = 1;
    let mut lists = rooms;
    let mut routine = Routine::new(ix, lists.len());
    let mut later: Vec<Candidate> = Vec::new();
    let mut binding_quiet: Vec<Candidate> = Vec::new();
    while lists.iter().any(|l| !l.is_empty()) {
        for (r, l) in lists.iter_mut().enumerate() {
            while let Some(c) = l.pop() {
                if routine.is(r, c.pos, l) {
                    later.push(c);
                    continue;
                }
                out.push((c, Share::Upstream(round)));
                break;
            }
        }
        if round == 1 {
            // Binding keyword matches past the first third; the unmatched ones wait for
            // the end (they bind, but say nothing about what this room asked).
            let (matched, quiet): (Vec<Candidate>, Vec<Candidate>) =
                binding.by_ref().partition(|c| c.relevance > 0.0);
            out.extend(matched.into_iter().map(|c| (c, Share::Binding)));
            binding_quiet = quiet;
        }
        round += 1;
    }
    out.extend(later.into_iter().map(|c| (c, Share::Upstream(round))));
    // No upstream room (no round ran): the same split.
    let (matched, quiet): (Vec<Candidate>, Vec<Candidate>) =
        binding.partition(|c| c.relevance > 0.0);
    out.extend(matched.into_iter().map(|c| (c, Share::Binding)));
    out.extend(rest.into_iter().map(|c| (c, Share::Rest)));
    out.extend(
        binding_quiet
            .into_iter()
            .chain(quiet)
            .map(|c| (c, Share::Binding)),
    );
    out
}

/// Shapes a brief may look at in all: past them, entries are taken as they come. (Each
/// look read the entry's text before shapes were kept per entry; the bound stays, so
/// that a receipt's replay chooses as its brief chose.)
const SHAPES_READ: usize = 256;
/// How many of a room's next candidates an entry's shape is compared with.
const SHAPES_AHEAD: usize = 4;

/// Which upstream entries are routine: an entry whose shape recurs among the next few
/// candidates of its room, or that a shape already marked routine in the room has. Each
/// candidate's shape is looked at once, within [`SHAPES_READ`].
struct Routine<'a> {
    ix: &'a LedgerIndex,
    read: std::collections::HashMap<u32, u64>,
    marked: Vec<std::collections::HashSet<u64>>,
}

impl<'a> Routine<'a> {
    fn new(ix: &'a LedgerIndex, rooms: usize) -> Routine<'a> {
        Routine {
            ix,
            read: Default::default(),
            marked: vec![Default::default(); rooms],
        }
    }

    fn shape(&mut self, pos: u32) -> Option<u64> {
        if let Some(s) = self.read.get(&pos) {
            return Some(*s);
        }
        if self.read.len() >= SHAPES_READ {
            return None;
        }
        // The shape the index keeps per entry.
        let s = self.ix.shape(pos);
        self.read.insert(pos, s);
        Some(s)
    }

    /// True if `pos` of room `room` is routine; `next`: the room's remaining candidates
    /// (popped from the end).
    fn is(&mut self, room: usize, pos: u32, next: &[Candidate]) -> bool {
        let Some(s) = self.shape(pos) else {
            return false;
        };
        if self.marked[room].contains(&s) {
            return true;
        }
        let ahead: Vec<u32> = next
            .iter()
            .rev()
            .take(SHAPES_AHEAD)
            .map(|c| c.pos)
            .collect();
        if ahead.into_iter().any(|p| self.shape(p) == Some(s)) {
            self.marked[room].insert(s);
            return true;
        }
        false
    }
}
