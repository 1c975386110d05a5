//! `memory_get_context`: resolve the room's epic and its upstream in the DAG, rank the
//! candidates ([`crate::context::rank`]), add the direct predecessors' latest `done`
//! messages, and render within the limits ([`crate::context::render`]).

use super::Memory;
use super::read::page_size;
use crate::api::context::{ContextArgs, ContextOutput, IncludedOut, OmittedOut, UpstreamOut};
use crate::config::Identity;
pub(crate) use crate::context::render::Output as BriefOutput;
use crate::context::render::{MAX_CONTEXT_ENTRIES, Output, render};
use crate::context::{Scope, rank};
use crate::error::{Error, Result};
use crate::validate::{path_component, short_id};

mod header;

/// Candidates ranked in order before rendering; more only if these do not fill the brief.
const RANKED_HEAD: usize = 256;
/// A selection's pool: each (room, plan, kind)'s best this many; more only if the brief
/// is not full and some bucket was cut.
const POOL_PER_BUCKET: usize = 24;

impl Memory {
    /// The predecessor context of a room, recorded by a receipt (its id in `receipt`).
    pub fn get_context(&self, args: ContextArgs, who: &Identity) -> Result<ContextOutput> {
        let args = self.scrub_keywords(args)?;
        let (mut out, served) = self.compute_context(&args, who)?;
        // A brief with no record is what receipts prevent: a failure to write one fails
        // the call (nothing else was written).
        out.receipt = Some(self.write_receipt(&out, &args, who, served)?);
        Ok(out)
    }

    /// The same brief without writing its receipt: for the console's room page (a person
    /// previewing what a manager would read is not a brief served) and for `cargo xtask
    /// bench`, which measures what receipts cost. No agent is ever served one.
    pub fn get_context_unrecorded(
        &self,
        args: ContextArgs,
        who: &Identity,
    ) -> Result<ContextOutput> {
        let args = self.scrub_keywords(args)?;
        Ok(self.compute_context(&args, who)?.0)
    }

    /// Brief keywords are text an agent sends that reaches the receipts file and the
    /// console: they pass the secret policy like every written text (redacted, or the call
    /// refused), before they rank anything, so the brief, its receipt and its replay all
    /// see the same words. They are scanned as words: a secret redacts only its own.
    fn scrub_keywords(&self, mut args: ContextArgs) -> Result<ContextArgs> {
        if let Some(kw) = args.brief_keywords.take() {
            let names: Vec<String> = (0..kw.len())
                .map(|i| format!("brief_keywords[{i}]"))
                .collect();
            let fields: Vec<(&str, String)> = names.iter().map(String::as_str).zip(kw).collect();
            args.brief_keywords = Some(self.guard_words(&fields, &mut Vec::new())?);
        }
        Ok(args)
    }

    fn compute_context(
        &self,
        args: &ContextArgs,
        who: &Identity,
    ) -> Result<(ContextOutput, super::receipts::Served)> {
        let room = who.room_or_own("room_id", args.room_id.clone())?;
        if let Some(p) = &args.plan_id {
            path_component("plan_id", p)?;
        }
        let max = page_size(
            "max_entries",
            args.max_entries,
            MAX_CONTEXT_ENTRIES as u32,
            MAX_CONTEXT_ENTRIES as u32,
            "the brief must stay short",
        )?;
        if let Some(kw) = &args.brief_keywords {
            if kw.len() > 32 {
                return Err(Error::invalid(
                    "brief_keywords",
                    format!("{} keywords given, the limit is 32", kw.len()),
                    "keep the words that name the epic's topic",
                ));
            }
            for (i, k) in kw.iter().enumerate() {
                short_id(&format!("brief_keywords[{i}]"), k)?;
            }
        }
        let now = self.now();
        // The keywords' vector before the lock (the embedding is the slow part); a plan's
        // keywords are embedded under it the first time, then found in the same cache.
        if let (Some(s), Some(kw)) = (self.semantic(), &args.brief_keywords) {
            s.query(&kw.join(" "));
        }
        let mut guard = self.fresh()?;
        let state = &mut *guard;
        let dag = &state.plans.dag;
        let node = dag.node_for_room(&room, args.plan_id.as_deref());
        if let (Some(p), None) = (&args.plan_id, node) {
            return Err(Error::NotFound(format!(
                "plan `{p}` has no epic run by room `{room}`. Fix: check the plan with `warroom-memory plan show`, or leave plan_id out"
            )));
        }
        let keywords = args
            .brief_keywords
            .clone()
            .or_else(|| node.map(|n| dag.nodes[n].brief_keywords.clone()))
            .unwrap_or_default();
        let ancestors = node.map(|n| dag.ancestors(n)).unwrap_or_default();
        let upstream: Vec<UpstreamOut> = ancestors
            .iter()
            .map(|&(a, d)| UpstreamOut {
                plan_id: dag.nodes[a].plan_id.clone(),
                ref_: dag.nodes[a].ref_.clone(),
                room_id: dag.nodes[a].room_id.clone(),
                distance: d,
            })
            .collect();
        let mut outputs = Vec::new();
        for &(a, d) in &ancestors {
            if d != 1 {
                continue;
            }
            let up = &dag.nodes[a];
            if self
                .paths()
                .confine(&self.paths().channel(&up.room_id))
                .is_err()
            {
                tracing::warn!(room = %up.room_id, "room directory leaves the project root; its done output is skipped");
                continue;
            }
            let ch = state
                .channels
                .get(&up.room_id, self.paths().channel(&up.room_id))?;
            if let Some(m) = ch.latest("done") {
                outputs.push(Output {
                    room_id: up.room_id.clone(),
                    ref_: up.ref_.clone(),
                    from: m.msg.from.clone(),
                    ts: m.ts,
                    id: m.msg.id.clone(),
                    body: m.msg.body.clone(),
                });
            }
        }
        let inputs = BriefInputs {
            siblings: Some(node.map(|n| dag.sibling_rooms(n)).unwrap_or_default()),
            room,
            plan_id: node.map(|n| dag.nodes[n].plan_id.clone()),
            epic_ref: node.map(|n| dag.nodes[n].ref_.clone()),
            keywords,
            epic_title: node
                .map(|n| dag.nodes[n].title.trim().to_string())
                .filter(|t| !t.is_empty()),
            upstream,
            outputs,
            max,
            selection: crate::context::select::Version::CURRENT,
        };
        // The exclusive lock was for catching up with the files and reading the channels;
        // the ranking needs only the shared one, so publishes do not wait on briefs.
        drop(guard);
        let guard = self.fresh_read()?;
        let state = &*guard;
        let scorer = self.scorer(now);
        let meaning = self.semantic_in_use().and_then(|u| {
            let ix = state.ledger.index();
            let scoring = scorer.ranking.scoring();
            crate::index::with_spare_scratch(|scratch| {
                self.brief_meaning(
                    ix,
                    &inputs.room,
                    &inputs.keywords,
                    inputs.epic_title.as_deref(),
                    scoring,
                    scratch,
                    u.weight,
                )
            })
        });
        let brief = brief(&state.ledger, &scorer, &inputs, meaning.as_ref(), None)?;
        let position = state.ledger.position()?;
        drop(guard);
        let output_refs = inputs
            .outputs
            .iter()
            .map(|o| crate::receipts::OutputRef {
                room_id: o.room_id.clone(),
                id: o.id.clone(),
            })
            .collect();
        let served = super::receipts::Served {
            now,
            max,
            ledger: position,
            outputs: output_refs,
            semantic: meaning.map(|m| m.used),
        };
        Ok((brief.output(inputs), served))
    }
}

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
    pub upstream: Vec<UpstreamOut>,
    pub outputs: Vec<Output>,
    pub max: usize,
    /// The rooms beside this one in its plan; `None` for a receipt written before briefs
    /// had an "Open overlaps" section (its replay computes none).
    pub siblings: Option<Vec<String>>,
    /// The rules the entries are chosen by ([`crate::context::select::Version`]): a
    /// replay takes the receipt's.
    pub selection: crate::context::select::Version,
}

impl BriefInputs {
    /// What the brief searches by words: the keywords, then the epic's title — nothing
    /// when there are no keywords (a brief asked with none searches nothing).
    pub(crate) fn searched(&self) -> Vec<String> {
        let mut words = self.keywords.clone();
        if let (Some(t), false) = (&self.epic_title, words.is_empty()) {
            // A title that is one of the keywords adds nothing to search.
            let folded = t.to_lowercase();
            if !words.iter().any(|k| k.to_lowercase() == folded) {
                words.push(t.clone());
            }
        }
        words
    }
}

/// A computed brief: the rendering and the provenance of what it holds.
pub(crate) struct Brief {
    rendered: crate::context::render::Rendered,
    accounts: Vec<crate::api::context::RoomAccount>,
    included: Vec<IncludedOut>,
    omitted: OmittedOut,
    overlaps: Option<Vec<super::PairRef>>,
}

impl Brief {
    /// The tool's result for this brief (no receipt yet).
    pub(crate) fn output(self, i: BriefInputs) -> ContextOutput {
        let r = self.rendered;
        ContextOutput {
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
pub(crate) fn brief(
    ledger: &crate::ledger::Ledger,
    scorer: &crate::index::Scorer,
    i: &BriefInputs,
    meaning: Option<&super::semantic::brief::Meaning>,
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
            let found = super::open_overlaps::among(
                ledger.index(),
                &rooms,
                super::open_overlaps::BRIEF_ENTRIES,
                super::open_overlaps::BRIEF_PAIRS,
                at,
            )?;
            Some(found.pairs)
        }
        None => None,
    };
    let tail = super::open_overlaps::brief_section(overlaps.as_deref().unwrap_or_default());
    let overlaps: Option<Vec<super::PairRef>> =
        overlaps.map(|ps| ps.iter().map(super::PairRef::from).collect());
    let (r, shares, account, accounts) = if i.selection != crate::context::select::Version::Ranked {
        covered(ledger, scorer, i, &scope, &header, &tail, meaning, at)?
    } else {
        let r = ranked(ledger, scorer, i, &scope, &header, &tail, meaning, at)?;
        (r, None, None, Vec::new())
    };
    let ix = ledger.index();
    let mut included =
        super::provenance::reasons(ix, &r, &i.searched(), meaning.map(|m| &m.cosines));
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
    meaning: Option<&super::semantic::brief::Meaning>,
    at: Option<u32>,
) -> Result<crate::context::render::Rendered> {
    let searched = i.searched();
    let mut head = RANKED_HEAD;
    loop {
        let ix = ledger.index();
        let fused = meaning.map(|m| m.fused.as_slice());
        let ranked = crate::index::with_spare_scratch(|scratch| match at {
            Some(h) => {
                crate::context::rank::rank_at(ix, scope, &searched, scorer, scratch, head, h)
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
type Shares = std::collections::HashMap<u32, crate::context::select::Share>;

/// A selection's brief: the rendering, each entry's share, the account line to append
/// and the per-room account.
type Covered = (
    crate::context::render::Rendered,
    Option<Shares>,
    Option<String>,
    Vec<crate::api::context::RoomAccount>,
);

/// The brief as a selection ([`crate::context::select`]) from the pool of every bucket's
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
    meaning: Option<&super::semantic::brief::Meaning>,
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
    let first = (POOL_PER_BUCKET * 4 / rooms.max(1)).clamp(4, POOL_PER_BUCKET);
    let mut per_bucket = first;
    let searched = i.searched();
    loop {
        let ix = ledger.index();
        // `coverage-2`: matches by meaning alone handed over apart, to follow the matches
        // by words; `coverage` fused them all alike.
        let (fused, by_meaning) = match (meaning, i.selection) {
            (Some(m), crate::context::select::Version::WordsFirst) => {
                let (words, meaning_only) = m.fused.split_at(m.words.min(m.fused.len()));
                (Some(words), meaning_only)
            }
            (m, _) => (m.map(|m| m.fused.as_slice()), &[][..]),
        };
        let pool = crate::index::with_spare_scratch(|scratch| {
            crate::context::pool::pool(
                ix, scope, &searched, scorer, scratch, per_bucket, fused, by_meaning, at,
            )
        });
        let chosen = crate::context::select::select(ix, &pool.candidates, i.max);
        // The renderer takes the order's head (it counts each fact's copies among what it
        // is given); the whole order only when the head left the brief short.
        let head = if per_bucket == first {
            RANKED_HEAD
        } else {
            usize::MAX
        };
        let order: Vec<crate::context::Candidate> =
            chosen.iter().take(head).map(|(c, _)| *c).collect();
        // The account's longest form (every room with the most a brief can show).
        let reserve = account(ix, i, &pool, &|_| MAX_CONTEXT_ENTRIES).len();
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
        if !starved || per_bucket == usize::MAX {
            let shown = |room: &str| {
                r.included
                    .iter()
                    .filter(|c| ix.room_of(c.pos) == room)
                    .count()
            };
            let line = account(ix, i, &pool, &shown);
            let shares: Shares = chosen.into_iter().map(|(c, s)| (c.pos, s)).collect();
            let line = Some(line).filter(|_| r.markdown != crate::context::render::EMPTY);
            let accounts = accounts_of(ix, i, &pool, &shown);
            return Ok((r, Some(shares), line, accounts));
        }
        per_bucket = per_bucket.saturating_mul(4);
        if per_bucket > 4 * 4 * 4 * POOL_PER_BUCKET {
            per_bucket = usize::MAX;
        }
    }
}

/// Each upstream room (nearest first, once): its live entries and how many are shown.
fn accounts_of(
    ix: &crate::index::LedgerIndex,
    i: &BriefInputs,
    pool: &crate::context::pool::Pool,
    shown: &dyn Fn(&str) -> usize,
) -> Vec<crate::api::context::RoomAccount> {
    let mut seen = std::collections::BTreeSet::new();
    i.upstream
        .iter()
        .filter(|u| seen.insert(u.room_id.as_str()))
        .map(|u| crate::api::context::RoomAccount {
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
fn live_in(ix: &crate::index::LedgerIndex, pool: &crate::context::pool::Pool, room: &str) -> usize {
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
    pool: &crate::context::pool::Pool,
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
