//! The candidates a brief's selection chooses from ([`super::select`]): for every
//! (room, plan, kind) of another room, its best [`Pool::per_bucket`] eligible entries —
//! keyword matches first by score, then the newest — so that every upstream room, near or
//! far, and every room's conventions reach the selection however many working notes the
//! nearest rooms wrote. A bucket needs no more than a brief can take from it, so the work
//! is bounded by the number of buckets, not by the ledger.
//!
//! Eligibility is [`super::candidates`]'s (the group rules), narrowed by each entry's audience
//! ([`crate::entry::Audience`]): a working note (`room`) reaches no other room's brief, and
//! an entry published for `downstream` reaches only the rooms downstream of its own.
//!
//! Two paths give the same pool: the index's cells (newest first per bucket, matches from
//! the postings) when file order is time order, and the reference scan — for a ledger out
//! of time order and for a receipt's replay at a horizon.

use std::collections::HashMap;

use super::candidates::{Resolved, is_project_wide};
use super::{Candidate, Scope};
use crate::entry::{Audience, Kind};
use crate::index::{LedgerIndex, SLOT_DEAD, Scorer, Scratch, Sym};

/// What the selection chooses from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pool {
    /// Each bucket's best candidates, all buckets together, in rank order.
    pub candidates: Vec<Candidate>,
    /// Eligible candidates in all (as [`super::Ranked::total`]).
    pub total: usize,
    /// Live entries of other rooms not eligible by the group rules.
    pub unrelated: usize,
    /// Live entries per upstream room symbol (every kind and audience), for the brief's
    /// per-room account.
    pub live_upstream: HashMap<Sym, usize>,
    /// Live entries of other rooms their audience keeps from this brief: working notes
    /// (`audience: room`), and entries for their publisher's downstream when this room is
    /// not in it. Counted in neither `total` nor `unrelated`.
    pub held: usize,
    /// Of `held`, per upstream room symbol (its working notes).
    pub held_upstream: HashMap<Sym, usize>,
    /// The bucket sizes this pool was cut at.
    pub per_bucket: Buckets,
    /// True if some bucket may have had more eligible entries than it kept (a larger
    /// `per_bucket` may offer more); false only when none had.
    pub cut: bool,
}

/// How many candidates a bucket keeps: `base`, and in an upstream room at distance `d`
/// at least `near / d` — a selection that serves nearer rooms first takes more from
/// them (selection `coverage-3`); `near` 0 for one size everywhere.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Buckets {
    /// Every bucket's size at least.
    pub base: usize,
    /// A direct predecessor's size (a room `d` steps up: this / `d`); 0 for none.
    pub near: usize,
}

impl Buckets {
    /// One size for every bucket.
    pub fn flat(k: usize) -> Buckets {
        Buckets { base: k, near: 0 }
    }

    /// The size of a bucket of a room at `dist` upstream (None: not upstream).
    pub fn of(self, dist: Option<u32>) -> usize {
        match dist {
            Some(d) if self.near > 0 => self.base.max(self.near / d.max(1) as usize),
            _ => self.base,
        }
    }

    /// Every size times `f` (saturating).
    pub fn times(self, f: usize) -> Buckets {
        Buckets {
            base: self.base.saturating_mul(f),
            near: self.near.saturating_mul(f),
        }
    }
}

/// True if an entry with audience `given`, of another room at `dist` upstream (None: not
/// upstream), may reach this brief: the one rule of who sees what
/// ([`crate::entry::may_see`]).
fn audience_allows(given: Option<Audience>, dist: Option<u32>) -> bool {
    crate::entry::may_see(given, false, dist.is_some())
}

/// The pool for `scope`: keywords scored (or `meaning`'s fused relevance), then each
/// bucket's best `per_bucket`. `by_meaning`: matches by meaning alone with their fused
/// relevance (semantic ranking, selection `coverage-2`; empty otherwise), each a
/// candidate after every match by words of its bucket. `at`: the index as it was at that
/// horizon (a replay). `selection`: which of the keywords' terms are searched
/// ([`super::select::Version::searches`]).
#[allow(clippy::too_many_arguments)]
pub fn pool(
    ix: &LedgerIndex,
    scope: &Scope,
    keywords: &[String],
    scorer: &Scorer,
    scratch: &mut Scratch,
    per_bucket: Buckets,
    meaning: Option<&[(u32, f64)]>,
    by_meaning: &[(u32, f64)],
    at: Option<u32>,
    selection: super::select::Version,
) -> Pool {
    let r = Resolved::new(ix, scope, scorer);
    scratch.clear();
    match (meaning, at) {
        (Some(fused), None) => scratch.replace(ix.len(), fused.iter().copied()),
        _ => {
            let text = keywords.join(" ");
            if !text.trim().is_empty() {
                match at {
                    Some(h) => {
                        let mut terms = ix.text.query_at(&text, h);
                        terms.retain(|q| selection.searches(q));
                        ix.text
                            .score_at(&terms, scorer.ranking.scoring(), scratch, h);
                    }
                    None => {
                        let mut terms = ix.text.query(&text);
                        terms.retain(|q| selection.searches(q));
                        ix.text.score(&terms, scorer.ranking.scoring(), scratch);
                    }
                }
            }
        }
    }
    // Matches by meaning alone are for the index as it is (a replay at a horizon is
    // lexical), and never a match by words too.
    let by_meaning: HashMap<u32, f64> = match at {
        None => by_meaning
            .iter()
            .copied()
            .filter(|&(pos, rel)| rel > 0.0 && scratch.get(pos) <= 0.0)
            .collect(),
        Some(_) => HashMap::new(),
    };
    let mut p = if at.is_none() && ix.in_time_order() {
        by_cells(&r, scratch, &by_meaning, per_bucket)
    } else {
        by_scan(&r, scratch, &by_meaning, per_bucket, at)
    };
    p.per_bucket = per_bucket;
    p.candidates.sort_unstable_by(|a, b| a.order(b));
    scratch.clear();
    p
}

/// The reference: every live entry, bucketed, each bucket cut to its best.
fn by_scan(
    r: &Resolved<'_>,
    scratch: &Scratch,
    by_meaning: &HashMap<u32, f64>,
    k: Buckets,
    h: Option<u32>,
) -> Pool {
    let ix = r.ix;
    let mut buckets: HashMap<(Sym, Sym, usize), Vec<Candidate>> = HashMap::new();
    let mut out = Pool::default();
    for pos in ix.chrono().iter() {
        let m = ix.meta(pos);
        let live = match h {
            None => m.live,
            Some(h) => ix.live_at(pos, h),
        };
        if !live || r.is_own(m.room, m.plan) {
            continue;
        }
        let (rel, meaning_only) = match scratch.get(pos) {
            rel if rel > 0.0 => (rel, false),
            _ => by_meaning
                .get(&pos)
                .map_or((0.0, false), |&rel| (rel, true)),
        };
        let dist = r.distance(m.room, m.plan);
        if dist.is_some() {
            *out.live_upstream.entry(m.room).or_default() += 1;
        }
        if !audience_allows(ix.audience_of(pos), dist) {
            out.held += 1;
            if dist.is_some() {
                *out.held_upstream.entry(m.room).or_default() += 1;
            }
            continue;
        }
        let Some(group) = Resolved::group(dist, rel > 0.0, m.kind) else {
            out.unrelated += 1;
            continue;
        };
        out.total += 1;
        let mut c = r.candidate(pos, m, rel, dist, group, None);
        c.by_meaning = meaning_only;
        buckets
            .entry((m.room, m.plan, m.kind.index()))
            .or_default()
            .push(c);
    }
    for ((room, plan, _), mut b) in buckets {
        let k = k.of(r.distance(room, plan));
        b.sort_unstable_by(|a, c| a.order(c));
        out.cut |= b.len() > k;
        b.truncate(k);
        out.candidates.extend(b);
    }
    out
}

/// From the cells: matches from the postings, then each bucket's newest non-matches.
fn by_cells(
    r: &Resolved<'_>,
    scratch: &Scratch,
    by_meaning: &HashMap<u32, f64>,
    sizes: Buckets,
) -> Pool {
    let ix = r.ix;
    let cells = ix.cells();
    let dists: Vec<Option<u32>> = cells.iter().map(|c| r.distance(c.room, c.plan)).collect();
    // Each cell's bucket size.
    let ks: Vec<usize> = dists.iter().map(|&d| sizes.of(d)).collect();
    let mut out = Pool::default();
    // Matches per slot (`cell << 3 | kind`), each slot's best `k` only; a full slot's
    // floor (its worst kept score, as a bound on relevance / distance), and whether an
    // eligible match was passed over.
    let slots = cells.len() << 3;
    let mut matched: Vec<Vec<Candidate>> = vec![Vec::new(); slots];
    let mut floor = vec![f64::NEG_INFINITY; slots];
    let mut cut_matches = vec![false; slots];
    // A bound on the time factor of a slot's matches not yet met: the factor of the last
    // one looked up. A slot holds one kind (one decay rate) and file order is time order
    // here, so every later (older) match's factor is at most that.
    let mut time_cap = vec![1.0f64; slots];
    let mut matched_other = 0usize;
    // Per slot: its live matches (by words or by meaning alone) the audience lets through,
    // so the entries left for the newest-first fill are known without a walk: a slot whose
    // every entry matches costs nothing past its matches.
    let mut allowed_matches = vec![0u32; slots];
    // Slots holding a live entry whose audience may keep it from this brief: only their
    // matches need the audience looked up (a hash probe) to be counted.
    let mut said = vec![false; slots];
    for (i, cell) in cells.iter().enumerate() {
        for k in 0..6 {
            said[i << 3 | k] = cell.room_only[k] + cell.downstream_only[k] > 0;
        }
    }
    // Per slot: the group of a match (SKIP: the asking room's own, or no match is
    // eligible) and its distance's reciprocal, so a match costs two table reads.
    const SKIP: u8 = u8::MAX;
    let mut group_of = vec![SKIP; slots];
    let mut inv_dist = vec![1.0f64; slots];
    for (i, cell) in cells.iter().enumerate() {
        if r.is_own(cell.room, cell.plan) {
            continue;
        }
        for kind in Kind::ALL {
            let s = i << 3 | kind.index();
            if let Some(g) = Resolved::group(dists[i], true, kind) {
                group_of[s] = g;
            }
            inv_dist[s] = 1.0 / f64::from(dists[i].unwrap_or(1).max(1));
        }
    }
    let len = ix.len();
    // Newest first: newer matches score higher (the time factor), so each slot's floor
    // rises at once and older matches are passed over without a look-up. The result is
    // the same in any order (each slot keeps its best in the total order).
    for pos in newest_first(scratch.touched()) {
        if pos as usize >= len {
            continue;
        }
        let slot = ix.slot(pos);
        if slot & SLOT_DEAD != 0 {
            continue;
        }
        let s = slot as usize;
        let group = group_of[s];
        if group == SKIP {
            continue;
        }
        let kind = Kind::ALL[s & 7];
        let dist = dists[s >> 3];
        // The audience is looked up (a hash probe) only in a slot holding an entry said
        // `room` or `downstream`: any other entry may reach this brief.
        let allowed = !said[s] || audience_allows(ix.audience_of(pos), dist);
        if group == 4 && allowed {
            matched_other += 1;
        }
        let rel = scratch.get(pos);
        if allowed && rel > 0.0 {
            allowed_matches[s] += 1;
        }
        // Relevance / distance × the slot's time cap bounds the score, so a match below a
        // full slot's worst is not looked up (its columns are a cache miss).
        if rel * inv_dist[s] * time_cap[s] < floor[s] {
            // Maybe cut (the skipped match may be a working note): a larger pool is
            // asked for in vain at worst.
            cut_matches[s] = true;
            continue;
        }
        if !allowed {
            continue;
        }
        // Its score in full (one `exp`) before a candidate is made (its logarithms), so
        // a match that does not enter its slot costs no more.
        let m = ix.meta(pos);
        let (time, log_time) = r.match_time(kind, m.ts);
        // With a margin for rounding: the cap must never cut a match the slot would keep.
        time_cap[s] = (time * (1.0 + 1e-9)).min(1.0);
        if rel * time * inv_dist[s] < floor[s] {
            cut_matches[s] = true;
            continue;
        }
        let c = r.candidate(pos, m, rel, dist, group, Some(log_time));
        let k = ks[s >> 3];
        let top = &mut matched[s];
        if keep_best(top, c, k) {
            cut_matches[s] = true;
        }
        if top.len() >= k {
            floor[s] = top[k - 1].log_score.exp() * (1.0 - 1e-9);
        }
    }
    // Matches by meaning alone: after every match by words of their slot (their order),
    // so the floor does not apply. In position order, for a result independent of the
    // map's.
    let mut meaning_only: Vec<(u32, f64)> = by_meaning.iter().map(|(&p, &r)| (p, r)).collect();
    meaning_only.sort_unstable_by_key(|&(pos, _)| pos);
    for (pos, rel) in meaning_only {
        let Some(Slotted { slot, dist, group }) = slotted(r, &dists, pos) else {
            continue;
        };
        if !audience_allows(ix.audience_of(pos), dist) {
            continue;
        }
        if group == 4 {
            matched_other += 1;
        }
        allowed_matches[slot as usize] += 1;
        let mut c = r.candidate(pos, ix.meta(pos), rel, dist, group, None);
        c.by_meaning = true;
        if keep_best(&mut matched[slot as usize], c, ks[(slot >> 3) as usize]) {
            cut_matches[slot as usize] = true;
        }
    }
    let (mut live_up, mut live_wide, mut live_other) = (0usize, 0usize, 0usize);
    for (i, (cell, dist)) in cells.iter().zip(&dists).enumerate() {
        if r.is_own(cell.room, cell.plan) {
            continue;
        }
        for kind in Kind::ALL {
            let live = cell.live[kind.index()] as usize;
            if live == 0 {
                continue;
            }
            let slot = ((i as u32) << 3) | kind.index() as u32;
            let k = ks[i];
            let mut bucket = std::mem::take(&mut matched[slot as usize]);
            out.cut |= cut_matches[slot as usize];
            // What the audience keeps from this brief (as `audience_allows`): working
            // notes always, entries said for the publisher's downstream off it.
            let held = cell.room_only[kind.index()] as usize
                + if dist.is_some() {
                    0
                } else {
                    cell.downstream_only[kind.index()] as usize
                };
            out.held += held;
            let group = match (dist, is_project_wide(kind)) {
                (Some(_), _) => {
                    live_up += live - held;
                    *out.live_upstream.entry(cell.room).or_default() += live;
                    if held > 0 {
                        *out.held_upstream.entry(cell.room).or_default() += held;
                    }
                    Some(1)
                }
                (None, true) => {
                    live_wide += live - held;
                    Some(3)
                }
                (None, false) => {
                    live_other += live - held;
                    None
                }
            };
            if let Some(group) = group {
                // The eligible entries that match nothing: the newest fill the bucket.
                let mut left =
                    (live - held).saturating_sub(allowed_matches[slot as usize] as usize);
                if bucket.len() >= k {
                    // A full bucket with one eligible entry more was cut.
                    out.cut |= left > 0;
                    left = 0;
                }
                for &pos in cell.positions[kind.index()].iter().rev() {
                    if left == 0 {
                        break;
                    }
                    if scratch.get(pos) > 0.0 || by_meaning.contains_key(&pos) {
                        continue;
                    }
                    let m = ix.meta(pos);
                    if !m.live || !audience_allows(ix.audience_of(pos), *dist) {
                        continue;
                    }
                    left -= 1;
                    if bucket.len() >= k {
                        out.cut = true;
                        break;
                    }
                    bucket.push(r.candidate(pos, m, 0.0, *dist, group, None));
                }
            }
            out.candidates.extend(bucket);
        }
    }
    out.total = live_up + live_wide + matched_other;
    out.unrelated = live_other - matched_other;
    out
}

/// Where a match at a position goes in the pool from the cells.
struct Slotted {
    /// `cell << 3 | kind`.
    slot: u32,
    /// Its room's distance upstream, if upstream.
    dist: Option<u32>,
    /// Its group as a match ([`Resolved::group`]).
    group: u8,
}

/// The slot of a match at `pos`, or None when it is past the index, not live, of the
/// asking room, or not eligible as a match. `dists`: each cell's distance upstream.
fn slotted(r: &Resolved<'_>, dists: &[Option<u32>], pos: u32) -> Option<Slotted> {
    if pos as usize >= r.ix.len() {
        return None;
    }
    let slot = r.ix.slot(pos);
    if slot & SLOT_DEAD != 0 {
        return None;
    }
    let cell = &r.ix.cells()[(slot >> 3) as usize];
    if r.is_own(cell.room, cell.plan) {
        return None;
    }
    let kind = Kind::ALL[(slot & 7) as usize];
    let dist = dists[(slot >> 3) as usize];
    let group = Resolved::group(dist, true, kind)?;
    Some(Slotted { slot, dist, group })
}

/// The positions of `touched` (distinct), newest (highest) first: a bitmap of the
/// positions read from its top word down, linear in the highest position / 64 plus the
/// positions, where a sort of a common word's hundreds of thousands costs milliseconds.
fn newest_first(touched: &[u32]) -> impl Iterator<Item = u32> {
    let len = touched.iter().max().map_or(0, |&m| m as usize + 1);
    let mut bits = vec![0u64; len.div_ceil(64)];
    for &p in touched {
        bits[(p >> 6) as usize] |= 1 << (p & 63);
    }
    bits.into_iter()
        .enumerate()
        .rev()
        .flat_map(|(w, mut word)| {
            std::iter::from_fn(move || {
                (word != 0).then(|| {
                    let b = 63 - word.leading_zeros();
                    word &= !(1u64 << b);
                    ((w as u32) << 6) | b
                })
            })
        })
}

/// Keeps `c` in `top` (sorted best first, at most `k`); true if a candidate was pushed
/// out or `c` did not enter (the slot had more than `k`).
fn keep_best(top: &mut Vec<Candidate>, c: Candidate, k: usize) -> bool {
    let at = top.partition_point(|x| x.order(&c) == std::cmp::Ordering::Less);
    if at >= k {
        return true;
    }
    top.insert(at, c);
    if top.len() > k {
        top.pop();
        return true;
    }
    false
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod order_tests {
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn newest_first_is_a_descending_sort(mut ps in proptest::collection::hash_set(0u32..5000, 0..300)) {
            let touched: Vec<u32> = ps.drain().collect();
            let mut sorted = touched.clone();
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            prop_assert_eq!(super::newest_first(&touched).collect::<Vec<_>>(), sorted);
        }
    }
}
