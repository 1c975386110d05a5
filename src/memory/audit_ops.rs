//! Auditor reads through the index (`history`, `log`) and diffs of the live ledger between
//! two times or two git revisions (`memory_diff`).

use super::Memory;
use super::read::page_size;
use crate::api::audit::{Change, DiffArgs, DiffPage, HistoryArgs, HistoryEntry, HistoryOutput};
use crate::audit::diff::{DiffReport, diff};
use crate::audit::git;
use crate::clock::parse_time_arg;
use crate::config::Identity;
use crate::entry::Entry;
use crate::error::{Error, Result};
use crate::index::{Filter, LedgerIndex, RoomPattern};
use crate::validate::short_id;

/// An entry with its status (live, superseded by, line) as history and the console show it.
pub(super) fn status(ix: &LedgerIndex, pos: u32, entry: crate::entry::Entry) -> HistoryEntry {
    HistoryEntry {
        entry,
        live: ix.meta(pos).live,
        superseded_by: ix.stored(pos).superseded_by().map(|p| ix.id(p).to_string()),
        line: ix.stored(pos).loc.line,
    }
}

impl Memory {
    /// Entries matching `filter` (superseded ones included when the filter says so),
    /// newest first, at most `limit`, with their status.
    pub fn log(&self, filter: &Filter, limit: usize) -> Result<HistoryOutput> {
        let state = self.fresh_read()?;
        let ix = state.ledger.index();
        let r = ix.query(&filter.compile(ix), limit);
        Ok(HistoryOutput {
            truncated: r.total > r.positions.len(),
            entries: r
                .positions
                .iter()
                .zip(ix.entries(&r.positions)?)
                .map(|(&p, e)| status(ix, p, e))
                .collect(),
            total: r.total,
        })
    }

    /// Every entry of a ref or a room, superseded ones included and marked, oldest first.
    pub fn history(&self, args: HistoryArgs, who: &Identity) -> Result<HistoryOutput> {
        if args.ref_.is_none() && args.room_id.is_none() {
            return Err(Error::invalid(
                "ref",
                "neither `ref` nor `room_id` was given",
                "pass `ref` (e.g. \"EPIC-007\"), `room_id`, or both",
            ));
        }
        if let Some(r) = &args.ref_ {
            short_id("ref", r)?;
        }
        let limit = page_size("last_n", args.last_n, 50, 200, "narrow with ref or room_id")?;
        let filter = Filter {
            ref_: args.ref_,
            room: args
                .room_id
                .as_deref()
                .map(|r| RoomPattern::parse("room_id", r))
                .transpose()?,
            include_superseded: true,
            viewer: self.viewer(who)?,
            ..Filter::default()
        };
        let mut out = self.log(&filter, limit)?;
        out.entries.reverse();
        Ok(out)
    }

    /// The full diff of the ledger between two times or two git revisions.
    pub fn diff_report(&self, args: &DiffArgs) -> Result<DiffReport> {
        let ledger = &self.paths().ledger;
        match (&args.since, &args.git_from) {
            (Some(_), Some(_)) => Err(Error::invalid(
                "since",
                "both `since` and `git_from` were given",
                "compare two times (since/until) or two revisions (git_from/git_to), not both",
            )),
            (None, None) => Err(Error::invalid(
                "since",
                "no starting point given",
                "pass `since` (e.g. \"24h\" or 2026-11-20) or `git_from` (e.g. \"HEAD~1\")",
            )),
            (Some(since), None) => {
                let now = self.now();
                let bad = |f: &str, e: crate::clock::TimeError| {
                    Error::invalid(f, e.to_string(), "use RFC 3339, a date, or an age like 24h")
                };
                let t1 = parse_time_arg(since, now).map_err(|e| bad("since", e))?;
                let t2 = match &args.until {
                    Some(u) => parse_time_arg(u, now).map_err(|e| bad("until", e))?,
                    None => now,
                };
                if t1 > t2 {
                    return Err(Error::invalid(
                        "since",
                        format!("{t1} is after `until` {t2}"),
                        "swap them",
                    ));
                }
                self.since_report(t1, t2)
            }
            (None, Some(_)) if self.backend().is_database() => Err(Error::invalid(
                "git_from",
                "this project's ledger is in a database, not in a git-tracked file",
                "compare two times (since/until), or two `warroom-memory db export` files",
            )),
            (None, Some(from)) => {
                let a = git::read_at(ledger, Some(from))?;
                let b = git::read_at(ledger, args.git_to.as_deref())?;
                let b_label = args.git_to.clone().unwrap_or_else(|| "working tree".into());
                Ok(diff(&format!("git {from}"), &a, &b_label, &b))
            }
        }
    }

    /// The ledger as of `t2` against the ledger as of `t1`, served from the index: by
    /// position, "as of t" is every line before the first entry dated after `t`, so
    /// the diff is exactly the lines between the two cuts — read from the file by byte
    /// range, nothing else. A scan of the index's timestamps finds the cuts (1M entries:
    /// about a millisecond); when nothing changed, nothing is read.
    fn since_report(
        &self,
        t1: crate::clock::Timestamp,
        t2: crate::clock::Timestamp,
    ) -> Result<DiffReport> {
        let state = self.fresh_read()?;
        let ix = state.ledger.index();
        let end = state.ledger.offset();
        let cut = |t: crate::clock::Timestamp| {
            (0..ix.len() as u32)
                .find(|&p| ix.meta(p).ts > t.0)
                .map_or((end, None), |p| {
                    let loc = ix.stored(p).loc;
                    (loc.offset, Some(loc.line))
                })
        };
        let (c1, (o2, _)) = (cut(t1), cut(t2));
        range_report(
            &state,
            &format!("ledger as of {t1}"),
            &format!("ledger as of {t2}"),
            c1,
            o2,
        )
    }

    /// What was appended after line `line` (a line position, or the line of a head
    /// recorded earlier) up to now: the same report as a diff between two times.
    pub fn diff_after_line(&self, line: u64) -> Result<DiffReport> {
        let state = self.fresh_read()?;
        let ix = state.ledger.index();
        let end = state.ledger.offset();
        // Line numbers grow with position: the first entry after `line`, by bisection.
        let (mut first, mut hi) = (0usize, ix.len());
        while first < hi {
            let mid = (first + hi) / 2;
            if ix.stored(mid as u32).loc.line <= line {
                first = mid + 1;
            } else {
                hi = mid;
            }
        }
        let cut = match (first < ix.len()).then(|| ix.stored(first as u32).loc) {
            Some(loc) => (loc.offset, Some(loc.line)),
            None => (end, None),
        };
        range_report(
            &state,
            &format!("ledger up to line {line}"),
            "ledger now",
            cut,
            end,
        )
    }
}

/// The report of the ledger's lines from the cut `(o1, line1)` to byte `o2`.
fn range_report(
    state: &super::State,
    a: &str,
    b: &str,
    (o1, line1): (u64, Option<u64>),
    o2: u64,
) -> Result<DiffReport> {
    let ix = state.ledger.index();
    let bytes = if o2 > o1 {
        let label = state.ledger.label();
        state
            .ledger
            .source()
            .read_range(line1.unwrap_or(1), o1, o2)
            .map_err(|e| Error::Io {
                context: format!("reading {label}"),
                source: e,
            })?
    } else {
        Vec::new()
    };
    // Line numbers of the range: the first cut's line (or, at the end, whatever
    // follows the index's last line).
    let first_line = line1.unwrap_or(0);
    let lines: Vec<crate::audit::Line<'_>> = crate::audit::lines(&bytes)
        .into_iter()
        .map(|mut l| {
            l.no += first_line.saturating_sub(1);
            l.offset += o1;
            l
        })
        .collect();
    // The entries the added lines supersede, read before the report (a read can fail).
    let mut known = std::collections::HashMap::new();
    for l in &lines {
        if let Ok((e, _)) = crate::entry::EntryRef::parse(l.bytes)
            && let Some(target) = e.supersedes.as_deref()
            && let Some(p) = ix.position(target)
        {
            known.insert(target.to_string(), ix.entry(p)?);
        }
    }
    Ok(crate::audit::diff::report(
        a,
        b,
        lines.iter(),
        |id| known.get(id).cloned(),
        Vec::new(),
    ))
}

impl Memory {
    /// One page of `memory_diff`.
    /// Entries `who` may not see ([`crate::entry::may_see`]) are left out of its changes.
    pub fn diff_page(&self, args: DiffArgs, who: &Identity) -> Result<DiffPage> {
        let limit = page_size("limit", args.limit, 20, 50, "page with `offset`")?;
        let offset = args.offset.unwrap_or(0) as usize;
        let viewer = self.viewer(who)?;
        let sees = |e: &Entry| viewer.as_ref().is_none_or(|v| v.sees_entry(e));
        let r = self.diff_report(&args)?;
        let mut changes: Vec<Change> = r
            .violations
            .iter()
            .cloned()
            .map(|v| Change::Violation(Box::new(v)))
            .collect();
        changes.extend(
            r.superseded
                .iter()
                .filter(|x| sees(&x.new) && x.old.as_ref().is_none_or(sees))
                .cloned()
                .map(|x| Change::Superseded(Box::new(x))),
        );
        changes.extend(
            r.added
                .iter()
                .flat_map(|g| g.entries.iter().filter(|e| sees(e)).cloned())
                .map(|entry| Change::Added {
                    entry: Box::new(entry),
                }),
        );
        let total = changes.len();
        let page: Vec<Change> = changes.into_iter().skip(offset).take(limit).collect();
        Ok(DiffPage {
            a: r.a.clone(),
            b: r.b.clone(),
            append_only: r.append_only(),
            counts: r.counts.clone(),
            next_offset: (offset + page.len() < total).then_some(offset + page.len()),
            changes: page,
            total_changes: total,
            offset,
        })
    }
}
