//! Every entry's fixed-size fields, packed: 48 bytes an entry where the plain structs
//! took 64 (the memory on short entries: 16 MB at 1M entries).
//!
//! - [`Meta`], the hot columns every filter reads, is kept as a 24-byte [`Row`]: the
//!   time, kind and liveness share one word. A time parsed from a ledger's `ts` lies
//!   within years 0000–9999 (about ±2^38 seconds), far inside the word's 56 bits; a
//!   snapshot whose time does not fit is refused, never cut ([`Row::pack`]).
//! - [`Stored`], the cold fields, is 24 bytes: the supersede link is a position with
//!   [`NONE`] for none, and an entry's tags end where the next entry's begin (they are
//!   appended in position order into one vector), so only their start is kept.
//!
//! Readers get a [`Meta`] by value, assembled from its row in one load.

use crate::entry::Kind;
use crate::{Loc, Sym};

/// Hot columns of one entry, scanned by every filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meta {
    /// Seconds since the epoch.
    pub ts: i64,
    /// Room symbol.
    pub room: Sym,
    /// Author role symbol.
    pub role: Sym,
    /// Ref symbol.
    pub ref_: Sym,
    /// Plan symbol (0: none).
    pub plan: Sym,
    /// Kind.
    pub kind: Kind,
    /// False once a later entry supersedes this one.
    pub live: bool,
}

/// Cold fields of one entry (24 bytes; its id is in the index's arena of ids, fields most
/// entries lack are in the index's rare map, tags in one shared vector).
#[derive(Clone, Debug)]
pub struct Stored {
    /// Where its tag symbols start in the index's tag vector (they end where the next
    /// entry's start).
    tags_start: u32,
    /// Position of the entry that superseded this one, or [`NONE`].
    superseded: u32,
    /// Where the line is in the file.
    pub loc: Loc,
}

/// "No position" in [`Stored`] (as in the snapshot's format).
pub(crate) const NONE: u32 = u32::MAX;

impl Stored {
    /// Position of the entry that superseded this one.
    pub fn superseded_by(&self) -> Option<u32> {
        (self.superseded != NONE).then_some(self.superseded)
    }
}

/// A [`Meta`] packed into 24 bytes: `word` is the time shifted left by 8, the kind's
/// index in bits 1–3 and liveness in bit 0.
#[derive(Clone, Copy, Debug)]
struct Row {
    word: i64,
    room: Sym,
    role: Sym,
    ref_: Sym,
    plan: Sym,
}

/// Times a [`Row`] holds: 56 bits, signed.
const TS_MIN: i64 = i64::MIN >> 8;
const TS_MAX: i64 = i64::MAX >> 8;

impl Row {
    /// `m` packed, or `None` if its time is beyond ±2^55 seconds.
    fn pack(m: &Meta) -> Option<Row> {
        (TS_MIN..=TS_MAX).contains(&m.ts).then(|| Row {
            word: (m.ts << 8) | ((m.kind.index() as i64) << 1) | i64::from(m.live),
            room: m.room,
            role: m.role,
            ref_: m.ref_,
            plan: m.plan,
        })
    }

    #[inline(always)]
    fn meta(self) -> Meta {
        Meta {
            ts: self.word >> 8,
            room: self.room,
            role: self.role,
            ref_: self.ref_,
            plan: self.plan,
            kind: Kind::ALL[((self.word >> 1) & 7) as usize],
            live: self.word & 1 == 1,
        }
    }
}

/// Every entry's [`Meta`] and [`Stored`], by position.
#[derive(Default)]
pub(crate) struct Rows {
    hot: Vec<Row>,
    cold: Vec<Stored>,
}

impl std::fmt::Debug for Rows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rows").field("len", &self.len()).finish()
    }
}

impl Rows {
    pub(crate) fn len(&self) -> usize {
        self.hot.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.hot.is_empty()
    }

    pub(crate) fn reserve(&mut self, n: usize) {
        self.hot.reserve(n);
        self.cold.reserve(n);
    }

    pub(crate) fn reserve_exact(&mut self, n: usize) {
        self.hot.reserve_exact(n);
        self.cold.reserve_exact(n);
    }

    /// Appends the next entry: its columns, where its tags start, what superseded it
    /// and where its line is. `Err` (nothing appended) if its time cannot be packed,
    /// which a time parsed from a ledger never is.
    pub(crate) fn push(
        &mut self,
        meta: &Meta,
        tags_start: u32,
        superseded_by: Option<u32>,
        loc: Loc,
    ) -> Result<(), &'static str> {
        let row = Row::pack(meta).ok_or("a time beyond ±2^55 seconds")?;
        if superseded_by == Some(NONE) {
            return Err("a position of 2^32 − 1");
        }
        self.hot.push(row);
        self.cold.push(Stored {
            tags_start,
            superseded: superseded_by.unwrap_or(NONE),
            loc,
        });
        Ok(())
    }

    /// The columns of the entry at `pos`.
    #[inline(always)]
    pub(crate) fn meta(&self, pos: u32) -> Meta {
        self.hot[pos as usize].meta()
    }

    /// The time of the entry at `pos`.
    #[inline(always)]
    pub(crate) fn ts(&self, pos: u32) -> i64 {
        self.hot[pos as usize].word >> 8
    }

    /// The cold fields of the entry at `pos`.
    pub(crate) fn stored(&self, pos: u32) -> &Stored {
        &self.cold[pos as usize]
    }

    /// Every entry's cold fields, in position order.
    pub(crate) fn stored_all(&self) -> &[Stored] {
        &self.cold
    }

    /// Where the tags of the entry at `pos` lie in a tag vector of `tags_len` symbols.
    pub(crate) fn tags(&self, pos: u32, tags_len: usize) -> std::ops::Range<usize> {
        let start = self.cold[pos as usize].tags_start as usize;
        let end = self
            .cold
            .get(pos as usize + 1)
            .map_or(tags_len, |s| s.tags_start as usize);
        start..end
    }

    /// Records that `by` superseded the entry at `pos`: it is no longer live.
    pub(crate) fn supersede(&mut self, pos: u32, by: u32) {
        self.cold[pos as usize].superseded = by;
        self.hot[pos as usize].word &= !1;
    }

    /// Bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.hot.capacity() * std::mem::size_of::<Row>()
            + self.cold.capacity() * std::mem::size_of::<Stored>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(ts: i64, kind: Kind, live: bool) -> Meta {
        Meta {
            ts,
            room: 1,
            role: u32::MAX,
            ref_: 7,
            plan: 0,
            kind,
            live,
        }
    }

    #[test]
    fn rows_and_stored_fields_take_24_bytes_each() {
        assert_eq!(std::mem::size_of::<Row>(), 24);
        assert_eq!(std::mem::size_of::<Stored>(), 24);
    }

    #[test]
    fn every_kind_liveness_and_time_in_range_comes_back_as_packed() {
        let mut rows = Rows::default();
        let times = [0, -1, 1, TS_MIN, TS_MAX, 253_402_300_799, -62_167_219_200];
        let mut want = Vec::new();
        for &ts in &times {
            for kind in Kind::ALL {
                for live in [true, false] {
                    let m = meta(ts, kind, live);
                    rows.push(&m, 0, None, Loc { line: 1, offset: 0 }).unwrap();
                    want.push(m);
                }
            }
        }
        for (pos, m) in want.iter().enumerate() {
            assert_eq!(rows.meta(pos as u32), *m);
            assert_eq!(rows.ts(pos as u32), m.ts);
        }
    }

    #[test]
    fn a_time_beyond_the_word_or_a_link_to_the_last_position_is_refused_with_nothing_kept() {
        let mut rows = Rows::default();
        let loc = Loc { line: 1, offset: 0 };
        for ts in [TS_MAX + 1, TS_MIN - 1, i64::MAX, i64::MIN] {
            let m = meta(ts, Kind::Decision, true);
            assert!(rows.push(&m, 0, None, loc).is_err());
        }
        let m = meta(0, Kind::Decision, true);
        assert!(rows.push(&m, 0, Some(NONE), loc).is_err());
        assert!(rows.is_empty());
    }

    #[test]
    fn tags_end_where_the_next_entrys_begin_and_a_supersede_retires_only_its_target() {
        let mut rows = Rows::default();
        let loc = Loc { line: 3, offset: 9 };
        for (i, start) in [0, 2, 2, 5].into_iter().enumerate() {
            let m = meta(i as i64, Kind::Warning, true);
            rows.push(&m, start, None, loc).unwrap();
        }
        let spans: Vec<_> = (0..4).map(|p| rows.tags(p, 6)).collect();
        assert_eq!(spans, vec![0..2, 2..2, 2..5, 5..6]);
        rows.supersede(1, 3);
        assert_eq!(rows.stored(1).superseded_by(), Some(3));
        assert!(!rows.meta(1).live);
        assert_eq!(rows.meta(1).ts, 1);
        assert_eq!(rows.meta(1).kind, Kind::Warning);
        for p in [0, 2, 3] {
            assert!(rows.meta(p).live);
            assert_eq!(rows.stored(p).superseded_by(), None);
        }
        assert_eq!(rows.stored(2).loc, loc);
    }
}
