//! The full-text index's vocabulary: term → id, ids given in first-use order (0, 1, 2…),
//! every term's text kept once in one arena ([`Strings`]).
//!
//! Why not a `HashMap<Box<str>, u32>`: a map entry (24 bytes and a control byte) plus the
//! boxed text's own allocation (32 bytes at least) is ~70 bytes a term, and a ledger that
//! carries ids, paths, numbers and hashes has several distinct terms per entry: the
//! bench's 1M short entries with three such tokens each (`xtask bench --short-entries`)
//! held 3.5× the ledger's size. Here a term costs its bytes, its end in the
//! arena (8 bytes) and a slot of the table (4 bytes and a control byte).

use std::hash::BuildHasher;

use crate::strings::Strings;

/// Term ↔ id, the texts in one arena.
#[derive(Default)]
pub(crate) struct Vocab {
    /// Ids, filed under their term's hash.
    table: hashbrown::HashTable<u32>,
    /// Every term, in id order.
    texts: Strings,
    hasher: foldhash::fast::RandomState,
}

impl Vocab {
    /// The id of `term`, if it was added.
    pub(crate) fn get(&self, term: &str) -> Option<u32> {
        let h = self.hasher.hash_one(term);
        self.table.find(h, |&id| self.term(id) == term).copied()
    }

    /// The text of term `id`.
    pub(crate) fn term(&self, id: u32) -> &str {
        self.texts.get(id as usize)
    }

    /// Number of terms.
    pub(crate) fn len(&self) -> usize {
        self.texts.len()
    }

    /// Every term, in id order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        self.texts.iter()
    }

    /// The id of `term`, added with the next id (ids in first-use order) if it is new:
    /// one hash and one probe, where a look-up and then an insertion took two.
    pub(crate) fn intern(&mut self, term: &str) -> u32 {
        let next = u32::try_from(self.texts.len()).expect("fewer than 2^32 terms");
        let Self {
            table,
            texts,
            hasher,
        } = self;
        let h = hasher.hash_one(term);
        match table.entry(
            h,
            |&other| texts.get(other as usize) == term,
            |&other| hasher.hash_one(texts.get(other as usize)),
        ) {
            hashbrown::hash_table::Entry::Occupied(found) => *found.get(),
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert(next);
                texts.push(term);
                next
            }
        }
    }

    /// Appends `term` with the next id without filing it: nothing finds it until
    /// [`Vocab::file_all`] files every term at once (the snapshot's reader).
    pub(crate) fn push_unfiled(&mut self, term: &str) {
        self.texts.push(term);
    }

    /// Files every term pushed by [`Vocab::push_unfiled`] (the table must hold none yet)
    /// in the order of the slots they take ([`crate::slot_order`]). Two equal terms are
    /// an error.
    pub(crate) fn file_all(&mut self) -> Result<(), &'static str> {
        let Self {
            table,
            texts,
            hasher,
        } = self;
        debug_assert!(table.is_empty());
        let items = (0..texts.len())
            .map(|id| crate::slot_order::Keyed::new(hasher.hash_one(texts.get(id)), id as u32))
            .collect();
        crate::slot_order::file(
            table,
            items,
            |a, b| texts.get(a as usize) == texts.get(b as usize),
            |&id| hasher.hash_one(texts.get(id as usize)),
        )
        .map_err(|()| "duplicate term")
    }

    /// Makes room for `n` more terms.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.texts.reserve(n, 0);
        let (texts, hasher) = (&self.texts, &self.hasher);
        self.table
            .reserve(n, |&id| hasher.hash_one(texts.get(id as usize)));
    }

    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.texts.heap_bytes() + self.table.capacity() * 5
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_in_first_use_order_and_every_term_found_again() {
        let mut v = Vocab::default();
        let words: Vec<String> = (0..5_000)
            .map(|i| format!("t{}", i * 7919 % 10_007))
            .collect();
        let mut want = Vec::new();
        for w in &words {
            let known = v.get(w);
            let id = v.intern(w);
            match known {
                Some(k) => assert_eq!(id, k),
                None => {
                    assert_eq!(id as usize, want.len(), "the next id");
                    want.push(w.clone());
                }
            }
            assert_eq!(v.term(id), w);
        }
        assert_eq!(v.len(), want.len());
        assert!(v.iter().eq(want.iter().map(String::as_str)));
        for (id, w) in want.iter().enumerate() {
            assert_eq!(v.get(w), Some(id as u32));
        }
        assert_eq!(v.get("absent"), None);
        assert_eq!(v.get(""), None);
        // The empty term and one that is a prefix of another are terms of their own.
        let e = v.intern("");
        assert_eq!((v.get(""), v.term(e)), (Some(e), ""));
        let p = v.intern("zz1");
        assert_eq!(v.get("zz1"), Some(p));
        assert_eq!(v.get("zz10"), None);
        assert_eq!(v.get("zz"), None);
    }

    /// Terms filed at once are found with the ids they were pushed with, as terms filed
    /// one by one; a term pushed twice is refused.
    #[test]
    fn terms_filed_at_once_are_found_as_if_filed_one_by_one() {
        let words: Vec<String> = (0..20_000).map(|i| format!("w{i}")).collect();
        let mut v = Vocab::default();
        v.reserve(words.len());
        for w in &words {
            v.push_unfiled(w);
        }
        assert_eq!(v.get("w0"), None, "nothing is found before filing");
        v.file_all().unwrap();
        for (id, w) in words.iter().enumerate() {
            assert_eq!(v.get(w), Some(id as u32));
        }
        assert_eq!(v.get("w20000"), None);
        assert_eq!(v.intern("fresh"), words.len() as u32);
        let mut twice = Vocab::default();
        for w in ["a", "b", "a"] {
            twice.push_unfiled(w);
        }
        assert!(twice.file_all().is_err());
    }
}
