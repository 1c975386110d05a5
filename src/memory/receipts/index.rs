//! The receipts' index: where each receipt's line is, so a page reads the receipts it shows
//! and no others. It follows the stream like the ledger's index follows the ledger — each
//! look reads only the lines appended since the last (a replaced or truncated stream is
//! read again) — and keeps per receipt its id, room, time, line and byte range (~80 bytes;
//! never the receipt's text).
//!
//! Writes are bounded here too ([`Limits`]): a brief identical to the one the same asker
//! was last served for the same room and arguments at the same ledger position is not
//! recorded again (its receipt already says so; the call returns that receipt's id), and
//! one caller (an agent token, else a room and role) records at most `receipts_per_minute`
//! new receipts a minute.

use std::collections::HashMap;

use serde::Deserialize;

use crate::receipts::Receipt;
use crate::store::Source;
use crate::store::jsonl::Poll;

/// One receipt's place in the stream.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    pub id: Box<str>,
    pub room: u32,
    pub ts: i64,
    pub line: u64,
    pub offset: u64,
    pub len: u32,
}

/// The index of one receipts stream.
pub(crate) struct ReceiptIndex {
    source: Source,
    pub rows: Vec<Row>,
    by_id: HashMap<Box<str>, u32>,
    rooms: Vec<String>,
    room_ids: HashMap<String, u32>,
}

#[derive(Deserialize)]
struct Head<'a> {
    #[serde(borrow)]
    id: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    room_id: std::borrow::Cow<'a, str>,
    #[serde(borrow, default)]
    ts: Option<std::borrow::Cow<'a, str>>,
}

impl ReceiptIndex {
    pub(crate) fn new(source: Source) -> ReceiptIndex {
        ReceiptIndex {
            source,
            rows: Vec::new(),
            by_id: HashMap::new(),
            rooms: Vec::new(),
            room_ids: HashMap::new(),
        }
    }

    /// Reads what was appended since the last look (all of it again after a reset).
    pub(crate) fn refresh(&mut self) -> std::io::Result<()> {
        for _ in 0..3 {
            let mut fresh = Vec::new();
            let polled = self.source.poll(|l| {
                if let Ok(h) = serde_json::from_slice::<Head<'_>>(l.bytes) {
                    let ts =
                        h.ts.as_deref()
                            .and_then(|t| crate::clock::parse_rfc3339(t).ok())
                            .map_or(i64::MIN, |t| t.0);
                    fresh.push((
                        h.id.into_owned(),
                        h.room_id.into_owned(),
                        ts,
                        l.line_no,
                        l.offset,
                        l.bytes.len(),
                    ));
                }
            });
            match polled? {
                Poll::Reset(_) => {
                    self.rows.clear();
                    self.by_id.clear();
                    continue;
                }
                Poll::Unchanged | Poll::Appended(_) => {}
            }
            for (id, room, ts, line, offset, len) in fresh {
                let room = self.room_of(&room);
                let id: Box<str> = id.into();
                if self.by_id.contains_key(&id) {
                    continue; // a duplicate id keeps the first line (`verify` reports it)
                }
                self.by_id.insert(id.clone(), self.rows.len() as u32);
                self.rows.push(Row {
                    id,
                    room,
                    ts,
                    line,
                    offset,
                    len: len as u32,
                });
            }
            return Ok(());
        }
        Ok(())
    }

    fn room_of(&mut self, room: &str) -> u32 {
        if let Some(&i) = self.room_ids.get(room) {
            return i;
        }
        let i = self.rooms.len() as u32;
        self.rooms.push(room.to_string());
        self.room_ids.insert(room.to_string(), i);
        i
    }

    /// The row of receipt `id`.
    pub(crate) fn get(&self, id: &str) -> Option<&Row> {
        self.by_id.get(id).map(|&i| &self.rows[i as usize])
    }

    /// The row on physical line `line`, if it is a receipt.
    pub(crate) fn on_line(&self, line: u64) -> Option<&Row> {
        let i = self.rows.partition_point(|r| r.line < line);
        self.rows.get(i).filter(|r| r.line == line)
    }

    /// The newest `last` rows of `room` (all rooms: None) at or after `since`, newest first.
    pub(crate) fn newest(&self, room: Option<&str>, since: Option<i64>, last: usize) -> Vec<Row> {
        let room = match room {
            Some(r) => match self.room_ids.get(r) {
                Some(&i) => Some(i),
                None => return Vec::new(),
            },
            None => None,
        };
        self.rows
            .iter()
            .rev()
            .filter(|r| room.is_none_or(|i| r.room == i))
            .filter(|r| since.is_none_or(|s| r.ts >= s))
            .take(last)
            .cloned()
            .collect()
    }

    /// The bytes of `row`'s line.
    pub(crate) fn line(&self, row: &Row) -> std::io::Result<Vec<u8>> {
        let mut bytes =
            self.source
                .read_range(row.line, row.offset, row.offset + u64::from(row.len) + 1)?;
        while bytes.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
            bytes.pop();
        }
        Ok(bytes)
    }

    /// The receipt of `row`.
    pub(crate) fn receipt(&self, row: &Row) -> std::io::Result<Receipt> {
        let bytes = self.line(row)?;
        serde_json::from_slice(&bytes).map_err(|e| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("receipt {} changed since it was read: {e}", row.id),
            )
        })
    }
}

/// What one asker's briefs may write: the last brief recorded per room and arguments, and
/// the times (seconds) of its new receipts in the last 60 seconds — a sliding window, so
/// no 60 seconds anywhere hold more than the cap (a fixed minute let a burst straddling
/// its boundary record twice the cap).
#[derive(Default)]
pub(crate) struct Limits {
    last: HashMap<[u8; 32], (String, String)>,
    recent: HashMap<String, std::collections::VecDeque<i64>>,
}

impl Limits {
    /// The receipt id already recording this brief (`key`: asker, room and arguments;
    /// `what`: ledger position and markdown hash).
    pub(crate) fn recorded(&self, key: &[u8; 32], what: &str) -> Option<&str> {
        self.last
            .get(key)
            .filter(|(w, _)| w == what)
            .map(|(_, id)| id.as_str())
    }

    /// Counts a new receipt of `who` at `now` (seconds); false when the 60 seconds up to
    /// `now` already hold `cap`. The window keeps at most `cap` times per asker.
    pub(crate) fn admit(&mut self, who: &str, now: i64, cap: u32) -> bool {
        let times = self.recent.entry(who.to_string()).or_default();
        while times.front().is_some_and(|&t| t <= now - 60) {
            times.pop_front();
        }
        if times.len() >= cap as usize {
            return false;
        }
        times.push_back(now);
        true
    }

    /// Remembers the receipt `id` recording `what` for `key`.
    pub(crate) fn remember(&mut self, key: [u8; 32], what: String, id: String) {
        if self.last.len() >= 16_384 {
            self.last.clear(); // a bound, not a cache policy: an old brief is recorded again
        }
        if self.recent.len() >= 16_384 {
            self.recent.retain(|_, t| !t.is_empty());
            if self.recent.len() >= 16_384 {
                self.recent.clear();
            }
        }
        self.last.insert(key, (what, id));
    }
}
