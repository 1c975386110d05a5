//! What a person browsing the memory reads (the console's pages): the timeline a page at a
//! time, one entry with its supersede chain and its place in the hash chain, what was
//! appended after a position (live updates), and a room's channel after a message count.
//!
//! Every page is bounded: the timeline walks the index newest first from a cursor and
//! stops when the page is full (no count, no scan of the ledger); an entry's chain is
//! followed through the index; only the entry's own line and its successor's are read
//! back from storage to show the links.

use crate::api::audit::HistoryEntry;
use crate::channel::Message;
use crate::error::{Error, Result};
use crate::index::Filter;
use crate::memory::Memory;
use crate::memory::audit_ops::status;

/// Longest supersede chain a page follows each way (a longer one says so).
pub const MAX_CHAIN: usize = 64;
/// Most entries or messages one live-update read returns.
pub const MAX_NEWS: usize = 200;

/// Most bytes read of the next line to show its `prev` (entries are far smaller).
const NEXT_LINE_READ: u64 = 256 * 1024;

/// One page of the timeline.
#[derive(Debug, Clone)]
pub struct TimelinePage {
    /// Entries, newest first.
    pub entries: Vec<HistoryEntry>,
    /// The cursor of the next (older) page, if there is one.
    pub next: Option<String>,
}

/// A room's counts, for the plans page.
#[derive(Debug, Clone, Default)]
pub struct RoomSummary {
    /// Live entries by kind, in [`crate::entry::Kind::ALL`]'s order.
    pub live: [u32; 6],
    /// Entries of every status.
    pub entries: usize,
    /// When its newest entry was written.
    pub last: Option<crate::clock::Timestamp>,
}

/// One entry as the entry page shows it.
#[derive(Debug, Clone)]
pub struct EntryDetail {
    /// The entry with its status and line number.
    pub entry: HistoryEntry,
    /// Byte offset of its line.
    pub offset: u64,
    /// The versions before it, oldest first (the entry it supersedes is last).
    pub older: Vec<HistoryEntry>,
    /// The versions after it, oldest first (the one that superseded it is first).
    pub newer: Vec<HistoryEntry>,
    /// True if a chain was longer than [`MAX_CHAIN`] and cut.
    pub chain_cut: bool,
    /// The `prev` link its line carries (None: an unchained line).
    pub prev: Option<String>,
    /// The link of its own line: what the next line must carry.
    pub link: String,
    /// The next line's `prev`, when a next entry exists and is readable.
    pub next_prev: Option<String>,
}

/// A cursor is `<ts>.<position>` of the last entry shown.
fn parse_cursor(text: &str) -> Result<(i64, u32)> {
    let bad = || {
        Error::invalid(
            "before",
            format!(
                "`{}` is not a timeline cursor",
                crate::validate::printable(text)
            ),
            "follow the page's own \"older\" link, or leave `before` out for the newest",
        )
    };
    let (ts, pos) = text.split_once('.').ok_or_else(bad)?;
    Ok((
        ts.parse().map_err(|_| bad())?,
        pos.parse().map_err(|_| bad())?,
    ))
}

/// The `prev` field of a ledger line, if it has one.
fn prev_of(line: &[u8]) -> Option<String> {
    let v: serde_json::Value = serde_json::from_slice(line).ok()?;
    v.get("prev")?.as_str().map(str::to_string)
}

impl Memory {
    /// Up to `limit` entries passing `filter`, newest first, older than the cursor
    /// `before` (from a previous page's `next`).
    pub fn timeline(
        &self,
        filter: &Filter,
        before: Option<&str>,
        limit: usize,
    ) -> Result<TimelinePage> {
        let before = before.map(parse_cursor).transpose()?;
        let state = self.fresh_read()?;
        let ix = state.ledger.index();
        let mut positions = ix.page_before(&filter.compile(ix), before, limit + 1);
        let more = positions.len() > limit;
        positions.truncate(limit);
        let next = more
            .then(|| positions.last().map(|&p| format!("{}.{p}", ix.meta(p).ts)))
            .flatten();
        let entries = positions
            .iter()
            .zip(ix.entries(&positions)?)
            .map(|(&p, e)| status(ix, p, e))
            .collect();
        Ok(TimelinePage { entries, next })
    }

    /// One entry with its supersede chain both ways and its links in the hash chain.
    pub fn entry_detail(&self, id: &str) -> Result<EntryDetail> {
        let state = self.fresh_read()?;
        let ledger = &state.ledger;
        let ix = ledger.index();
        let pos = ix.position(id).ok_or_else(|| {
            Error::NotFound(format!(
                "no entry `{}` in the ledger",
                crate::validate::printable(id)
            ))
        })?;
        let mut chain_cut = false;
        let mut older = Vec::new();
        let mut at = pos;
        while let Some(prev) = ix.supersedes_of(at).and_then(|s| ix.position(s)) {
            if older.len() == MAX_CHAIN {
                chain_cut = true;
                break;
            }
            older.push(prev);
            at = prev;
        }
        older.reverse();
        let mut newer = Vec::new();
        let mut at = pos;
        while let Some(next) = ix.stored(at).superseded_by() {
            if newer.len() == MAX_CHAIN {
                chain_cut = true;
                break;
            }
            newer.push(next);
            at = next;
        }
        let with_status = |ps: &[u32]| -> Result<Vec<HistoryEntry>> {
            Ok(ps
                .iter()
                .zip(ix.entries(ps)?)
                .map(|(&p, e)| status(ix, p, e))
                .collect())
        };
        let loc = ix.stored(pos).loc;
        let end = match (pos as usize + 1 < ix.len()).then(|| ix.stored(pos + 1).loc) {
            Some(next) => next.offset,
            None => ledger.offset(),
        };
        let io = |e| Error::Io {
            context: format!("reading line {} of {}", loc.line, ledger.label()),
            source: e,
        };
        let bytes = ledger
            .source()
            .read_range(loc.line, loc.offset, end)
            .map_err(io)?;
        let own = bytes.split(|&b| b == b'\n').next().unwrap_or(&[]);
        let own = own.strip_suffix(b"\r").unwrap_or(own);
        let next_prev = if pos as usize + 1 < ix.len() {
            let n = ix.stored(pos + 1).loc;
            // Only when the next entry is the very next line (no malformed line between).
            (n.line == loc.line + 1)
                .then(|| {
                    let end = match (pos as usize + 2 < ix.len()).then(|| ix.stored(pos + 2).loc) {
                        Some(after) => after.offset,
                        None => ledger.offset(),
                    };
                    let end = end.min(n.offset + NEXT_LINE_READ);
                    ledger.source().read_range(n.line, n.offset, end).ok()
                })
                .flatten()
                .and_then(|b| prev_of(b.split(|&c| c == b'\n').next().unwrap_or(&[])))
        } else {
            None
        };
        Ok(EntryDetail {
            entry: status(ix, pos, ix.entry(pos)?),
            offset: loc.offset,
            older: with_status(&older)?,
            newer: with_status(&newer)?,
            chain_cut,
            prev: prev_of(own),
            link: crate::chain::hex(&crate::chain::link_of(own)),
            next_prev,
        })
    }

    /// Entries appended after the first `after` (index positions), at most [`MAX_NEWS`],
    /// with the position reached. A ledger that shrank (replaced) restarts at its end.
    pub fn entries_after(&self, after: u64) -> Result<(Vec<HistoryEntry>, u64)> {
        let state = self.fresh_read()?;
        let ix = state.ledger.index();
        let len = ix.len() as u64;
        if after >= len {
            return Ok((Vec::new(), len));
        }
        let to = len.min(after + MAX_NEWS as u64);
        let positions: Vec<u32> = (after as u32..to as u32).collect();
        let entries = positions
            .iter()
            .zip(ix.entries(&positions)?)
            .map(|(&p, e)| status(ix, p, e))
            .collect();
        Ok((entries, to))
    }

    /// How many entries the index holds (the position live updates count from).
    pub fn entry_count(&self) -> Result<u64> {
        Ok(self.fresh_read()?.ledger.index().len() as u64)
    }

    /// A room's channel messages after the first `after`, at most `max` (the newest
    /// `max` when `after` is None), with the channel's message count.
    pub fn channel_after(
        &self,
        room: &str,
        after: Option<usize>,
        max: usize,
    ) -> Result<(Vec<Message>, usize)> {
        crate::validate::path_component("room_id", room)?;
        let mut state = self.fresh()?;
        let path = self.paths().channel(room);
        self.paths().confine(&path)?;
        let ch = state.channels.get(room, path)?;
        let all = ch.messages();
        let from = match after {
            Some(a) => a.min(all.len()),
            None => all.len().saturating_sub(max),
        };
        let to = all.len().min(from + max);
        let page = all[from..to]
            .iter()
            .map(|m| ch.message(m))
            .collect::<Result<Vec<Message>>>()?;
        Ok((page, all.len()))
    }

    /// Every room with entries, with its counts (read from the index's per-room tables:
    /// no entry is read).
    pub fn room_summaries(&self) -> Result<std::collections::BTreeMap<String, RoomSummary>> {
        let state = self.fresh_read()?;
        let ix = state.ledger.index();
        let mut out: std::collections::BTreeMap<String, RoomSummary> = Default::default();
        for cell in ix.cells() {
            let s = out.entry(ix.rooms.name(cell.room).to_string()).or_default();
            for k in 0..6 {
                s.live[k] += cell.live[k];
                s.entries += cell.positions[k].len();
                if let Some(&p) = cell.positions[k].last() {
                    let ts = crate::clock::Timestamp(ix.meta(p).ts);
                    s.last = Some(s.last.map_or(ts, |l| l.max(ts)));
                }
            }
        }
        Ok(out)
    }

    /// True if any entry names `room`, or a plan gives an epic that room.
    pub fn room_exists(&self, room: &str) -> Result<bool> {
        let state = self.fresh_read()?;
        Ok(state.ledger.index().room_names().any(|r| r == room)
            || state.plans.dag.node_for_room(room, None).is_some())
    }
}
