//! The whole-ledger look-up of open overlaps (the console's `/overlaps`, the `overlaps`
//! command): every live entry of a compared kind, with inverted lists of what overlaps
//! compare — its summary's terms, its identifiers, its ref — so that finding one entry's
//! partners reads a bounded number of postings instead of running a search.
//!
//! A search per entry (the lexical top 20, as a publish's `related` does) cost 152 s over
//! 100k entries on two cores. Here one entry's look-up reads its keys' lists **rarest
//! first**, while their lengths add up to at most [`BUDGET`] postings, and of each list
//! the *older* entries; every entry met is a candidate, judged with the same [`strength`]
//! as the brief's pairs (same ref, a shared identifier, enough shared words), and the
//! entry's [`KEEP`] strongest are its pairs — each pair found from its newer side. A
//! word, identifier or ref carried by more compared entries than the budget allows never
//! brings candidates of its own (it still counts in the strength of a candidate found
//! through a rarer key): such words say little about which two entries meant the same
//! thing, and reading their lists is what a search per entry paid for.
//!
//! Everything is pure given the index: the pool is in ledger order, the lists are read in
//! an order fixed by their lengths and keys, ties are broken by position, and each pair
//! is found from one side — so every thread count gives the same pairs.

use foldhash::HashMap;
use std::hash::Hash;

use super::rounds::{Basis, Rounds};
use super::{Features, comparable, shared_count, strength_of};
use crate::entry::Kind;
use crate::error::Result;

/// Postings one entry's look-up reads at most (its keys' lists, rarest first).
pub const BUDGET: usize = 1024;
/// Strongest partners kept per entry looked up (as many as a publish's `related` shows).
pub const KEEP: usize = super::MAX_RELATED;
/// Entries whose texts are read at once while the pool is built.
const BATCH: usize = 2048;

/// What an inverted list is keyed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Key {
    /// A summary term ([`crate::index::TextIndex::term_keys`]).
    Term(u64),
    /// An identifier's hash.
    Ident(u64),
    /// The ref's symbol (an empty ref has no list).
    Ref(u32),
}

/// Live entries of compared kinds, in ledger order, and their inverted lists.
pub(crate) struct Pool {
    /// Ledger positions, ascending.
    pub pos: Vec<u32>,
    /// What each is compared by (detail dropped: the pool holds summaries only); empty
    /// unless the pool was built to keep them.
    pub feats: Vec<Features>,
    /// What a candidate is judged by, packed (a look-up meets hundreds of candidates at
    /// random places: one small record and one run of keys each, not a scattered struct).
    packed: Vec<Packed>,
    /// Compared-kind groups ([`group`]).
    groups: Vec<u8>,
    /// Every entry's term keys, then identifier keys, one run after another.
    keys: Vec<u64>,
    /// (group, key) → pool indices, ascending.
    lists: HashMap<(u8, Key), Vec<u32>>,
    /// Each group's [`FREQUENT`] terms on the longest lists → their bit in [`Packed::mask`].
    frequent: HashMap<(u8, u64), u8>,
    /// Postings one look-up reads at most ([`BUDGET`]; smaller in tests).
    budget: usize,
}

/// Terms per group counted as bits, not read as lists: those on the longest lists.
const FREQUENT: usize = 64;

fn group(k: Kind) -> u8 {
    u8::from(k == Kind::Warning)
}

impl Pool {
    /// Every entry of a compared kind live at the basis's horizon, its texts read in
    /// rounds of `threads` batches (one each, in parallel), the index's lock held for a
    /// round at a time ([`Rounds`]). `keep`: keep each entry's [`Features`] (what writing
    /// the pairs out with why needs); without, only what the look-ups read is kept.
    pub(crate) fn build(
        rd: &dyn Rounds,
        basis: &Basis,
        threads: usize,
        keep: bool,
    ) -> Result<Pool> {
        let h = basis.h;
        let mut pos: Vec<u32> = Vec::new();
        rd.round(&mut |ix| {
            basis.check(ix)?;
            pos = (0..h)
                .filter(|&p| ix.live_at(p, h) && !comparable(ix.meta(p).kind).is_empty())
                .collect();
            Ok(())
        })?;
        let mut feats: Vec<Features> = Vec::with_capacity(if keep { pos.len() } else { 0 });
        let mut packed = Vec::with_capacity(pos.len());
        let mut groups = Vec::with_capacity(pos.len());
        let mut flat: Vec<u64> = Vec::new();
        let mut lists: HashMap<(u8, Key), Vec<u32>> = HashMap::default();
        for round in pos.chunks(BATCH * threads.max(1)) {
            // This round's entries and their (room, ref, kind) as the index holds them.
            let mut got: Vec<Features> = Vec::with_capacity(round.len());
            let mut metas: Vec<(u32, u32, Kind)> = Vec::with_capacity(round.len());
            rd.round(&mut |ix| {
                basis.check(ix)?;
                let read = |chunk: &[u32]| -> Result<Vec<Features>> {
                    Ok(ix
                        .entries(chunk)?
                        .into_iter()
                        .map(|mut e| {
                            e.detail = String::new();
                            Features::from_entry(ix, e)
                        })
                        .collect())
                };
                for part in crate::par::each(round.chunks(BATCH).collect(), "overlaps pool", read) {
                    got.extend(part?);
                }
                metas.extend(round.iter().map(|&p| {
                    let m = ix.meta(p);
                    (m.room, m.ref_, m.kind)
                }));
                Ok(())
            })?;
            for (f, (room, ref_, kind)) in got.iter().zip(metas) {
                let i = packed.len() as u32;
                let start = flat.len() as u32;
                flat.extend(&f.term_keys);
                flat.extend(&f.id_keys);
                // A summary is at most a few thousand terms: u16 holds its counts.
                let p = Packed {
                    room,
                    ref_: if f.ref_.is_empty() { NO_REF } else { ref_ },
                    start,
                    terms: f.term_keys.len() as u16,
                    ids: f.id_keys.len() as u16,
                    mask: 0,
                    sig: sig(&f.term_keys) | sig(&f.id_keys),
                };
                let g = group(kind);
                for k in keys(&f.term_keys, &f.id_keys, p.ref_) {
                    lists.entry((g, k)).or_default().push(i);
                }
                packed.push(p);
                groups.push(g);
            }
            if keep {
                feats.extend(got);
            }
        }
        // Each group's most carried terms (longest lists, then the smaller key).
        let mut by_len: Vec<(usize, u8, u64)> = lists
            .iter()
            .filter_map(|(&(g, k), l)| match k {
                Key::Term(t) => Some((l.len(), g, t)),
                _ => None,
            })
            .collect();
        by_len.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        let mut frequent: HashMap<(u8, u64), u8> = HashMap::default();
        let mut per_group = [0usize; 2];
        for (_, g, t) in by_len {
            let n = &mut per_group[usize::from(g)];
            if *n < FREQUENT {
                frequent.insert((g, t), *n as u8);
                *n += 1;
            }
        }
        for (p, &g) in packed.iter_mut().zip(&groups) {
            let s = p.start as usize;
            for t in &flat[s..s + p.terms as usize] {
                if let Some(&bit) = frequent.get(&(g, *t)) {
                    p.mask |= 1 << bit;
                }
            }
        }
        Ok(Pool {
            pos,
            feats,
            packed,
            groups,
            keys: flat,
            lists,
            frequent,
            budget: BUDGET,
        })
    }

    /// Number of entries in the pool.
    pub(crate) fn len(&self) -> usize {
        self.pos.len()
    }

    /// The room symbol of pool entry `i`.
    pub(crate) fn room(&self, i: usize) -> u32 {
        self.packed[i].room
    }

    /// Pool entry `i`'s term keys and identifier keys.
    fn runs(&self, i: usize) -> (&[u64], &[u64]) {
        let p = &self.packed[i];
        let (s, t) = (p.start as usize, p.terms as usize);
        let run = &self.keys[s..s + t + p.ids as usize];
        run.split_at(t)
    }

    /// The [`KEEP`] strongest partners of pool entry `i` among the *older* entries of
    /// other rooms (pool indices and strengths, strongest first, then the newer), as its
    /// publish was pointed at older entries: every pair is found from its newer side. Its
    /// keys' rarity is the whole pool's.
    ///
    /// Exact for every candidate met: its shared terms are those of the lists read (one
    /// count per list it is on), plus the frequent terms both have (a bit each), plus the
    /// rest of this entry's terms looked up in its run.
    pub(crate) fn partners(&self, i: usize, sc: &mut Scratch) -> Vec<(usize, f64)> {
        let me = self.packed[i];
        let my_group = self.groups[i];
        let (my_terms, my_ids) = self.runs(i);
        // Rarity is the whole ledger's (the list's length); what is read is the older
        // carriers (a list is ascending), found only for the lists read.
        let mut lists: Vec<(usize, Key, &[u32])> = keys(my_terms, my_ids, me.ref_)
            .into_iter()
            .filter_map(|k| {
                let list = self.lists.get(&(my_group, k))?;
                Some((list.len(), k, &list[..]))
            })
            .collect();
        lists.sort_unstable_by_key(|&(len, k, _)| (len, k));
        let stamp = i as u32 + 1;
        sc.touched.clear();
        let mut read = 0;
        // This entry's terms neither read nor frequent: looked up in each candidate's run.
        let mut rest: Vec<u64> = Vec::new();
        for (len, k, list) in lists {
            if list.first().is_none_or(|&j| j as usize >= i) {
                continue; // no older entry has it: it can add to no candidate's count
            }
            let frequent = matches!(k, Key::Term(t) if self.frequent.contains_key(&(my_group, t)));
            if read + len > self.budget {
                read = self.budget + 1; // no later list is read either
                if let (Key::Term(t), false) = (k, frequent) {
                    rest.push(t);
                }
                continue;
            }
            read += len;
            let counts = matches!(k, Key::Term(_)) && !frequent;
            let older = &list[..list.partition_point(|&j| (j as usize) < i)];
            for &j in older {
                let j = j as usize;
                if sc.seen[j] != stamp {
                    sc.seen[j] = stamp;
                    sc.count[j] = 0;
                    sc.touched.push(j as u32);
                }
                if counts {
                    sc.count[j] += 1;
                }
            }
        }
        rest.sort_unstable();
        let rest_bits: Vec<u64> = rest.iter().map(|&t| bit(t)).collect();
        let my_id_bits = sig(my_ids);
        let mut found: Vec<(usize, f64)> = Vec::new();
        // The candidates are at random places of a pool that is larger than the caches
        // at 1M entries, and each costs a miss on its record and often one on its run of
        // keys. Each is gathered in a pass of its own, whose loads do not wait on one
        // another, so their misses overlap; read behind the judging's branches, they were
        // paid one after another (~70 % of a look-up at 1M entries).
        sc.recs.clear();
        sc.recs
            .extend(sc.touched.iter().map(|&j| self.packed[j as usize]));
        sc.pending.clear();
        for (&j, other) in sc.touched.iter().zip(&sc.recs) {
            if other.room == me.room {
                continue;
            }
            let shorter = me.terms.min(other.terms) as usize;
            let same_ref = me.ref_ != NO_REF && me.ref_ == other.ref_;
            let shared =
                usize::from(sc.count[j as usize]) + (me.mask & other.mask).count_ones() as usize;
            // The signatures bound what the candidate's run could add: most candidates
            // are settled without reading it.
            // Per term, not one popcount: two of its terms may share a bit.
            let rest_may = rest_bits.iter().filter(|&&b| other.sig & b != 0).count();
            let words_may = words(shared + rest_may, shorter);
            let ids_may = my_id_bits & other.sig != 0;
            if !same_ref && !ids_may && !words_may {
                continue;
            }
            let c = Pending {
                j,
                start: other.start,
                terms: other.terms,
                ids: other.ids,
                shared: shared as u16,
                shorter: shorter as u16,
                same_ref,
                read_terms: words_may && rest_may > 0,
                ids_may,
            };
            if c.read_terms || c.ids_may {
                sc.pending.push(c);
            } else if let Some(s) = strength_of(same_ref, false, shared, shorter) {
                found.push((j as usize, s));
            }
        }
        // The runs to read: their first, middle and last keys gathered (the lines the
        // searches below read), the first also bounding the terms looked up. A pending
        // candidate's run is never empty: its signature met one of this entry's keys.
        sc.edges.clear();
        sc.edges.extend(sc.pending.iter().map(|c| {
            let (s, n) = (c.start as usize, usize::from(c.terms) + usize::from(c.ids));
            [self.keys[s], self.keys[s + n / 2], self.keys[s + n - 1]]
        }));
        for (c, edge) in sc.pending.iter().zip(&sc.edges) {
            let (s, t) = (c.start as usize, usize::from(c.terms));
            let (terms, ids) = self.keys[s..s + t + usize::from(c.ids)].split_at(t);
            let mut shared = usize::from(c.shared);
            if c.read_terms && t > 0 {
                // Only the terms within its run's bounds.
                let (lo, hi) = (edge[0], terms[t - 1]);
                shared += rest
                    .iter()
                    .filter(|&&x| lo <= x && x <= hi && terms.binary_search(&x).is_ok())
                    .count();
            }
            let shared_ids = c.ids_may && shared_count(my_ids, ids) > 0;
            if let Some(s) = strength_of(c.same_ref, shared_ids, shared, usize::from(c.shorter)) {
                found.push((c.j as usize, s));
            }
        }
        found.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
        found.truncate(KEEP);
        found
    }
}

/// A thread's scratch for [`Pool::partners`]: one slot per pool entry.
pub(crate) struct Scratch {
    seen: Vec<u32>,
    count: Vec<u16>,
    touched: Vec<u32>,
    /// The touched candidates' records, gathered.
    recs: Vec<Packed>,
    /// Candidates whose runs of keys are to be read.
    pending: Vec<Pending>,
    /// Their runs' first, middle and last keys, gathered.
    edges: Vec<[u64; 3]>,
}

/// A candidate settled only by reading its run of keys.
#[derive(Debug, Clone, Copy)]
struct Pending {
    j: u32,
    start: u32,
    terms: u16,
    ids: u16,
    /// Shared terms counted so far (lists read, frequent bits).
    shared: u16,
    shorter: u16,
    same_ref: bool,
    /// Some of this entry's unread terms may be in its terms.
    read_terms: bool,
    /// Some of this entry's identifiers may be among its identifiers.
    ids_may: bool,
}

impl Scratch {
    /// Scratch for `pool`.
    pub(crate) fn new(pool: &Pool) -> Scratch {
        Scratch {
            seen: vec![0; pool.len()],
            count: vec![0; pool.len()],
            touched: Vec::new(),
            recs: Vec::new(),
            pending: Vec::new(),
            edges: Vec::new(),
        }
    }
}

/// A pool entry's `ref_` when it has none.
const NO_REF: u32 = u32::MAX;

/// What a candidate is judged by: its room, ref symbol and where its keys are.
#[derive(Debug, Clone, Copy)]
struct Packed {
    room: u32,
    ref_: u32,
    start: u32,
    terms: u16,
    ids: u16,
    /// Which of its group's frequent terms it has.
    mask: u64,
    /// A bit per term and identifier ([`bit`]): a key whose bit is clear is not its.
    sig: u64,
}

/// A key's bit in a signature.
fn bit(key: u64) -> u64 {
    1 << (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58)
}

/// The signature of sorted keys: every key's [`bit`].
fn sig(keys: &[u64]) -> u64 {
    keys.iter().fold(0, |m, &k| m | bit(k))
}

/// True if `shared` terms of the shorter entry's `shorter` count as evidence (the words
/// rule of [`strength_of`]).
fn words(shared: usize, shorter: usize) -> bool {
    strength_of(false, false, shared, shorter).is_some()
}

/// The keys of an entry's lists: its summary terms, identifiers and ref.
fn keys(terms: &[u64], ids: &[u64], ref_: u32) -> Vec<Key> {
    let mut out: Vec<Key> = terms.iter().map(|&t| Key::Term(t)).collect();
    out.extend(ids.iter().map(|&t| Key::Ident(t)));
    if ref_ != NO_REF {
        out.push(Key::Ref(ref_));
    }
    out
}

#[cfg(test)]
#[path = "partners_tests.rs"]
mod tests;
