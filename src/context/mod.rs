//! Predecessor context: the short brief a war-room manager reads before the first task.
//!
//! Candidates are the live entries of every room but the asking one. They are ranked in
//! groups, so that the DAG decides *what* is preferred and the search score decides the
//! order within a group:
//!
//! 0. entries from upstream rooms that match the brief keywords — `relevance / distance`
//! 1. other entries from upstream rooms — `decay / distance` (recency × proximity)
//! 2. conventions, warnings and interfaces from any other room that match — `relevance`
//! 3. other conventions, warnings and interfaces — `decay`
//! 4. decisions, artifacts and code from unrelated rooms that match the keywords —
//!    `relevance` (without keywords these are not eligible: unrelated and unranked)
//!
//! `relevance` is the search score under the configured [`crate::index::Ranking`] (by default BM25F ×
//! the bounded time factor), so context and search agree on what matches best.
//!
//! Ties go to the newer entry, then to the later line. [`render`] then collapses duplicate
//! facts and lays the markdown out within the entry and byte limits.

pub mod render;

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::entry::Kind;
use crate::index::{LedgerIndex, Scorer, Scratch, Sym};

/// One ranked candidate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    /// Entry position in the index.
    pub pos: u32,
    /// Ranking group (0 = most preferred), see the module doc.
    pub group: u8,
    /// Natural log of the score within the group (ranking in log space avoids an `exp`
    /// per candidate; the order is the same).
    pub log_score: f64,
    /// Entry time, for ties.
    pub ts: i64,
    /// Distance of the entry's room upstream (1 = direct predecessor), if upstream.
    pub distance: Option<u32>,
}

impl Candidate {
    /// Best first: group, then score, then newer, then later in the file.
    fn order(&self, other: &Candidate) -> Ordering {
        self.group
            .cmp(&other.group)
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
#[derive(Debug, Clone, Default)]
pub struct Ranked {
    /// The best `head` candidates (or all, if fewer), best first.
    pub head: Vec<Candidate>,
    /// Eligible candidates in all.
    pub total: usize,
    /// Live entries of other rooms that are not eligible (decisions, artifacts and code
    /// of unrelated rooms matching no keyword): left out by rule, and counted as such.
    pub unrelated: usize,
}

fn is_project_wide(kind: Kind) -> bool {
    matches!(kind, Kind::Convention | Kind::Warning | Kind::Interface)
}

/// Ranks the eligible live entries for `scope`, keeping the best `head` in order.
pub fn rank(
    ix: &LedgerIndex,
    scope: &Scope,
    keywords: &[String],
    scorer: &Scorer,
    scratch: &mut Scratch,
    head: usize,
) -> Ranked {
    let (now, half_lives, ranking) = (scorer.now, &scorer.half_lives, scorer.ranking);
    let plan_sym = |p: &str| ix.plans.get(p);
    let own_room = ix.rooms.get(&scope.room_id);
    // None: the room's plan is unknown (any entry of the room is its own);
    // Some(None): known, but no entry carries it yet.
    let own_plan: Option<Option<Sym>> = scope.plan_id.as_deref().map(plan_sym);
    // Indexed by room symbol: [(plan symbol if any entry carries it, distance)].
    let mut upstream: Vec<Vec<(Option<Sym>, u32)>> = vec![Vec::new(); ix.rooms.len()];
    for (room, plan, d) in &scope.upstream {
        if let Some(r) = ix.rooms.get(room) {
            upstream[r as usize].push((plan_sym(plan), *d));
        }
    }
    let distance = |room: Sym, plan: Sym| -> Option<u32> {
        upstream[room as usize]
            .iter()
            .filter(|(p, _)| plan == 0 || *p == Some(plan))
            .map(|&(_, d)| d)
            .min()
    };
    let is_own = |room: Sym, plan: Sym| {
        Some(room) == own_room && (plan == 0 || own_plan.is_none_or(|p| p == Some(plan)))
    };
    // Per-kind decay rate per second: log(decay) = −rate × age_seconds.
    let rate: Vec<f64> = half_lives
        .iter()
        .map(|h| std::f64::consts::LN_2 / (h * 3600.0))
        .collect();
    let ln_distance: Vec<f64> = (0..64).map(|d: u32| f64::from(d.max(1)).ln()).collect();
    let text = keywords.join(" ");
    scratch.clear();
    if !text.trim().is_empty() {
        let terms = ix.text.query(&text);
        ix.text.score(&terms, ranking.scoring(), scratch);
    }
    let mut heap: BinaryHeap<Worst> = BinaryHeap::with_capacity(head + 1);
    let mut total = 0;
    let mut unrelated = 0;
    for &pos in ix.chrono() {
        let m = ix.meta(pos);
        if !m.live || is_own(m.room, m.plan) {
            continue;
        }
        let rel = scratch.get(pos);
        let dist = distance(m.room, m.plan);
        let group = match (dist, rel > 0.0, is_project_wide(m.kind)) {
            (Some(_), true, _) => 0,
            (Some(_), false, _) => 1,
            (None, true, true) => 2,
            (None, false, true) => 3,
            (None, true, false) => 4,
            (None, false, false) => {
                unrelated += 1;
                continue;
            }
        };
        total += 1;
        let age = (now.0 - m.ts).max(0) as f64;
        let log_decay = -rate[m.kind.index()] * age;
        // Matching entries: relevance × the ranking's time factor (as in search). The
        // others have no relevance to bury: recency alone orders them.
        let mut log_score = if rel > 0.0 {
            rel.ln() + ranking.log_time_factor(log_decay)
        } else {
            log_decay
        };
        if let Some(d) = dist {
            log_score -= ln_distance
                .get(d as usize)
                .copied()
                .unwrap_or_else(|| f64::from(d).ln());
        }
        let c = Candidate {
            pos,
            group,
            log_score,
            ts: m.ts,
            distance: dist,
        };
        if heap.len() < head {
            heap.push(Worst(c));
        } else if let Some(mut worst) = heap.peek_mut()
            && c.order(&worst.0) == Ordering::Less
        {
            *worst = Worst(c);
        }
    }
    scratch.clear();
    let mut head: Vec<Candidate> = heap.into_iter().map(|w| w.0).collect();
    head.sort_unstable_by(|a, b| a.order(b));
    Ranked {
        head,
        total,
        unrelated,
    }
}
