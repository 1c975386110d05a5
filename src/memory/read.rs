//! Read operations over the ledger: query, search, get, and the filtered views behind them.
//!
//! The view rule lives in [`Memory::build_filter`]: an agent with a room identity does not
//! see its own room's entries unless it names `room_id` or `exclude_room` itself.

use super::{DEFAULT_SEARCH_RESULTS, MAX_RESULTS, Memory};
use crate::api::ledger::{
    FilterArgs, GetArgs, GetOutput, QueryArgs, QueryOutput, SearchArgs, SearchHitOut, SearchOutput,
};
use crate::clock::{Timestamp, parse_time_arg};
use crate::config::Identity;
use crate::entry::normalize_tags;
use crate::error::{Error, Result};
use crate::index::{Filter, LedgerIndex, RoomPattern, Scoring};
use crate::validate::short_id;

/// Checks a page size `n` against `1..=max` (`default` when absent). `narrow` says how to
/// see more than one page.
pub(crate) fn page_size(
    field: &str,
    n: Option<u32>,
    default: u32,
    max: u32,
    narrow: &str,
) -> Result<usize> {
    match n {
        None => Ok(default as usize),
        Some(n) if (1..=max).contains(&n) => Ok(n as usize),
        Some(n) => Err(Error::invalid(
            field,
            format!("{n} is outside 1..={max}"),
            format!("ask for at most {max}; {narrow}"),
        )),
    }
}

const NARROW_FILTERS: &str = "narrow the filters (since/until, tags, kind) to page through more";

fn time_arg(field: &str, text: &Option<String>, now: Timestamp) -> Result<Option<Timestamp>> {
    text.as_deref()
        .map(|t| {
            parse_time_arg(t, now).map_err(|e| {
                Error::invalid(
                    field,
                    e.to_string(),
                    "use RFC 3339 (2026-11-25T10:30:00Z), a date (2026-11-25) or an age (24h, 7d)",
                )
            })
        })
        .transpose()
}

impl Memory {
    /// The room `who` sees entries as ([`crate::entry::may_see`]): its own room and the
    /// rooms upstream of it; None for an operator (no room), who sees every entry.
    pub fn viewer(&self, who: &Identity) -> Result<Option<crate::index::Viewer>> {
        who.room_id
            .as_ref()
            .map(|room| {
                Ok(crate::index::Viewer {
                    room: room.clone(),
                    upstream: self.upstream_rooms(room)?,
                })
            })
            .transpose()
    }

    /// Turns filter arguments into a [`Filter`], applying the caller's default view.
    /// Returns the filter and the room excluded by default, if any.
    pub fn build_filter(
        &self,
        args: &FilterArgs,
        who: &Identity,
    ) -> Result<(Filter, Option<String>)> {
        let now = self.now();
        let tags = match &args.tags {
            Some(t) => normalize_tags(t)?,
            None => Vec::new(),
        };
        if args.tags.as_ref().is_some_and(|t| t.is_empty()) {
            return Err(Error::invalid(
                "tags",
                "it is an empty list",
                "give at least one tag, or leave `tags` out to match every tag",
            ));
        }
        let room = args
            .room_id
            .as_deref()
            .map(|r| RoomPattern::parse("room_id", r))
            .transpose()?;
        let mut exclude_room = args
            .exclude_room
            .as_deref()
            .map(|r| RoomPattern::parse("exclude_room", r))
            .transpose()?;
        let mut excluded = None;
        if room.is_none()
            && exclude_room.is_none()
            && let Some(own) = &who.room_id
        {
            exclude_room = Some(RoomPattern::parse("WARROOM_ROOM_ID", own)?);
            excluded = Some(own.clone());
        }
        for (field, v) in [("author_role", &args.author_role), ("ref", &args.ref_)] {
            if let Some(v) = v {
                short_id(field, v)?;
            }
        }
        let since = time_arg("since", &args.since, now)?;
        let until = time_arg("until", &args.until, now)?;
        if let (Some(s), Some(u)) = (since, until)
            && s > u
        {
            return Err(Error::invalid(
                "since",
                format!("{s} is after `until` {u}"),
                "swap them, or widen the window",
            ));
        }
        let filter = Filter {
            tags,
            kind: args.kind,
            room,
            exclude_room,
            author_role: args.author_role.clone(),
            ref_: args.ref_.clone(),
            since,
            until,
            include_superseded: false,
            viewer: self.viewer(who)?,
        };
        Ok((filter, excluded))
    }

    /// Live entries matching the filters, newest first.
    pub fn query(&self, args: QueryArgs, who: &Identity) -> Result<QueryOutput> {
        let limit = page_size(
            "last_n",
            args.last_n,
            MAX_RESULTS,
            MAX_RESULTS,
            NARROW_FILTERS,
        )?;
        let (filter, excluded_room) = self.build_filter(&args.filter, who)?;
        self.query_filter(&filter, limit, excluded_room)
    }

    /// Entries matching a prepared filter (also used by `log`), newest first.
    pub fn query_filter(
        &self,
        filter: &Filter,
        limit: usize,
        excluded_room: Option<String>,
    ) -> Result<QueryOutput> {
        let state = self.fresh_read()?;
        let ix = state.ledger.index();
        let r = ix.query(&filter.compile(ix), limit);
        Ok(QueryOutput {
            truncated: r.total > r.positions.len(),
            entries: ix.entries(&r.positions)?,
            total: r.total,
            excluded_room,
        })
    }

    /// Full-text search ranked by relevance × the ranking's time factor.
    pub fn search(&self, args: SearchArgs, who: &Identity) -> Result<SearchOutput> {
        if args.text.trim().is_empty() {
            return Err(Error::invalid(
                "text",
                "it is empty",
                "give a few words to search for, e.g. \"password hashing\"",
            ));
        }
        if args.text.len() > 4096 {
            return Err(Error::invalid(
                "text",
                format!("it is {} bytes, over the limit of 4096", args.text.len()),
                "search with a few keywords, not a document",
            ));
        }
        let limit = page_size(
            "max_results",
            args.max_results,
            DEFAULT_SEARCH_RESULTS,
            MAX_RESULTS,
            NARROW_FILTERS,
        )?;
        let (filter, excluded_room) = self.build_filter(&args.filter, who)?;
        let now = self.now();
        // The query's vector before the lock (the embedding is the slow part).
        if let Some(s) = self.semantic() {
            s.query(&args.text);
        }
        let state = self.fresh_read()?;
        let ix = state.ledger.index();
        let compiled = filter.compile(ix);
        let scorer = self.scorer(now);
        // With semantic ranking, a pool of lexical candidates is fused with the nearest
        // vectors; without it (or when the query cannot be embedded) today's ranking.
        let pool = if self.semantic().is_some() {
            limit.max(crate::semantic::POOL)
        } else {
            limit
        };
        let r = ix.search(&args.text, &compiled, pool, &scorer);
        let fused = self.fused(ix, &args.text, &compiled, &r.hits, limit, &scorer);
        // Entries found by meaning alone count beside the lexical matches.
        let total = r.total + fused.as_ref().map_or(0, |f| f.by_meaning_only);
        let hits: Vec<(crate::index::SearchHit, Option<crate::semantic::Fused>)> = match fused {
            Some(f) => f.hits.into_iter().map(|f| (f.hit, Some(f.parts))).collect(),
            None => r.hits.iter().take(limit).map(|h| (*h, None)).collect(),
        };
        let weight = self.semantic().map(|s| s.weight);
        Ok(SearchOutput {
            truncated: total > hits.len(),
            hits: hits
                .iter()
                .zip(ix.entries(&hits.iter().map(|h| h.0.pos).collect::<Vec<_>>())?)
                .map(|((h, parts), entry)| SearchHitOut {
                    entry,
                    score: h.score,
                    bm25: h.bm25,
                    decay: h.decay,
                    time_factor: h.time_factor,
                    age_hours: h.age_hours,
                    lexical: parts.map(|p| p.lexical),
                    cosine: parts.map(|p| p.cosine),
                    semantic: parts.map(|p| p.semantic),
                    weight: parts.and(weight),
                })
                .collect(),
            total,
            total_exact: r.total_exact,
            terms: r.terms,
            now: now.to_rfc3339(),
            excluded_room,
        })
    }

    /// How the scores of `hits` for `text` are made: each field's BM25F share and the
    /// seed's score side by side (for `search --explain`).
    pub fn explain_search(
        &self,
        text: &str,
        hits: &[SearchHitOut],
    ) -> Result<Vec<crate::api::ledger::SearchExplanation>> {
        let state = self.fresh_read()?;
        let ix = state.ledger.index();
        let terms = ix.text().query(text);
        Ok(hits
            .iter()
            .filter_map(|h| {
                let pos = ix.position(&h.entry.id)?;
                let seed_bm25 = ix.text().score_one(&terms, Scoring::Seed, pos);
                Some(crate::api::ledger::SearchExplanation {
                    id: h.entry.id.clone(),
                    fields: ix.text().field_shares(&terms, pos),
                    seed_bm25,
                    seed_score: seed_bm25 * h.decay,
                })
            })
            .collect())
    }

    /// One entry, live or superseded, with its supersede chain in both directions.
    /// An entry `who` may not see ([`crate::entry::may_see`]) is not found, as one that
    /// does not exist.
    pub fn get(&self, args: GetArgs, who: &Identity) -> Result<GetOutput> {
        short_id("id", &args.id)?;
        let viewer = self.viewer(who)?;
        let state = self.fresh_read()?;
        let ix = state.ledger.index();
        let sight = crate::index::Sight::new(ix, viewer.as_ref(), true);
        let pos = ix.position(&args.id).filter(|&p| sight.sees(ix, p)).ok_or_else(|| {
            Error::NotFound(format!(
                "no entry has id `{}`. Fix: copy an id from memory_query or memory_search results",
                crate::validate::printable(&args.id)
            ))
        })?;
        // Only supersedes that took effect count (a refused one retired nothing).
        let (replaced, replaced_more) = chain(ix, pos, |ix, p| {
            ix.supersedes_of(p)
                .and_then(|s| ix.position(s))
                .filter(|&t| ix.stored(t).superseded_by() == Some(p))
        })?;
        let (replaced_by, replaced_by_more) = chain(ix, pos, |ix, p| ix.stored(p).superseded_by())?;
        Ok(GetOutput {
            entry: ix.entry(pos)?,
            live: ix.meta(pos).live,
            replaced,
            replaced_more,
            replaced_by,
            replaced_by_more,
            line: ix.stored(pos).loc.line,
        })
    }
}

/// Entries of a supersede chain shown each way by `memory_get`; the rest are counted.
pub const MAX_CHAIN_SHOWN: usize = 20;

/// Follows `next` from `pos` (not included), nearest first, stopping on a repeat: the
/// first [`MAX_CHAIN_SHOWN`] entries, and how many more the chain has.
fn chain(
    ix: &LedgerIndex,
    pos: u32,
    next: impl Fn(&LedgerIndex, u32) -> Option<u32>,
) -> Result<(Vec<crate::entry::Entry>, usize)> {
    let mut out = Vec::new();
    let mut more = 0;
    let mut seen = std::collections::HashSet::from([pos]);
    let mut cur = next(ix, pos);
    while let Some(p) = cur {
        if !seen.insert(p) {
            break;
        }
        if out.len() < MAX_CHAIN_SHOWN {
            out.push(ix.entry(p)?);
        } else {
            more += 1;
        }
        cur = next(ix, p);
    }
    Ok((out, more))
}
