//! The brief as a selection under a budget (docs/brief.md): the pool's
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
//! 3. **Binding entries past the first third** that match the keywords come after the
//!    first round.
//! 4. **Then the rest** in rank order (project-wide entries of unrelated rooms, keyword
//!    matches of unrelated rooms), and last the binding entries past the first third that
//!    match no keyword.
//!
//! Inside a room's share, keyword matches come first by their score (relevance × time),
//! then what the room exposes first by kind, then the newest; ties go to the later line.
//! With semantic ranking (selection `coverage-2`, [`Version`]) a keyword match is one
//! that shares a word with the keywords; an entry near them in meaning alone comes, by
//! its fused score, before the rest *of its kind*: meaning orders what the words left
//! undecided, it neither outranks what they found nor what a room exposes first.
//! A routine entry — one whose shape, the words with numbers aside ("Migration
//! 0042_users.sql adds an index", "Migration 0043_…"), recurs among the room's next
//! candidates — waits until every room's other entries had their turn. Superseded
//! entries are never in the pool, and the renderer collapses duplicate facts.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use super::Candidate;
use crate::entry::{Audience, Kind};
use crate::index::{LedgerIndex, Sym};

/// The rules a brief's entries were chosen by, as its receipt records them
/// (`ranking.selection`), so that a replay chooses as the brief was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// Before selections (nothing recorded): the ranked head in group order.
    Ranked,
    /// `coverage`: this module's rules, with a match by meaning alone (semantic ranking)
    /// ordered among the matches by words by its fused score.
    Coverage,
    /// `coverage-2`: the same, with a match by meaning alone after every match by words
    /// of its share, and ahead only of the rest of its kind. For a lexical brief it
    /// chooses exactly as `coverage`.
    WordsFirst,
}

impl Version {
    /// What a brief served now is chosen by.
    pub const CURRENT: Version = Version::WordsFirst;

    /// The name a receipt records (none before selections).
    pub fn name(self) -> Option<&'static str> {
        match self {
            Version::Ranked => None,
            Version::Coverage => Some("coverage"),
            Version::WordsFirst => Some("coverage-2"),
        }
    }

    /// The version a receipt names; None for a name this build does not know.
    pub fn of(recorded: Option<&str>) -> Option<Version> {
        [Version::Ranked, Version::Coverage, Version::WordsFirst]
            .into_iter()
            .find(|v| v.name() == recorded)
    }
}

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

/// How a candidate matched the keywords: by their words (0), by meaning alone (1,
/// semantic ranking), not at all (2).
fn tier(c: &Candidate) -> u8 {
    match (c.relevance > 0.0, c.by_meaning) {
        (true, false) => 0,
        (true, true) => 1,
        (false, _) => 2,
    }
}

/// Inside a share (after its key): matches by words first, then by meaning alone, each
/// by score; then newer, then later in the file.
fn within(a: &Candidate, b: &Candidate) -> Ordering {
    tier(a)
        .cmp(&tier(b))
        .then(b.log_score.total_cmp(&a.log_score))
        .then(b.ts.cmp(&a.ts))
        .then(b.pos.cmp(&a.pos))
}

/// A candidate with its order key inside its room's share (a match by words or not,
/// kind, how it matched).
type Keyed = ((bool, u8, u8), Candidate);

/// The pool in the order the renderer takes it, each candidate with its share. `max`: the
/// brief's entry limit (the binding share is a third of it).
pub fn select(ix: &LedgerIndex, pool: &[Candidate], max: usize) -> Vec<(Candidate, Share)> {
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

#[cfg(test)]
mod version_tests {
    use super::Version;

    #[test]
    fn a_recorded_selection_names_its_version_and_an_unknown_one_none() {
        for v in [Version::Ranked, Version::Coverage, Version::WordsFirst] {
            assert_eq!(Version::of(v.name()), Some(v));
        }
        assert_eq!(Version::CURRENT.name(), Some("coverage-2"));
        assert_eq!(Version::of(Some("coverage-3")), None);
    }
}
