//! Every term's postings list, in term-id order, each list in document order.
//!
//! Why not a `Vec<Vec<Posting>>`: a ledger that carries ids, paths, numbers and hashes
//! has millions of terms with one posting each (4.2M of the 4.6M terms of the bench's 1M
//! short entries with ids), and a vector per term cost 24 bytes and an allocation of 32
//! for that one 8-byte posting (the memory on short entries). Here a term's head
//! is 8 bytes: nothing, its one posting inline, or the index of its vector of two
//! postings or more in a table of such vectors. Readers get a [`List`].
//! (Earlier heads, measured in docs/performance.md: 24 bytes, a vector's size, with the
//! one posting inline; a 12-byte head indexing vectors kept elsewhere, which cost a
//! first start a dependent cache miss a posting appended on the slower VM of its day;
//! a 16-byte head whose count of postings lived in the list's own memory.)
//!
//! A posting's record is its document and one byte for its four field frequencies —
//! summary 0–6 (3 bits), tags 0–1 (1), detail 0–7 (3), ref 0–1 (1). Nearly every posting
//! fits; one that does not has summary bits 7 and its frequencies kept aside (keyed by
//! term and document). A list of two or more lays its records out wide (5 bytes) or
//! narrow (about 3), as `records.rs` says; either way a list is read at any position
//! (the pruned walk seeks back through lists).

use std::collections::HashMap;

use crate::records::{self, REC};
use crate::score::Posting;

/// The summary bits of a posting whose frequencies are kept aside.
const ESCAPE: u8 = 7;

/// The frequency byte of `tf`, if it fits in one.
#[inline(always)]
fn pack(tf: [u8; 4]) -> Option<u8> {
    (tf[0] < ESCAPE && tf[1] < 2 && tf[2] < 8 && tf[3] < 2)
        .then(|| tf[0] | (tf[1] << 3) | (tf[2] << 4) | (tf[3] << 7))
}

/// The frequencies of a byte [`pack`] made.
#[inline(always)]
fn unpack(c: u8) -> [u8; 4] {
    [c & 7, (c >> 3) & 1, (c >> 4) & 7, c >> 7]
}

/// The frequency byte of `p`, and whether its frequencies must be kept aside.
#[inline(always)]
fn code(p: Posting) -> (u8, bool) {
    match pack(p.tf) {
        Some(c) => (c, false),
        None => (ESCAPE, true),
    }
}

/// The head of a list of the one posting of `doc` and frequency byte `c`.
#[inline(always)]
fn one(doc: u32, c: u8) -> Head {
    let d = doc.to_le_bytes();
    [d[0], d[1], d[2], d[3], c, 0, 0, ONE]
}

/// The index in [`Postings::many`] a [`MANY`] head names.
#[inline(always)]
fn many_index(h: &Head) -> usize {
    u32::from_le_bytes([h[0], h[1], h[2], h[3]]) as usize
}

/// Key of a posting kept aside.
#[inline(always)]
fn aside_key(term: u32, doc: u32) -> u64 {
    (u64::from(term) << 32) | u64::from(doc)
}

/// A term's head: all zero for no postings; [`ONE`] in its last byte and the wide record
/// in its first five for one posting; [`MANY`] in its last byte, the index of its vector
/// in [`Postings::many`] in its first four and [`NARROW`] or 0 in its fifth (the
/// vector's layout) for two or more.
type Head = [u8; 8];
/// The last byte of a head holding one posting inline.
const ONE: u8 = 0x80;
/// The last byte of a head naming a vector of postings.
const MANY: u8 = 0x40;
/// The fifth byte of a [`MANY`] head whose vector is laid out narrow.
const NARROW: u8 = 1;

/// What [`Postings::push`] made of a term's list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pushed {
    /// Its first posting: a list of one, which has no slot.
    One,
    /// Its second posting: the list now has slot `m`.
    Slotted(u32),
    /// A later posting to the list of slot `m`.
    More(u32),
}

/// The postings of every term.
#[derive(Default)]
pub(crate) struct Postings {
    heads: Vec<Head>,
    /// The lists of two postings or more, in the order they got their second: a list's
    /// index here is its *slot*, which indexes the per-list tables kept elsewhere
    /// (document frequencies, bounds), so that a term of one posting costs none of them.
    many: Vec<Vec<u8>>,
    /// The term of each list in `many`.
    many_terms: Vec<u32>,
    /// Frequencies that do not fit in a byte, by term and document.
    aside: HashMap<u64, [u8; 4]>,
}

/// One term's postings, or a run of them: read at any position, in document order.
#[derive(Clone, Copy)]
pub(crate) struct List<'a> {
    /// The whole list's records.
    recs: &'a [u8],
    /// Their layout.
    narrow: bool,
    /// This run's first posting in `recs`, and its number of postings.
    from: usize,
    len: usize,
    term: u32,
    aside: &'a HashMap<u64, [u8; 4]>,
}

impl<'a> List<'a> {
    /// The run of all of `recs`.
    fn whole(recs: &'a [u8], narrow: bool, term: u32, aside: &'a HashMap<u64, [u8; 4]>) -> Self {
        List {
            recs,
            narrow,
            from: 0,
            len: records::count(recs, narrow),
            term,
            aside,
        }
    }

    /// Number of postings.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Appends the records, wide ([`REC`] bytes a posting: what the snapshot writes; read
    /// back by [`Postings::push_records`]), to `out`.
    pub(crate) fn write_records(&self, out: &mut Vec<u8>) {
        let (recs, narrow) = (self.recs, self.narrow);
        records::write_wide(recs, narrow, self.from, self.from + self.len, out);
    }

    /// True if there are none.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The document and frequency byte of posting `i` (which must exist).
    #[inline(always)]
    fn at(&self, i: usize) -> (u32, u8) {
        // A run shares its whole list's bytes: a read past the run must fail, not answer
        // with a posting outside it (a horizon's run would see the future).
        assert!(i < self.len, "a posting within the run");
        records::at(self.recs, self.narrow, self.from + i)
    }

    /// The document of posting `i` (which must exist).
    #[inline(always)]
    pub(crate) fn doc(&self, i: usize) -> u32 {
        self.at(i).0
    }

    /// Posting `i` (which must exist).
    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> Posting {
        let (doc, c) = self.at(i);
        let tf = if c & 7 != ESCAPE {
            unpack(c)
        } else {
            self.aside[&aside_key(self.term, doc)]
        };
        Posting { doc, tf }
    }

    /// How many postings have the term in summary or tags (the seed's document
    /// frequency over this run).
    pub(crate) fn in_summary_or_tags(&self) -> usize {
        self.iter().filter(|p| p.tf[0] > 0 || p.tf[1] > 0).count()
    }

    /// The last posting, if any.
    pub(crate) fn last(&self) -> Option<Posting> {
        self.len().checked_sub(1).map(|i| self.get(i))
    }

    /// Postings `from..to`.
    pub(crate) fn slice(&self, from: usize, to: usize) -> List<'a> {
        assert!(from <= to && to <= self.len, "a run within the list");
        List {
            from: self.from + from,
            len: to - from,
            ..*self
        }
    }

    /// Every posting, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = Posting> + 'a {
        let l = *self;
        (0..l.len).map(move |i| l.get(i))
    }

    /// Runs of `n` postings (the last may be shorter), in order.
    pub(crate) fn chunks(&self, n: usize) -> impl Iterator<Item = List<'a>> + 'a {
        let l = *self;
        (0..l.len())
            .step_by(n.max(1))
            .map(move |i| l.slice(i, (i + n).min(l.len())))
    }

    /// How many of postings `from..to` (ascending by document) have a document `≤ doc`,
    /// counted from `from`: a bisection.
    #[inline]
    pub(crate) fn count_le(&self, from: usize, to: usize, doc: u32) -> usize {
        debug_assert!(from <= to && to <= self.len);
        let (recs, narrow, f) = (self.recs, self.narrow, self.from);
        records::count_le(recs, narrow, f + from, f + to, doc)
    }

    /// How many postings have a document below `doc`.
    pub(crate) fn below(&self, doc: u32) -> usize {
        match doc.checked_sub(1) {
            Some(d) => self.count_le(0, self.len(), d),
            None => 0,
        }
    }

    /// The posting of `doc`, if the term is in it.
    pub(crate) fn find(&self, doc: u32) -> Option<Posting> {
        let i = self.below(doc);
        (i < self.len() && self.doc(i) == doc).then(|| self.get(i))
    }
}

impl Postings {
    /// Room for a new term, with no postings.
    pub(crate) fn push_term(&mut self) {
        self.heads.push([0; 8]);
    }

    /// A new term with the postings `list`.
    #[cfg(test)]
    pub(crate) fn push_list(&mut self, list: Vec<Posting>) {
        let t = self.heads.len() as u32;
        self.heads.push([0; 8]);
        for p in list {
            self.push(t, p);
        }
    }

    /// A new term whose postings are `recs`, wide records as [`List::write_records`]
    /// gives them (the snapshot's): each document below `docs` and above the one before
    /// it. Returns how many records have their frequencies aside, for
    /// [`Postings::restore_aside`].
    pub(crate) fn push_records(&mut self, recs: &[u8], docs: usize) -> Result<usize, &'static str> {
        if !recs.len().is_multiple_of(REC) {
            return Err("posting records");
        }
        let (mut escaped, mut next) = (0, 0usize);
        for r in recs.chunks_exact(REC) {
            let doc = u32::from_le_bytes([r[0], r[1], r[2], r[3]]) as usize;
            if doc < next || doc >= docs {
                return Err("postings out of order or of no entry");
            }
            next = doc + 1;
            escaped += usize::from(r[4] & 7 == ESCAPE);
        }
        let t = self.heads.len() as u32;
        let head = match recs.len() / REC {
            0 => [0; 8],
            1 => one(
                u32::from_le_bytes([recs[0], recs[1], recs[2], recs[3]]),
                recs[4],
            ),
            _ => match records::narrowed(recs) {
                Some(n) => self.new_many(t, n, true),
                None => self.new_many(t, recs.to_vec(), false),
            },
        };
        self.heads.push(head);
        Ok(escaped)
    }

    /// Every posting whose frequencies are kept aside, as (term, document, frequencies),
    /// in that order.
    pub(crate) fn aside_entries(&self) -> Vec<(u32, u32, [u8; 4])> {
        let mut v: Vec<(u32, u32, [u8; 4])> = self
            .aside
            .iter()
            .map(|(&k, &tf)| ((k >> 32) as u32, k as u32, tf))
            .collect();
        v.sort_unstable();
        v
    }

    /// Restores what [`Postings::aside_entries`] gave, after every list is back: each
    /// entry must name an escaped record, and every escaped record (`escaped` of them,
    /// counted by [`Postings::push_records`]) must have one — so that no read of a
    /// posting ever misses its frequencies.
    pub(crate) fn restore_aside(
        &mut self,
        entries: impl IntoIterator<Item = (u32, u32, [u8; 4])>,
        escaped: usize,
    ) -> Result<(), &'static str> {
        let mut aside = HashMap::with_capacity(escaped);
        for (t, doc, tf) in entries {
            if t as usize >= self.heads.len() {
                return Err("frequencies aside of no term");
            }
            let (recs, narrow) = self.recs(t);
            let view = List::whole(recs, narrow, t, &aside);
            let i = view.below(doc);
            let named = i < view.len() && {
                let (d, c) = view.at(i);
                d == doc && c & 7 == ESCAPE
            };
            if !named || aside.insert(aside_key(t, doc), tf).is_some() {
                return Err("frequencies aside of no escaped posting, or twice");
            }
        }
        if aside.len() != escaped {
            return Err("escaped postings without their frequencies");
        }
        self.aside = aside;
        Ok(())
    }

    /// Makes room for `n` more terms.
    pub(crate) fn reserve_terms(&mut self, n: usize) {
        self.heads.reserve_exact(n);
    }

    /// Number of terms.
    pub(crate) fn len(&self) -> usize {
        self.heads.len()
    }

    /// Term `t`'s postings.
    #[inline]
    pub(crate) fn list(&self, t: u32) -> List<'_> {
        let (recs, narrow) = self.recs(t);
        List::whole(recs, narrow, t, &self.aside)
    }

    /// Term `t`'s records, and whether they are laid out narrow.
    #[inline(always)]
    fn recs(&self, t: u32) -> (&[u8], bool) {
        let h = &self.heads[t as usize];
        match h[7] {
            ONE => (&h[..REC], false),
            MANY => (&self.many[many_index(h)], h[4] == NARROW),
            _ => (&[], false),
        }
    }

    /// The slot of term `t`'s list: `None` for a list of one posting or none.
    #[inline(always)]
    pub(crate) fn slot(&self, t: u32) -> Option<u32> {
        let h = &self.heads[t as usize];
        (h[7] == MANY).then(|| many_index(h) as u32)
    }

    /// Number of lists with a slot (two postings or more).
    pub(crate) fn slotted(&self) -> usize {
        self.many.len()
    }

    /// The list of slot `m`.
    pub(crate) fn slot_list(&self, m: u32) -> List<'_> {
        self.list(self.many_terms[m as usize])
    }

    /// The term whose list has slot `m`.
    pub(crate) fn slot_term(&self, m: u32) -> u32 {
        self.many_terms[m as usize]
    }

    /// A head naming `recs` (two postings or more, laid out narrow or not) of term `t`,
    /// filed in [`Postings::many`].
    fn new_many(&mut self, t: u32, recs: Vec<u8>, narrow: bool) -> Head {
        let m = u32::try_from(self.many.len()).expect("fewer than 2^32 lists");
        self.many.push(recs);
        self.many_terms.push(t);
        let b = m.to_le_bytes();
        let layout = if narrow { NARROW } else { 0 };
        [b[0], b[1], b[2], b[3], layout, 0, 0, MANY]
    }

    /// Every term's postings, in term order.
    pub(crate) fn lists(&self) -> impl Iterator<Item = List<'_>> {
        (0..self.heads.len() as u32).map(|t| self.list(t))
    }

    /// Appends `p` to term `t`'s list (`p.doc` above every document already in it).
    pub(crate) fn push(&mut self, t: u32, p: Posting) -> Pushed {
        let (c, aside) = code(p);
        if aside {
            self.aside.insert(aside_key(t, p.doc), p.tf);
        }
        let head = self.heads[t as usize];
        match head[7] {
            ONE => {
                let mut pair = [0; 2 * REC];
                pair[..REC].copy_from_slice(&head[..REC]);
                pair[REC..].copy_from_slice(&one(p.doc, c)[..REC]);
                let h = match records::narrowed(&pair) {
                    Some(mut recs) => {
                        // 24 bytes, the smallest block glibc's malloc gives: six
                        // postings narrow, four wide.
                        recs.reserve_exact(22 - recs.len());
                        self.new_many(t, recs, true)
                    }
                    None => {
                        let mut recs = Vec::with_capacity(4 * REC);
                        recs.extend_from_slice(&pair);
                        self.new_many(t, recs, false)
                    }
                };
                self.heads[t as usize] = h;
                Pushed::Slotted(self.many.len() as u32 - 1)
            }
            MANY => {
                let m = many_index(&head);
                let recs = &mut self.many[m];
                let narrow = head[4] == NARROW;
                if !records::append(recs, narrow, p.doc, c) {
                    let mut wide = records::widened(recs);
                    records::append(&mut wide, false, p.doc, c);
                    *recs = wide;
                    self.heads[t as usize][4] = 0;
                }
                Pushed::More(m as u32)
            }
            _ => {
                self.heads[t as usize] = one(p.doc, c);
                Pushed::One
            }
        }
    }

    /// Postings whose frequencies are kept aside.
    #[cfg(test)]
    pub(crate) fn aside(&self) -> usize {
        self.aside.len()
    }

    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        let lists: usize = self.many.iter().map(|l| l.capacity()).sum();
        self.heads.capacity() * std::mem::size_of::<Head>()
            + self.many.capacity() * std::mem::size_of::<Vec<u8>>()
            + self.many_terms.capacity() * 4
            + lists
            + self.aside.capacity() * 16
    }
}

#[cfg(test)]
#[path = "postings_tests.rs"]
mod tests;
