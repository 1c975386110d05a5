//! Ranking the candidates of a predecessor context, best first, without scanning the
//! ledger.
//!
//! The order is total — group, then score, then newer, then later in the file — so the
//! best `head` candidates are one well-defined set however they are found:
//!
//! - entries matching the keywords come from the postings (the accumulator's touched
//!   documents), classified one by one;
//! - non-matching entries of upstream rooms (group 1) and project-wide kinds (group 3)
//!   come from the index's cells: the positions of one (room, plan, kind) share the
//!   distance and the decay rate, so walked newest first their scores never rise, and the
//!   walk stops at the first candidate that cannot enter the head;
//! - the counts (eligible, unrelated) are the cells' live counts minus the matches.
//!
//! This needs file order to be time order ([`LedgerIndex::in_time_order`]); a ledger with
//! an entry older than its predecessor is ranked by the reference scan ([`rank_with`]),
//! which the fast path is tested against.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::entry::Kind;
use crate::index::{LedgerIndex, Meta, Ranking, SLOT_DEAD, Scorer, Scratch, Sym};

/// One ranked candidate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    /// Entry position in the index.
    pub pos: u32,
    /// Ranking group (0 = most preferred), see the module doc of [`crate::brief`].
    pub group: u8,
    /// Natural log of the score within the group (ranking in log space avoids an `exp`
    /// per candidate; the order is the same).
    pub log_score: f64,
    /// Entry time, for ties.
    pub ts: i64,
    /// Distance of the entry's room upstream (1 = direct predecessor), if upstream.
    pub distance: Option<u32>,
    /// Relevance to the brief keywords (0: no match), before the time factor.
    pub relevance: f64,
    /// Natural log of the time factor applied (the ranking's, for matches; the plain
    /// decay for the others).
    pub log_time: f64,
    /// A match by meaning alone (semantic ranking, selection `coverage-2`): no keyword
    /// word in it, its `relevance` the fused one. Such a match orders after every match
    /// by words of its group ([`Candidate::order`]); false on every other path.
    pub by_meaning: bool,
}

impl Candidate {
    /// Best first: group, then a match by words before one by meaning alone, then score,
    /// then newer, then later in the file.
    pub(super) fn order(&self, other: &Candidate) -> Ordering {
        self.group
            .cmp(&other.group)
            .then(self.by_meaning.cmp(&other.by_meaning))
            .then(other.log_score.total_cmp(&self.log_score))
            .then(other.ts.cmp(&self.ts))
            .then(other.pos.cmp(&self.pos))
    }
}

/// Heap wrapper: the greatest element is the worst candidate, evicted first.
struct Worst(Candidate);

impl PartialEq for Worst {
    fn eq(&self, o: &Self) -> bool {
        self.0.order(&o.0) == Ordering::Equal
    }
}
impl Eq for Worst {}
impl PartialOrd for Worst {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Worst {
    fn cmp(&self, o: &Self) -> Ordering {
        self.0.order(&o.0)
    }
}

/// The best `cap` candidates offered so far.
struct Head {
    heap: BinaryHeap<Worst>,
    cap: usize,
}

impl Head {
    fn new(cap: usize) -> Head {
        Head {
            heap: BinaryHeap::with_capacity(cap + 1),
            cap,
        }
    }

    /// True if a candidate of `group` could still enter.
    fn open_to(&self, group: u8) -> bool {
        self.cap > 0
            && (self.heap.len() < self.cap || self.heap.peek().is_some_and(|w| w.0.group >= group))
    }

    /// Keeps `c` if it is among the best; false if it was not kept.
    fn offer(&mut self, c: Candidate) -> bool {
        if self.heap.len() < self.cap {
            self.heap.push(Worst(c));
            return true;
        }
        match self.heap.peek_mut() {
            Some(mut worst) if c.order(&worst.0) == Ordering::Less => {
                *worst = Worst(c);
                true
            }
            _ => false,
        }
    }

    /// A score (in linear space, with a margin for rounding) below which a candidate of
    /// `group` cannot enter; 0 while there is room.
    fn floor(&self, group: u8) -> f64 {
        match self.heap.peek() {
            Some(w) if self.heap.len() >= self.cap && w.0.group == group => {
                w.0.log_score.exp() * (1.0 - 1e-9)
            }
            _ => 0.0,
        }
    }

    fn into_sorted(self) -> Vec<Candidate> {
        let mut head: Vec<Candidate> = self.heap.into_iter().map(|w| w.0).collect();
        head.sort_unstable_by(|a, b| a.order(b));
        head
    }
}

/// Who asks, and what is upstream of it.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    /// The asking room.
    pub room_id: String,
    /// The asking room's plan, if its epic is known.
    pub plan_id: Option<String>,
    /// Upstream rooms: (room id, plan id, distance).
    pub upstream: Vec<(String, String, u32)>,
}

/// The best candidates, in order, and how many were eligible in all.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ranked {
    /// The best `head` candidates (or all, if fewer), best first.
    pub head: Vec<Candidate>,
    /// Eligible candidates in all.
    pub total: usize,
    /// Live entries of other rooms that are not eligible (decisions, artifacts and code
    /// of unrelated rooms matching no keyword): left out by rule, and counted as such.
    pub unrelated: usize,
}

pub(super) fn is_project_wide(kind: Kind) -> bool {
    matches!(kind, Kind::Convention | Kind::Warning | Kind::Interface)
}

/// The scope resolved against one index: symbols instead of names.
pub(super) struct Resolved<'a> {
    pub(super) ix: &'a LedgerIndex,
    own_room: Option<Sym>,
    /// None: the room's plan is unknown (any entry of the room is its own);
    /// Some(None): known, but no entry carries it yet.
    own_plan: Option<Option<Sym>>,
    /// Indexed by room symbol: [(plan symbol if any entry carries it, distance)].
    upstream: Vec<Vec<(Option<Sym>, u32)>>,
    /// Per-kind decay rate per second: log(decay) = −rate × age_seconds.
    rate: Vec<f64>,
    now: i64,
    ranking: Ranking,
}

impl<'a> Resolved<'a> {
    pub(super) fn new(ix: &'a LedgerIndex, scope: &Scope, scorer: &Scorer) -> Resolved<'a> {
        let plan_sym = |p: &str| ix.plans.get(p);
        let mut upstream: Vec<Vec<(Option<Sym>, u32)>> = vec![Vec::new(); ix.rooms.len()];
        for (room, plan, d) in &scope.upstream {
            if let Some(r) = ix.rooms.get(room) {
                upstream[r as usize].push((plan_sym(plan), *d));
            }
        }
        Resolved {
            ix,
            own_room: ix.rooms.get(&scope.room_id),
            own_plan: scope.plan_id.as_deref().map(plan_sym),
            upstream,
            rate: scorer
                .half_lives
                .iter()
                .map(|h| std::f64::consts::LN_2 / (h * 3600.0))
                .collect(),
            now: scorer.now.0,
            ranking: scorer.ranking,
        }
    }

    pub(super) fn distance(&self, room: Sym, plan: Sym) -> Option<u32> {
        self.upstream[room as usize]
            .iter()
            .filter(|(p, _)| plan == 0 || *p == Some(plan))
            .map(|&(_, d)| d)
            .min()
    }

    /// The time factor of a keyword match of `kind` published at `ts` and its natural
    /// log, as [`Resolved::candidate`] applies it (one `exp`, and a `ln` but for the
    /// seed): the factor bounds every match of that kind published before.
    pub(super) fn match_time(&self, kind: Kind, ts: i64) -> (f64, f64) {
        let log_decay = self.log_decay(kind, ts);
        match self.ranking {
            // As `Ranking::log_time_factor`: exact for the seed, `ln` of the factor else.
            Ranking::Seed => (log_decay.exp(), log_decay),
            other => {
                let f = other.time_factor(log_decay.exp());
                (f, f.ln())
            }
        }
    }

    fn log_decay(&self, kind: Kind, ts: i64) -> f64 {
        let age = (self.now - ts).max(0) as f64;
        -self.rate[kind.index()] * age
    }

    pub(super) fn is_own(&self, room: Sym, plan: Sym) -> bool {
        Some(room) == self.own_room && (plan == 0 || self.own_plan.is_none_or(|p| p == Some(plan)))
    }

    /// The group of an entry of another room, or None if it is unrelated.
    pub(super) fn group(dist: Option<u32>, matches: bool, kind: Kind) -> Option<u8> {
        match (dist, matches, is_project_wide(kind)) {
            (Some(_), true, _) => Some(0),
            (Some(_), false, _) => Some(1),
            (None, true, true) => Some(2),
            (None, false, true) => Some(3),
            (None, true, false) => Some(4),
            (None, false, false) => None,
        }
    }

    /// The candidate at `pos`. `log_time`: a match's, when already known
    /// ([`Resolved::match_time`]); else computed here.
    pub(super) fn candidate(
        &self,
        pos: u32,
        m: Meta,
        rel: f64,
        dist: Option<u32>,
        group: u8,
        log_time: Option<f64>,
    ) -> Candidate {
        // Matching entries: relevance × the ranking's time factor (as in search). The
        // others have no relevance to bury: recency alone orders them.
        let log_time = log_time.unwrap_or_else(|| {
            let log_decay = self.log_decay(m.kind, m.ts);
            if rel > 0.0 {
                self.ranking.log_time_factor(log_decay)
            } else {
                log_decay
            }
        });
        let mut log_score = if rel > 0.0 {
            rel.ln() + log_time
        } else {
            log_time
        };
        if let Some(d) = dist {
            log_score -= f64::from(d.max(1)).ln();
        }
        Candidate {
            pos,
            group,
            log_score,
            ts: m.ts,
            distance: dist,
            relevance: rel,
            log_time,
            by_meaning: false,
        }
    }
}

/// Ranks the eligible live entries for `scope`, keeping the best `head` in order.
#[allow(clippy::too_many_arguments)]
pub fn rank(
    ix: &LedgerIndex,
    scope: &Scope,
    keywords: &[String],
    scorer: &Scorer,
    scratch: &mut Scratch,
    head: usize,
    meaning: Option<&[(u32, f64)]>,
) -> Ranked {
    rank_with(
        ix,
        scope,
        keywords,
        scorer,
        scratch,
        head,
        ix.in_time_order(),
        meaning,
    )
}

/// [`rank`] from the cells, or (`from_cells` false) by the reference scan: every live
/// entry looked at, oldest first — the path for a ledger whose file order is not time
/// order, and what tests hold the cells to. `meaning`: the relevance of every candidate
/// that has one, fused from BM25F and a cosine by the caller (semantic ranking), in place
/// of the keywords' BM25F.
#[allow(clippy::too_many_arguments)]
pub(crate) fn rank_with(
    ix: &LedgerIndex,
    scope: &Scope,
    keywords: &[String],
    scorer: &Scorer,
    scratch: &mut Scratch,
    head: usize,
    from_cells: bool,
    meaning: Option<&[(u32, f64)]>,
) -> Ranked {
    let r = Resolved::new(ix, scope, scorer);
    scratch.clear();
    match meaning {
        // Semantic ranking: each candidate's fused relevance (lexical and cosine parts)
        // stands for its BM25F; an entry with either part is a match.
        Some(fused) => scratch.replace(ix.len(), fused.iter().copied()),
        None => {
            let text = keywords.join(" ");
            if !text.trim().is_empty() {
                let terms = ix.text.query(&text);
                ix.text.score(&terms, scorer.ranking.scoring(), scratch);
            }
        }
    }
    let ranked = if from_cells {
        by_cells(&r, scratch, head)
    } else {
        scan_scored(&r, scratch, head, None)
    };
    scratch.clear();
    ranked
}

/// [`rank`] as the index was at horizon `h` (see [`crate::index`]'s horizon: entries from
/// position `h` on invisible, their supersedes undone, BM25 over the first `h`): what a
/// receipt's replay ranks with, equal to ranking an index rebuilt from the ledger's
/// prefix. By the reference scan, over the prefix's entries (the cells count every entry).
pub fn rank_at(
    ix: &LedgerIndex,
    scope: &Scope,
    keywords: &[String],
    scorer: &Scorer,
    scratch: &mut Scratch,
    head: usize,
    h: u32,
) -> Ranked {
    let r = Resolved::new(ix, scope, scorer);
    scratch.clear();
    let text = keywords.join(" ");
    if !text.trim().is_empty() {
        let terms = ix.text.query_at(&text, h);
        ix.text
            .score_at(&terms, scorer.ranking.scoring(), scratch, h);
    }
    let ranked = scan_scored(&r, scratch, head, Some(h));
    scratch.clear();
    ranked
}

/// The reference scan: every live entry, oldest first; with a horizon, the entries live
/// at it.
fn scan_scored(r: &Resolved<'_>, scratch: &Scratch, head: usize, h: Option<u32>) -> Ranked {
    let mut best = Head::new(head);
    let (mut total, mut unrelated) = (0, 0);
    for pos in r.ix.chrono().iter() {
        let m = r.ix.meta(pos);
        let live = match h {
            None => m.live,
            Some(h) => r.ix.live_at(pos, h),
        };
        if !live || r.is_own(m.room, m.plan) {
            continue;
        }
        let rel = scratch.get(pos);
        let dist = r.distance(m.room, m.plan);
        let Some(group) = Resolved::group(dist, rel > 0.0, m.kind) else {
            unrelated += 1;
            continue;
        };
        total += 1;
        best.offer(r.candidate(pos, m, rel, dist, group, None));
    }
    Ranked {
        head: best.into_sorted(),
        total,
        unrelated,
    }
}

fn by_cells(r: &Resolved<'_>, scratch: &Scratch, head: usize) -> Ranked {
    let ix = r.ix;
    let cells = ix.cells();
    // Per slot (`cell << 3 | kind`): the group of a matching entry, or SKIP (own room).
    const SKIP: u8 = u8::MAX;
    let dists: Vec<Option<u32>> = cells.iter().map(|c| r.distance(c.room, c.plan)).collect();
    let mut table = vec![SKIP; cells.len() * 8];
    for (i, c) in cells.iter().enumerate() {
        if !r.is_own(c.room, c.plan) {
            for kind in Kind::ALL {
                table[i * 8 + kind.index()] = Resolved::group(dists[i], true, kind).unwrap_or(4);
            }
        }
    }
    let mut best = Head::new(head);
    // Matches: upstream ones (group 0) now, the others (2 and 4) in a second pass, only if
    // groups 0 and 1 leave room for them.
    let mut matched = [0usize; 5];
    let mut floor = 0.0;
    for &pos in scratch.touched() {
        let slot = ix.slot(pos);
        if slot & SLOT_DEAD != 0 {
            continue;
        }
        let group = table[slot as usize];
        if group == SKIP {
            continue;
        }
        matched[group as usize] += 1;
        if group == 0 {
            // The time factor is at most 1: relevance / distance bounds the score, so an
            // entry below the floor is not looked up (its columns are a cache miss).
            let dist = dists[(slot >> 3) as usize];
            let rel = scratch.get(pos);
            if rel / f64::from(dist.unwrap_or(1).max(1)) < floor {
                continue;
            }
            if best.offer(r.candidate(pos, ix.meta(pos), rel, dist, 0, None)) {
                floor = best.floor(0);
            }
        }
    }
    // Live entries per class, from the cells; and the walks for groups 1 then 3.
    let (mut live_up, mut live_wide, mut live_other) = (0usize, 0usize, 0usize);
    let mut wide_cells = Vec::new();
    for (cell, dist) in cells.iter().zip(&dists) {
        if r.is_own(cell.room, cell.plan) {
            continue;
        }
        for kind in Kind::ALL {
            let live = cell.live[kind.index()] as usize;
            if live == 0 {
                continue;
            }
            let positions = &cell.positions[kind.index()];
            match (dist, is_project_wide(kind)) {
                (Some(_), _) => {
                    live_up += live;
                    walk(r, scratch, &mut best, positions, *dist, 1);
                }
                (None, true) => {
                    live_wide += live;
                    wide_cells.push(positions);
                }
                (None, false) => live_other += live,
            }
        }
    }
    if best.open_to(2) {
        for &pos in scratch.touched() {
            let slot = ix.slot(pos);
            if slot & SLOT_DEAD != 0 {
                continue;
            }
            let group = table[slot as usize];
            if group == 2 || group == 4 && best.open_to(4) {
                best.offer(r.candidate(pos, ix.meta(pos), scratch.get(pos), None, group, None));
            }
        }
    }
    for positions in wide_cells {
        if !best.open_to(3) {
            break;
        }
        walk(r, scratch, &mut best, positions, None, 3);
    }
    Ranked {
        head: best.into_sorted(),
        total: live_up + live_wide + matched[4],
        unrelated: live_other - matched[4],
    }
}

/// Offers the non-matching live entries of one (room, plan, kind), newest first, until
/// one is not kept: the ones after it score no better (same distance and decay rate,
/// older or equal time, earlier in the file).
fn walk(
    r: &Resolved<'_>,
    scratch: &Scratch,
    best: &mut Head,
    positions: &[u32],
    dist: Option<u32>,
    group: u8,
) {
    if !best.open_to(group) {
        return;
    }
    for &pos in positions.iter().rev() {
        let m = r.ix.meta(pos);
        if !m.live || scratch.get(pos) > 0.0 {
            continue;
        }
        if !best.offer(r.candidate(pos, m, 0.0, dist, group, None)) {
            return;
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;
