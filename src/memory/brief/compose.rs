//! A brief composed from its inputs, on the ledger's index: the header, the selection (or
//! the ranked order of a receipt written before selections), the layout within the
//! limits, why each entry is there, and the per-upstream-room account. Pure given its
//! inputs ([`BriefInputs`]), so a receipt's replay on the ledger as it was gives the same
//! bytes.

use super::header;
use crate::api::brief::{BriefOutput, IncludedOut, OmittedOut, UpstreamOut};
use crate::brief::render::{MAX_BRIEF_ENTRIES, PredecessorOutput, render};
use crate::brief::{Scope, rank};
use crate::error::Result;

/// Candidates ranked in order before rendering; more only if these do not fill the brief.
const RANKED_HEAD: usize = 256;
/// A selection's pool: each (room, plan, kind)'s best this many; more only if the brief
/// is not full and some bucket was cut.
const POOL_PER_BUCKET: usize = 24;

/// Everything a brief is computed from, once the DAG and the channels were read: what a
/// receipt records so that a replay needs neither.
pub(crate) struct BriefInputs {
    pub room: String,
    pub plan_id: Option<String>,
    pub epic_ref: Option<String>,
    pub keywords: Vec<String>,
    /// The epic's title, searched with the keywords: an entry that names the room's epic
    /// is addressed to it. None for an epic without one, a room outside every plan, or a
    /// receipt written before (its replay searches the keywords alone).
    pub epic_title: Option<String>,
    /// The epic's own words ([`crate::plan::Purpose::words`]), searched after the title;
    /// None when the plan says none, or for a receipt written before.
    pub epic_words: Option<String>,
    pub upstream: Vec<UpstreamOut>,
    pub outputs: Vec<PredecessorOutput>,
    pub max: usize,
    /// The rooms beside this one in its plan; `None` for a receipt written before briefs
    /// had an "Open overlaps" section (its replay computes none).
    pub siblings: Option<Vec<String>>,
    /// The rules the entries are chosen by ([`crate::brief::select::Version`]): a
    /// replay takes the receipt's.
    pub selection: crate::brief::select::Version,
}

impl BriefInputs {
    /// What the brief searches by words: the keywords, then the epic's title, then the
    /// rarest of the epic's own words ([`epic_search_words`]) — nothing when there are no
    /// keywords (a brief asked with none searches nothing).
    pub(crate) fn searched(&self, ix: &crate::index::LedgerIndex, at: Option<u32>) -> Vec<String> {
        let mut words = self.keywords.clone();
        if let (Some(t), false) = (&self.epic_title, words.is_empty()) {
            // A title that is one of the keywords adds nothing to search.
            let folded = t.to_lowercase();
            if !words.iter().any(|k| k.to_lowercase() == folded) {
                words.push(t.clone());
            }
        }
        if !words.is_empty()
            && let Some(w) = self
                .epic_words
                .as_deref()
                .and_then(|w| epic_search_words(ix, w, at))
        {
            words.push(w);
        }
        words
    }
}

/// Most words of an epic's objective, description and criteria a brief searches.
pub(crate) const EPIC_WORDS_SEARCHED: usize = 16;

/// The words of `text` (an epic's own words) a brief searches: the
/// [`EPIC_WORDS_SEARCHED`] rarest in the ledger (at horizon `at`), in their order in
/// the text. A rare word says what the epic is about; a common one (tests, data,
/// updated) matches everything and says nothing — and each searched word costs a walk of
/// its postings, so the cost stays bounded however long the plan's prose. A word the
/// ledger does not hold matches nothing and is not searched. None when no word is left.
pub(crate) fn epic_search_words(
    ix: &crate::index::LedgerIndex,
    text: &str,
    at: Option<u32>,
) -> Option<String> {
    let mut seen: Vec<&str> = Vec::new();
    let mut scored: Vec<(usize, f64)> = Vec::new();
    let chunks: Vec<&str> = text.split_whitespace().collect();
    for (n, chunk) in chunks.iter().enumerate() {
        if seen.contains(chunk) || seen.len() >= 4096 {
            continue;
        }
        seen.push(chunk);
        let terms = match at {
            Some(h) => ix.text.query_at(chunk, h),
            None => ix.text.query(chunk),
        };
        if let Some(idf) = terms.iter().map(|t| t.idf).max_by(f64::total_cmp) {
            scored.push((n, idf));
        }
    }
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.truncate(EPIC_WORDS_SEARCHED);
    scored.sort_by_key(|&(n, _)| n);
    let words: Vec<&str> = scored.iter().map(|&(n, _)| chunks[n]).collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// A computed brief: the rendering and the provenance of what it holds.
pub(crate) struct Brief {
    rendered: crate::brief::render::Rendered,
    accounts: Vec<crate::api::brief::RoomAccount>,
    included: Vec<IncludedOut>,
    omitted: OmittedOut,
    overlaps: Option<Vec<crate::memory::PairRef>>,
}

impl Brief {
    /// The tool's result for this brief (no receipt yet).
    pub(crate) fn output(self, i: BriefInputs) -> BriefOutput {
        let r = self.rendered;
        BriefOutput {
            bytes: r.markdown.len(),
            truncated: r.left_out > 0,
            markdown: r.markdown,
            entry_ids: r.entry_ids,
            candidates: r.candidates,
            left_out: r.left_out,
            duplicates_collapsed: r.duplicates,
            room_id: i.room,
            plan_id: i.plan_id,
            epic_ref: i.epic_ref,
            brief_keywords: i.keywords,
            epic_title: i.epic_title,
            epic_words: i.epic_words,
            upstream: i.upstream,
            predecessor_outputs: i.outputs.iter().map(|o| o.id.clone()).collect(),
            included: self.included,
            omitted: self.omitted,
            siblings: i.siblings,
            overlaps: self.overlaps,
            accounts: self.accounts,
            receipt: None,
        }
    }
}

/// Computes the brief of `i` on `ledger`'s index: the header, the ranking, the layout, and
/// why each entry is there. Pure given its inputs, so a replay on the ledger as it was
/// gives the same bytes.
pub(crate) fn compose(
    ledger: &crate::ledger::Ledger,
    scorer: &crate::index::Scorer,
    i: &BriefInputs,
    meaning: Option<&crate::memory::semantic::brief::Meaning>,
    at: Option<u32>,
) -> Result<Brief> {
    debug_assert!(
        at.is_none() || meaning.is_none(),
        "a brief at a horizon is lexical"
    );
    let header = header::header(i);
    let scope = Scope {
        room_id: i.room.clone(),
        plan_id: i.plan_id.clone(),
        upstream: i
            .upstream
            .iter()
            .map(|u| (u.room_id.clone(), u.plan_id.clone(), u.distance))
            .collect(),
    };
    // Open overlaps among the room, its upstream and its siblings (none for old receipts).
    let overlaps = match &i.siblings {
        Some(siblings) => {
            let mut rooms: Vec<String> = std::iter::once(i.room.clone())
                .chain(i.upstream.iter().map(|u| u.room_id.clone()))
                .chain(siblings.iter().cloned())
                .collect();
            rooms.sort();
            rooms.dedup();
            // Only what this room may see: not other rooms' working notes, not a
            // sibling's entries for its own downstream.
            let viewer = crate::index::Viewer {
                room: i.room.clone(),
                upstream: i.upstream.iter().map(|u| u.room_id.clone()).collect(),
            };
            let sight = crate::index::Sight::new(ledger.index(), Some(&viewer), at.is_some());
            let found = crate::memory::open_overlaps::among(
                ledger.index(),
                &rooms,
                crate::memory::open_overlaps::BRIEF_ENTRIES,
                crate::memory::open_overlaps::BRIEF_PAIRS,
                at,
                &sight,
            )?;
            Some(found.pairs)
        }
        None => None,
    };
    let tail = crate::memory::open_overlaps::brief_section(overlaps.as_deref().unwrap_or_default());
    let overlaps: Option<Vec<crate::memory::PairRef>> =
        overlaps.map(|ps| ps.iter().map(crate::memory::PairRef::from).collect());
    let (r, shares, account, accounts) = if i.selection != crate::brief::select::Version::Ranked {
        covered(ledger, scorer, i, &scope, &header, &tail, meaning, at)?
    } else {
        let r = ranked(ledger, scorer, i, &scope, &header, &tail, meaning, at)?;
        (r, None, None, Vec::new())
    };
    let ix = ledger.index();
    let mut included = super::provenance::reasons(
        ix,
        &r,
        &i.searched(ix, at),
        meaning.map(|m| &m.cosines),
        at,
        i.selection,
    );
    if let Some(shares) = &shares {
        for (inc, c) in included.iter_mut().zip(&r.included) {
            if let Some(share) = shares.get(&c.pos) {
                inc.reason = format!(
                    "{}{}",
                    share.name(),
                    if c.relevance > 0.0 { "-match" } else { "" }
                );
            }
        }
    }
    let mut r = r;
    if let Some(line) = account {
        r.markdown.push_str(&line);
    }
    let omitted = super::provenance::omitted(ix, &scope, &r, at);
    Ok(Brief {
        rendered: r,
        accounts,
        included,
        omitted,
        overlaps,
    })
}

/// The brief before selections (receipts written before them replay with it): the
/// ranked head in group order. Rank only a head of the candidates; rank them all only if
/// the head runs out (many duplicates or oversized items) before `max` entries are chosen.
#[allow(clippy::too_many_arguments)]
fn ranked(
    ledger: &crate::ledger::Ledger,
    scorer: &crate::index::Scorer,
    i: &BriefInputs,
    scope: &Scope,
    header: &str,
    tail: &str,
    meaning: Option<&crate::memory::semantic::brief::Meaning>,
    at: Option<u32>,
) -> Result<crate::brief::render::Rendered> {
    let searched = i.searched(ledger.index(), at);
    let mut head = RANKED_HEAD;
    loop {
        let ix = ledger.index();
        let fused = meaning.map(|m| m.fused.as_slice());
        let ranked = crate::index::with_spare_scratch(|scratch| match at {
            Some(h) => {
                crate::brief::candidates::rank_at(ix, scope, &searched, scorer, scratch, head, h)
            }
            None => rank(ix, scope, &searched, scorer, scratch, head, fused),
        });
        let r = render(
            ix,
            header,
            tail,
            &i.outputs,
            &ranked.head,
            ranked.total,
            ranked.unrelated,
            i.max,
            0,
        )?;
        if r.entry_ids.len() >= i.max || ranked.head.len() == ranked.total {
            return Ok(r);
        }
        head = ranked.total;
    }
}

/// Each included entry's share, by position.
type Shares = std::collections::HashMap<u32, crate::brief::select::Share>;

/// A selection's brief: the rendering, each entry's share, the account line to append
/// and the per-room account.
type Covered = (
    crate::brief::render::Rendered,
    Option<Shares>,
    Option<String>,
    Vec<crate::api::brief::RoomAccount>,
);

/// The brief as a selection ([`crate::brief::select`]) from the pool of every bucket's
/// best; a larger pool only while some bucket was cut and the brief is not full. Also the
/// per-upstream-room account appended after the footer (its bytes reserved up front).
#[allow(clippy::too_many_arguments)]
fn covered(
    ledger: &crate::ledger::Ledger,
    scorer: &crate::index::Scorer,
    i: &BriefInputs,
    scope: &Scope,
    header: &str,
    tail: &str,
    meaning: Option<&crate::memory::semantic::brief::Meaning>,
    at: Option<u32>,
) -> Result<Covered> {
    // A room's share is at most what the rounds give it: with many upstream rooms each
    // bucket needs fewer (a brief short of candidates asks for more below).
    let rooms = i
        .upstream
        .iter()
        .map(|u| u.room_id.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let base = (POOL_PER_BUCKET * 4 / rooms.max(1)).clamp(4, POOL_PER_BUCKET);
    // Serving nearer rooms first (`coverage-3`), a direct predecessor's buckets keep as
    // many as a brief could take from them, a room two steps up half as many.
    let first = if i.selection.near_first() {
        crate::brief::pool::Buckets {
            base,
            near: POOL_PER_BUCKET,
        }
    } else {
        crate::brief::pool::Buckets::flat(base)
    };
    let mut per_bucket = first;
    let searched = i.searched(ledger.index(), at);
    loop {
        let ix = ledger.index();
        // `coverage-2`: matches by meaning alone handed over apart, to follow the matches
        // by words; `coverage` fused them all alike.
        let (fused, by_meaning) = match (meaning, i.selection) {
            (Some(m), v) if v != crate::brief::select::Version::Coverage => {
                let (words, meaning_only) = m.fused.split_at(m.words.min(m.fused.len()));
                (Some(words), meaning_only)
            }
            (m, _) => (m.map(|m| m.fused.as_slice()), &[][..]),
        };
        let pool = crate::index::with_spare_scratch(|scratch| {
            crate::brief::pool::pool(
                ix,
                scope,
                &searched,
                scorer,
                scratch,
                per_bucket,
                fused,
                by_meaning,
                at,
                i.selection,
            )
        });
        let chosen = crate::brief::select::select(ix, &pool.candidates, i.max, i.selection);
        // The renderer takes the order's head (it counts each fact's copies among what it
        // is given); the whole order only when the head left the brief short.
        let head = if per_bucket == first {
            RANKED_HEAD
        } else {
            usize::MAX
        };
        let order: Vec<crate::brief::Candidate> =
            chosen.iter().take(head).map(|(c, _)| *c).collect();
        // The account's longest form (every room with the most a brief can show).
        let reserve = account(ix, i, &pool, &|_| MAX_BRIEF_ENTRIES).len();
        let mut r = render(
            ix,
            header,
            tail,
            &i.outputs,
            &order,
            pool.total,
            pool.unrelated,
            i.max,
            reserve,
        )?;
        r.held = pool.held;
        // A larger pool helps only a brief that ran out of candidates (duplicates
        // collapsed), not one whose bytes ran out (`over_bytes`): more would not fit.
        let starved = r.entry_ids.len() < i.max
            && r.over_bytes == 0
            && (pool.cut || order.len() < chosen.len());
        if !starved || per_bucket.base == usize::MAX {
            let shown = |room: &str| {
                r.included
                    .iter()
                    .filter(|c| ix.room_of(c.pos) == room)
                    .count()
            };
            let line = account(ix, i, &pool, &shown);
            let shares: Shares = chosen.into_iter().map(|(c, s)| (c.pos, s)).collect();
            let line = Some(line).filter(|_| r.markdown != crate::brief::render::EMPTY);
            let accounts = accounts_of(ix, i, &pool, &shown);
            return Ok((r, Some(shares), line, accounts));
        }
        per_bucket = per_bucket.times(4);
        if per_bucket.base > 4 * 4 * 4 * POOL_PER_BUCKET {
            per_bucket = crate::brief::pool::Buckets::flat(usize::MAX);
        }
    }
}

/// Each upstream room (nearest first, once): its live entries and how many are shown.
fn accounts_of(
    ix: &crate::index::LedgerIndex,
    i: &BriefInputs,
    pool: &crate::brief::pool::Pool,
    shown: &dyn Fn(&str) -> usize,
) -> Vec<crate::api::brief::RoomAccount> {
    let mut seen = std::collections::BTreeSet::new();
    i.upstream
        .iter()
        .filter(|u| seen.insert(u.room_id.as_str()))
        .map(|u| crate::api::brief::RoomAccount {
            room_id: u.room_id.clone(),
            distance: u.distance,
            live: live_in(ix, pool, &u.room_id),
            shown: shown(&u.room_id),
            working_notes: ix
                .rooms
                .get(&u.room_id)
                .and_then(|s| pool.held_upstream.get(&s))
                .copied()
                .unwrap_or(0),
        })
        .collect()
}

/// The live entries of upstream room `room` the pool counted.
fn live_in(ix: &crate::index::LedgerIndex, pool: &crate::brief::pool::Pool, room: &str) -> usize {
    ix.rooms
        .get(room)
        .and_then(|s| pool.live_upstream.get(&s))
        .copied()
        .unwrap_or(0)
}

/// Upstream rooms named in the account before "and N more".
const ACCOUNT_ROOMS: usize = 12;

/// The per-upstream-room account: how many of each room's live entries the brief shows,
/// and how to fetch the rest. Empty when the room has no upstream.
fn account(
    ix: &crate::index::LedgerIndex,
    i: &BriefInputs,
    pool: &crate::brief::pool::Pool,
    shown: &dyn Fn(&str) -> usize,
) -> String {
    let mut seen = std::collections::BTreeSet::new();
    let rooms: Vec<&str> = i
        .upstream
        .iter()
        .map(|u| u.room_id.as_str())
        .filter(|r| seen.insert(*r))
        .collect();
    if rooms.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = rooms
        .iter()
        .take(ACCOUNT_ROOMS)
        .map(|room| format!("{room} {}/{}", shown(room), live_in(ix, pool, room)))
        .collect();
    let more = rooms.len().saturating_sub(ACCOUNT_ROOMS);
    format!(
        "_Shown of each upstream room's live entries: {}{}. The rest: memory_query with \
         room_id=ROOM, or memory_search with your own words._\n",
        parts.join(", "),
        if more > 0 {
            format!(" and {more} more rooms")
        } else {
            String::new()
        }
    )
}
